//! Breadth-first search: depths and parents, and validators for both.
//!
//! [`validate_tree`] applies the Graph500 BFS rules to a parent array; [`validate_depths`]
//! checks a depth array with the same rules (an answer that passes equals the true depths).

use std::collections::VecDeque;

use super::NONE;
use crate::csr::Csr;

/// Depth of unreached vertices.
pub const UNREACHED: u32 = NONE;

/// A BFS tree: `depth[v]` hops from the source, `parent[v]` the vertex it was reached from
/// (the source is its own parent; unreached vertices have `NONE` in both).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsTree {
    pub depth: Vec<u32>,
    pub parent: Vec<u32>,
}

/// BFS from `source` along out-edges.
pub fn bfs(g: &Csr, source: u32) -> BfsTree {
    let n = g.num_vertices();
    let mut depth = vec![UNREACHED; n];
    let mut parent = vec![NONE; n];
    let mut queue = VecDeque::new();
    depth[source as usize] = 0;
    parent[source as usize] = source;
    queue.push_back(source);
    while let Some(v) = queue.pop_front() {
        let d = depth[v as usize] + 1;
        for &u in g.neighbors(v) {
            if depth[u as usize] == UNREACHED {
                depth[u as usize] = d;
                parent[u as usize] = v;
                queue.push_back(u);
            }
        }
    }
    BfsTree { depth, parent }
}

/// Hop distance from `source` to every vertex (`UNREACHED` where there is no path).
pub fn bfs_depths(g: &Csr, source: u32) -> Vec<u32> {
    bfs(g, source).depth
}

/// Vertices with a finite depth.
pub fn reached(depths: &[u32]) -> usize {
    depths.iter().filter(|&&d| d != UNREACHED).count()
}

/// A broken BFS rule, with the vertices that break it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BfsInvalid {
    #[error("the answer has {got} entries for a graph of {n} vertices")]
    Length { got: usize, n: usize },
    #[error("source {vertex} is out of range")]
    Source { vertex: u32 },
    #[error("the source's entry is {got}; it must be {want}")]
    SourceEntry { got: u32, want: u32 },
    #[error("parent {parent} of vertex {vertex} is out of range")]
    ParentRange { vertex: u32, parent: u32 },
    #[error("following parents from vertex {vertex} never reaches the source (a cycle)")]
    Cycle { vertex: u32 },
    #[error("the parent chain of vertex {vertex} ends at unreached vertex {at}")]
    Detached { vertex: u32, at: u32 },
    #[error("tree edge {parent} -> {vertex} is not an edge of the graph")]
    MissingTreeEdge { vertex: u32, parent: u32 },
    #[error(
        "tree edge {parent} -> {vertex} joins depths {parent_depth} and {depth}, not consecutive levels"
    )]
    TreeLevels {
        vertex: u32,
        parent: u32,
        parent_depth: u32,
        depth: u32,
    },
    #[error("edge {u} -> {v} goes from depth {du} to depth {dv}: more than one level")]
    EdgeSpan { u: u32, v: u32, du: u32, dv: u32 },
    #[error("edge {u} -> {v} leaves the tree: {u} is reached and {v} is not")]
    NotSpanning { u: u32, v: u32 },
    #[error("vertex {vertex} has depth {depth} but no neighbour at depth {}", depth - 1)]
    NoParent { vertex: u32, depth: u32 },
}

/// What a valid answer covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfsSummary {
    pub reached: u64,
    pub max_depth: u32,
}

/// Graph500 rules on a parent array: the parents form a tree rooted at the source (no
/// cycles), each tree edge is a graph edge joining consecutive levels, every graph edge
/// spans at most one level, and the tree reaches every vertex the source can reach.
///
/// For directed graphs "spans at most one level" means `depth[v] <= depth[u] + 1` along
/// `u -> v`, which is the undirected rule when the graph is symmetric.
pub fn validate_tree(g: &Csr, source: u32, parent: &[u32]) -> Result<BfsSummary, BfsInvalid> {
    let n = g.num_vertices();
    check_shape(n, source, parent.len())?;
    if parent[source as usize] != source {
        return Err(BfsInvalid::SourceEntry {
            got: parent[source as usize],
            want: source,
        });
    }
    let depth = depths_from_parents(source, parent)?;
    for v in 0..n as u32 {
        let p = parent[v as usize];
        if p == NONE || v == source {
            continue;
        }
        if g.neighbors(p).binary_search(&v).is_err() && !g.neighbors(p).contains(&v) {
            return Err(BfsInvalid::MissingTreeEdge {
                vertex: v,
                parent: p,
            });
        }
        let (dp, dv) = (depth[p as usize], depth[v as usize]);
        if dv != dp + 1 {
            return Err(BfsInvalid::TreeLevels {
                vertex: v,
                parent: p,
                parent_depth: dp,
                depth: dv,
            });
        }
    }
    check_edges(g, &depth)
}

/// The same rules on a depth array: depth 0 only at the source, every reached vertex has a
/// neighbour one level up, every edge spans at most one level, nothing reachable is missed.
pub fn validate_depths(g: &Csr, source: u32, depth: &[u32]) -> Result<BfsSummary, BfsInvalid> {
    let n = g.num_vertices();
    check_shape(n, source, depth.len())?;
    if depth[source as usize] != 0 {
        return Err(BfsInvalid::SourceEntry {
            got: depth[source as usize],
            want: 0,
        });
    }
    let summary = check_edges(g, depth)?;
    // Edges run u -> v; a parent of v is any u with an edge to v one level up.
    let mut has_parent = vec![false; n];
    has_parent[source as usize] = true;
    for u in 0..n as u32 {
        let du = depth[u as usize];
        if du == UNREACHED {
            continue;
        }
        for &v in g.neighbors(u) {
            if depth[v as usize] == du + 1 {
                has_parent[v as usize] = true;
            }
        }
    }
    for v in 0..n as u32 {
        let d = depth[v as usize];
        if d != UNREACHED && !has_parent[v as usize] {
            return Err(BfsInvalid::NoParent {
                vertex: v,
                depth: d,
            });
        }
    }
    Ok(summary)
}

