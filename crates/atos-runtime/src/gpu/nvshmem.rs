//! One process per GPU over NVSHMEM: a process learns its place in the run (its rank, the
//! number of ranks, where rank 0 leaves the unique id) from the variables the launcher sets
//! ([`RankEnv`]), joins the run ([`World::join`]), and from then on a spread program's state
//! lives in NVSHMEM's symmetric heap: every rank allocates each buffer at once (a collective),
//! fills its own, and reaches its peers' through the mappings NVSHMEM makes (`nvshmem_ptr`), or,
//! where a rank is not mapped (several nodes), by NVSHMEM calls (`atos/remote.cuh`,
//! `World::fetch`).
//!
//! Bootstrap by unique id: rank 0 makes the id (`nvshmemx_get_uniqueid`, which opens its
//! listening socket) and writes it to the rendezvous file (written aside, then renamed, so a
//! reader never sees half of it); the other ranks wait for the file, then every rank calls
//! `nvshmemx_hostlib_init_attr`, which returns once all have joined. Rank 0 refuses a
//! rendezvous path that already exists (a stale id from an earlier run would send the others
//! to a socket nobody listens on).
//!
//! Nothing here waits forever: the wait for the id, the init and every barrier run under a
//! watchdog. NVSHMEM's calls block in C with no way to interrupt them, so a watchdog that
//! fires ends the process with an error naming what did not finish; the launcher then ends
//! the other ranks.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use cudarc::driver::{result, sys};
/// Where NVSHMEM was found (host library, device library, headers).
pub use nvshmem_sys::Install;
use nvshmem_sys::{DeviceLinker, Host, UniqueId};

use super::device_state::copy_out_and_wait;
use super::{Gpu, GpuError, Gpus, driver_err, nvrtc};

/// The variables a launcher sets for each rank (see [`RankEnv::from_env`]).
pub const RANK_VAR: &str = "ATOS_RANK";
pub const RANKS_VAR: &str = "ATOS_RANKS";
pub const RENDEZVOUS_VAR: &str = "ATOS_RENDEZVOUS";
pub const DEVICE_VAR: &str = "ATOS_DEVICE";
pub const TIMEOUT_VAR: &str = "ATOS_BOOTSTRAP_TIMEOUT";
pub const RUN_TIMEOUT_VAR: &str = "ATOS_RUN_TIMEOUT";
/// Set by `atos run --share-gpus` when the ranks outnumber the node's GPUs: that GPU count.
/// Ranks sharing a GPU time-slice it, so reports say so beside every time.
pub const SHARED_GPUS_VAR: &str = "ATOS_SHARED_GPUS";
/// `1`: spread kernels reach other ranks' memory by NVSHMEM calls (`atos/remote.cuh`), not
/// through NVSHMEM's peer mappings, even where the mappings exist (on one node: for testing);
/// the host reads other ranks' counters and results by a fetch kernel (`World::fetch`). `0`:
/// mappings only.
pub const REMOTE_CALLS_VAR: &str = "ATOS_NVSHMEM_CALLS";
// (Unset: calls exactly when NVSHMEM cannot map some rank's memory here, as on several nodes;
// `World::join` probes with one symmetric allocation.)

/// Seconds a rank waits for the unique id, the init and each barrier, unless
/// `ATOS_BOOTSTRAP_TIMEOUT` says otherwise.
pub const DEFAULT_TIMEOUT_S: f64 = 120.0;

/// Seconds a rank waits for its kernels when the program sets no timeout of its own
/// (`ProgramBuilder::timeout`), unless `ATOS_RUN_TIMEOUT` says otherwise. A spread run cannot
/// end while a rank is gone (its counters never settle), and ranks started by hand, without
/// `atos run` to end the others, would otherwise wait for it forever.
pub const DEFAULT_RUN_TIMEOUT_S: f64 = 600.0;

/// This process's place in a one-process-per-GPU run.
#[derive(Clone, Debug, PartialEq)]
pub struct RankEnv {
    pub rank: u32,
    pub ranks: u32,
    /// The file rank 0 writes the unique id to (on a file system every rank sees).
    pub rendezvous: PathBuf,
    /// The GPU this rank drives (`ATOS_DEVICE`; by default its rank modulo the GPUs here).
    pub device: Option<usize>,
    /// How long bootstrap steps and barriers may take.
    pub timeout: Duration,
    /// How long a spread run's kernels may take when the program sets no timeout.
    pub run_timeout: Duration,
    /// The GPUs the ranks share, when they outnumber them (`ATOS_SHARED_GPUS`).
    pub shared_gpus: Option<usize>,
}

impl RankEnv {
    /// Reads `ATOS_RANK`, `ATOS_RANKS`, `ATOS_RENDEZVOUS` (and optionally `ATOS_DEVICE`,
    /// `ATOS_BOOTSTRAP_TIMEOUT`). `Ok(None)` when `ATOS_RANK` is unset: not a rank.
    pub fn from_env() -> Result<Option<RankEnv>, GpuError> {
        RankEnv::from_vars(|k| std::env::var(k).ok())
    }

