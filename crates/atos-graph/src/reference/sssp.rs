//! Single-source shortest paths: Dijkstra, and a validator by the path rules.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::csr::{Csr, Weights};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SsspError {
    #[error(
        "the graph has no edge weights; load a weighted file or add `w=MAX` to a generator spec"
    )]
    NoWeights,
    #[error("entry {entry} has weight {value}; Dijkstra needs non-negative weights")]
    NegativeWeight { entry: u64, value: f64 },
    #[error("source {vertex} is out of range for {n} vertices")]
    Source { vertex: u32, n: usize },
    #[error("{got} distances given for a graph of {n} vertices")]
    Distances { got: usize, n: usize },
}

/// A heap key ordered by distance (total order; distances are never NaN).
#[derive(PartialEq)]
struct Dist<D>(D);
impl<D: PartialEq> Eq for Dist<D> {}
impl<D: Copy + Into<f64> + PartialEq> PartialOrd for Dist<D> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<D: Copy + Into<f64> + PartialEq> Ord for Dist<D> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.into().total_cmp(&other.0.into())
    }
}

/// Distances from `source` (f64::INFINITY where unreachable). u32 weights sum exactly up to
/// 2^53; f32 weights are summed in f64.
pub fn dijkstra(g: &Csr, source: u32) -> Result<Vec<f64>, SsspError> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    dijkstra_by(g, source, f64::INFINITY, 0.0, |d, e| d + w.get(e))
}

/// Distances from `source` summed in f32, weight by weight along each path as an f32 SSSP task
/// adds them (`f32::INFINITY` where unreachable): f32 addition is monotone, so every order of
/// relaxation reaches exactly these values, and an f32 run can be checked bit for bit. u32
/// weights are converted to f32 first.
pub fn dijkstra_f32(g: &Csr, source: u32) -> Result<Vec<f32>, SsspError> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    dijkstra_by(g, source, f32::INFINITY, 0.0, |d, e| match w {
        Weights::F32(ws) => d + ws[e],
        Weights::U32(ws) => d + ws[e] as f32,
    })
}

/// Dijkstra over distances of type `D`, `add(d, e)` extending distance `d` by entry `e`.
fn dijkstra_by<D: Copy + Into<f64> + PartialEq + PartialOrd>(
    g: &Csr,
    source: u32,
    unreached: D,
    zero: D,
    add: impl Fn(D, usize) -> D,
) -> Result<Vec<D>, SsspError> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    let n = g.num_vertices();
    if source as usize >= n {
        return Err(SsspError::Source { vertex: source, n });
    }
    if let Weights::F32(ws) = w
        && let Some(e) = ws.iter().position(|&x| x < 0.0 || x.is_nan())
    {
        return Err(SsspError::NegativeWeight {
            entry: e as u64,
            value: f64::from(ws[e]),
        });
    }
    let mut dist = vec![unreached; n];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = zero;
    heap.push(Reverse((Dist(zero), source)));
    while let Some(Reverse((Dist(d), u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.cols[e];
            let nd = add(d, e);
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((Dist(nd), v)));
            }
        }
    }
    Ok(dist)
}

/// The fewest edges on a shortest path from `source` to each vertex (`u32::MAX` where
/// unreached), for `dist` from [`dijkstra`]: a breadth-first search over the *tight* edges, those
/// whose head's distance is the tail's plus the weight, so zero weights are fine. The largest
/// value ([`max_hops`]) bounds any exact SSSP from below: a vertex's final distance arrives
/// along some shortest path, one relaxation per edge, each after the one before, so a parallel
/// run makes at least that many dependent steps, however it orders its tasks.
pub fn shortest_path_hops(g: &Csr, source: u32, dist: &[f64]) -> Result<Vec<u32>, SsspError> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    tight_bfs(g, source, dist, |d, e| d + w.get(e))
}

/// [`shortest_path_hops`] for distances summed in f32 ([`dijkstra_f32`]): an edge is tight
/// when the f32 sum the task would make equals the head's distance.
pub fn shortest_path_hops_f32(g: &Csr, source: u32, dist: &[f32]) -> Result<Vec<u32>, SsspError> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    tight_bfs(g, source, dist, |d, e| match w {
        Weights::F32(ws) => d + ws[e],
        Weights::U32(ws) => d + ws[e] as f32,
    })
}

/// The largest finite entry of `hops` (0 when only the source is reached).
pub fn max_hops(hops: &[u32]) -> u32 {
    hops.iter()
        .copied()
        .filter(|&h| h != u32::MAX)
        .max()
        .unwrap_or(0)
}

