//! The on-disk kernel cache: entries round-trip, anything that does not check out is a miss,
//! concurrent writers leave a valid entry, the directory follows the environment, and (when
//! NVRTC is present) a second compilation is served from disk. Under CI=true a missing NVRTC
//! fails the NVRTC test instead of skipping it.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use atos_runtime::gpu::kernel_cache::{self, Entry, Reject};
use atos_runtime::gpu::nvrtc::{self, CacheHit};

/// Serializes the tests that read or change environment variables.
static ENV: Mutex<()> = Mutex::new(());

fn env_lock() -> MutexGuard<'static, ()> {
    ENV.lock().unwrap_or_else(|e| e.into_inner())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Sets (or removes) environment variables for the life of the guard, restoring them after.
struct EnvVars(Vec<(&'static str, Option<OsString>)>);

impl EnvVars {
    /// Callers hold `env_lock()`.
    fn set(vars: &[(&'static str, Option<&str>)]) -> EnvVars {
        let saved = vars
            .iter()
            .map(|(k, _)| (*k, std::env::var_os(k)))
            .collect();
        for (k, v) in vars {
            put(k, v.map(OsString::from));
        }
        EnvVars(saved)
    }
}

impl Drop for EnvVars {
    fn drop(&mut self) {
        for (k, v) in self.0.drain(..) {
            put(k, v);
        }
    }
}

fn put(k: &str, v: Option<OsString>) {
    // SAFETY: every test that touches the environment holds `ENV`, and no other thread of
    // this test binary reads it meanwhile.
    unsafe {
        match v {
            Some(v) => std::env::set_var(k, v),
            None => std::env::remove_var(k),
        }
    }
}

fn sample_key(n: u8) -> String {
    kernel_cache::key(
        &format!("extern \"C\" __global__ void k{n}() {{}}"),
        &[("atos/prelude.cuh", "// prelude")],
        &["--gpu-architecture=sm_90", "--std=c++17"],
        (9, 0),
        (13, 0),
    )
}

fn sample_entry() -> Entry {
    Entry {
        cubin: (0..4096u32).map(|i| (i * 31 % 251) as u8).collect(),
        log: "warning: something harmless".into(),
    }
}

fn path_of(dir: &Path, key: &str) -> PathBuf {
    kernel_cache::entry_path(dir, key).unwrap()
}

#[test]
fn key_is_a_sha256_hex_digest_of_every_input() {
    let base = sample_key(0);
    assert_eq!(base.len(), 64);
    assert!(
        base.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    assert_eq!(base, sample_key(0), "the key is deterministic");
    let src = "extern \"C\" __global__ void k0() {}";
    let headers = [("atos/prelude.cuh", "// prelude")];
    let opts = ["--gpu-architecture=sm_90", "--std=c++17"];
    let variants = [
        kernel_cache::key(&format!("{src} "), &headers, &opts, (9, 0), (13, 0)),
        kernel_cache::key(
            src,
            &[("atos/prelude.cuh", "// prelude!")],
            &opts,
            (9, 0),
            (13, 0),
        ),
        kernel_cache::key(
            src,
            &[("atos/other.cuh", "// prelude")],
            &opts,
            (9, 0),
            (13, 0),
        ),
        kernel_cache::key(src, &[] as &[(&str, &str)], &opts, (9, 0), (13, 0)),
        kernel_cache::key(src, &headers, &opts[..1], (9, 0), (13, 0)),
        kernel_cache::key(src, &headers, &opts, (10, 0), (13, 0)),
        kernel_cache::key(src, &headers, &opts, (9, 0), (13, 1)),
        // Moving bytes between parts changes the key (parts are length-prefixed).
        kernel_cache::key(
            src,
            &[("atos/prelude.cuh/", "/ prelude")],
            &opts,
            (9, 0),
            (13, 0),
        ),
    ];
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(*v, base, "variant {i} hashes like the base");
    }
}

#[test]
fn round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let key = sample_key(1);
    assert_eq!(kernel_cache::load(dir.path(), &key), None, "empty cache");
    kernel_cache::store(dir.path(), &key, &sample_entry()).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &key), Some(sample_entry()));
    // An empty log and CUBIN round-trip too.
    let empty = Entry {
        cubin: Vec::new(),
        log: String::new(),
    };
    kernel_cache::store(dir.path(), &key, &empty).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &key), Some(empty));
    // Nothing but the entry is left behind (no temporary files).
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn store_creates_the_directory_and_a_second_handle_reads_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("a").join("b");
    let key = sample_key(2);
    kernel_cache::store(&dir, &key, &sample_entry()).unwrap();
    // Another path naming the same directory, as another process would build it.
    let other: PathBuf = root.path().join("a").join(".").join("b");
    assert_eq!(kernel_cache::load(&other, &key), Some(sample_entry()));
    let copy = tempfile::tempdir().unwrap();
    fs::copy(path_of(&dir, &key), path_of(copy.path(), &key)).unwrap();
    assert_eq!(kernel_cache::load(copy.path(), &key), Some(sample_entry()));
}

