//! `atos run --np N`: the launcher of one-process-per-GPU runs, checked without a GPU (the
//! ranks' NVSHMEM runs themselves are GPU runs: docs/results/2026-11-23-nvshmem-h200x2.md).

use std::process::Command;

fn atos(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_atos"));
    cmd.args(args).env_remove("ATOS_RANK");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("atos runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_rank_runs_the_command_and_the_others_output_is_prefixed() {
    let (code, out, err) = atos(&["run", "--np", "3", "--", "graph", "--help"], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("Inspect and convert graphs"),
        "rank 0 passes through: {out}"
    );
    for r in [1, 2] {
        assert!(
            err.contains(&format!("[rank {r}] Usage: atos graph")),
            "rank {r}'s lines are prefixed: {err}"
        );
    }
    assert!(!err.contains("[rank 0]"), "{err}");
}

#[test]
fn a_failing_rank_fails_the_launch() {
    // Each rank fails on its own (exit 1: an error it reported). Rank 0 writes its error line to
    // the shared stderr while the launcher relays the others' lines: every line must come out
    // whole (a line written in pieces once interleaved with another rank's). Repeated, as the
    // race is. `--share-gpus`: 4 ranks run on a host with fewer GPUs too (it then notes so).
    for _ in 0..8 {
        let (code, _, err) = atos(
            &[
                "run",
                "--np",
                "4",
                "--share-gpus",
                "--",
                "graph",
                "info",
                "/nonexistent/g.edges",
            ],
            &[],
        );
        assert_eq!(code, Some(1), "{err}");
        let error = "error: /nonexistent/g.edges: No such file or directory (os error 2)";
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
        assert_eq!(lines.len(), 4, "one error line per rank: {err}");
        for rank in 0..4 {
            let want = match rank {
                0 => error.to_string(),
                r => format!("[rank {r}] {error}"),
            };
            assert!(
                lines.contains(&want.as_str()),
                "rank {rank}'s line whole: {err}"
            );
        }
    }
}

#[test]
fn ranks_are_not_launched_from_inside_a_rank_and_bad_arguments_are_refused() {
    let (code, _, err) = atos(
        &["run", "--np", "2", "nvshmem-check"],
        &[("ATOS_RANK", "0")],
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("already a rank"), "{err}");
    let (code, _, err) = atos(&["run", "--np", "9", "nvshmem-check"], &[]);
    assert_eq!(code, Some(2), "clap refuses 9 ranks: {err}");
    let (code, _, err) = atos(&["nvshmem-check"], &[]);
    assert_eq!(code, Some(1));
    assert!(err.contains("not a rank"), "{err}");
    // Waits too long for a `Duration` are refused, not a panic: on the command line and in a
    // rank's variables.
    let (code, _, err) = atos(
        &[
            "run",
            "--np",
            "1",
            "--bootstrap-timeout",
            "1e300",
            "nvshmem-check",
        ],
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--bootstrap-timeout 1e300 is not a positive number of seconds up to 1e9"),
        "{err}"
    );
    for var in ["ATOS_BOOTSTRAP_TIMEOUT", "ATOS_RUN_TIMEOUT"] {
        let (code, _, err) = atos(
            &["nvshmem-check"],
            &[
                ("ATOS_RANK", "0"),
                ("ATOS_RANKS", "1"),
                ("ATOS_RENDEZVOUS", "/tmp/atos-never"),
                (var, "1e300"),
            ],
        );
        assert_eq!(code, Some(1), "{var}: {err}");
        assert!(
            err.contains(&format!(
                "{var}=\"1e300\" is not a positive number of seconds (at most 1e9)"
            )),
            "{var}: {err}"
        );
    }
    let (code, _, err) = atos(
        &[
            "bench",
            "--app",
            "bfs",
            "--graph",
            "grid:8x8",
            "--devices",
            "1,2,4",
            "--transport",
            "nvshmem",
        ],
        &[],
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("one spread device count per call"), "{err}");
    // A rank whose variables disagree with --devices says so.
    let (code, _, err) = atos(
        &[
            "bench",
            "--app",
            "bfs",
            "--graph",
            "grid:8x8",
            "--devices",
            "2",
            "--transport",
            "nvshmem",
        ],
        &[
            ("ATOS_RANK", "0"),
            ("ATOS_RANKS", "3"),
            ("ATOS_RENDEZVOUS", "/tmp/atos-never"),
        ],
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("one of 3 but --devices asks for 2"), "{err}");
}
