//! `atos run --np N -- COMMAND...`: starts N processes of this `atos` binary on this node, one
//! per GPU (rank r drives GPU r; with `--share-gpus`, more ranks than GPUs, rank r on GPU r mod G),
//! each running COMMAND as rank r of an NVSHMEM run (the
//! variables of `atos::gpu::nvshmem::RankEnv`, a fresh rendezvous file for the unique id, and
//! `NVSHMEM_DISABLE_NVLS=1` whatever the caller's environment). Rank 0's output passes through;
//! the others' lines are prefixed with their rank. When a rank fails (a non-zero exit or a
//! signal), the others get a short grace period to end on their own, then are killed: a dead
//! peer never leaves the run hanging.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use atos::gpu::nvshmem::{self, DEVICE_VAR, RANK_VAR};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Processes to start, one per GPU (rank r drives GPU r of this node).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub np: u32,
    /// Allow more ranks than this node has GPUs: rank r runs on GPU r mod G. Ranks on one GPU
    /// time-slice it (no MPS), so this is for correctness runs (routing and termination over
    /// N processes on a machine with fewer GPUs), never for timings.
    #[arg(long)]
    pub share_gpus: bool,
    /// Seconds a rank may wait for the unique id, NVSHMEM's init and each barrier before it
    /// ends with an error (a rank that died or never started).
    #[arg(long, default_value_t = nvshmem::DEFAULT_TIMEOUT_S)]
    pub bootstrap_timeout: f64,
    /// The atos command every rank runs, e.g. `bench --app bfs --graph kron:22 --devices 1,2
    /// --transport nvshmem` or `nvshmem-check`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
}

/// Seconds the other ranks get to end on their own after one fails.
const GRACE: Duration = Duration::from_secs(5);

/// Runs `args.command` on `args.np` ranks. `Ok(true)` when every rank exited 0, `Ok(false)`
/// when some exited 1 (a failure they reported, e.g. a failed configuration), `Err` when a
/// rank crashed, was ended by its watchdog, or could not start.
pub fn run(args: &RunArgs) -> Result<bool, String> {
    let Some(timeout) = atos::seconds::positive_seconds(args.bootstrap_timeout) else {
        return Err(format!(
            "--bootstrap-timeout {:?} is not a positive number of seconds up to {:e}",
            args.bootstrap_timeout,
            atos::seconds::MAX_SECONDS
        ));
    };
    launch(args.np, &args.command, timeout, args.share_gpus)
}

/// The GPU each of `np` ranks drives on a node with `gpus` GPUs (`None`: not known here, e.g.
/// no driver; the ranks then report their own errors): rank r drives GPU r, or with `share`,
/// GPU r mod `gpus`.
pub fn rank_devices(np: u32, gpus: Option<usize>, share: bool) -> Result<Vec<usize>, String> {
    match gpus {
        Some(g) if np as usize > g && !share => Err(format!(
            "{np} ranks asked for, but this node has {g} GPU{}: give --share-gpus to run several ranks on one GPU (rank r on GPU r mod {g}; ranks time-slice a shared GPU, so use it to check results, not to time them)",
            if g == 1 { "" } else { "s" }
        )),
        Some(g) => Ok((0..np as usize).map(|r| r % g.max(1)).collect()),
        None => Ok((0..np as usize).collect()),
    }
}