    /// As [`RankEnv::from_env`], from any lookup.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Option<RankEnv>, GpuError> {
        let Some(rank) = get(RANK_VAR) else {
            return Ok(None);
        };
        let bad = |var: &str, v: &str, want: &str| {
            GpuError::Mesh(format!(
                "{var}={v:?} is not {want}; the launcher (`atos run --np N`) sets it"
            ))
        };
        let rank: u32 = rank
            .parse()
            .map_err(|_| bad(RANK_VAR, &rank, "a rank number"))?;
        let ranks_s = get(RANKS_VAR)
            .ok_or_else(|| GpuError::Mesh(format!("{RANK_VAR} is set but {RANKS_VAR} is not")))?;
        let ranks: u32 = ranks_s
            .parse()
            .map_err(|_| bad(RANKS_VAR, &ranks_s, "a number of ranks"))?;
        let max = atos_codegen::layout::mesh::MAX_DEVICES as u32;
        if ranks == 0 || ranks > max || rank >= ranks {
            return Err(GpuError::Mesh(format!(
                "rank {rank} of {ranks}: a run has 1 to {max} ranks, numbered from 0"
            )));
        }
        let rendezvous = get(RENDEZVOUS_VAR).map(PathBuf::from).ok_or_else(|| {
            GpuError::Mesh(format!(
                "{RANK_VAR} is set but {RENDEZVOUS_VAR} is not: it names the file rank 0 writes the unique id to"
            ))
        })?;
        let device = match get(DEVICE_VAR) {
            Some(d) => Some(
                d.parse()
                    .map_err(|_| bad(DEVICE_VAR, &d, "a GPU ordinal"))?,
            ),
            None => None,
        };
        let seconds = |var: &str, default: f64| match get(var) {
            Some(t) => t
                .parse::<f64>()
                .ok()
                .and_then(crate::seconds::positive_seconds)
                .ok_or_else(|| {
                    let what = format!(
                        "a positive number of seconds (at most {:e})",
                        crate::seconds::MAX_SECONDS
                    );
                    bad(var, &t, &what)
                }),
            None => Ok(Duration::from_secs_f64(default)),
        };
        let shared_gpus = match get(SHARED_GPUS_VAR) {
            Some(g) => Some(
                g.parse::<usize>()
                    .ok()
                    .filter(|&g| g > 0)
                    .ok_or_else(|| bad(SHARED_GPUS_VAR, &g, "a number of GPUs"))?,
            ),
            None => None,
        };
        Ok(Some(RankEnv {
            rank,
            ranks,
            rendezvous,
            device,
            shared_gpus,
            timeout: seconds(TIMEOUT_VAR, DEFAULT_TIMEOUT_S)?,
            run_timeout: seconds(RUN_TIMEOUT_VAR, DEFAULT_RUN_TIMEOUT_S)?,
        }))
    }
}

/// `ATOS_NVSHMEM_CALLS`: `0`, mappings; `1`, calls; unset (`None`): calls exactly when some
/// rank's memory cannot be mapped here.
fn remote_calls_asked() -> Result<Option<bool>, GpuError> {
    match std::env::var(REMOTE_CALLS_VAR).as_deref() {
        Err(_) => Ok(None),
        Ok("0") => Ok(Some(false)),
        Ok("1") => Ok(Some(true)),
        Ok(v) => Err(GpuError::Mesh(format!(
            "{REMOTE_CALLS_VAR}={v:?} is not 0 or 1 (1: spread kernels reach other ranks by NVSHMEM calls)"
        ))),
    }
}

/// Whether NVSHMEM maps every rank's symmetric memory into this process (ranks of one node):
/// one small symmetric allocation (a collective: every rank probes at join), asked for each
/// rank's mapping, then freed.
fn every_rank_mapped(
    host: &Host,
    rank: u32,
    ranks: u32,
    timeout: Duration,
) -> Result<bool, GpuError> {
    // SAFETY: every rank makes this allocation at the same point of `World::join`.
    let p = within(rank, "probing NVSHMEM's mappings", timeout, || unsafe {
        host.malloc(8)
    })
    .map_err(|e| GpuError::Mesh(format!("a symmetric allocation of 8 bytes failed ({e})")))?;
    // SAFETY: `p` is symmetric and NVSHMEM is initialized.
    let mapped = (0..ranks).all(|pe| unsafe { host.ptr(p, pe) }.is_some());
    // SAFETY: `p` came from the allocation above; no kernel uses it.
    within(rank, "probing NVSHMEM's mappings", timeout, || unsafe {
        host.free(p)
    });
    Ok(mapped)
}

/// Whether any rank `wants` calls: each rank writes its answer to a file beside the rendezvous
/// file (the ranks share its file system), a barrier, then each reads every rank's. The files
/// are this run's: each is written before the barrier and read after it.
fn any_rank_wants(host: &Host, env: &RankEnv, wants: bool) -> Result<bool, GpuError> {
    let file = |r: u32| env.rendezvous.with_extension(format!("calls.{r}"));
    let mine = file(env.rank);
    std::fs::write(&mine, if wants { "1" } else { "0" })
        .map_err(|e| GpuError::Mesh(format!("writing {}: {e}", mine.display())))?;
    // SAFETY: every rank reaches this barrier at the same point of `World::join`.
    within(
        env.rank,
        "agreeing on NVSHMEM calls",
        env.timeout,
        || unsafe { host.barrier_all() },
    );
    let mut any = false;
    for r in 0..env.ranks {
        let f = file(r);
        let text = std::fs::read_to_string(&f)
            .map_err(|e| GpuError::Mesh(format!("reading {}: {e}", f.display())))?;
        any |= text.trim() == "1";
    }
    // Every rank has read every file before the next collective; rank 0 leaves them to the
    // launcher's fresh folder (or the caller's rendezvous path).
    Ok(any)
}

/// Writes rank 0's unique id to `path`: aside first, then renamed into place. Refuses a path
/// that exists.
pub fn publish_id(path: &Path, id: &[u8; 128]) -> Result<(), GpuError> {
    if path.exists() {
        return Err(GpuError::Mesh(format!(
            "the rendezvous file {} already exists (left by an earlier run?): remove it or name a fresh path, or the other ranks could read a stale id",
            path.display()
        )));
    }
    let aside = path.with_extension(format!("partial.{}", std::process::id()));
    let io = |e: std::io::Error| {
        GpuError::Mesh(format!(
            "cannot write the rendezvous file {}: {e}",
            path.display()
        ))
    };
    std::fs::write(&aside, id).map_err(io)?;
    std::fs::rename(&aside, path).map_err(io)
}

