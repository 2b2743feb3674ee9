//! The content-addressed on-disk kernel cache: compiled CUBINs keyed by a SHA-256 digest of
//! everything that goes into NVRTC, so that a second process skips the compiler.
//!
//! Plain functions over bytes and paths, with no NVRTC in sight, so they can be tested
//! anywhere. `nvrtc::compile_cubin` puts its in-memory cache in front of this one.
//!
//! An entry is one file, `<key>.cubin`, in the cache directory:
//!
//! | bytes | field                                                   |
//! |-------|---------------------------------------------------------|
//! | 8     | [`MAGIC`]                                               |
//! | 4     | [`FORMAT_VERSION`], little-endian                       |
//! | 4     | key length `k`, little-endian                           |
//! | 8     | CUBIN length `c`, little-endian                         |
//! | 4     | log length `l`, little-endian                           |
//! | 4     | CRC-32 of the CUBIN                                     |
//! | 4     | CRC-32 of the header fields above, the key and the log  |
//! | `k`   | the key (the hex digest)                                |
//! | `l`   | the NVRTC log (UTF-8)                                   |
//! | `c`   | the CUBIN                                               |
//!
//! An entry is loaded only when every field checks out and the file is exactly that long;
//! anything else (corrupt, truncated, foreign, another format version, another key) is a miss.
//! Writes go to a uniquely named temporary file in the same directory, renamed onto the
//! final name, so readers see either a whole old entry or a whole new one.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// The first bytes of every cache file.
pub const MAGIC: [u8; 8] = *b"ATOSKCB\0";

/// Bumped whenever the file layout or the key's inputs change; it is part of both the key and
/// the header, so entries of another version are never read.
pub const FORMAT_VERSION: u32 = 1;

/// The file name extension of cache entries.
pub const EXTENSION: &str = "cubin";

/// Environment variable naming the cache directory; `off` or empty disables the disk cache.
pub const ENV_DIR: &str = "ATOS_CACHE_DIR";

/// Environment variable that makes the cache print one line per hit, miss, rejection or
/// I/O failure to stderr.
pub const ENV_VERBOSE: &str = "ATOS_CACHE_VERBOSE";

/// Entries larger than this are not read (no legitimate CUBIN comes close).
const MAX_FILE_BYTES: u64 = 1 << 30;

const HEADER_BYTES: usize = 8 + 4 + 4 + 8 + 4 + 4 + 4;

/// The longest key accepted (a SHA-256 hex digest is 64 characters).
const MAX_KEY_LEN: usize = 128;

/// A cached compilation: the CUBIN and NVRTC's log (its warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub cubin: Vec<u8>,
    pub log: String,
}

