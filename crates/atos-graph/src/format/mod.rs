//! Graph file formats: readers and writers.
//!
//! | format | extension | read | write |
//! |---|---|---|---|
//! | Matrix Market coordinate | `.mtx` | pattern / integer / real, general / symmetric | general |
//! | edge list (SNAP, headerless) | anything else | `u v [w]`, whitespace or commas, 0/1-based | 0-based |
//! | DIMACS shortest path | `.gr` | `p sp n m`, `a u v w` | yes |
//! | atos binary CSR | `.acsr` | versioned, CRC-32 checked | yes |
//! | original Atos CSR | `.csr` | `nodes:i32 edges:i32 offsets cols` | yes |
//!
//! Text readers stream the input once, give every error as `file:line: reason`, and check
//! declared sizes against the input's length and the memory limit before reserving memory.

pub mod acsr;
pub mod atos_csr;
pub mod dimacs;
pub mod edge_list;
pub mod matrix_market;
pub(crate) mod text;
mod weight_column;

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::build::{BuildError, EdgeList};
use crate::csr::{Csr, CsrError};
use crate::limits::{self, TooLarge};

/// A file format, chosen from the extension unless named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    MatrixMarket,
    EdgeList,
    Dimacs,
    Acsr,
    AtosCsr,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::MatrixMarket,
        Format::EdgeList,
        Format::Dimacs,
        Format::Acsr,
        Format::AtosCsr,
    ];

    /// `.mtx`, `.gr`, `.acsr`, `.csr`; any other extension is an edge list.
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("mtx") => Format::MatrixMarket,
            Some("gr") => Format::Dimacs,
            Some("acsr") => Format::Acsr,
            Some("csr") => Format::AtosCsr,
            _ => Format::EdgeList,
        }
    }

    /// The name used by `--format` and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::EdgeList => "edges",
            Format::Dimacs => "gr",
            Format::Acsr => "acsr",
            Format::AtosCsr => "csr",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Binary formats hold a built CSR; text formats hold edges that are built on load.
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Acsr | Format::AtosCsr)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Vertex id base of an edge list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// 0-based when any id is 0, else 1-based.
    #[default]
    Detect,
    Zero,
    One,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    pub base: Base,
    /// Read weight columns (integer -> u32, real -> f32). Off: structure only.
    pub weights: bool,
    /// Declared or implied sizes needing more memory than this are refused up front.
    pub max_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            base: Base::Detect,
            weights: true,
            max_bytes: limits::default_memory_limit(),
        }
    }
}

/// What a text reader found: the edges, and how to build them.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub edges: EdgeList,
    /// The file stores each undirected edge once (Matrix Market `symmetric`): the build
    /// must mirror it whatever the options say.
    pub symmetric: bool,
    /// The id base the file used (0 or 1).
    pub base: u8,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {reason}")]
    Parse {
        path: String,
        line: u64,
        reason: String,
    },
    #[error("{path}: {reason}")]
    Content { path: String, reason: String },
    #[error("{path}: {reason}")]
    Unsupported { path: String, reason: String },
    #[error(
        "{path}: truncated: the header promises {expected} bytes but the file has {actual}; the file is incomplete or not this format"
    )]
    Truncated {
        path: String,
        expected: u64,
        actual: u64,
    },
    #[error(
        "{path}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupt; convert it again from the source"
    )]
    Checksum {
        path: String,
        stored: u32,
        computed: u32,
    },
    #[error("{path}: {source}")]
    TooLarge { path: String, source: TooLarge },
    #[error("{path}: {source}")]
    Build { path: String, source: BuildError },
    #[error("{path}: the stored graph is inconsistent: {source}")]
    Corrupt { path: String, source: CsrError },
}

impl ReadError {
    pub(crate) fn parse(path: &str, line: u64, reason: impl Into<String>) -> ReadError {
        ReadError::Parse {
            path: path.into(),
            line,
            reason: reason.into(),
        }
    }

