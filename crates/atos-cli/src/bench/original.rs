//! `--compare-original DIR`: the original Atos binaries (built by
//! `../shared/baselines/atos-original.sh build`) on the same graphs, one process per run
//! (`-rounds 1`: the original test drivers validate only their last round).
//!
//! What the drivers print (all to stdout unless said; a failed CUDA call prints `Cuda error in
//! file '<f>' in line <l> : <msg>.` to stderr and exits 1; a device trap or assert surfaces the
//! same way or as a signal; a host `assert` aborts with SIGABRT):
//!
//! - **BFS** (single-GPU/bfs/test_bfs*.cu, validation_bfs.cuh): `Time: <ms>` per round, then
//!   `Ave. Time: <ms>`, `Ave. Workload(vertices): <n>`, then the host validation: up to ten
//!   `h_depth[i]: <cpu>  bfs.depth[i]: <gpu>` lines for wrong depths, `enqueued nodes: <n>` and
//!   `ERROR between CPU and GPU implimentation: <sum of |differences|>`.
//! - **PageRank** (single-GPU/pr/test_pr.cu, test_pr_cta.cu, test_pr_discrete.cu,
//!   validation.cuh). Flags: `-l <lambda>`, `-p <epsilon>`, `-i`, `-rounds`, `-check 1` (no `-r`;
//!   without `-check 1` the host validation `host::PrValid` never runs). The persistent drivers
//!   (pr, pr_cta) print per round `Time: <ms>`, `workload: <n>` and `num of <K> res larger than
//!   <eps>` (K: residues `>= eps` left after the run), then `Ave. Time: %8.2f` and `Ave Workload:
//!   <n>` (printf; no dot after `Ave`). The discrete driver prints `Time:`, `workload vertices:`,
//!   `kernels launched:` per round, then `Ave. Time: <ms>`, `Ave. Workload(vertices): <n>` and
//!   `Ave. kernels launched: <n>` (cout), and **no** residue count of its own. `PrValid` (all
//!   three, with `-check 1`) reruns PageRank on the CPU and prints `CPU total mass: ...`, `GPU
//!   rank: sum of rank <R> error from CPU <E>` (E: sum over vertices of |gpu rank - cpu rank|),
//!   `GPU res: sum of res <S> error from CPU <E> <L> number of res larger than <eps>` (L:
//!   residues `> eps`), `GPU sum_rank: ...` and the first 20 ranks. A full queue trips a device
//!   `assert` (queue.cuh) or prints `bqueue end update error: ...`.
//! - **Coloring** (single-GPU/gc/test_gc.cu, validation.cuh): `max degree <d>`, per round
//!   `Time: <ms>` (and `workload <n>` for the async modes), then `Ave. Time: <ms>`, `Ave.
//!   Workload(vertices): <n>`, then `GCValid`: `use color <N>` and `Pass Validation` or `Fail
//!   Validation` (a device kernel flags any edge whose two ends share a colour). Host asserts
//!   in `GCValid` (a colour above the max degree, an uncoloured vertex) abort. `-run_bsp_async`
//!   picks the mode (0 runs all of them, hence always passing it), `-rounds` defaults to 10,
//!   and the async modes run one untimed warm-up before the rounds.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Which driver's output format (and validation) a binary has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    Bfs,
    PageRank,
    Coloring,
}

/// One original binary and how to call it.
#[derive(Clone, Copy, Debug)]
pub struct OriginalBinary {
    /// The file name in `DIR/bin`.
    pub name: &'static str,
    /// A unique name for the row (one binary may give several rows, e.g. gc_32's modes):
    /// `--original-idle LABEL=LIST` matches on it. Equal to `name` for BFS and PageRank.
    pub label: &'static str,
    pub kind: OutputKind,
    pub extra_args: &'static [&'static str],
    pub worker: &'static str,
    pub strategy: &'static str,
    pub fetch: Option<u32>,
    /// Default idle-poll counts (`-i`), one row each; where each came from is documented on the
    /// binary lists.
    pub default_idle: &'static [u64],
}

/// The BFS binaries of atos-original.sh. Idle counts from atos-original.sh's header: what each
/// needed on an H100 (bfs_warp: -i 1000 on kron:22, 40000 on luxembourg_osm).
pub const BFS_BINARIES: [OriginalBinary; 3] = [
    OriginalBinary {
        name: "bfs_warp",
        label: "bfs_warp",
        kind: OutputKind::Bfs,
        extra_args: &["-o", "2"],
        worker: "warp",
        strategy: "persistent",
        fetch: None,
        default_idle: &[1000, 40000],
    },
    OriginalBinary {
        name: "bfs_cta_64",
        label: "bfs_cta_64",
        kind: OutputKind::Bfs,
        extra_args: &[],
        worker: "cta",
        strategy: "persistent",
        fetch: Some(64),
        default_idle: &[30000],
    },
    OriginalBinary {
        name: "bfs_discrete_64",
        label: "bfs_discrete_64",
        kind: OutputKind::Bfs,
        extra_args: &[],
        worker: "cta",
        strategy: "discrete",
        fetch: Some(64),
        default_idle: &[10],
    },
];

