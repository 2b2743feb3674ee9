//! Codegen from source text: Rust semantics in the emitted CUDA, and small per-feature
//! snapshots (`insta`). The NVRTC compile of these units is in the root crate's tests.

use atos_codegen::*;
use atos_frontend::{lower_device_source, lower_idle_source, lower_task_source};

fn state() -> StateDesc {
    let f = |name: &str, kind, elem: Scalar| FieldDesc {
        name: name.into(),
        kind,
        elem: elem.into(),
    };
    StateDesc {
        name: "S".into(),
        fields: vec![
            f("vals", FieldKind::Slice, Scalar::I32),
            f("out", FieldKind::Atomics, Scalar::I64),
            f("hits", FieldKind::Atomics, Scalar::U32),
            f("work", FieldKind::Queue, Scalar::U32),
            f("limit", FieldKind::Scalar, Scalar::U32),
            f("scale", FieldKind::Scalar, Scalar::F32),
        ],
    }
}

/// The unit of one task over [`state`], unchecked.
fn unit_of(ir: &FnIr) -> Result<String, CodegenError> {
    generate_unit(
        &[ir],
        &[],
        &state(),
        &KernelSpec::for_tasks(&[ir]).checked(false),
    )
}

/// The task function `t` of a one-task unit, unchecked and with index checks written back as
/// plain indexing (`s.f[atos::index(i, s.f_len, site)]` -> `s.f[i]`), for tests about other
/// things; `checked_mode_checks_arithmetic_and_indices_with_their_line` tests the checks.
fn task_body(body: &str) -> String {
    let src = format!("fn t(v: u32, s: &S) {{ {body} }}");
    let ir = lower_task_source("worker = \"warp\"", &src).unwrap_or_else(|e| panic!("{e}"));
    let spec = KernelSpec::for_tasks(&[&ir]).checked(false);
    let unit = generate_unit(&[&ir], &[], &state(), &spec).unwrap_or_else(|e| panic!("{e}"));
    let start = unit.find("__device__ __forceinline__ void t(").unwrap();
    let end = unit[start..].find("\n}\n").unwrap() + start + 3;
    without_index_checks(&unit[start..end])
}

