//! Greedy graph coloring and a validator.

use super::NONE;
use crate::csr::Csr;

/// The order in which greedy coloring visits vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColoringOrder {
    /// Vertex id order.
    Natural,
    /// Highest degree first (Welsh-Powell), ties by id: usually fewer colours.
    LargestFirst,
}

/// First-fit coloring: each vertex takes the smallest colour no colored neighbour has.
/// Uses at most max degree + 1 colours. Self-loops are ignored.
pub fn greedy_coloring(g: &Csr, order: ColoringOrder) -> Vec<u32> {
    let n = g.num_vertices();
    let mut vertices: Vec<u32> = (0..n as u32).collect();
    if order == ColoringOrder::LargestFirst {
        vertices.sort_by_key(|&v| std::cmp::Reverse(g.degree(v)));
    }
    let mut color = vec![NONE; n];
    // taken[c] == v marks colour c as used by a neighbour of v: no clearing between vertices.
    let mut taken: Vec<u32> = Vec::new();
    for &v in &vertices {
        for &u in g.neighbors(v) {
            let c = color[u as usize];
            if c != NONE && u != v {
                if c as usize >= taken.len() {
                    taken.resize(c as usize + 1, NONE);
                }
                taken[c as usize] = v;
            }
        }
        let c = taken.iter().position(|&t| t != v).unwrap_or(taken.len());
        color[v as usize] = c as u32;
    }
    color
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ColoringInvalid {
    #[error("the answer has {got} colours for a graph of {n} vertices")]
    Length { got: usize, n: usize },
    #[error("vertex {vertex} has no colour")]
    Uncolored { vertex: u32 },
    #[error("edge {u} -> {v} joins two vertices of colour {color}")]
    Conflict { u: u32, v: u32, color: u32 },
}

/// Checks that no edge (other than a self-loop) joins equal colours and every vertex has
/// one; returns the number of distinct colours used.
pub fn validate_coloring(g: &Csr, color: &[u32]) -> Result<u64, ColoringInvalid> {
    let n = g.num_vertices();
    if color.len() != n {
        return Err(ColoringInvalid::Length {
            got: color.len(),
            n,
        });
    }
    if let Some(v) = color.iter().position(|&c| c == NONE) {
        return Err(ColoringInvalid::Uncolored { vertex: v as u32 });
    }
    for u in 0..n as u32 {
        for &v in g.neighbors(u) {
            if u != v && color[u as usize] == color[v as usize] {
                return Err(ColoringInvalid::Conflict {
                    u,
                    v,
                    color: color[u as usize],
                });
            }
        }
    }
    Ok(super::distinct_count(color))
}

/// The first vertex whose colour is above its degree (self-loops not counted) plus `slack`,
/// if any. First fit against any reading of the neighbours' colours never picks a colour
/// above the vertex's degree (it has at most that many colours to avoid), so a speculative
/// first-fit colouring with a vertex above the bound picked a colour some neighbour held, or
/// skipped more than it may (`slack`: how many free colours a colouring may pass over).
pub fn first_fit_bound_exceeded(g: &Csr, color: &[u32], slack: u32) -> Option<u32> {
    (0..g.num_vertices() as u32).find(|&v| {
        let degree = g.neighbors(v).iter().filter(|&&u| u != v).count() as u64;
        u64::from(color[v as usize]) > degree + u64::from(slack)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;

    #[test]
    fn the_first_fit_bound_counts_neighbours_not_self_loops() {
        // A path 0 - 1 - 2 with a self-loop at 0: degrees 1, 2, 1 without the loop.
        let mut edges = crate::EdgeList::new(3);
        for (u, v) in [(0, 1), (1, 2), (0, 0)] {
            edges.push(u, v);
        }
        let opts = crate::BuildOptions {
            drop_self_loops: false,
            ..Default::default()
        };
        let (g, _) = edges.into_csr(opts).unwrap();
        assert_eq!(first_fit_bound_exceeded(&g, &[1, 2, 1], 0), None);
        assert_eq!(first_fit_bound_exceeded(&g, &[2, 0, 1], 0), Some(0));
        assert_eq!(first_fit_bound_exceeded(&g, &[2, 0, 1], 1), None);
        assert_eq!(first_fit_bound_exceeded(&g, &[0, 0, 3], 1), Some(2));
        // Greedy colourings keep it.
        let g = generate::from_spec("kron:10").unwrap();
        let c = greedy_coloring(&g, ColoringOrder::LargestFirst);
        assert_eq!(first_fit_bound_exceeded(&g, &c, 0), None);
    }

    #[test]
    fn greedy_colorings_are_valid_and_bounded() {
        for spec in ["grid:20x20", "kron:10", "er:2000,deg=8"] {
            let g = generate::from_spec(spec).unwrap();
            let max_degree = (0..g.num_vertices() as u32)
                .map(|v| g.degree(v))
                .max()
                .unwrap();
            for order in [ColoringOrder::Natural, ColoringOrder::LargestFirst] {
                let c = greedy_coloring(&g, order);
                let used = validate_coloring(&g, &c).unwrap();
                assert!(used <= max_degree + 1, "{spec}: {used} colours");
            }
        }
        // A grid is bipartite and natural order finds the 2-colouring.
        let g = generate::from_spec("grid:8x8").unwrap();
        assert_eq!(
            validate_coloring(&g, &greedy_coloring(&g, ColoringOrder::Natural)),
            Ok(2)
        );
    }

    #[test]
    fn conflicts_are_caught() {
        let g = generate::from_spec("grid:3x3").unwrap();
        let mut c = greedy_coloring(&g, ColoringOrder::Natural);
        c[1] = c[0];
        assert!(matches!(
            validate_coloring(&g, &c),
            Err(ColoringInvalid::Conflict { .. })
        ));
        c[1] = NONE;
        assert_eq!(
            validate_coloring(&g, &c),
            Err(ColoringInvalid::Uncolored { vertex: 1 })
        );
    }
}
