//! Matrix Market coordinate files (<https://math.nist.gov/MatrixMarket/formats.html>): a
//! `%%MatrixMarket matrix coordinate <field> <symmetry>` header, `%` comments, a
//! `rows cols entries` size line, then 1-based `row col [value]` entries. Row i, column j
//! is the edge i -> j; a rectangular matrix has max(rows, cols) vertices.

use std::io::{Read, Write};

use super::text::{Fields, Lines, is_blank, parse_i64, parse_u64, show};
use super::weight_column::WeightColumn;
use super::{Parsed, ReadError, ReadOptions, next_line, write_entries};
use crate::build::EdgeList;
use crate::csr::{Csr, MAX_VERTICES, Weights};
use crate::limits;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Pattern => "pattern",
            Field::Integer => "integer",
            Field::Real => "real",
        }
    }
}

/// Reads a Matrix Market file of `len` bytes. Symmetric files come back with
/// `symmetric: true`: the build mirrors every entry.
pub fn read<R: Read>(
    reader: R,
    path: &str,
    len: u64,
    opts: &ReadOptions,
) -> Result<Parsed, ReadError> {
    let mut lines = Lines::new(reader);
    let (field, symmetric) = header(&mut lines, path)?;
    let weighted = opts.weights && field != Field::Pattern;
    // The size line: the first line that is neither a comment nor blank.
    let (rows, cols, entries, size_line) = loop {
        let Some((at, line)) = next_line(&mut lines, path)? else {
            return Err(ReadError::content(
                path,
                "no size line `rows cols entries` after the header",
            ));
        };
        if line.first() == Some(&b'%') || is_blank(line) {
            continue;
        }
        let f: Vec<&[u8]> = Fields::new(line, false).collect();
        if f.len() != 3 {
            return Err(ReadError::parse(
                path,
                at,
                format!(
                    "expected the size line `rows cols entries`, found {} fields",
                    f.len()
                ),
            ));
        }
        let num = |t: &[u8], what: &str| {
            parse_u64(t).ok_or_else(|| {
                ReadError::parse(
                    path,
                    at,
                    format!("{what} `{}` is not a non-negative integer", show(t)),
                )
            })
        };
        break (
            num(f[0], "rows")?,
            num(f[1], "cols")?,
            num(f[2], "entries")?,
            at,
        );
    };
    let n = rows.max(cols);
    if n > MAX_VERTICES {
        return Err(ReadError::parse(
            path,
            size_line,
            format!("{n} vertices do not fit u32 ids (at most {MAX_VERTICES})"),
        ));
    }
    // Each entry takes at least 4 bytes (`1 1\n`): more than that is a false declaration.
    if entries > len / 4 {
        return Err(ReadError::parse(
            path,
            size_line,
            format!(
                "the size line declares {entries} entries, but a {len}-byte file holds at most {}",
                len / 4
            ),
        ));
    }
    let mirrored = if symmetric { 2 * entries } else { entries };
    limits::check(
        || format!("a graph of {n} vertices and {mirrored} entries"),
        limits::csr_build_bytes(n, mirrored, weighted),
        opts.max_bytes,
    )
    .map_err(|source| ReadError::TooLarge {
        path: path.into(),
        source,
    })?;

    let mut edges = EdgeList::new(n as u32);
    edges.pairs.reserve_exact(entries as usize);
    let mut weights = WeightColumn::new();
    if weighted {
        weights.reserve(entries as usize);
    }
    let want_fields = if field == Field::Pattern { 2 } else { 3 };
    let mut seen = 0u64;
    while let Some((at, line)) = next_line(&mut lines, path)? {
        if line.first() == Some(&b'%') || is_blank(line) {
            continue;
        }
        let err = |reason: String| ReadError::parse(path, at, reason);
        if seen == entries {
            return Err(err(format!(
                "more entries than the {entries} the size line (line {size_line}) declares"
            )));
        }
        let mut f = Fields::new(line, false);
        let (Some(a), Some(b)) = (f.next(), f.next()) else {
            return Err(err(format!(
                "expected `row col{}`",
                if want_fields == 3 { " value" } else { "" }
            )));
        };
        let value = f.next();
        let extra = f.count();
        if extra > 0 || (value.is_some() as usize + 2) != want_fields {
            let got = 2 + value.is_some() as usize + extra;
            let shape = if want_fields == 3 {
                "row col value"
            } else {
                "row col"
            };
            return Err(err(format!(
                "{got} fields; entries of this {} matrix are `{shape}`",
                field.name()
            )));
        }
        let id = |t: &[u8], what: &str, limit: u64| -> Result<u32, ReadError> {
            match parse_u64(t) {
                Some(x) if (1..=limit).contains(&x) => Ok((x - 1) as u32),
                Some(x) => Err(err(format!("{what} {x} is outside 1..={limit}"))),
                None => Err(err(format!(
                    "{what} `{}` is not a positive integer",
                    show(t)
                ))),
            }
        };
        let (u, v) = (id(a, "row", rows)?, id(b, "column", cols)?);
        if let (true, Some(tok)) = (weighted, value) {
            match field {
                Field::Integer => push_integer(&mut weights, tok).map_err(err)?,
                _ => weights.push_f32(tok).map_err(err)?,
            }
        } else if let Some(tok) = value {
            // Not kept, but still checked: a malformed value is a malformed file.
            let ok = match field {
                Field::Integer => parse_i64(tok).is_some(),
                _ => super::text::parse_finite_f32(tok).is_some(),
            };
            if !ok {
                return Err(err(format!(
                    "value `{}` is not a valid {} number",
                    show(tok),
                    field.name()
                )));
            }
        }
        edges.pairs.push([u, v]);
        seen += 1;
    }
    if seen < entries {
        return Err(ReadError::content(
            path,
            format!(
                "the size line (line {size_line}) declares {entries} entries but the file ends after {seen}"
            ),
        ));
    }
    if weighted {
        edges.weights = Some(weights.into_weights());
    }
    Ok(Parsed {
        edges,
        symmetric,
        base: 1,
    })
}

