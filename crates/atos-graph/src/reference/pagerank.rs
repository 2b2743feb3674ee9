//! PageRank references: data-driven push with residuals (the Atos formulation) and
//! power iteration, plus an error metric to compare any answer with either.
//!
//! The model: `x[v] = (1 - d) + d * sum over edges u -> v of x[u] / outdeg(u)`. Ranks are not
//! normalized (they sum to about n when no vertex is dangling) and a dangling vertex's rank
//! flows nowhere: the fixed point of the Atos push PageRank (owensgroup/ATOS
//! single-GPU/pr), so answers compare directly. Divide by n for probabilities.

use std::collections::VecDeque;

use rayon::prelude::*;

use crate::csr::Csr;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankOptions {
    pub damping: f64,
    /// Push: a vertex is pushed while its residual exceeds this. Power iteration: stop when
    /// no rank changes by more than this in an iteration.
    pub tolerance: f64,
    /// Power iteration only: the most iterations to run.
    pub max_iterations: u32,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tolerance: 1e-6,
            max_iterations: 1000,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    pub rank: Vec<f64>,
    /// Push: vertices processed. Power iteration: iterations run.
    pub work: u64,
    /// An upper bound on the L1 distance to the exact answer: what is left in residuals
    /// (push) or the last change (power iteration), amplified by 1 / (1 - d).
    pub error_bound: f64,
    /// Push: the residual each vertex has left. Power iteration: empty.
    pub residual: Vec<f64>,
}

/// Push-residual PageRank: every vertex starts with residual 1 - d; processing a vertex moves
/// its residual into its rank and pushes `d * r / outdeg` to each neighbour; a vertex is
/// queued again when its residual rises past the tolerance.
pub fn pagerank_push(g: &Csr, opts: PageRankOptions) -> PageRank {
    let n = g.num_vertices();
    let d = opts.damping;
    let mut rank = vec![0.0f64; n];
    let mut residual = vec![1.0 - d; n];
    let mut queued = vec![true; n];
    let mut queue: VecDeque<u32> = (0..n as u32).collect();
    let mut work = 0u64;
    while let Some(v) = queue.pop_front() {
        queued[v as usize] = false;
        let r = std::mem::take(&mut residual[v as usize]);
        rank[v as usize] += r;
        work += 1;
        let deg = g.degree(v);
        if deg == 0 {
            continue;
        }
        let share = d * r / deg as f64;
        for &u in g.neighbors(v) {
            let ru = &mut residual[u as usize];
            *ru += share;
            if *ru > opts.tolerance && !queued[u as usize] {
                queued[u as usize] = true;
                queue.push_back(u);
            }
        }
    }
    let left: f64 = residual.iter().sum();
    PageRank {
        rank,
        work,
        error_bound: left / (1.0 - d),
        residual,
    }
}

/// Power iteration (Jacobi): the textbook reference, run until the largest change is below
/// the tolerance or `max_iterations` is reached.
pub fn pagerank_power(g: &Csr, opts: PageRankOptions) -> PageRank {
    let n = g.num_vertices();
    let d = opts.damping;
    let mut rank = vec![1.0 - d; n];
    let mut next = vec![0.0f64; n];
    let mut iterations = 0u64;
    let mut change = f64::INFINITY;
    // On a symmetric graph the in-edges are the out-edges: each vertex pulls its sum in
    // parallel (the same sums, added in a fixed order per vertex). Otherwise push, in order.
    let symmetric = g.is_symmetric();
    let mut share = vec![0.0f64; n];
    while change > opts.tolerance && iterations < u64::from(opts.max_iterations) {
        if symmetric {
            share.par_iter_mut().enumerate().for_each(|(u, s)| {
                let deg = g.degree(u as u32);
                *s = if deg > 0 {
                    d * rank[u] / deg as f64
                } else {
                    0.0
                };
            });
            next.par_iter_mut().enumerate().for_each(|(v, x)| {
                *x = (1.0 - d)
                    + g.neighbors(v as u32)
                        .iter()
                        .map(|&u| share[u as usize])
                        .sum::<f64>();
            });
        } else {
            next.fill(1.0 - d);
            for u in 0..n as u32 {
                let deg = g.degree(u);
                if deg > 0 {
                    let share = d * rank[u as usize] / deg as f64;
                    for &v in g.neighbors(u) {
                        next[v as usize] += share;
                    }
                }
            }
        }
        change = rank
            .par_iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .reduce(|| 0.0, f64::max);
        std::mem::swap(&mut rank, &mut next);
        iterations += 1;
    }
    PageRank {
        rank,
        work: iterations,
        error_bound: change * n as f64 * d / (1.0 - d),
        residual: Vec::new(),
    }
}