/// `s.f[atos::index(i, s.f_len, 123ull)]` -> `s.f[i]`.
fn without_index_checks(text: &str) -> String {
    const OPEN: &str = "[atos::index(";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at + 1]);
        let inner = &rest[at + OPEN.len()..];
        let close = inner
            .find("ull)]")
            .expect("an index check ends with its site");
        let args = &inner[..close];
        // `args` = `<index>, s.<field>_len, <site>`: keep the index.
        let len = args.rfind(", s.").expect("the length argument");
        out.push_str(&args[..len]);
        out.push(']');
        rest = &inner[close + "ull)]".len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn unsuffixed_literals_take_their_type_from_use() {
    let body = task_body(
        "let mut n = 0; n += s.vals[v]; let w = 3; s.out.store(v, w); s.hits.store(v, n as u32);",
    );
    assert!(body.contains("int32_t n = 0;"), "{body}");
    assert!(body.contains("int64_t w = 3ll;"), "{body}");
}

#[test]
fn signed_arithmetic_wraps_and_division_checks() {
    let body = task_body(
        "let a = s.vals[v]; let b = a * 2 - 1; let c = a / b % 3; let d = -c; s.out.store(v, d as i64);",
    );
    for needle in [
        "atos::wmul(a, 2)",
        "atos::wsub(",
        "atos::div(a, b, ",
        "atos::rem(",
        "atos::wneg(c)",
    ] {
        assert!(body.contains(needle), "missing {needle} in\n{body}");
    }
}

#[test]
fn unsigned_arithmetic_is_plain_and_shifts_are_masked() {
    let body = task_body("let x = v * 3 + 1; let y = x << 33u32; s.hits.store(v, y >> 1);");
    assert!(body.contains("((v * 3u) + 1u)"), "{body}");
    assert!(body.contains("atos::shl(x, 33u)"), "{body}");
    assert!(body.contains("atos::shr(y, 1)"), "{body}");
}

#[test]
fn float_to_int_casts_saturate_and_float_literals_are_typed() {
    let body = task_body("let f = s.scale * 2.5; let i = f as u32; s.hits.store(v, i);");
    assert!(body.contains("(s.scale * 2.5f)"), "{body}");
    assert!(body.contains("atos::cast_sat<uint32_t>(f)"), "{body}");
}

#[test]
fn shadowed_bindings_get_distinct_names() {
    let body = task_body(
        "let x = v; let x = x + 1; { let x = x * 2; s.hits.store(v, x); } s.hits.store(v, x);",
    );
    assert!(body.contains("uint32_t x = v;"), "{body}");
    assert!(body.contains("uint32_t x_1 = (x + 1u);"), "{body}");
    assert!(body.contains("uint32_t x_2 = (x_1 * 2u);"), "{body}");
    assert!(
        body.trim_end().ends_with(
            "worker.leader_only([&]() { atos::atomic_store(&s.hits[v], x_1); });  // line 1\n}"
        ),
        "{body}"
    );
}

#[test]
fn compound_assignment_reads_the_value_not_the_target() {
    let body = task_body(
        "let mut acc = 0u32; let k = v; acc += k; acc -= v; acc <<= k; s.hits.store(v, acc);",
    );
    assert!(body.contains("acc = (acc + k);"), "{body}");
    assert!(body.contains("acc = (acc - v);"), "{body}");
    assert!(body.contains("acc = atos::shl(acc, k);"), "{body}");
}

#[test]
fn side_effects_run_once_per_worker_outside_lanes_and_per_lane_inside() {
    let body = task_body(
        "let old = s.hits.fetch_add(v, s.hits.load(v)); for e in lanes(0..old) { s.work.push(e); s.hits.fetch_add(e, 1); } s.work.push(v);",
    );
    // Outside `lanes`: on the leader, result broadcast; the nested load runs on the leader too.
    assert!(body.contains("worker.uniform([&]() { return atos::atomic_fetch_add(&s.hits[v], atos::atomic_load(&s.hits[v])); })"), "{body}");
    assert!(
        body.contains("worker.leader_only([&]() { atos_out.work.push(v); });"),
        "{body}"
    );
    // Inside `lanes`: every lane does its own.
    assert!(
        body.contains("            atos_out.work.push(e);"),
        "{body}"
    );
    // A statement that drops the previous value: the `red` form.
    assert!(
        body.contains("            atos::atomic_reduce_add(&s.hits[e], 1u);"),
        "{body}"
    );
}

#[test]
fn a_discarded_previous_value_takes_the_red_form_in_lanes_only() {
    let body = task_body(
        "s.hits.fetch_max(v, 3); for e in lanes(0..v) { s.hits.fetch_max(e, 4); let k = s.hits.fetch_or(e, 1); s.hits.store(e, k); }",
    );
    // Uniform: the fetch form, whose broadcast also synchronizes the worker.
    assert!(
        body.contains("worker.uniform([&]() { return atos::atomic_fetch_max(&s.hits[v], 3u); })"),
        "{body}"
    );
    assert!(
        body.contains("atos::atomic_reduce_max(&s.hits[e], 4u);"),
        "{body}"
    );
    assert!(
        body.contains("atos::atomic_fetch_or(&s.hits[e], 1u)"),
        "{body}"
    );
}

#[test]
fn a_lanes_loop_after_a_leader_store_starts_with_a_worker_sync() {
    // The lanes read what the leader stored: the CPU runs the store first, so must the GPU.
    let body = task_body(
        "s.hits.store(v, 1); for e in lanes(0..4u32) { s.hits.store(v + e + 1, s.hits.load(v)); }",
    );
    let store = body
        .find("atos::atomic_store(&s.hits[v], 1u)")
        .expect(&body);
    let sync = body.find("worker.sync();").expect(&body);
    let lanes = body.find("worker.rank()").expect(&body);
    assert!(store < sync && sync < lanes, "{body}");
    // Without a leader write before it, a lanes loop adds no barrier.
    let plain = task_body("for e in lanes(0..4u32) { s.hits.store(e, v); }");
    assert!(!plain.contains("worker.sync();"), "{plain}");
    // In a uniform loop, a store late in one iteration precedes the next iteration's lanes.
    let looped = task_body(
        "let mut i = 0u32; while i < 3 { for e in lanes(0..4u32) { s.hits.fetch_add(e, s.hits.load(v)); } s.hits.store(v, i); i += 1; }",
    );
    let sync = looped.find("worker.sync();").expect(&looped);
    assert!(sync < looped.find("worker.rank()").unwrap(), "{looped}");
}

#[test]
fn cpp_keywords_are_renamed() {
    let body = task_body("let int = v; let new = int + 1; s.hits.store(v, new);");
    assert!(
        body.contains("uint32_t int_ = v;") && body.contains("uint32_t new_ = (int_ + 1u);"),
        "{body}"
    );
}

#[test]
fn loop_bounds_are_evaluated_once() {
    let body = task_body("for i in 0..s.hits.fetch_add(v, 1) { s.work.push(i); }");
    assert_eq!(body.matches("atomic_fetch_add").count(), 1, "{body}");
    assert!(
        body.contains("const uint32_t atos_end2 = worker.uniform([&]() { return atos::atomic_fetch_add(&s.hits[v], 1u); });"),
        "{body}"
    );
    // `lo` before `hi`, as Rust evaluates a range (the CPU executor runs the Rust).
    let body =
        task_body("for i in lanes(s.hits.fetch_add(v, 1)..s.hits.load(v)) { s.work.push(i); }");
    let lo = body.find("const uint32_t atos_start1 =").expect("lo first");
    let hi = body.find("const uint32_t atos_end2 =").expect("then hi");
    assert!(
        lo < hi && body[lo..hi].contains("atomic_fetch_add"),
        "{body}"
    );
}

/// A balanced task whose slots would not fit beside the CTA push stage in 48 KiB of static
/// shared memory runs item by item; a smaller block fits.
#[test]
fn balanced_batches_stay_within_static_shared_memory() {
    let src = "fn t(v: u32, s: &S) { let a = s.hits.load(v); let b = a + 1; let c = b + 2; \
               let d = c + 3; let e = d + 4; let f = e + 5; \
               for i in lanes(0..s.limit) { s.hits.store(i, a + b + c + d + e + f + v); } }";
    let ir = lower_task_source("worker = \"cta\", fetch = 64", src).unwrap();
    for (block, balanced) in [(1024, false), (256, true)] {
        let spec = KernelSpec::single(WorkerKind::Cta, 64, block).checked(false);
        let unit = generate_unit(&[&ir], &[], &state(), &spec).unwrap();
        assert_eq!(unit.contains(" t_batch("), balanced, "block {block}");
    }
}

#[test]
fn integer_limits_and_min_max() {
    let body = task_body(
        "let m = u32::MAX.min(v); let k = i32::MIN.max(s.vals[v]); s.hits.store(v, m); s.out.store(v, k as i64);",
    );
    assert!(body.contains("atos::min(4294967295u, v)"), "{body}");
    assert!(
        body.contains("atos::max(atos::wneg(((int32_t)2147483648u)), s.vals[v])"),
        "{body}"
    );
}

#[test]
fn device_function_calls_are_emitted_with_prototypes() {
    let helper = lower_device_source("fn twice(x: u32) -> u32 { x * 2 }").unwrap();
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { s.hits.store(v, twice(v)); }").unwrap();
    let unit = generate_unit(
        &[&ir],
        &[helper],
        &state(),
        &KernelSpec::for_tasks(&[&ir]).checked(false),
    )
    .unwrap();
    let unit = without_index_checks(&unit);
    assert!(
        unit.contains("__device__ uint32_t twice(uint32_t x);"),
        "{unit}"
    );
    assert!(unit.contains("return (x * 2u);"), "{unit}");
    assert!(
        unit.contains("atos::atomic_store(&s.hits[v], twice(v));"),
        "{unit}"
    );
}

#[test]
fn missing_device_function_is_reported() {
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { s.hits.store(v, nope(v)); }").unwrap();
    let err = unit_of(&ir).unwrap_err();
    assert_eq!(
        err,
        CodegenError::MissingDeviceFn {
            name: "nope".into()
        }
    );
}

#[test]
fn unsupported_atomic_on_float_is_a_clear_error() {
    let mut st = state();
    st.fields.push(FieldDesc {
        name: "rank".into(),
        kind: FieldKind::Atomics,
        elem: Scalar::F32.into(),
    });
    let ir = lower_task_source(
        "",
        "fn t(v: u32, s: &S) { let r = s.rank.fetch_or(v, 1.0); }",
    )
    .unwrap();
    let err = generate_unit(
        &[&ir],
        &[],
        &st,
        &KernelSpec::for_tasks(&[&ir]).checked(false),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`fetch_or` on `Atomics<f32>` (field `rank`) is not supported: it is defined for integers and `bool`"),
        "{err}"
    );
    // Float min/max are table entries now.
    let ir = lower_task_source(
        "",
        "fn t(v: u32, s: &S) { let r = s.rank.fetch_min(v, f32::INFINITY); }",
    )
    .unwrap();
    let cuda = generate_unit(
        &[&ir],
        &[],
        &st,
        &KernelSpec::for_tasks(&[&ir]).checked(false),
    )
    .unwrap();
    assert!(
        without_index_checks(&cuda)
            .contains("atos::atomic_fetch_min(&s.rank[v], __uint_as_float(0x7f800000u))"),
        "{cuda}"
    );
}

#[test]
fn queue_item_type_must_match_the_task() {
    let ir = lower_task_source("", "fn t(v: u64, s: &S) { }").unwrap();
    let err = unit_of(&ir).unwrap_err();
    assert!(matches!(err, CodegenError::ItemMismatch { .. }), "{err:?}");
}

#[test]
fn bad_block_size_is_rejected() {
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { }").unwrap();
    let spec = KernelSpec {
        block_size: 100,
        ..KernelSpec::for_tasks(&[&ir])
    };
    assert!(matches!(
        generate_unit(&[&ir], &[], &state(), &spec),
        Err(CodegenError::Spec(_))
    ));
}

#[test]
fn min_blocks_is_the_second_launch_bound() {
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { }").unwrap();
    let spec = |min_blocks| KernelSpec {
        min_blocks,
        ..KernelSpec::for_tasks(&[&ir])
    };
    let plain = generate_unit(&[&ir], &[], &state(), &spec(0)).unwrap();
    assert!(
        plain.contains("__launch_bounds__(256) atos_t_persistent"),
        "{plain}"
    );
    let six = generate_unit(&[&ir], &[], &state(), &spec(6)).unwrap();
    assert!(
        six.contains("__launch_bounds__(256, 6) atos_t_persistent"),
        "{six}"
    );
    // 9 x 256 threads do not fit an SM's 2048.
    let err = generate_unit(&[&ir], &[], &state(), &spec(9)).unwrap_err();
    assert!(
        matches!(&err, CodegenError::Spec(m) if m.contains("give at most 8")),
        "{err:?}"
    );
}

#[test]
fn ir_round_trips_through_json() {
    let ir = lower_task_source(
        "worker = \"cta\", fetch = 64",
        "fn t(v: u32, s: &S) { if v > 2 { s.work.push(v - 1); } else { return; } }",
    )
    .unwrap();
    assert_eq!(FnIr::from_json(&ir.to_json()).unwrap(), ir);
    assert_eq!(ir.task_attrs().unwrap().fetch, 64);
}

#[test]
fn snapshot_control_flow() {
    insta::assert_snapshot!(task_body(
        "let mut i = 0u32; while i < s.limit { i += 1; if i % 7 == 0 { continue; } else if i > 100 { break; } } \
         loop { if s.hits.compare_and_swap(v, 0, 1) == 0 { break; } } \
         let pick = if i > 3 { i } else { 3 }; s.hits.store(v, pick);"
    ));
}

#[test]
fn snapshot_atomics_and_lanes() {
    insta::assert_snapshot!(task_body(
        "for e in lanes(0..s.limit) { let old = s.hits.fetch_max(e, v); if old < v { s.work.push(e); } } \
         let total = s.out.fetch_add(v, s.vals[v] as i64); s.out.fetch_sub(v, total);"
    ));
}

/// The whole unit of a one-task program with `worker`, unchecked.
fn unit_on(worker: &str, body: &str) -> String {
    let src = format!("fn t(v: u32, s: &S) {{ {body} }}");
    let ir = lower_task_source(&format!("worker = \"{worker}\", fetch = 64"), &src)
        .unwrap_or_else(|e| panic!("{e}"));
    let spec = KernelSpec::for_tasks(&[&ir]).checked(false);
    generate_unit(&[&ir], &[], &state(), &spec).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_cta_group_fences_once_per_batch_for_a_fence_followed_only_by_pushes() {
    // Colouring's shape: store, fence, push. A CTA group stages the push, so the fence can
    // wait for the batch end (`FenceDebt::settle`, before the stage is kept or published).
    let deferred = unit_on(
        "cta",
        "s.hits.store(v, 1); atos::fence(); s.work.push(v); s.work.push(s.vals[v] as u32);",
    );
    for needle in [
        "atos::FenceDebt debt;",
        "worker.leader_only([&]() { atos_out.debt.owe(); });",
        "atos_out.work.push_fenced(v); });",
        "atos_out.work.push_fenced(((uint32_t)s.vals[",
        "atos::FenceDebt::make()",
        "settle(const G& g) { debt.settle(g); }",
    ] {
        assert!(deferred.contains(needle), "missing {needle} in\n{deferred}");
    }
    assert!(!deferred.contains("fence_seq_cst"), "{deferred}");

    // Where the fence must stay: a warp group pushes at once; something other than a push
    // follows; an item that reads what tasks write; a fence that is not at the top level.
    for (worker, body) in [
        ("warp", "s.hits.store(v, 1); atos::fence(); s.work.push(v);"),
        (
            "cta",
            "s.hits.store(v, 1); atos::fence(); s.hits.store(v, 2); s.work.push(v);",
        ),
        (
            "cta",
            "s.hits.store(v, 1); atos::fence(); s.work.push(s.hits.load(v));",
        ),
        (
            "cta",
            "s.hits.store(v, 1); if v > 2 { atos::fence(); } s.work.push(v);",
        ),
    ] {
        let unit = unit_on(worker, body);
        assert!(
            unit.contains("atos::fence_seq_cst();"),
            "{worker}: {body}\n{unit}"
        );
        assert!(!unit.contains("FenceDebt"), "{worker}: {body}\n{unit}");
        assert!(!unit.contains("push_fenced"), "{worker}: {body}\n{unit}");
    }
}

#[test]
fn scalar_methods_apply_to_scalar_fields_and_arrays_are_refused_as_values() {
    // `s.limit.max(2)`: the method on the field's value, as Rust reads it.
    let body = task_body("let w = s.limit.max(2); s.hits.store(v, w);");
    assert!(
        body.contains("uint32_t w = atos::max(s.limit, 2u);"),
        "{body}"
    );
    // On an array field it is no value: the error says to read an element.
    let src = "fn t(v: u32, s: &S) { let w = s.hits.max(2); s.hits.store(v, w); }";
    let ir = lower_task_source("", src).unwrap();
    let err = generate_unit(
        &[&ir],
        &[],
        &state(),
        &KernelSpec::for_tasks(&[&ir]).checked(false),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("field `hits` is an array") && err.contains("s.hits.load(i)"),
        "{err}"
    );
    // Still an `Atomics` operation where the name is one.
    let body = task_body("let w = s.hits.fetch_max(v, 2); s.hits.store(v, w);");
    assert!(body.contains("atomic_fetch_max"), "{body}");
}

#[test]
fn every_lanes_loop_ends_with_a_worker_barrier() {
    let body = task_body(
        "for e in lanes(0..v) { s.hits.store(e, 1); } let seen = s.hits.load(0); for i in 0..v { s.out.store(i, seen as i64); }",
    );
    let barrier = body
        .find("worker.lanes_end();")
        .expect("barrier after the lanes loop");
    let read = body.find("atos::atomic_load(&s.hits[0])").unwrap();
    assert!(
        barrier < read,
        "the barrier comes before the uniform read:\n{body}"
    );
    assert_eq!(
        body.matches("worker.lanes_end();").count(),
        1,
        "only lanes loops get one: {body}"
    );
}

fn lowering_error(src: &str) -> String {
    lower_task_source("", src).unwrap_err().to_string()
}

#[test]
fn break_out_of_a_lanes_loop_is_rejected_but_inner_loops_may_break() {
    let err =
        lowering_error("fn t(v: u32, s: &S) { for e in lanes(0..v) { if e == 3 { break; } } }");
    assert!(
        err.contains("`break` cannot leave a `lanes(..)` loop"),
        "{err}"
    );
    lower_task_source(
        "",
        "fn t(v: u32, s: &S) { for e in lanes(0..v) { for i in 0..e { if i == 2 { break; } } loop { break; } if e == 1 { continue; } } }",
    )
    .unwrap();
    let err = lower_device_source("fn f(x: u32) -> u32 { for i in lanes(0..x) { } x }")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`lanes(..)` loops belong in a task body"),
        "{err}"
    );
}

fn two_queue_state() -> StateDesc {
    let mut st = state();
    st.fields.push(FieldDesc {
        name: "far".into(),
        kind: FieldKind::Queue,
        elem: Scalar::U32.into(),
    });
    st
}

fn plan_error(tasks: &[(&str, &str)], st: &StateDesc) -> String {
    let irs: Vec<FnIr> = tasks
        .iter()
        .map(|(attr, src)| {
            if attr.starts_with("range") {
                lower_idle_source(attr, src).unwrap()
            } else {
                lower_task_source(attr, src).unwrap()
            }
        })
        .collect();
    let refs: Vec<&FnIr> = irs.iter().collect();
    plan_program(&refs, &[], st).unwrap_err().to_string()
}

#[test]
fn programs_the_executors_would_run_differently_are_refused() {
    let st = two_queue_state();
    let err = plan_error(&[("", "fn t(v: u32, s: &S) { }")], &st);
    assert!(err.contains("has several queues (`work`, `far`)"), "{err}");
    let err = plan_error(
        &[("queue = \"work\"", "fn t(v: u32, s: &S) { s.far.push(v); }")],
        &st,
    );
    assert!(
        err.contains("pushes to queue `far`, but no task of this program pops it"),
        "{err}"
    );
    let err = plan_error(
        &[
            ("queue = \"work\"", "fn a(v: u32, s: &S) { }"),
            ("queue = \"work\"", "fn b(v: u32, s: &S) { }"),
        ],
        &st,
    );
    assert!(err.contains("queue `work` is popped by a and b"), "{err}");
    let err = plan_error(&[("queue = \"nope\"", "fn t(v: u32, s: &S) { }")], &st);
    assert!(err.contains("no Queue field of that name"), "{err}");
    let err = plan_error(
        &[
            ("queue = \"work\"", "fn t(v: u32, s: &S) { }"),
            ("range = \"scale\"", "fn h(i: u32, s: &S) { }"),
        ],
        &st,
    );
    assert!(err.contains("must be a u32/u64 scalar field"), "{err}");
    let err = plan_error(
        &[
            ("queue = \"work\"", "fn t(v: u32, s: &S) { }"),
            ("range = \"limit\"", "fn h(i: u32, s: &S) { }"),
            ("range = \"limit\"", "fn g(i: u32, s: &S) { }"),
        ],
        &st,
    );
    assert!(
        err.contains("at most one idle hook; this one has h, g"),
        "{err}"
    );
    let err = plan_error(
        &[
            ("queue = \"work\"", "fn t(v: u32, s: &S) { }"),
            ("queue = \"work\"", "fn t(v: u32, s: &S) { }"),
        ],
        &st,
    );
    assert!(err.contains("task `t` is listed twice"), "{err}");
}

/// Device functions taking the state: their pushes count as the caller's, and their calls are
/// checked against their signature and the program's state.
#[test]
fn device_functions_taking_the_state_are_checked_like_the_task() {
    let st = two_queue_state();
    let helper = lower_device_source("fn relay(s: &S, v: u32) { s.far.push(v); }").unwrap();
    let deeper = lower_device_source("fn outer(s: &S, v: u32) { relay(s, v + 1); }").unwrap();
    let task =
        lower_task_source("queue = \"work\"", "fn t(v: u32, s: &S) { outer(s, v); }").unwrap();
    let err = plan_program(&[&task], &[&helper, &deeper], &st)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("task `t` pushes to queue `far`, but no task of this program pops it"),
        "{err}"
    );
    // Called without the state, or with it where the function takes none.
    let spec_of = |t: &FnIr| KernelSpec::for_tasks(&[t]).checked(false);
    let helper = lower_device_source("fn relay(s: &S, v: u32) { s.work.push(v); }").unwrap();
    let bad = lower_task_source("", "fn t(v: u32, s: &S) { relay(v); }").unwrap();
    let err = generate_unit(&[&bad], &[helper], &state(), &spec_of(&bad))
        .unwrap_err()
        .to_string();
    assert!(err.contains("`relay` takes the state first"), "{err}");
    let plain = lower_device_source("fn inc(x: u32) -> u32 { x + 1 }").unwrap();
    let bad = lower_task_source("", "fn t(v: u32, s: &S) { let w = inc(s, v); }").unwrap();
    let err = generate_unit(&[&bad], &[plain], &state(), &spec_of(&bad))
        .unwrap_err()
        .to_string();
    assert!(err.contains("`inc` does not take the state"), "{err}");
    // Another state type than the program's.
    let other = lower_device_source("fn relay(s: &Other, v: u32) { }").unwrap();
    let ok_call = lower_task_source("", "fn t(v: u32, s: &S) { relay(s, v); }").unwrap();
    let err = generate_unit(&[&ok_call], &[other], &state(), &spec_of(&ok_call))
        .unwrap_err()
        .to_string();
    assert!(err.contains("takes the state `&Other`"), "{err}");
}