/// The cache directory from the environment, or `None` when the disk cache is off:
/// `$ATOS_CACHE_DIR` if set (`off` or empty: disabled); else `$XDG_CACHE_HOME/atos/kernels`;
/// else `$HOME/.cache/atos/kernels`. See [`cache_dir_from`].
pub fn cache_dir() -> Option<PathBuf> {
    cache_dir_from(
        std::env::var_os(ENV_DIR),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`cache_dir`]'s rule over given values of `ATOS_CACHE_DIR`, `XDG_CACHE_HOME` and `HOME`.
/// An empty or relative `XDG_CACHE_HOME` is ignored (as the XDG spec says), and so is an
/// empty `HOME`.
pub fn cache_dir_from(
    atos_cache_dir: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    if let Some(dir) = atos_cache_dir {
        if dir.is_empty() || dir == "off" {
            return None;
        }
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = xdg_cache_home.map(PathBuf::from)
        && xdg.is_absolute()
    {
        return Some(xdg.join("atos").join("kernels"));
    }
    match home {
        Some(home) if !home.is_empty() => Some(
            PathBuf::from(home)
                .join(".cache")
                .join("atos")
                .join("kernels"),
        ),
        _ => None,
    }
}

/// Whether `ATOS_CACHE_VERBOSE` is set (to anything but empty or `0`).
pub fn verbose() -> bool {
    std::env::var_os(ENV_VERBOSE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The cache key: the SHA-256 hex digest (64 lowercase hex characters) of the format version,
/// the architecture, the NVRTC version, the options, every header (name and body, in order)
/// and the source. Every variable-length part is length-prefixed, so no two different inputs
/// share a byte stream.
pub fn key<N: AsRef<str>, B: AsRef<str>, O: AsRef<str>>(
    source: &str,
    headers: &[(N, B)],
    options: &[O],
    arch: (i32, i32),
    nvrtc_version: (i32, i32),
) -> String {
    fn bytes(h: &mut Sha256, b: &[u8]) {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    }
    let mut h = Sha256::new();
    bytes(&mut h, b"atos kernel cache");
    h.update(FORMAT_VERSION.to_le_bytes());
    for v in [arch.0, arch.1, nvrtc_version.0, nvrtc_version.1] {
        h.update(v.to_le_bytes());
    }
    h.update((options.len() as u64).to_le_bytes());
    for o in options {
        bytes(&mut h, o.as_ref().as_bytes());
    }
    h.update((headers.len() as u64).to_le_bytes());
    for (name, body) in headers {
        bytes(&mut h, name.as_ref().as_bytes());
        bytes(&mut h, body.as_ref().as_bytes());
    }
    bytes(&mut h, source.as_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Whether `key` can name a cache file: 1 to 128 ASCII letters, digits, `-` or `_`.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The file that holds `key`'s entry in `dir` (`None` for a key that cannot name a file).
pub fn entry_path(dir: &Path, key: &str) -> Option<PathBuf> {
    valid_key(key).then(|| dir.join(format!("{key}.{EXTENSION}")))
}

/// The bytes of a cache file holding `entry` under `key`.
pub fn encode(key: &str, entry: &Entry) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(HEADER_BYTES + key.len() + entry.log.len() + entry.cubin.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(&(entry.cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&(entry.log.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&entry.cubin).to_le_bytes());
    let header_crc = header_crc(&out, key.as_bytes(), entry.log.as_bytes());
    out.extend_from_slice(&header_crc.to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(entry.log.as_bytes());
    out.extend_from_slice(&entry.cubin);
    out
}

fn header_crc(fields: &[u8], key: &[u8], log: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(fields);
    h.update(key);
    h.update(log);
    h.finalize()
}

/// Why an entry was not loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    /// No file (or it could not be read).
    Missing,
    /// Shorter than its header says, or longer.
    Length,
    /// Not an atos cache file.
    Magic,
    /// Written by another format version.
    Version,
    /// Holds another key's entry.
    Key,
    /// A checksum does not match.
    Checksum,
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reject::Missing => "missing or unreadable",
            Reject::Length => "wrong length (truncated or padded)",
            Reject::Magic => "not an atos kernel cache file",
            Reject::Version => "another format version",
            Reject::Key => "holds another key",
            Reject::Checksum => "checksum mismatch (corrupt)",
        })
    }
}

/// Reads the entry for `key` out of a cache file's bytes, checking every field.
pub fn decode(bytes: &[u8], key: &str) -> Result<Entry, Reject> {
    let field = |at: usize, n: usize| bytes.get(at..at + n).ok_or(Reject::Length);
    let u32_at = |at| field(at, 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    if field(0, 8)? != MAGIC {
        return Err(Reject::Magic);
    }
    if u32_at(8)? != FORMAT_VERSION {
        return Err(Reject::Version);
    }
    let key_len = u32_at(12)? as usize;
    let cubin_len = u64::from_le_bytes(field(16, 8)?.try_into().unwrap());
    let log_len = u32_at(24)? as usize;
    let cubin_crc = u32_at(28)?;
    let stored_header_crc = u32_at(32)?;
    let total = (HEADER_BYTES as u64)
        .checked_add(key_len as u64)
        .and_then(|t| t.checked_add(log_len as u64))
        .and_then(|t| t.checked_add(cubin_len));
    if total != Some(bytes.len() as u64) {
        return Err(Reject::Length);
    }
    let key_at = HEADER_BYTES;
    let log_at = key_at + key_len;
    let cubin_at = log_at + log_len;
    let stored_key = &bytes[key_at..log_at];
    let log = &bytes[log_at..cubin_at];
    if header_crc(&bytes[..HEADER_BYTES - 4], stored_key, log) != stored_header_crc {
        return Err(Reject::Checksum);
    }
    if stored_key != key.as_bytes() {
        return Err(Reject::Key);
    }
    let cubin = &bytes[cubin_at..];
    if crc32fast::hash(cubin) != cubin_crc {
        return Err(Reject::Checksum);
    }
    let log = String::from_utf8(log.to_vec()).map_err(|_| Reject::Checksum)?;
    Ok(Entry {
        cubin: cubin.to_vec(),
        log,
    })
}

/// Loads `key`'s entry from `dir`, or says why not. Never panics.
pub fn try_load(dir: &Path, key: &str) -> Result<Entry, Reject> {
    let path = entry_path(dir, key).ok_or(Reject::Key)?;
    let file = fs::File::open(&path).map_err(|_| Reject::Missing)?;
    let len = file.metadata().map_err(|_| Reject::Missing)?.len();
    if len > MAX_FILE_BYTES {
        return Err(Reject::Length);
    }
    let mut bytes = Vec::with_capacity(len as usize);
    io::Read::read_to_end(&mut io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)
        .map_err(|_| Reject::Missing)?;
    decode(&bytes, key)
}

/// Loads `key`'s entry from `dir`: `None` when there is none or it does not check out.
pub fn load(dir: &Path, key: &str) -> Option<Entry> {
    try_load(dir, key).ok()
}

/// Stores `entry` under `key` in `dir` (created if needed), atomically: the bytes go to a
/// uniquely named temporary file in `dir` that is then renamed onto the entry's name.
pub fn store(dir: &Path, key: &str, entry: &Entry) -> io::Result<()> {
    let path = entry_path(dir, key).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a cache key must be 1 to 128 ASCII letters, digits, '-' or '_'",
        )
    })?;
    fs::create_dir_all(dir)?;
    let tmp = dir.join(temp_name(key));
    let written = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(&encode(key, entry))?;
        f.flush()?;
        drop(f);
        fs::rename(&tmp, &path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// `.<key>.<pid>.<counter>.<nanos>.tmp`: unique across threads and processes.
fn temp_name(key: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(".{key}.{}.{n}.{nanos}.tmp", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
    }

    #[test]
    fn every_header_field_is_checked() {
        let entry = Entry {
            cubin: vec![1, 2, 3, 4, 5],
            log: "warning".into(),
        };
        let good = encode("k", &entry);
        assert_eq!(decode(&good, "k"), Ok(entry));
        // A flip anywhere is caught, whichever check catches it.
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            assert!(decode(&bad, "k").is_err(), "flip at byte {i} accepted");
        }
        for n in 0..good.len() {
            assert!(decode(&good[..n], "k").is_err(), "{n}-byte prefix accepted");
        }
    }
}
