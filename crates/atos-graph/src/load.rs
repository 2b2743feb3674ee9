//! One entry point for every source of a graph: a generator spec or a file in any format,
//! then the build options and an optional relabelling.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::build::{BuildError, BuildOptions, BuildReport};
use crate::csr::Csr;
use crate::format::{self, Contents, Format, ReadError, ReadOptions};
use crate::generate::{self, Spec, SpecError};
use crate::relabel::relabel;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Applies to text files (binary files hold a built graph and load as stored).
    pub build: BuildOptions,
    pub read: ReadOptions,
    /// Force a format instead of going by the extension.
    pub format: Option<Format>,
    /// Relabel vertices with a random permutation from this seed.
    pub relabel: Option<u64>,
}

/// Where a loaded graph came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    Generated(Spec),
    File { format: Format, bytes: u64 },
}

/// A loaded graph and how it was made.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub graph: Csr,
    pub origin: Origin,
    /// Edges as read (text) or generated, and what the build did with them; `None` for
    /// binary files.
    pub report: Option<BuildReport>,
    /// Text files: the id base they used.
    pub base: Option<u8>,
    /// Reading or generating.
    pub read_time: Duration,
    /// Building the CSR from read edges (zero for generated and binary graphs).
    pub build_time: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// Loads `spec_or_path` with the default options: undirected, no self-loops or duplicates.
pub fn load(spec_or_path: &str) -> Result<Csr, LoadError> {
    Ok(load_with(spec_or_path, &LoadOptions::default())?.graph)
}

/// Loads a generator spec (see [`generate`]) or a file.
pub fn load_with(spec_or_path: &str, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let start = Instant::now();
    let mut loaded = if generate::is_spec(spec_or_path) {
        let spec = Spec::parse(spec_or_path)?;
        let (graph, report) = spec
            .generate(opts.read.max_bytes)
            .map_err(SpecError::from)?;
        Loaded {
            graph,
            origin: Origin::Generated(spec),
            report: Some(report),
            base: None,
            read_time: start.elapsed(),
            build_time: Duration::ZERO,
        }
    } else {
        load_file(Path::new(spec_or_path), opts)?
    };
    if let Some(seed) = opts.relabel {
        loaded.graph = relabel(&loaded.graph, seed).0;
    }
    Ok(loaded)
}

fn load_file(path: &Path, opts: &LoadOptions) -> Result<Loaded, ReadError> {
    let start = Instant::now();
    let name = path.display().to_string();
    let format = opts.format.unwrap_or(Format::from_path(path));
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let contents = format::read_file(path, Some(format), &opts.read)?;
    let read_time = start.elapsed();
    let origin = Origin::File { format, bytes };
    Ok(match contents {
        Contents::Graph(graph) => Loaded {
            graph,
            origin,
            report: None,
            base: None,
            read_time,
            build_time: Duration::ZERO,
        },
        Contents::Edges(parsed) => {
            let build_start = Instant::now();
            let build = BuildOptions {
                symmetrize: opts.build.symmetrize || parsed.symmetric,
                ..opts.build
            };
            let (graph, report) = parsed
                .edges
                .into_csr(build)
                .map_err(|source: BuildError| ReadError::Build { path: name, source })?;
            Loaded {
                graph,
                origin,
                report: Some(report),
                base: Some(parsed.base),
                read_time,
                build_time: build_start.elapsed(),
            }
        }
    })
}