#[test]
fn a_two_queue_program_with_an_idle_hook_gets_one_kernel() {
    let st = two_queue_state();
    let near = lower_task_source(
        "queue = \"work\", worker = \"cta\", fetch = 64",
        "fn near(v: u32, s: &S) { if v > 3 { s.far.push(v - 1); } }",
    )
    .unwrap();
    let far = lower_task_source(
        "queue = \"far\", worker = \"thread\", fetch = 4",
        "fn far(v: u32, s: &S) { s.work.push(v / 2); }",
    )
    .unwrap();
    let hook = lower_idle_source(
        "range = \"limit\", worker = \"warp\"",
        "fn rescan(i: u32, s: &S) { if s.hits.load(i) == 0 { s.work.push(i); } }",
    )
    .unwrap();
    let tasks = [&near, &far, &hook];
    let unit = generate_unit(
        &tasks,
        &[],
        &st,
        &KernelSpec::for_tasks(&tasks).checked(false),
    )
    .unwrap();
    for needle in [
        "const auto group = atos::CtaWorker::make();",
        "atos::StagedPusher<uint32_t, 1024, 0>::make(state.work, ctl)",
        "atos::StagedPusher<uint32_t, 1024, 1>::make(state.far, ctl)",
        "atos::queue_server_keeping<64, 1>(state.work, worker0",
        "atos::queue_server_keeping<4, 4>(state.far, worker1",
        "atos::idle_server<1, uint32_t>((atos::u64)state.limit, worker2",
        "atos::run_persistent(group, ctl, out, queues, idle, serve0, serve1);",
    ] {
        assert!(unit.contains(needle), "missing `{needle}` in\n{unit}");
    }
}

