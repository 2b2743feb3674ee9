//! Where the indices of a program spread over several devices live: a device per index of
//! `[0, len)`, and the index's position on that device.
//!
//! A placement decides where work and memory traffic happen, never what a run computes: an
//! `Atomics` field of length `len` is spread (element i on its owner, at its local position),
//! any other field lives whole on device 0 (reached by peers through peer mappings), and a
//! pushed item runs on the device that owns its first part. The graph crate computes partitions
//! (`atos_graph::partition`); this is the runtime's form of one.

use atos_codegen::Scalar;
use atos_codegen::layout::mesh::MAX_DEVICES;

use crate::elem::ItemBits;
use thiserror::Error;

/// The index an item is routed by: the item, or its first part (`route_key` in mesh.cuh): the key both executors route pushes and seeds by; a
/// negative one is past every placed range.
pub fn route_key(bits: ItemBits, first: Scalar) -> u64 {
    let width = 8 * first.size_bytes() as u32;
    let raw = if width == 64 {
        bits as u64
    } else {
        (bits as u64) & ((1u64 << width) - 1)
    };
    if first.is_signed_int() && raw >> (width - 1) & 1 == 1 {
        u64::MAX
    } else {
        raw
    }
}

/// A placement that cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PlacementError {
    #[error(
        "a placement spreads over 1 to {MAX_DEVICES} devices; this one has {0} (a run on more devices needs a larger `MAX_DEVICES` in atos-codegen's layout.rs)"
    )]
    Devices(usize),
    #[error(
        "range bounds must start at 0 and never decrease (device d holds [bounds[d], bounds[d + 1])); got {0:?}"
    )]
    Bounds(Vec<u64>),
    #[error("index {index} is placed on device {owner}, but the placement has {devices} devices")]
    Owner {
        index: usize,
        owner: usize,
        devices: usize,
    },
    #[error(
        "a placement by owner map holds at most 2^32 indices (positions are u32); this one has {0}"
    )]
    TooLong(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// Device d holds `[bounds[d], bounds[d + 1])`.
    Ranges { bounds: Vec<u64> },
    /// Index i is on `owner[i]`, at `local[i]` there.
    Map {
        owner: Vec<u8>,
        local: Vec<u32>,
        counts: Vec<u64>,
    },
}

/// The placement of `[0, len)` on `devices()` devices (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    kind: Kind,
}

impl Placement {
    /// Contiguous ranges: device d holds `[bounds[d], bounds[d + 1])`, so `bounds` has one entry
    /// more than there are devices, starts at 0 and never decreases (a device may hold none).
    pub fn ranges(bounds: Vec<u64>) -> Result<Placement, PlacementError> {
        let devices = bounds.len().saturating_sub(1);
        if devices == 0 || devices > MAX_DEVICES {
            return Err(PlacementError::Devices(devices));
        }
        if bounds[0] != 0 || bounds.windows(2).any(|w| w[1] < w[0]) {
            return Err(PlacementError::Bounds(bounds));
        }
        Ok(Placement {
            kind: Kind::Ranges { bounds },
        })
    }

    /// `len` indices in `devices` ranges of equal size (the first ones one larger when it does
    /// not divide).
    pub fn even(len: u64, devices: usize) -> Result<Placement, PlacementError> {
        if devices == 0 || devices > MAX_DEVICES {
            return Err(PlacementError::Devices(devices));
        }
        let d = devices as u64;
        let bounds = (0..=d).map(|k| k * (len / d) + k.min(len % d)).collect();
        Placement::ranges(bounds)
    }

    /// Index i on device `owner[i]`; positions on a device follow index order.
    pub fn from_owners(owner: Vec<u8>, devices: usize) -> Result<Placement, PlacementError> {
        if devices == 0 || devices > MAX_DEVICES {
            return Err(PlacementError::Devices(devices));
        }
        if owner.len() > 1 << 32 {
            return Err(PlacementError::TooLong(owner.len()));
        }
        let mut counts = vec![0u64; devices];
        let mut local = Vec::with_capacity(owner.len());
        for (index, &o) in owner.iter().enumerate() {
            let o = usize::from(o);
            if o >= devices {
                return Err(PlacementError::Owner {
                    index,
                    owner: o,
                    devices,
                });
            }
            local.push(counts[o] as u32);
            counts[o] += 1;
        }
        Ok(Placement {
            kind: Kind::Map {
                owner,
                local,
                counts,
            },
        })
    }

