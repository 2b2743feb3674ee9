//! Every generated translation unit compiles with NVRTC for sm_90, without a warning.
//! NVRTC needs no GPU; `scripts/test.sh` installs it from PyPI. Under CI=true a missing
//! NVRTC fails the test instead of skipping it.

mod common;

use atos::apps::bfs::bfs;
use atos::codegen::{KernelSpec, Strategy, WorkerKind};
use atos::gpu::nvrtc;
use common::features::features;
use common::{compile_clean, nvrtc_or_skip};

/// Every worker x fetch x block size (persistent, balanced where the task qualifies), then the
/// windowed entries and the unbalanced batches.
fn specs() -> Vec<KernelSpec> {
    let mut out = Vec::new();
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        for fetch in [1, 32, 64] {
            for block_size in [128, 256] {
                out.push(KernelSpec::single(worker, fetch, block_size));
            }
        }
        for strategy in [Strategy::Discrete, Strategy::Bsp] {
            let mut s = KernelSpec::single(worker, 64, 256);
            s.strategy = strategy;
            out.push(s);
        }
        // The other checking mode than this build's default (tests run both ways in CI: debug
        // builds check by default).
        out.push(KernelSpec::single(worker, 64, 256).checked(!atos::codegen::CHECKED_BY_DEFAULT));
        // A register budget given (`--min-blocks`).
        out.push(KernelSpec::single(worker, 64, 256).min_blocks(6));
        // Block 1024: the push stages and the balanced slots share 48 KiB of static shared
        // memory (a balanced task that would not fit runs item by item).
        for balance in [true, false] {
            let mut s = KernelSpec::single(worker, 64, 1024);
            s.balance = balance;
            out.push(s);
        }
    }
    out
}

#[test]
fn bfs_compiles_for_every_worker_fetch_and_block() {
    if !nvrtc_or_skip() {
        return;
    }
    assert_eq!(
        nvrtc::nvrtc_version().unwrap().0,
        13,
        "tests pin NVRTC 13.0 to match the GPU machine"
    );
    for spec in specs() {
        let src = atos::cuda_source::<bfs::Task>(&spec).unwrap();
        compile_clean(&src);
    }
}

#[test]
fn feature_task_compiles_for_every_worker_fetch_and_block() {
    if !nvrtc_or_skip() {
        return;
    }
    for spec in specs() {
        compile_clean(&atos::cuda_source::<features::Task>(&spec).unwrap());
    }
}

/// Every program of the program-model tests, with its own mixed workers and with every task
/// on each worker kind.
#[test]
fn multi_task_programs_compile_for_every_worker_kind() {
    use common::programs::*;
    if !nvrtc_or_skip() {
        return;
    }
    fn variants(irs: usize, base: KernelSpec) -> Vec<KernelSpec> {
        let mut out = vec![base.clone()];
        for strategy in [Strategy::Discrete, Strategy::Bsp] {
            let mut s = base.clone();
            s.strategy = strategy;
            out.push(s);
        }
        for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
            let mut s = base.clone();
            s.tasks = vec![atos::TaskSpec { worker, fetch: 4 }; irs];
            out.push(s);
        }
        out
    }
    fn check<P: atos::TaskSet>() {
        let irs = P::irs();
        for spec in variants(irs.len(), KernelSpec::for_tasks(&irs)) {
            compile_clean(&atos::cuda_source::<P>(&spec).unwrap());
            compile_clean(&atos::cuda_source::<P>(&spec.checked(false)).unwrap());
        }
    }
    check::<flag::Task>();
    check::<flag_reduced::Task>();
    check::<(relax::Task, promote::Task)>();
    check::<(color::Task, check::Task)>();
    check::<(spread::Task, rescan::Task)>();
    check::<chain::Task>();
    check::<StoreBufferTasks>();
    // Tuple items: 3 words, (u32, f32), and 16 bytes of mixed widths in two queues.
    use common::tuples::*;
    check::<place::Task>();
    check::<relax_item::Task>();
    check::<(count_down::Task, echo::Task)>();
    check::<common::faults::faulty::Task>();
    check::<atos::apps::pagerank::Tasks>();
    check::<atos::apps::pagerank_bsp::Tasks>();
    check::<atos::apps::coloring::Tasks>();
    check::<atos::apps::coloring::split::Tasks>();
    // A warp task and a CTA task, each with a fence followed by a loop that reads.
    check::<atos::apps::coloring::split_fused::Tasks>();
    // A balanced loop with a reduction whose chunks persistent CTAs share (`taken`).
    check::<atos::apps::coloring::hub_windows::Tasks>();
    check::<atos::apps::coloring::inline_check::Tasks>();
    check::<atos::apps::sssp::relax::Task>();
    check::<atos::apps::bfs_priority::visit::Task>();
    check::<atos::apps::sssp::float::relax::Task>();
    check::<atos::apps::kcore::peel::Task>();
    check::<atos::apps::bfs_owner::Tasks>();
}

