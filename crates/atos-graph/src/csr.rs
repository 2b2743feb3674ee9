//! Compressed sparse rows with u32 vertex ids.

/// A graph in CSR form: the neighbours of `v` are `cols[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub cols: Vec<u32>,
}

/// How to turn an edge list into a CSR.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Add the reverse of every edge.
    pub symmetrize: bool,
    pub drop_self_loops: bool,
    pub drop_duplicates: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            symmetrize: true,
            drop_self_loops: true,
            drop_duplicates: true,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BuildError {
    #[error("the graph has {edges} edges; this CSR stores offsets as u32 and holds at most {max} (u64 offsets arrive with the graph substrate)", max = u32::MAX)]
    TooManyEdges { edges: u64 },
    #[error("edge ({u}, {v}) names a vertex outside 0..{n}")]
    VertexOutOfRange { u: u32, v: u32, n: u32 },
}

impl Csr {
    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn num_edges(&self) -> usize {
        self.cols.len()
    }

    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.cols[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    pub fn degree(&self, v: u32) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// Builds a CSR over `n` vertices from directed `edges`; neighbour lists come out sorted.
    pub fn from_edges(n: u32, edges: &[(u32, u32)], opts: BuildOptions) -> Result<Csr, BuildError> {
        let mut degree = vec![0u64; n as usize];
        let keep = |u: u32, v: u32| !(opts.drop_self_loops && u == v);
        for &(u, v) in edges {
            if u >= n || v >= n {
                return Err(BuildError::VertexOutOfRange { u, v, n });
            }
            if keep(u, v) {
                degree[u as usize] += 1;
                if opts.symmetrize && u != v {
                    degree[v as usize] += 1;
                }
            }
        }
        let total: u64 = degree.iter().sum();
        if total > u64::from(u32::MAX) {
            return Err(BuildError::TooManyEdges { edges: total });
        }
        let mut offsets = Vec::with_capacity(n as usize + 1);
        let mut acc = 0u32;
        offsets.push(0);
        for d in &degree {
            acc += *d as u32;
            offsets.push(acc);
        }
        let mut fill: Vec<u32> = offsets[..n as usize].to_vec();
        let mut cols = vec![0u32; total as usize];
        for &(u, v) in edges {
            if keep(u, v) {
                cols[fill[u as usize] as usize] = v;
                fill[u as usize] += 1;
                if opts.symmetrize && u != v {
                    cols[fill[v as usize] as usize] = u;
                    fill[v as usize] += 1;
                }
            }
        }
        let mut csr = Csr { offsets, cols };
        csr.sort_and_dedup(opts.drop_duplicates);
        Ok(csr)
    }

    fn sort_and_dedup(&mut self, dedup: bool) {
        let n = self.num_vertices();
        let mut out_offsets = Vec::with_capacity(n + 1);
        out_offsets.push(0u32);
        let mut write = 0usize;
        for v in 0..n {
            let (lo, hi) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
            self.cols[lo..hi].sort_unstable();
            let mut prev: Option<u32> = None;
            for i in lo..hi {
                let c = self.cols[i];
                if dedup && prev == Some(c) {
                    continue;
                }
                self.cols[write] = c;
                write += 1;
                prev = Some(c);
            }
            out_offsets.push(write as u32);
        }
        self.cols.truncate(write);
        self.offsets = out_offsets;
    }
}