#[test]
fn std_cmp_min_max_and_from_conversions() {
    let body = task_body(
        "let a = std::cmp::min(v, s.limit); let b = core::cmp::max(a, 3); let w = u64::from(b); s.out.store(v, i64::from(w as u32));",
    );
    assert!(
        body.contains("uint32_t a = atos::min(v, s.limit);"),
        "{body}"
    );
    assert!(body.contains("uint32_t b = atos::max(a, 3u);"), "{body}");
    assert!(body.contains("uint64_t w = ((uint64_t)b);"), "{body}");
    assert!(body.contains("((int64_t)((uint32_t)w))"), "{body}");
}

/// Checked mode: `+ - *`, negation and shifts overflow-checked, each with a site naming the
/// line; unchecked: wrapping. Division and indices are checked in both.
#[test]
fn checked_mode_checks_arithmetic_and_indices_with_their_line() {
    use atos_codegen::faults::{Fault, decode, fault_functions, site};
    let src = "fn t(v: u32, s: &S) {\n    let a = s.vals[v];\n    let b = -(a * 2 + 1) << 3;\n    s.out.store(v, (b / a) as i64);\n}";
    let ir = lower_task_source("worker = \"warp\"", src).unwrap();
    let unit = |checked| {
        generate_unit(
            &[&ir],
            &[],
            &state(),
            &KernelSpec::for_tasks(&[&ir]).checked(checked),
        )
        .unwrap()
    };
    let (checked, plain) = (unit(true), unit(false));
    let line = |l| ir.line + l;
    for (fault, l, needle) in [
        (
            Fault::IndexOutOfBounds,
            1,
            "s.vals[atos::index(v, s.vals_len, ",
        ),
        (Fault::MulOverflow, 2, "atos::checked_mul(a, 2, "),
        (Fault::AddOverflow, 2, "atos::checked_add("),
        (Fault::NegOverflow, 2, "atos::checked_neg("),
        (Fault::ShlOverflow, 2, "atos::checked_shl("),
        (
            Fault::IndexOutOfBounds,
            3,
            "&s.out[atos::index(v, s.out_len, ",
        ),
    ] {
        let word = site(0, l, fault);
        assert!(checked.contains(needle), "{needle}\n{checked}");
        assert!(
            checked.contains(&format!("{word}ull")),
            "{fault:?}\n{checked}"
        );
        let at = decode(word, &fault_functions(&[&ir], &[])).unwrap();
        assert_eq!(
            (at.function.as_str(), at.line, at.fault),
            ("t", line(l), fault)
        );
    }
    assert!(!plain.contains("checked_"), "{plain}");
    assert!(plain.contains("atos::wmul(a, 2)"), "{plain}");
    // Division and indices are checked in both modes, as Rust checks them in every build.
    for (fault, l) in [
        (Fault::DivByZero, 3),
        (Fault::IndexOutOfBounds, 1),
        (Fault::IndexOutOfBounds, 3),
    ] {
        let word = site(0, l, fault);
        assert!(plain.contains(&format!("{word}ull")), "{fault:?}\n{plain}");
    }
}