/// How far an answer is from a reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankError {
    pub max_abs: f64,
    /// Largest |got - want| / want over vertices with want > 0.
    pub max_rel: f64,
    /// Sum |got - want| / sum |want|.
    pub l1_rel: f64,
}

/// An answer whose length differs from the reference, or holds a non-finite rank.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RankInvalid {
    #[error("the answer has {got} ranks for a graph of {n} vertices")]
    Length { got: usize, n: usize },
    #[error("rank of vertex {vertex} is {value}")]
    NotFinite { vertex: u32, value: f64 },
}

/// Compares `got` (f32 from a GPU, or f64) with a reference rank vector.
pub fn rank_error<T: Copy + Into<f64>>(got: &[T], want: &[f64]) -> Result<RankError, RankInvalid> {
    if got.len() != want.len() {
        return Err(RankInvalid::Length {
            got: got.len(),
            n: want.len(),
        });
    }
    let mut e = RankError {
        max_abs: 0.0,
        max_rel: 0.0,
        l1_rel: 0.0,
    };
    let (mut diff_sum, mut want_sum) = (0.0, 0.0);
    for (v, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g: f64 = g.into();
        if !g.is_finite() {
            return Err(RankInvalid::NotFinite {
                vertex: v as u32,
                value: g,
            });
        }
        let diff = (g - w).abs();
        e.max_abs = e.max_abs.max(diff);
        if w > 0.0 {
            e.max_rel = e.max_rel.max(diff / w);
        }
        diff_sum += diff;
        want_sum += w.abs();
    }
    e.l1_rel = if want_sum > 0.0 {
        diff_sum / want_sum
    } else {
        diff_sum
    };
    Ok(e)
}

/// What [`check_converged`] measured of a push PageRank answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Converged {
    /// L1 distance to the exact ranks.
    pub l1: f64,
    /// What it may be for any converged run: `n * tolerance / (1 - d)`, plus the rounding
    /// slack.
    pub bound: f64,
    /// What it may be for this run: the residuals left over `1 - d` (all they can still add
    /// to the ranks), plus ten times the rounding slack. At most `bound`.
    pub owed: f64,
    /// The largest residual left.
    pub max_residual: f64,
}

