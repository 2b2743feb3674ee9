//! NVRTC: generated CUDA -> CUBIN for the device's own architecture, with an in-memory cache
//! in front of the on-disk [`super::kernel_cache`].

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int};
use std::fmt::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cudarc::nvrtc::sys;

use super::GpuError;
use super::kernel_cache::{self, Entry};
use crate::headers::device_headers;

/// Whether an NVRTC library can be loaded (checked without letting cudarc panic).
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's (major, minor) version.
pub fn nvrtc_version() -> Result<(i32, i32), GpuError> {
    if !nvrtc_available() {
        return Err(GpuError::NoNvrtc);
    }
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: plain out-parameters.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    check(r, "nvrtcVersion")?;
    Ok((major, minor))
}

/// Where a [`Compiled`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheHit {
    /// This process's in-memory cache.
    Memory,
    /// The on-disk kernel cache (an earlier process, or an earlier call that skipped memory).
    Disk,
    /// NVRTC ran in this call.
    Compiled,
}

/// A compiled unit: the CUBIN and whatever NVRTC printed (warnings), with where it came from
/// and how long this call took to produce it.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub cubin: Arc<Vec<u8>>,
    pub log: String,
    /// Memory, disk or a fresh NVRTC compilation.
    pub origin: CacheHit,
    /// Time spent in this call (cache lookups, hashing, NVRTC and the disk write included).
    pub compile_time: Duration,
}

#[derive(Hash, PartialEq, Eq)]
struct CacheKey {
    source: String,
    arch: (i32, i32),
    nvrtc: (i32, i32),
}

fn cache() -> &'static Mutex<HashMap<CacheKey, Compiled>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Compiled>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Whether `a * b + c` may become one fused multiply-add. Rust rounds it twice; NVRTC and
/// nvJitLink would fuse it by default, and the GPU would compute something the CPU executor
/// does not. `mul_add` fuses explicitly. The one setting for both tools ([`options`],
/// [`link_options`]).
const FUSE_MUL_ADD: bool = false;

/// Options passed to NVRTC for `arch` (compute capability major, minor).
pub fn options(arch: (i32, i32)) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".into(),
        "--device-int128".into(),
        format!("--fmad={FUSE_MUL_ADD}"),
    ];
    if lineinfo() {
        options.push("--generate-line-info".into());
    }
    options
}

/// The environment variable that, set to anything but `0`, compiles every unit with line
/// information (`--generate-line-info`): cuda-gdb, compute-sanitizer and ncu then name the
/// generated source's lines (and the device headers'). The code is the same; the on-disk cache
/// keys on the options, so such builds are cached apart.
pub const LINEINFO_VAR: &str = "ATOS_NVRTC_LINEINFO";