/// Sites outside a plain statement name the right line: an `else if` condition its own, the
/// bounds of a balanced `lanes` loop the loop's; and a negated literal (`i32::MIN`) is a
/// constant, never a fault.
#[test]
fn fault_sites_name_their_own_line() {
    use atos_codegen::faults::{Fault, site};
    let checked = |attrs: &str, src: &str| {
        let ir = lower_task_source(attrs, src).unwrap();
        let spec = KernelSpec::for_tasks(&[&ir]).checked(true);
        generate_unit(&[&ir], &[], &state(), &spec).unwrap()
    };
    let unit = checked(
        "",
        "fn t(v: u32, s: &S) {\n    if v > 3 {\n        s.hits.store(v, 1);\n    } else if v + 5 > 7 {\n        s.hits.store(v, 2);\n    }\n}",
    );
    let else_if = site(0, 3, Fault::AddOverflow);
    assert!(unit.contains(&format!("{else_if}ull")), "{unit}");
    let unit = checked(
        "worker = \"warp\", fetch = 8",
        "fn t(v: u32, s: &S) {\n    let m = i32::MIN;\n    for e in lanes(s.hits.load(v)..s.hits.load(v + 1)) {\n        s.out.store(e, i64::from(m));\n    }\n}",
    );
    assert!(unit.contains("t_batch"), "the balanced batch is emitted");
    assert!(
        !unit.contains("checked_neg"),
        "i32::MIN is a constant:\n{unit}"
    );
    // The loop bound `v + 1`, in the task function and in its balanced batch.
    let bound = site(0, 2, Fault::AddOverflow);
    assert_eq!(unit.matches(&format!("{bound}ull")).count(), 2, "{unit}");
}

