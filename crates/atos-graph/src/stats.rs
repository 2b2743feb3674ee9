//! Summary numbers for a graph: sizes, degrees, components and a diameter estimate.

use crate::csr::{Csr, WeightKind};
use crate::reference::bfs::{UNREACHED, bfs_depths};
use crate::reference::components::connected_components;

#[derive(Clone, Debug, PartialEq)]
pub struct GraphStats {
    pub vertices: u64,
    /// Directed entries (an undirected edge counts twice).
    pub edges: u64,
    pub min_degree: u64,
    pub max_degree: u64,
    pub avg_degree: f64,
    pub isolated: u64,
    pub self_loops: u64,
    pub symmetric: bool,
    pub components: u64,
    pub largest_component: u64,
    /// A lower bound on the diameter: the largest eccentricity seen in the BFS sweeps.
    pub diameter_lower_bound: u32,
    pub sweeps: u32,
    pub weights: Option<WeightKind>,
    pub bytes: u64,
}

/// Computes the stats; the diameter estimate runs `sweeps` BFS passes, each starting from
/// the farthest vertex the previous one found (the first from a highest-degree vertex).
pub fn stats(g: &Csr, sweeps: u32) -> GraphStats {
    let n = g.num_vertices() as u32;
    let degrees = (0..n).map(|v| g.degree(v));
    let components = connected_components(g);
    let self_loops = (0..n)
        .map(|v| g.neighbors(v).iter().filter(|&&u| u == v).count() as u64)
        .sum();
    GraphStats {
        vertices: u64::from(n),
        edges: g.num_edges() as u64,
        min_degree: degrees.clone().min().unwrap_or(0),
        max_degree: degrees.clone().max().unwrap_or(0),
        avg_degree: g.num_edges() as f64 / f64::from(n.max(1)),
        isolated: degrees.filter(|&d| d == 0).count() as u64,
        self_loops,
        symmetric: g.is_sorted() && g.is_symmetric(),
        components: components.count,
        largest_component: components.largest,
        diameter_lower_bound: diameter_lower_bound(g, sweeps),
        sweeps,
        weights: g.weight_kind(),
        bytes: g.size_bytes(),
    }
}

/// The largest eccentricity found by repeated BFS sweeps (iterated double sweep).
pub fn diameter_lower_bound(g: &Csr, sweeps: u32) -> u32 {
    let n = g.num_vertices() as u32;
    let Some(mut start) = (0..n).max_by_key(|&v| (g.degree(v), std::cmp::Reverse(v))) else {
        return 0;
    };
    let mut best = 0;
    for _ in 0..sweeps {
        let depth = bfs_depths(g, start);
        let (far, ecc) = depth
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != UNREACHED)
            .max_by_key(|&(v, &d)| (d, std::cmp::Reverse(v)))
            .map(|(v, &d)| (v as u32, d))
            .unwrap_or((start, 0));
        best = best.max(ecc);
        if far == start {
            break;
        }
        start = far;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::from_spec;

    #[test]
    fn grid_stats_are_exact() {
        let s = stats(&from_spec("grid:30x20").unwrap(), 4);
        assert_eq!((s.vertices, s.edges), (600, 2 * (29 * 20 + 30 * 19)));
        assert_eq!((s.min_degree, s.max_degree, s.isolated), (2, 4, 0));
        assert_eq!((s.components, s.largest_component), (1, 600));
        // Two sweeps find opposite corners of a grid: the true diameter.
        assert_eq!(s.diameter_lower_bound, 29 + 19);
        assert!(s.symmetric);
    }
}