/// The PageRank binaries of atos-original.sh. Idle counts from single-GPU/tests/run_pr.sh (the
/// authors' runs, on a V100), road graph first, then scale-free:
/// - `pr` (persist-warp, `_launchWarpPer32Items`): road_usa -i 400 (roadNet-CA 100);
///   indochina-2004 -i 1600 (hollywood-2009 500, soc-LiveJournal1 200).
/// - `pr_cta_256` (persist-CTA, fetch 256, built with NROUNDS=1): road_usa -i 400 with
///   pr_cta_256 (roadNet-CA 60); indochina-2004 -i 750 (with pr_cta_128; hollywood 200, LJ 150,
///   twitter 200 with other fetch sizes).
/// - `pr_discrete_128` (discrete-CTA, host polls): -i 10 on every graph but twitter (200, with
///   pr_cta_discrete_32).
pub const PR_BINARIES: [OriginalBinary; 3] = [
    OriginalBinary {
        name: "pr",
        label: "pr",
        kind: OutputKind::PageRank,
        extra_args: &[],
        worker: "warp",
        strategy: "persistent",
        fetch: None,
        default_idle: &[400, 1600],
    },
    OriginalBinary {
        name: "pr_cta_256",
        label: "pr_cta_256",
        kind: OutputKind::PageRank,
        extra_args: &[],
        worker: "cta",
        strategy: "persistent",
        fetch: Some(256),
        default_idle: &[400, 750],
    },
    OriginalBinary {
        name: "pr_discrete_128",
        label: "pr_discrete_128",
        kind: OutputKind::PageRank,
        extra_args: &[],
        worker: "cta",
        strategy: "discrete",
        fetch: Some(128),
        default_idle: &[10],
    },
];

/// The coloring modes of `gc_32` (one binary, three rows). Idle counts from
/// single-GPU/tests/run_gc.sh:
/// - BSP (`-run_bsp_async 1`, `GC_BSP::GCStart_warp_thread_cta`): it never reads `-i` (only
///   `GC_Async` takes `min_iter`; the script passes 100 to 155000 all the same), so one row at 0.
///   Its worker is neither one kind: `sortNodes` bins vertices by degree (< 32: a thread each,
///   < 1024: a warp, else a CTA) and three kernels run per level, hence `thread+warp+cta`.
/// - persist-warp (`-run_bsp_async 2 -o 2`, `GCWarp_op`, 32 items per warp): road_usa and
///   roadNet-CA -i 10; hollywood-2009 -i 5000 (soc-LiveJournal1 500, indochina-2004 1600).
/// - persist-CTA (`-run_bsp_async 2 -o 3 -mesh 0`, `GCCTA<32>`): with gc_32, soc-LiveJournal1
///   -i 150 and indochina-2004 -i 400 (the road graphs were run with gc_256 `-mesh 1`, a
///   different kernel, at -i 10-20; hollywood with gc_128 at 100).
pub const GC_BINARIES: [OriginalBinary; 3] = [
    OriginalBinary {
        name: "gc_32",
        label: "gc_32_bsp",
        kind: OutputKind::Coloring,
        extra_args: &["-run_bsp_async", "1"],
        worker: "thread+warp+cta",
        strategy: "bsp",
        fetch: None,
        default_idle: &[0],
    },
    OriginalBinary {
        name: "gc_32",
        label: "gc_32_warp",
        kind: OutputKind::Coloring,
        extra_args: &["-run_bsp_async", "2", "-o", "2"],
        worker: "warp",
        strategy: "persistent",
        fetch: None,
        default_idle: &[10, 5000],
    },
    OriginalBinary {
        name: "gc_32",
        label: "gc_32_cta",
        kind: OutputKind::Coloring,
        extra_args: &["-run_bsp_async", "2", "-o", "3", "-mesh", "0"],
        worker: "cta",
        strategy: "persistent",
        fetch: Some(32),
        default_idle: &[150, 400],
    },
];

/// The damping factor passed to the PageRank drivers (`-l`; also their default).
pub const PR_LAMBDA: f32 = 0.85;

/// How one run of an original binary ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It finished, printed its time and its validation found nothing wrong.
    Ok { time_ms: f64 },
    /// Its validation (or, for PageRank, its residue count) says the answer is wrong; `reason`
    /// is a sentence saying what was wrong.
    Wrong { reason: String },
    /// It crashed, timed out, or printed no time or no validation.
    Crashed { reason: String },
}

/// A parsed run.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub verdict: Verdict,
    /// The workload it reported (vertices popped), if non-zero.
    pub workload: Option<u64>,
    /// Coloring: the colours it used (`use color N`).
    pub colors: Option<u64>,
    /// PageRank: `PrValid`'s sum over vertices of |GPU rank - CPU rank| (`GPU rank: ... error
    /// from CPU E`). Not judged here: the bound depends on the vertex count, so the caller does.
    pub rank_error: Option<f64>,
}

/// How the process ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Exit {
    Code(i32),
    /// Killed by a signal (a segfault, an abort) or by the timeout.
    Killed(String),
}

fn value_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.trim()
        .strip_prefix(key)
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// Lines that say the run went wrong, besides the drivers' own normal lines that contain such
/// words: BFS's `ERROR between CPU and GPU`, PrValid's `GPU rank:`/`GPU res: ... error from
/// CPU`, and the `file: <path>` echo of every driver (a path may contain anything).
fn is_error_line(line: &str) -> bool {
    if line.contains("ERROR between CPU and GPU")
        || line.starts_with("GPU rank:")
        || line.starts_with("GPU res:")
        || line.starts_with("file: ")
    {
        return false;
    }
    [
        "illegal",
        "error",
        "Error",
        "Assertion",
        "assert",
        "abort",
        "trap",
        "Segmentation",
    ]
    .iter()
    .any(|k| line.contains(k))
}

/// `num of <K> res larger than <eps>` (pr, pr_cta, per round): (K, eps as printed).
fn round_residues(line: &str) -> Option<(Option<u64>, &str)> {
    let rest = line.strip_prefix("num of ")?;
    let (k, eps) = rest.split_once(" res larger than ")?;
    Some((k.trim().parse().ok(), eps.trim()))
}

