//! The device link of kernels that call NVSHMEM: LTO IR from NVRTC plus
//! `libnvshmem_device.a`, through nvJitLink (`libnvJitLink.so.13`, loaded at run time), to a
//! CUBIN. Needs no GPU.

use std::ffi::{CString, c_char, c_int, c_uint, c_void};

use libloading::Library;

use crate::{Install, NvshmemError};

type Handle = *mut c_void;
const INPUT_LTOIR: c_int = 3;
const INPUT_ANY: c_int = 10;

/// What a link produces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Cubin,
    Ptx,
}

/// nvJitLink, loaded.
pub struct DeviceLinker {
    create: unsafe extern "C" fn(*mut Handle, c_uint, *const *const c_char) -> c_int,
    add_data: unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int,
    add_file: unsafe extern "C" fn(Handle, c_int, *const c_char) -> c_int,
    complete: unsafe extern "C" fn(Handle) -> c_int,
    cubin_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    ptx_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    ptx: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    error_log_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    error_log: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Handle) -> c_int,
    version: unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> c_int,
    _lib: Library,
}

/// The library's name, found on the loader's path (`LD_LIBRARY_PATH`).
const NVJITLINK: &str = "libnvJitLink.so.13";

impl DeviceLinker {
    /// Loads `libnvJitLink.so.13` from the loader's path.
    pub fn load() -> Result<DeviceLinker, NvshmemError> {
        // SAFETY: loading nvJitLink runs only its initializers.
        let lib = unsafe { Library::new(NVJITLINK) }.map_err(|source| NvshmemError::Load {
            path: format!("{NVJITLINK} (on LD_LIBRARY_PATH; scripts/nvrtc-env.sh installs it)"),
            source,
        })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the type is the function's C signature in the library's header; the
                // pointers live in `Self` next to the library they point into.
                unsafe { crate::symbol(&lib, NVJITLINK, $name) }?
            };
        }
        Ok(DeviceLinker {
            create: sym!("nvJitLinkCreate"),
            add_data: sym!("nvJitLinkAddData"),
            add_file: sym!("nvJitLinkAddFile"),
            complete: sym!("nvJitLinkComplete"),
            cubin_size: sym!("nvJitLinkGetLinkedCubinSize"),
            cubin: sym!("nvJitLinkGetLinkedCubin"),
            ptx_size: sym!("nvJitLinkGetLinkedPtxSize"),
            ptx: sym!("nvJitLinkGetLinkedPtx"),
            error_log_size: sym!("nvJitLinkGetErrorLogSize"),
            error_log: sym!("nvJitLinkGetErrorLog"),
            destroy: sym!("nvJitLinkDestroy"),
            version: sym!("nvJitLinkVersion"),
            _lib: lib,
        })
    }

    /// nvJitLink's version (major, minor): a linked CUBIN depends on it, as on NVRTC's.
    pub fn version(&self) -> Result<(u32, u32), NvshmemError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let r = unsafe { (self.version)(&mut major, &mut minor) };
        if r != 0 {
            return Err(NvshmemError::Call {
                call: "nvJitLinkVersion",
                status: r,
            });
        }
        Ok((major, minor))
    }

    /// Links `ltoir` (NVRTC's output under [`Install::nvrtc_options`]) with `install`'s
    /// device library into a CUBIN for `sm_<arch>` (e.g. 90), optimizing across both.
    /// `options` are more nvJitLink options: the link optimizes the whole program again, so
    /// code-generation choices made for NVRTC (floating-point contraction, for one) must be
    /// given here too, or the linked code does not follow them.
    pub fn link(
        &self,
        install: &Install,
        ltoir: &[u8],
        arch: u32,
        options: &[String],
    ) -> Result<Vec<u8>, NvshmemError> {
        self.run(Some(install), ltoir, arch, options, Output::Cubin)
    }

    /// `ltoir` alone linked with the options of [`DeviceLinker::link`], as PTX (`-ptx`): to
    /// read what the link-time optimization makes of the code (tests look for instructions in
    /// it). nvJitLink emits PTX only when every input is LTO IR, so NVSHMEM's device library
    /// (not LTO IR) is left out: the unit must not call it.
    pub fn link_ptx(
        &self,
        ltoir: &[u8],
        arch: u32,
        options: &[String],
    ) -> Result<String, NvshmemError> {
        let ptx = self.run(None, ltoir, arch, options, Output::Ptx)?;
        Ok(String::from_utf8_lossy(&ptx)
            .trim_end_matches('\0')
            .to_string())
    }

    fn run(
        &self,
        install: Option<&Install>,
        ltoir: &[u8],
        arch: u32,
        options: &[String],
        output: Output,
    ) -> Result<Vec<u8>, NvshmemError> {
        let mut opts = vec![
            CString::new(format!("-arch=sm_{arch}")).expect("no NUL"),
            c"-lto".into(),
        ];
        if output == Output::Ptx {
            opts.push(c"-ptx".into());
        }
        for o in options {
            opts.push(CString::new(o.as_str()).map_err(|_| NvshmemError::Link {
                log: format!("the link option {o:?} contains a NUL byte"),
            })?);
        }
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let lib = install
            .map(|i| {
                CString::new(i.device_lib.display().to_string()).map_err(|_| NvshmemError::Link {
                    log: "the device library's path contains a NUL byte".into(),
                })
            })
            .transpose()?;
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: the options outlive the call.
        let r = unsafe { (self.create)(&mut h, opt_ptrs.len() as c_uint, opt_ptrs.as_ptr()) };
        if r != 0 {
            return Err(NvshmemError::Call {
                call: "nvJitLinkCreate",
                status: r,
            });
        }
        let out = (|| {
            // SAFETY: `h` is live; the data and names outlive the calls; each buffer holds the
            // size nvJitLink gave for it.
            unsafe {
                let step = |r: c_int| if r == 0 { Ok(()) } else { Err(self.log(h)) };
                step((self.add_data)(
                    h,
                    INPUT_LTOIR,
                    ltoir.as_ptr().cast(),
                    ltoir.len(),
                    c"atos_unit".as_ptr(),
                ))?;
                if let Some(lib) = &lib {
                    step((self.add_file)(h, INPUT_ANY, lib.as_ptr()))?;
                }
                step((self.complete)(h))?;
                let mut size = 0usize;
                let mut image;
                match output {
                    Output::Cubin => {
                        step((self.cubin_size)(h, &mut size))?;
                        image = vec![0u8; size];
                        step((self.cubin)(h, image.as_mut_ptr().cast()))?;
                    }
                    Output::Ptx => {
                        step((self.ptx_size)(h, &mut size))?;
                        image = vec![0u8; size];
                        step((self.ptx)(h, image.as_mut_ptr().cast()))?;
                    }
                }
                Ok(image)
            }
        })();
        // SAFETY: destroying the handle we created.
        unsafe { (self.destroy)(&mut h) };
        out
    }

    /// The link's error log, as an error.
    ///
    /// # Safety
    /// `h` is a live handle.
    unsafe fn log(&self, h: Handle) -> NvshmemError {
        let mut size = 0usize;
        // SAFETY: `h` is live; the buffer holds `size` bytes.
        let log = unsafe {
            if (self.error_log_size)(h, &mut size) != 0 {
                String::from("(no error log)")
            } else {
                let mut buf = vec![0 as c_char; size.max(1)];
                (self.error_log)(h, buf.as_mut_ptr());
                std::ffi::CStr::from_ptr(buf.as_ptr())
                    .to_string_lossy()
                    .trim()
                    .to_string()
            }
        };
        NvshmemError::Link { log }
    }
}