/// Stores the sample entry, applies `damage` to the file's bytes and checks it is not loaded.
fn rejected(damage: impl FnOnce(&mut Vec<u8>), why: Reject) {
    let dir = tempfile::tempdir().unwrap();
    let key = sample_key(3);
    kernel_cache::store(dir.path(), &key, &sample_entry()).unwrap();
    let path = path_of(dir.path(), &key);
    let mut bytes = fs::read(&path).unwrap();
    damage(&mut bytes);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &key), None);
    assert_eq!(kernel_cache::try_load(dir.path(), &key), Err(why));
    // Storing again overwrites the bad entry.
    kernel_cache::store(dir.path(), &key, &sample_entry()).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &key), Some(sample_entry()));
}

#[test]
fn a_flipped_cubin_byte_is_rejected() {
    rejected(
        |b| {
            let i = b.len() - 100;
            b[i] ^= 1;
        },
        Reject::Checksum,
    );
}

#[test]
fn a_flipped_log_byte_is_rejected() {
    let key_len = sample_key(3).len();
    rejected(|b| b[36 + key_len] ^= 1, Reject::Checksum);
}

#[test]
fn a_truncated_file_is_rejected() {
    rejected(|b| b.truncate(b.len() - 1), Reject::Length);
    rejected(|b| b.truncate(20), Reject::Length);
    rejected(|b| b.clear(), Reject::Length);
}

#[test]
fn trailing_bytes_are_rejected() {
    rejected(|b| b.push(0), Reject::Length);
}

#[test]
fn a_wrong_magic_is_rejected() {
    rejected(|b| b[0] = b'X', Reject::Magic);
    rejected(
        |b| *b = b"\x7fELF not a cache entry".to_vec(),
        Reject::Magic,
    );
}

#[test]
fn another_format_version_is_rejected() {
    rejected(|b| b[8] = b[8].wrapping_add(1), Reject::Version);
}

#[test]
fn an_entry_stored_under_another_key_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (sample_key(4), sample_key(5));
    kernel_cache::store(dir.path(), &a, &sample_entry()).unwrap();
    fs::copy(path_of(dir.path(), &a), path_of(dir.path(), &b)).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &b), None);
    assert_eq!(kernel_cache::try_load(dir.path(), &b), Err(Reject::Key));
    assert_eq!(kernel_cache::load(dir.path(), &a), Some(sample_entry()));
}

#[test]
fn unusable_keys_and_directories_fail_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["", "../escape", "a/b", &"x".repeat(200)] {
        assert!(kernel_cache::entry_path(dir.path(), bad).is_none());
        assert!(kernel_cache::store(dir.path(), bad, &sample_entry()).is_err());
        assert_eq!(kernel_cache::load(dir.path(), bad), None);
    }
    // A directory that is a file can be neither written nor read.
    let file = dir.path().join("plain-file");
    fs::write(&file, b"x").unwrap();
    let key = sample_key(6);
    assert!(kernel_cache::store(&file, &key, &sample_entry()).is_err());
    assert_eq!(kernel_cache::load(&file, &key), None);
    // An entry path that is a directory is a miss.
    fs::create_dir(path_of(dir.path(), &key)).unwrap();
    assert_eq!(kernel_cache::load(dir.path(), &key), None);
}