/// `P`'s unit under `spec` with an option turned on by `on`, which must define `define`: it
/// compiles without a warning.
fn compile_with_option<P: atos::TaskSet>(spec: KernelSpec, on: fn(&mut KernelSpec), define: &str) {
    let mut spec = spec;
    on(&mut spec);
    let src = atos::cuda_source::<P>(&spec).unwrap();
    assert!(src.contains(define), "no `{define}` in the unit");
    compile_clean(&src);
}

fn irs_spec<P: atos::TaskSet>() -> KernelSpec {
    KernelSpec::for_tasks(&P::irs())
}

/// The units every option's test compiles: BFS on each worker kind, the split colouring (two
/// task kinds, CTA hubs) and PageRank (an idle hook).
fn compile_option_units(on: fn(&mut KernelSpec), define: &str) {
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        compile_with_option::<bfs::Task>(KernelSpec::single(worker, 8, 256), on, define);
    }
    type Split = atos::apps::coloring::split::Tasks;
    compile_with_option::<Split>(irs_spec::<Split>(), on, define);
    type Rank = atos::apps::pagerank::Tasks;
    compile_with_option::<Rank>(irs_spec::<Rank>(), on, define);
}

/// Units that trace their run's phases (`KernelSpec::trace_phases`, `ATOS_TRACE_PHASES`):
/// every worker kind, several queues and an idle hook (spread units refuse it).
#[test]
fn phase_traced_units_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    compile_option_units(|s| s.trace_phases = true, "#define ATOS_TRACE_PHASES 1");
}

/// Units that stamp their rings (`KernelSpec::stamped_rings`): every worker kind (CTA groups
/// keep and flush theirs), several queues, an idle hook, inline tasks and tuple items.
#[test]
fn stamped_ring_units_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    const DEFINE: &str = "#define ATOS_STAMPED_RINGS 1";
    let on: fn(&mut KernelSpec) = |s| s.stamped_rings = Some(true);
    compile_option_units(on, DEFINE);
    type Inline = atos::apps::coloring::inline_check::Tasks;
    compile_with_option::<Inline>(irs_spec::<Inline>(), on, DEFINE);
    type Place = common::tuples::place::Task;
    compile_with_option::<Place>(irs_spec::<Place>(), on, DEFINE);
}

/// Units asked for tiled publication (`KernelSpec::stamped_rings` `Some(false)`) on thread and
/// warp workers, which stamp by default: the same units without the define.
#[test]
fn tiled_ring_units_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    const DEFINE: &str = "#define ATOS_STAMPED_RINGS 1";
    fn tiled<P: atos::TaskSet>(spec: KernelSpec) {
        // Each of these stamps by default, so `Some(false)` is what takes the define out.
        let by_default = atos::cuda_source::<P>(&spec).unwrap();
        assert!(
            by_default.contains(DEFINE),
            "a thread or warp unit is tiled by default"
        );
        let spec = KernelSpec {
            stamped_rings: Some(false),
            ..spec
        };
        let src = atos::cuda_source::<P>(&spec).unwrap();
        assert!(!src.contains(DEFINE), "a unit asked for tiled rings stamps");
        compile_clean(&src);
    }
    for worker in [WorkerKind::Thread, WorkerKind::Warp] {
        tiled::<bfs::Task>(KernelSpec::single(worker, 8, 256));
    }
    type Split = atos::apps::coloring::split::Tasks;
    tiled::<Split>(irs_spec::<Split>());
    type Inline = atos::apps::coloring::inline_check::Tasks;
    tiled::<Inline>(irs_spec::<Inline>().worker(WorkerKind::Thread));
}

