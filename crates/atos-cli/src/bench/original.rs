//! `--compare-original DIR`: the original Atos binaries (built by
//! `../shared/baselines/atos-original.sh build`) on the same graphs, one process per run
//! (`-rounds 1`: the original test drivers validate only their last round).
//!
//! What the drivers print (single-GPU/bfs/test_bfs*.cu, validation_bfs.cuh):
//! `Time: <ms>` per round, then `Ave. Time: <ms>`, `Ave. Workload(vertices): <n>`, then the
//! host validation: up to ten `h_depth[i]: <cpu>  bfs.depth[i]: <gpu>` lines for wrong
//! depths, `enqueued nodes: <n>` and `ERROR between CPU and GPU implimentation: <sum of
//! |differences|>`. A failed CUDA call prints `Cuda error in file '<f>' in line <l> : <msg>.`
//! to stderr and exits 1; a device trap or assert surfaces the same way or as a signal.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One original binary and how to call it.
#[derive(Clone, Copy, Debug)]
pub struct OriginalBinary {
    pub name: &'static str,
    pub extra_args: &'static [&'static str],
    pub worker: &'static str,
    pub strategy: &'static str,
    pub fetch: Option<u32>,
    /// Idle-poll counts (`-i`) from atos-original.sh's header: what each needed on an H100.
    pub default_idle: &'static [u64],
}

/// The BFS binaries of atos-original.sh.
pub const BFS_BINARIES: [OriginalBinary; 3] = [
    OriginalBinary {
        name: "bfs_warp",
        extra_args: &["-o", "2"],
        worker: "warp",
        strategy: "persistent",
        fetch: None,
        default_idle: &[1000, 40000],
    },
    OriginalBinary {
        name: "bfs_cta_64",
        extra_args: &[],
        worker: "cta",
        strategy: "persistent",
        fetch: Some(64),
        default_idle: &[30000],
    },
    OriginalBinary {
        name: "bfs_discrete_64",
        extra_args: &[],
        worker: "cta",
        strategy: "discrete",
        fetch: Some(64),
        default_idle: &[10],
    },
];

/// How one run of an original binary ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It finished, printed its time and its validation found no difference.
    Ok { time_ms: f64 },
    /// Its validation found wrong depths. `error` is its sum of |differences| (an `int` in
    /// the original, so it may have wrapped); `shown` the mismatch lines it printed (at most 10).
    Wrong { error: Option<i64>, shown: usize },
    /// It crashed, timed out, or printed no time or no validation.
    Crashed { reason: String },
}

/// A parsed run: the verdict, and the workload it reported (vertices popped), if non-zero.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub verdict: Verdict,
    pub workload: Option<u64>,
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

