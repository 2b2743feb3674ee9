//! NVSHMEM 3 for atos, with no build-time dependency on it.
//!
//! - [`Install`] finds an NVSHMEM install: its headers and device library (for compiling and
//!   device-linking kernels, which needs no GPU) and its host library.
//! - [`DeviceLinker`] device-links a kernel's LTO IR with NVSHMEM's device library (nvJitLink).
//! - [`Host`] loads `libnvshmem_host.so.3` at run time, as cudarc loads the CUDA driver: a
//!   missing library or symbol is an ordinary [`NvshmemError`], never a panic or a link error.
//!
//! The host API's structs (`nvshmemx_uniqueid_t`, `nvshmemx_init_attr_t`) are mirrored with the
//! sizes NVSHMEM 3 fixes by `static_assert` in its headers.

mod host;
mod install;
mod link;

pub use host::{Host, InitAttr, UniqueId};
pub use install::Install;
pub use link::DeviceLinker;

/// Function `name` of `lib` (loaded from `path`), as the C signature `T`.
///
/// # Safety
/// `T` is the function's C signature, and the result is not used after `lib` is dropped.
unsafe fn symbol<T: Copy>(
    lib: &libloading::Library,
    path: &str,
    name: &'static str,
) -> Result<T, NvshmemError> {
    let c = std::ffi::CString::new(name).expect("symbol names hold no NUL");
    // SAFETY: the caller upholds the contract.
    unsafe { lib.get::<T>(c.as_bytes_with_nul()) }
        .map(|s| *s)
        .map_err(|source| NvshmemError::Symbol {
            path: path.into(),
            symbol: name,
            source,
        })
}

/// What can go wrong finding or loading NVSHMEM.
#[derive(Debug, thiserror::Error)]
pub enum NvshmemError {
    #[error(
        "NVSHMEM not found: no {what} in {tried}; set ATOS_NVSHMEM_HOME to the folder holding NVSHMEM 3's include/ and lib/ (pip: nvidia-nvshmem-cu13, installed by scripts/nvrtc-env.sh)"
    )]
    NotFound { what: String, tried: String },
    #[error(
        "CUDA headers not found: no cuda_runtime.h in {tried}; NVSHMEM's device headers include it: set ATOS_CUDA_INCLUDE (pip: nvidia-cuda-runtime and nvidia-cuda-cccl, installed by scripts/nvrtc-env.sh)"
    )]
    NoCudaHeaders { tried: String },
    #[error("cannot load {path}: {source}")]
    Load {
        path: String,
        #[source]
        source: libloading::Error,
    },
    #[error("{path} has no symbol `{symbol}` (NVSHMEM 3.x expected): {source}")]
    Symbol {
        path: String,
        symbol: &'static str,
        #[source]
        source: libloading::Error,
    },
    #[error("the device link (nvJitLink) failed:\n{log}")]
    Link { log: String },
    #[error("{call} failed with status {status}")]
    Call { call: &'static str, status: i32 },
}
