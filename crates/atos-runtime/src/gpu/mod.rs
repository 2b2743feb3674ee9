//! The GPU executor over cudarc (driver API, dynamically loaded).

pub mod device_state;
mod driver;
pub mod kernel_cache;
pub mod mesh;
pub mod nvrtc;
pub mod nvshmem;
pub mod program;
pub mod twins;

use std::sync::Arc;

use cudarc::driver::{CudaContext, sys};
use thiserror::Error;

pub use device_state::DeviceState;
pub use mesh::{Gpus, MeshProgram, MeshState};
pub use program::{KernelResources, Program, ProgramBuilder};

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(
        "no NVIDIA driver: libcuda.so.1 could not be loaded. Install an NVIDIA driver for CUDA 13.0 or newer to run on a GPU; the CPU executor needs nothing"
    )]
    NoDriver,
    #[error("the NVIDIA driver reports no CUDA device{0}")]
    NoDevice(String),
    #[error("GPU {ordinal} does not exist: this machine has {count} CUDA device(s)")]
    BadOrdinal { ordinal: usize, count: usize },
    #[error(
        "NVRTC could not be loaded (libnvrtc.so.13): install the CUDA toolkit or `pip install nvidia-cuda-nvrtc==13.0.*` and put its lib folder on LD_LIBRARY_PATH"
    )]
    NoNvrtc,
    #[error("NVRTC error: {0}")]
    Nvrtc(String),
    #[error(
        "NVRTC could not compile the generated CUDA:\n{log}\n--- generated source ---\n{numbered_source}"
    )]
    Compile {
        log: String,
        numbered_source: String,
    },
    #[error("code generation failed: {0}")]
    Codegen(#[from] atos_codegen::CodegenError),
    #[error("CUDA driver error during {during}: {message}")]
    Driver { during: String, message: String },
    #[error("{0}")]
    Mesh(String),
    #[error(transparent)]
    Nvshmem(#[from] nvshmem_sys::NvshmemError),
    #[error(
        "the kernel did not finish within {seconds:.1} s; it is still running and this GPU context can no longer be used (a hang is an atos bug: please report it with the task and spec){state}"
    )]
    Timeout {
        seconds: f64,
        /// One-GPU programs: the run's counters read while the kernel still ran (`; the run
        /// state at the timeout (...): control {..}; <ring> {..}; ...`, the words that are not
        /// 0, by their layout names), or why they could not be read. Empty for spread runs
        /// (`MeshProgram`), which do not read them yet.
        state: String,
    },
}

pub(crate) fn driver_err(during: &str) -> impl Fn(cudarc::driver::DriverError) -> GpuError + '_ {
    move |e| GpuError::Driver {
        during: during.to_string(),
        message: format!("{e:?}"),
    }
}

/// Whether the NVIDIA driver library can be loaded. Checked before any other cudarc call:
/// cudarc's loader panics when the library is missing.
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { sys::is_culib_present() }
}

/// The number of CUDA devices on this machine.
pub fn device_count() -> Result<usize, GpuError> {
    if !driver_available() {
        return Err(GpuError::NoDriver);
    }
    let count = CudaContext::device_count().map_err(|e| GpuError::NoDevice(format!(" ({e:?})")))?;
    if count <= 0 {
        return Err(GpuError::NoDevice(String::new()));
    }
    Ok(count as usize)
}

/// One GPU, ready to build programs on.
#[derive(Clone)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    name: String,
    arch: (i32, i32),
    sm_count: u32,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("name", &self.name)
            .field("arch", &self.arch)
            .field("sm_count", &self.sm_count)
            .finish()
    }
}

impl Gpu {
    /// Opens GPU `ordinal`. Without a driver or a device this is an ordinary error.
    pub fn new(ordinal: usize) -> Result<Gpu, GpuError> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(GpuError::BadOrdinal { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(driver_err("opening the device"))?;
        let name = ctx.name().map_err(driver_err("reading the device name"))?;
        let arch = ctx
            .compute_capability()
            .map_err(driver_err("reading the compute capability"))?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver_err("reading the SM count"))? as u32;
        Ok(Gpu {
            ctx,
            name,
            arch,
            sm_count,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability (major, minor), e.g. (9, 0) on H100/H200.
    pub fn arch(&self) -> (i32, i32) {
        self.arch
    }

    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    pub(crate) fn ctx(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}