/// Units for programs spread over several GPUs (peer-to-peer, `mesh.cuh`): every worker kind,
/// checked and not, with one and several queues, an idle hook and tuple items.
#[test]
fn multi_device_programs_compile_for_every_worker_kind() {
    use common::programs::*;
    if !nvrtc_or_skip() {
        return;
    }
    fn check<P: atos::TaskSet>() {
        let irs = P::irs();
        for (worker, fetch) in [
            (WorkerKind::Thread, 1),
            (WorkerKind::Warp, 4),
            (WorkerKind::Cta, 64),
        ] {
            let mut spec = KernelSpec::for_tasks(&irs).multi_device(true);
            spec.tasks = vec![atos::TaskSpec { worker, fetch }; irs.len()];
            let src = atos::cuda_source::<P>(&spec.clone().checked(false)).unwrap();
            assert!(
                src.contains("atos::RoutedPusher")
                    && src.contains("atos::MeshQueues")
                    && src.contains("atos::forward_server")
            );
            compile_clean(&src);
        }
    }
    let checked = KernelSpec::single(WorkerKind::Cta, 64, 256)
        .multi_device(true)
        .checked(true);
    compile_clean(&atos::cuda_source::<bfs::Task>(&checked).unwrap());
    check::<bfs::Task>();
    check::<atos::apps::pagerank::Tasks>();
    check::<atos::apps::coloring::Tasks>();
    check::<atos::apps::coloring::split::Tasks>();
    check::<atos::apps::coloring::hub_windows::Tasks>();
    check::<(relax::Task, promote::Task)>();
    check::<common::tuples::place::Task>();
    // An inline task: run at the push when this device owns the item, routed otherwise; its
    // pushes to other devices are offers (`offer_lower`), and upward ones (`offer_raise`).
    check::<atos::apps::bfs_owner::Tasks>();
    check::<MaxLabelTasks>();
    // `accumulate`: delivered by drains after batches, by the idle sweep, and at the kernel's
    // end.
    check::<QuietResidual>();
    check::<count_in::Task>();
    // gpu_suite's remote-access count: a scalar state field, a field whole on device 0.
    let one = KernelSpec::single(WorkerKind::Thread, 1, 256).multi_device(true);
    compile_clean(&atos::cuda_source::<read_next::Task>(&one).unwrap());
}

/// Every scalar method of the operation table has its device function, and the feature task
/// calls every one of them (so the NVRTC compile above and the GPU suite's comparison with the
/// CPU executor cover them all).
/// Every entry of the operation tables has its device code in the prelude and is used by the
/// feature task, whose GPU run `gpu_suite` compares with the CPU executor.
#[test]
fn every_table_entry_has_its_device_function_and_a_use() {
    use atos::codegen::{Scalar, ops};
    let headers = atos::headers::device_headers();
    let prelude = &headers
        .iter()
        .find(|(n, _)| n.ends_with("prelude.cuh"))
        .expect("the prelude")
        .1;
    let features = atos::cuda::<features::Task>().unwrap();
    let check = |what: &str, defined: String, used: &[String]| {
        assert!(
            prelude.contains(&defined),
            "{what}: no `{defined}` in prelude.cuh"
        );
        assert!(
            used.iter().any(|u| features.contains(u.as_str())),
            "{what} is not exercised by tests/common/features.rs"
        );
    };
    for m in ops::METHODS {
        check(
            m.name,
            format!(" {}(", m.cuda),
            &[format!("atos::{}(", m.cuda)],
        );
    }
    for a in ops::ATOMICS {
        check(
            a.name,
            format!(" {}(", a.cuda),
            &[format!("atos::{}(", a.cuda)],
        );
        // The `red` form of a dropped result: defined (every element type compiles in
        // `every_atomic_entry_compiles_for_every_element_type_it_admits`); the feature task
        // runs add and sub in a `lanes` loop.
        if let Some(red) = a.discarded {
            // Defined by ATOS_REDUCE_BY_FETCH (every type), specialized by ATOS_RED.
            let op = red
                .strip_prefix("atomic_reduce_")
                .expect("atomic_reduce_<op>");
            assert!(
                prelude.contains(&format!("ATOS_REDUCE_BY_FETCH({op})")),
                "no `{red}` in prelude.cuh"
            );
        }
    }
    for r in ops::REDUCTIONS {
        check(
            r.rust,
            format!("struct {} ", r.cuda),
            &[format!("atos::{}::apply(", r.cuda)],
        );
    }
    for c in ops::FLOAT_CONSTS {
        let used = [c.cuda(Scalar::F32), c.cuda(Scalar::F64)];
        assert!(
            used.iter().any(|u| features.contains(u.as_str())),
            "`{}` is not exercised by tests/common/features.rs",
            c.name
        );
    }
}

