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

/// `atos bench --app APP --graph FILE` on the CPU, one run: whether it succeeded, and its
/// stdout and stderr together.
fn cpu_bench(app: &str, graph: &std::path::Path) -> (bool, String) {
    let graph = graph.to_str().unwrap();
    let (ok, stdout, stderr) = atos(&[
        "bench", "--app", app, "--graph", graph, "--device", "cpu", "--runs", "1",
    ]);
    (ok, format!("{stdout}{stderr}"))
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
        let mut args = vec![
            "graph",
            "convert",
            edges.to_str().unwrap(),
            out.to_str().unwrap(),
        ];
        if keep {
            args.push("--keep-duplicates");
        }
        let (ok, _, err) = atos(&args);
        assert!(ok, "{err}");
        let (ok, text) = cpu_bench("kcore", &out);
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
    let (ok, text) = cpu_bench("sssp", &file);
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
    let (ok, text) = cpu_bench("sssp", &file);
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
    let (ok, _, err) = atos(&[
        "graph",
        "convert",
        edges.to_str().unwrap(),
        file.to_str().unwrap(),
        "--directed",
    ]);
    assert!(ok, "{err}");
    let (ok, text) = cpu_bench("coloring", &file);
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
        let mut all = vec!["bench", "--app", "pagerank-bsp", "--graph", "kron:6"];
        all.extend(["--device", "cpu", "--runs", "1"]);
        all.extend(args);
        let (ok, stdout, stderr) = atos(&all);
        assert!(ok, "{stdout}{stderr}");
        let line = stdout.lines().find(|l| l.starts_with("kron-6")).unwrap();
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
        let args = [
            "bench", "--app", app, "--graph", "kron:6", "--device", "cpu", flag, value,
        ];
        let (ok, _, stderr) = atos(&args);
        assert!(!ok, "{app} {flag}");
        let want = format!("{flag} is for {takers} only; `{app}` does not use it");
        assert!(stderr.contains(&want), "{stderr}");
    }
    let (ok, _, stderr) = atos(&[
        "bench",
        "--app",
        "kcore",
        "--graph",
        "kron:6",
        "--float-weights",
    ]);
    assert!(
        !ok && stderr.contains("--float-weights is for sssp and sssp-priority only"),
        "{stderr}"
    );
}

/// `--timeout` holds on the CPU executor too: a run still going at it is stopped (it was only
/// checked after the run returned, so a run that never ended hung the bench), and the
/// configuration fails naming the limit.
#[test]
fn a_cpu_run_is_stopped_at_the_timeout() {
    let (ok, stdout, stderr) = atos(&[
        "bench",
        "--app",
        "bfs",
        "--graph",
        "kron:16",
        "--device",
        "cpu",
        "--timeout",
        "0.001",
        "--runs",
        "1",
    ]);
    let text = format!("{stdout}{stderr}");
    assert!(!ok, "{text}");
    assert!(
        text.contains("the run passed its time limit of 1ms on the CPU executor"),
        "{text}"
    );
}
