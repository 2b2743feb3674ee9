//! DIMACS shortest-path graphs (9th DIMACS challenge `.gr`): `c` comments, one problem line
//! `p sp <nodes> <arcs>`, then `a <u> <v> <weight>` arcs with 1-based ids and non-negative
//! integer weights (read as u32).

use std::io::{Read, Write};

use super::text::{Fields, Lines, is_blank, parse_u64, show};
use super::weight_column::WeightColumn;
use super::{Parsed, ReadError, ReadOptions, next_line, write_entries};
use crate::build::EdgeList;
use crate::csr::{Csr, MAX_VERTICES, Weights};
use crate::limits;

pub fn read<R: Read>(
    reader: R,
    path: &str,
    len: u64,
    opts: &ReadOptions,
) -> Result<Parsed, ReadError> {
    let mut lines = Lines::new(reader);
    let mut problem: Option<(u64, u64, u64)> = None; // nodes, arcs, line
    let mut edges = EdgeList::new(0);
    let mut weights = WeightColumn::new();
    let mut seen = 0u64;
    while let Some((at, line)) = next_line(&mut lines, path)? {
        if is_blank(line) {
            continue;
        }
        let err = |reason: String| ReadError::parse(path, at, reason);
        let f: Vec<&[u8]> = Fields::new(line, false).collect();
        match f[0] {
            b"c" => continue,
            b"p" => {
                if let Some((_, _, first)) = problem {
                    return Err(err(format!(
                        "a second problem line (the first is line {first})"
                    )));
                }
                if f.len() != 4 || f[1] != b"sp" {
                    return Err(err("expected the problem line `p sp <nodes> <arcs>`".into()));
                }
                let num = |t: &[u8], what: &str| {
                    parse_u64(t).ok_or_else(|| {
                        err(format!(
                            "{what} `{}` is not a non-negative integer",
                            show(t)
                        ))
                    })
                };
                let (n, m) = (num(f[2], "nodes")?, num(f[3], "arcs")?);
                if n > MAX_VERTICES {
                    return Err(err(format!(
                        "{n} nodes do not fit u32 ids (at most {MAX_VERTICES})"
                    )));
                }
                // An arc line takes at least 8 bytes (`a 1 1 0\n`).
                if m > len / 8 {
                    return Err(err(format!(
                        "the problem line declares {m} arcs, but a {len}-byte file holds at most {}",
                        len / 8
                    )));
                }
                limits::check(
                    || format!("a graph of {n} vertices and {m} arcs"),
                    limits::csr_build_bytes(n, 2 * m, opts.weights),
                    opts.max_bytes,
                )
                .map_err(|source| ReadError::TooLarge {
                    path: path.into(),
                    source,
                })?;
                edges.num_vertices = n as u32;
                edges.pairs.reserve_exact(m as usize);
                if opts.weights {
                    weights.reserve(m as usize);
                }
                problem = Some((n, m, at));
            }
            b"a" => {
                let Some((n, m, p_line)) = problem else {
                    return Err(err(
                        "arc before the problem line `p sp <nodes> <arcs>`".into()
                    ));
                };
                if f.len() != 4 {
                    return Err(err(format!(
                        "{} fields; an arc is `a <u> <v> <weight>`",
                        f.len()
                    )));
                }
                if seen == m {
                    return Err(err(format!(
                        "more arcs than the {m} the problem line (line {p_line}) declares"
                    )));
                }
                let id = |t: &[u8]| match parse_u64(t) {
                    Some(x) if (1..=n).contains(&x) => Ok((x - 1) as u32),
                    Some(x) => Err(err(format!("node {x} is outside 1..={n}"))),
                    None => Err(err(format!("node `{}` is not a positive integer", show(t)))),
                };
                let (u, v) = (id(f[1])?, id(f[2])?);
                if opts.weights {
                    weights.push_u32(f[3]).map_err(&err)?;
                } else if parse_u64(f[3]).is_none() {
                    return Err(err(format!(
                        "weight `{}` is not a non-negative integer",
                        show(f[3])
                    )));
                }
                edges.pairs.push([u, v]);
                seen += 1;
            }
            other => {
                return Err(err(format!(
                    "unknown line type `{}`: expected `c`, `p` or `a`",
                    show(other)
                )));
            }
        }
    }
    let Some((_, m, p_line)) = problem else {
        return Err(ReadError::content(
            path,
            "no problem line `p sp <nodes> <arcs>`",
        ));
    };
    if seen < m {
        return Err(ReadError::content(
            path,
            format!("the problem line (line {p_line}) declares {m} arcs but the file has {seen}"),
        ));
    }
    if opts.weights {
        edges.weights = Some(weights.into_weights());
    }
    Ok(Parsed {
        edges,
        symmetric: false,
        base: 1,
    })
}

/// DIMACS weights are integers: f32 weights cannot be written (unweighted graphs get 1).
pub(crate) fn writable(g: &Csr) -> Result<(), String> {
    match g.weights {
        Some(Weights::F32(_)) => {
            Err("DIMACS .gr weights are integers and this graph has f32 weights".into())
        }
        _ => Ok(()),
    }
}

pub fn write<W: Write>(g: &Csr, w: &mut W) -> std::io::Result<()> {
    writeln!(w, "c written by atos-graph")?;
    writeln!(w, "p sp {} {}", g.num_vertices(), g.num_edges())?;
    write_entries(g, w, b"a ", 1, Some(1))
}