/// PrValid's `GPU res: sum of res <S> error from CPU <E> <L> number of res larger than <eps>`:
/// (L, eps as printed).
fn valid_residues(line: &str) -> Option<(Option<u64>, &str)> {
    let rest = line.strip_prefix("GPU res:")?;
    let (head, eps) = rest.split_once(" number of res larger than ")?;
    let l = head.split_whitespace().last()?;
    Some((l.parse().ok(), eps.trim()))
}

/// Classifies one run from its output and exit (a pure function; see the module comment for the
/// formats). A wrong or crashed run never yields a time. Rules:
/// - every kind: crashed on a non-zero exit, a signal or timeout, an error line (see
///   `is_error_line`), or a missing or non-numeric `Ave. Time`;
/// - BFS: wrong if its validation printed a mismatch line or a non-zero error sum; crashed if it
///   printed no `ERROR between CPU and GPU` line;
/// - PageRank: wrong if any residue count (the drivers' per-round `num of K res larger than
///   EPS`, PrValid's `L number of res larger than EPS`) is non-zero; crashed if none was printed
///   or one is not a number. The rank error is only reported (`Parsed::rank_error`);
/// - Coloring: wrong on `Fail Validation`, correct on `Pass Validation`, crashed on neither.
pub fn parse_output(kind: OutputKind, stdout: &str, stderr: &str, exit: &Exit) -> Parsed {
    let mut time = None;
    let mut workload = None;
    let mut colors = None;
    let mut rank_error = None;
    let mut error_line = None;
    // BFS
    let mut error_sum: Option<Option<i64>> = None;
    let mut shown = 0usize;
    // PageRank: (count, eps, which line) per count line, in order.
    let mut residues: Vec<(Option<u64>, String, &'static str)> = Vec::new();
    // Coloring: Some(true) = Pass, Some(false) = Fail (a Fail wins).
    let mut passed: Option<bool> = None;
    for line in stdout.lines().chain(stderr.lines()) {
        let t = line.trim();
        if let Some(v) = value_after(t, "Ave. Time:") {
            time = Some(v.parse::<f64>().ok());
        } else if let Some(v) = value_after(t, "Ave. Workload(vertices):")
            .or_else(|| value_after(t, "Ave Workload:").filter(|_| kind == OutputKind::PageRank))
        {
            // bfs_warp (-o 2) reports 0: its counter is not the one it reads back.
            workload = v.parse().ok().filter(|&w: &u64| w > 0);
        } else if kind == OutputKind::Bfs
            && let Some(v) = value_after(t, "ERROR between CPU and GPU implimentation:")
        {
            error_sum = Some(v.parse().ok());
        } else if kind == OutputKind::Bfs && t.starts_with("h_depth[") && t.contains("bfs.depth[") {
            shown += 1;
        } else if kind == OutputKind::PageRank
            && let Some((k, eps)) = round_residues(t)
        {
            residues.push((k, eps.to_string(), "num of K res larger than EPS"));
        } else if kind == OutputKind::PageRank
            && let Some((l, eps)) = valid_residues(t)
        {
            residues.push((
                l,
                eps.to_string(),
                "GPU res: ... L number of res larger than EPS",
            ));
        } else if kind == OutputKind::PageRank
            && let Some(rest) = t.strip_prefix("GPU rank:")
        {
            rank_error = rest
                .split_once("error from CPU")
                .and_then(|(_, e)| e.trim().parse::<f64>().ok());
        } else if kind == OutputKind::Coloring
            && let Some(v) = value_after(t, "use color")
        {
            colors = v.parse().ok();
        } else if kind == OutputKind::Coloring && t == "Pass Validation" {
            passed.get_or_insert(true);
        } else if kind == OutputKind::Coloring && t == "Fail Validation" {
            passed = Some(false);
        } else if error_line.is_none() && is_error_line(t) {
            error_line = Some(t.to_string());
        }
    }
    let done = |verdict: Verdict| Parsed {
        verdict,
        workload,
        colors,
        rank_error,
    };
    let crashed = |reason: String| done(Verdict::Crashed { reason });
    let wrong = |reason: String| done(Verdict::Wrong { reason });
    let detail = error_line
        .as_ref()
        .map_or(String::new(), |l| format!(": {l}"));
    match exit {
        Exit::Killed(how) => return crashed(format!("{how}{detail}")),
        Exit::Code(c) if *c != 0 => return crashed(format!("exit code {c}{detail}")),
        Exit::Code(_) => {}
    }
    if let Some(l) = error_line {
        return crashed(l);
    }
    let time = match time {
        Some(Some(t)) if t.is_finite() && t >= 0.0 => t,
        Some(_) => return crashed("its `Ave. Time` is not a number".into()),
        None => return crashed("it printed no `Ave. Time` line".into()),
    };
    let ok = || done(Verdict::Ok { time_ms: time });
    match kind {
        OutputKind::Bfs => match error_sum {
            None => crashed("it printed no validation (`ERROR between CPU and GPU`) line".into()),
            Some(e) if e != Some(0) || shown > 0 => wrong(format!(
                "its validation printed {shown} mismatching depth(s) (it prints at most 10) and an error sum of {}",
                e.map_or("?".into(), |e| e.to_string())
            )),
            Some(_) => ok(),
        },
        OutputKind::PageRank => {
            if residues.is_empty() {
                return crashed(
                    "no residue count printed (neither `num of K res larger than EPS` nor PrValid's `GPU res:` line)"
                        .into(),
                );
            }
            if let Some((_, _, which)) = residues.iter().find(|r| r.0.is_none()) {
                return crashed(format!("its residue count (`{which}`) is not a number"));
            }
            let bad: Vec<String> = residues
                .iter()
                .filter_map(|(k, eps, which)| match k {
                    Some(k) if *k > 0 && which.starts_with("num of") => Some(format!(
                        "{k} residue(s) at or above the tolerance {eps} were left (num of {k} res larger than {eps})"
                    )),
                    Some(k) if *k > 0 => Some(format!(
                        "its validation counted {k} residue(s) above the tolerance {eps} ({k} number of res larger than {eps})"
                    )),
                    _ => None,
                })
                .collect();
            if bad.is_empty() {
                ok()
            } else {
                wrong(bad.join("; "))
            }
        }
        OutputKind::Coloring => match passed {
            Some(true) => ok(),
            Some(false) => wrong(
                "its validation printed Fail Validation (an edge joins two equal colours)".into(),
            ),
            None => crashed(
                "it printed no validation (`Pass Validation` or `Fail Validation`) line".into(),
            ),
        },
    }
}

/// Idle counts per binary row: `--original-idle LIST` sets every row's, `--original-idle
/// LABEL=LIST` one row's (LIST: comma-separated counts). LABEL is the row's `label` (for BFS and
/// PageRank the file name; for coloring `gc_32_bsp`, `gc_32_warp`, `gc_32_cta`), never the file
/// name when the two differ.
pub fn idle_counts(specs: &[String], bin: &OriginalBinary) -> Result<Vec<u64>, String> {
    let mut chosen: Option<Vec<u64>> = None;
    for spec in specs {
        let (label, list) = match spec.split_once('=') {
            Some((n, l)) => (Some(n.trim()), l),
            None => (None, spec.as_str()),
        };
        if label.is_some_and(|n| n != bin.label) {
            continue;
        }
        let counts = list
            .split(',')
            .map(|s| {
                s.trim().parse::<u64>().map_err(|_| {
                    format!("--original-idle `{spec}`: `{s}` is not an idle count (a whole number)")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if label.is_some() || chosen.is_none() {
            chosen = Some(counts);
        }
    }
    Ok(chosen.unwrap_or_else(|| bin.default_idle.to_vec()))
}

/// Checks `--original-idle` labels against the known binary rows (see `idle_counts`).
pub fn check_idle_specs(specs: &[String], bins: &[OriginalBinary]) -> Result<(), String> {
    for spec in specs {
        if let Some((label, _)) = spec.split_once('=')
            && !bins.iter().any(|b| b.label == label.trim())
        {
            let known: Vec<_> = bins.iter().map(|b| b.label).collect();
            return Err(format!(
                "--original-idle `{spec}`: no original binary `{label}` (known: {})",
                known.join(", ")
            ));
        }
        for b in bins {
            idle_counts(std::slice::from_ref(spec), b)?;
        }
    }
    Ok(())
}

/// The binary's path: `DIR/bin/NAME`, or `DIR/NAME` when DIR is the bin folder itself.
pub fn binary_path(dir: &Path, name: &str) -> Option<PathBuf> {
    [dir.join("bin").join(name), dir.join(name)]
        .into_iter()
        .find(|p| p.is_file())
}

/// The command line after the program: `-f csr -i idle -rounds 1`, then per kind: BFS `-r
/// source`; PageRank `-l 0.85 -p epsilon -check 1` (its drivers read no `-r`, and run PrValid
/// only with `-check 1`); coloring nothing (gc reads `-r` but never uses it); then the
/// binary's `extra_args`.
pub fn command_args(
    bin: &OriginalBinary,
    csr: &Path,
    idle: u64,
    source: u32,
    epsilon: f32,
) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = vec!["-f".into(), csr.into()];
    let mut push = |a: &[String]| args.extend(a.iter().map(Into::into));
    push(&["-i".into(), idle.to_string(), "-rounds".into(), "1".into()]);
    match bin.kind {
        OutputKind::Bfs => push(&["-r".into(), source.to_string()]),
        OutputKind::PageRank => push(&[
            "-l".into(),
            PR_LAMBDA.to_string(),
            "-p".into(),
            epsilon.to_string(),
            "-check".into(),
            "1".into(),
        ]),
        OutputKind::Coloring => {}
    }
    args.extend(bin.extra_args.iter().map(Into::into));
    args
}

/// Runs the binary at `path` (one of `bin`'s rows) once on `csr` (`-rounds 1`; see
/// `command_args`) and classifies the run. `source` is used by BFS only, `epsilon` by PageRank
/// only.
pub fn run_once(
    path: &Path,
    bin: &OriginalBinary,
    csr: &Path,
    idle: u64,
    source: u32,
    epsilon: f32,
    timeout: Duration,
) -> Parsed {
    let mut cmd = Command::new(path);
    cmd.args(command_args(bin, csr, idle, source, epsilon))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Parsed {
                verdict: Verdict::Crashed {
                    reason: format!("could not start {}: {e}", path.display()),
                },
                workload: None,
                colors: None,
                rank_error: None,
            };
        }
    };
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("piped stdout")));
    let err = reader(Box::new(child.stderr.take().expect("piped stderr")));
    let t0 = Instant::now();
    let exit = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                break match status.code() {
                    Some(c) => Exit::Code(c),
                    None => Exit::Killed(signal_name(&status)),
                };
            }
            Ok(None) if t0.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break Exit::Killed(format!(
                    "timed out after {:.0} s (killed)",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => break Exit::Killed(format!("waiting for it failed: {e}")),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    parse_output(bin.kind, &stdout, &stderr, &exit)
}

#[cfg(unix)]
fn signal_name(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(11) => "killed by SIGSEGV".into(),
        Some(6) => "killed by SIGABRT".into(),
        Some(s) => format!("killed by signal {s}"),
        None => "ended without an exit code".into(),
    }
}