    pub(crate) fn content(path: &str, reason: impl Into<String>) -> ReadError {
        ReadError::Content {
            path: path.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn io(path: &str, source: std::io::Error) -> ReadError {
        ReadError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Reads lines, turning scanner failures into errors that name the file and line.
pub(crate) fn next_line<'a, R: Read>(
    lines: &'a mut text::Lines<R>,
    path: &str,
) -> Result<Option<(u64, &'a [u8])>, ReadError> {
    let line = lines.line + 1;
    lines.next_line().map_err(|e| match e {
        text::LineError::Io(e) => ReadError::io(path, e),
        text::LineError::TooLong => ReadError::parse(
            path,
            line,
            format!("line is longer than {} bytes", text::MAX_LINE),
        ),
    })
}

/// A parsed text file or a loaded binary one.
#[derive(Clone, Debug, PartialEq)]
pub enum Contents {
    Edges(Parsed),
    Graph(Csr),
}

/// Reads `path` in `format` (from the extension when `None`).
pub fn read_file(
    path: &Path,
    format: Option<Format>,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| ReadError::io(&name, e))?;
    let len = file.metadata().map_err(|e| ReadError::io(&name, e))?.len();
    let reader = BufReader::with_capacity(1 << 16, file);
    read(
        reader,
        &name,
        len,
        format.unwrap_or(Format::from_path(path)),
        opts,
    )
}

/// Reads `len` bytes of `format` from `reader`; `name` is what errors call the input.
pub fn read<R: Read>(
    reader: R,
    name: &str,
    len: u64,
    format: Format,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    Ok(match format {
        Format::MatrixMarket => Contents::Edges(matrix_market::read(reader, name, len, opts)?),
        Format::EdgeList => Contents::Edges(edge_list::read(reader, name, opts)?),
        Format::Dimacs => Contents::Edges(dimacs::read(reader, name, len, opts)?),
        Format::Acsr => Contents::Graph(acsr::read(reader, name, len, opts)?),
        Format::AtosCsr => Contents::Graph(atos_csr::read(reader, name, len, opts)?),
    })
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path} as {format}: {reason}")]
    Unsupported {
        path: String,
        format: Format,
        reason: String,
    },
}

/// Writes `g` to `path` in `format` (from the extension when `None`).
pub fn write_file(g: &Csr, path: &Path, format: Option<Format>) -> Result<(), WriteError> {
    let name = path.display().to_string();
    let format = format.unwrap_or(Format::from_path(path));
    let io = |source| WriteError::Io {
        path: name.clone(),
        source,
    };
    let unsupported = |reason: String| WriteError::Unsupported {
        path: name.clone(),
        format,
        reason,
    };
    // Check before creating the file, so a refused write leaves nothing behind.
    match format {
        Format::AtosCsr => atos_csr::writable(g).map_err(unsupported)?,
        Format::Dimacs => dimacs::writable(g).map_err(unsupported)?,
        _ => {}
    }
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path).map_err(io)?);
    write(g, &mut w, format).map_err(io)?;
    w.flush().map_err(io)
}

/// Writes `g` in `format`; fails on graphs the format cannot hold (see `write_file`).
pub fn write<W: Write>(g: &Csr, w: &mut W, format: Format) -> std::io::Result<()> {
    let invalid = |reason: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, reason);
    match format {
        Format::MatrixMarket => matrix_market::write(g, w),
        Format::EdgeList => edge_list::write(g, w),
        Format::Dimacs => {
            dimacs::writable(g).map_err(invalid)?;
            dimacs::write(g, w)
        }
        Format::Acsr => acsr::write(g, w),
        Format::AtosCsr => {
            atos_csr::writable(g).map_err(invalid)?;
            atos_csr::write(g, w)
        }
    }
}

/// Checks a binary file's length against the one its header implies: shorter is truncated,
/// longer has trailing bytes. Runs before anything the header sizes is allocated.
pub(crate) fn check_length(path: &str, expected: u128, len: u64) -> Result<(), ReadError> {
    if expected == u128::from(len) {
        return Ok(());
    }
    let expected = u64::try_from(expected).unwrap_or(u64::MAX);
    if expected > len {
        return Err(ReadError::Truncated {
            path: path.into(),
            expected,
            actual: len,
        });
    }
    Err(ReadError::content(
        path,
        format!(
            "{} bytes after the end the header describes",
            len - expected
        ),
    ))
}

/// Writes one text line per entry: `prefix u v [weight]` with ids shifted by `base`; a
/// graph without weights gets `default_weight` when given, else no weight column.
pub(crate) fn write_entries<W: Write>(
    g: &Csr,
    w: &mut W,
    prefix: &[u8],
    base: u32,
    default_weight: Option<u32>,
) -> std::io::Result<()> {
    let mut buf = itoa::Buffer::new();
    for u in 0..g.num_vertices() as u32 {
        for e in g.edge_range(u) {
            w.write_all(prefix)?;
            w.write_all(buf.format(u + base).as_bytes())?;
            w.write_all(b" ")?;
            w.write_all(buf.format(g.cols[e] + base).as_bytes())?;
            match (&g.weights, default_weight) {
                (Some(crate::csr::Weights::U32(x)), _) => {
                    w.write_all(b" ")?;
                    w.write_all(buf.format(x[e]).as_bytes())?;
                }
                (Some(crate::csr::Weights::F32(x)), _) => write!(w, " {}", x[e])?,
                (None, Some(d)) => {
                    w.write_all(b" ")?;
                    w.write_all(buf.format(d).as_bytes())?;
                }
                (None, None) => {}
            }
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}