/// Every `ops::ATOMICS` entry has its device function for every element type it admits, and
/// no more: a kernel calling each (entry, type) pair compiles, and a call for a type the entry
/// does not admit would have no CPU counterpart (the runtime's `atomic_table` test checks the
/// CPU side of the same table). A `by_field` entry is compiled on a plain field and on a field
/// spread over several GPUs (`atos::Spread`, with its filter and combine copies).
#[test]
fn every_atomic_entry_compiles_for_every_element_type_it_admits() {
    if !nvrtc_or_skip() {
        return;
    }
    // Every entry at device scope (one GPU), then at system scope with the `Spread` forms.
    for system in [false, true] {
        every_atomic_unit(system);
    }
}

fn every_atomic_unit(system: bool) {
    let (src, calls) = common::atomics::every_atomic_source(system);
    // 4 entries for every type, 4 more (+ lower, raise and accumulate, each plain and spread)
    // for the 8 numeric ones, 3 more for the 7 integer/bool; the 4 numeric and 3 bitwise
    // read-modify-writes once more in their discarded (`red`) form.
    let spread = if system { 3 * 8 } else { 0 };
    assert_eq!(
        calls,
        4 * 9 + 7 * 8 + spread + 3 * 7 + 4 * 8 + 3 * 7,
        "(entry, type) pairs"
    );
    compile_clean(&src);
}

/// The kernel that checks the CUDA twins of `atos_codegen::keys` on a GPU
/// (`atos::gpu::twins`, run by `examples/gpu_suite`) compiles cleanly.
#[test]
fn the_key_twins_check_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    compile_clean(atos::gpu::twins::KEY_TWINS_SOURCE);
}

/// The kernel that checks the CUDA twin of the CPU executor's sweep window split
/// (`split_sweep`, `atos::gpu::twins::check_sweep_twins`) compiles cleanly.
#[test]
fn the_sweep_twins_check_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    compile_clean(atos::gpu::twins::SWEEP_TWINS_SOURCE);
}

/// A fence followed only by a priority push: a CTA group leaves the fence to its batch end
/// (`push_fenced` on the near and far rings, `FenceDebt`), persistent and discrete; a
/// bulk-synchronous unit emits no fence (the pushes run in the next level).
mod fenced_priority {
    use atos::{Atomics, PriorityQueue};

    #[atos::state]
    pub struct Fenced<'a> {
        pub seen: Atomics<'a, u32>,
        pub work: PriorityQueue<'a, u32, u32>,
    }

    #[atos::task(worker = "cta", fetch = 8)]
    pub fn hop(v: u32, s: &Fenced) {
        s.seen.store(v, 1);
        atos::fence();
        s.work.push(v / 2, v);
    }
}

