//! Connected components (weak, for directed graphs) and a validator.

use super::NONE;
use crate::csr::Csr;

/// Components: `label[v]` is the smallest vertex id in `v`'s component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    pub label: Vec<u32>,
    pub count: u64,
    pub largest: u64,
}

/// Union-find over every entry, so `u -> v` joins u and v whichever way it points.
pub fn connected_components(g: &Csr) -> Components {
    let n = g.num_vertices();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let p = parent[v as usize];
            parent[v as usize] = parent[p as usize];
            v = p;
        }
        v
    }
    for u in 0..n as u32 {
        for &v in g.neighbors(u) {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            // The smaller root wins, so every root is its component's smallest id.
            if a < b {
                parent[b as usize] = a;
            } else if b < a {
                parent[a as usize] = b;
            }
        }
    }
    let mut size = vec![0u64; n];
    for v in 0..n as u32 {
        let r = find(&mut parent, v);
        parent[v as usize] = r;
        size[r as usize] += 1;
    }
    Components {
        count: size.iter().filter(|&&s| s > 0).count() as u64,
        largest: size.iter().copied().max().unwrap_or(0),
        label: parent,
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ComponentsInvalid {
    #[error("the answer has {got} labels for a graph of {n} vertices")]
    Length { got: usize, n: usize },
    #[error("vertex {vertex} has no label")]
    Unlabeled { vertex: u32 },
    #[error("edge {u} -> {v} joins labels {lu} and {lv}")]
    Split { u: u32, v: u32, lu: u32, lv: u32 },
    #[error("{got} distinct labels, but the graph has {want} components (distinct ones merged)")]
    Count { got: u64, want: u64 },
}

/// Labels are valid when both ends of every edge agree and there are exactly as many
/// distinct labels as components (so no two components share one). Any label values work.
pub fn validate_components(g: &Csr, label: &[u32]) -> Result<u64, ComponentsInvalid> {
    let n = g.num_vertices();
    if label.len() != n {
        return Err(ComponentsInvalid::Length {
            got: label.len(),
            n,
        });
    }
    if let Some(v) = label.iter().position(|&l| l == NONE) {
        return Err(ComponentsInvalid::Unlabeled { vertex: v as u32 });
    }
    for u in 0..n as u32 {
        for &v in g.neighbors(u) {
            let (lu, lv) = (label[u as usize], label[v as usize]);
            if lu != lv {
                return Err(ComponentsInvalid::Split { u, v, lu, lv });
            }
        }
    }
    let want = connected_components(g).count;
    let got = super::distinct_count(label);
    if got != want {
        return Err(ComponentsInvalid::Count { got, want });
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, EdgeList};

    #[test]
    fn components_of_a_small_forest() {
        let mut e = EdgeList::new(7);
        for (u, v) in [(1, 2), (2, 3), (5, 4)] {
            e.push(u, v);
        }
        let g = e.into_csr(BuildOptions::directed()).unwrap().0;
        let c = connected_components(&g);
        assert_eq!(c.label, vec![0, 1, 1, 1, 4, 4, 6]);
        assert_eq!((c.count, c.largest), (4, 3));
        assert_eq!(validate_components(&g, &c.label), Ok(4));
        let mut merged = c.label.clone();
        merged[6] = 0;
        assert!(matches!(
            validate_components(&g, &merged),
            Err(ComponentsInvalid::Count { got: 3, want: 4 })
        ));
        let mut split = c.label;
        split[3] = 9;
        assert!(matches!(
            validate_components(&g, &split),
            Err(ComponentsInvalid::Split { .. })
        ));
    }
}