/// Breadth-first search from `source` over the edges `e` (tail `u`, head `v`) with
/// `add(dist[u], e) == dist[v]`, `dist` finite at `u`.
fn tight_bfs<D: Copy + Into<f64> + PartialEq>(
    g: &Csr,
    source: u32,
    dist: &[D],
    add: impl Fn(D, usize) -> D,
) -> Result<Vec<u32>, SsspError> {
    let n = g.num_vertices();
    if source as usize >= n {
        return Err(SsspError::Source { vertex: source, n });
    }
    if dist.len() != n {
        return Err(SsspError::Distances { got: dist.len(), n });
    }
    let mut hops = vec![u32::MAX; n];
    hops[source as usize] = 0;
    let mut frontier = vec![source];
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        let mut next = Vec::new();
        for &u in &frontier {
            let du = dist[u as usize];
            if du.into().is_infinite() {
                continue;
            }
            for e in g.edge_range(u) {
                let v = g.cols[e];
                if hops[v as usize] == u32::MAX && add(du, e) == dist[v as usize] {
                    hops[v as usize] = level;
                    next.push(v);
                }
            }
        }
        frontier = next;
    }
    Ok(hops)
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SsspInvalid {
    #[error("the answer has {got} distances for a graph of {n} vertices")]
    Length { got: usize, n: usize },
    #[error("the source's distance is {0}, not 0")]
    Source(f64),
    #[error("edge {u} -> {v} (weight {w}) gives {v} a path of {via}, shorter than its {dv}")]
    Relaxable {
        u: u32,
        v: u32,
        w: f64,
        via: f64,
        dv: f64,
    },
    #[error("vertex {vertex} has distance {dist} but no edge into it accounts for it")]
    Unsupported { vertex: u32, dist: f64 },
    #[error(transparent)]
    Input(#[from] SsspError),
}

/// Checks distances by the rules that define them, within a relative tolerance `tol` (for
/// answers summed in f32): the source is 0, no edge can shorten a distance, and every finite
/// distance other than the source's is reached exactly through some edge.
pub fn validate_sssp<T: Copy + Into<f64>>(
    g: &Csr,
    source: u32,
    dist: &[T],
    tol: f64,
) -> Result<(), SsspInvalid> {
    let w = g.weights.as_ref().ok_or(SsspError::NoWeights)?;
    let n = g.num_vertices();
    if dist.len() != n {
        return Err(SsspInvalid::Length { got: dist.len(), n });
    }
    let d = |v: u32| -> f64 { dist[v as usize].into() };
    if d(source) != 0.0 {
        return Err(SsspInvalid::Source(d(source)));
    }
    let slack = |x: f64| tol * x.abs().max(1.0);
    let mut supported = vec![false; n];
    supported[source as usize] = true;
    for u in 0..n as u32 {
        let du = d(u);
        if du.is_infinite() {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.cols[e];
            let via = du + w.get(e);
            let dv = d(v);
            if via < dv - slack(dv.min(via)) || dv.is_nan() {
                return Err(SsspInvalid::Relaxable {
                    u,
                    v,
                    w: w.get(e),
                    via,
                    dv,
                });
            }
            if (via - dv).abs() <= slack(dv) {
                supported[v as usize] = true;
            }
        }
    }
    for v in 0..n as u32 {
        if d(v).is_finite() && !supported[v as usize] {
            return Err(SsspInvalid::Unsupported {
                vertex: v,
                dist: d(v),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, EdgeList};
    use crate::generate;

    fn weighted() -> Csr {
        let mut e = EdgeList::new(5);
        for (u, v) in [(0, 1), (1, 2), (0, 2), (2, 3)] {
            e.push(u, v);
        }
        e.weights = Some(Weights::U32(vec![4, 1, 7, 2]));
        e.into_csr(BuildOptions::default()).unwrap().0
    }

    #[test]
    fn hops_count_the_fewest_edges_of_a_shortest_path() {
        // 0 -> 2 directly (7) and through 1 (4 + 1 = 5): vertex 2's shortest path has 2 edges,
        // though breadth-first it is 1 away; 3 is one more.
        let g = weighted();
        let d = dijkstra(&g, 0).unwrap();
        let h = shortest_path_hops(&g, 0, &d).unwrap();
        assert_eq!(h, vec![0, 1, 2, 3, u32::MAX]);
        assert_eq!(max_hops(&h), 3);
        let h32 = shortest_path_hops_f32(&g, 0, &dijkstra_f32(&g, 0).unwrap()).unwrap();
        assert_eq!(h32, h);
    }

    #[test]
    fn hops_take_the_fewest_among_equal_paths_and_zero_weights() {
        // 0 -> 1 -> 2 (1 + 1) and 0 -> 2 (2) tie: 2 is one edge away. 2 -> 3 weighs 0.
        let mut e = EdgeList::new(4);
        for (u, v) in [(0, 1), (1, 2), (0, 2), (2, 3)] {
            e.push(u, v);
        }
        e.weights = Some(Weights::U32(vec![1, 1, 2, 0]));
        let g = e.into_csr(BuildOptions::default()).unwrap().0;
        let h = shortest_path_hops(&g, 0, &dijkstra(&g, 0).unwrap()).unwrap();
        assert_eq!(h, vec![0, 1, 1, 2]);
    }

    #[test]
    fn dijkstra_on_a_small_graph() {
        let g = weighted();
        let d = dijkstra(&g, 0).unwrap();
        assert_eq!(&d[..4], &[0.0, 4.0, 5.0, 7.0]);
        assert!(d[4].is_infinite());
        validate_sssp(&g, 0, &d, 0.0).unwrap();
    }

    #[test]
    fn wrong_distances_are_caught() {
        let g = weighted();
        let inf = f64::INFINITY;
        assert!(matches!(
            validate_sssp(&g, 0, &[0.0, 4.0, 7.0, 9.0, inf], 0.0),
            Err(SsspInvalid::Relaxable { .. })
        ));
        assert!(matches!(
            validate_sssp(&g, 0, &[0.0, 4.0, 5.0, 7.0, 10.0], 0.0),
            Err(SsspInvalid::Unsupported { vertex: 4, .. })
        ));
        assert!(matches!(
            validate_sssp(&g, 0, &[0.0, 4.0, 5.0, inf, inf], 0.0),
            Err(SsspInvalid::Relaxable { .. })
        ));
        assert!(validate_sssp(&g, 0, &[0.0f32, 4.0, 5.0, 7.0, f32::INFINITY], 1e-6).is_ok());
    }

    /// Dijkstra in f32 adds along each path in f32: on fractional weights it differs from the
    /// f64 sums by rounding only, its answer passes the path rules within f32 tolerance, and on
    /// a path whose f32 sum rounds it gives the f32 left fold, not the rounded f64 sum.
    #[test]
    fn dijkstra_f32_adds_in_f32() {
        let g = generate::from_spec("geo:2000,seed=4,w=300").unwrap();
        let Some(Weights::U32(w)) = &g.weights else {
            panic!()
        };
        let gf = Csr {
            weights: Some(Weights::F32(w.iter().map(|&x| x as f32 / 7.0).collect())),
            ..g.clone()
        };
        let wide = dijkstra(&gf, 0).unwrap();
        let narrow = dijkstra_f32(&gf, 0).unwrap();
        let mut differ = 0;
        for (&a, &b) in wide.iter().zip(&narrow) {
            assert_eq!(a.is_infinite(), b.is_infinite());
            if a.is_finite() {
                assert!((a - f64::from(b)).abs() <= 1e-5 * a.max(1.0), "{a} vs {b}");
                differ += usize::from(a != f64::from(b));
            }
        }
        assert!(differ > 0, "fractional weights must round somewhere");
        validate_sssp(&gf, 0, &narrow, 1e-5).unwrap();
        // The path 0 -> 1 -> 2 -> 3 weighs 2^24, 1, 1: f32 drops each 1, f64 keeps both.
        let mut e = EdgeList::new(4);
        for (u, v) in [(0, 1), (1, 2), (2, 3)] {
            e.push(u, v);
        }
        e.weights = Some(Weights::F32(vec![16_777_216.0, 1.0, 1.0]));
        let g = e.into_csr(BuildOptions::directed()).unwrap().0;
        assert_eq!(dijkstra_f32(&g, 0).unwrap()[3], 16_777_216.0);
        assert_eq!(dijkstra(&g, 0).unwrap()[3], 16_777_218.0);
    }

    #[test]
    fn generated_weights_give_valid_distances() {
        let g = generate::from_spec("grid:40x40,drop=0.2,w=100").unwrap();
        let d = dijkstra(&g, 0).unwrap();
        validate_sssp(&g, 0, &d, 0.0).unwrap();
        assert_eq!(
            dijkstra(&generate::from_spec("grid:4x4").unwrap(), 0),
            Err(SsspError::NoWeights)
        );
    }
}