/// Whether [`LINEINFO_VAR`] asks for line information (set, not empty, not `0`).
pub fn lineinfo() -> bool {
    std::env::var(LINEINFO_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Options passed to nvJitLink when it links LTO IR from [`compile_ltoir`] (NVSHMEM units). A
/// link-time-optimized link generates the code again and takes its own floating-point
/// settings, whatever NVRTC was told: without `-fma=0` it fused `a * b + c` (the GPU's
/// `f64` results of the feature task differed from the CPU executor's in the last bit, on an
/// H100, 2026-11-23). Its other defaults (`-ftz=0`, `-prec-div=1`, `-prec-sqrt=1`)
/// are NVRTC's.
pub fn link_options() -> Vec<String> {
    vec![format!("-fma={}", u8::from(FUSE_MUL_ADD))]
}

/// The identity of a compiled unit: its kernel-cache key (SHA-256 hex of the generated source,
/// every device header, the NVRTC options, the architecture and the NVRTC version;
/// [`kernel_cache::key`]). Two runs with equal ids ran the same CUDA through the same compiler,
/// which the headers' fingerprint (`device_code_id`) alone does not say: it leaves out the CUDA
/// generated per task. (A unit linked against NVSHMEM's device library is named by its source
/// the same way; the library is the installed one.)
pub fn unit_id(source: &str, arch: (i32, i32)) -> Result<String, GpuError> {
    Ok(kernel_cache::key(
        source,
        device_headers(),
        &options(arch),
        arch,
        nvrtc_version()?,
    ))
}

/// Compiles `source` to CUBIN for `arch`, reusing an earlier result for the same source,
/// architecture and NVRTC version: from this process's memory, else from the on-disk kernel
/// cache ([`kernel_cache::cache_dir`]), else NVRTC runs and both caches keep the result.
pub fn compile_cubin(source: &str, arch: (i32, i32)) -> Result<Compiled, GpuError> {
    let start = Instant::now();
    let key = CacheKey {
        source: source.to_string(),
        arch,
        nvrtc: nvrtc_version()?,
    };
    if let Some(hit) = lock(cache()).get(&key) {
        return Ok(Compiled {
            origin: CacheHit::Memory,
            compile_time: start.elapsed(),
            ..hit.clone()
        });
    }
    let mut compiled = compile_cubin_with(source, arch, kernel_cache::cache_dir().as_deref())?;
    compiled.compile_time = start.elapsed();
    lock(cache()).insert(key, compiled.clone());
    Ok(compiled)
}

/// Compiles `source` to CUBIN for `arch` through the on-disk cache in `disk` only (`None`:
/// no cache at all), bypassing and leaving alone the in-memory cache. A disk entry that
/// cannot be read or does not check out is recompiled and overwritten; a failing write is
/// ignored (`ATOS_CACHE_VERBOSE` reports it).
pub fn compile_cubin_with(
    source: &str,
    arch: (i32, i32),
    disk: Option<&Path>,
) -> Result<Compiled, GpuError> {
    let start = Instant::now();
    let Some(dir) = disk else {
        let mut compiled = compile_uncached(source, arch)?;
        compiled.compile_time = start.elapsed();
        return Ok(compiled);
    };
    let key = kernel_cache::key(
        source,
        device_headers(),
        &options(arch),
        arch,
        nvrtc_version()?,
    );
    let verbose = kernel_cache::verbose();
    match kernel_cache::try_load(dir, &key) {
        Ok(Entry { cubin, log }) => {
            if verbose {
                eprintln!("atos kernel cache: hit {key} in {}", dir.display());
            }
            return Ok(Compiled {
                cubin: Arc::new(cubin),
                log,
                origin: CacheHit::Disk,
                compile_time: start.elapsed(),
            });
        }
        Err(why) if verbose => {
            eprintln!("atos kernel cache: miss {key} in {} ({why})", dir.display())
        }
        Err(_) => {}
    }
    let mut compiled = compile_uncached(source, arch)?;
    let entry = Entry {
        cubin: compiled.cubin.to_vec(),
        log: compiled.log.clone(),
    };
    if let Err(e) = kernel_cache::store(dir, &key, &entry)
        && verbose
    {
        eprintln!(
            "atos kernel cache: could not write {key} to {}: {e}",
            dir.display()
        );
    }
    compiled.compile_time = start.elapsed();
    Ok(compiled)
}

/// The cache's lock, even when a thread panicked while holding it (the map stays valid).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs NVRTC (no cache). `compile_time` is left for the caller to fill in.
fn compile_uncached(source: &str, arch: (i32, i32)) -> Result<Compiled, GpuError> {
    let (cubin, log) = run_nvrtc(source, options(arch), Output::Cubin)?;
    Ok(Compiled {
        cubin: Arc::new(cubin),
        log,
        origin: CacheHit::Compiled,
        compile_time: Duration::ZERO,
    })
}

/// What ptxas gave a unit's kernel (`--ptxas-options=-v`): registers per thread, the stack
/// frame, and the bytes of registers it spilled to local memory and loads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxasUsage {
    pub registers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// Compiles `source` for `arch` as [`compile_cubin`] does (uncached) with ptxas's report on,
/// and reads `kernel`'s [`PtxasUsage`] from the log. No GPU is needed: CI pins the register
/// allocation of the apps' kernels with it (`tests/kernel_resources.rs`), since a small change
/// in the device code can move ptxas between register counts with very different spills.
pub fn ptxas_usage(source: &str, arch: (i32, i32), kernel: &str) -> Result<PtxasUsage, GpuError> {
    let mut opts = options(arch);
    opts.push("--ptxas-options=-v".into());
    let (_, log) = run_nvrtc(source, opts, Output::Cubin)?;
    parse_ptxas_usage(&log, kernel).ok_or_else(|| {
        GpuError::Nvrtc(format!(
            "no report for `{kernel}` from ptxas in NVRTC's log:\n{log}"
        ))
    })
}

/// `kernel`'s [`PtxasUsage`] in a ptxas `-v` log: the line after `Function properties for
/// <kernel>` (`N bytes stack frame, N bytes spill stores, N bytes spill loads`), and the first
/// `Used N registers` after `Compiling entry function '<kernel>'`. Other functions' reports
/// (device functions ptxas kept out of line, other kernels) are passed over.
pub fn parse_ptxas_usage(log: &str, kernel: &str) -> Option<PtxasUsage> {
    let number_before = |line: &str, what: &str| -> Option<u32> {
        let end = line.find(what)?;
        line[..end].split_whitespace().last()?.parse().ok()
    };
    let lines: Vec<&str> = log.lines().collect();
    let props = format!("Function properties for {kernel}");
    let at = lines.iter().position(|l| l.trim_end().ends_with(&props))?;
    let frame = lines.get(at + 1)?;
    let entry = format!("Compiling entry function '{kernel}'");
    let start = lines.iter().position(|l| l.contains(&entry))?;
    let used = lines[start..]
        .iter()
        .find(|l| l.contains("Used ") && l.contains(" registers"))?;
    Some(PtxasUsage {
        registers: number_before(used, " registers")?,
        stack_frame: number_before(frame, " bytes stack frame")?,
        spill_stores: number_before(frame, " bytes spill stores")?,
        spill_loads: number_before(frame, " bytes spill loads")?,
    })
}

/// What NVRTC hands back.
#[derive(Clone, Copy)]
enum Output {
    Cubin,
    /// LTO IR of relocatable device code (`-rdc -dlto`), for a device link (nvJitLink).
    LtoIr,
}

/// Compiles `source` with the device headers to LTO IR for `arch`, with `extra` options after
/// the usual ones (NVSHMEM's: `nvshmem_sys::Install::nvrtc_options`). Returns the IR and
/// NVRTC's log. Not cached: the device link that follows is the expensive part.
pub fn compile_ltoir(
    source: &str,
    arch: (i32, i32),
    extra: &[String],
) -> Result<(Vec<u8>, String), GpuError> {
    let mut opts = options(arch);
    opts.extend(extra.iter().cloned());
    run_nvrtc(source, opts, Output::LtoIr)
}

/// One NVRTC compilation of `source` (with the device headers) under `opts`.
fn run_nvrtc(
    source: &str,
    opts: Vec<String>,
    output: Output,
) -> Result<(Vec<u8>, String), GpuError> {
    let src = CString::new(source)
        .map_err(|_| GpuError::Nvrtc("generated source contains a NUL byte".into()))?;
    let headers = device_headers();
    let names: Vec<CString> = headers
        .iter()
        .map(|(n, _)| CString::new(*n).unwrap())
        .collect();
    let bodies: Vec<CString> = headers
        .iter()
        .map(|(_, b)| CString::new(b.as_str()).unwrap())
        .collect();
    let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let body_ptrs: Vec<*const c_char> = bodies.iter().map(|c| c.as_ptr()).collect();
    let unit_name = c"atos_task.cu";
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: all strings outlive the program; counts match the arrays.
    let r = unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            unit_name.as_ptr(),
            headers.len() as c_int,
            body_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    };
    check(r, "nvrtcCreateProgram")?;
    let result = (|| {
        let opts: Vec<CString> = opts
            .into_iter()
            .map(|o| {
                CString::new(o)
                    .map_err(|_| GpuError::Nvrtc("an NVRTC option contains a NUL byte".into()))
            })
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|c| c.as_ptr()).collect();
        // SAFETY: `prog` is live; options outlive the call.
        let r =
            unsafe { sys::nvrtcCompileProgram(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
        let log = program_log(prog)?;
        if r != sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(GpuError::Compile {
                log,
                numbered_source: numbered(source),
            });
        }
        let mut size = 0usize;
        let mut bytes;
        // SAFETY: `prog` compiled successfully; the buffer holds the size NVRTC gave.
        match output {
            Output::Cubin => {
                check(
                    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) },
                    "nvrtcGetCUBINSize",
                )?;
                bytes = vec![0u8; size];
                check(
                    unsafe { sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr() as *mut c_char) },
                    "nvrtcGetCUBIN",
                )?;
            }
            Output::LtoIr => {
                check(
                    unsafe { sys::nvrtcGetLTOIRSize(prog, &mut size) },
                    "nvrtcGetLTOIRSize",
                )?;
                bytes = vec![0u8; size];
                check(
                    unsafe { sys::nvrtcGetLTOIR(prog, bytes.as_mut_ptr() as *mut c_char) },
                    "nvrtcGetLTOIR",
                )?;
            }
        }
        Ok((bytes, log))
    })();
    // SAFETY: destroying the program we created.
    unsafe { sys::nvrtcDestroyProgram(&mut prog) };
    result
}

