//! CPU reference BFS.

use std::collections::VecDeque;

use crate::csr::Csr;

/// Depth of unreached vertices.
pub const UNREACHED: u32 = u32::MAX;

/// Hop distance from `source` to every vertex (`UNREACHED` where there is no path).
pub fn bfs_depths(g: &Csr, source: u32) -> Vec<u32> {
    let mut depth = vec![UNREACHED; g.num_vertices()];
    let mut q = VecDeque::new();
    depth[source as usize] = 0;
    q.push_back(source);
    while let Some(v) = q.pop_front() {
        let d = depth[v as usize] + 1;
        for &u in g.neighbors(v) {
            if depth[u as usize] == UNREACHED {
                depth[u as usize] = d;
                q.push_back(u);
            }
        }
    }
    depth
}

/// Vertices with a finite depth.
pub fn reached(depths: &[u32]) -> usize {
    depths.iter().filter(|&&d| d != UNREACHED).count()
}