/// Sites hold lines as offsets from the function's `fn` line: a task that only moves in its
/// file (lines added above it) compiles to the same code but for the `// line` comments, so
/// ptxas sees the same constants (its register allocation has changed with them alone).
#[test]
fn a_task_moved_down_its_file_generates_the_same_code() {
    let src =
        "fn t(v: u32, s: &S) {\n    let a = s.vals[v];\n    s.out.store(v, (a * 2 / a) as i64);\n}";
    let unit = |src: &str| {
        let ir = lower_task_source("", src).unwrap();
        let spec = KernelSpec::for_tasks(&[&ir]).checked(true);
        let text = generate_unit(&[&ir], &[], &state(), &spec).unwrap();
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("  // line ").next().unwrap())
            .collect();
        (ir.line, code.join("\n"))
    };
    let (at, here) = unit(src);
    let (moved_at, moved) = unit(&format!("\n\n\n{src}"));
    assert_eq!(moved_at, at + 3, "the prefix moves the task");
    assert!(here.contains("atos::checked_mul"), "{here}");
    assert_eq!(here, moved);
}

/// A fault in a device function names that function: the unit numbers its sites after the
/// tasks, in the order `faults::fault_functions` gives the host.
#[test]
fn a_device_function_fault_names_the_device_function() {
    use atos_codegen::faults::{Fault, decode, fault_functions, site};
    let helper =
        lower_device_source("fn triple(a: u32) -> u32 {\n    let b = a * 3;\n    b\n}").unwrap();
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { s.hits.store(v, triple(v)); }").unwrap();
    let spec = KernelSpec::for_tasks(&[&ir]).checked(true);
    let unit = generate_unit(&[&ir], std::slice::from_ref(&helper), &state(), &spec).unwrap();
    let names = fault_functions(&[&ir], std::slice::from_ref(&helper));
    let listed: Vec<(&str, u32)> = names.iter().map(|f| (f.name.as_str(), f.line)).collect();
    assert_eq!(listed, vec![("t", ir.line), ("triple", helper.line)]);
    let word = site(1, 1, Fault::MulOverflow);
    assert!(unit.contains(&format!("{word}ull")), "{unit}");
    let at = decode(word, &names).unwrap();
    assert_eq!((at.function.as_str(), at.line), ("triple", helper.line + 1));
}

/// A push's key must match its queue: a priority queue needs one of its key type, a plain
/// queue takes none; both errors name the field and the fix.
#[test]
fn priority_pushes_need_their_key_and_plain_pushes_none() {
    let mut st = state();
    st.fields.push(FieldDesc {
        name: "next".into(),
        kind: FieldKind::PriorityQueue(Scalar::F32),
        elem: Scalar::U32.into(),
    });
    // `t` pops `work` and pushes as told; `u` pops `next`.
    let u = lower_task_source("queue = \"next\"", "fn u(v: u32, s: &S) { }").unwrap();
    let unit = |body: &str| {
        let t = lower_task_source(
            "queue = \"work\"",
            &format!("fn t(v: u32, s: &S) {{ {body} }}"),
        )
        .unwrap();
        let tasks = [&t, &u];
        generate_unit(
            &tasks,
            &[],
            &st,
            &KernelSpec::for_tasks(&tasks).checked(false),
        )
    };
    let src = unit("s.next.push(v, 2.5);").unwrap();
    assert!(src.contains("out.next.push(v, 2.5f)"), "{src}");
    let err = unit("s.next.push(v);").unwrap_err().to_string();
    assert!(
        err.contains("`next` is a priority queue") && err.contains("`f32` key"),
        "{err}"
    );
    let err = unit("s.work.push(v, 3);").unwrap_err().to_string();
    assert!(err.contains("`work` is a plain `Queue`"), "{err}");
    let err = unit("s.next.push(v, 3u32);").unwrap_err().to_string();
    assert!(err.contains("f32") && err.contains("u32"), "{err}");
}

/// A field gets a filter copy on several GPUs only when it is asked with `lower` (or `raise`)
/// and written by nothing that moves it the other way: every write, in the task or a device
/// function it calls, is `lower`/`fetch_min` (or `raise`/`fetch_max`).
#[test]
fn filter_copies_go_to_fields_that_move_one_way() {
    use atos_codegen::plan::{Direction, FilterPlan};
    let st = state();
    let filters = |body: &str, device: &[&str]| -> Vec<FilterPlan> {
        let task = lower_task_source("", &format!("fn t(v: u32, s: &S) {{ {body} }}")).unwrap();
        let fns: Vec<FnIr> = device
            .iter()
            .map(|src| lower_device_source(src).unwrap())
            .collect();
        let refs: Vec<&FnIr> = fns.iter().collect();
        plan_program(&[&task], &refs, &st).unwrap().filters
    };
    let down = |name: &str, field| FilterPlan {
        field,
        name: name.into(),
        direction: Direction::Down,
    };
    assert_eq!(
        filters(
            "if s.hits.lower(v, 3) { s.work.push(v); } let x = s.hits.load(v); s.hits.fetch_min(v, x);",
            &[]
        ),
        vec![down("hits", 2)]
    );
    assert_eq!(
        filters("s.out.raise(v, 1); s.out.fetch_max(v, 2);", &[])[0].direction,
        Direction::Up
    );
    // Asked without `lower`/`raise`, or also written another way: no copy.
    assert_eq!(filters("s.hits.fetch_min(v, 3);", &[]), vec![]);
    assert_eq!(
        filters("s.hits.lower(v, 3); s.hits.raise(v, 9);", &[]),
        vec![]
    );
    assert_eq!(
        filters("s.hits.lower(v, 3); s.hits.fetch_add(v, 1);", &[]),
        vec![]
    );
    assert_eq!(
        filters(
            "s.hits.lower(v, 3); reset(s, v);",
            &["fn reset(s: &S, v: u32) { s.hits.store(v, 9); }"]
        ),
        vec![]
    );
}

