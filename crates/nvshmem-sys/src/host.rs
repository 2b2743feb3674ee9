//! `libnvshmem_host.so.3`, loaded at run time: the host calls a one-process-per-GPU run needs
//! (bootstrap by unique id, symmetric allocation, barriers, module setup, finalize).

use std::ffi::{c_int, c_uint, c_void};

use libloading::Library;

use crate::{Install, NvshmemError};

/// `nvshmemx_uniqueid_t` (NVSHMEM 3: 128 bytes): made by rank 0 with [`Host::unique_id`] and
/// handed to every other rank, which joins the run with it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId {
    version: c_int,
    internal: [u8; 124],
}

/// `nvshmemx_uniqueid_args_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct UniqueIdArgs {
    version: c_int,
    id: *mut UniqueId,
    myrank: c_int,
    nranks: c_int,
}

/// `nvshmemx_init_args_t` (128 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
struct InitArgs {
    version: c_int,
    uid_args: UniqueIdArgs,
    content: [u8; 96],
}

/// `nvshmemx_init_attr_t` (NVSHMEM 3: 144 bytes), with the version words its headers'
/// `nvshmemx_init_init_attr_ver_only` sets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct InitAttr {
    version: c_int,
    mpi_comm: *mut c_void,
    args: InitArgs,
}

const _: () = {
    assert!(size_of::<UniqueId>() == 128);
    assert!(size_of::<UniqueIdArgs>() == 24);
    assert!(size_of::<InitArgs>() == 128);
    assert!(size_of::<InitAttr>() == 144);
};

/// NVSHMEM's struct version word: 1 << 16 plus the struct's size.
const fn version_of<T>() -> c_int {
    (1 << 16) + size_of::<T>() as c_int
}

impl UniqueId {
    /// `NVSHMEMX_UNIQUEID_INITIALIZER`.
    pub fn empty() -> UniqueId {
        UniqueId {
            version: version_of::<UniqueId>(),
            internal: [0; 124],
        }
    }
    /// The id's bytes, to hand to the other ranks.
    pub fn to_bytes(&self) -> [u8; 128] {
        let mut out = [0u8; 128];
        out[..4].copy_from_slice(&self.version.to_ne_bytes());
        out[4..].copy_from_slice(&self.internal);
        out
    }
    /// An id received from rank 0.
    pub fn from_bytes(bytes: &[u8; 128]) -> UniqueId {
        let mut internal = [0u8; 124];
        internal.copy_from_slice(&bytes[4..]);
        UniqueId {
            version: c_int::from_ne_bytes(bytes[..4].try_into().expect("4 bytes")),
            internal,
        }
    }
}

impl InitAttr {
    /// Every field empty, the version words set.
    pub fn new() -> InitAttr {
        InitAttr {
            version: version_of::<InitAttr>(),
            mpi_comm: std::ptr::null_mut(),
            args: InitArgs {
                version: version_of::<InitArgs>(),
                uid_args: UniqueIdArgs {
                    version: version_of::<UniqueIdArgs>(),
                    id: std::ptr::null_mut(),
                    myrank: -1,
                    nranks: -1,
                },
                content: [0; 96],
            },
        }
    }
}

impl Default for InitAttr {
    fn default() -> Self {
        InitAttr::new()
    }
}

/// `NVSHMEMX_INIT_WITH_UNIQUEID`.
const INIT_WITH_UNIQUEID: c_uint = 1 << 3;

