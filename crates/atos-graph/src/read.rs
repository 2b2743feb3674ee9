//! Text readers: headerless edge lists (0- or 1-based) and Matrix Market coordinate files.
//! Every malformed line is an error naming the file, the line and the reason.

use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::csr::{BuildError, BuildOptions, Csr};

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {reason}")]
    Parse {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{path}: {source}")]
    Build { path: String, source: BuildError },
}

/// Reads a graph file by extension: `.mtx` (Matrix Market), otherwise an edge list.
pub fn read_graph(path: &Path) -> Result<Csr, ReadError> {
    if path.extension().is_some_and(|e| e == "mtx") {
        read_matrix_market(path)
    } else {
        read_edge_list(path)
    }
}

fn open(path: &Path) -> Result<impl BufRead, ReadError> {
    let f = std::fs::File::open(path).map_err(|source| ReadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(BufReader::with_capacity(1 << 20, f))
}

fn parse_u64(tok: &str, path: &Path, line: usize) -> Result<u64, ReadError> {
    tok.parse().map_err(|_| ReadError::Parse {
        path: path.display().to_string(),
        line,
        reason: format!("`{tok}` is not a non-negative integer vertex id"),
    })
}

/// Edge list: one `u v [weight]` per line, whitespace- or comma-separated, `#`/`%` comments.
/// Ids are taken as 0-based if any id is 0, else 1-based.
pub fn read_edge_list(path: &Path) -> Result<Csr, ReadError> {
    let mut edges: Vec<(u64, u64)> = Vec::new();
    let mut min_id = u64::MAX;
    let mut max_id = 0u64;
    for (i, line) in open(path)?.lines().enumerate() {
        let line = line.map_err(|source| ReadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let mut toks = t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty());
        let (Some(a), Some(b)) = (toks.next(), toks.next()) else {
            return Err(ReadError::Parse {
                path: path.display().to_string(),
                line: i + 1,
                reason: "expected two vertex ids".into(),
            });
        };
        let (u, v) = (parse_u64(a, path, i + 1)?, parse_u64(b, path, i + 1)?);
        min_id = min_id.min(u).min(v);
        max_id = max_id.max(u).max(v);
        edges.push((u, v));
    }
    let base = if min_id == 0 || edges.is_empty() {
        0
    } else {
        1
    };
    let n = if edges.is_empty() {
        0
    } else {
        max_id + 1 - base
    };
    let n: u32 = n.try_into().map_err(|_| ReadError::Parse {
        path: path.display().to_string(),
        line: 0,
        reason: format!("{n} vertices do not fit in u32 ids"),
    })?;
    let edges: Vec<(u32, u32)> = edges
        .iter()
        .map(|&(u, v)| ((u - base) as u32, (v - base) as u32))
        .collect();
    Csr::from_edges(n, &edges, BuildOptions::default()).map_err(|source| ReadError::Build {
        path: path.display().to_string(),
        source,
    })
}

/// Matrix Market `coordinate` (pattern, integer or real; general or symmetric), 1-based.
/// The graph is symmetrized: BFS here treats every graph as undirected.
pub fn read_matrix_market(path: &Path) -> Result<Csr, ReadError> {
    let p = path.display().to_string();
    let err = |line: usize, reason: String| ReadError::Parse {
        path: p.clone(),
        line,
        reason,
    };
    let mut lines = open(path)?.lines().enumerate();
    let header = match lines.next() {
        Some((_, l)) => l.map_err(|source| ReadError::Io {
            path: p.clone(),
            source,
        })?,
        None => {
            return Err(err(
                1,
                "empty file: expected a `%%MatrixMarket` header".into(),
            ));
        }
    };
    let h: Vec<String> = header
        .split_whitespace()
        .map(|s| s.to_lowercase())
        .collect();
    if h.len() < 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" || h[2] != "coordinate" {
        return Err(err(
            1,
            "expected `%%MatrixMarket matrix coordinate <field> <symmetry>`".into(),
        ));
    }
    let mut size: Option<(u64, u64, u64)> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (i, line) in lines {
        let line = line.map_err(|source| ReadError::Io {
            path: p.clone(),
            source,
        })?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        match size {
            None => {
                if toks.len() != 3 {
                    return Err(err(
                        i + 1,
                        "expected the size line `rows cols entries`".into(),
                    ));
                }
                let r = parse_u64(toks[0], path, i + 1)?;
                let c = parse_u64(toks[1], path, i + 1)?;
                let nnz = parse_u64(toks[2], path, i + 1)?;
                if r.max(c) > u64::from(u32::MAX) {
                    return Err(err(
                        i + 1,
                        format!("{} vertices do not fit in u32 ids", r.max(c)),
                    ));
                }
                edges.reserve(nnz.min(1 << 28) as usize);
                size = Some((r, c, nnz));
            }
            Some((r, c, _)) => {
                if toks.len() < 2 {
                    return Err(err(i + 1, "expected `row col [value]`".into()));
                }
                let u = parse_u64(toks[0], path, i + 1)?;
                let v = parse_u64(toks[1], path, i + 1)?;
                if u == 0 || v == 0 || u > r || v > c {
                    return Err(err(
                        i + 1,
                        format!(
                            "entry ({u}, {v}) is outside the declared {r} x {c} matrix (ids are 1-based)"
                        ),
                    ));
                }
                edges.push(((u - 1) as u32, (v - 1) as u32));
            }
        }
    }
    let Some((r, c, nnz)) = size else {
        return Err(err(1, "missing the size line `rows cols entries`".into()));
    };
    if edges.len() as u64 != nnz {
        return Err(err(
            0,
            format!(
                "the size line declares {nnz} entries but the file has {}",
                edges.len()
            ),
        ));
    }
    let n = r.max(c) as u32;
    Csr::from_edges(n, &edges, BuildOptions::default()).map_err(|source| ReadError::Build {
        path: p.clone(),
        source,
    })
}