/// An inline task whose whole body is `if s.f.lower(i, v) { .. }` over its item `(i, v)` makes
/// its pushes to other devices offers (`Plan::offers`), filtered by `f`'s copy; any other
/// shape, or another `lower` of `f` anywhere, does not (that `lower` would read copies an offer
/// had lowered). The unit's spread form tests the copy before it sends.
#[test]
fn offers_go_to_inline_tasks_guarded_by_a_filtered_field() {
    use atos_codegen::item::ElemTy;
    use atos_codegen::plan::{Direction, OfferPlan};
    let mut st = state();
    st.fields.push(FieldDesc {
        name: "relax".into(),
        kind: FieldKind::Queue,
        elem: ElemTy::Tuple(vec![Scalar::U32, Scalar::U32]),
    });
    let visit = |body: &str| {
        lower_task_source(
            "queue = \"work\"",
            &format!("fn visit(v: u32, s: &S) {{ {body} }}"),
        )
        .unwrap()
    };
    let relax = |body: &str| {
        lower_task_source(
            "queue = \"relax\", inline",
            &format!("fn relax((u, d): (u32, u32), s: &S) {{ {body} }}"),
        )
        .unwrap()
    };
    let offers = |v: &str, r: &str| -> Vec<OfferPlan> {
        let (v, r) = (visit(v), relax(r));
        plan_program(&[&v, &r], &[], &st).unwrap().offers
    };
    let push = "let x = s.hits.load(v); s.relax.push((v + 1, x + 1));";
    assert_eq!(
        offers(push, "if s.hits.lower(u, d) { s.work.push(u); }"),
        vec![OfferPlan {
            queue: "relax".into(),
            field: 2,
            name: "hits".into(),
            direction: Direction::Down,
        }]
    );
    // Not the whole body, not the item's own parts, an `else`, another `lower` of the field
    // (in a task, or in a device function it calls: below), or no filter copy (also written
    // with `fetch_add`): no offers.
    for (v, r) in [
        (
            push,
            "s.work.push(u); if s.hits.lower(u, d) { s.work.push(u); }",
        ),
        (push, "if s.hits.lower(d, u) { s.work.push(u); }"),
        (push, "if s.hits.lower(u, d + 1) { s.work.push(u); }"),
        (
            push,
            "if s.hits.lower(u, d) { s.work.push(u); } else { s.work.push(d); }",
        ),
        (
            "s.hits.lower(v, 0); s.relax.push((v, 1));",
            "if s.hits.lower(u, d) { s.work.push(u); }",
        ),
        (
            "s.hits.fetch_add(v, 1); s.relax.push((v, 1));",
            "if s.hits.lower(u, d) { s.work.push(u); }",
        ),
    ] {
        assert_eq!(offers(v, r), vec![], "{v} / {r}");
    }
    let helper = lower_device_source("fn nudge(s: &S, v: u32) { s.hits.lower(v, 0); }").unwrap();
    let (v, r) = (
        visit("nudge(s, v); s.relax.push((v, 1));"),
        relax("if s.hits.lower(u, d) { s.work.push(u); }"),
    );
    assert_eq!(
        plan_program(&[&v, &r], &[&helper], &st).unwrap().offers,
        vec![]
    );
    let (v, r) = (
        visit(push),
        relax("if s.hits.lower(u, d) { s.work.push(u); }"),
    );
    let tasks = [&v, &r];
    let spread = |multi: bool| {
        generate_unit(
            &tasks,
            &[],
            &st,
            &KernelSpec::for_tasks(&tasks)
                .checked(false)
                .multi_device(multi),
        )
        .unwrap()
    };
    assert!(
        spread(true).contains("if (atos::offer_lower(s.hits, s.hits_len, atos_pushed.f0, atos_pushed.f1)) atos_out.relax.push(atos_pushed);"),
        "{}",
        spread(true)
    );
    assert!(!spread(false).contains("offer_lower"));
}

/// A phase trace (`trace_phases`) turns on `ATOS_TRACE_PHASES` in a persistent unit, leaves
/// other units without it, and is refused for windowed strategies with the reason.
#[test]
fn phase_trace_is_a_persistent_units_define() {
    const DEFINE: &str = "#define ATOS_TRACE_PHASES 1";
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { }").unwrap();
    let spec = |trace_phases, strategy| KernelSpec {
        trace_phases,
        strategy,
        ..KernelSpec::for_tasks(&[&ir])
    };
    let unit = |s: &KernelSpec| generate_unit(&[&ir], &[], &state(), s);
    assert!(
        unit(&spec(true, Strategy::Persistent))
            .unwrap()
            .contains(DEFINE)
    );
    assert!(
        !unit(&spec(false, Strategy::Persistent))
            .unwrap()
            .contains("ATOS_TRACE_PHASES")
    );
    let spread = spec(true, Strategy::Persistent).multi_device(true);
    let err = unit(&spread).unwrap_err();
    assert!(
        matches!(&err, CodegenError::Spec(m) if m.contains("one GPU's run")),
        "{err:?}"
    );
    for strategy in [Strategy::Discrete, Strategy::Bsp] {
        assert!(
            !unit(&spec(false, strategy))
                .unwrap()
                .contains("ATOS_TRACE_PHASES")
        );
        let err = unit(&spec(true, strategy)).unwrap_err();
        assert!(
            matches!(&err, CodegenError::Spec(m) if m.contains("use the persistent strategy")),
            "{err:?}"
        );
    }
}

/// Stamped rings are a unit's define when the spec asks for them, or leaves it to
/// `stamps_by_default` (some task on thread or warp workers), and the unit is one-GPU,
/// persistent and without a priority queue: never in a spread unit, a windowed one or one with
/// a priority queue, nor where asked off (`KernelSpec::stamps_rings` says the same).
#[test]
fn stamped_rings_are_a_one_gpu_persistent_define() {
    const DEFINE: &str = "#define ATOS_STAMPED_RINGS 1";
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { }").unwrap();
    let mut prioritized = state();
    prioritized.fields[3].kind = FieldKind::PriorityQueue(Scalar::U32);
    let unit = |st: &StateDesc, stamped_rings, worker, multi_device, strategy| {
        let spec = KernelSpec {
            stamped_rings,
            strategy,
            ..KernelSpec::for_tasks(&[&ir])
                .worker(worker)
                .multi_device(multi_device)
        };
        let src = generate_unit(&[&ir], &[], st, &spec).unwrap();
        let traits = BoundTraits {
            priority_queue: st.queues().any(|f| f.kind.key().is_some()),
            combines: false,
        };
        assert_eq!(src.contains(DEFINE), spec.stamps_rings(traits));
        src.contains("ATOS_STAMPED_RINGS")
    };
    use Strategy::*;
    use WorkerKind::*;
    let s = state();
    for worker in [Thread, Warp, Cta] {
        assert!(unit(&s, Some(true), worker, false, Persistent));
        assert!(!unit(&s, Some(false), worker, false, Persistent));
        assert_eq!(unit(&s, None, worker, false, Persistent), worker != Cta);
        for asked in [None, Some(true)] {
            assert!(!unit(&s, asked, worker, true, Persistent));
            assert!(!unit(&s, asked, worker, false, Discrete));
            assert!(!unit(&s, asked, worker, false, Bsp));
            assert!(!unit(&prioritized, asked, worker, false, Persistent));
        }
    }
}

