//! The atos binary CSR (`.acsr`): a fast, checked cache of a built graph.
//!
//! Layout, little-endian, version 1:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `ATOSCSR\0` |
//! | 4 | version (1) |
//! | 4 | flags: bits 0-1 weight kind (0 none, 1 u32, 2 f32), other bits 0 |
//! | 8 | vertices n |
//! | 8 | entries m |
//! | 8 (n + 1) | offsets, u64 |
//! | 4 m | cols, u32 |
//! | 4 m | weights (u32, or f32 bits), when flagged |
//! | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! The file length follows from the header, so a truncated or padded file is caught before
//! anything is allocated; the checksum catches flipped bits; the arrays are then checked to
//! form a CSR (monotone offsets, ids in range).

use std::io::{Read, Write};

use super::{ReadError, ReadOptions, check_length};
use crate::csr::{Csr, MAX_VERTICES, Weights};
use crate::limits;

pub const MAGIC: [u8; 8] = *b"ATOSCSR\0";
pub const VERSION: u32 = 1;
const HEADER: u64 = 32;
const TRAILER: u64 = 4;

pub fn read<R: Read>(mut r: R, path: &str, len: u64, opts: &ReadOptions) -> Result<Csr, ReadError> {
    if len < HEADER + TRAILER {
        return Err(ReadError::Truncated {
            path: path.into(),
            expected: HEADER + TRAILER,
            actual: len,
        });
    }
    let mut header = [0u8; HEADER as usize];
    r.read_exact(&mut header)
        .map_err(|e| ReadError::io(path, e))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header);
    let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().unwrap());
    let long = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().unwrap());
    if header[..8] != MAGIC {
        return Err(ReadError::content(
            path,
            "not an atos CSR file (the first 8 bytes are not `ATOSCSR\\0`)",
        ));
    }
    let (version, flags, n, m) = (word(8), word(12), long(16), long(24));
    if version != VERSION {
        return Err(ReadError::Unsupported {
            path: path.into(),
            reason: format!("format version {version}; this build reads version {VERSION}"),
        });
    }
    let weight_kind = flags & 3;
    if flags & !3 != 0 || weight_kind == 3 {
        return Err(ReadError::content(
            path,
            format!("unknown flags {flags:#x}"),
        ));
    }
    if n > MAX_VERTICES {
        return Err(ReadError::content(
            path,
            format!("header declares {n} vertices; u32 ids allow {MAX_VERTICES}"),
        ));
    }
    let weighted = weight_kind != 0;
    let expected = u128::from(HEADER)
        + 8 * (u128::from(n) + 1)
        + 4 * u128::from(m) * (1 + u128::from(weighted))
        + u128::from(TRAILER);
    check_length(path, expected, len)?;
    limits::check(
        || format!("a graph of {n} vertices and {m} entries"),
        8 * (u128::from(n) + 1) + 8 * u128::from(m),
        opts.max_bytes,
    )
    .map_err(|source| ReadError::TooLarge {
        path: path.into(),
        source,
    })?;
    let mut offsets = vec![0u64; n as usize + 1];
    read_le(&mut r, &mut offsets, &mut crc, path)?;
    let mut cols = vec![0u32; m as usize];
    read_le(&mut r, &mut cols, &mut crc, path)?;
    let weights = if weighted {
        let mut w = vec![0u32; m as usize];
        read_le(&mut r, &mut w, &mut crc, path)?;
        Some(if weight_kind == 1 {
            Weights::U32(w)
        } else {
            Weights::F32(w.into_iter().map(f32::from_bits).collect())
        })
    } else {
        None
    };
    let mut trailer = [0u8; 4];
    r.read_exact(&mut trailer)
        .map_err(|e| ReadError::io(path, e))?;
    let (stored, computed) = (u32::from_le_bytes(trailer), crc.finalize());
    if stored != computed {
        return Err(ReadError::Checksum {
            path: path.into(),
            stored,
            computed,
        });
    }
    let csr = Csr {
        offsets,
        cols,
        weights,
    };
    csr.check().map_err(|source| ReadError::Corrupt {
        path: path.into(),
        source,
    })?;
    Ok(csr)
}

/// Fills `out` from little-endian bytes and feeds them to the checksum.
fn read_le<R: Read, T: bytemuck::Pod + LittleEndian>(
    r: &mut R,
    out: &mut [T],
    crc: &mut crc32fast::Hasher,
    path: &str,
) -> Result<(), ReadError> {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    r.read_exact(bytes).map_err(|e| ReadError::io(path, e))?;
    crc.update(bytes);
    if cfg!(target_endian = "big") {
        out.iter_mut().for_each(|x| *x = x.le_to_native());
    }
    Ok(())
}

pub(crate) trait LittleEndian: Copy {
    fn le_to_native(self) -> Self;
}
impl LittleEndian for u32 {
    fn le_to_native(self) -> Self {
        u32::from_le(self)
    }
}
impl LittleEndian for u64 {
    fn le_to_native(self) -> Self {
        u64::from_le(self)
    }
}

pub fn write<W: Write>(g: &Csr, w: &mut W) -> std::io::Result<()> {
    let mut out = Checksummed {
        inner: w,
        crc: crc32fast::Hasher::new(),
    };
    let kind = match &g.weights {
        None => 0u32,
        Some(Weights::U32(_)) => 1,
        Some(Weights::F32(_)) => 2,
    };
    out.put(&MAGIC)?;
    out.put(&VERSION.to_le_bytes())?;
    out.put(&kind.to_le_bytes())?;
    out.put(&(g.num_vertices() as u64).to_le_bytes())?;
    out.put(&(g.num_edges() as u64).to_le_bytes())?;
    write_le(&mut out, &g.offsets, u64::to_le_bytes)?;
    write_le(&mut out, &g.cols, u32::to_le_bytes)?;
    match &g.weights {
        None => {}
        Some(Weights::U32(x)) => write_le(&mut out, x, u32::to_le_bytes)?,
        Some(Weights::F32(x)) => write_le(&mut out, x, |v: f32| v.to_bits().to_le_bytes())?,
    }
    let crc = out.crc.clone().finalize();
    out.inner.write_all(&crc.to_le_bytes())
}

struct Checksummed<'a, W> {
    inner: &'a mut W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Checksummed<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// Writes a slice in little-endian order, a block at a time.
fn write_le<W: Write, T: Copy, const N: usize>(
    out: &mut Checksummed<'_, W>,
    xs: &[T],
    le: impl Fn(T) -> [u8; N],
) -> std::io::Result<()> {
    let mut block = Vec::with_capacity(N * 8192);
    for chunk in xs.chunks(8192) {
        block.clear();
        for &x in chunk {
            block.extend_from_slice(&le(x));
        }
        out.put(&block)?;
    }
    Ok(())
}