/// The loaded host library and its functions.
pub struct Host {
    path: String,
    get_uniqueid: unsafe extern "C" fn(*mut UniqueId) -> c_int,
    set_attr_uniqueid_args:
        unsafe extern "C" fn(c_int, c_int, *const UniqueId, *mut InitAttr) -> c_int,
    hostlib_init_attr: unsafe extern "C" fn(c_uint, *mut InitAttr) -> c_int,
    hostlib_finalize: unsafe extern "C" fn(),
    my_pe: unsafe extern "C" fn() -> c_int,
    n_pes: unsafe extern "C" fn() -> c_int,
    malloc: unsafe extern "C" fn(usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    ptr: unsafe extern "C" fn(*const c_void, c_int) -> *mut c_void,
    barrier_all: unsafe extern "C" fn(),
    cumodule_init: unsafe extern "C" fn(*mut c_void) -> c_int,
    cumodule_finalize: unsafe extern "C" fn(*mut c_void) -> c_int,
    // Last: the functions above point into it.
    _lib: Library,
}

impl Host {
    /// Loads `install`'s host library and resolves every function this crate offers.
    pub fn load(install: &Install) -> Result<Host, NvshmemError> {
        let path = install.host_lib.display().to_string();
        // SAFETY: loading NVSHMEM's host library runs only its (side-effect free) initializers.
        let lib =
            unsafe { Library::new(&install.host_lib) }.map_err(|source| NvshmemError::Load {
                path: path.clone(),
                source,
            })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the type is the function's C signature in the library's header; the
                // pointers live in `Self` next to the library they point into.
                unsafe { crate::symbol(&lib, path.as_str(), $name) }?
            };
        }
        Ok(Host {
            get_uniqueid: sym!("nvshmemx_get_uniqueid"),
            set_attr_uniqueid_args: sym!("nvshmemx_set_attr_uniqueid_args"),
            hostlib_init_attr: sym!("nvshmemx_hostlib_init_attr"),
            hostlib_finalize: sym!("nvshmemx_hostlib_finalize"),
            my_pe: sym!("nvshmem_my_pe"),
            n_pes: sym!("nvshmem_n_pes"),
            malloc: sym!("nvshmem_malloc"),
            free: sym!("nvshmem_free"),
            ptr: sym!("nvshmem_ptr"),
            barrier_all: sym!("nvshmem_barrier_all"),
            cumodule_init: sym!("nvshmemx_cumodule_init"),
            cumodule_finalize: sym!("nvshmemx_cumodule_finalize"),
            path,
            _lib: lib,
        })
    }

    /// The library's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A new unique id (rank 0 makes it; the others receive it).
    pub fn unique_id(&self) -> Result<UniqueId, NvshmemError> {
        let mut id = UniqueId::empty();
        // SAFETY: `id` is a valid, versioned nvshmemx_uniqueid_t.
        let status = unsafe { (self.get_uniqueid)(&mut id) };
        ok("nvshmemx_get_uniqueid", status)?;
        Ok(id)
    }

    /// Joins the run of `ranks` processes as `rank`, bootstrapped by `id`. Blocks until every
    /// rank has joined.
    ///
    /// # Safety
    /// The calling thread's current CUDA context is the GPU this rank runs on, and NVSHMEM is
    /// not initialized in this process yet.
    pub unsafe fn init(&self, rank: u32, ranks: u32, id: &UniqueId) -> Result<(), NvshmemError> {
        let mut attr = InitAttr::new();
        // SAFETY: `id` and `attr` are valid for the calls; the caller upholds the rest.
        unsafe {
            ok(
                "nvshmemx_set_attr_uniqueid_args",
                (self.set_attr_uniqueid_args)(rank as c_int, ranks as c_int, id, &mut attr),
            )?;
            ok(
                "nvshmemx_hostlib_init_attr",
                (self.hostlib_init_attr)(INIT_WITH_UNIQUEID, &mut attr),
            )
        }
    }

    /// This process's rank (`nvshmem_my_pe`). NVSHMEM must be initialized.
    pub fn my_pe(&self) -> u32 {
        // SAFETY: a query with no arguments.
        unsafe { (self.my_pe)() as u32 }
    }

    /// The number of ranks (`nvshmem_n_pes`). NVSHMEM must be initialized.
    pub fn n_pes(&self) -> u32 {
        // SAFETY: a query with no arguments.
        unsafe { (self.n_pes)() as u32 }
    }

    /// A symmetric allocation of `bytes` (a collective: every rank asks for the same size).
    ///
    /// # Safety
    /// NVSHMEM is initialized; every rank makes the same call.
    pub unsafe fn malloc(&self, bytes: usize) -> Result<*mut c_void, NvshmemError> {
        // SAFETY: the caller upholds the contract.
        let p = unsafe { (self.malloc)(bytes) };
        if p.is_null() && bytes > 0 {
            return Err(NvshmemError::Call {
                call: "nvshmem_malloc",
                status: -1,
            });
        }
        Ok(p)
    }

    /// Frees a symmetric allocation (a collective).
    ///
    /// # Safety
    /// `p` came from [`Host::malloc`] and is not in use; every rank makes the same call.
    pub unsafe fn free(&self, p: *mut c_void) {
        // SAFETY: the caller upholds the contract.
        unsafe { (self.free)(p) }
    }

    /// The address on this GPU of rank `pe`'s copy of the symmetric `p`, when it is reachable
    /// by loads and stores (peer-to-peer); `None` when it is not (another node).
    ///
    /// # Safety
    /// `p` is a symmetric address; NVSHMEM is initialized.
    pub unsafe fn ptr(&self, p: *const c_void, pe: u32) -> Option<*mut c_void> {
        // SAFETY: the caller upholds the contract.
        let q = unsafe { (self.ptr)(p, pe as c_int) };
        (!q.is_null()).then_some(q)
    }

    /// Waits for every rank (`nvshmem_barrier_all`).
    ///
    /// # Safety
    /// NVSHMEM is initialized; every rank calls it.
    pub unsafe fn barrier_all(&self) {
        // SAFETY: the caller upholds the contract.
        unsafe { (self.barrier_all)() }
    }

    /// Sets up NVSHMEM's device state in a loaded module (`nvshmemx_cumodule_init`): needed by
    /// every module device-linked with `libnvshmem_device.a` before its kernels run.
    ///
    /// # Safety
    /// `module` is a live `CUmodule` of the current context; NVSHMEM is initialized.
    pub unsafe fn cumodule_init(&self, module: *mut c_void) -> Result<(), NvshmemError> {
        // SAFETY: the caller upholds the contract.
        ok("nvshmemx_cumodule_init", unsafe {
            (self.cumodule_init)(module)
        })
    }

    /// Releases NVSHMEM's device state in a module (`nvshmemx_cumodule_finalize`), before the
    /// module is unloaded or initialized again.
    ///
    /// # Safety
    /// `module` is a live `CUmodule` of the current context that went through
    /// [`Host::cumodule_init`]; no kernel of it is running.
    pub unsafe fn cumodule_finalize(&self, module: *mut c_void) -> Result<(), NvshmemError> {
        // SAFETY: the caller upholds the contract.
        ok("nvshmemx_cumodule_finalize", unsafe {
            (self.cumodule_finalize)(module)
        })
    }

    /// Leaves the run (`nvshmemx_hostlib_finalize`).
    ///
    /// # Safety
    /// NVSHMEM is initialized and nothing uses its memory any more.
    pub unsafe fn finalize(&self) {
        // SAFETY: the caller upholds the contract.
        unsafe { (self.hostlib_finalize)() }
    }
}

fn ok(call: &'static str, status: c_int) -> Result<(), NvshmemError> {
    if status == 0 {
        Ok(())
    } else {
        Err(NvshmemError::Call { call, status })
    }
}