/// The default: stamps where some task of the unit runs on thread or warp workers, tiled
/// publication where every task runs on CTA workers.
#[test]
fn stamps_by_default_where_a_task_is_not_on_cta_workers() {
    use atos_codegen::unit::stamps_by_default;
    let t = |worker| TaskSpec { worker, fetch: 8 };
    assert!(!stamps_by_default(&[
        t(WorkerKind::Cta),
        t(WorkerKind::Cta)
    ]));
    assert!(stamps_by_default(&[
        t(WorkerKind::Cta),
        t(WorkerKind::Thread)
    ]));
    assert!(stamps_by_default(&[t(WorkerKind::Warp)]));
    assert!(!stamps_by_default(&[]));
}

/// The idle nap's cap (`ATOS_IDLE_NAP_MAX_SHIFT`): worker.cuh's 8 unless the spec gives one or
/// a queue is a priority queue (3, so napping groups wake soon after an advance); a given one
/// wins over both, and one whose longest nap leaves 32 bits or doubles more than 16 times is
/// refused.
#[test]
fn idle_nap_doublings_set_the_longest_nap() {
    const CAP: &str = "#define ATOS_IDLE_NAP_MAX_SHIFT";
    let ir = lower_task_source("", "fn t(v: u32, s: &S) { }").unwrap();
    let mut prioritized = state();
    prioritized.fields[3].kind = FieldKind::PriorityQueue(Scalar::U32);
    let spec = |doublings| KernelSpec {
        idle_nap_doublings: doublings,
        ..KernelSpec::for_tasks(&[&ir])
    };
    let cap = |st: &StateDesc, doublings| {
        let unit = generate_unit(&[&ir], &[], st, &spec(doublings)).unwrap();
        unit.lines()
            .filter(|l| l.starts_with(CAP))
            .map(|l| {
                l[CAP.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    assert!(cap(&state(), None).is_empty());
    assert_eq!(cap(&prioritized, None), ["3u"]);
    assert_eq!(cap(&state(), Some(2)), ["2u"]);
    assert_eq!(cap(&prioritized, Some(6)), ["6u"]);
    for (ns, doublings) in [(32, 17), (1 << 20, 12)] {
        let err = generate_unit(
            &[&ir],
            &[],
            &state(),
            &KernelSpec {
                idle_nap_ns: ns,
                ..spec(Some(doublings))
            },
        )
        .unwrap_err();
        assert!(
            matches!(&err, CodegenError::Spec(m) if m.contains("at most 16 doublings")),
            "{err:?}"
        );
    }
    assert!(
        generate_unit(
            &[&ir],
            &[],
            &state(),
            &KernelSpec {
                idle_nap_ns: 1 << 20,
                ..spec(Some(11))
            }
        )
        .is_ok()
    );
}

/// A push to an inline queue after a fence that only pushes follow: in a persistent unit all
/// on thread workers on one device the item is held and its task runs at the batch end, after
/// the fence (`InlineCalls::held`); the inline task's own fenced pushes are settled again
/// before the channels publish. Every other unit (a warp or CTA in the unit, spread, discrete,
/// bsp) holds nothing: the fence stays where it is written (or, bsp, is elided with nothing
/// inline) and a persistent push runs the task at once.
#[test]
fn inline_pushes_after_a_deferred_fence_are_held_on_persistent_threads_only() {
    use atos_codegen::item::ElemTy;
    let mut st = state();
    st.fields.push(FieldDesc {
        name: "side".into(),
        kind: FieldKind::Queue,
        elem: ElemTy::Scalar(Scalar::U32),
    });
    let mark = lower_task_source(
        "queue = \"work\"",
        "fn mark(v: u32, s: &S) { s.hits.store(v, 1); atos::fence(); s.side.push(v); }",
    )
    .unwrap();
    // Its own trailing fence: what it pushes with the fence owed is settled before publishing.
    let look = lower_task_source(
        "queue = \"side\", inline",
        "fn look(v: u32, s: &S) { let h = s.hits.load(v + 1); s.out.store(v, h as i64); atos::fence(); s.work.push(v / 2); }",
    )
    .unwrap();
    let unit = |workers: [WorkerKind; 2], strategy: Strategy, multi: bool| {
        let mut spec = KernelSpec::for_tasks(&[&mark, &look])
            .checked(false)
            .multi_device(multi);
        spec.strategy = strategy;
        for (t, w) in spec.tasks.iter_mut().zip(workers) {
            t.worker = w;
            t.fetch = 16;
        }
        generate_unit(&[&mark, &look], &[], &st, &spec).unwrap_or_else(|e| panic!("{e}"))
    };
    use WorkerKind::{Cta, Thread, Warp};
    let held = unit([Thread, Thread], Strategy::Persistent, false);
    assert!(
        held.contains("atos_out.atos_hold_side(v)")
            && held.contains("atos::InlineHold<uint32_t, 8> atos_held_side;")
            && held
                .contains("settle(g); atos_run_side(); settle(g); work.flush(g); side.flush(g);")
            && held.contains("::look(item, *st, atos::ThreadWorker::make(), *this)"),
        "{held}"
    );
    let at = held.find("void mark(").unwrap();
    let mark_body = &held[at..at + held[at..].find("\n}\n").unwrap()];
    assert!(!mark_body.contains("fence_seq_cst"), "{mark_body}");
    for (workers, strategy, multi) in [
        ([Warp, Thread], Strategy::Persistent, false),
        ([Thread, Warp], Strategy::Persistent, false),
        ([Cta, Thread], Strategy::Persistent, false),
        ([Thread, Thread], Strategy::Persistent, true),
        ([Thread, Thread], Strategy::Discrete, false),
        ([Thread, Thread], Strategy::Bsp, false),
    ] {
        let src = unit(workers, strategy, multi);
        assert!(
            !src.contains("atos_hold_side") && !src.contains("InlineHold"),
            "{workers:?} {strategy:?} spread {multi}: holds\n{src}"
        );
        let at = src.find("void mark(").unwrap();
        let body = &src[at..at + src[at..].find("\n}\n").unwrap()];
        match strategy {
            // No inline runs: the item is queued, the fence per the unit's trailing-fence rule.
            Strategy::Discrete | Strategy::Bsp => {
                assert!(body.contains("atos_out.side.push"), "{body}")
            }
            // Run at once, so the fence is made before it, in place.
            _ => assert!(
                body.contains("fence_seq_cst") && body.contains("look"),
                "{workers:?} spread {multi}: {body}"
            ),
        }
    }
}
