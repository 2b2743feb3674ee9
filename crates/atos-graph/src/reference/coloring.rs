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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;

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
