//! k-core decomposition: the core number of every vertex of an undirected graph, by
//! Batagelj and Zaversnik's bucket peeling (O(n + m)).
//!
//! The core number of `v` is the largest `k` such that `v` belongs to a subgraph in which every
//! vertex has at least `k` neighbours. A vertex's degree counts its neighbours other than
//! itself (a self-loop adds nothing).

use crate::csr::Csr;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KcoreError {
    #[error(
        "k-core needs an undirected graph, but entry {u} -> {v} has no reverse {v} -> {u}; build the graph undirected (the default for edge lists and generators; drop `--directed`)"
    )]
    NotSymmetric { u: u32, v: u32 },
    #[error(
        "k-core needs a simple graph, but vertex {u} lists neighbour {v} {times} times; rebuild it without duplicate edges (the builders merge them unless asked to keep them)"
    )]
    Duplicate { u: u32, v: u32, times: usize },
}

/// The degree of every vertex without self-loops: what peeling starts from.
pub fn degrees(g: &Csr) -> Vec<u32> {
    (0..g.num_vertices() as u32)
        .map(|v| g.neighbors(v).iter().filter(|&&u| u != v).count() as u32)
        .collect()
}

/// Core numbers: vertices are removed in order of their current degree, and a vertex's core
/// number is the largest such degree seen at any removal up to its own.
pub fn core_numbers(g: &Csr) -> Result<Vec<u32>, KcoreError> {
    let n = g.num_vertices();
    // `Csr::is_symmetric` (binary searches) first; the slow scan only names the edge.
    if !g.is_symmetric() {
        for u in 0..n as u32 {
            for &v in g.neighbors(u) {
                if !g.neighbors(v).contains(&u) {
                    return Err(KcoreError::NotSymmetric { u, v });
                }
            }
        }
    }
    // A repeated neighbour counts twice in a degree, and peeling's bounds (a k-core has more
    // than k vertices) no longer hold: the first repeat found is named. A repeated self-loop
    // counts for nothing, like one.
    for u in 0..n as u32 {
        let mut list: Vec<u32> = g.neighbors(u).iter().copied().filter(|&v| v != u).collect();
        list.sort_unstable();
        if let Some(w) = list.windows(2).find(|w| w[0] == w[1]) {
            let v = w[0];
            let times = list.iter().filter(|&&x| x == v).count();
            return Err(KcoreError::Duplicate { u, v, times });
        }
    }
    let mut deg = degrees(g);
    let max_deg = deg.iter().copied().max().unwrap_or(0) as usize;
    // Counting sort by degree: `order` holds vertices by degree, `pos[v]` is v's place in it and
    // `start[d]` the first place of degree d.
    let mut start = vec![0usize; max_deg + 2];
    for &d in &deg {
        start[d as usize + 1] += 1;
    }
    for d in 1..start.len() {
        start[d] += start[d - 1];
    }
    let mut order = vec![0u32; n];
    let mut pos = vec![0usize; n];
    let mut next = start.clone();
    for v in 0..n {
        let d = deg[v] as usize;
        pos[v] = next[d];
        order[next[d]] = v as u32;
        next[d] += 1;
    }
    for i in 0..n {
        let v = order[i];
        let dv = deg[v as usize];
        for &u in g.neighbors(v) {
            let du = deg[u as usize];
            if u == v || du <= dv {
                continue;
            }
            // Move u to the front of its degree's bucket, then shrink that bucket by one.
            let (pu, pw) = (pos[u as usize], start[du as usize]);
            let w = order[pw];
            order.swap(pu, pw);
            pos[u as usize] = pw;
            pos[w as usize] = pu;
            start[du as usize] += 1;
            deg[u as usize] = du - 1;
        }
    }
    Ok(deg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, EdgeList};

    fn undirected(n: u32, edges: &[(u32, u32)]) -> Csr {
        let mut e = EdgeList::new(n);
        for &(u, v) in edges {
            e.push(u, v);
        }
        e.into_csr(BuildOptions::default()).unwrap().0
    }

    /// Peels by the definition (remove every vertex of degree <= k until none is left, for k
    /// = 0, 1, ...), to check the bucket algorithm against.
    fn by_definition(g: &Csr) -> Vec<u32> {
        let n = g.num_vertices();
        let mut deg = degrees(g);
        let mut core = vec![u32::MAX; n];
        let mut left = n;
        let mut k = 0;
        while left > 0 {
            let mut changed = true;
            while changed {
                changed = false;
                for v in 0..n {
                    if core[v] == u32::MAX && deg[v] <= k {
                        core[v] = k;
                        left -= 1;
                        changed = true;
                        for &u in g.neighbors(v as u32) {
                            if u as usize != v && core[u as usize] == u32::MAX {
                                deg[u as usize] -= 1;
                            }
                        }
                    }
                }
            }
            k += 1;
        }
        core
    }

    #[test]
    fn a_clique_with_a_tail_and_an_isolated_vertex() {
        // 0-1-2-3 a 4-clique, 3-4-5 a path off it, 6 alone.
        let g = undirected(
            7,
            &[
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (4, 5),
            ],
        );
        assert_eq!(core_numbers(&g).unwrap(), vec![3, 3, 3, 3, 1, 1, 0]);
    }

    #[test]
    fn matches_peeling_by_definition_on_generated_graphs() {
        for spec in ["grid:9x7", "kron:8", "er:300,deg=6", "geo:400,deg=8"] {
            let g = crate::load(spec).unwrap();
            assert_eq!(core_numbers(&g).unwrap(), by_definition(&g), "{spec}");
        }
    }

    #[test]
    fn a_directed_graph_is_refused() {
        let mut e = EdgeList::new(3);
        e.push(0, 1);
        let g = e.into_csr(BuildOptions::directed()).unwrap().0;
        assert_eq!(
            core_numbers(&g),
            Err(KcoreError::NotSymmetric { u: 0, v: 1 })
        );
    }

    /// Duplicate edges (an `.acsr` or `.csr` file can hold them) are refused: with them the
    /// GPU program's bound on core numbers is wrong and its run never ends.
    #[test]
    fn a_graph_with_duplicate_edges_is_refused() {
        let mut e = EdgeList::new(3);
        for _ in 0..3 {
            e.push(0, 1);
        }
        e.push(1, 2);
        let keep = BuildOptions {
            drop_duplicates: false,
            ..BuildOptions::default()
        };
        let g = e.into_csr(keep).unwrap().0;
        let err = core_numbers(&g).unwrap_err();
        assert_eq!(
            err,
            KcoreError::Duplicate {
                u: 0,
                v: 1,
                times: 3
            }
        );
        assert!(
            err.to_string()
                .contains("vertex 0 lists neighbour 1 3 times"),
            "{err}"
        );
    }

    /// A self-loop counts for nothing in a degree, so a repeated one is no duplicate: the
    /// graph is peeled as without it (the library's check, `KcoreArrays::for_graph`, agrees;
    /// `tests/kcore.rs` compares the two on random graphs).
    #[test]
    fn a_repeated_self_loop_is_no_duplicate() {
        let mut e = EdgeList::new(3);
        e.push(0, 1);
        e.push(1, 1);
        e.push(1, 1);
        let keep = BuildOptions {
            drop_duplicates: false,
            drop_self_loops: false,
            ..BuildOptions::default()
        };
        let g = e.into_csr(keep).unwrap().0;
        assert_eq!(g.neighbors(1).iter().filter(|&&v| v == 1).count(), 2);
        assert_eq!(core_numbers(&g), Ok(vec![1, 1, 0]));
    }
}
