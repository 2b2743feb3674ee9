//! The CPU executor's twin of a program spread over several devices (`mesh.cuh`): per simulated
//! device a local ring and a receive ring of every queue, pushes routed to the device that owns
//! the item, and termination summed over every ring of every device. Memory is one on the CPU,
//! so `Atomics` placement changes nothing here; routing and the rings are those of the GPU.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::Ordering::{AcqRel, Acquire};

use atos_codegen::Scalar;

use super::queue::{CpuQueue, Line};
use crate::elem::ItemBits;
use crate::placement::{Placement, route_key};

thread_local! {
    /// The simulated device whose rings the current thread serves (its pushes are local there).
    static DEVICE: Cell<usize> = const { Cell::new(0) };
}

/// Makes the current thread run as device `d` (its tasks' pushes route from there).
pub(crate) fn set_device(d: usize) {
    DEVICE.with(|c| c.set(d));
}

/// One queue field of a spread run: its rings on every simulated device.
pub struct CpuRoute {
    /// Per device: the ring its own pushes go to.
    pub local: Vec<CpuQueue>,
    /// Per device: the ring peers push its items to.
    pub recv: Vec<CpuQueue>,
    placement: Arc<Placement>,
    first: Scalar,
    /// Per device: items its tasks pushed to a peer.
    sent: Vec<Line>,
}

impl CpuRoute {
    pub(crate) fn new(
        local: Vec<CpuQueue>,
        recv: Vec<CpuQueue>,
        placement: Arc<Placement>,
        first: Scalar,
    ) -> CpuRoute {
        let sent = (0..local.len()).map(|_| Line::default()).collect();
        CpuRoute {
            local,
            recv,
            placement,
            first,
            sent,
        }
    }

    /// A task body's push: to this device's local ring if it owns the item, else to the
    /// owner's receive ring.
    pub fn push(&self, item: ItemBits) {
        let me = DEVICE.with(Cell::get);
        let owner = self.placement.owner(route_key(item, self.first));
        if owner == me {
            self.local[owner].push(item);
        } else {
            self.recv[owner].push(item);
            self.sent[me].0.fetch_add(1, AcqRel);
        }
    }

    /// Items device `d`'s tasks pushed to peers.
    pub fn sent(&self, d: usize) -> u64 {
        self.sent[d].0.load(Acquire)
    }
}

/// Splits seeds by owner: each goes to its owner's local ring (as the GPU host does).
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

/// The simulated devices thread `t` of `threads` serves: one each when there are at least as
/// many threads as devices (several threads per device), else every `threads`-th device.
pub(crate) fn devices_of(t: usize, threads: usize, devices: usize) -> Vec<usize> {
    if threads >= devices {
        vec![t % devices]
    } else {
        (t..devices).step_by(threads).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_has_a_thread() {
        for threads in 1..6 {
            for devices in 1..6 {
                let mut served = vec![0; devices];
                for t in 0..threads {
                    for d in devices_of(t, threads, devices) {
                        served[d] += 1;
                    }
                }
                assert!(served.iter().all(|&s| s > 0), "{threads} {devices}");
            }
        }
    }
}