/// Starts `np` ranks of this binary running `command` and waits for them (see [`run`]).
pub fn launch<A: AsRef<std::ffi::OsStr>>(
    np: u32,
    command: &[A],
    timeout: Duration,
    share: bool,
) -> Result<bool, String> {
    if std::env::var_os(RANK_VAR).is_some() {
        return Err(format!(
            "{RANK_VAR} is set: this process is already a rank; `atos run` starts ranks, it does not run inside one"
        ));
    }
    let gpus = atos::gpu::device_count().ok();
    let devices = rank_devices(np, gpus, share)?;
    let shared = gpus.filter(|&g| (np as usize) > g);
    if let Some(g) = shared {
        eprintln!(
            "note: {np} ranks on {g} GPU{} (--share-gpus): results are checked as always; times include the ranks' time-slicing of a shared GPU",
            if g == 1 { "" } else { "s" }
        );
    }
    let exe = std::env::current_exe().map_err(|e| format!("finding the atos binary: {e}"))?;
    let dir = fresh_dir()?;
    let rendezvous = dir.join("unique-id");
    let env = nvshmem::launch_env(&rendezvous, np, timeout);
    let mut children: Vec<(u32, Child)> = Vec::new();
    let mut relays = Vec::new();
    for rank in 0..np {
        let mut cmd = Command::new(&exe);
        cmd.args(command)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .envs(shared.map(|g| (nvshmem::SHARED_GPUS_VAR, g.to_string())))
            .env(RANK_VAR, rank.to_string())
            .env(DEVICE_VAR, devices[rank as usize].to_string())
            .stdin(Stdio::null());
        if rank > 0 {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        match cmd.spawn() {
            Ok(mut child) => {
                if rank > 0 {
                    relays.push(relay(rank, child.stdout.take()));
                    relays.push(relay(rank, child.stderr.take()));
                }
                children.push((rank, child));
            }
            Err(e) => {
                end_all(&mut children);
                let _ = std::fs::remove_dir_all(&dir);
                return Err(format!("starting rank {rank} ({}): {e}", exe.display()));
            }
        }
    }
    let outcome = wait_all(&mut children);
    for r in relays.into_iter().flatten() {
        let _ = r.join();
    }
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// A fresh folder for this launch's rendezvous file.
fn fresh_dir() -> Result<PathBuf, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("atos-run-{}-{stamp}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Copies a rank's output lines to this process's stderr, prefixed with the rank.
fn relay(
    rank: u32,
    from: Option<impl std::io::Read + Send + 'static>,
) -> Option<std::thread::JoinHandle<()>> {
    let from = from?;
    Some(std::thread::spawn(move || {
        // Bytes, not strings: a line that is not UTF-8 must not stop the relay (the rank
        // would then block on a full pipe).
        let mut from = BufReader::new(from);
        let mut line = Vec::new();
        while from.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            let text = String::from_utf8_lossy(&line);
            stderr_line(&format!(
                "[rank {rank}] {}",
                text.trim_end_matches(['\n', '\r'])
            ));
            line.clear();
        }
    }))
}

/// Writes `text` and a newline to stderr in one write. Ranks share the launcher's stderr, and
/// `eprintln!` writes a formatted line in pieces, so a relayed line and rank 0's error could
/// interleave mid-line. One write of at most `PIPE_BUF` bytes (4 KiB on Linux) to a pipe is
/// never split by another's; longer lines, and rank 0's other output (notes, panics, written
/// with `eprintln!`), can still be.
pub(crate) fn stderr_line(text: &str) {
    use std::io::Write;
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Waits for every rank; after the first failure, gives the others [`GRACE`] and kills the
/// rest.
fn wait_all(children: &mut [(u32, Child)]) -> Result<bool, String> {
    let mut status: Vec<Option<ExitStatus>> = vec![None; children.len()];
    let mut first_failure: Option<(u32, ExitStatus, Instant)> = None;
    let mut killed = Vec::new();
    while status.iter().any(Option::is_none) {
        for (k, (rank, child)) in children.iter_mut().enumerate() {
            if status[k].is_some() {
                continue;
            }
            match child.try_wait() {
                Ok(Some(s)) => {
                    status[k] = Some(s);
                    if !s.success() && first_failure.is_none() {
                        first_failure = Some((*rank, s, Instant::now()));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    let err = format!("waiting for rank {rank}: {e}");
                    end_all(children);
                    return Err(err);
                }
            }
        }
        if let Some((_, _, at)) = first_failure
            && at.elapsed() > GRACE
        {
            for (k, (rank, child)) in children.iter_mut().enumerate() {
                if status[k].is_none() {
                    let _ = child.kill();
                    status[k] = child.wait().ok();
                    killed.push(*rank);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let Some((rank, s, _)) = first_failure else {
        return Ok(true);
    };
    let others = if killed.is_empty() {
        String::new()
    } else {
        format!(
            "; ended rank(s) {} still running {:.0} s later",
            killed
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            GRACE.as_secs_f64()
        )
    };
    // Exit status 1 is a failure the rank reported itself (its output says what); anything
    // else ended it from outside its own error handling.
    match s.code() {
        Some(1) if killed.is_empty() => Ok(false),
        Some(code) if code == nvshmem::WATCHDOG_EXIT => Err(format!(
            "rank {rank} was ended by its watchdog (a bootstrap step or barrier never finished: another rank died or never started){others}"
        )),
        Some(code) => Err(format!("rank {rank} exited with status {code}{others}")),
        None => Err(format!(
            "rank {rank} was killed by {}{others}",
            signal_of(&s)
        )),
    }
}

fn signal_of(s: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    s.signal()
        .map_or("a signal".into(), |sig| format!("signal {sig}"))
}

/// Ends every started rank (a later one failed to start).
fn end_all(children: &mut [(u32, Child)]) {
    for (_, child) in children.iter_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(scripts: &[&str]) -> Vec<(u32, Child)> {
        scripts
            .iter()
            .enumerate()
            .map(|(r, s)| {
                let child = Command::new("sh")
                    .arg("-c")
                    .arg(s)
                    .spawn()
                    .expect("sh runs");
                (r as u32, child)
            })
            .collect()
    }

    #[test]
    fn ranks_share_gpus_only_when_asked() {
        assert_eq!(rank_devices(2, Some(2), false), Ok(vec![0, 1]));
        assert_eq!(rank_devices(2, Some(4), false), Ok(vec![0, 1]));
        assert_eq!(rank_devices(4, Some(1), true), Ok(vec![0, 0, 0, 0]));
        assert_eq!(rank_devices(3, Some(2), true), Ok(vec![0, 1, 0]));
        // Unknown GPU count: one per rank, as before; the ranks report a missing GPU.
        assert_eq!(rank_devices(3, None, false), Ok(vec![0, 1, 2]));
        let err = rank_devices(4, Some(1), false).unwrap_err();
        assert!(
            err.contains("4 ranks asked for, but this node has 1 GPU:")
                && err.contains("--share-gpus"),
            "{err}"
        );
    }

    #[test]
    fn exits_are_told_apart() {
        assert_eq!(wait_all(&mut ranks(&["exit 0", "exit 0"])), Ok(true));
        // Status 1: a failure the rank reported itself.
        assert_eq!(wait_all(&mut ranks(&["exit 0", "exit 1"])), Ok(false));
        let err = wait_all(&mut ranks(&["exit 0", "exit 3"])).unwrap_err();
        assert!(err.contains("rank 1 exited with status 3"), "{err}");
        let err = wait_all(&mut ranks(&["kill -9 $$", "exit 0"])).unwrap_err();
        assert!(err.contains("rank 0 was killed by signal 9"), "{err}");
    }

    #[test]
    fn a_failed_rank_ends_the_others_after_the_grace_period() {
        let t0 = Instant::now();
        let err = wait_all(&mut ranks(&[
            "exec sleep 60",
            &format!("exit {}", nvshmem::WATCHDOG_EXIT),
        ]))
        .unwrap_err();
        assert!(
            err.contains("rank 1 was ended by its watchdog") && err.contains("ended rank(s) 0"),
            "{err}"
        );
        let took = t0.elapsed();
        assert!(
            took >= GRACE && took < GRACE + Duration::from_secs(10),
            "{took:?}"
        );
    }
}