/// Waits up to `timeout` for rank 0's unique id at `path`.
pub fn await_id(path: &Path, rank: u32, timeout: Duration) -> Result<[u8; 128], GpuError> {
    let t0 = Instant::now();
    loop {
        if let Ok(bytes) = std::fs::read(path)
            && let Ok(id) = <[u8; 128]>::try_from(bytes.as_slice())
        {
            return Ok(id);
        }
        if t0.elapsed() > timeout {
            return Err(GpuError::Mesh(format!(
                "rank {rank} waited {:.0} s for rank 0's unique id at {}: is rank 0 running, and is the path on a file system both see?",
                timeout.as_secs_f64(),
                path.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `f`, ending the process with an error naming `what` when it takes longer than
/// `timeout` (for calls that block in C: a peer that died leaves them waiting forever).
pub fn within<T>(rank: u32, what: &str, timeout: Duration, f: impl FnOnce() -> T) -> T {
    let (done, wait) = mpsc::channel::<()>();
    let what_owned = what.to_string();
    let watchdog = std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
            end_rank(
                WATCHDOG_EXIT,
                &format!(
                    "rank {rank}: {what_owned} did not finish within {:.0} s (another rank died, or never started); ending this rank",
                    timeout.as_secs_f64()
                ),
            );
        }
    });
    let out = f();
    let _ = done.send(());
    let _ = watchdog.join();
    out
}

/// The exit status of a rank its watchdog ended.
pub const WATCHDOG_EXIT: i32 = 75;

/// Ends this rank at once with `status`, after printing `why`: `_exit`, not `exit`, since the
/// main thread may be blocked inside NVSHMEM and its exit handlers could block too. The
/// launcher then ends the other ranks.
pub fn end_rank(status: i32, why: &str) -> ! {
    eprintln!("error: {why}");
    // SAFETY: `_exit` ends the process without running any handler; stderr is unbuffered.
    unsafe { libc::_exit(status) }
}

/// What an error on one rank means under NVSHMEM: the other ranks wait in the next collective
/// (a barrier, a symmetric allocation or free), which this rank, leaving the spread state
/// behind, would call out of step. So the rank ends at once (status 1) and the launcher ends
/// the others; without a world the error is returned as usual.
pub(crate) fn fatal_on_rank<T, E: std::fmt::Display>(
    world: Option<&World>,
    what: &str,
    r: Result<T, E>,
) -> Result<T, E> {
    match (r, world) {
        (Err(e), Some(w)) => end_rank(1, &format!("rank {}: {what}: {e}", w.rank())),
        (r, _) => r,
    }
}

/// This process's membership of an NVSHMEM run (finalized when dropped).
pub struct World {
    host: Host,
    install: Install,
    rank: u32,
    ranks: u32,
    timeout: Duration,
    run_timeout: Duration,
    shared_gpus: Option<usize>,
    remote_calls: bool,
    /// [`FETCH_SOURCE`]'s kernel, loaded on first use (NVSHMEM calls only), with its context
    /// (bound to take its module out of NVSHMEM before finalizing).
    fetcher: std::sync::Mutex<
        Option<(
            cudarc::driver::CudaFunction,
            Arc<cudarc::driver::CudaContext>,
        )>,
    >,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("rank", &self.rank)
            .field("ranks", &self.ranks)
            .field("host", &self.host.path())
            .finish()
    }
}

impl World {
    /// Joins the run `env` describes on `gpu`: loads NVSHMEM's host library, exchanges the
    /// unique id through the rendezvous file, and initializes NVSHMEM on `gpu`'s context.
    /// NVLink multicast stays off: `NVSHMEM_DISABLE_NVLS` must be 1 (the launcher sets it).
    pub fn join(env: &RankEnv, gpu: &Gpu) -> Result<World, GpuError> {
        if std::env::var("NVSHMEM_DISABLE_NVLS").as_deref() != Ok("1") {
            return Err(GpuError::Mesh(
                "NVSHMEM_DISABLE_NVLS is not 1: atos keeps NVLink multicast off (it can put a host's shared GPUs out of service); start ranks with `atos run --np N`, which sets it, or set it yourself".into(),
            ));
        }
        // Read before the collectives start, so a bad value fails this rank before any other
        // waits for it.
        let asked = remote_calls_asked()?;
        let install = Install::locate()?;
        let host = Host::load(&install)?;
        let id = if env.rank == 0 {
            let id = host.unique_id()?;
            publish_id(&env.rendezvous, &id.to_bytes())?;
            id
        } else {
            UniqueId::from_bytes(&await_id(&env.rendezvous, env.rank, env.timeout)?)
        };
        gpu.ctx()
            .bind_to_thread()
            .map_err(driver_err("binding a context"))?;
        // SAFETY: this thread's current context is `gpu`'s; a process joins one run only (the
        // launcher starts each rank once, and `Gpus::join` is its only caller).
        within(
            env.rank,
            "joining the NVSHMEM run",
            env.timeout,
            || unsafe { host.init(env.rank, env.ranks, &id) },
        )?;
        let (rank, ranks) = (host.my_pe(), host.n_pes());
        if (rank, ranks) != (env.rank, env.ranks) {
            return Err(GpuError::Mesh(format!(
                "NVSHMEM placed this process as rank {rank} of {ranks}, not {} of {}",
                env.rank, env.ranks
            )));
        }
        // Every rank must build its units and make its allocations the same way, so the choice
        // is the run's: calls when any rank wants them (forced, or some rank unmapped there).
        // The probe is a collective: every rank makes it, whatever it asked for (a rank that
        // skipped it while another allocated crashed a run started by hand on an H100).
        let mapped = every_rank_mapped(&host, rank, ranks, env.timeout)?;
        let wants = asked.unwrap_or(!mapped);
        let remote_calls = any_rank_wants(&host, env, wants)?;
        Ok(World {
            host,
            install,
            rank,
            ranks,
            timeout: env.timeout,
            run_timeout: env.run_timeout,
            shared_gpus: env.shared_gpus,
            remote_calls,
            fetcher: std::sync::Mutex::new(None),
        })
    }

    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// How long a spread run's kernels may take when the program sets no timeout
    /// (`ATOS_RUN_TIMEOUT`, default [`DEFAULT_RUN_TIMEOUT_S`]).
    pub fn run_timeout(&self) -> Duration {
        self.run_timeout
    }

    /// Whether spread kernels reach other ranks by NVSHMEM calls ([`REMOTE_CALLS_VAR`]).
    pub fn remote_calls(&self) -> bool {
        self.remote_calls
    }

    /// The GPUs the ranks share, when they outnumber them (`atos run --share-gpus`).
    pub fn shared_gpus(&self) -> Option<usize> {
        self.shared_gpus
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    pub fn install(&self) -> &Install {
        &self.install
    }

    /// Waits for every rank (under the watchdog).
    pub fn barrier(&self, what: &str) {
        // SAFETY: NVSHMEM is initialized; every rank runs the same sequence of collectives
        // (spread states are uploaded, run and dropped in the same order on every rank).
        within(self.rank, what, self.timeout, || unsafe {
            self.host.barrier_all()
        })
    }

    /// Copies `bytes` bytes at `tagged` (another rank's symmetric memory, as a unit for NVSHMEM
    /// calls addresses it: `atos/remote.cuh`) into `out`, through `staging` (this rank's copy of
    /// a symmetric buffer of `staging_bytes`), in pieces: [`FETCH_SOURCE`]'s kernel gets each
    /// piece with `nvshmemx_getmem_block`, and the host copies it out. The host has no mapping
    /// of a rank on another node.
    pub(crate) fn fetch(
        &self,
        gpu: &Gpu,
        stream: &cudarc::driver::CudaStream,
        staging: (u64, usize),
        tagged: u64,
        out: &mut [u8],
    ) -> Result<(), GpuError> {
        let function = {
            let mut f = self.fetcher.lock().unwrap_or_else(|p| p.into_inner());
            if f.is_none() {
                let (function, _) = load_linked(self, gpu, FETCH_SOURCE, "atos_fetch")?;
                *f = Some((function, gpu.ctx().clone()));
            }
            f.as_ref().expect("loaded above").0.clone()
        };
        let (from, pe) = untag(tagged);
        let mut pe = pe as i32;
        let (mut dst, piece) = staging;
        assert!(piece > 0, "a staging buffer of at least one byte");
        for (k, chunk) in out.chunks_mut(piece.max(1)).enumerate() {
            let mut src = from + (k * piece) as u64;
            let mut n = chunk.len() as u64;
            let mut params = [
                (&mut dst) as *mut u64 as *mut c_void,
                (&mut src) as *mut u64 as *mut c_void,
                (&mut n) as *mut u64 as *mut c_void,
                (&mut pe) as *mut i32 as *mut c_void,
            ];
            // A rank gone (another node down) must not hang this one: the run's timeout.
            within(
                self.rank,
                "fetching another rank's memory",
                self.run_timeout,
                || {
                    // SAFETY: atos_fetch(void*, const void*, unsigned long long, int): `dst` holds
                    // `piece` >= n bytes of symmetric memory here, `src` + n lies in rank `pe`'s
                    // copy of a symmetric allocation (the caller's tagged address and length).
                    unsafe {
                        result::launch_kernel(
                            function.cu_function(),
                            (1, 1, 1),
                            (256, 1, 1),
                            0,
                            stream.cu_stream(),
                            &mut params,
                        )
                    }
                    .map_err(driver_err("fetching another rank's memory"))?;
                    // SAFETY: `dst` holds at least chunk.len() bytes.
                    unsafe {
                        copy_out_and_wait(chunk, dst, stream, "fetching another rank's memory")
                    }
                },
            )?;
        }
        Ok(())
    }

    /// A symmetric allocation of `bytes` (at least 8) on every rank, zeroed here; returns its
    /// address on every rank as this process sees it (index: rank): under NVSHMEM calls, another
    /// rank's is its symmetric address tagged with that rank, as the kernels take it
    /// (`atos/remote.cuh`), and needs no mapping.
    pub(crate) fn alloc(
        &self,
        bytes: usize,
        stream: &cudarc::driver::CudaStream,
    ) -> Result<(Symmetric, Vec<u64>), GpuError> {
        let bytes = bytes.max(8);
        // SAFETY: every rank makes the same allocations in the same order (see `barrier`).
        let p = within(self.rank, "a symmetric allocation", self.timeout, || unsafe {
            self.host.malloc(bytes)
        })
        .map_err(|e| {
            GpuError::Mesh(format!(
                "a symmetric allocation of {bytes} bytes failed ({e}): NVSHMEM's heap is full; set NVSHMEM_SYMMETRIC_SIZE (e.g. 16G) larger for every rank"
            ))
        })?;
        let sym = Symmetric(p as u64);
        if self.remote_calls && sym.0 + bytes as u64 > 1u64 << REMOTE_ADDRESS_BITS {
            return Err(GpuError::Mesh(format!(
                "symmetric memory at {:#x} (+{bytes} bytes) reaches past bit {REMOTE_ADDRESS_BITS}, where units for NVSHMEM calls keep an address's rank: run without {REMOTE_CALLS_VAR}",
                sym.0
            )));
        }
        // SAFETY: `p` is a live symmetric allocation of `bytes` on this device.
        unsafe { cudarc::driver::result::memset_d8_async(p as u64, 0, bytes, stream.cu_stream()) }
            .map_err(driver_err("zeroing symmetric memory"))?;
        if self.remote_calls {
            let at = (0..self.ranks)
                .map(|pe| {
                    if pe == self.rank {
                        sym.0
                    } else {
                        tag(sym.0, pe as usize)
                    }
                })
                .collect();
            return Ok((sym, at));
        }
        let peers = (0..self.ranks)
            .map(|pe| {
                // SAFETY: `p` is symmetric and NVSHMEM is initialized.
                unsafe { self.host.ptr(p, pe) }
                    .map(|q| q as u64)
                    .ok_or_else(|| {
                        GpuError::Mesh(format!(
                            "NVSHMEM cannot map rank {pe}'s memory into rank {}, and {REMOTE_CALLS_VAR}=0 asks for mappings (they exist between GPUs of one node): unset it, or set it to 1, so kernels reach other ranks by NVSHMEM calls",
                            self.rank
                        ))
                    })
            })
            .collect::<Result<Vec<u64>, _>>()?;
        Ok((sym, peers))
    }

    /// Frees a symmetric allocation (a collective, like `alloc`).
    pub(crate) fn free(&self, s: Symmetric) {
        // SAFETY: `s` came from `alloc` and no kernel uses it any more: every rank drops its
        // states in the same order, after their runs' closing barriers, and an error in a
        // spread upload or run ends the rank instead (`fatal_on_rank`).
        within(
            self.rank,
            "freeing symmetric memory",
            self.timeout,
            || unsafe { self.host.free(s.0 as *mut c_void) },
        )
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // The fetch kernel's module leaves NVSHMEM before NVSHMEM ends (as every program's
        // module does before it is unloaded: `finalize_module`).
        let fetcher = self
            .fetcher
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some((function, ctx)) = fetcher {
            match ctx.bind_to_thread() {
                Ok(()) => finalize_module(self, &function),
                Err(e) => eprintln!(
                    "rank {}: leaving NVSHMEM for the fetch kernel's module: binding its context: {e}",
                    self.rank
                ),
            }
        }
        // SAFETY: every state holding symmetric memory keeps the world alive (an Arc), so it
        // is gone by now.
        within(
            self.rank,
            "leaving the NVSHMEM run",
            self.timeout,
            || unsafe { self.host.finalize() },
        )
    }
}

/// A symmetric allocation: this rank's address of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Symmetric(pub u64);

/// The environment every rank of a launch gets besides [`RankEnv`]'s variables: NVLink
/// multicast off (always), no remote (InfiniBand) transport unless the user chose one (one
/// node), and NVSHMEM's libraries on the loader path (it opens its bootstrap plugin by name).
pub fn launch_env(rendezvous: &Path, ranks: u32, timeout: Duration) -> Vec<(String, String)> {
    let mut env = vec![
        ("NVSHMEM_DISABLE_NVLS".to_string(), "1".to_string()),
        (RANKS_VAR.into(), ranks.to_string()),
        (RENDEZVOUS_VAR.into(), rendezvous.display().to_string()),
        (TIMEOUT_VAR.into(), timeout.as_secs_f64().to_string()),
    ];
    if std::env::var_os("NVSHMEM_REMOTE_TRANSPORT").is_none() {
        env.push(("NVSHMEM_REMOTE_TRANSPORT".into(), "none".into()));
    }
    if let Some(dir) = Install::locate()
        .ok()
        .and_then(|i| i.host_lib.parent().map(Path::to_path_buf))
    {
        let old = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
        let joined = if old.is_empty() {
            dir.display().to_string()
        } else {
            format!("{}:{old}", dir.display())
        };
        env.push(("LD_LIBRARY_PATH".into(), joined));
    }
    env
}

/// A spread unit's source for NVSHMEM calls: `ATOS_REMOTE_CALLS 1` before it.
pub fn remote_calls_source(source: &str) -> String {
    format!(
        "#define ATOS_REMOTE_CALLS 1  // other ranks' memory by NVSHMEM calls (atos/remote.cuh)\n#define ATOS_REMOTE_ADDRESS_BITS {REMOTE_ADDRESS_BITS}  // where a tagged address keeps its rank (gpu/nvshmem.rs)\n{source}"
    )
}

/// The CUBIN of a spread unit for NVSHMEM calls on `arch`: [`remote_calls_source`] to LTO IR
/// by NVRTC with NVSHMEM's headers, device-linked with its device library by nvJitLink. Needs
/// no GPU (CI links the BFS, PageRank and owner-computes BFS spread units this way).
pub fn remote_calls_cubin(
    install: &Install,
    source: &str,
    arch: (i32, i32),
) -> Result<Vec<u8>, GpuError> {
    device_link(install, &remote_calls_source(source), arch)
}

/// `source` to LTO IR by NVRTC with NVSHMEM's headers, device-linked with its device library by
/// nvJitLink, for `arch`.
pub fn device_link(install: &Install, source: &str, arch: (i32, i32)) -> Result<Vec<u8>, GpuError> {
    let (ltoir, _) = nvrtc::compile_ltoir(source, arch, &install.nvrtc_options())?;
    Ok(DeviceLinker::load()?.link(
        install,
        &ltoir,
        (arch.0 * 10 + arch.1) as u32,
        &nvrtc::link_options(),
    )?)
}

/// [`device_link`] through the kernel cache (`ATOS_CACHE_DIR`, as NVRTC's CUBINs): the device
/// link of a spread unit for NVSHMEM calls takes tens of seconds (`docs/runtime.md`, "NVSHMEM's
/// calls are called, not inlined"). The key adds NVSHMEM's options, nvJitLink's
/// ([`nvrtc::link_options`]) and version, and the device library (path and size) to what an
/// NVRTC CUBIN's key holds.
fn cached_device_link(
    install: &Install,
    source: &str,
    arch: (i32, i32),
) -> Result<(Vec<u8>, nvrtc::CacheHit), GpuError> {
    use super::kernel_cache;
    let Some(dir) = kernel_cache::cache_dir() else {
        return Ok((
            device_link(install, source, arch)?,
            nvrtc::CacheHit::Compiled,
        ));
    };
    let mut options = nvrtc::options(arch);
    options.extend(install.nvrtc_options());
    options.extend(
        nvrtc::link_options()
            .into_iter()
            .map(|o| format!("link {o}")),
    );
    let (major, minor) = DeviceLinker::load()?.version()?;
    options.push(format!("nvJitLink {major}.{minor}"));
    let lib_bytes = std::fs::metadata(&install.device_lib).map_or(0, |m| m.len());
    options.push(format!(
        "device-linked with {} ({lib_bytes} bytes)",
        install.device_lib.display()
    ));
    let key = kernel_cache::key(
        source,
        crate::headers::device_headers(),
        &options,
        arch,
        nvrtc::nvrtc_version()?,
    );
    if let Some(entry) = kernel_cache::load(&dir, &key) {
        return Ok((entry.cubin, nvrtc::CacheHit::Disk));
    }
    let cubin = device_link(install, source, arch)?;
    let entry = kernel_cache::Entry {
        cubin,
        log: String::new(),
    };
    // A cache that cannot be written only costs the next run a link.
    let _ = kernel_cache::store(&dir, &key, &entry);
    Ok((entry.cubin, nvrtc::CacheHit::Compiled))
}

/// Takes `function`'s module out of NVSHMEM (`nvshmemx_cumodule_finalize`) before it is
/// unloaded. NVSHMEM keeps every module that went through `nvshmemx_cumodule_init` and writes
/// its device state into them; a module unloaded without this left the next program's module
/// with a null table of peer heap bases, and its kernel faulted on its first call to another
/// rank (`CUDA_ERROR_ILLEGAL_ADDRESS`; compute-sanitizer on an H100: an 8-byte read at 0x8,
/// the table's entry for rank 1). A failure here is reported, not raised: the program is
/// being dropped.
pub(crate) fn finalize_module(world: &World, function: &cudarc::driver::CudaFunction) {
    let mut raw: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: a live function (its module is kept alive by it).
    let found = unsafe { sys::cuFuncGetModule(&mut raw, function.cu_function()) }.result();
    // SAFETY: the module went through cumodule_init when loaded (`load_remote_calls`), its
    // context is current (the caller binds it) and none of its kernels runs (launches wait).
    let done = found.map_err(|e| e.to_string()).and_then(|_| {
        unsafe { world.host.cumodule_finalize(raw as *mut c_void) }.map_err(|e| e.to_string())
    });
    if let Err(e) = done {
        eprintln!(
            "rank {}: leaving NVSHMEM for a program's module: {e}",
            world.rank
        );
    }
}

/// Compiles `source` (a spread unit) for NVSHMEM calls: `ATOS_REMOTE_CALLS 1` before it, NVRTC
/// to LTO IR with NVSHMEM's headers, nvJitLink with its device library, loaded on `gpu` with
/// `nvshmemx_cumodule_init`. Returns the kernel `kernel`, and where its CUBIN came from: the
/// linked CUBIN is cached with the kernels ([`cached_device_link`]).
pub(crate) fn load_remote_calls(
    world: &World,
    gpu: &Gpu,
    source: &str,
    kernel: &str,
) -> Result<(cudarc::driver::CudaFunction, nvrtc::CacheHit), GpuError> {
    load_linked(world, gpu, &remote_calls_source(source), kernel)
}

/// Device-links `source` (cached), loads it on `gpu` and sets up NVSHMEM in its module; returns
/// its kernel `kernel`, and whether the CUBIN came from the cache (`Disk`) or a link
/// (`Compiled`). The module must leave NVSHMEM before it is unloaded ([`finalize_module`]).
fn load_linked(
    world: &World,
    gpu: &Gpu,
    source: &str,
    kernel: &str,
) -> Result<(cudarc::driver::CudaFunction, nvrtc::CacheHit), GpuError> {
    let (cubin, origin) = cached_device_link(&world.install, source, gpu.arch())?;
    gpu.ctx()
        .bind_to_thread()
        .map_err(driver_err("binding a context"))?;
    let module = gpu
        .ctx()
        .load_module(cudarc::nvrtc::Ptx::from_binary(cubin))
        .map_err(driver_err("loading the device-linked module"))?;
    let function = module
        .load_function(kernel)
        .map_err(driver_err("finding the kernel"))?;
    let mut raw: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: a live function of a module loaded just above (kept alive by `function`).
    unsafe { sys::cuFuncGetModule(&mut raw, function.cu_function()) }
        .result()
        .map_err(driver_err("finding the kernel's module"))?;
    // SAFETY: a live module of the current context; NVSHMEM is initialized.
    unsafe { world.host.cumodule_init(raw as *mut c_void) }?;
    Ok((function, origin))
}

/// Where units for NVSHMEM calls keep an address's rank (+ 1): bits 56-63. The one definition:
/// `atos/remote.cuh` gets it as `ATOS_REMOTE_ADDRESS_BITS` ([`remote_calls_source`]).
pub(crate) const REMOTE_ADDRESS_BITS: u32 = 56;

/// Whether `addr` is a tagged address (another rank's, or under NVSHMEM calls any symmetric one).
pub(crate) fn is_tagged(addr: u64) -> bool {
    addr >> REMOTE_ADDRESS_BITS != 0
}

/// Symmetric address `addr` on rank `pe`, tagged as units for NVSHMEM calls take it (the one
/// encoding: `atos/remote.cuh` reads it with the same bit count, passed in by
/// [`remote_calls_source`]).
pub(crate) fn tag(addr: u64, pe: usize) -> u64 {
    addr | ((pe as u64 + 1) << REMOTE_ADDRESS_BITS)
}

/// A tagged address's symmetric address and rank.
pub(crate) fn untag(tagged: u64) -> (u64, u32) {
    (
        tagged & ((1u64 << REMOTE_ADDRESS_BITS) - 1),
        ((tagged >> REMOTE_ADDRESS_BITS) - 1) as u32,
    )
}

/// The kernel `World::fetch` copies another rank's memory with: one block gets `bytes` bytes
/// from rank `pe`'s `src` into this rank's symmetric `dst`. CI device-links it.
pub const FETCH_SOURCE: &str = r#"#include <atos/prelude.cuh>
#include <non_abi/nvshmem_build_options.h>
#include <device/nvshmem_defines.h>
#include <device/nvshmemx_defines.h>

extern "C" __global__ void atos_fetch(void* dst, const void* src, unsigned long long bytes, int pe) {
    nvshmemx_getmem_block(dst, src, (size_t)bytes, pe);
}
"#;

/// A kernel on NVSHMEM's device API, with atos's headers: each thread of rank r puts a word
/// into rank r+1's symmetric array and adds one to its first word (a remote atomic). The CI
/// test compiles and device-links it without a GPU; [`self_check`] runs it.
pub const CHECK_SOURCE: &str = r#"#include <atos/prelude.cuh>
#include <non_abi/nvshmem_build_options.h>
#include <device/nvshmem_defines.h>
#include <device/nvshmemx_defines.h>

extern "C" __global__ void ring_put(unsigned int* sym, unsigned int v) {
    const int next = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    if (threadIdx.x > 0) nvshmem_uint32_p(sym + threadIdx.x, atos::max(v, 1u) * 100u + threadIdx.x, next);
    nvshmem_uint32_atomic_add(sym, 1u, next);
    nvshmem_quiet();
}
"#;

/// Threads of [`CHECK_SOURCE`]'s launch.
const CHECK_THREADS: u32 = 32;

/// Checks this rank's part of an NVSHMEM run end to end: compiles [`CHECK_SOURCE`] with NVRTC,
/// device-links it with NVSHMEM's device library, loads it and runs `nvshmemx_cumodule_init`,
/// launches it on a symmetric array, and checks what the previous rank wrote here. Returns a
/// line saying what was checked.
pub fn self_check(gpus: &Gpus) -> Result<String, GpuError> {
    let world = gpus.world().ok_or_else(|| {
        GpuError::Mesh("not a rank of an NVSHMEM run: start it with `atos run --np N`".into())
    })?;
    let gpu = gpus.gpu(0);
    gpu.ctx()
        .bind_to_thread()
        .map_err(driver_err("binding a context"))?;
    let (major, minor) = gpu.arch();
    let (ltoir, _) =
        nvrtc::compile_ltoir(CHECK_SOURCE, gpu.arch(), &world.install.nvrtc_options())?;
    let cubin = DeviceLinker::load()?.link(
        &world.install,
        &ltoir,
        (major * 10 + minor) as u32,
        &nvrtc::link_options(),
    )?;
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `cubin` is a complete ELF image for this GPU; the module lives to process exit
    // (NVSHMEM keeps its device state in it).
    unsafe { sys::cuModuleLoadData(&mut module, cubin.as_ptr() as *const c_void) }
        .result()
        .map_err(driver_err("loading the device-linked module"))?;
    // SAFETY: a live module of the current context; NVSHMEM is initialized.
    unsafe { world.host.cumodule_init(module as *mut c_void) }?;
    let mut function: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: a live module and a NUL-terminated name.
    unsafe { sys::cuModuleGetFunction(&mut function, module, c"ring_put".as_ptr()) }
        .result()
        .map_err(driver_err("finding ring_put"))?;
    let stream = gpu
        .ctx()
        .new_stream()
        .map_err(driver_err("creating a stream"))?;
    let (sym, _) = world.alloc(CHECK_THREADS as usize * 4, &stream)?;
    stream
        .synchronize()
        .map_err(driver_err("zeroing symmetric memory"))?;
    world.barrier("the barrier before the check kernel");
    let t0 = Instant::now();
    let mut at = sym.0;
    let mut v = world.rank + 1;
    let mut params = [
        (&mut at) as *mut u64 as *mut c_void,
        (&mut v) as *mut u32 as *mut c_void,
    ];
    // SAFETY: ring_put(unsigned int*, unsigned int) with a symmetric array of CHECK_THREADS
    // words on every rank.
    unsafe {
        result::launch_kernel(
            function,
            (1, 1, 1),
            (CHECK_THREADS, 1, 1),
            0,
            stream.cu_stream(),
            &mut params,
        )
    }
    .map_err(driver_err("launching ring_put"))?;
    stream
        .synchronize()
        .map_err(driver_err("running ring_put"))?;
    world.barrier("the barrier after the check kernel");
    let took = t0.elapsed();
    let mut raw = vec![0u8; CHECK_THREADS as usize * 4];
    // SAFETY: this rank's copy holds CHECK_THREADS words.
    unsafe { copy_out_and_wait(&mut raw, sym.0, &stream, "reading the check array") }?;
    let words: Vec<u32> = raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let prev = (world.rank + world.ranks - 1) % world.ranks;
    let expect: Vec<u32> = (0..CHECK_THREADS)
        .map(|t| {
            if t == 0 {
                CHECK_THREADS
            } else {
                (prev + 1) * 100 + t
            }
        })
        .collect();
    world.free(sym);
    if words != expect {
        return Err(GpuError::Mesh(format!(
            "rank {}: the NVSHMEM check kernel left {words:?} here, not {expect:?}",
            world.rank
        )));
    }
    Ok(format!(
        "rank {} of {} on {} (sm_{major}{minor}): device-linked NVSHMEM kernel ({} B CUBIN) put {} words and {} remote atomics here from rank {prev}, checked ({:.1} ms with barriers)",
        world.rank,
        world.ranks,
        gpu.name(),
        cubin.len(),
        CHECK_THREADS - 1,
        CHECK_THREADS,
        took.as_secs_f64() * 1e3
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let v: Vec<(String, String)> = v
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        move |k| v.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone())
    }

    #[test]
    fn tagged_addresses_round_trip_and_say_where_they_live() {
        let sym = 0x7f12_3456_7000u64;
        for pe in [0, 1, 7] {
            let t = tag(sym, pe);
            assert!(is_tagged(t));
            assert_eq!(untag(t), (sym, pe as u32));
            // An offset into the allocation keeps the tag.
            assert_eq!(untag(t + 64), (sym + 64, pe as u32));
        }
        assert!(!is_tagged(sym));
        // The unit is told the same bit count the host tags with.
        assert!(remote_calls_source("").contains(&format!(
            "#define ATOS_REMOTE_ADDRESS_BITS {REMOTE_ADDRESS_BITS}"
        )));
    }

    #[test]
    fn rank_variables_are_read_and_checked() {
        assert_eq!(RankEnv::from_vars(vars(&[])).unwrap(), None);
        let env = RankEnv::from_vars(vars(&[
            (RANK_VAR, "1"),
            (RANKS_VAR, "2"),
            (RENDEZVOUS_VAR, "/tmp/x"),
            (TIMEOUT_VAR, "2.5"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!((env.rank, env.ranks, env.device), (1, 2, None));
        assert_eq!(env.timeout, Duration::from_millis(2500));
        assert_eq!(
            env.run_timeout,
            Duration::from_secs_f64(DEFAULT_RUN_TIMEOUT_S),
            "a run waits for its kernels a bounded time even without ATOS_RUN_TIMEOUT"
        );
        let env = RankEnv::from_vars(vars(&[
            (RANK_VAR, "0"),
            (RANKS_VAR, "2"),
            (RENDEZVOUS_VAR, "/tmp/x"),
            (RUN_TIMEOUT_VAR, "30"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(env.run_timeout, Duration::from_secs(30));
        assert_eq!(env.shared_gpus, None);
        let env = RankEnv::from_vars(vars(&[
            (RANK_VAR, "3"),
            (RANKS_VAR, "4"),
            (RENDEZVOUS_VAR, "/tmp/x"),
            (SHARED_GPUS_VAR, "1"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(env.shared_gpus, Some(1));
        for (bad, says) in [
            (vec![(RANK_VAR, "2"), (RANKS_VAR, "2")], "numbered from 0"),
            (vec![(RANK_VAR, "0"), (RANKS_VAR, "9")], "1 to 8 ranks"),
            (vec![(RANK_VAR, "x"), (RANKS_VAR, "2")], "not a rank number"),
            (vec![(RANK_VAR, "0")], "ATOS_RANKS is not"),
            (
                vec![(RANK_VAR, "0"), (RANKS_VAR, "2")],
                "ATOS_RENDEZVOUS is not",
            ),
            (
                vec![
                    (RANK_VAR, "0"),
                    (RANKS_VAR, "2"),
                    (RENDEZVOUS_VAR, "/tmp/x"),
                    (TIMEOUT_VAR, "-1"),
                ],
                "positive number of seconds",
            ),
            (
                vec![
                    (RANK_VAR, "0"),
                    (RANKS_VAR, "2"),
                    (RENDEZVOUS_VAR, "/tmp/x"),
                    (RUN_TIMEOUT_VAR, "never"),
                ],
                "ATOS_RUN_TIMEOUT=\"never\" is not a positive number of seconds",
            ),
            (
                vec![
                    (RANK_VAR, "0"),
                    (RANKS_VAR, "2"),
                    (RENDEZVOUS_VAR, "/tmp/x"),
                    (SHARED_GPUS_VAR, "0"),
                ],
                "ATOS_SHARED_GPUS=\"0\" is not a number of GPUs",
            ),
        ] {
            let err = RankEnv::from_vars(vars(&bad)).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }

    /// A step that outlives its watchdog ends the process with WATCHDOG_EXIT and a message
    /// naming the rank and the step (run in a child process: it must really exit).
    #[test]
    fn the_watchdog_ends_a_blocked_rank() {
        const CHILD: &str = "ATOS_TEST_WATCHDOG_CHILD";
        if std::env::var_os(CHILD).is_some() {
            within(3, "a test step", Duration::from_millis(200), || {
                std::thread::sleep(Duration::from_secs(30))
            });
            return;
        }
        let t0 = Instant::now();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "gpu::nvshmem::tests::the_watchdog_ends_a_blocked_rank",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(WATCHDOG_EXIT), "{err}");
        assert!(
            err.contains("rank 3: a test step did not finish within 0 s"),
            "{err}"
        );
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "it did not wait for the step"
        );
    }

    #[test]
    fn launched_ranks_get_multicast_off_and_their_run() {
        let env = launch_env(Path::new("/tmp/rdv/unique-id"), 4, Duration::from_secs(30));
        let get = |k: &str| env.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
        assert_eq!(get("NVSHMEM_DISABLE_NVLS"), Some("1"));
        assert_eq!(get(RANKS_VAR), Some("4"));
        assert_eq!(get(RENDEZVOUS_VAR), Some("/tmp/rdv/unique-id"));
        assert_eq!(get(TIMEOUT_VAR), Some("30"));
        // What the ranks read back is what the launcher meant.
        let mut all = env.clone();
        all.push((RANK_VAR.into(), "3".into()));
        let rank = RankEnv::from_vars(|k| all.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(
            (rank.rank, rank.ranks, rank.timeout),
            (3, 4, Duration::from_secs(30))
        );
    }

    #[test]
    fn the_unique_id_travels_through_the_rendezvous_file() {
        let dir = std::env::temp_dir().join(format!("atos-rdv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("uid");
        let _ = std::fs::remove_file(&path);
        let mut id = [0u8; 128];
        id.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        let reader = {
            let path = path.clone();
            std::thread::spawn(move || await_id(&path, 1, Duration::from_secs(10)))
        };
        std::thread::sleep(Duration::from_millis(50));
        publish_id(&path, &id).unwrap();
        assert_eq!(reader.join().unwrap().unwrap(), id);
        // A second rank 0 on the same path is refused (the file would be stale for it).
        let err = publish_id(&path, &id).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
        // A missing id is an error after the timeout, naming the path.
        let missing = dir.join("never");
        let err = await_id(&missing, 3, Duration::from_millis(60))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("rank 3 waited") && err.contains("never"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
