//! The `atos` binary: graph info and convert on specs and on the shared real files, and a
//! clear failure on bad input.

use std::path::PathBuf;
use std::process::Command;

fn atos(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atos"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `atos bench --app APP --graph GRAPH --device cpu --runs 1` and `extra`: whether it
/// succeeded, and its stdout and stderr together.
fn cpu_bench(app: &str, graph: &str, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["bench", "--app", app, "--graph", graph, "--device", "cpu"];
    args.extend(["--runs", "1"]);
    args.extend(extra);
    let (ok, stdout, stderr) = atos(&args);
    (ok, format!("{stdout}{stderr}"))
}

/// `atos graph convert FROM TO` with `flags`, which must succeed.
fn convert(from: &std::path::Path, to: &std::path::Path, flags: &[&str]) {
    let mut args = vec![
        "graph",
        "convert",
        from.to_str().unwrap(),
        to.to_str().unwrap(),
    ];
    args.extend(flags);
    let (ok, _, err) = atos(&args);
    assert!(ok, "{err}");
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("atos-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn info_on_a_spec() {
    let (ok, out, err) = atos(&["graph", "info", "grid:30x20"]);
    assert!(ok, "{err}");
    assert!(out.contains("vertices     600"), "{out}");
    assert!(out.contains("edges        2300 directed entries"), "{out}");
    assert!(out.contains("components   1 (largest 600)"), "{out}");
    assert!(out.contains("diameter     >= 48"), "{out}");
}

#[test]
fn convert_round_trips_and_info_reads_the_cache() {
    let dir = temp_dir("convert");
    let cache = dir.join("k.acsr");
    let (ok, out, err) = atos(&["graph", "convert", "kron:10,w=7", cache.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("wrote"), "{out}");
    let (ok, a, err) = atos(&["graph", "info", "kron:10,w=7", "--quick"]);
    assert!(ok, "{err}");
    let (ok, b, err) = atos(&["graph", "info", cache.to_str().unwrap(), "--quick"]);
    assert!(ok, "{err}");
    let pick = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| {
                l.starts_with("vertices")
                    || l.starts_with("edges")
                    || l.starts_with("degree")
                    || l.starts_with("weights")
            })
            .map(String::from)
            .collect()
    };
    assert_eq!(pick(&a), pick(&b));
    assert!(b.contains("weights      u32"), "{b}");
    // The Atos layout holds no weights: refused unless asked to drop them.
    let csr = dir.join("k.csr");
    let (ok, _, err) = atos(&[
        "graph",
        "convert",
        cache.to_str().unwrap(),
        csr.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("no weights"), "{err}");
    let (ok, _, err) = atos(&[
        "graph",
        "convert",
        cache.to_str().unwrap(),
        csr.to_str().unwrap(),
        "--no-weights",
    ]);
    assert!(ok, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_fails_with_file_line_and_reason() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 9\n",
    )
    .unwrap();
    let (ok, _, err) = atos(&["graph", "info", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("bad.mtx:3: column 9 is outside 1..=3"),
        "{err}"
    );
    let (ok, _, err) = atos(&["graph", "info", "kron:28", "--max-memory", "1G"]);
    assert!(!ok && err.contains("limit"), "{err}");
    let (ok, _, err) = atos(&["graph", "info", "grid:3x"]);
    assert!(!ok && err.contains("bad graph spec"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_on_every_shared_file() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    if !dir.is_dir() {
        eprintln!("skipping: ../shared/data is absent");
        return;
    }
    for (file, vertices) in [
        ("luxembourg_osm.edges", 114_599),
        ("delaunay_n16.edges", 65_536),
        ("facebook_combined.edges", 4_039),
        ("chesapeake.mtx", 39),
        ("bips98_606.mtx", 7_135),
    ] {
        let (ok, out, err) = atos(&["graph", "info", dir.join(file).to_str().unwrap()]);
        assert!(ok, "{file}: {err}");
        assert!(
            out.contains(&format!("vertices     {vertices}\n")),
            "{file}: {out}"
        );
    }
}

/// Output into a pipe whose reader is gone (`atos graph info ... | head`) ends the process by
/// SIGPIPE, as other command-line tools do: no panic in `println!`, no message. The pipe's read
/// end is closed before the process starts, so its first write fails.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_it_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_atos"))
        .args(["graph", "info", "grid:30x20"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "{:?}: {err}",
        out.status
    );
    assert!(err.is_empty(), "{err}");
}

/// A graph converted with `--keep-duplicates` reaches `bench --app kcore` through its `.acsr`
/// cache; peeling could spin forever on it, so the bench refuses it, naming the repeat and the
/// way out, and exits non-zero. The same graph without duplicates runs.
#[test]
fn kcore_refuses_a_graph_with_duplicate_edges() {
    let d = temp_dir("kcore-dup");
    let edges = d.join("dup.edges");
    std::fs::write(&edges, "0 1\n0 1\n1 2\n").unwrap();
    for (keep, name) in [(true, "dup.acsr"), (false, "simple.acsr")] {
        let out = d.join(name);
        convert(
            &edges,
            &out,
            if keep { &["--keep-duplicates"] } else { &[] },
        );
        let (ok, text) = cpu_bench("kcore", out.to_str().unwrap(), &[]);
        if keep {
            assert!(!ok, "{text}");
            assert!(
                text.contains("vertex 0 lists neighbour 1 more than once")
                    && text.contains("merge duplicate edges"),
                "{text}"
            );
        } else {
            assert!(ok, "{text}");
            assert!(text.contains("largest core number 1"), "{text}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// `bench --app sssp` on a file with a negative f32 weight refuses it with the library's
/// message (`apps::sssp::check_weights`), naming the edge and its weight, before any run; and
/// one whose f32 distances overflow, naming a vertex they lose.
#[test]
fn sssp_refuses_a_negative_weight() {
    let d = temp_dir("sssp-negative");
    let file = d.join("neg.mtx");
    std::fs::write(
        &file,
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 2 -2.0\n",
    )
    .unwrap();
    let (ok, text) = cpu_bench("sssp", file.to_str().unwrap(), &[]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("SSSP edge 1 -> 2 (column entry 2) has weight -2")
            && text.contains("weights of 0 or more"),
        "{text}"
    );
    // Finite weights whose sum overflows f32: refused, not counted as unreached.
    std::fs::write(
        &file,
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 3e38\n3 2 3e38\n",
    )
    .unwrap();
    let (ok, text) = cpu_bench("sssp", file.to_str().unwrap(), &[]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("vertex 2 is reachable from 0 but its distance overflows f32"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// `bench --app coloring` on a graph converted with `--directed` refuses it, naming an entry
/// without its reverse (`apps::coloring::check_graph`), instead of failing the colouring's
/// validation with an edge of one colour.
#[test]
fn coloring_refuses_a_directed_graph() {
    let d = temp_dir("coloring-directed");
    let edges = d.join("triangle.edges");
    std::fs::write(&edges, "0 1\n1 2\n2 0\n").unwrap();
    let file = d.join("triangle.acsr");
    convert(&edges, &file, &["--directed"]);
    let (ok, text) = cpu_bench("coloring", file.to_str().unwrap(), &[]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("colouring needs an undirected graph, but vertex 0 lists neighbour 1")
            && text.contains("`atos graph convert` without `--directed`"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--app pagerank-bsp` without `--strategy` runs the bulk-synchronous form it is named for
/// (it ran persistent, silently); `--strategy persistent` still runs that.
#[test]
fn pagerank_bsp_runs_bsp_unless_told_otherwise() {
    let row = |args: &[&str]| {
        let (ok, text) = cpu_bench("pagerank-bsp", "kron:6", args);
        assert!(ok, "{text}");
        let line = text.lines().find(|l| l.starts_with("kron-6")).unwrap();
        line.split_whitespace().nth(2).unwrap().to_string()
    };
    assert_eq!(row(&[]), "bsp");
    assert_eq!(row(&["--strategy", "persistent"]), "persistent");
}

/// An option of some apps only, given to another, is refused naming the apps that take it
/// (it was ignored: `--source 999999` for PageRank ran and verified).
#[test]
fn options_of_other_apps_are_refused() {
    for (app, flag, value, takers) in [
        (
            "pagerank",
            "--source",
            "5",
            "bfs, bfs-priority, bfs-owner, sssp and sssp-priority",
        ),
        (
            "bfs",
            "--epsilon",
            "0.001",
            "pagerank, pagerank-rescan and pagerank-bsp",
        ),
        ("bfs", "--weights", "100", "sssp and sssp-priority"),
    ] {
        let (ok, text) = cpu_bench(app, "kron:6", &[flag, value]);
        assert!(!ok, "{app} {flag}");
        let want = format!("{flag} is for {takers} only; `{app}` does not use it");
        assert!(text.contains(&want), "{text}");
    }
    let (ok, text) = cpu_bench("kcore", "kron:6", &["--float-weights"]);
    assert!(
        !ok && text.contains("--float-weights is for sssp and sssp-priority only"),
        "{text}"
    );
    // A tolerance PageRank cannot run with is refused when the arguments are read, before
    // any graph is loaded: subnormal (the runs did not end), NaN, and 1 - d or more.
    for bad in ["1e-45", "nan", "0.15", "-1"] {
        let (ok, text) = cpu_bench("pagerank", "kron:6", &["--epsilon", bad]);
        assert!(!ok, "--epsilon {bad}: {text}");
        assert!(
            text.contains(&format!("invalid value '{bad}' for '--epsilon"))
                && text.contains("use a normal f32"),
            "--epsilon {bad}: {text}"
        );
    }
}

/// `--timeout` holds on the CPU executor too: a run still going at it is stopped (it was only
/// checked after the run returned, so a run that never ended hung the bench), and the
/// configuration fails naming the limit.
#[test]
fn a_cpu_run_is_stopped_at_the_timeout() {
    let (ok, text) = cpu_bench("bfs", "kron:16", &["--timeout", "0.001"]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("the run passed its time limit of 1ms on the CPU executor"),
        "{text}"
    );
}
