//! Waits and timeouts given as numbers of seconds (command-line values, environment
//! variables): the one rule for which numbers are accepted, so that none reaches
//! `Duration::from_secs_f64` (which panics past `u64::MAX` seconds) or an `Instant` addition
//! that overflows.

use std::time::Duration;

/// The longest wait atos accepts as a number of seconds: 10^9 s, about 31.7 years.
pub const MAX_SECONDS: f64 = 1e9;

/// `s` seconds, if `s` is a positive number of at most [`MAX_SECONDS`] (not NaN).
pub fn positive_seconds(s: f64) -> Option<Duration> {
    (s > 0.0 && s <= MAX_SECONDS).then(|| Duration::from_secs_f64(s))
}

/// `s` seconds, if `s` is zero or a positive number of at most [`MAX_SECONDS`] (not NaN).
pub fn seconds_or_zero(s: f64) -> Option<Duration> {
    (0.0..=MAX_SECONDS)
        .contains(&s)
        .then(|| Duration::from_secs_f64(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_a_duration_holds_are_accepted() {
        assert_eq!(positive_seconds(1.5), Some(Duration::from_millis(1500)));
        assert_eq!(
            positive_seconds(MAX_SECONDS),
            Some(Duration::from_secs(1_000_000_000))
        );
        for bad in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e300,
            MAX_SECONDS * 1.01,
        ] {
            assert_eq!(positive_seconds(bad), None, "{bad}");
        }
        assert_eq!(seconds_or_zero(0.0), Some(Duration::ZERO));
        for bad in [-1e-9, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(seconds_or_zero(bad), None, "{bad}");
        }
    }
}