    /// Devices the placement spreads over.
    pub fn devices(&self) -> usize {
        match &self.kind {
            Kind::Ranges { bounds } => bounds.len() - 1,
            Kind::Map { counts, .. } => counts.len(),
        }
    }

    /// Indices placed: `[0, len)`.
    pub fn len(&self) -> u64 {
        match &self.kind {
            Kind::Ranges { bounds } => *bounds.last().expect("at least two bounds"),
            Kind::Map { owner, .. } => owner.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device owning index `i`: device 0 for an index at or past `len` (`owner_of` in
    /// mesh.cuh).
    pub fn owner(&self, i: u64) -> usize {
        if i >= self.len() {
            return 0;
        }
        match &self.kind {
            Kind::Ranges { bounds } => bounds[1..bounds.len() - 1]
                .iter()
                .filter(|&&b| i >= b)
                .count(),
            Kind::Map { owner, .. } => usize::from(owner[i as usize]),
        }
    }

    /// Index `i`'s position on its owner (`i < len`).
    pub fn local(&self, i: u64) -> u64 {
        match &self.kind {
            Kind::Ranges { bounds } => i - bounds[self.owner(i)],
            Kind::Map { local, .. } => u64::from(local[i as usize]),
        }
    }

    /// Indices device `d` holds.
    pub fn count(&self, d: usize) -> u64 {
        match &self.kind {
            Kind::Ranges { bounds } => bounds[d + 1] - bounds[d],
            Kind::Map { counts, .. } => counts[d],
        }
    }

    /// Ranges: the bounds (device d holds `[b[d], b[d + 1])`).
    pub fn bounds(&self) -> Option<&[u64]> {
        match &self.kind {
            Kind::Ranges { bounds } => Some(bounds),
            Kind::Map { .. } => None,
        }
    }

    /// Device `d`'s share `[lo, hi)` of an idle sweep over `[0, range)` (`MeshQueues::
    /// grab_window` in mesh.cuh): its range when the sweep is over exactly the placed indices
    /// of a range placement, else an even split. The shares tile `[0, range)`.
    pub fn sweep_share(&self, range: u64, d: usize) -> (u64, u64) {
        match &self.kind {
            Kind::Ranges { bounds } if range == self.len() => (bounds[d], bounds[d + 1]),
            _ => {
                let n = self.devices() as u64;
                (range * d as u64 / n, range * (d as u64 + 1) / n)
            }
        }
    }

    /// Owner map: each index's device and position.
    pub fn owner_map(&self) -> Option<(&[u8], &[u32])> {
        match &self.kind {
            Kind::Ranges { .. } => None,
            Kind::Map { owner, local, .. } => Some((owner, local)),
        }
    }

    /// `(owner, position)` of every index: the order in which device `d`'s part of a spread
    /// array holds its elements is the indices with owner `d` by position.
    pub fn split<T: Copy>(&self, values: &[T]) -> Vec<Vec<T>> {
        let mut parts: Vec<Vec<T>> = (0..self.devices())
            .map(|d| Vec::with_capacity(self.count(d) as usize))
            .collect();
        for (i, v) in values.iter().enumerate() {
            // Positions follow index order on every device, so pushing in index order places
            // each element at its position.
            parts[self.owner(i as u64)].push(*v);
        }
        parts
    }

    /// The inverse of [`split`](Self::split).
    pub fn gather<T: Copy + Default>(&self, parts: &[Vec<T>]) -> Vec<T> {
        let mut out = vec![T::default(); self.len() as usize];
        for (i, v) in out.iter_mut().enumerate() {
            let o = self.owner(i as u64);
            *v = parts[o][self.local(i as u64) as usize];
        }
        out
    }

    /// One line for stats and logs: `ranges [0, 5, 10)` or `owner map (5, 5)`.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Ranges { bounds } => format!("ranges {bounds:?}"),
            Kind::Map { counts, .. } => format!("owner map {counts:?}"),
        }
    }
}

/// Splits seeds by owner: each goes to its owner's local ring (both executors).
pub(crate) fn seeds_by_owner(
    seeds: &[ItemBits],
    placement: &Placement,
    first: Scalar,
) -> Vec<Vec<ItemBits>> {
    let mut out = vec![Vec::new(); placement.devices()];
    for &s in seeds {
        out[placement.owner(route_key(s, first))].push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_keys_read_the_first_part() {
        assert_eq!(route_key(7, Scalar::U32), 7);
        assert_eq!(route_key(0xffff_ffff_0000_0009, Scalar::U32), 9);
        assert_eq!(route_key((-3i32) as u64 as ItemBits, Scalar::I32), u64::MAX);
        assert_eq!(route_key(u64::MAX as ItemBits, Scalar::U64), u64::MAX);
    }

    #[test]
    fn even_ranges_cover_every_index_once() {
        let p = Placement::even(10, 3).unwrap();
        assert_eq!(p.bounds().unwrap(), &[0, 4, 7, 10]);
        let owners: Vec<usize> = (0..10).map(|i| p.owner(i)).collect();
        assert_eq!(owners, [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert_eq!(p.local(5), 1);
        assert_eq!(p.owner(10), 0, "past the range: device 0");
    }

    /// Idle sweep shares tile `[0, range)`: a range placement's own ranges when the sweep is
    /// over exactly its indices (an empty part gets an empty share), else an even split.
    #[test]
    fn sweep_shares_tile_the_range() {
        let ranges = Placement::ranges(vec![0, 5, 5, 9]).unwrap();
        let map = Placement::from_owners(vec![1, 0, 1, 1, 0], 3).unwrap();
        let shares = |p: &Placement, range| -> Vec<(u64, u64)> {
            (0..p.devices()).map(|d| p.sweep_share(range, d)).collect()
        };
        assert_eq!(shares(&ranges, 9), [(0, 5), (5, 5), (5, 9)]);
        assert_eq!(shares(&ranges, 10), [(0, 3), (3, 6), (6, 10)]);
        assert_eq!(shares(&map, 5), [(0, 1), (1, 3), (3, 5)]);
        for (p, range) in [
            (&ranges, 9),
            (&ranges, 4),
            (&map, 5),
            (&map, 0),
            (&map, 1000),
        ] {
            let s = shares(p, range);
            assert_eq!(s[0].0, 0);
            assert_eq!(s.last().unwrap().1, range);
            assert!(s.windows(2).all(|w| w[0].1 == w[1].0 && w[0].0 <= w[0].1));
        }
    }

    #[test]
    fn empty_parts_are_skipped() {
        let p = Placement::ranges(vec![0, 5, 5, 9]).unwrap();
        assert_eq!(p.owner(4), 0);
        assert_eq!(p.owner(5), 2);
        assert_eq!(p.count(1), 0);
        assert_eq!(p.local(6), 1);
    }

    #[test]
    fn owner_maps_split_and_gather() {
        let p = Placement::from_owners(vec![1, 0, 1, 1, 0], 3).unwrap();
        let parts = p.split(&[10, 11, 12, 13, 14]);
        assert_eq!(parts, vec![vec![11, 14], vec![10, 12, 13], vec![]]);
        assert_eq!(p.gather(&parts), vec![10, 11, 12, 13, 14]);
        assert_eq!(p.local(3), 2);
        let r = Placement::even(7, 2).unwrap();
        assert_eq!(
            r.gather(&r.split(&[1, 2, 3, 4, 5, 6, 7])),
            [1, 2, 3, 4, 5, 6, 7]
        );
    }

    #[test]
    fn bad_placements_say_why() {
        assert_eq!(
            Placement::ranges(vec![0]).unwrap_err(),
            PlacementError::Devices(0)
        );
        assert!(matches!(
            Placement::ranges(vec![1, 4]),
            Err(PlacementError::Bounds(_))
        ));
        assert!(matches!(
            Placement::ranges(vec![0, 4, 3]),
            Err(PlacementError::Bounds(_))
        ));
        assert!(matches!(
            Placement::from_owners(vec![0, 2], 2),
            Err(PlacementError::Owner { index: 1, .. })
        ));
        assert_eq!(
            Placement::even(4, 9).unwrap_err(),
            PlacementError::Devices(9)
        );
    }
}
