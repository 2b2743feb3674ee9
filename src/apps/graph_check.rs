//! Checks of the CSR an app is given, for the apps whose tasks assume more than any CSR holds:
//! k-core needs a simple undirected graph (`kcore::KcoreArrays::for_graph`), colouring an
//! undirected one (`coloring::check_graph`), and the BFS runs (`bfs::run`,
//! `bfs_owner::run_cpu`) a well-formed CSR and a source among its vertices. Each check is
//! O(n + m) and names an entry at fault (not always the first in row order), with the app and
//! what to do. (`atos_graph::reference::kcore::core_numbers` checks its own input apart: the
//! reference the tests compare with does not lean on the code it judges.)

/// Why an app refused a CSR. `app` names the app in the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error(
        "{app}: {offsets} offsets and {cols} column entries do not make a CSR (it needs one offset per vertex plus one, starting at 0, never decreasing, the last equal to the number of entries)"
    )]
    BadOffsets {
        app: &'static str,
        offsets: usize,
        cols: usize,
    },
    #[error(
        "{app}: vertex {u} lists neighbour {v}, but there are only {vertices} vertices; every column entry must be below the vertex count"
    )]
    OutOfRange {
        app: &'static str,
        u: u32,
        v: u32,
        vertices: usize,
    },
    #[error(
        "{app} needs a simple graph, but vertex {u} lists neighbour {v} more than once; a repeated neighbour counts twice in its degree and the run may never end: merge duplicate edges first (atos-graph's builders do, unless asked to keep them: `atos graph convert` without `--keep-duplicates`, `BuildOptions::default()`)"
    )]
    Duplicate { app: &'static str, u: u32, v: u32 },
    #[error(
        "{app} needs an undirected graph, but vertex {u} lists neighbour {v} and {v} does not list {u}; list every edge in both directions (atos-graph builds graphs undirected unless asked: `atos graph convert` without `--directed`, `BuildOptions::default()`)"
    )]
    NotSymmetric { app: &'static str, u: u32, v: u32 },
}

/// The vertex count of a well-formed CSR: `n + 1` offsets from 0, never decreasing, the last
/// equal to the number of entries, every entry below `n`.
pub(crate) fn vertices(
    app: &'static str,
    offsets: &[u32],
    cols: &[u32],
) -> Result<usize, GraphError> {
    let bad = || GraphError::BadOffsets {
        app,
        offsets: offsets.len(),
        cols: cols.len(),
    };
    let n = offsets.len().checked_sub(1).ok_or_else(bad)?;
    if offsets[0] != 0
        || offsets[n] as usize != cols.len()
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(bad());
    }
    for u in 0..n {
        if let Some(&v) = row(offsets, cols, u).iter().find(|&&v| v as usize >= n) {
            return Err(GraphError::OutOfRange {
                app,
                u: u as u32,
                v,
                vertices: n,
            });
        }
    }
    Ok(n)
}

/// A traversal's input: a well-formed CSR ([`vertices`]) and a source that is one of its
/// vertices, as a [`RunError::Input`](crate::RunError::Input); the vertex count.
pub(crate) fn traversal(
    app: &'static str,
    offsets: &[u32],
    cols: &[u32],
    source: u32,
) -> Result<usize, crate::RunError> {
    let n = vertices(app, offsets, cols).map_err(|e| crate::RunError::Input(e.to_string()))?;
    if source as usize >= n {
        return Err(crate::RunError::Input(format!(
            "{app}: source {source} is not a vertex of this graph ({n} vertices, 0 to {})",
            n as i64 - 1
        )));
    }
    Ok(n)
}

/// Checks that every entry `u -> v` of a well-formed CSR ([`vertices`]) has its reverse
/// `v -> u`. Repeated entries and self-loops need nothing special. O(n + m): with every row
/// sorted (as atos-graph builds them), one cursor per vertex and no copy; otherwise a
/// transposed copy of `cols`.
pub(crate) fn symmetric(
    app: &'static str,
    offsets: &[u32],
    cols: &[u32],
) -> Result<(), GraphError> {
    let n = offsets.len() - 1;
    let sorted = (0..n).all(|u| row(offsets, cols, u).is_sorted());
    let unreversed = if sorted {
        unreversed_sorted(offsets, cols)
    } else {
        unreversed_any(offsets, cols)
    };
    match unreversed {
        Some((u, v)) => Err(GraphError::NotSymmetric { app, u, v }),
        None => Ok(()),
    }
}

/// An entry `u -> v` without its reverse, rows sorted. Vertices are taken in order; `next[v]`
/// walks `v`'s row up to `v`, over the entries `w -> ...` whose reverse `w -> v` vertex `w`
/// (smaller, so taken before) has already listed. So when `u`'s turn comes, an entry of `u`'s
/// row below `u` that `next[u]` has not passed has no reverse; and each entry `u -> v` above
/// `u` must find `u` at `next[v]`.
fn unreversed_sorted(offsets: &[u32], cols: &[u32]) -> Option<(u32, u32)> {
    let n = offsets.len() - 1;
    let mut next: Vec<u32> = offsets[..n].to_vec();
    let at = |next: &[u32], v: usize| {
        let p = next[v] as usize;
        (p < offsets[v + 1] as usize).then(|| cols[p])
    };
    for u in 0..n {
        if let Some(w) = at(&next, u).filter(|&w| (w as usize) < u) {
            return Some((u as u32, w));
        }
        let mut last = None;
        for &v in row(offsets, cols, u) {
            if v as usize <= u || last == Some(v) {
                continue;
            }
            last = Some(v);
            match at(&next, v as usize) {
                Some(w) if w == u as u32 => {
                    let end = offsets[v as usize + 1];
                    while next[v as usize] < end && cols[next[v as usize] as usize] == w {
                        next[v as usize] += 1;
                    }
                }
                // `v` lists `w < u`, which did not list `v` in its turn.
                Some(w) if w < u as u32 => return Some((v, w)),
                _ => return Some((u as u32, v)),
            }
        }
    }
    None
}

/// An entry `u -> v` without its reverse, rows in any order: each vertex's row is marked in
/// turn, and the entries pointing at it (a transposed copy of `cols`) must all be marked.
fn unreversed_any(offsets: &[u32], cols: &[u32]) -> Option<(u32, u32)> {
    let n = offsets.len() - 1;
    // into[v]..into[v + 1]: where the entries pointing at v go in `from`.
    let mut into = vec![0u32; n + 1];
    for &v in cols {
        into[v as usize + 1] += 1;
    }
    for v in 0..n {
        into[v + 1] += into[v];
    }
    let mut from = vec![0u32; cols.len()];
    let mut next = into.clone();
    for u in 0..n {
        for &v in row(offsets, cols, u) {
            from[next[v as usize] as usize] = u as u32;
            next[v as usize] += 1;
        }
    }
    // seen[w] == v + 1 while v's row is checked and lists w.
    let mut seen = vec![0u32; n];
    for v in 0..n {
        for &w in row(offsets, cols, v) {
            seen[w as usize] = v as u32 + 1;
        }
        let pointing = &from[into[v] as usize..into[v + 1] as usize];
        if let Some(&u) = pointing.iter().find(|&&u| seen[u as usize] != v as u32 + 1) {
            return Some((u, v as u32));
        }
    }
    None
}

/// Vertex `u`'s neighbours.
pub(crate) fn row<'a>(offsets: &[u32], cols: &'a [u32], u: usize) -> &'a [u32] {
    &cols[offsets[u] as usize..offsets[u + 1] as usize]
}