/// Lines that say the run went wrong, besides the validation's own `ERROR between` line.
fn is_error_line(line: &str) -> bool {
    if line.contains("ERROR between CPU and GPU") {
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

/// Classifies one run from its output and exit (a pure function; see the module comment for the
/// formats). A wrong or crashed run never yields a time.
pub fn parse_output(stdout: &str, stderr: &str, exit: &Exit) -> Parsed {
    let mut time = None;
    let mut workload = None;
    let mut error_sum: Option<Option<i64>> = None;
    let mut shown = 0;
    let mut error_line = None;
    for line in stdout.lines().chain(stderr.lines()) {
        let t = line.trim();
        if let Some(v) = value_after(t, "Ave. Time:") {
            time = Some(v.parse::<f64>().ok());
        } else if let Some(v) = value_after(t, "Ave. Workload(vertices):") {
            // bfs_warp (-o 2) reports 0: its counter is not the one it reads back.
            workload = v.parse().ok().filter(|&w: &u64| w > 0);
        } else if let Some(v) = value_after(t, "ERROR between CPU and GPU implimentation:") {
            error_sum = Some(v.parse().ok());
        } else if t.starts_with("h_depth[") && t.contains("bfs.depth[") {
            shown += 1;
        } else if error_line.is_none() && is_error_line(t) {
            error_line = Some(t.to_string());
        }
    }
    let crashed = |reason: String| Parsed {
        verdict: Verdict::Crashed { reason },
        workload,
    };
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
    match error_sum {
        None => crashed("it printed no validation (`ERROR between CPU and GPU`) line".into()),
        Some(e) if e != Some(0) || shown > 0 => Parsed {
            verdict: Verdict::Wrong { error: e, shown },
            workload,
        },
        Some(_) => Parsed {
            verdict: Verdict::Ok { time_ms: time },
            workload,
        },
    }
}

/// Idle counts per binary: `--original-idle LIST` sets every binary's, `--original-idle
/// NAME=LIST` one binary's (LIST: comma-separated counts).
pub fn idle_counts(specs: &[String], bin: &OriginalBinary) -> Result<Vec<u64>, String> {
    let mut chosen: Option<Vec<u64>> = None;
    for spec in specs {
        let (name, list) = match spec.split_once('=') {
            Some((n, l)) => (Some(n.trim()), l),
            None => (None, spec.as_str()),
        };
        if name.is_some_and(|n| n != bin.name) {
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
        if name.is_some() || chosen.is_none() {
            chosen = Some(counts);
        }
    }
    Ok(chosen.unwrap_or_else(|| bin.default_idle.to_vec()))
}

/// Checks `--original-idle` names against the known binaries.
pub fn check_idle_specs(specs: &[String], bins: &[OriginalBinary]) -> Result<(), String> {
    for spec in specs {
        if let Some((name, _)) = spec.split_once('=')
            && !bins.iter().any(|b| b.name == name.trim())
        {
            let known: Vec<_> = bins.iter().map(|b| b.name).collect();
            return Err(format!(
                "--original-idle `{spec}`: no original binary `{name}` (known: {})",
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

/// Runs `bin` once on `csr` (`-rounds 1`) and classifies the run.
pub fn run_once(
    bin: &Path,
    extra: &[&str],
    csr: &Path,
    idle: u64,
    source: u32,
    timeout: Duration,
) -> Parsed {
    let mut cmd = Command::new(bin);
    cmd.arg("-f")
        .arg(csr)
        .args([
            "-i",
            &idle.to_string(),
            "-rounds",
            "1",
            "-r",
            &source.to_string(),
        ])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Parsed {
                verdict: Verdict::Crashed {
                    reason: format!("could not start {}: {e}", bin.display()),
                },
                workload: None,
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
    parse_output(&stdout, &stderr, &exit)
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
        let p = parse_output(CTA_OK, "", &Exit::Code(0));
        assert_eq!(p.verdict, Verdict::Ok { time_ms: 52.1337 });
        assert_eq!(p.workload, Some(16777221));
        let zero = CTA_OK.replace("(vertices): 16777221", "(vertices): 0");
        assert_eq!(parse_output(&zero, "", &Exit::Code(0)).workload, None);
    }

    #[test]
    fn wrong_depths_are_wrong_not_a_time() {
        let p = parse_output(WARP_WRONG, "", &Exit::Code(0));
        assert_eq!(
            p.verdict,
            Verdict::Wrong {
                error: Some(340911),
                shown: 3
            }
        );
        // Mismatch lines alone (an error sum that wrapped to 0) still count as wrong.
        let wrapped = WARP_WRONG.replace(": 340911", ": 0");
        let p = parse_output(&wrapped, "", &Exit::Code(0));
        assert!(matches!(p.verdict, Verdict::Wrong { shown: 3, .. }));
    }

    #[test]
    fn crashes_are_crashes() {
        let head: String = CTA_OK.lines().take(4).map(|l| format!("{l}\n")).collect();
        let p = parse_output(&head, CRASH_STDERR, &Exit::Code(1));
        let Verdict::Crashed { reason } = p.verdict else {
            panic!("{:?}", p.verdict)
        };
        assert!(reason.contains("exit code 1"), "{reason}");
        assert!(reason.contains("illegal memory access"), "{reason}");
        // An error line fails the run even with exit code 0 and a time.
        let p = parse_output(CTA_OK, CRASH_STDERR, &Exit::Code(0));
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
        // Killed by a signal.
        let p = parse_output(&head, "", &Exit::Killed("killed by SIGSEGV".into()));
        assert_eq!(
            p.verdict,
            Verdict::Crashed {
                reason: "killed by SIGSEGV".into()
            }
        );
        // A device assert (queue full) in stderr.
        let p = parse_output(
            &head,
            "queue.cuh:300: void push(): block: [3,0,0], thread: [0,0,0] Assertion `alloc + total <= capacity` failed.\n",
            &Exit::Code(0),
        );
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
    }

    #[test]
    fn missing_lines_are_crashes() {
        let no_validation: String = CTA_OK
            .lines()
            .filter(|l| !l.starts_with("ERROR"))
            .map(|l| format!("{l}\n"))
            .collect();
        let p = parse_output(&no_validation, "", &Exit::Code(0));
        assert!(
            matches!(&p.verdict, Verdict::Crashed { reason } if reason.contains("validation")),
            "{p:?}"
        );
        let no_time = CTA_OK.replace("Ave. Time: 52.1337", "");
        let p = parse_output(&no_time, "", &Exit::Code(0));
        assert!(matches!(&p.verdict, Verdict::Crashed { reason } if reason.contains("Ave. Time")));
        let nan = CTA_OK.replace("Ave. Time: 52.1337", "Ave. Time: -nan");
        let p = parse_output(&nan, "", &Exit::Code(0));
        assert!(matches!(p.verdict, Verdict::Crashed { .. }));
        let p = parse_output(
            "",
            "",
            &Exit::Killed("timed out after 60 s (killed)".into()),
        );
        assert!(matches!(&p.verdict, Verdict::Crashed { reason } if reason.contains("timed out")));
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
    }
}
