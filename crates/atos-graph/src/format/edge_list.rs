//! Edge lists, SNAP-style or headerless: one `u v` or `u v weight` per line, fields split by
//! whitespace or commas, `#` and `%` comment lines. The first edge line fixes the number of
//! columns; ids are 0- or 1-based (detected from whether any id is 0, or forced).

use std::io::{Read, Write};

use super::text::{Fields, Lines, is_blank, parse_u64, show};
use super::weight_column::WeightColumn;
use super::{Base, Parsed, ReadError, ReadOptions, next_line, write_entries};
use crate::build::EdgeList;
use crate::csr::{Csr, MAX_VERTICES};
use crate::limits;

pub fn read<R: Read>(reader: R, path: &str, opts: &ReadOptions) -> Result<Parsed, ReadError> {
    let mut lines = Lines::new(reader);
    let mut edges = EdgeList::new(0);
    let mut weights = WeightColumn::new();
    // Columns (2 or 3) and the line that fixed them.
    let mut columns: Option<(usize, u64)> = None;
    let (mut min_id, mut max_id) = (u64::MAX, 0u64);
    // Ids above this cannot name a vertex under any base.
    let id_limit = match opts.base {
        Base::Zero => MAX_VERTICES - 1,
        _ => MAX_VERTICES,
    };
    while let Some((at, line)) = next_line(&mut lines, path)? {
        if matches!(line.first(), Some(b'#' | b'%')) || is_blank(line) {
            continue;
        }
        let err = |reason: String| ReadError::parse(path, at, reason);
        let mut f = Fields::new(line, true);
        let (a, b, c) = (f.next(), f.next(), f.next());
        let got = [a, b, c].iter().filter(|t| t.is_some()).count() + f.count();
        let (want, first) = *columns.get_or_insert((got, at));
        if got != want || !(2..=3).contains(&got) {
            return Err(err(if (2..=3).contains(&want) && at != first {
                format!("{got} fields, but the first edge line (line {first}) has {want}")
            } else {
                format!("{got} fields; expected `u v` or `u v weight`")
            }));
        }
        let id = |t: &[u8]| -> Result<u64, ReadError> {
            match parse_u64(t) {
                Some(x) if x <= id_limit && !(x == 0 && opts.base == Base::One) => Ok(x),
                Some(0) => Err(err("vertex id 0 in a file read as 1-based".into())),
                Some(x) => Err(err(format!("vertex id {x} is too large for u32 ids"))),
                None => Err(err(format!(
                    "vertex id `{}` is not a non-negative integer",
                    show(t)
                ))),
            }
        };
        let (u, v) = (id(a.unwrap_or_default())?, id(b.unwrap_or_default())?);
        if let (true, Some(w)) = (opts.weights, c) {
            weights.push_auto(w).map_err(err)?;
        }
        min_id = min_id.min(u).min(v);
        max_id = max_id.max(u).max(v);
        edges.pairs.push([u as u32, v as u32]);
    }
    let base: u8 = match opts.base {
        Base::Zero => 0,
        Base::One => 1,
        Base::Detect => u8::from(min_id != 0 && !edges.is_empty()),
    };
    let n = if edges.is_empty() {
        0
    } else {
        max_id + 1 - u64::from(base)
    };
    if n > MAX_VERTICES {
        return Err(ReadError::content(
            path,
            format!(
                "ids up to {max_id} ({base}-based) make {n} vertices; u32 ids allow {MAX_VERTICES}"
            ),
        ));
    }
    let weighted = columns.is_some_and(|(c, _)| c == 3) && opts.weights;
    limits::check(
        || format!("a graph of {n} vertices and {} edges", edges.len()),
        limits::csr_build_bytes(n, 2 * edges.len() as u64, weighted),
        opts.max_bytes,
    )
    .map_err(|source| ReadError::TooLarge {
        path: path.into(),
        source,
    })?;
    if base == 1 {
        edges
            .pairs
            .iter_mut()
            .for_each(|p| *p = [p[0] - 1, p[1] - 1]);
    }
    edges.num_vertices = n as u32;
    if weighted {
        edges.weights = Some(weights.into_weights());
    }
    Ok(Parsed {
        edges,
        symmetric: false,
        base,
    })
}

/// Writes `u v [weight]` lines, 0-based, after a `#` comment giving the sizes.
pub fn write<W: Write>(g: &Csr, w: &mut W) -> std::io::Result<()> {
    writeln!(
        w,
        "# atos-graph edge list, 0-based: {} vertices, {} entries",
        g.num_vertices(),
        g.num_edges()
    )?;
    write_entries(g, w, b"", 0, None)
}
