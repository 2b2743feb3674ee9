//! NVRTC: generated CUDA -> CUBIN for the device's own architecture, with an in-memory cache.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int};
use std::fmt::Write;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::nvrtc::sys;

use super::GpuError;
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

/// A compiled unit: the CUBIN and whatever NVRTC printed (warnings).
#[derive(Clone, Debug)]
pub struct Compiled {
    pub cubin: Arc<Vec<u8>>,
    pub log: String,
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

/// Options passed to NVRTC for `arch` (compute capability major, minor).
pub fn options(arch: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".into(),
        "--device-int128".into(),
    ]
}

/// Compiles `source` to CUBIN for `arch`, reusing an earlier result for the same source,
/// architecture and NVRTC version.
pub fn compile_cubin(source: &str, arch: (i32, i32)) -> Result<Compiled, GpuError> {
    let key = CacheKey {
        source: source.to_string(),
        arch,
        nvrtc: nvrtc_version()?,
    };
    if let Some(hit) = cache().lock().unwrap().get(&key) {
        return Ok(hit.clone());
    }
    let compiled = compile_uncached(source, arch)?;
    cache().lock().unwrap().insert(key, compiled.clone());
    Ok(compiled)
}

fn compile_uncached(source: &str, arch: (i32, i32)) -> Result<Compiled, GpuError> {
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
        let opts: Vec<CString> = options(arch)
            .into_iter()
            .map(|o| CString::new(o).unwrap())
            .collect();
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
        // SAFETY: `prog` compiled successfully.
        check(
            unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) },
            "nvrtcGetCUBINSize",
        )?;
        let mut cubin = vec![0u8; size];
        check(
            unsafe { sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr() as *mut c_char) },
            "nvrtcGetCUBIN",
        )?;
        Ok(Compiled {
            cubin: Arc::new(cubin),
            log,
        })
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
