//! The binary CSR of the original Atos code (`.csr`): `nodes: i32`, `edges: i32`,
//! `row_offsets: [i32; nodes + 1]`, `col_idx: [i32; edges]`, native (little-endian) order,
//! no weights and no checksum. Graphs move between atos and Atos through it.

use std::io::{Read, Write};

use super::{ReadError, ReadOptions, check_length};
use crate::csr::Csr;
use crate::limits;

pub fn read<R: Read>(mut r: R, path: &str, len: u64, opts: &ReadOptions) -> Result<Csr, ReadError> {
    if len < 8 {
        return Err(ReadError::Truncated {
            path: path.into(),
            expected: 8,
            actual: len,
        });
    }
    let mut header = [0u8; 8];
    r.read_exact(&mut header)
        .map_err(|e| ReadError::io(path, e))?;
    let nodes = i32::from_le_bytes(header[..4].try_into().unwrap());
    let edges = i32::from_le_bytes(header[4..].try_into().unwrap());
    if nodes < 0 || edges < 0 {
        return Err(ReadError::content(
            path,
            format!(
                "header declares {nodes} nodes and {edges} edges; sizes cannot be negative (not an Atos .csr file?)"
            ),
        ));
    }
    let (n, m) = (nodes as u64, edges as u64);
    check_length(path, 8 + 4 * (u128::from(n) + 1) + 4 * u128::from(m), len)?;
    limits::check(
        || format!("a graph of {n} vertices and {m} entries"),
        8 * u128::from(n + 1) + 4 * u128::from(m),
        opts.max_bytes,
    )
    .map_err(|source| ReadError::TooLarge {
        path: path.into(),
        source,
    })?;
    let offsets32 = read_i32s(&mut r, n as usize + 1, path, "row offset")?;
    let offsets = offsets32.into_iter().map(u64::from).collect();
    let cols = read_i32s(&mut r, m as usize, path, "column index")?;
    let csr = Csr {
        offsets,
        cols,
        weights: None,
    };
    csr.check().map_err(|source| ReadError::Corrupt {
        path: path.into(),
        source,
    })?;
    Ok(csr)
}

/// Reads `count` i32 values that must be non-negative, as u32.
fn read_i32s<R: Read>(
    r: &mut R,
    count: usize,
    path: &str,
    what: &str,
) -> Result<Vec<u32>, ReadError> {
    let mut v = vec![0u32; count];
    r.read_exact(bytemuck::cast_slice_mut(&mut v))
        .map_err(|e| ReadError::io(path, e))?;
    if cfg!(target_endian = "big") {
        v.iter_mut().for_each(|x| *x = u32::from_le(*x));
    }
    if let Some(i) = v.iter().position(|&x| x > i32::MAX as u32) {
        return Err(ReadError::content(
            path,
            format!("{what} {i} is {}, negative", v[i] as i32),
        ));
    }
    Ok(v)
}

/// The layout holds i32 sizes and no weights.
pub(crate) fn writable(g: &Csr) -> Result<(), String> {
    let limit = i32::MAX as usize;
    if g.num_vertices() > limit || g.num_edges() > limit {
        return Err(format!(
            "{} vertices and {} entries exceed the i32 sizes of the Atos layout; use .acsr",
            g.num_vertices(),
            g.num_edges()
        ));
    }
    if g.weights.is_some() {
        return Err("the Atos layout has no weights; drop them (--no-weights) or use .acsr".into());
    }
    Ok(())
}

pub fn write<W: Write>(g: &Csr, w: &mut W) -> std::io::Result<()> {
    w.write_all(&(g.num_vertices() as i32).to_le_bytes())?;
    w.write_all(&(g.num_edges() as i32).to_le_bytes())?;
    let mut block = Vec::with_capacity(4 * 8192);
    for chunk in g.offsets.chunks(8192) {
        block.clear();
        chunk
            .iter()
            .for_each(|&o| block.extend_from_slice(&(o as i32).to_le_bytes()));
        w.write_all(&block)?;
    }
    for chunk in g.cols.chunks(8192) {
        block.clear();
        chunk
            .iter()
            .for_each(|&c| block.extend_from_slice(&c.to_le_bytes()));
        w.write_all(&block)?;
    }
    Ok(())
}