fn check_shape(n: usize, source: u32, got: usize) -> Result<(), BfsInvalid> {
    if got != n {
        return Err(BfsInvalid::Length { got, n });
    }
    if source as usize >= n {
        return Err(BfsInvalid::Source { vertex: source });
    }
    Ok(())
}

/// Depths implied by a parent array; fails on out-of-range parents and cycles.
fn depths_from_parents(source: u32, parent: &[u32]) -> Result<Vec<u32>, BfsInvalid> {
    let n = parent.len();
    let mut depth = vec![UNREACHED; n];
    depth[source as usize] = 0;
    let mut path = Vec::new();
    for start in 0..n as u32 {
        if parent[start as usize] == NONE || depth[start as usize] != UNREACHED {
            continue;
        }
        // Walk up until a vertex with a known depth; a walk longer than n is a cycle.
        path.clear();
        let mut v = start;
        while depth[v as usize] == UNREACHED {
            let p = parent[v as usize];
            if p == NONE {
                return Err(BfsInvalid::Detached {
                    vertex: start,
                    at: v,
                });
            }
            if p as usize >= n {
                return Err(BfsInvalid::ParentRange {
                    vertex: v,
                    parent: p,
                });
            }
            path.push(v);
            if path.len() > n {
                return Err(BfsInvalid::Cycle { vertex: start });
            }
            v = p;
        }
        let mut d = depth[v as usize];
        for &u in path.iter().rev() {
            d += 1;
            depth[u as usize] = d;
        }
    }
    Ok(depth)
}

fn check_edges(g: &Csr, depth: &[u32]) -> Result<BfsSummary, BfsInvalid> {
    let mut summary = BfsSummary {
        reached: 0,
        max_depth: 0,
    };
    for u in 0..g.num_vertices() as u32 {
        let du = depth[u as usize];
        if du == UNREACHED {
            continue;
        }
        summary.reached += 1;
        summary.max_depth = summary.max_depth.max(du);
        for &v in g.neighbors(u) {
            let dv = depth[v as usize];
            if dv == UNREACHED {
                return Err(BfsInvalid::NotSpanning { u, v });
            }
            if dv > du + 1 {
                return Err(BfsInvalid::EdgeSpan { u, v, du, dv });
            }
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, EdgeList};

    fn path4() -> Csr {
        let mut e = EdgeList::new(5);
        for (u, v) in [(0, 1), (1, 2), (2, 3), (0, 2)] {
            e.push(u, v);
        }
        e.into_csr(BuildOptions::default()).unwrap().0
    }

    #[test]
    fn reference_passes_both_validators() {
        let g = path4();
        let t = bfs(&g, 0);
        assert_eq!(t.depth, vec![0, 1, 1, 2, UNREACHED]);
        let s = validate_tree(&g, 0, &t.parent).unwrap();
        assert_eq!(
            s,
            BfsSummary {
                reached: 4,
                max_depth: 2
            }
        );
        assert_eq!(validate_depths(&g, 0, &t.depth).unwrap(), s);
    }

    #[test]
    fn each_graph500_rule_is_caught() {
        let g = path4();
        let good = bfs(&g, 0).parent;
        let mut cycle = good.clone();
        (cycle[2], cycle[3]) = (3, 2);
        assert!(matches!(
            validate_tree(&g, 0, &cycle),
            Err(BfsInvalid::Cycle { .. })
        ));
        let mut missing = good.clone();
        missing[3] = 0; // 0 -> 3 is no edge
        assert!(matches!(
            validate_tree(&g, 0, &missing),
            Err(BfsInvalid::MissingTreeEdge {
                vertex: 3,
                parent: 0
            })
        ));
        let mut levels = good.clone();
        levels[2] = 1; // depth 2 via 1, but 0 -> 2 is an edge: spans two levels
        assert!(matches!(
            validate_tree(&g, 0, &levels),
            Err(BfsInvalid::EdgeSpan { .. })
        ));
        let mut unspanning = good.clone();
        unspanning[3] = NONE;
        assert_eq!(
            validate_tree(&g, 0, &unspanning),
            Err(BfsInvalid::NotSpanning { u: 2, v: 3 })
        );
        let mut range = good;
        range[3] = 99;
        assert!(matches!(
            validate_tree(&g, 0, &range),
            Err(BfsInvalid::ParentRange { .. })
        ));
    }

    #[test]
    fn wrong_depths_are_caught() {
        let g = path4();
        assert!(validate_depths(&g, 0, &[0, 1, 1, 3, UNREACHED]).is_err());
        assert!(validate_depths(&g, 0, &[0, 1, 2, 3, UNREACHED]).is_err());
        assert_eq!(
            validate_depths(&g, 0, &[0, 1, 1, 2, 3]),
            Err(BfsInvalid::NoParent {
                vertex: 4,
                depth: 3
            })
        );
        assert!(validate_depths(&g, 0, &[0, 1, 1]).is_err());
    }
}
