//! `atos bench` on the CPU executor: records with every schema field, plots, verification
//! failures reported as failures (the `ATOS_BENCH_CORRUPT` hook), skipped configurations, bad
//! input, and the original-Atos comparison against stand-in binaries.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn atos_env(args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_atos"));
    cmd.args(args).env_remove("ATOS_BENCH_CORRUPT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn atos(args: &[&str]) -> Out {
    atos_env(args, &[])
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("atos-bench-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One quiet CPU BFS run on `graph` (no warm-up) appending its records to `out`.
fn small_cpu_run(graph: &str, out: &Path) -> Out {
    atos(&[
        "bench",
        "--device",
        "cpu",
        "--graph",
        graph,
        "--runs",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ])
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[derive(Clone, Copy)]
enum Kind {
    Int,
    Num,
    Str,
    Bool,
    Array,
    Object,
}

fn has_kind(v: &Value, k: Kind) -> bool {
    match k {
        Kind::Int => v.is_u64(),
        Kind::Num => v.is_number(),
        Kind::Str => v.is_string(),
        Kind::Bool => v.is_boolean(),
        Kind::Array => v.is_array(),
        Kind::Object => v.is_object(),
    }
}

/// Every field of schema 2: name, type, nullable.
const SCHEMA: &[(&str, Kind, bool)] = &[
    ("schema", Kind::Int, false),
    ("impl", Kind::Str, false),
    ("app", Kind::Str, false),
    ("graph", Kind::Str, false),
    ("graph_signature", Kind::Object, false),
    ("vertices", Kind::Int, false),
    ("edges", Kind::Int, false),
    ("source", Kind::Int, false),
    ("reached", Kind::Int, false),
    ("max_depth", Kind::Int, false),
    ("executor", Kind::Str, false),
    ("device", Kind::Str, false),
    ("strategy", Kind::Str, false),
    ("worker", Kind::Str, false),
    ("fetch", Kind::Int, true),
    ("block", Kind::Int, true),
    ("min_blocks", Kind::Int, true),
    ("idle_nap_ns", Kind::Int, true),
    ("idle_nap_doublings", Kind::Int, true),
    ("queue", Kind::Str, false),
    ("cpu_threads", Kind::Int, true),
    ("binary", Kind::Str, true),
    ("idle", Kind::Int, true),
    ("runs", Kind::Int, false),
    ("warmup", Kind::Int, false),
    ("status", Kind::Str, false),
    ("verified", Kind::Bool, false),
    ("error", Kind::Str, true),
    ("note", Kind::Str, true),
    ("mismatches", Kind::Int, true),
    ("runs_failed", Kind::Int, false),
    ("times_ms", Kind::Array, false),
    ("median_ms", Kind::Num, true),
    ("min_ms", Kind::Num, true),
    ("mteps", Kind::Num, true),
    ("workload_ratio", Kind::Num, true),
    ("popped", Kind::Int, true),
    ("pushed", Kind::Int, true),
    ("queue_peak", Kind::Int, true),
    ("helped", Kind::Int, true),
    ("launches", Kind::Int, true),
    ("levels", Kind::Int, true),
    ("grid", Kind::Array, true),
    ("wall_ms", Kind::Num, true),
    ("upload_ms", Kind::Num, true),
    ("uploaded_bytes", Kind::Int, true),
    ("compile_ms", Kind::Num, true),
    ("compile_origin", Kind::Str, true),
    ("timeline", Kind::Array, true),
    ("timeline_queues", Kind::Array, true),
    ("phases_us", Kind::Array, true),
    ("stamped_rings", Kind::Bool, true),
    ("epsilon", Kind::Num, true),
    ("rank_l1", Kind::Num, true),
    ("rank_bound", Kind::Num, true),
    ("colors", Kind::Int, true),
    ("greedy_colors", Kind::Int, true),
    ("delta", Kind::Num, true),
    ("advances", Kind::Int, true),
    ("far_examined", Kind::Int, true),
    ("far_moved", Kind::Int, true),
    ("advance_slack", Kind::Int, true),
    ("prune_stale", Kind::Str, true),
    ("park", Kind::Bool, true),
    ("share", Kind::Bool, true),
    ("max_core", Kind::Int, true),
    ("kcore_window", Kind::Int, true),
    ("split_degree", Kind::Int, true),
    ("split_big_fetch", Kind::Int, true),
    ("tie_skip", Kind::Int, true),
    ("hub_windows", Kind::Bool, true),
    ("hubs_by_degree", Kind::Bool, true),
    ("fused_check", Kind::Bool, true),
    ("inline_check", Kind::Bool, true),
    ("devices", Kind::Int, true),
    ("partition", Kind::Str, true),
    ("aggregation", Kind::Str, true),
    ("remote_items", Kind::Int, true),
    ("remote_bytes", Kind::Int, true),
    ("device_tasks", Kind::Array, true),
    ("device_remote_ops", Kind::Array, true),
    ("device_delivered", Kind::Array, true),
    ("combining", Kind::Bool, true),
    ("combine_drain", Kind::Int, true),
    ("device_progress", Kind::Array, true),
    ("device_active", Kind::Array, true),
    ("end_tail_ms", Kind::Num, true),
    ("last_items_ms", Kind::Num, true),
    ("sample_gap_us", Kind::Num, true),
    ("timeout_s", Kind::Num, false),
    ("timestamp", Kind::Int, false),
    ("atos_version", Kind::Str, false),
    ("device_code", Kind::Str, true),
    ("unit", Kind::Str, true),
    ("registers", Kind::Int, true),
    ("local_bytes", Kind::Int, true),
    ("blocks_per_sm", Kind::Int, true),
    ("device_bytes", Kind::Int, true),
];

fn check_schema(r: &Value) {
    let obj = r.as_object().expect("a record is an object");
    for &(name, kind, nullable) in SCHEMA {
        let v = obj
            .get(name)
            .unwrap_or_else(|| panic!("field `{name}` missing: {r}"));
        assert!(
            has_kind(v, kind) || (nullable && v.is_null()),
            "field `{name}` has the wrong type: {v} in {r}"
        );
    }
    assert_eq!(obj.len(), SCHEMA.len(), "unexpected fields in {r}");
    assert_eq!(r["schema"], 2);
    assert_eq!(r["atos_version"], env!("CARGO_PKG_VERSION"));
    // atos rows name the device code the binary carries; the original's rows have none.
    if r["impl"] == "atos" {
        let code = r["device_code"]
            .as_str()
            .expect("atos rows carry device_code");
        assert!(
            code.len() == 16 && code.bytes().all(|b| b.is_ascii_hexdigit()),
            "{code}"
        );
    } else {
        assert!(r["device_code"].is_null(), "{r}");
    }
    let sig = &r["graph_signature"];
    for f in ["vertices", "edges", "max_degree"] {
        assert!(sig[f].is_u64(), "graph_signature.{f}: {r}");
    }
    assert!(sig["avg_degree"].is_number(), "{r}");
    assert_eq!(sig["vertices"], r["vertices"]);
    assert_eq!(sig["edges"], r["edges"]);
    assert!(
        r["times_ms"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_number)
    );
}

#[test]
fn cpu_run_writes_verified_records_and_plots() {
    let dir = temp_dir("cpu");
    let out = dir.join("tmp.jsonl");
    let plots = dir.join("plots");
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--graph",
        "grid:16x16",
        "--graph",
        "kron:8",
        "--strategy",
        "persistent,bsp",
        "--fetch",
        "1,8",
        "--runs",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    // The table: one line per configuration after the header.
    assert!(o.stdout.starts_with("graph"), "{}", o.stdout);
    assert_eq!(o.stdout.lines().count(), 1 + 8, "{}", o.stdout);
    let recs = records(&out);
    assert_eq!(recs.len(), 2 * 2 * 2);
    for r in &recs {
        check_schema(r);
        assert_eq!(r["impl"], "atos");
        assert_eq!(r["app"], "bfs");
        assert_eq!(r["executor"], "cpu");
        assert_eq!(r["worker"], "cpu");
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"], true, "{r}");
        assert!(r["error"].is_null());
        assert_eq!(r["runs"], 2);
        assert_eq!(r["warmup"], 1);
        let times: Vec<f64> = r["times_ms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        assert_eq!(times.len(), 2);
        let (median, min) = (
            r["median_ms"].as_f64().unwrap(),
            r["min_ms"].as_f64().unwrap(),
        );
        assert!(min <= median && times.iter().all(|&t| t >= min), "{r}");
        let mteps = r["mteps"].as_f64().unwrap();
        let expect = r["edges"].as_f64().unwrap() / (median / 1e3) / 1e6;
        assert!((mteps - expect).abs() <= 1e-9 * expect.max(1.0), "{r}");
        assert!(r["workload_ratio"].as_f64().unwrap() >= 1.0, "{r}");
        if r["strategy"] == "bsp" {
            assert_eq!(
                r["levels"].as_u64().unwrap(),
                r["max_depth"].as_u64().unwrap() + 1,
                "{r}"
            );
        }
    }
    let grid = recs.iter().find(|r| r["graph"] == "grid:16x16").unwrap();
    assert_eq!(grid["vertices"], 256);
    assert_eq!(grid["max_depth"], 30);
    assert_eq!(grid["graph_signature"]["max_degree"], 4);

    let mut svgs: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    svgs.sort();
    for slug in ["grid-16x16", "kron-8"] {
        for kind in ["heatmap-persistent", "heatmap-bsp", "best"] {
            let name = format!("{slug}-{kind}.svg");
            assert!(svgs.contains(&name), "{name} missing from {svgs:?}");
        }
    }
    for f in &svgs {
        assert!(f.ends_with(".svg"), "{f}");
        let text = std::fs::read_to_string(plots.join(f)).unwrap();
        assert!(!text.is_empty(), "{f} is empty");
        let head = text.trim_start();
        assert!(
            head.starts_with("<svg") || head.starts_with("<?xml"),
            "{f}: {}",
            &head[..head.len().min(80)]
        );
    }
    // A second run appends.
    let o = small_cpu_run("grid:16x16", &out);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stderr.is_empty(), "--quiet printed: {}", o.stderr);
    let recs = records(&out);
    assert_eq!(recs.len(), 9);
    assert_eq!(recs[8]["fetch"], 64);
    assert_eq!(recs[8]["strategy"], "persistent");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wrong_answer_is_a_failure_not_a_time() {
    let dir = temp_dir("corrupt");
    let out = dir.join("c.jsonl");
    let o = atos_env(
        &[
            "bench",
            "--device",
            "cpu",
            "--graph",
            "grid:16x16",
            "--strategy",
            "persistent,bsp",
            "--runs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("ATOS_BENCH_CORRUPT", "1")],
    );
    assert_ne!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("FAILED"), "{}", o.stderr);
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        check_schema(r);
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["verified"], false);
        assert!(r["median_ms"].is_null() && r["min_ms"].is_null() && r["mteps"].is_null());
        assert_eq!(r["times_ms"].as_array().unwrap().len(), 0);
        assert_eq!(r["mismatches"], 1);
        let err = r["error"].as_str().unwrap();
        assert!(
            err.contains("1 of 256 depths differ from the CPU reference"),
            "{err}"
        );
    }
    assert!(o.stdout.contains("FAILED"), "{}", o.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--devices`: runs spread over simulated devices are verified like any other and record the
/// device count, the partition, the items sent between devices and each device's tasks; what a
/// spread run cannot do is skipped with the reason; a corrupted answer still fails.
#[test]
fn spread_runs_are_verified_and_record_their_devices() {
    let dir = temp_dir("devices");
    let out = dir.join("m.jsonl");
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--app",
        "bfs",
        "--graph",
        "kron:9",
        "--devices",
        "1,3",
        "--spread-one",
        "--aggregation",
        "eager,16:1",
        "--partition",
        "random:2",
        "--strategy",
        "persistent,bsp",
        "--runs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let recs = records(&out);
    // plain x2 strategies, x1 (eager only) x2, x3 eager and 16:1 x2.
    assert_eq!(recs.len(), 8);
    for r in &recs {
        check_schema(r);
    }
    // --spread-one: the spread program on one device sends nothing between devices.
    let one = recs
        .iter()
        .find(|r| r["devices"] == 1 && r["strategy"] == "persistent")
        .unwrap();
    assert_eq!(one["status"], "ok", "{one}");
    assert_eq!(one["verified"], true);
    assert_eq!(one["remote_items"], 0, "{one}");
    assert_eq!(one["device_tasks"].as_array().unwrap().len(), 1);
    // One device: no element lives elsewhere, so none of its accesses is remote.
    assert_eq!(one["device_remote_ops"], serde_json::json!([0]), "{one}");
    assert_eq!(one["aggregation"], "eager");
    let batched: Vec<&Value> = recs
        .iter()
        .filter(|r| r["devices"] == 3 && r["aggregation"] == "16:1")
        .collect();
    assert_eq!(batched.len(), 2);
    let b = batched
        .iter()
        .find(|r| r["strategy"] == "persistent")
        .unwrap();
    assert_eq!(b["status"], "ok", "{b}");
    assert_eq!(b["verified"], true);
    assert!(b["remote_items"].as_u64().unwrap() > 0, "{b}");
    let spread: Vec<&Value> = recs
        .iter()
        .filter(|r| r["devices"] == 3 && r["aggregation"] == "eager")
        .collect();
    assert_eq!(spread.len(), 2);
    let ok = spread
        .iter()
        .find(|r| r["strategy"] == "persistent")
        .unwrap();
    assert_eq!(ok["status"], "ok", "{ok}");
    assert_eq!(ok["verified"], true);
    assert_eq!(ok["partition"], "random:2");
    assert!(ok["remote_items"].as_u64().unwrap() > 0, "{ok}");
    assert_eq!(ok["device_tasks"].as_array().unwrap().len(), 3);
    // A random partition of kron: every device reaches other devices' depths.
    let ops = ok["device_remote_ops"].as_array().unwrap();
    assert_eq!(ops.len(), 3, "{ok}");
    assert!(ops.iter().all(|o| o.as_u64().unwrap() > 0), "{ok}");
    assert!(
        ok["combining"].is_null(),
        "BFS has no adds to combine: {ok}"
    );
    let bsp = spread.iter().find(|r| r["strategy"] == "bsp").unwrap();
    assert_eq!(bsp["status"], "skipped");
    assert!(
        bsp["note"]
            .as_str()
            .unwrap()
            .contains("persistent strategy")
    );
    let plain = recs.iter().find(|r| r["devices"].is_null()).unwrap();
    assert!(plain["remote_items"].is_null());

    let bad = dir.join("bad.jsonl");
    let o = atos_env(
        &[
            "bench",
            "--device",
            "cpu",
            "--graph",
            "grid:8x8",
            "--devices",
            "2",
            "--runs",
            "1",
            "--out",
            bad.to_str().unwrap(),
        ],
        &[("ATOS_BENCH_CORRUPT", "1")],
    );
    assert_ne!(o.code, Some(0));
    assert_eq!(records(&bad)[0]["status"], "failed");
    let o = atos(&["bench", "--graph", "grid:4x4", "--devices", "9"]);
    assert!(o.stderr.contains("use 1 to 8"), "{}", o.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The 8-device runs issue 15 asks for, simulated: BFS and PageRank spread over 2, 4 and 8
/// simulated devices, eager and aggregated, every run verified; the strong-scaling table and
/// plot come out of the same bench run.
#[test]
fn eight_simulated_devices_run_verified_with_a_scaling_table() {
    let dir = temp_dir("eight");
    let out = dir.join("s.jsonl");
    let plots = dir.join("plots");
    for (app, graph) in [("bfs", "kron:10"), ("pagerank", "grid:24x24")] {
        let o = atos(&[
            "bench",
            "--device",
            "cpu",
            "--app",
            app,
            "--graph",
            graph,
            "--devices",
            "1,2,4,8",
            "--aggregation",
            "eager,32:5",
            "--partition",
            "random:5",
            "--runs",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--plots",
            plots.to_str().unwrap(),
        ]);
        assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
        assert!(o.stdout.contains("strong scaling"), "{}", o.stdout);
        // The scaling rows' columns (graph, app, spread, devices, ms, speed-up, config), split
        // at the runs of spaces that pad them.
        let rows: Vec<Vec<String>> = o
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("strong scaling"))
            .skip(2)
            .map(|l| {
                l.split("  ")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect::<Vec<String>>()
            })
            .filter(|r| r.len() == 7)
            .collect();
        assert!(
            rows.iter()
                .any(|r| r[1] == app && r[2] == "one device" && r[3] == "1" && r[5] == "1.00x"),
            "{app}: no one-device row\n{}",
            o.stdout
        );
        for spread in ["simulated eager random:5", "simulated 32:5 random:5"] {
            for d in [2, 4, 8] {
                let row = rows
                    .iter()
                    .find(|r| r[1] == app && r[2] == spread && r[3] == d.to_string())
                    .unwrap_or_else(|| {
                        panic!("{app}: no {spread} row for {d} devices\n{}", o.stdout)
                    });
                let ms: f64 = row[4].parse().unwrap();
                let speedup: f64 = row[5].trim_end_matches('x').parse().unwrap();
                assert!(ms > 0.0 && speedup > 0.0, "{row:?}");
            }
        }
        let slug = graph.replace(':', "-");
        let svg = std::fs::read_to_string(plots.join(format!("{slug}-scaling.svg")))
            .unwrap_or_else(|e| panic!("{app}: {slug}-scaling.svg: {e}"));
        assert!(svg.contains("simulated eager random:5"));
    }
    let recs = records(&out);
    // Per app: one plain run, 3 counts x 2 aggregations.
    assert_eq!(recs.len(), 2 * (1 + 3 * 2));
    for r in &recs {
        check_schema(r);
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"], true);
    }
    // Without a one-device run there is nothing to scale against, and the bench says so.
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--graph",
        "kron:8",
        "--devices",
        "2",
        "--runs",
        "1",
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("no verified one-device run to compare with (add 1 to --devices)")
    );
    for app in ["bfs", "pagerank"] {
        let eight: Vec<&Value> = recs
            .iter()
            .filter(|r| r["app"] == app && r["devices"] == 8)
            .collect();
        assert_eq!(eight.len(), 2, "{app}");
        for r in eight {
            assert_eq!(r["device_tasks"].as_array().unwrap().len(), 8, "{r}");
            assert!(r["remote_items"].as_u64().unwrap() > 0, "{r}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `combining` is recorded for spread runs of programs that `accumulate` (the re-scan
/// PageRank form), as `--combine` set it, and nowhere else; `combine_drain` only where they
/// combined, as `--combine-drain` set it (or its default).
#[test]
fn combining_is_recorded_for_programs_that_accumulate() {
    let dir = temp_dir("combine");
    for (combine, want, drain) in [
        ("on", true, Some("3")),
        ("on", true, None),
        ("off", false, Some("3")),
    ] {
        let out = dir.join(format!("{combine}-{}.jsonl", drain.unwrap_or("default")));
        let mut args = vec![
            "bench",
            "--device",
            "cpu",
            "--app",
            "pagerank-rescan",
            "--graph",
            "kron:8",
            "--devices",
            "1,2",
            "--combine",
            combine,
            "--runs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(d) = drain {
            args.extend(["--combine-drain", d]);
        }
        let o = atos(&args);
        assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
        let recs = records(&out);
        assert_eq!(recs.len(), 2, "the one-device program and 2 devices");
        for r in &recs {
            check_schema(r);
            assert_eq!(r["verified"], true, "{r}");
            if r["devices"].is_null() {
                assert!(r["combining"].is_null(), "{r}");
                assert!(r["combine_drain"].is_null(), "{r}");
            } else {
                assert_eq!(r["combining"], want, "{r}");
                let drained = drain.map_or(u64::from(atos::aggregation::COMBINE_DRAIN), |d| {
                    d.parse().unwrap()
                });
                if want {
                    assert_eq!(r["combine_drain"], drained, "{r}");
                } else {
                    assert!(r["combine_drain"].is_null(), "{r}");
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn discrete_on_the_cpu_is_skipped_with_a_reason() {
    let dir = temp_dir("discrete");
    let out = dir.join("d.jsonl");
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--graph",
        "kron:8",
        "--strategy",
        "discrete,persistent",
        "--grid",
        "264,default",
        "--runs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    // No blocks on the CPU: one configuration per strategy for both grids, said once.
    assert!(
        o.stderr
            .contains("--grid does not apply on the CPU executor")
            || o.stdout
                .contains("--grid does not apply on the CPU executor"),
        "{}\n{}",
        o.stdout,
        o.stderr
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| r["grid"].is_null()), "{recs:?}");
    check_schema(&recs[0]);
    assert_eq!(recs[0]["strategy"], "discrete");
    assert_eq!(recs[0]["status"], "skipped");
    assert_eq!(recs[0]["verified"], false);
    assert!(recs[0]["error"].is_null());
    assert!(recs[0]["median_ms"].is_null());
    assert!(
        recs[0]["note"].as_str().unwrap().contains("discrete"),
        "{}",
        recs[0]
    );
    assert_eq!(recs[1]["status"], "ok");
    assert!(o.stdout.contains("skipped"), "{}", o.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_clearly() {
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["--strategy", "persistent,nope"],
            2,
            "unknown strategy `nope`: use persistent, discrete or bsp",
        ),
        (
            &["--worker", "gpu"],
            2,
            "unknown worker `gpu`: use thread, warp or cta",
        ),
        (&["--fetch", "0"], 2, "bad fetch `0`"),
        (&["--queue", "heap"], 2, "unknown queue mode `heap`"),
        (&["--block", "100"], 2, "multiple of 32"),
        (&["--grid", "0"], 2, "--grid"),
        (&["--grid", "264,0"], 2, "bad grid `0`"),
        (&["--runs", "0"], 2, "--runs"),
        (
            &["--delta-scale", "nan"],
            2,
            "bad delta scale `nan`: use a positive number",
        ),
        // Too long for a `Duration`: refused, not a panic.
        (
            &["--timeout", "1e300"],
            2,
            "bad timeout `1e300`: use a positive number of seconds up to 1e9",
        ),
        (
            &["--aggregation", "256:1e308"],
            2,
            "WAIT_US must be from 0 to 1e15 microseconds",
        ),
        (&["--app", "sssp"], 1, "sssp needs edge weights"),
        (&["--source", "999"], 1, "source 999 is not a vertex"),
        (
            &["--original-idle", "5"],
            1,
            "--original-idle needs --compare-original",
        ),
        (
            &["--compare-original", "/nonexistent/atos-orig"],
            1,
            "not a folder",
        ),
        (
            &["--share-gpus"],
            1,
            "--share-gpus puts several devices on one GPU, and this run is on the CPU executor",
        ),
    ];
    for (extra, code, msg) in cases {
        let mut args = vec!["bench", "--device", "cpu", "--graph", "grid:4x4"];
        args.extend_from_slice(extra);
        let o = atos(&args);
        assert_eq!(o.code, Some(*code), "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(msg), "{args:?}: {}", o.stderr);
    }
    let o = atos(&["bench", "--device", "cpu", "--graph", "grid:3x"]);
    assert_eq!(o.code, Some(1));
    assert!(o.stderr.contains("bad graph spec"), "{}", o.stderr);
    let o = atos(&["bench", "--device", "cpu"]);
    assert_eq!(o.code, Some(2), "--graph is required: {}", o.stderr);
}

/// Stand-ins for the original binaries, printing what the original test drivers print.
#[cfg(unix)]
#[test]
fn originals_are_run_parsed_and_never_timed_when_wrong() {
    use std::os::unix::fs::PermissionsExt;

    let dir = temp_dir("orig");
    let bin = dir.join("orig/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("args.log");
    // Checks it got an existing, non-empty .csr and -rounds 1, logs its arguments.
    let prelude = format!(
        r#"#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
csr=""; rounds=""
while [ $# -gt 0 ]; do
  case "$1" in -f) csr="$2";; -rounds) rounds="$2";; esac
  shift
done
[ -s "$csr" ] || {{ echo "no csr file: $csr" >&2; exit 3; }}
[ "$rounds" = 1 ] || {{ echo "rounds $rounds" >&2; exit 3; }}
"#,
        log = log.display()
    );
    let scripts = [
        (
            "bfs_cta_64",
            "echo 'num of block: 528  num of threads per block: 256'
echo 'Time: 1.25'
echo 'Ave. Time: 1.25'
echo 'Ave. Workload(vertices): 70'
echo 'enqueued nodes: 0'
echo 'ERROR between CPU and GPU implimentation: 0'
",
        ),
        (
            "bfs_warp",
            "echo 'Ave. Time: 0.5'
echo 'Ave. Workload(vertices): 60'
echo 'h_depth[63]: 14  bfs.depth[63]: 65'
echo 'enqueued nodes: 0'
echo 'ERROR between CPU and GPU implimentation: 51'
",
        ),
        (
            "bfs_discrete_64",
            "echo 'Time: 2.0'
echo \"Cuda error in file 'bfs_cta_discrete.cuh' in line 90 : an illegal memory access was encountered.\" >&2
exit 1
",
        ),
    ];
    for (name, body) in scripts {
        let p = bin.join(name);
        std::fs::write(&p, format!("{prelude}{body}")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = dir.join("o.jsonl");
    let plots = dir.join("plots");
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--graph",
        "grid:8x8",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--compare-original",
        dir.join("orig").to_str().unwrap(),
        "--original-idle",
        "bfs_warp=5",
        "--out",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    // The originals' wrong answers are reported, but only atos failures fail the command.
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let recs = records(&out);
    assert_eq!(recs.len(), 4, "{recs:?}");
    recs.iter().for_each(check_schema);
    assert_eq!(recs[0]["impl"], "atos");
    let by_bin = |name: &str| {
        recs.iter()
            .find(|r| r["binary"] == name)
            .unwrap_or_else(|| panic!("no {name} record"))
    };
    let cta = by_bin("bfs_cta_64");
    assert_eq!(cta["impl"], "original");
    assert_eq!(cta["idle"], 30000);
    assert_eq!(cta["status"], "ok", "{cta}");
    assert_eq!(cta["verified"], true);
    assert_eq!(cta["times_ms"], serde_json::json!([1.25, 1.25]));
    assert_eq!(cta["median_ms"], 1.25);
    assert_eq!(cta["popped"], 70);
    assert_eq!(cta["queue"], "original");
    let warp = by_bin("bfs_warp");
    assert_eq!(warp["idle"], 5);
    assert_eq!(warp["status"], "failed");
    assert_eq!(warp["verified"], false);
    assert_eq!(warp["runs_failed"], 2);
    assert!(warp["median_ms"].is_null());
    assert_eq!(warp["times_ms"].as_array().unwrap().len(), 0);
    assert!(
        warp["error"]
            .as_str()
            .unwrap()
            .contains("2 of 2 runs wrong"),
        "{warp}"
    );
    let discrete = by_bin("bfs_discrete_64");
    assert_eq!(discrete["idle"], 10);
    assert_eq!(discrete["strategy"], "discrete");
    assert_eq!(discrete["verified"], false);
    assert!(discrete["median_ms"].is_null());
    let err = discrete["error"].as_str().unwrap();
    assert!(
        err.contains("2 crashed") && err.contains("illegal memory access"),
        "{err}"
    );

    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls.lines().count(), 6, "{calls}");
    assert!(
        calls
            .lines()
            .filter(|l| l.starts_with("bfs_warp"))
            .all(|l| l.contains("-i 5") && l.contains("-o 2") && l.contains("-r 0")),
        "{calls}"
    );
    assert!(
        calls.contains("bfs_cta_64 -f ") && calls.contains("-i 30000"),
        "{calls}"
    );
    // The temporary .csr is gone.
    let csr = calls.split_whitespace().nth(2).unwrap();
    assert!(
        csr.ends_with("grid-8x8.csr") && !Path::new(csr).exists(),
        "{csr}"
    );
    let best = std::fs::read_to_string(plots.join("grid-8x8-best.svg")).unwrap();
    assert!(best.contains("original bfs_cta_64"), "{best}");
    assert!(o.stdout.contains("WRONG 2/2 runs"), "{}", o.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// PageRank (all three forms) and colouring (one program, split at a degree:
/// `coloring::split`, and split with the hubs a window per task seeded by degree:
/// `coloring::hub_windows`) on the CPU executor: verified records with the app's measures, and
/// the corrupt hook failing each app.
#[test]
fn pagerank_and_coloring_are_verified_per_app() {
    let dir = temp_dir("apps");
    for (app, strategies, split) in [
        ("pagerank", "persistent,bsp", None),
        ("pagerank-rescan", "persistent", None),
        ("pagerank-bsp", "bsp", None),
        ("coloring", "persistent,bsp", None),
        ("coloring", "persistent,bsp", Some("8")),
        ("coloring", "persistent,bsp", Some("inline")),
        ("coloring", "persistent,bsp", Some("windows")),
        ("coloring", "persistent,bsp", Some("fused")),
    ] {
        // `inline` stands for `--inline-check` (which takes no split), `windows` for a split at
        // 8 with `--hub-windows --hubs-by-degree`, `fused` for a split at 8 with
        // `--fused-check`, a number for a split.
        let inline = split == Some("inline");
        let windows = split == Some("windows");
        let fused = split == Some("fused");
        let split = split.filter(|_| !inline && !windows && !fused);
        let form = match (inline, windows, fused) {
            (true, _, _) => "inline",
            (_, true, _) => "windows",
            (_, _, true) => "fused",
            _ => split.unwrap_or("plain"),
        };
        let out = dir.join(format!("{app}-{form}.jsonl"));
        let mut args = vec![
            "bench",
            "--device",
            "cpu",
            "--app",
            app,
            "--graph",
            "kron:8",
            "--graph",
            "grid:12x12",
            "--strategy",
            strategies,
            "--queue",
            "ring,linear",
            "--runs",
            "2",
        ];
        if app.starts_with("pagerank") {
            // Only PageRank takes a tolerance (bench refuses it for the others).
            args.extend(["--epsilon", "0.001"]);
        }
        if let Some(d) = split {
            // The hubs two at a time (`assign_big`'s fetch), passing over tied colours.
            args.extend([
                "--split-degree",
                d,
                "--split-big-fetch",
                "2",
                "--tie-skip",
                "3",
            ]);
        }
        if inline {
            args.push("--inline-check");
        }
        if windows {
            args.extend(["--split-degree", "8", "--hub-windows", "--hubs-by-degree"]);
        }
        if fused {
            args.extend(["--split-degree", "8", "--fused-check"]);
        }
        let corrupt = args.clone();
        args.extend(["--out", out.to_str().unwrap()]);
        let o = atos(&args);
        assert_eq!(o.code, Some(0), "{app}: {}\n{}", o.stdout, o.stderr);
        let recs = records(&out);
        for r in &recs {
            check_schema(r);
            assert_eq!(r["app"], app);
            // Every row of a split records it, skipped rows too (tests/coloring.rs checks that
            // `assign_big` runs).
            match split {
                Some(d) => {
                    assert_eq!(r["split_degree"].to_string(), d, "{r}");
                    assert_eq!(r["split_big_fetch"], 2, "{r}");
                    assert_eq!(r["tie_skip"], 3, "{r}");
                }
                None if windows || fused => {
                    assert_eq!(r["split_degree"], 8, "{r}");
                    assert_eq!(r["tie_skip"], 0, "{r}");
                }
                None => assert!(
                    r["split_degree"].is_null()
                        && r["split_big_fetch"].is_null()
                        && r["tie_skip"].is_null(),
                    "{r}"
                ),
            }
            match windows {
                true => assert!(
                    r["hub_windows"] == true && r["hubs_by_degree"] == true,
                    "{r}"
                ),
                false => assert!(
                    r["hub_windows"].is_null() && r["hubs_by_degree"].is_null(),
                    "{r}"
                ),
            }
            match inline {
                true => assert_eq!(r["inline_check"], true, "{r}"),
                false => assert!(r["inline_check"].is_null(), "{r}"),
            }
            match fused {
                true => assert_eq!(r["fused_check"], true, "{r}"),
                false => assert!(r["fused_check"].is_null(), "{r}"),
            }
            if r["queue"] == "linear" {
                assert_eq!(r["status"], "skipped", "{r}");
                assert!(r["note"].as_str().unwrap().contains("ring"), "{r}");
                continue;
            }
            assert_eq!(r["status"], "ok", "{r}");
            assert!(r["workload_ratio"].as_f64().unwrap() >= 1.0, "{r}");
            if app == "coloring" {
                let (c, g) = (
                    r["colors"].as_u64().unwrap(),
                    r["greedy_colors"].as_u64().unwrap(),
                );
                assert!(c >= 2 && c <= 2 * g, "{r}");
                assert!(r["epsilon"].is_null() && r["rank_l1"].is_null());
            } else {
                assert_eq!(r["epsilon"], 0.001);
                let (l1, bound) = (
                    r["rank_l1"].as_f64().unwrap(),
                    r["rank_bound"].as_f64().unwrap(),
                );
                assert!(l1 <= bound && l1 > 0.0, "{r}");
                // n * epsilon / (1 - d), plus the rounding slack (about 1e-5 of the ranks).
                let want = r["vertices"].as_f64().unwrap() * 0.001 / 0.15;
                assert!(bound >= want && bound < want * 1.01, "{r}");
                assert!(r["colors"].is_null());
            }
        }
        assert_eq!(recs.len(), 2 * 2 * strategies.split(',').count(), "{app}");
        let o = atos_env(&corrupt, &[("ATOS_BENCH_CORRUPT", "1")]);
        assert_ne!(
            o.code,
            Some(0),
            "{app}: the hook must fail every configuration"
        );
        let want = if app == "coloring" {
            "has no colour"
        } else {
            "ranks lost shares"
        };
        assert!(o.stderr.contains(want), "{app}: {}", o.stderr);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SSSP on the CPU executor, asynchronous and Bellman-Ford by levels: verified records with
/// the workload against reached vertices, and the corrupt hook failing every configuration (an
/// unweighted graph is refused in `bad_input_is_refused_clearly`).
#[test]
fn sssp_is_verified_against_dijkstra() {
    let dir = temp_dir("sssp");
    let out = dir.join("sssp.jsonl");
    let args = [
        "bench",
        "--device",
        "cpu",
        "--app",
        "sssp",
        "--graph",
        "grid:12x12,w=9",
        "--graph",
        "kron:8,w=50",
        "--strategy",
        "persistent,bsp",
        "--runs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = atos(&args);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let recs = records(&out);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        check_schema(r);
        assert_eq!(r["app"], "sssp");
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["workload_ratio"].as_f64().unwrap() >= 1.0, "{r}");
        assert!(r["reached"].as_u64().unwrap() > 1, "{r}");
        // max_depth: the most edges on a vertex's fewest-edge shortest path, at least the
        // breadth-first depth (22 on the grid from its corner).
        let spec = r["graph"].as_str().unwrap();
        let g = atos_graph::load::load(spec).unwrap();
        let d = atos_graph::reference::sssp::dijkstra(&g, 0).unwrap();
        let hops = atos_graph::reference::sssp::shortest_path_hops(&g, 0, &d).unwrap();
        let want = atos_graph::reference::sssp::max_hops(&hops);
        assert_eq!(r["max_depth"].as_u64(), Some(u64::from(want)), "{r}");
        let bfs = atos_graph::reference::bfs::bfs_depths(&g, 0);
        assert!(want >= *bfs.iter().filter(|&&x| x != u32::MAX).max().unwrap());
    }
    assert!(
        recs.iter()
            .any(|r| r["graph"] == "grid:12x12,w=9" && r["max_depth"].as_u64().unwrap() >= 22)
    );
    let o = atos_env(&args[..args.len() - 2], &[("ATOS_BENCH_CORRUPT", "1")]);
    assert_ne!(o.code, Some(0), "the hook must fail every configuration");
    assert!(o.stderr.contains("differ from Dijkstra's"), "{}", o.stderr);
    // --weights gives an unweighted graph (here a file) weights to run on.
    let file = dir.join("grid.edges");
    let o = atos(&["graph", "convert", "grid:6x5", file.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let o = atos(&[
        "bench",
        "--device",
        "cpu",
        "--app",
        "sssp",
        "--graph",
        file.to_str().unwrap(),
        "--weights",
        "7",
        "--runs",
        "1",
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(" ok"), "{}", o.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The priority apps: verified like their FIFO forms, recording the delta (given, or the
/// default) and the threshold advances.
#[test]
fn priority_apps_are_verified_and_record_their_delta() {
    let dir = temp_dir("priority");
    let out = dir.join("priority.jsonl");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "--device",
            "cpu",
            "--graph",
            "grid:16x16,w=9",
            "--strategy",
            "persistent,bsp",
            "--runs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = atos(&args);
        assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    };
    run(&["--app", "sssp-priority", "--delta", "3"]);
    run(&["--app", "sssp-priority"]);
    run(&["--app", "bfs-priority"]);
    run(&["--app", "kcore"]);
    // f32 weights (w / 7), a fractional delta, and FIFO order: checked against Dijkstra in f32.
    run(&[
        "--app",
        "sssp-priority",
        "--float-weights",
        "--delta",
        "2.5",
    ]);
    run(&["--app", "sssp", "--float-weights"]);
    run(&["--app", "sssp-priority", "--advance-slack", "40"]);
    run(&["--app", "bfs-priority", "--advance-slack", "5"]);
    run(&["--app", "sssp-priority", "--prune-stale", "off"]);
    run(&["--app", "sssp", "--prune-stale", "above:2"]);
    run(&["--app", "kcore", "--kcore-window", "2"]);
    let recs = records(&out);
    assert_eq!(recs.len(), 22);
    for r in &recs {
        check_schema(r);
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["advances"].is_u64(), "{r}");
    }
    assert_eq!(recs[0]["delta"], 3.0);
    assert!(recs[0]["advances"].as_u64().unwrap() > 3, "{}", recs[0]);
    // The default: 64 bands of 2 x mean weight (5) / mean degree (3.75): 2 x 64.
    assert_eq!(recs[2]["app"], "sssp-priority");
    assert_eq!(recs[2]["delta"], 128.0);
    assert_eq!(recs[4]["app"], "bfs-priority");
    assert_eq!(recs[4]["delta"], 1.0);
    assert_eq!(recs[4]["workload_ratio"], 1.0, "delta 1: level order");
    // A grid's interior has core number 2 (every vertex keeps 2 neighbours), the corners too.
    assert_eq!(recs[6]["app"], "kcore");
    assert_eq!(recs[6]["max_core"], 2);
    assert_eq!(recs[6]["delta"], 1.0);
    // The window: the default clamped to one past the bound, or as asked.
    let w = recs[6]["kcore_window"].as_u64().unwrap();
    assert!((3..=8).contains(&w), "{}", recs[6]);
    assert_eq!(recs[20]["app"], "kcore");
    assert_eq!(recs[20]["kcore_window"], 2);
    // A far item waits at most `window` levels, so no pass looks at it more often.
    let (ex, mv) = (
        recs[20]["far_examined"].as_u64().unwrap(),
        recs[20]["far_moved"].as_u64().unwrap(),
    );
    assert!(mv > 0 && ex <= 2 * mv, "{}", recs[20]);
    assert_eq!(
        recs[10]["far_examined"], 0,
        "FIFO order never pushes far: {}",
        recs[10]
    );
    assert!(recs[10]["kcore_window"].is_null());
    assert_eq!(recs[8]["delta"], 2.5);
    assert!(recs[8]["advances"].as_u64().unwrap() > 3, "{}", recs[8]);
    assert_eq!(recs[10]["app"], "sssp");
    assert!(recs[10]["delta"].is_null());
    assert!(recs[10]["advance_slack"].is_null());
    assert_eq!(recs[0]["advance_slack"], 512, "sssp-priority's default");
    assert_eq!(recs[4]["advance_slack"], 0, "bfs-priority's default");
    assert_eq!(recs[12]["advance_slack"], 40);
    assert_eq!(recs[14]["app"], "bfs-priority");
    assert_eq!(recs[14]["advance_slack"], 5);
    // Stale tasks pruned: by default in priority order only; either way when asked (and
    // still Dijkstra's distances: every record above is ok).
    assert_eq!(
        recs[0]["prune_stale"],
        atos::apps::sssp::Prune::PRIORITY.to_string(),
        "sssp-priority's default"
    );
    assert_eq!(recs[10]["prune_stale"], "off", "sssp's default");
    assert!(
        recs[4]["prune_stale"].is_null(),
        "bfs-priority has no such choice"
    );
    assert_eq!(recs[16]["app"], "sssp-priority");
    assert_eq!(recs[16]["prune_stale"], "off");
    assert_eq!(recs[18]["app"], "sssp");
    assert_eq!(recs[18]["prune_stale"], "above:2");
    // Refused option sets, each with the reason the error must give: a fractional delta for
    // u32 weights; --delta-scale with --delta (it scales the default, so it would be ignored);
    // priority options given to an app that does not take them.
    let refused: &[(&str, &[&str], &str)] = &[
        ("sssp-priority", &["--delta", "2.5"], "whole delta"),
        (
            "sssp-priority",
            &["--delta", "3", "--delta-scale", "2"],
            "not both",
        ),
        ("kcore", &["--delta", "3"], "--delta is for"),
        ("sssp", &["--advance-slack", "8"], "--advance-slack is for"),
        (
            "bfs-priority",
            &["--delta-scale", "2"],
            "--delta-scale is for",
        ),
        ("kcore", &["--advance-slack", "4"], "--advance-slack is for"),
        ("bfs", &["--kcore-window", "4"], "--kcore-window is for"),
        (
            "pagerank",
            &["--split-degree", "8"],
            "--split-degree is for",
        ),
        ("bfs", &["--prune-stale", "on"], "--prune-stale is for"),
        ("sssp", &["--prune-stale", "yes"], "use on, off or above:D"),
        ("pagerank", &["--park", "on"], "--park is for"),
        ("bfs-priority", &["--park", "yes"], "use on or off"),
        ("bfs", &["--stamped-rings", "yes"], "use on or off"),
        ("coloring", &["--split-big-fetch", "4"], "--split-degree"),
        ("coloring", &["--tie-skip", "4"], "--split-degree"),
        ("coloring", &["--hub-windows"], "--split-degree"),
        ("coloring", &["--hubs-by-degree"], "--split-degree"),
        ("coloring", &["--fused-check"], "--split-degree"),
        (
            "coloring",
            &["--split-degree", "8", "--hub-windows", "--fused-check"],
            "--fused-check",
        ),
        (
            "coloring",
            &["--split-degree", "8", "--hub-windows", "--tie-skip", "2"],
            "--tie-skip",
        ),
        (
            "coloring",
            &["--split-degree", "8", "--split-big-fetch", "0"],
            "--split-big-fetch",
        ),
        (
            "bfs",
            &["--idle-nap-doublings", "17"],
            "--idle-nap-doublings",
        ),
        ("bfs", &["--idle-nap", "fast"], "--idle-nap <NS>"),
    ];
    for (app, flags, says) in refused {
        let mut args = vec![
            "bench",
            "--device",
            "cpu",
            "--app",
            app,
            "--graph",
            "grid:8x8,w=9",
        ];
        args.extend_from_slice(flags);
        let o = atos(&args);
        assert_ne!(o.code, Some(0), "{app} {flags:?}");
        assert!(o.stderr.contains(says), "{app} {flags:?}: {}", o.stderr);
        if says.ends_with("is for") {
            // The refusal names the app it was given to.
            assert!(o.stderr.contains(app), "{app} {flags:?}: {}", o.stderr);
        }
    }
    // `--stamped-rings` takes on or off, or nothing (on) before another option; the CPU
    // executor has no rings to stamp, so each run is a plain verified one.
    for flags in [
        &["--stamped-rings", "--runs", "1"][..],
        &["--runs", "1", "--stamped-rings"],
        &["--stamped-rings", "off", "--runs", "1"],
        &["--stamped-rings=on", "--runs", "1"],
    ] {
        let mut args = vec!["bench", "--device", "cpu", "--graph", "grid:8x8"];
        args.extend_from_slice(flags);
        let o = atos(&args);
        assert_eq!(o.code, Some(0), "{flags:?}: {}", o.stderr);
    }
    // The corrupt hook (one core number off) fails k-core's check; a directed graph is refused.
    let o = atos_env(
        &[
            "bench", "--device", "cpu", "--app", "kcore", "--graph", "kron:7", "--runs", "1",
        ],
        &[("ATOS_BENCH_CORRUPT", "1")],
    );
    assert_ne!(o.code, Some(0));
    assert!(o.stderr.contains("core numbers"), "{}", o.stderr);
    // The same hook fails an f32 SSSP run: its check compares f32 distances.
    let o = atos_env(
        &[
            "bench",
            "--device",
            "cpu",
            "--app",
            "sssp-priority",
            "--graph",
            "grid:8x8,w=9",
            "--float-weights",
            "--runs",
            "1",
        ],
        &[("ATOS_BENCH_CORRUPT", "1")],
    );
    assert_ne!(o.code, Some(0));
    assert!(o.stderr.contains("distances differ"), "{}", o.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The original `pr` and `gc_32` rows: their own verdict rules (residues left, their
/// validation's pass or fail, the rank error against the tolerance's bound).
#[test]
fn original_pagerank_and_coloring_rows_are_judged_by_their_own_rules() {
    use std::os::unix::fs::PermissionsExt;

    let dir = temp_dir("orig-apps");
    let bin = dir.join("orig/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("args.log");
    let prelude = format!(
        "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"{}\"\n",
        log.display()
    );
    let scripts = [
        // Converged, rank error small: correct.
        (
            "pr",
            "echo 'Time: 3.5'\necho 'num of 0 res larger than 0.01'\necho 'Ave. Time:     3.50'\necho 'Ave Workload: 400'\necho 'GPU rank: sum of rank 100 error from CPU 0.5'\necho 'GPU res: sum of res 0.2 error from CPU 0.01 0 number of res larger than 0.01'\n",
        ),
        // Residues left: wrong.
        (
            "pr_cta_256",
            "echo 'Time: 1.0'\necho 'num of 12 res larger than 0.01'\necho 'Ave. Time:     1.00'\necho 'Ave Workload: 90'\necho 'GPU rank: sum of rank 90 error from CPU 0.5'\necho 'GPU res: sum of res 3 error from CPU 1 12 number of res larger than 0.01'\n",
        ),
        // Converged by its count but ranks far off its own CPU code: wrong by the bound.
        (
            "pr_discrete_128",
            "echo 'Ave. Time: 2'\necho 'Ave. Workload(vertices): 300'\necho 'GPU rank: sum of rank 100 error from CPU 5000'\necho 'GPU res: sum of res 0.2 error from CPU 0.01 0 number of res larger than 0.01'\n",
        ),
        // One gc_32 file, three modes: pass with -o 2, fail with -o 3, crash in BSP.
        (
            "gc_32",
            "case \"$*\" in\n*'-run_bsp_async 1'*) echo 'Ave. Time: 1'; exit 134;;\n*'-o 3'*) echo 'Ave. Time: 0.7'; echo 'use color 9'; echo 'Fail Validation';;\n*) echo 'Ave. Time: 0.9'; echo 'Ave. Workload(vertices): 70'; echo 'use color 5'; echo 'Pass Validation';;\nesac\n",
        ),
    ];
    for (name, body) in scripts {
        let p = bin.join(name);
        std::fs::write(&p, format!("{prelude}{body}")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let orig = dir.join("orig");
    for app in ["pagerank", "coloring"] {
        let out = dir.join(format!("{app}.jsonl"));
        let o = atos(&[
            "bench",
            "--device",
            "cpu",
            "--app",
            app,
            "--graph",
            "grid:8x8",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--compare-original",
            orig.to_str().unwrap(),
            "--original-idle",
            "7",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.code, Some(0), "{app}: {}\n{}", o.stdout, o.stderr);
        let recs = records(&out);
        recs.iter().for_each(check_schema);
        let row = |label: &str| {
            recs.iter()
                .find(|r| r["binary"] == label)
                .unwrap_or_else(|| panic!("no {label} row in {recs:?}"))
                .clone()
        };
        if app == "pagerank" {
            let pr = row("pr");
            assert_eq!(pr["status"], "ok", "{pr}");
            assert_eq!(pr["median_ms"], 3.5);
            assert_eq!(pr["rank_l1"], 0.5);
            let cta = row("pr_cta_256");
            assert_eq!(cta["status"], "failed");
            assert!(cta["error"].as_str().unwrap().contains("12"), "{cta}");
            let d = row("pr_discrete_128");
            assert_eq!(d["status"], "failed", "{d}");
            assert!(
                d["error"].as_str().unwrap().contains("twice the tolerance"),
                "{d}"
            );
        } else {
            let warp = row("gc_32_warp");
            assert_eq!(warp["status"], "ok", "{warp}");
            assert_eq!(warp["colors"], 5);
            assert_eq!(warp["greedy_colors"], 2);
            let cta = row("gc_32_cta");
            assert_eq!(cta["status"], "failed");
            assert!(
                cta["error"].as_str().unwrap().contains("Fail Validation"),
                "{cta}"
            );
            let bsp = row("gc_32_bsp");
            assert_eq!(bsp["status"], "failed");
            assert!(bsp["error"].as_str().unwrap().contains("crashed"), "{bsp}");
        }
    }
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls
            .lines()
            .filter(|l| l.starts_with("pr "))
            .all(|l| l.contains("-p 0.01") && l.contains("-i 7")),
        "{calls}"
    );
    assert!(calls.contains("-run_bsp_async 2 -o 3"), "{calls}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `atos --version` names the device code the binary carries, and its bench records say the
/// same: a measurement names the device code it ran.
#[test]
fn the_version_and_the_records_name_the_device_code() {
    let o = atos(&["--version"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let code = o
        .stdout
        .trim()
        .strip_prefix(&format!("atos {} (device code ", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected --version: {}", o.stdout))
        .to_string();
    let dir = temp_dir("device-code");
    let out = dir.join("v.jsonl");
    let o = small_cpu_run("grid:8x8", &out);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let recs = records(&out);
    assert!(!recs.is_empty());
    for r in &recs {
        check_schema(r);
        assert_eq!(r["device_code"], code.as_str(), "{r}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `atos report`: the tables a bench printed come back from its records alone (the same lines),
/// with plots; several files are reported each on its own; what is not a record of this
/// schema is refused with the file and line.
#[test]
fn report_prints_a_runs_tables_again_from_its_records() {
    let dir = temp_dir("report");
    let out = dir.join("run.jsonl");
    let bench = atos(&[
        "bench",
        "--device",
        "cpu",
        "--app",
        "bfs",
        "--graph",
        "kron:9",
        "--devices",
        "1,2,3",
        "--aggregation",
        "eager,16:1",
        "--partition",
        "random:3",
        "--runs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bench.code, Some(0), "{}\n{}", bench.stdout, bench.stderr);
    assert!(
        bench.stdout.contains("\nbetween devices: "),
        "{}",
        bench.stdout
    );
    let plots = dir.join("plots");
    let report = atos(&[
        "report",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    assert_eq!(report.code, Some(0), "{}\n{}", report.stdout, report.stderr);
    let mut lines = report.stdout.lines();
    let head = lines.next().unwrap();
    assert!(
        head.starts_with("== ") && head.contains("run.jsonl (5 records; CPU"),
        "{head}"
    );
    let tables: Vec<&str> = lines.take_while(|l| !l.contains(" plots in ")).collect();
    assert_eq!(tables, bench.stdout.lines().collect::<Vec<_>>());
    // The traffic rows: one per spread run, every item counted.
    let rows: Vec<&str> = tables
        .iter()
        .copied()
        .skip_while(|l| !l.starts_with("between devices"))
        .skip(2)
        .collect();
    assert_eq!(rows.len(), 4, "{tables:#?}");
    assert!(rows.iter().all(|r| r.contains("simulated")), "{rows:#?}");
    assert!(plots.join("kron-9-scaling.svg").is_file());

    // Two files: each its own run, its plots in a folder named after it.
    let other = dir.join("again");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&out, other.join("run.jsonl")).unwrap();
    let both = dir.join("both");
    let two = atos(&[
        "report",
        out.to_str().unwrap(),
        other.join("run.jsonl").to_str().unwrap(),
        "--plots",
        both.to_str().unwrap(),
    ]);
    assert_eq!(two.code, Some(0), "{}\n{}", two.stdout, two.stderr);
    assert_eq!(two.stdout.matches("\n== ").count(), 1, "{}", two.stdout);
    assert_eq!(two.stdout.matches("strong scaling:").count(), 2);
    let folder = dir.file_name().unwrap().to_str().unwrap();
    assert!(
        both.join(format!("{folder}-run/kron-9-scaling.svg"))
            .is_file()
    );
    assert!(both.join("again-run/kron-9-scaling.svg").is_file());

    // Refusals: a line that is not JSON, a record of another schema, no records, no file.
    let text = std::fs::read_to_string(&out).unwrap();
    let first = text.lines().next().unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, format!("{first}\n{{not json\n")).unwrap();
    let old = dir.join("old.jsonl");
    std::fs::write(&old, first.replacen("\"schema\":2", "\"schema\":1", 1)).unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    for (file, says) in [
        (&bad, "bad.jsonl:2: not a bench record"),
        (
            &old,
            "old.jsonl:1: a record of schema 1; this atos reads schema 2",
        ),
        (&empty, "empty.jsonl: no records in it"),
        (&dir.join("missing.jsonl"), "reading "),
    ] {
        let o = atos(&["report", file.to_str().unwrap()]);
        assert_eq!(o.code, Some(1), "{}", o.stdout);
        assert!(o.stderr.contains(says), "{says}: {}", o.stderr);
    }
}

/// The table's queue column says `ring stamped` for a kernel that stamped its rings (the
/// record's `stamped_rings`; GPU runs only, so the record here is a CPU one marked by hand).
#[test]
fn the_table_names_stamped_rings() {
    let dir = temp_dir("stamped-table");
    let out = dir.join("run.jsonl");
    let bench = small_cpu_run("grid:8x8", &out);
    assert_eq!(bench.code, Some(0), "{}", bench.stderr);
    assert!(!bench.stdout.contains("stamped"), "{}", bench.stdout);
    let mut rec = records(&out).remove(0);
    rec["stamped_rings"] = Value::Bool(true);
    let marked = dir.join("marked.jsonl");
    std::fs::write(&marked, format!("{rec}\n")).unwrap();
    let report = atos(&["report", marked.to_str().unwrap()]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    assert!(
        report.stdout.contains(" ring stamped "),
        "{}",
        report.stdout
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The first cell of every row of docs/bench.md's tables.
fn bench_md_first_cells() -> Vec<String> {
    let doc = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/bench.md");
    std::fs::read_to_string(doc)
        .unwrap_or_else(|e| panic!("{doc}: {e}"))
        .lines()
        .filter_map(|l| l.strip_prefix('|'))
        .filter_map(|l| l.split('|').next().map(str::to_string))
        .collect()
}

/// The names written as code (between backquotes) in `cells`, from each span's start up to the
/// first character that cannot be part of an option or field name (so "`--fetch N,...`" gives
/// "--fetch").
fn code_names(cells: &[String]) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for cell in cells {
        for span in cell.split('`').skip(1).step_by(2) {
            let name: String = span
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// docs/bench.md documents the command as built: its option table names every option
/// `atos bench --help` lists and no other, and its field tables name every field of a record.
#[test]
fn bench_md_names_every_option_and_record_field() {
    let help = atos(&["bench", "--help"]);
    assert_eq!(help.code, Some(0), "{}", help.stderr);
    // clap's option lines: `  -h, --help` or `      --fetch <N>`; descriptions sit deeper.
    let options: std::collections::BTreeSet<String> = help
        .stdout
        .lines()
        .filter(|l| l.len() - l.trim_start().len() < 8 && l.trim_start().starts_with('-'))
        .filter_map(|l| {
            l.trim_start()
                .split([' ', ',', '=', '<'])
                .find(|w| w.starts_with("--"))
        })
        .filter(|o| *o != "--help")
        .map(str::to_string)
        .collect();
    assert!(
        options.len() > 40,
        "too few options read from --help: {options:?}"
    );
    let documented = code_names(&bench_md_first_cells());
    let documented_options: std::collections::BTreeSet<String> = documented
        .iter()
        .filter(|n| n.starts_with("--"))
        .cloned()
        .collect();
    let missing: Vec<_> = options.difference(&documented_options).collect();
    assert!(
        missing.is_empty(),
        "options docs/bench.md does not document: {missing:?}"
    );
    let stale: Vec<_> = documented_options.difference(&options).collect();
    assert!(
        stale.is_empty(),
        "options docs/bench.md documents that `atos bench` lacks: {stale:?}"
    );
    let fields: Vec<_> = SCHEMA
        .iter()
        .map(|&(name, _, _)| name)
        .filter(|name| !documented.contains(*name))
        .collect();
    assert!(
        fields.is_empty(),
        "record fields docs/bench.md does not document: {fields:?}"
    );
}
