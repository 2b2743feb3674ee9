//! Random relabelling of vertex ids (the Atos ICPP'22 §6.3 permutation experiment: the same
//! graph with its locality destroyed).

use crate::build::sort_neighbors;
use crate::csr::{Csr, Weights};
use crate::generate::permutation;

/// The graph with vertex `v` renamed `perm[v]`, and `perm` itself. Neighbour lists stay
/// sorted; weights follow their edges.
pub fn relabel(g: &Csr, seed: u64) -> (Csr, Vec<u32>) {
    let n = g.num_vertices() as u32;
    let perm = permutation(n, seed);
    let mut old_of = vec![0u32; n as usize];
    for (old, &new) in perm.iter().enumerate() {
        old_of[new as usize] = old as u32;
    }
    let mut offsets = Vec::with_capacity(n as usize + 1);
    offsets.push(0u64);
    for &old in &old_of {
        offsets.push(offsets.last().unwrap() + g.degree(old));
    }
    let mut cols = Vec::with_capacity(g.num_edges());
    for &old in &old_of {
        cols.extend(g.neighbors(old).iter().map(|&u| perm[u as usize]));
    }
    let gather = |w: &[u32]| -> Vec<u32> {
        old_of
            .iter()
            .flat_map(|&old| w[g.edge_range(old)].iter().copied())
            .collect()
    };
    let weights = g.weights.as_ref().map(|w| match w {
        Weights::U32(w) => Weights::U32(gather(w)),
        Weights::F32(w) => {
            let bits: Vec<u32> = w.iter().map(|x| x.to_bits()).collect();
            Weights::F32(gather(&bits).into_iter().map(f32::from_bits).collect())
        }
    });
    let mut out = Csr {
        offsets,
        cols,
        weights,
    };
    sort_neighbors(&mut out, false);
    (out, perm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::from_spec;
    use crate::reference::bfs::bfs_depths;

    #[test]
    fn relabelling_preserves_structure() {
        let g = from_spec("kron:9,w=50").unwrap();
        let (h, perm) = relabel(&g, 3);
        h.check().unwrap();
        assert!(h.is_sorted() && h.is_symmetric());
        assert_eq!(h.num_edges(), g.num_edges());
        assert_ne!(h.cols, g.cols);
        let (dg, dh) = (bfs_depths(&g, 5), bfs_depths(&h, perm[5]));
        for v in 0..g.num_vertices() {
            assert_eq!(dg[v], dh[perm[v] as usize]);
            assert_eq!(g.degree(v as u32), h.degree(perm[v]));
        }
        let wg = crate::reference::sssp::dijkstra(&g, 5).unwrap();
        let wh = crate::reference::sssp::dijkstra(&h, perm[5]).unwrap();
        for v in 0..g.num_vertices() {
            assert_eq!(wg[v], wh[perm[v] as usize]);
        }
    }
}