#[test]
fn deferred_fences_compile_with_priority_queues_mixed_workers_and_spread() {
    if !nvrtc_or_skip() {
        return;
    }
    use fenced_priority::hop;
    for strategy in [Strategy::Persistent, Strategy::Discrete] {
        let mut spec = KernelSpec::single(WorkerKind::Cta, 8, 256).checked(false);
        spec.strategy = strategy;
        let src = atos::cuda_source::<hop::Task>(&spec).unwrap();
        assert!(
            src.contains("push_fenced") && src.contains("atos::FenceDebt"),
            "{src}"
        );
        compile_clean(&src);
    }
    let mut spec = KernelSpec::single(WorkerKind::Cta, 8, 256).checked(false);
    spec.strategy = Strategy::Bsp;
    let src = atos::cuda_source::<hop::Task>(&spec).unwrap();
    assert!(
        src.contains("atos::fence() elided")
            && !src.contains("push_fenced(")
            && !src.contains("FenceDebt debt;"),
        "{src}"
    );
    compile_clean(&src);
    // A warp worker's deferred fence inside a CTA group (colouring's `assign` on warps, `check`
    // on a CTA), on one device and spread (the routed channel's `push_fenced`).
    use atos::apps::coloring;
    for multi in [false, true] {
        let irs = <coloring::Tasks as atos::TaskSet>::irs();
        let mut spec = KernelSpec::for_tasks(&irs)
            .multi_device(multi)
            .checked(false);
        spec.tasks = vec![
            atos::TaskSpec {
                worker: WorkerKind::Warp,
                fetch: 4,
            },
            atos::TaskSpec {
                worker: WorkerKind::Cta,
                fetch: 8,
            },
        ];
        let src = atos::cuda_source::<coloring::Tasks>(&spec).unwrap();
        assert!(
            src.contains("atos_out.check.push_fenced(v)") && src.contains("atos::FenceDebt"),
            "{src}"
        );
        compile_clean(&src);
    }
    // Persistent thread groups hold their fenced pushes (`atos::HeldPusher`) and owe their own
    // fence (`atos::ThreadFenceDebt`): colouring on one device and spread, and the priority
    // queue's three rings. Discrete thread groups fence per task; bulk-synchronous units emit
    // no such fence (the check runs in the next level).
    for (strategy, multi) in [
        (Strategy::Persistent, false),
        (Strategy::Persistent, true),
        (Strategy::Discrete, false),
        (Strategy::Bsp, false),
    ] {
        let mut spec = atos::spec_of::<coloring::Tasks>()
            .worker(WorkerKind::Thread)
            .fetch(64)
            .multi_device(multi)
            .checked(false);
        spec.strategy = strategy;
        let src = atos::cuda_source::<coloring::Tasks>(&spec).unwrap();
        let held = src.contains("atos_out.check.push_fenced(v)")
            && src.contains("atos::HeldPusher<uint32_t, 8>")
            && src.contains("atos::ThreadFenceDebt debt;");
        let plain = src.contains("atos_out.check.push(v)") && !src.contains("HeldPusher");
        let fenced = plain && src.contains("atos::fence_seq_cst(); });");
        let elided = plain && src.contains("atos::fence() elided") && !src.contains("debt.");
        assert!(
            match strategy {
                Strategy::Persistent => held,
                Strategy::Discrete => fenced,
                Strategy::Bsp => elided,
            },
            "{strategy:?}: {src}"
        );
        compile_clean(&src);
    }
    let spec = KernelSpec::single(WorkerKind::Thread, 4, 256).checked(false);
    let src = atos::cuda_source::<hop::Task>(&spec).unwrap();
    assert!(
        src.contains("push_fenced")
            && src.contains("atos::HeldPusher")
            && src.contains("atos::ThreadFenceDebt"),
        "{src}"
    );
    compile_clean(&src);
}

/// The host finds a spread unit's `Mesh` by name (`layout::mesh::CUDA_CONSTANT`) in each
/// device's module and copies the device's `Mesh` into it before each launch: mesh.cuh
/// declares the constant under that name, and a compiled spread unit keeps the symbol. (Its
/// size is layout.cuh's `static_assert` on `Mesh`.)
#[test]
fn spread_units_keep_the_mesh_constant_the_host_looks_up() {
    if !nvrtc_or_skip() {
        return;
    }
    let name = atos::codegen::layout::mesh::CUDA_CONSTANT;
    let (_, mesh_cuh) = atos::headers::device_headers()
        .iter()
        .find(|(n, _)| n.ends_with("mesh.cuh"))
        .expect("mesh.cuh among the device headers");
    assert!(
        mesh_cuh.contains(&format!("__constant__ atos::Mesh {name};")),
        "mesh.cuh no longer declares the constant `{name}` the host looks up"
    );
    let source = atos::cuda_source::<bfs::Task>(
        &KernelSpec::single(WorkerKind::Cta, 64, 256).multi_device(true),
    )
    .unwrap();
    let cubin = nvrtc::compile_cubin_with(&source, (9, 0), None)
        .unwrap()
        .cubin;
    let symbol = format!("{name}\0");
    assert!(
        cubin.windows(symbol.len()).any(|w| w == symbol.as_bytes()),
        "the compiled spread unit has no symbol `{name}`"
    );
}