/// Integer values must fit the u32 weights; negative ones are refused with a way out.
fn push_integer(w: &mut WeightColumn, tok: &[u8]) -> Result<(), String> {
    if parse_i64(tok).is_some_and(|x| x < 0) {
        return Err(format!(
            "value {} is negative; u32 weights cannot hold it (load without weights to read the structure)",
            show(tok)
        ));
    }
    w.push_u32(tok)
}

fn header<R: Read>(lines: &mut Lines<R>, path: &str) -> Result<(Field, bool), ReadError> {
    let expected = "expected the header `%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>`";
    let Some((_, line)) = next_line(lines, path)? else {
        return Err(ReadError::parse(path, 1, format!("empty file: {expected}")));
    };
    let words: Vec<String> = Fields::new(line, false)
        .map(|w| String::from_utf8_lossy(w).to_lowercase())
        .collect();
    let unsupported = |reason: String| ReadError::Unsupported {
        path: path.into(),
        reason,
    };
    if words.first().map(String::as_str) != Some("%%matrixmarket")
        || words.len() != 5
        || words[1] != "matrix"
    {
        return Err(ReadError::parse(path, 1, expected));
    }
    if words[2] != "coordinate" {
        return Err(unsupported(format!(
            "`{}` matrices are dense, not graphs; only `coordinate` files are read",
            words[2]
        )));
    }
    let field = match words[3].as_str() {
        "pattern" => Field::Pattern,
        "integer" => Field::Integer,
        "real" | "double" => Field::Real,
        "complex" => {
            return Err(unsupported(
                "`complex` values have no graph meaning here; convert to real or pattern".into(),
            ));
        }
        other => {
            return Err(ReadError::parse(
                path,
                1,
                format!("unknown field `{other}`: {expected}"),
            ));
        }
    };
    let symmetric = match words[4].as_str() {
        "general" => false,
        "symmetric" => true,
        "skew-symmetric" if field == Field::Pattern => true,
        "skew-symmetric" => return Err(unsupported("skew-symmetric values change sign across the diagonal; read the structure only (without weights)".into())),
        "hermitian" => return Err(unsupported("`hermitian` needs complex values; not a graph format here".into())),
        other => return Err(ReadError::parse(path, 1, format!("unknown symmetry `{other}`: {expected}"))),
    };
    Ok((field, symmetric))
}

/// Writes a `general` coordinate file: `pattern` without weights, else `integer` or `real`.
pub fn write<W: Write>(g: &Csr, w: &mut W) -> std::io::Result<()> {
    let field = match &g.weights {
        None => "pattern",
        Some(Weights::U32(_)) => "integer",
        Some(Weights::F32(_)) => "real",
    };
    let n = g.num_vertices();
    writeln!(w, "%%MatrixMarket matrix coordinate {field} general")?;
    writeln!(w, "% written by atos-graph")?;
    writeln!(w, "{n} {n} {}", g.num_edges())?;
    write_entries(g, w, b"", 1, None)
}