/// Checks an answer of a push PageRank that runs until no residual exceeds `tolerance` (as
/// [`pagerank_push`] and the Atos `pr` do): every residual left is at most `tolerance`, every
/// rank is finite, and the L1 distance to `exact` (e.g. [`pagerank_power`] run to a far smaller
/// tolerance) is at most what the residuals left can still add to the ranks, their sum over
/// `1 - d`, plus ten times `slack` times the total rank for rounding (`slack` for an f32
/// answer summed from many shares: 1e-5), and never more than `n * tolerance / (1 - d)` plus
/// `slack` times the total (the bound for any converged run: no residual is above the
/// tolerance). Checked against the residuals actually left, a rank that lost shares fails even
/// when the residuals are far below the tolerance. (Why: each push moves `r` into a rank and `d * r`
/// into residuals, so the exact ranks minus the answer's are the residuals left carried
/// through `(d P^T)^k` for every `k`, whose sum is at most the residuals' over `1 - d`.)
pub fn check_converged<T: Copy + Into<f64>>(
    rank: &[T],
    residual: &[T],
    exact: &[f64],
    opts: PageRankOptions,
    slack: f64,
) -> Result<Converged, String> {
    let e = rank_error(rank, exact).map_err(|e| e.to_string())?;
    let total: f64 = exact.iter().sum();
    let l1 = e.l1_rel * total;
    let bound = exact.len() as f64 * opts.tolerance / (1.0 - opts.damping) + slack * total;
    if let Some((v, r)) = residual
        .iter()
        .map(|&r| -> f64 { r.into() })
        .enumerate()
        .find(|(_, r)| !r.is_finite())
    {
        return Err(format!("residual of vertex {v} is {r}"));
    }
    let max_residual = residual.iter().map(|&r| r.into()).fold(0.0f64, f64::max);
    let left: f64 = residual.iter().map(|&r| r.into()).sum();
    // Ten times the slack: this bound is tight (equal to the distance in exact arithmetic when
    // no vertex is dangling), so rounding decides, and f32 runs on a GPU add in other orders
    // than the CPU's; lost shares of a hub are a percent of the mass or more.
    let owed = (left / (1.0 - opts.damping) + 10.0 * slack * total).min(bound);
    let c = Converged {
        l1,
        bound,
        owed,
        max_residual,
    };
    if residual.len() != exact.len() {
        return Err(format!(
            "{} residuals for {} vertices",
            residual.len(),
            exact.len()
        ));
    }
    if max_residual > opts.tolerance {
        return Err(format!(
            "a residual of {max_residual:e} is left above the tolerance {:e}: the run ended early",
            opts.tolerance
        ));
    }
    if l1 > owed {
        return Err(format!(
            "L1 distance to the exact ranks {l1:e} exceeds {owed:e}, what the residuals left can still add (their sum {left:e} over 1 - d) plus rounding: ranks lost shares (the bound for any converged run is {bound:e})"
        ));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;

    #[test]
    fn push_and_power_iteration_agree() {
        for spec in ["kron:10", "grid:30x30", "er:3000,deg=6"] {
            let g = generate::from_spec(spec).unwrap();
            let opts = PageRankOptions {
                tolerance: 1e-9,
                ..PageRankOptions::default()
            };
            let push = pagerank_push(&g, opts);
            let power = pagerank_power(&g, opts);
            let e = rank_error(&push.rank, &power.rank).unwrap();
            assert!(e.max_rel < 1e-5 && e.l1_rel < 1e-6, "{spec}: {e:?}");
            assert!(push.error_bound < 1e-9 * g.num_vertices() as f64 / 0.15 + 1e-12);
        }
    }

    #[test]
    fn ranks_match_a_hand_computed_star() {
        // Star: hub 0 joined to 3 leaves, both ways. Leaves: x = 0.15 + 0.85 * x0 / 3,
        // hub: x0 = 0.15 + 0.85 * 3x = 0.15 + 0.85 * (0.45 + 0.85 x0).
        let mut e = crate::build::EdgeList::new(4);
        for v in 1..4 {
            e.push(0, v);
        }
        let g = e.into_csr(crate::build::BuildOptions::default()).unwrap().0;
        let opts = PageRankOptions {
            tolerance: 1e-10,
            ..PageRankOptions::default()
        };
        let power = pagerank_power(&g, opts);
        let push = pagerank_push(&g, opts);
        let x0 = (0.15 + 0.85 * 0.45) / (1.0 - 0.85 * 0.85);
        let x = 0.15 + 0.85 * x0 / 3.0;
        let want = vec![x0, x, x, x];
        let e = rank_error(&power.rank, &want).unwrap();
        assert!(e.max_abs < 1e-8, "{e:?} {:?}", power.rank);
        assert!(rank_error(&push.rank, &want).unwrap().max_abs < 1e-8);
        assert!(rank_error(&[1.0f32, 2.0], &want).is_err());
        assert!(rank_error(&[f32::NAN, 0.0, 0.0, 0.0], &want).is_err());
    }

    #[test]
    fn converged_answers_pass_and_early_or_wrong_ones_fail() {
        let g = generate::from_spec("kron:9").unwrap();
        let opts = PageRankOptions {
            tolerance: 1e-4,
            ..PageRankOptions::default()
        };
        let exact = pagerank_power(
            &g,
            PageRankOptions {
                tolerance: 1e-12,
                ..opts
            },
        )
        .rank;
        let push = pagerank_push(&g, opts);
        let c = check_converged(&push.rank, &push.residual, &exact, opts, 1e-9).unwrap();
        assert!(c.l1 > 0.0 && c.l1 <= c.owed && c.owed <= c.bound, "{c:?}");
        // A residual left above the tolerance: the run ended early.
        let mut left = push.residual.clone();
        left[3] = 2e-4;
        assert!(check_converged(&push.rank, &left, &exact, opts, 0.0).is_err());
        // Ranks off by more than the bound.
        let off: Vec<f64> = push.rank.iter().map(|r| r * 1.01).collect();
        assert!(check_converged(&off, &push.residual, &exact, opts, 0.0).is_err());
        // At a coarse tolerance, the top vertex's rank without its incoming shares: within
        // the bound for any converged run, but more than the residuals left can add.
        let coarse = PageRankOptions {
            tolerance: 0.01,
            ..opts
        };
        let push = pagerank_push(&g, coarse);
        check_converged(&push.rank, &push.residual, &exact, coarse, 1e-9).unwrap();
        let top = (0..exact.len())
            .max_by(|&a, &b| exact[a].total_cmp(&exact[b]))
            .unwrap();
        let mut lost = push.rank.clone();
        lost[top] = 1.0 - coarse.damping;
        let l1_lost: f64 = exact.iter().zip(&lost).map(|(x, r)| (x - r).abs()).sum();
        assert!(l1_lost < exact.len() as f64 * coarse.tolerance / (1.0 - coarse.damping));
        let c = check_converged(&lost, &push.residual, &exact, coarse, 1e-9).unwrap_err();
        assert!(c.contains("ranks lost shares"), "{c}");
        // Residuals of zero claim the ranks are exact: the push answer is not.
        let none = vec![0.0; exact.len()];
        assert!(check_converged(&push.rank, &none, &exact, opts, 0.0).is_err());
        // A NaN residual is no residual at all.
        left[3] = f64::NAN;
        assert!(check_converged(&push.rank, &left, &exact, opts, 0.0).is_err());
    }
}