#[test]
fn concurrent_stores_of_one_key_leave_a_valid_entry() {
    let dir = tempfile::tempdir().unwrap();
    let key = sample_key(7);
    let entries: Vec<Entry> = (0..8u8)
        .map(|t| Entry {
            cubin: vec![t; 64 * 1024 + t as usize],
            log: format!("writer {t}"),
        })
        .collect();
    let all = entries.as_slice();
    std::thread::scope(|s| {
        for e in all {
            let (dir, key) = (dir.path(), key.as_str());
            s.spawn(move || {
                for _ in 0..10 {
                    kernel_cache::store(dir, key, e).unwrap();
                    // Whatever a reader sees meanwhile is some writer's whole entry.
                    if let Some(seen) = kernel_cache::load(dir, key) {
                        assert!(all.contains(&seen));
                    }
                }
            });
        }
    });
    let last = kernel_cache::load(dir.path(), &key).expect("a valid entry");
    assert!(entries.contains(&last));
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "temporary files left behind");
}

#[test]
fn directory_rule_over_given_values() {
    let os = |s: &str| Some(OsString::from(s));
    let dir = kernel_cache::cache_dir_from;
    assert_eq!(
        dir(os("/c/atos"), os("/xdg"), os("/home/u")),
        Some("/c/atos".into())
    );
    assert_eq!(dir(os("off"), os("/xdg"), os("/home/u")), None);
    assert_eq!(dir(os(""), os("/xdg"), os("/home/u")), None);
    assert_eq!(
        dir(None, os("/xdg"), os("/home/u")),
        Some("/xdg/atos/kernels".into())
    );
    assert_eq!(
        dir(None, os(""), os("/home/u")),
        Some("/home/u/.cache/atos/kernels".into())
    );
    assert_eq!(
        dir(None, os("relative"), os("/home/u")),
        Some("/home/u/.cache/atos/kernels".into())
    );
    assert_eq!(
        dir(None, None, os("/home/u")),
        Some("/home/u/.cache/atos/kernels".into())
    );
    assert_eq!(dir(None, None, os("")), None);
    assert_eq!(dir(None, None, None), None);
}

#[test]
fn directory_follows_the_environment() {
    let _g = env_lock();
    let cases: [([Option<&str>; 3], Option<&str>); 6] = [
        (
            [Some("/tmp/atos-k"), Some("/xdg"), Some("/home/u")],
            Some("/tmp/atos-k"),
        ),
        ([Some("off"), Some("/xdg"), Some("/home/u")], None),
        ([Some(""), Some("/xdg"), Some("/home/u")], None),
        (
            [None, Some("/xdg"), Some("/home/u")],
            Some("/xdg/atos/kernels"),
        ),
        (
            [None, None, Some("/home/u")],
            Some("/home/u/.cache/atos/kernels"),
        ),
        ([None, None, None], None),
    ];
    for ([atos, xdg, home], want) in cases {
        let _vars = EnvVars::set(&[
            ("ATOS_CACHE_DIR", atos),
            ("XDG_CACHE_HOME", xdg),
            ("HOME", home),
        ]);
        assert_eq!(
            kernel_cache::cache_dir(),
            want.map(PathBuf::from),
            "ATOS_CACHE_DIR={atos:?} XDG_CACHE_HOME={xdg:?} HOME={home:?}"
        );
    }
}

#[test]
fn verbose_follows_the_environment() {
    let _g = env_lock();
    for (v, want) in [
        (None, false),
        (Some(""), false),
        (Some("0"), false),
        (Some("1"), true),
    ] {
        let _vars = EnvVars::set(&[("ATOS_CACHE_VERBOSE", v)]);
        assert_eq!(kernel_cache::verbose(), want, "ATOS_CACHE_VERBOSE={v:?}");
    }
}

const HOPPER: (i32, i32) = (9, 0);

fn nvrtc_or_skip() -> bool {
    if nvrtc::nvrtc_available() {
        return true;
    }
    assert!(
        !in_ci(),
        "NVRTC is missing under CI=true: run the tests through scripts/test.sh, which installs it"
    );
    eprintln!("skipping: NVRTC not found (run scripts/test.sh to install it from PyPI)");
    false
}