#[cfg(not(unix))]
fn signal_name(_: &std::process::ExitStatus) -> String {
    "ended without an exit code".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bfs(stdout: &str, stderr: &str, exit: &Exit) -> Parsed {
        parse_output(OutputKind::Bfs, stdout, stderr, exit)
    }
    fn pr(stdout: &str, stderr: &str, exit: &Exit) -> Parsed {
        parse_output(OutputKind::PageRank, stdout, stderr, exit)
    }
    fn gc(stdout: &str, stderr: &str, exit: &Exit) -> Parsed {
        parse_output(OutputKind::Coloring, stdout, stderr, exit)
    }
    fn without(s: &str, prefix: &str) -> String {
        s.lines()
            .filter(|l| !l.starts_with(prefix))
            .map(|l| format!("{l}\n"))
            .collect()
    }
    fn crash_reason(p: &Parsed) -> &str {
        match &p.verdict {
            Verdict::Crashed { reason } => reason,
            v => panic!("not a crash: {v:?}"),
        }
    }
    fn wrong_reason(p: &Parsed) -> &str {
        match &p.verdict {
            Verdict::Wrong { reason } => reason,
            v => panic!("not wrong: {v:?}"),
        }
    }

    /// A passing persist-CTA run, as test_bfs_cta.cu and BFSValid2 print it.
    const CTA_OK: &str = "num of block: 528  num of threads per block: 256
file: /tmp/g.csr start from 0: 0 write profile file: 0 528x256 min iter 30000 option 1
read from binary file: nodes 16777216 edges 134217728
Time: 52.1337
workload vertices: 16777221
Ave. Time: 52.1337
Ave. Workload(vertices): 16777221
enqueued nodes: 0
ERROR between CPU and GPU implimentation: 0
Print the first 20 depth: 
host:
0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 
device:
0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 
";

    /// Stopped early: depths left at nodes + 1.
    const WARP_WRONG: &str = "set on device 0
num of block: 264  num of threads per block: 512
Time: 3.5
workload: 114000
Ave. Time: 3.5
Ave. Workload(vertices): 114000
h_depth[5021]: 871  bfs.depth[5021]: 114600
h_depth[5022]: 872  bfs.depth[5022]: 114600
h_depth[5023]: 873  bfs.depth[5023]: 114600
enqueued nodes: 0
ERROR between CPU and GPU implimentation: 340911
Print the first 20 depth: 
";

    const CRASH_STDERR: &str = "Cuda error in file 'bfs_cta.cuh' in line 212 : an illegal memory access was encountered.\n";

    #[test]
    fn a_passing_run_gives_its_time_and_workload() {
        let p = bfs(CTA_OK, "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 52.1337 });
        assert_eq!(p.workload, Some(16777221));
        assert_eq!((p.colors, p.rank_error), (None, None));
        let zero = CTA_OK.replace("(vertices): 16777221", "(vertices): 0");
        assert_eq!(bfs(&zero, "", &Exit::Code(0)).workload, None);
        // A graph path with an error word in it is not an error line.
        let path = CTA_OK.replace("/tmp/g.csr", "/tmp/error_abort.csr");
        assert_eq!(
            bfs(&path, "", &Exit::Code(0)).verdict,
            Verdict::Ok { time_ms: 52.1337 }
        );
    }

    #[test]
    fn wrong_depths_are_wrong_not_a_time() {
        let p = bfs(WARP_WRONG, "", &Exit::Code(0));
        assert_eq!(
            p.verdict,
            Verdict::Wrong {
                reason: "its validation printed 3 mismatching depth(s) (it prints at most 10) and an error sum of 340911".into()
            }
        );
        // Mismatch lines alone (an error sum that wrapped to 0) still count as wrong.
        let wrapped = WARP_WRONG.replace(": 340911", ": 0");
        let p = bfs(&wrapped, "", &Exit::Code(0));
        assert_eq!(
            wrong_reason(&p),
            "its validation printed 3 mismatching depth(s) (it prints at most 10) and an error sum of 0"
        );
    }

    #[test]
    fn crashes_are_crashes() {
        let head: String = CTA_OK.lines().take(4).map(|l| format!("{l}\n")).collect();
        let p = bfs(&head, CRASH_STDERR, &Exit::Code(1));
        let reason = crash_reason(&p);
        assert!(reason.contains("exit code 1"), "{reason}");
        assert!(reason.contains("illegal memory access"), "{reason}");
        // An error line fails the run even with exit code 0 and a time.
        let p = bfs(CTA_OK, CRASH_STDERR, &Exit::Code(0));
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
        // Killed by a signal.
        let p = bfs(&head, "", &Exit::Killed("killed by SIGSEGV".into()));
        assert_eq!(
            p.verdict,
            Verdict::Crashed {
                reason: "killed by SIGSEGV".into()
            }
        );
        // A device assert (queue full) in stderr.
        let p = bfs(
            &head,
            "queue.cuh:300: void push(): block: [3,0,0], thread: [0,0,0] Assertion `alloc + total <= capacity` failed.\n",
            &Exit::Code(0),
        );
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
    }

    #[test]
    fn missing_lines_are_crashes() {
        let no_validation = without(CTA_OK, "ERROR");
        let p = bfs(&no_validation, "", &Exit::Code(0));
        assert!(crash_reason(&p).contains("validation"), "{p:?}");
        let no_time = CTA_OK.replace("Ave. Time: 52.1337", "");
        let p = bfs(&no_time, "", &Exit::Code(0));
        assert_eq!(crash_reason(&p), "it printed no `Ave. Time` line");
        let nan = CTA_OK.replace("Ave. Time: 52.1337", "Ave. Time: -nan");
        let p = bfs(&nan, "", &Exit::Code(0));
        assert_eq!(crash_reason(&p), "its `Ave. Time` is not a number");
        let p = bfs(
            "",
            "",
            &Exit::Killed("timed out after 60 s (killed)".into()),
        );
        assert_eq!(crash_reason(&p), "timed out after 60 s (killed)");
    }

    /// A passing persist-warp PageRank run with `-check 1`, as test_pr.cu and PrValid print it
    /// (test_pr_cta.cu prints the same lines).
    const PR_OK: &str = "num of block: 132  num of threads per block: 1024
file: /tmp/g.csr  lambda: 0.85 epsilon: 0.01 start from 0: 0 write profile file: 0 132x1024 min iter 1600 num queues 1 round size 1
Vertices: 4194304 Edges: 125829120
wl_size: 41943040
Queue 0, capacity: 41943040, end=start: 9311021
Time: 25.8831
workload: 9311021
num of 0 res larger than 0.01
Ave. Time:    25.88
Ave Workload: 9311021
CPU total mass: 4.19431e+06 CPU total res: 2201.5 CPU total rank: 4.18e+06
GPU rank: sum of rank 4.18e+06 error from CPU 3512.75
GPU res: sum of res 2198.1 error from CPU 1804.2 0 number of res larger than 0.01

GPU sum_rank: 4.18e+06 GPU sum_res: 2198.1 GPU total mass: 4.19431e+06
Print the first 20 res: 
host:
0.15 0.2 0.31 
device:
0.15 0.2 0.31 
num of vertices scanned 9311040
num of vertices active: 0
";

    /// A passing discrete run with `-check 1` (test_pr_discrete.cu: cout, no residue count of
    /// its own).
    const PR_DISCRETE_OK: &str = "file: /tmp/g.csr  lambda: 0.85 epsilon: 0.01 start from 0: 0 write profile file: 0 Fetch size: 128 Block size: 512 min iter 10
Vertices: 4194304 Edges: 125829120
wl_size: 41943040
Queue 0, capacity: 41943040, end=start: 8811000
Time: 61.5
workload vertices: 8811000
kernels launched: 2113
Ave. Time: 61.5
Ave. Workload(vertices): 8811000
Ave. kernels launched: 2113
CPU total mass: 4.19431e+06 CPU total res: 2201.5 CPU total rank: 4.18e+06
GPU rank: sum of rank 4.18e+06 error from CPU 2900.5
GPU res: sum of res 2150.3 error from CPU 1700.1 0 number of res larger than 0.01

GPU sum_rank: 4.18e+06 GPU sum_res: 2150.3 GPU total mass: 4.19431e+06
";

    #[test]
    fn pagerank_passing_runs() {
        let p = pr(PR_OK, "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 25.88 });
        assert_eq!(p.workload, Some(9311021));
        assert_eq!(p.rank_error, Some(3512.75));
        assert_eq!(p.colors, None);
        let p = pr(PR_DISCRETE_OK, "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 61.5 });
        assert_eq!(p.workload, Some(8811000));
        assert_eq!(p.rank_error, Some(2900.5));
        // Without PrValid (no -check 1) the driver's own count suffices.
        let p = pr(&without(PR_OK, "GPU r"), "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 25.88 });
        assert_eq!(p.rank_error, None);
    }

    #[test]
    fn pagerank_residues_left_are_wrong() {
        let left = PR_OK
            .replace("num of 0 res", "num of 3 res")
            .replace(" 0 number of res", " 2 number of res");
        let p = pr(&left, "", &Exit::Code(0));
        assert_eq!(
            wrong_reason(&p),
            "3 residue(s) at or above the tolerance 0.01 were left (num of 3 res larger than 0.01); \
             its validation counted 2 residue(s) above the tolerance 0.01 (2 number of res larger than 0.01)"
        );
        assert_eq!(p.rank_error, Some(3512.75));
        let p = pr(
            &PR_DISCRETE_OK.replace(" 0 number of res", " 4096 number of res"),
            "",
            &Exit::Code(0),
        );
        assert_eq!(
            wrong_reason(&p),
            "its validation counted 4096 residue(s) above the tolerance 0.01 (4096 number of res larger than 0.01)"
        );
    }

    #[test]
    fn pagerank_crashes() {
        // The discrete driver without -check 1 prints no residue count at all.
        let p = pr(&without(PR_DISCRETE_OK, "GPU r"), "", &Exit::Code(0));
        assert!(
            crash_reason(&p).starts_with("no residue count printed"),
            "{p:?}"
        );
        let p = pr(
            &PR_OK.replace("num of 0 res", "num of x res"),
            "",
            &Exit::Code(0),
        );
        assert_eq!(
            crash_reason(&p),
            "its residue count (`num of K res larger than EPS`) is not a number"
        );
        // A full queue: device assert, then CUDA_CHECK exits 1 before the time.
        let head: String = PR_OK.lines().take(4).map(|l| format!("{l}\n")).collect();
        let stderr = "queue.cuh:341: void MaxCountQueue::Queue<int, unsigned int>::push_warp(T) const [with T = int; COUNTER_T = unsigned int]: block: [3,0,0], thread: [0,0,0] Assertion `alloc + total <= capacity` failed.\n\
                      Cuda error in file 'pr.cuh' in line 290 : device-side assert triggered.\n";
        let p = pr(&head, stderr, &Exit::Code(1));
        assert_eq!(
            crash_reason(&p),
            "exit code 1: queue.cuh:341: void MaxCountQueue::Queue<int, unsigned int>::push_warp(T) const [with T = int; COUNTER_T = unsigned int]: block: [3,0,0], thread: [0,0,0] Assertion `alloc + total <= capacity` failed."
        );
        let p = pr(&without(PR_OK, "Ave. Time"), "", &Exit::Code(0));
        assert_eq!(crash_reason(&p), "it printed no `Ave. Time` line");
        let p = pr(
            &PR_OK.replace("Ave. Time:    25.88", "Ave. Time:     -nan"),
            "",
            &Exit::Code(0),
        );
        assert_eq!(crash_reason(&p), "its `Ave. Time` is not a number");
        // The device's own overflow message.
        let p = pr(
            PR_OK,
            "bqueue end update error: end 5, end_alloc 9, end_count 5, end_max 9\n",
            &Exit::Code(0),
        );
        assert_eq!(
            crash_reason(&p),
            "bqueue end update error: end 5, end_alloc 9, end_count 5, end_max 9"
        );
    }

    /// A passing BSP coloring run (test_gc.cu `-run_bsp_async 1`, GCValid).
    const GC_OK: &str = "set on device 0
num of block: 280  num of threads per block: 256
file: /tmp/g.csr start from 0: 0 write profile file: 0 280x256 min iter 0
permute 0
Vertices: 4194304 Edges: 125829120
max degree 2731
Time: 41.25
Ave. Time: 41.25
Ave. Workload(vertices): 4500123
use color 118
Pass Validation
-----------------------------------------

";

    /// A persist-warp run whose colouring has a conflict (`-run_bsp_async 2 -o 2`).
    const GC_WARP_FAIL: &str = "set on device 0
num of block: 264  num of threads per block: 512
file: /tmp/g.csr start from 0: 0 write profile file: 0 264x512 min iter 500
permute 0
Vertices: 4194304 Edges: 125829120
max degree 2731
wl_size: 41943040
min_iter: 500
warpSize_wl_pop 4224
0th queue:
Queue 0, capacity: 41943040, end=start: 4194304
warpSize_wl_pop 4224
0th queue:
Queue 0, capacity: 41943040, end=start: 4400000
Time: 9.5
workload 4400000
Ave. Time: 9.5
Ave. Workload(vertices): 4399990
use color 97
Fail Validation
";

    #[test]
    fn coloring_runs() {
        let p = gc(GC_OK, "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 41.25 });
        assert_eq!(p.workload, Some(4500123));
        assert_eq!(p.colors, Some(118));
        assert_eq!(p.rank_error, None);
        let p = gc(GC_WARP_FAIL, "", &Exit::Code(0));
        assert_eq!(
            p.verdict,
            Verdict::Wrong {
                reason: "its validation printed Fail Validation (an edge joins two equal colours)"
                    .into()
            }
        );
        assert_eq!(p.colors, Some(97));
        assert_eq!(p.workload, Some(4399990));
        // Neither line: crashed.
        let p = gc(&without(GC_OK, "Pass"), "", &Exit::Code(0));
        assert_eq!(
            crash_reason(&p),
            "it printed no validation (`Pass Validation` or `Fail Validation`) line"
        );
        // GCValid's host assert aborts.
        let head: String = GC_OK.lines().take(9).map(|l| format!("{l}\n")).collect();
        let p = gc(
            &head,
            "test_gc_32: ../gc/validation.cuh:37: void GCValid(GCT&) [with VertexId = int; SizeT = int; GCT = GC_Async<int, int>]: Assertion `colorid < gc.maxDegree+1' failed.\n",
            &Exit::Killed("killed by SIGABRT".into()),
        );
        assert!(
            crash_reason(&p).starts_with("killed by SIGABRT: test_gc_32: ../gc/validation.cuh:37"),
            "{p:?}"
        );
        // An illegal address in the persist-CTA kernel.
        let p = gc(
            &head,
            "Cuda error in file 'gc.cuh' in line 1060 : an illegal memory access was encountered.\n",
            &Exit::Code(1),
        );
        assert_eq!(
            crash_reason(&p),
            "exit code 1: Cuda error in file 'gc.cuh' in line 1060 : an illegal memory access was encountered."
        );
        let p = gc(&without(GC_OK, "Ave. Time"), "", &Exit::Code(0));
        assert_eq!(crash_reason(&p), "it printed no `Ave. Time` line");
        // A BFS-style validation line means nothing to coloring.
        let p = gc(&without(GC_OK, "Pass"), "", &Exit::Code(0));
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
    }

    #[test]
    fn command_lines_per_kind() {
        let csr = Path::new("/d/g.csr");
        let s = |bin: &OriginalBinary, idle, src, eps| -> Vec<String> {
            command_args(bin, csr, idle, src, eps)
                .into_iter()
                .map(|a| a.into_string().unwrap())
                .collect()
        };
        assert_eq!(
            s(&BFS_BINARIES[0], 1000, 7, 0.01).join(" "),
            "-f /d/g.csr -i 1000 -rounds 1 -r 7 -o 2"
        );
        assert_eq!(
            s(&PR_BINARIES[1], 750, 7, 0.01).join(" "),
            "-f /d/g.csr -i 750 -rounds 1 -l 0.85 -p 0.01 -check 1"
        );
        assert_eq!(
            s(&PR_BINARIES[2], 10, 7, 0.005).join(" "),
            "-f /d/g.csr -i 10 -rounds 1 -l 0.85 -p 0.005 -check 1"
        );
        assert_eq!(
            s(&GC_BINARIES[0], 0, 7, 0.01).join(" "),
            "-f /d/g.csr -i 0 -rounds 1 -run_bsp_async 1"
        );
        assert_eq!(
            s(&GC_BINARIES[1], 10, 7, 0.01).join(" "),
            "-f /d/g.csr -i 10 -rounds 1 -run_bsp_async 2 -o 2"
        );
        assert_eq!(
            s(&GC_BINARIES[2], 150, 7, 0.01).join(" "),
            "-f /d/g.csr -i 150 -rounds 1 -run_bsp_async 2 -o 3 -mesh 0"
        );
    }

    #[test]
    fn rows_are_consistent() {
        let all: Vec<OriginalBinary> = BFS_BINARIES
            .iter()
            .chain(&PR_BINARIES)
            .chain(&GC_BINARIES)
            .copied()
            .collect();
        let mut labels: Vec<_> = all.iter().map(|b| b.label).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), 9);
        assert!(
            BFS_BINARIES
                .iter()
                .all(|b| b.kind == OutputKind::Bfs && b.label == b.name)
        );
        assert!(
            PR_BINARIES
                .iter()
                .all(|b| b.kind == OutputKind::PageRank && b.label == b.name)
        );
        assert!(
            GC_BINARIES
                .iter()
                .all(|b| b.kind == OutputKind::Coloring && b.name == "gc_32")
        );
        assert_eq!(
            GC_BINARIES.map(|b| (b.label, b.strategy, b.worker, b.fetch)),
            [
                ("gc_32_bsp", "bsp", "thread+warp+cta", None),
                ("gc_32_warp", "persistent", "warp", None),
                ("gc_32_cta", "persistent", "cta", Some(32)),
            ]
        );
        assert_eq!(
            PR_BINARIES.map(|b| (b.name, b.strategy, b.worker, b.fetch)),
            [
                ("pr", "persistent", "warp", None),
                ("pr_cta_256", "persistent", "cta", Some(256)),
                ("pr_discrete_128", "discrete", "cta", Some(128)),
            ]
        );
    }

    #[test]
    fn idle_counts_per_binary() {
        let [warp, cta, discrete] = BFS_BINARIES;
        assert_eq!(idle_counts(&[], &warp).unwrap(), vec![1000, 40000]);
        assert_eq!(idle_counts(&[], &cta).unwrap(), vec![30000]);
        assert_eq!(idle_counts(&[], &discrete).unwrap(), vec![10]);
        let specs = vec!["500,600".to_string(), "bfs_cta_64=20000".to_string()];
        assert_eq!(idle_counts(&specs, &warp).unwrap(), vec![500, 600]);
        assert_eq!(idle_counts(&specs, &cta).unwrap(), vec![20000]);
        // A named list wins over a general one whatever the order.
        let specs = vec!["bfs_cta_64=20000".to_string(), "7".to_string()];
        assert_eq!(idle_counts(&specs, &cta).unwrap(), vec![20000]);
        assert_eq!(idle_counts(&specs, &discrete).unwrap(), vec![7]);
        assert!(check_idle_specs(&["bfs_nope=3".into()], &BFS_BINARIES).is_err());
        assert!(check_idle_specs(&["x".into()], &BFS_BINARIES).is_err());
        assert!(check_idle_specs(&["bfs_warp=1,2".into()], &BFS_BINARIES).is_ok());
        let [pr_warp, pr_cta, pr_discrete] = PR_BINARIES;
        assert_eq!(idle_counts(&[], &pr_warp).unwrap(), vec![400, 1600]);
        assert_eq!(idle_counts(&[], &pr_cta).unwrap(), vec![400, 750]);
        assert_eq!(idle_counts(&[], &pr_discrete).unwrap(), vec![10]);
    }

    #[test]
    fn idle_specs_match_the_label() {
        let [bsp, warp, cta] = GC_BINARIES;
        assert_eq!(idle_counts(&[], &bsp).unwrap(), vec![0]);
        assert_eq!(idle_counts(&[], &warp).unwrap(), vec![10, 5000]);
        assert_eq!(idle_counts(&[], &cta).unwrap(), vec![150, 400]);
        let specs = vec!["gc_32_warp=700".to_string(), "3".to_string()];
        assert_eq!(idle_counts(&specs, &warp).unwrap(), vec![700]);
        assert_eq!(idle_counts(&specs, &cta).unwrap(), vec![3]);
        assert_eq!(idle_counts(&specs, &bsp).unwrap(), vec![3]);
        assert!(check_idle_specs(&specs, &GC_BINARIES).is_ok());
        // The file name is not a label: it would be ambiguous across the three rows.
        let by_name = vec!["gc_32=700".to_string()];
        assert_eq!(idle_counts(&by_name, &warp).unwrap(), vec![10, 5000]);
        let err = check_idle_specs(&by_name, &GC_BINARIES).unwrap_err();
        assert_eq!(
            err,
            "--original-idle `gc_32=700`: no original binary `gc_32` (known: gc_32_bsp, gc_32_warp, gc_32_cta)"
        );
        assert!(check_idle_specs(&["pr_cta_256=1,2".into()], &PR_BINARIES).is_ok());
        assert!(check_idle_specs(&["pr_cta_256=1,x".into()], &PR_BINARIES).is_err());
    }
}
