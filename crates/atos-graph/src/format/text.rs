//! Fast line and field scanning for the text formats: large reads, `memchr` for line ends,
//! hand-rolled integer parsing (the hot path of every text reader).

use std::io::Read;

/// The longest line accepted; graph formats have short lines, so a longer one means the
/// input is not what it claims to be (and must not grow the buffer without bound).
pub(crate) const MAX_LINE: usize = 1 << 20;

const CHUNK: usize = 1 << 20;

/// Reads lines without allocating per line. Line numbers start at 1; `\r\n` ends work too.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    pub line: u64,
    pub bytes: u64,
}

pub(crate) enum LineError {
    Io(std::io::Error),
    TooLong,
}

impl<R: Read> Lines<R> {
    pub fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            bytes: 0,
        }
    }

    /// The next line without its terminator, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let (lo, hi) = (self.start, self.start + i);
                self.start = hi + 1;
                return Ok(Some(self.finish(lo, hi)));
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let (lo, hi) = (self.start, self.end);
                self.start = self.end;
                return Ok(Some(self.finish(lo, hi)));
            }
            self.refill()?;
        }
    }

    fn finish(&mut self, lo: usize, mut hi: usize) -> (u64, &[u8]) {
        self.line += 1;
        if hi > lo && self.buf[hi - 1] == b'\r' {
            hi -= 1;
        }
        (self.line, &self.buf[lo..hi])
    }

    fn refill(&mut self) -> Result<(), LineError> {
        let pending = self.end - self.start;
        if pending >= MAX_LINE {
            self.line += 1;
            return Err(LineError::TooLong);
        }
        self.buf.copy_within(self.start..self.end, 0);
        (self.start, self.end) = (0, pending);
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(k) => {
                    self.end += k;
                    self.bytes += k as u64;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            }
        }
    }
}

/// Fields of one line, split on spaces and tabs (and commas when asked).
pub(crate) struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
    comma: bool,
}

impl<'a> Fields<'a> {
    pub fn new(line: &'a [u8], comma: bool) -> Self {
        Fields {
            line,
            pos: 0,
            comma,
        }
    }

    fn is_sep(&self, b: u8) -> bool {
        b == b' ' || b == b'\t' || (self.comma && b == b',')
    }

    pub fn count(mut self) -> usize {
        let mut k = 0;
        while self.next().is_some() {
            k += 1;
        }
        k
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.line;
        while self.pos < line.len() && self.is_sep(line[self.pos]) {
            self.pos += 1;
        }
        if self.pos == line.len() {
            return None;
        }
        let lo = self.pos;
        while self.pos < line.len() && !self.is_sep(line[self.pos]) {
            self.pos += 1;
        }
        Some(&line[lo..self.pos])
    }
}

/// Whether a line is blank (spaces, tabs and nothing else).
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// A decimal unsigned integer (digits only), or `None` on anything else or overflow.
pub(crate) fn parse_u64(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() || tok.len() > 20 {
        return None;
    }
    let mut x: u64 = 0;
    for &b in tok {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        x = x.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(x)
}

/// A signed decimal integer.
pub(crate) fn parse_i64(tok: &[u8]) -> Option<i64> {
    match tok.split_first() {
        Some((b'-', rest)) => 0i64.checked_sub_unsigned(parse_u64(rest)?),
        Some((b'+', rest)) => i64::try_from(parse_u64(rest)?).ok(),
        _ => i64::try_from(parse_u64(tok)?).ok(),
    }
}

/// A finite decimal float (Rust syntax: `1`, `-2.5`, `3e-4`; no `inf`, no `nan`).
pub(crate) fn parse_finite_f32(tok: &[u8]) -> Option<f32> {
    let s = std::str::from_utf8(tok).ok()?;
    s.parse::<f32>().ok().filter(|x| x.is_finite())
}

/// A token for an error message: lossy UTF-8, cut short.
pub(crate) fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_handle_crlf_missing_final_newline_and_small_reads() {
        struct Drip<'a>(&'a [u8]);
        impl Read for Drip<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let k = buf.len().min(3).min(self.0.len());
                buf[..k].copy_from_slice(&self.0[..k]);
                self.0 = &self.0[k..];
                Ok(k)
            }
        }
        let mut l = Lines::new(Drip(b"a b\r\n\nlast"));
        let mut got = Vec::new();
        while let Ok(Some((_, line))) = l.next_line() {
            got.push(String::from_utf8(line.to_vec()).unwrap());
        }
        assert_eq!(got, ["a b", "", "last"]);
        assert_eq!(l.line, 3);
    }

    #[test]
    fn overlong_lines_are_refused() {
        let data = vec![b'1'; MAX_LINE + 10];
        let mut l = Lines::new(&data[..]);
        assert!(matches!(l.next_line(), Err(LineError::TooLong)));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"12a"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"-12"), Some(-12));
        assert_eq!(parse_i64(b"+7"), Some(7));
        assert_eq!(parse_finite_f32(b"2.5e1"), Some(25.0));
        assert_eq!(parse_finite_f32(b"inf"), None);
        assert_eq!(parse_finite_f32(b"NaN"), None);
        let f: Vec<&[u8]> = Fields::new(b" 1,\t2 ,3", true).collect();
        assert_eq!(f, [b"1", b"2", b"3"]);
    }
}
