//! Graphs for atos: CSR, readers, generators and CPU references. No GPU dependency.

pub mod bfs;
pub mod csr;
pub mod generate;
pub mod read;

pub use csr::{BuildOptions, Csr};

/// Loads a graph from a generator spec (`grid:WxH`, `rmat:SCALE`) or a file path.
pub fn load(spec_or_path: &str) -> Result<Csr, LoadError> {
    if spec_or_path.starts_with("grid:") || spec_or_path.starts_with("rmat:") {
        return Ok(generate::from_spec(spec_or_path)?);
    }
    Ok(read::read_graph(std::path::Path::new(spec_or_path))?)
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Spec(#[from] generate::SpecError),
    #[error(transparent)]
    Read(#[from] read::ReadError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_expected_shape_and_depths() {
        let g = generate::grid(4, 3).unwrap();
        assert_eq!(g.num_vertices(), 12);
        assert_eq!(g.num_edges(), 2 * (3 * 3 + 4 * 2));
        let d = bfs::bfs_depths(&g, 0);
        assert_eq!(d[11], 3 + 2);
    }

    #[test]
    fn builder_symmetrizes_dedups_and_drops_loops() {
        let g = Csr::from_edges(
            3,
            &[(0, 1), (1, 0), (1, 1), (1, 2), (1, 2)],
            BuildOptions::default(),
        )
        .unwrap();
        assert_eq!(g.offsets, vec![0, 1, 3, 4]);
        assert_eq!(g.cols, vec![1, 0, 2, 1]);
    }

    #[test]
    fn rmat_is_deterministic() {
        assert_eq!(
            generate::rmat(8, 16, 7).unwrap(),
            generate::rmat(8, 16, 7).unwrap()
        );
        assert_ne!(
            generate::rmat(8, 16, 7).unwrap(),
            generate::rmat(8, 16, 8).unwrap()
        );
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(generate::from_spec("grid:4x").is_err());
        assert!(generate::from_spec("rmat:99").is_err());
        assert!(load("nope:3").is_err());
    }

    #[test]
    fn out_of_range_edge_is_an_error() {
        assert_eq!(
            Csr::from_edges(2, &[(0, 5)], BuildOptions::default()),
            Err(csr::BuildError::VertexOutOfRange { u: 0, v: 5, n: 2 })
        );
    }
}
