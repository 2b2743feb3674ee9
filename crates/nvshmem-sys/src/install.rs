//! Where NVSHMEM and the CUDA headers its device code includes are.

use std::path::{Path, PathBuf};

use crate::NvshmemError;

/// The NVSHMEM install of the GPU machines (PyTorch's wheel).
const GPU_MACHINE_NVSHMEM: &str = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem";
/// The CUDA toolkit's headers on the GPU machines.
const TOOLKIT_INCLUDE: &str = "/usr/local/cuda/include";

/// An NVSHMEM 3 install and the CUDA headers its device code needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Install {
    /// NVSHMEM's `include/` (holds `nvshmem.h` and `device/`).
    pub include: PathBuf,
    /// `libnvshmem_device.a`: NVSHMEM's device code, device-linked into every kernel that uses it.
    pub device_lib: PathBuf,
    /// `libnvshmem_host.so.3`.
    pub host_lib: PathBuf,
    /// Folders holding `cuda_runtime.h` and `cuda/std/...` (CCCL), which NVSHMEM's device
    /// headers include.
    pub cuda_include: Vec<PathBuf>,
}

impl Install {
    /// Finds NVSHMEM in, first to last: `$ATOS_NVSHMEM_HOME`; the PyPI layout next to each
    /// `$LD_LIBRARY_PATH` entry (`.../nvidia/cu13/lib` -> `.../nvidia/nvshmem`, where
    /// scripts/nvrtc-env.sh installs it); the GPU machines' PyTorch install. The CUDA headers:
    /// `$ATOS_CUDA_INCLUDE`, then `include/` beside each `$LD_LIBRARY_PATH` entry, then
    /// `/usr/local/cuda/include`; each with its `cccl/` subfolder when there is one.
    pub fn locate() -> Result<Install, NvshmemError> {
        let lib_dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
            .map(|v| std::env::split_paths(&v).collect())
            .unwrap_or_default();
        let mut homes: Vec<PathBuf> = std::env::var_os("ATOS_NVSHMEM_HOME")
            .map(PathBuf::from)
            .into_iter()
            .collect();
        homes.extend(lib_dirs.iter().map(|d| d.join("../../nvshmem")));
        homes.push(PathBuf::from(GPU_MACHINE_NVSHMEM));
        let mut cuda: Vec<PathBuf> = std::env::var_os("ATOS_CUDA_INCLUDE")
            .map(PathBuf::from)
            .into_iter()
            .collect();
        cuda.extend(lib_dirs.iter().map(|d| d.join("../include")));
        cuda.push(PathBuf::from(TOOLKIT_INCLUDE));
        Install::find_in(&homes, &cuda)
    }

    /// The first of `homes` holding NVSHMEM's headers and libraries, and the first of `cuda`
    /// holding `cuda_runtime.h`.
    pub fn find_in(homes: &[PathBuf], cuda: &[PathBuf]) -> Result<Install, NvshmemError> {
        let home = homes
            .iter()
            .find(|h| {
                h.join("include/nvshmem.h").is_file()
                    && h.join("lib/libnvshmem_device.a").is_file()
                    && h.join("lib/libnvshmem_host.so.3").is_file()
            })
            .ok_or_else(|| NvshmemError::NotFound {
                what: "include/nvshmem.h with lib/libnvshmem_device.a and lib/libnvshmem_host.so.3"
                    .into(),
                tried: listed(homes),
            })?;
        let headers = cuda
            .iter()
            .find(|c| c.join("cuda_runtime.h").is_file())
            .ok_or_else(|| NvshmemError::NoCudaHeaders {
                tried: listed(cuda),
            })?;
        let home = clean(home);
        let headers = clean(headers);
        let mut cuda_include = vec![headers.clone()];
        if headers.join("cccl").is_dir() {
            cuda_include.push(headers.join("cccl"));
        }
        Ok(Install {
            include: home.join("include"),
            device_lib: home.join("lib/libnvshmem_device.a"),
            host_lib: home.join("lib/libnvshmem_host.so.3"),
            cuda_include,
        })
    }

    /// NVRTC options for a unit that calls NVSHMEM's device API: relocatable device code as
    /// LTO IR (device-linked with [`Install::device_lib`] afterwards), unannotated functions of
    /// NVSHMEM's headers taken as device functions, and the include folders.
    pub fn nvrtc_options(&self) -> Vec<String> {
        let mut o = vec![
            "--relocatable-device-code=true".to_string(),
            "-dlto".into(),
            "-default-device".into(),
            format!("-I{}", self.include.display()),
        ];
        o.extend(
            self.cuda_include
                .iter()
                .map(|c| format!("-I{}", c.display())),
        );
        o
    }
}

fn clean(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

fn listed(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