#[test]
fn nvrtc_second_compilation_comes_from_disk() {
    let _g = env_lock();
    if !nvrtc_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let _vars = EnvVars::set(&[
        ("ATOS_CACHE_DIR", tmp.path().to_str()),
        ("ATOS_CACHE_VERBOSE", None),
    ]);
    let dir = kernel_cache::cache_dir().unwrap();
    assert_eq!(dir, tmp.path());
    // A source no other test compiles, so this process's memory cache has not seen it.
    let source = "extern \"C\" __global__ void atos_kernel_cache_test(int* p) {\n    \
                  p[threadIdx.x] = threadIdx.x;\n}\n";

    // Memory and disk miss: NVRTC runs and the entry is written.
    let cold = nvrtc::compile_cubin(source, HOPPER).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cold.origin, CacheHit::Compiled);
    assert!(cold.cubin.len() > 100, "suspiciously small CUBIN");
    let entries: Vec<_> = fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "one cache file expected");

    // Same process: memory.
    let warm = nvrtc::compile_cubin(source, HOPPER).unwrap();
    assert_eq!(warm.origin, CacheHit::Memory);
    assert_eq!(warm.cubin, cold.cubin);

    // As a next process would: memory bypassed, disk hit, same bytes and log.
    let disk = nvrtc::compile_cubin_with(source, HOPPER, Some(&dir)).unwrap();
    assert_eq!(disk.origin, CacheHit::Disk);
    assert_eq!(disk.cubin, cold.cubin);
    assert_eq!(disk.log, cold.log);

    // A corrupted entry is recompiled and overwritten, then hit again.
    let path = entries[0].as_ref().unwrap().path();
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(&path, &bytes).unwrap();
    let again = nvrtc::compile_cubin_with(source, HOPPER, Some(&dir)).unwrap();
    assert_eq!(again.origin, CacheHit::Compiled);
    assert_eq!(again.cubin, cold.cubin);
    let hit = nvrtc::compile_cubin_with(source, HOPPER, Some(&dir)).unwrap();
    assert_eq!(hit.origin, CacheHit::Disk);
    assert_eq!(hit.cubin, cold.cubin);

    // Another architecture is another key.
    let other = nvrtc::compile_cubin_with(source, (8, 0), Some(&dir)).unwrap();
    assert_eq!(other.origin, CacheHit::Compiled);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);

    // No disk cache: always NVRTC, nothing written.
    let none = nvrtc::compile_cubin_with(source, HOPPER, None).unwrap();
    assert_eq!(none.origin, CacheHit::Compiled);
    assert_eq!(none.cubin, cold.cubin);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
}

#[test]
fn nvrtc_unwritable_cache_falls_back_to_compiling() {
    let _g = env_lock();
    if !nvrtc_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-directory");
    fs::write(&file, b"x").unwrap();
    let source = "extern \"C\" __global__ void atos_kernel_cache_unwritable(int* p) { *p = 7; }\n";
    for _ in 0..2 {
        let c = nvrtc::compile_cubin_with(source, HOPPER, Some(&file)).unwrap();
        assert_eq!(c.origin, CacheHit::Compiled);
        assert!(!c.cubin.is_empty());
    }
}

/// A unit's identity is its cache key: the same source gives the same id, another source or
/// other options (line info, `ATOS_NVRTC_LINEINFO`) another; NVRTC accepts the line-info option.
#[test]
fn nvrtc_unit_ids_follow_the_source_and_the_options() {
    let _g = env_lock();
    if !nvrtc_or_skip() {
        return;
    }
    let a = "extern \"C\" __global__ void atos_unit_id_a(int* p) { *p = 1; }\n";
    let b = "extern \"C\" __global__ void atos_unit_id_b(int* p) { *p = 2; }\n";
    let _plain = EnvVars::set(&[(nvrtc::LINEINFO_VAR, None)]);
    let id_a = nvrtc::unit_id(a, HOPPER).unwrap();
    assert_eq!(id_a.len(), 64, "{id_a}");
    assert_eq!(nvrtc::unit_id(a, HOPPER).unwrap(), id_a);
    assert_ne!(nvrtc::unit_id(b, HOPPER).unwrap(), id_a);
    let _lines = EnvVars::set(&[(nvrtc::LINEINFO_VAR, Some("1"))]);
    assert!(nvrtc::options(HOPPER).contains(&"--generate-line-info".to_string()));
    assert_ne!(nvrtc::unit_id(a, HOPPER).unwrap(), id_a);
    let with_lines = nvrtc::compile_cubin_with(a, HOPPER, None).unwrap();
    assert!(with_lines.log.is_empty(), "{}", with_lines.log);
    assert!(!with_lines.cubin.is_empty());
    let _off = EnvVars::set(&[(nvrtc::LINEINFO_VAR, Some("0"))]);
    assert_eq!(nvrtc::unit_id(a, HOPPER).unwrap(), id_a);
}
