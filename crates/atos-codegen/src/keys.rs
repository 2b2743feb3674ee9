//! Priority keys: how a key is encoded so that keys of every supported type compare as u64
//! integers, and how the threshold advances. The CUDA twins are `encode_key` and
//! `next_threshold` in `atos/queue.cuh`; both executors and the windowed host loop advance with
//! [`next_threshold`], so a run takes the same thresholds wherever it is driven from.

use crate::ir::Scalar;
use crate::layout::EVERY_KEY;

/// The key types a priority queue takes.
pub const KEY_TYPES: [Scalar; 2] = [Scalar::U32, Scalar::F32];

/// A u32 key as itself; an f32 key's bits with the sign bit set for positives and every bit
/// flipped for negatives, so that encoded keys sort as the floats do (NaN above +inf).
pub fn encode(key: Scalar, bits: u64) -> u64 {
    match key {
        Scalar::F32 => {
            let b = bits as u32;
            u64::from(if b & 0x8000_0000 != 0 {
                !b
            } else {
                b | 0x8000_0000
            })
        }
        _ => bits & 0xffff_ffff,
    }
}

/// The key bits an encoded key came from (`encode`'s inverse below [`EVERY_KEY`]).
pub fn decode(key: Scalar, enc: u64) -> u64 {
    match key {
        Scalar::F32 => {
            let e = enc as u32;
            u64::from(if e & 0x8000_0000 != 0 {
                e & 0x7fff_ffff
            } else {
                !e
            })
        }
        _ => enc,
    }
}

/// The threshold after an advance from `t`: `delta` (key bits) above the smallest key sent to
/// the far ring since the last advance (`pass_min`, encoded; [`EVERY_KEY`] when none): by a
/// task's push or by the finished pass's push-back; or above `t` when that is larger. Every far
/// item's key is at least `pass_min`, so an advance skips only empty key ranges (without an
/// empty pass each). Always above `t` (an f32 step too small to change the key moves one encoded
/// step), at most [`EVERY_KEY`] (every key near).
pub fn next_threshold(key: Scalar, t: u64, delta: u64, pass_min: u64) -> u64 {
    if t >= EVERY_KEY {
        return EVERY_KEY;
    }
    let base = if pass_min < EVERY_KEY && pass_min > t {
        pass_min
    } else {
        t
    };
    let next = match key {
        Scalar::F32 => {
            let b = f32::from_bits(decode(key, base) as u32);
            let n = b + f32::from_bits(delta as u32);
            if n.is_nan() || n == f32::INFINITY {
                EVERY_KEY
            } else {
                encode(key, u64::from(n.to_bits()))
            }
        }
        _ => base.saturating_add(delta).min(EVERY_KEY),
    };
    next.max(base + 1).min(EVERY_KEY)
}

/// A persistent advance's new `(threshold, band_end)` from the old ones (`advance_band` in
/// queue.cuh). Keys in `[t, u)` wait in the next ring. When it holds items (`next_held`) their
/// band becomes current: the threshold moves to `u` and the band after it is one `delta` wide.
/// It must not start past `u`, even when every far key (at least `pass_min`) is far above: the
/// band's own tasks have not run yet and may push any key from `u` on, and a wider band would
/// serve two levels at once (k-core's peeling, delta 1, relies on it). When the next ring holds
/// none, nothing runs that could push below `pass_min` (slack 0), so the threshold moves as
/// [`next_threshold`] says from `u`, skipping key ranges no far item holds, and the band after
/// it is one `delta` wide. Either way `t <= t2 < u2` unless `t2` is [`EVERY_KEY`].
pub fn advance_band(
    key: Scalar,
    t: u64,
    u: u64,
    delta: u64,
    pass_min: u64,
    next_held: bool,
) -> (u64, u64) {
    let from = u.max(t);
    if next_held {
        (from, next_threshold(key, from, delta, EVERY_KEY))
    } else {
        let t2 = next_threshold(key, from, delta, pass_min);
        (t2, next_threshold(key, t2, delta, EVERY_KEY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_band_opens_the_held_band_or_skips_to_the_far_minimum() {
        let k = Scalar::U32;
        // The first advance of a run (band end = threshold): the band after the far minimum.
        assert_eq!(advance_band(k, 10, 10, 5, 40, false), (45, 50));
        // The next ring holds [10, 15): it becomes current, the next band is delta wide, even
        // when every far key lies beyond it (its tasks may still push keys from 15 on).
        assert_eq!(advance_band(k, 10, 15, 5, 15, true), (15, 20));
        assert_eq!(advance_band(k, 10, 15, 5, 30, true), (15, 20));
        assert_eq!(advance_band(k, 10, 15, 5, EVERY_KEY, true), (15, 20));
        // An empty next ring: skip to the far minimum's band.
        assert_eq!(advance_band(k, 10, 15, 5, 30, false), (35, 40));
        // The top: both end at EVERY_KEY.
        assert_eq!(
            advance_band(k, EVERY_KEY - 3, EVERY_KEY - 1, 5, EVERY_KEY, true),
            (EVERY_KEY - 1, EVERY_KEY)
        );
        assert_eq!(
            advance_band(k, EVERY_KEY - 3, EVERY_KEY - 1, 5, EVERY_KEY, false),
            (EVERY_KEY, EVERY_KEY)
        );
    }

    fn f(x: f32) -> u64 {
        encode(Scalar::F32, u64::from(x.to_bits()))
    }

    #[test]
    fn f32_keys_sort_as_floats() {
        let xs = [
            f32::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            1e-30,
            2.0,
            7.25,
            f32::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(f(w[0]) <= f(w[1]), "{} vs {}", w[0], w[1]);
        }
        assert!(f(f32::INFINITY) < f(f32::NAN));
        for x in xs {
            assert_eq!(decode(Scalar::F32, f(x)) as u32, x.to_bits());
        }
        assert!(f(f32::NAN) < EVERY_KEY);
    }

    #[test]
    fn advances_by_delta_or_past_the_pass_minimum() {
        assert_eq!(next_threshold(Scalar::U32, 10, 5, EVERY_KEY), 15);
        assert_eq!(next_threshold(Scalar::U32, 10, 5, 12), 17);
        assert_eq!(next_threshold(Scalar::U32, 10, 5, 100), 105);
        assert_eq!(
            next_threshold(Scalar::U32, u64::from(u32::MAX), 5, EVERY_KEY),
            EVERY_KEY
        );
        assert_eq!(next_threshold(Scalar::U32, EVERY_KEY, 5, 3), EVERY_KEY);
        let t = next_threshold(Scalar::F32, f(1.0), u64::from(0.5f32.to_bits()), EVERY_KEY);
        assert_eq!(t, f(1.5));
        let t = next_threshold(Scalar::F32, f(1.0), u64::from(0.5f32.to_bits()), f(4.0));
        assert_eq!(t, f(4.5));
        // A step too small for the key's precision still moves.
        let t = next_threshold(
            Scalar::F32,
            f(1e10),
            u64::from(1e-3f32.to_bits()),
            EVERY_KEY,
        );
        assert_eq!(t, f(1e10) + 1);
        let t = next_threshold(
            Scalar::F32,
            f(3e38),
            u64::from(3e38f32.to_bits()),
            EVERY_KEY,
        );
        assert_eq!(t, EVERY_KEY);
    }
}