fn program_log(prog: sys::nvrtcProgram) -> Result<String, GpuError> {
    let mut size = 0usize;
    // SAFETY: `prog` is live.
    check(
        unsafe { sys::nvrtcGetProgramLogSize(prog, &mut size) },
        "nvrtcGetProgramLogSize",
    )?;
    let mut buf = vec![0 as c_char; size.max(1)];
    check(
        unsafe { sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr()) },
        "nvrtcGetProgramLog",
    )?;
    // SAFETY: NVRTC writes a NUL-terminated string of `size` bytes.
    let log = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .trim()
        .to_string();
    Ok(log)
}

fn check(r: sys::nvrtcResult, what: &str) -> Result<(), GpuError> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(GpuError::Nvrtc(format!("{what} failed: {r:?}")))
    }
}

/// The source with line numbers, so a compile log's `(line)` references can be followed.
pub fn numbered(source: &str) -> String {
    let mut out = String::new();
    for (i, l) in source.lines().enumerate() {
        let _ = writeln!(out, "{:4} | {l}", i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log of NVRTC 13.0 (`--ptxas-options=-v`) for a unit with a second kernel and a device
    /// function kept out of line: each report is read for its own function only.
    #[test]
    fn ptxas_usage_is_read_for_the_named_kernel() {
        let log = "ptxas info    : 59 bytes gmem
ptxas info    : Function properties for _Z9zz_helperPi
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'atos_bfs_persistent' for 'sm_90'
ptxas info    : Function properties for atos_bfs_persistent
ptxas         .     16 bytes stack frame, 40 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 16 bytes cumulative stack size, 8496 bytes smem
ptxas info    : Compile time = 989.818 ms
ptxas info    : Compiling entry function '_Z8zz_otherPi' for 'sm_90'
ptxas info    : Function properties for _Z8zz_otherPi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
";
        let bfs = PtxasUsage {
            registers: 32,
            stack_frame: 16,
            spill_stores: 40,
            spill_loads: 16,
        };
        assert_eq!(parse_ptxas_usage(log, "atos_bfs_persistent"), Some(bfs));
        let other = parse_ptxas_usage(log, "_Z8zz_otherPi").unwrap();
        assert_eq!((other.registers, other.stack_frame), (10, 0));
        assert_eq!(parse_ptxas_usage(log, "atos_missing"), None);
        assert_eq!(parse_ptxas_usage("", "atos_bfs_persistent"), None);
    }
}
