//! Speculative greedy graph colouring (Atos ICPP'22: Algorithm 6 asynchronous, Algorithm 5
//! bulk-synchronous), one program for both: run it persistent (or discrete) for the
//! asynchronous form, `Strategy::Bsp` for the bulk-synchronous one.
//!
//! Two task kinds, each with its own typed queue (no sign trick on the item):
//!
//! - **assign** (queue `work`): gives the vertex the smallest colour none of its neighbours
//!   holds *now* (speculatively: neighbours may be choosing at the same time), then queues the
//!   vertex for its check.
//! - **check** (queue `check`): looks for a neighbour with the vertex's colour. For each such
//!   edge one endpoint loses and is queued for `assign` again, whichever endpoint's check found
//!   it. The tie rule is a strict order on vertices: the endpoint of smaller degree loses, and
//!   of equal degrees the larger id. The [`WAITING`] bit of the vertex's colour word (set
//!   with `fetch_or`, cleared by `assign`'s store of the colour) queues a vertex at most once
//!   while it waits.
//!
//! **Why it ends properly coloured.** Take an edge `u - v` and the last `assign` of each. Each
//! stores its colour, then runs `atos::fence()` (sequentially consistent) before queueing its
//! check, and the queue orders the check's reads after that fence. The two chains (store
//! `color[v]`, fence, read `color[u]`; store `color[u]`, fence, read `color[v]`) are the
//! store-buffering pattern: with a sequentially consistent fence in each, at least one check
//! reads the other's final colour. (Release/acquire alone, which is all the queue gives, would
//! let both read the old colours and miss the conflict.) That check sees equal colours if they
//! are, and queues the losing endpoint, whose next `assign` is later than its last: a
//! contradiction, so no conflict remains. (A vertex with no edges stores its colour and queues
//! no check: it is an endpoint of no edge.) A vertex that loses is re-coloured against the
//! current colours of its neighbours, and the first vertex of any conflict in the tie rule's
//! order keeps its colour, so conflicts cannot cycle forever. Only the push follows the fence,
//! so a CTA group fences once per batch, before it keeps or publishes the batch's check items,
//! and so does each thread of a persistent thread-worker unit, which holds its check items until
//! then (or fences and publishes them when it holds 8; docs/dsl.md, "A fence followed only by
//! pushes"); warp groups, and discrete thread groups, fence per task. Bulk-synchronous units
//! emit no such trailing fence: there the check runs in the next level, a later launch, which sees
//! every store of this one, and nothing in the assign's own level reads what follows the fence.
//!
//! **Why the loser is queued.** "Queues the losing endpoint" needs the check's claim on the
//! loser to see that the loser's last `assign` ended. The claim and that end are one word: a
//! vertex's colour word holds its colour in the low 31 bits and [`WAITING`] in the top bit.
//! Queueing a vertex sets the bit (`fetch_or`, whose old value says whether this check is the
//! one to queue it); `assign` keeps it set while it runs and its one store, the colour, clears
//! it. So after a vertex's last store its word changes only by claims, and the first claim
//! after that store would find the bit clear and queue the vertex again: no claim follows it
//! either, and the final store is the word's last write. The check of the pair that read the
//! other's final colour now claims the loser:
//! - **the other endpoint:** the check read its final word and claims that word later in the
//!   same thread, so coherence (one order of the writes to each location, which every thread's
//!   reads and read-modify-writes follow) gives the claim the final store's value;
//! - **the check's own vertex:** its final store precedes the claim through the fence
//!   after the store, the push and the pop of the check (and, where idle CTA groups help with
//!   the check's edges, the shared range's posting), so the claim again reads the final store.
//!   In [`split_fused`] the check runs in the task that stored: the leader's store, then the
//!   worker's barrier, then the lane's claim.
//!
//! Either way the claim finds the bit clear and queues the loser: a contradiction with "last",
//! so no conflict remains, with no fence added and no ordering between two locations. (An
//! earlier form kept the flag in an array of its own, cleared when `assign` started: its
//! relaxed store and the colour's had no order between them, so a check could read the new
//! colour and swap the old flag; found in review, 2026-12-07, and closed by this word.) A
//! check that finds a vertex losing while its `assign` runs sees the bit set and queues
//! nothing: the colouring under way ends in a check of its own. The bit is 0 in every word
//! when a run ends ([`ColoringArrays::colors`] reads a set one as uncoloured, so a run that
//! left one fails its verification).
//!
//! **Why the degree decides.** A vertex's `assign` reads its neighbours `colour / 64 + 1` times
//! (below), so re-colouring a hub costs up to a million reads (kron:22: degree 162,552, colour
//! about 400), and re-colouring a low-degree vertex a few. With the id alone deciding, a hub lost to any smaller id. On
//! kron:22 the degree rule took async colouring from 20.7 to 18.4 ms (cta/64) and BSP from 26.2
//! to 24.3 ms (cta/8), with fewer colours (`docs/results/2026-11-23b-coloring-h100.md`).
//! Seeding the largest degrees first as well (Welsh and Powell's order) was measured and
//! rejected: the hubs, adjacent to each other, were then coloured all at once, conflicted, and
//! async cta/64 took 51 ms (cta/8 27.6 ms, BSP 35 ms).
//!
//! **Hubs on CTAs, the rest on warps ([`split`]).** One worker kind for every vertex fits no
//! Kronecker graph: a CTA per vertex of degree 10 leaves 246 of its threads idle behind
//! barriers, and a warp per hub reads 162,552 neighbours 32 at a time. [`split`]'s program
//! colours the vertices of degree above a bound with `assign_big` (a CTA each), the others with
//! `assign` (any worker, fetching several), and checks every vertex on load-balanced CTAs.
//! The tasks share their bodies (one macro each), so the two programs compute the same.
//! Where the bound sits matters less than it seemed: on kron:22 (warp/8, one H100) 128 took
//! 8.1-8.3 ms and every bound from 1,024 to 8,192 7.3-7.4 (16,384: 11.1), a warp colouring a
//! vertex of a few thousand neighbours well and only the largest hubs left to single CTAs
//! (`docs/results/2026-12-07f-colour-word-h100.md`). A third side, the lowest degrees (kron:22:
//! 1.8 M of its 4.2 M vertices have no edges) one thread each, was built and measured slower on
//! kron:22 (7.96-11.1 ms against 7.30, about 510 colours against 347), then removed
//! (`docs/results/2026-12-07g-low-degrees-model.md`). [`split_fused`] is the split with no
//! check queue: each colour task checks its own vertex after its fence, the fastest form on the
//! grid and the meshes, slower on kron:22 (`docs/results/2026-12-07h-fused-check-h100.md`).
//!
//! Under `Strategy::Bsp` the levels alternate: all queued vertices are coloured at once (level
//! `2k`), then all of them are checked (level `2k + 1`), and the losers form the next colouring
//! level: Algorithm 5's colour / detect-conflicts / re-colour loop with a barrier between.
//!
//! **The forbidden-colour set.** A vertex can have 100 K+ neighbours (kron), so the set is not
//! an array per vertex (the original keeps 256 bytes per vertex and scans in 256-colour
//! windows: 1 GiB on kron:22). `assign` looks at the colour space in 64-colour windows: each
//! lane of the worker sets, in a `u64`, a bit for every neighbour colour that falls in the
//! window, the bits are OR-reduced across the lanes (`taken |= ...`), and the first zero bit is
//! the colour. Only if all 64 are taken does it scan the neighbours again for the next window.
//! A vertex that ends with colour `c` reads its neighbours `c / 64 + 1` times, with no memory
//! but one register per lane, and the answer is exactly first-fit's. Greedy colourings of the
//! graphs measured use at most a few hundred colours, so the high-degree vertices scan their
//! neighbours a handful of times.
//!
//! **Why `assign` runs item by item.** Its `lanes` loop sits in the window loop, so a worker
//! that fetches several vertices colours them one after another, not load-balanced
//! (`docs/runtime.md`, "Load-balanced batches"). The balanced form was measured and rejected
//! (`docs/results/2026-11-29-balanced-reductions-h100.md`): one window per task, the items
//! `(v, base)`, gives the shape a batch can balance (a loop that reduces `taken`, then a tail
//! that stores and pushes), but the vertices of a batch then choose their colours at once, and
//! seeded in id order a batch holds neighbours: on grid:4096x4096 and luxembourg_osm they took
//! 2.7-5.9 colour decisions per vertex against 1.00, and the run 1.3-5x longer. Each extra
//! window was also a task of its own: kron:22's hubs needed 212-271 BSP levels against 6-8.
//! Run one after another, a worker's vertices see each other's colours, as in first-fit.

use crate::{AtomicArray, Atomics, Queue, Slice, lanes};

/// The colour word of a vertex not coloured yet (its colour bits all ones, [`WAITING`] set).
pub const UNCOLORED: u32 = u32::MAX;

/// The top bit of a colour word: the vertex waits to be coloured (queued, or its `assign`
/// running), so a check that finds it losing does not queue it again ("Why the loser is
/// queued"). The task bodies spell it `1 << 31`, and a word's colour `word & (u32::MAX >> 1)`:
/// the DSL takes no host constants, and a call of a device function would cost `assign`'s
/// neighbour loop its four strides a trip (a `lanes` loop that calls is not one that only
/// reads, docs/dsl.md).
pub const WAITING: u32 = 1 << 31;

/// Defines a colouring state named `$name`: the graph, the colour words and the colour and
/// check queues (`without check`: the colour queue alone), then `$extra` fields. One list for
/// [`ColoringState`], [`split::SplitColoringState`] and [`split_fused::FusedSplitState`].
macro_rules! coloring_state {
    ($(#[$attr:meta])* $name:ident { $($extra:tt)* }) => {
        coloring_state!(
            without check $(#[$attr])* $name {
                /// The vertices whose colour waits for its check.
                pub check: Queue<'a, u32>,
                $($extra)*
            }
        );
    };
    // The same with no check queue ([`split_fused`], whose colour tasks check their vertex).
    (without check $(#[$attr:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$attr])*
        #[atos::state]
        pub struct $name<'a> {
            pub offsets: Slice<'a, u32>,
            pub cols: Slice<'a, u32>,
            /// Each vertex's colour word: its colour, and [`WAITING`](crate::apps::coloring::WAITING) while
            /// it waits to be coloured.
            pub color: Atomics<'a, u32>,
            pub work: Queue<'a, u32>,
            $($extra)*
        }
    };
}

coloring_state!(
    /// The colouring of one worker kind per task.
    ColoringState {}
);

/// Defines a colour task named `$name` over the state `$state`: first fit against the
/// neighbours' current colours, then the vertex's check: queued (`check`), or with `checked`
/// run at once by this task ([`split_fused`]). One body for this program's `assign`,
/// [`split`]'s `assign` and `assign_big` and [`split_fused`]'s. With `$state with field`, a
/// re-colouring passes over up to `s.field` free colours, one per tied rival ([`split`],
/// "Passing over tied colours").
macro_rules! colour_task {
    // The body (first, so that the lines of the arms below, which write its tails, follow the
    // `fn` line that fault sites count from): `$found` runs once a window has a free colour
    // (it stores the first, `$base + $free.trailing_zeros()`), `$after` after the loop. The
    // arms below pass the names the body uses.
    (@task $state:ident $(with $cap:ident)?, $(#[$attr:meta])* $name:ident,
        $s:ident, $v:ident, $lo:ident, $hi:ident, $base:ident, $free:ident,
        [$($found:tt)*], [$($after:tt)*]) => {
        $(#[$attr])*
        pub fn $name($v: u32, $s: &$state) {
            let $lo = $s.offsets[$v];
            let $hi = $s.offsets[$v + 1];
            $(
                // On a re-colouring with something to pass over, count the tied rivals:
                // neighbours whose word is this vertex's (the colour it lost with, waiting
                // to be re-coloured as well) and that come first in the tie rule's order. A
                // pass of its own, so that first colourings, and all of them at 0, pay nothing
                // for it.
                let word = if $s.$cap > 0 { $s.color.load($v) } else { u32::MAX };
                let mut ties = 0u32;
                if word != u32::MAX {
                    for e in lanes($lo..$hi) {
                        let u = $s.cols[e];
                        if u != $v && $s.color.load(u) == word {
                            let du = $s.offsets[u + 1] - $s.offsets[u];
                            if du > $hi - $lo || (du == $hi - $lo && u < $v) {
                                ties += 1;
                            }
                        }
                    }
                }
            )?
            let mut $base = 0u32;
            loop {
                // Bit i: some neighbour holds colour base + i.
                let mut taken = 0u64;
                for e in lanes($lo..$hi) {
                    let u = $s.cols[e];
                    let c = $s.color.load(u) & (u32::MAX >> 1);
                    if u != $v && c >= $base && c - $base < 64 {
                        taken |= 1u64 << (c - $base);
                    }
                }
                let $free = !taken;
                $(
                    let mut $free = $free;
                    // Pass over one free colour per tied rival, at most `s.$cap`: the rivals
                    // re-colour now too, and first fit would give them all the same colour.
                    if $base == 0 {
                        ties = ties.min($s.$cap);
                    }
                    while ties > 0 && $free != 0 {
                        // (A `let` first, so that a fault site names this line.)
                        let rest = $free - 1;
                        $free &= rest;
                        ties -= 1;
                    }
                )?
                if $free != 0 {
                    $($found)*
                    break;
                }
                // (A `let` first, so that a fault site names this line.)
                let next = $base + 64;
                $base = next;
            }
            $($after)*
        }
    };
    (checked $state:ident $(with $cap:ident)?, $(#[$attr:meta])* $name:ident) => {
        check_edges!(
            s, v, c, lo, hi;
            colour_task!(
                @checked $state $(with $cap)?, $(#[$attr])* $name, s, v, lo, hi, base, free,
                [
                    let c = base + free.trailing_zeros();
                    // The colour, and `WAITING` cleared: "Why the loser is queued".
                    s.color.store(v, c);
                ],
            )
        );
    };
    (@checked $state:ident $(with $cap:ident)?, $(#[$attr:meta])* $name:ident,
        $s:ident, $v:ident, $lo:ident, $hi:ident, $base:ident, $free:ident,
        [$($store:tt)*], { $($check:tt)* }) => {
        colour_task!(
            @task $state $(with $cap)?, $(#[$attr])* $name, $s, $v, $lo, $hi, $base, $free,
            // A vertex with no edges has nothing to check (kron:22: 43% of the vertices).
            // The colour is stored before the check (and any neighbour's) reads colours:
            // see the module doc, "Why it ends properly coloured"; the fence is this
            // task's, and the check's reads follow it in the same worker.
            [
                $($store)*
                if $hi > $lo {
                    atos::fence();
                    $($check)*
                }
            ],
            []
        );
    };
    ($state:ident $(with $cap:ident)?, $(#[$attr:meta])* $name:ident) => {
        colour_task!(
            @task $state $(with $cap)?, $(#[$attr])* $name, s, v, lo, hi, base, free,
            [
                // The colour, and `WAITING` cleared: "Why the loser is queued".
                s.color.store(v, base + free.trailing_zeros());
            ],
            // A vertex with no edges has nothing to check (kron:22: 43% of the vertices).
            [if hi > lo {
                // The colour is stored before this task's check (and any neighbour's) reads
                // colours: see the module doc, "Why it ends properly coloured".
                atos::fence();
                s.check.push(v);
            }]
        );
    };
}

/// Defines a check task named `$name` over the state `$state`: the loop of [`check_edges`]
/// over the vertex's colour. One body for this program's `check` and [`split`]'s.
macro_rules! check_task {
    (@task $state:ident, $(#[$attr:meta])* $name:ident,
        $s:ident, $v:ident, $c:ident, $lo:ident, $hi:ident, { $($check:tt)* }) => {
        $(#[$attr])*
        pub fn $name($v: u32, $s: &$state) {
            let $c = $s.color.load($v) & (u32::MAX >> 1);
            let $lo = $s.offsets[$v];
            let $hi = $s.offsets[$v + 1];
            $($check)*
        }
    };
    ($state:ident, $(#[$attr:meta])* $name:ident) => {
        check_edges!(s, v, c, lo, hi; check_task!(@task $state, $(#[$attr])* $name, s, v, c, lo, hi,));
    };
}

/// Calls `$then!(... { loop })` with the loop of a check of `$v` (state `$s`, colour `$c`, edges
/// `$lo..$hi`): re-queues the losing endpoint of every edge at `$v` whose ends share the colour
/// (the smaller degree, or of equal degrees the larger id) through the `requeue` device
/// function of the module the task is defined in. One loop for [`check_task`]'s checks and
/// `checked` colour tasks ([`colour_task`]); the names come from the caller, so that the loop
/// and the body around it name the same variables.
macro_rules! check_edges {
    ($s:ident, $v:ident, $c:ident, $lo:ident, $hi:ident; $then:ident!($($args:tt)*)) => {
        $then!($($args)* {
            for e in lanes($lo..$hi) {
                let u = $s.cols[e];
                if u != $v && ($s.color.load(u) & (u32::MAX >> 1)) == $c {
                    let du = $s.offsets[u + 1] - $s.offsets[u];
                    let u_loses = du < $hi - $lo || (du == $hi - $lo && u > $v);
                    let loser = if u_loses { u } else { $v };
                    // Claims the loser's word: queued by the check that sets `WAITING`.
                    if $s.color.fetch_or(loser, 1 << 31) & (1 << 31) == 0 {
                        requeue($s, loser, if u_loses { du } else { $hi - $lo });
                    }
                }
            }
        });
    };
}

/// Defines, in a split program over the state `$state`, `requeue` (a loser of degree above
/// `big` goes to `work_big` as the item `$hub` of `$v`, the others to `work`) and `assign`, the
/// colour task of the vertices up to `big` (with `checked`, one that checks its vertex itself,
/// [`colour_task`]). One pair for [`split`], [`hub_windows`] and [`split_fused`].
macro_rules! split_sides {
    (checked $state:ident, |$v:ident| $hub:expr) => {
        split_sides!(@sides [checked] $state, |$v| $hub);
    };
    ($state:ident, |$v:ident| $hub:expr) => {
        split_sides!(@sides [] $state, |$v| $hub);
    };
    (@sides [$($mode:tt)*] $state:ident, |$v:ident| $hub:expr) => {
        /// Queues `v`, of degree `degree`, to be coloured again by the task of its side.
        #[atos::device]
        fn requeue(s: &$state, $v: u32, degree: u32) {
            if degree > s.big {
                s.work_big.push($hub);
            } else {
                s.work.push($v);
            }
        }

        colour_task!(
            $($mode)* $state,
            /// Colours a vertex of degree up to `big` (the module's `assign`, on its queue).
            #[atos::task(queue = "work", worker = "warp", fetch = 8)]
            assign
        );
    };
}

/// Queues `v` (of degree `_degree`) to be coloured again.
#[atos::device]
fn requeue(s: &ColoringState, v: u32, _degree: u32) {
    s.work.push(v);
}

colour_task!(
    ColoringState,
    /// Colours `v` first-fit against its neighbours' current colours, then queues its check.
    #[atos::task(queue = "work", worker = "warp", fetch = 1)]
    assign
);

check_task!(
    ColoringState,
    /// Re-queues the losing endpoint of every edge at `v` whose ends share a colour: the
    /// smaller degree, or of equal degrees the larger id.
    #[atos::task(queue = "check", worker = "warp", fetch = 1)]
    check
);

/// The program: assign and check.
pub type Tasks = (assign::Task, check::Task);

/// The same program with `check` inline (`#[atos::task(inline)]`): in a persistent run,
/// `assign`'s push of its vertex runs the check at once, in the pushing thread, after the
/// colour's store and fence, instead of queueing it (a schedule the program already allows,
/// so the colourings are those of [`Tasks`], and "Why it ends properly coloured" holds as
/// written: the check's reads follow the fence in the same thread). The check runs on one
/// thread, so this suits graphs of low degree, where it saves a queue round trip per vertex.
/// Persistent thread workers hold up to 8 checks and fence once for them, at the batch's end
/// or when the hold is full (docs/runtime.md, "Inline tasks", held runs); other workers fence
/// per vertex and check at once. Discrete and bulk-synchronous runs queue the checks as [`Tasks`] does. On
/// grid:4096x4096 (persistent thread/16, 264 blocks) it coloured in 3.41 ms against 4.71 for
/// the best queued form; on luxembourg_osm and delaunay_n16 [`split`] stayed faster (one H100,
/// `docs/results/2026-12-06h-inline-check-h100.md`, call 6).
pub mod inline_check {
    use super::{ColoringState, requeue};
    use crate::lanes;

    colour_task!(
        ColoringState,
        /// [`assign`](fn@super::assign)'s body; its push of `v` runs `check` at once.
        #[atos::task(queue = "work", worker = "thread", fetch = 64)]
        assign
    );

    check_task!(
        ColoringState,
        /// [`check`](fn@super::check)'s body, run inline by `assign`'s push.
        #[atos::task(queue = "check", worker = "thread", fetch = 64, inline)]
        check
    );

    /// The program: assign, with its check inline.
    pub type Tasks = (assign::Task, check::Task);
}

/// The same colouring with the vertices of degree above a bound coloured by their own task,
/// `assign_big`, on its own queue, so that a program can run the many vertices of low degree
/// on warps or threads (fetching several each) and the hubs on CTAs. Checks stay one task:
/// `check` is load-balanced on CTAs, which spread a hub's edges over idle groups as well. A
/// separate program (not `assign_big` added to [`Tasks`]), because its third queue costs a
/// program that splits nothing: every idle round of a persistent group polls it, and kron:22
/// at CTA fetch 64 ran 10% slower with it (docs/results/2026-12-06c-read-loops-h100.md, call 6).
///
/// # Passing over tied colours
///
/// Hubs of a Kronecker graph are joined to each other (kron:22: 9,109 vertices of degree above
/// 2,048, each joined to 1,373 of the others on average). Coloured at once, a group of them
/// picks one colour; the check keeps it for the first in the tie rule's order and re-queues the
/// rest, which, re-coloured at once by first fit, pick one colour again: a group of `k` needs
/// up to `k` rounds, each a hub's colouring. With `tie_skip` above 0, `assign_big` counts, on
/// a re-colouring, its *tied rivals*: neighbours that hold the colour it lost with, are
/// waiting (queued to be re-coloured, or re-colouring and not yet stored) and come before it
/// in the tie rule's order. It then passes over that many free colours, at most `tie_skip`,
/// and takes the next.
/// In a group of mutual rivals that see the same free colours, the `i`-th in the order passes
/// over `i - 1`, so the first `tie_skip + 1` pick different colours (those further down pass
/// over `tie_skip` each and may meet again); rivals with different neighbourhoods, or that
/// stored their new colour before the count (a rival stays "waiting" until its store), can
/// still collide, and are re-queued as before. (Until 2026-12-07 a rival counted only until its
/// re-colouring started: the measurements below counted fewer rivals.)
/// The count is a pass of its own over the neighbours, run only on re-colourings with a cap
/// above 0 (the degree read only for neighbours whose word is the vertex's own), so
/// first colourings, and every colouring at 0, cost what first fit costs. The colour is still
/// one no neighbour held when read, so the module's "Why it ends properly coloured" holds as
/// written, and the first vertex of a conflict still keeps its colour. Against one reading of
/// the neighbours' colours a vertex's colour is at most its degree plus `tie_skip` (first
/// fit's, at most its degree). What it costs is colours: a rival that would not have picked
/// the same colour makes the vertex skip one for nothing, so the cap is small. First coloured
/// vertices (no colour lost) and `assign` are first fit.
/// [`ColoringArrays::state_split`](crate::apps::coloring::ColoringArrays::state_split) leaves it at 0.
///
/// **Measured: no gain on kron:22.** An event model of the schedule on the CPU
/// (`docs/results/2026-12-06i-tie-skip-model.md`) predicted a 14-17% shorter run with 1,024
/// workers at a cap of 4. On one H100 (split 128, warp/8, 6 blocks per SM, alternated in one
/// call: `docs/results/2026-12-07-tie-skip-wide-h100.md`) caps 0, 2, 4 and 8 all took
/// 8.44-8.77 ms, within the runs' spread, with 3-7 more colours. The model was wrong about
/// the GPU's schedule: there the whole run coloured 1.0008 vertices per vertex (about 3,400
/// re-colourings of 4.2 M vertices), the model 1.034, so there are few re-colourings for the
/// skip to save. The option stays (0 by default), tested, for other graphs and devices.
///
/// Wider forbidden-set windows for the hubs (four words, 256 colours per pass after the first
/// 64) were built and measured in the same call and removed: 9.19-9.43 ms against 8.46-8.61
/// asynchronously, and 68.5 against 35.9 ms bulk-synchronously.
pub mod split {
    use crate::{Atomics, Queue, Slice, lanes};

    coloring_state!(
        /// [`super::ColoringState`] and the split's queue and bound.
        SplitColoringState {
            /// The vertices of degree above `big`, for `assign_big`.
            pub work_big: Queue<'a, u32>,
            /// The degree above which `assign_big` colours a vertex.
            pub big: u32,
            /// The most free colours `assign_big` passes over when it re-colours (0: first
            /// fit; "Passing over tied colours").
            pub tie_skip: u32,
        }
    );

    split_sides!(SplitColoringState, |v| v);

    colour_task!(
        SplitColoringState with tie_skip,
        /// Colours a vertex of degree above `big`, on a CTA, passing over up to `tie_skip`
        /// free colours when it re-colours.
        #[atos::task(queue = "work_big", worker = "cta", fetch = 1)]
        assign_big
    );

    check_task!(
        SplitColoringState,
        /// Checks a vertex of either side; routes a loser by its degree.
        #[atos::task(queue = "check", worker = "cta", fetch = 64)]
        check
    );

    /// The program: colour (up to degree `big`, and above it) and check.
    pub type Tasks = (assign::Task, check::Task, assign_big::Task);
}

/// [`split`] with no check queue: each colour task checks its own vertex at once, after its
/// store and fence, with the same worker (`assign` a warp, `assign_big` a CTA), instead of
/// queueing it for `check` on CTAs. The check is [`split`]'s loop (`check_task!`'s), over the
/// colour the task just stored, and "Why it ends properly coloured" holds as written: the
/// check's reads follow the fence (the leader's, then the worker's barrier) in the same worker,
/// as they follow it through the queue in [`split`]. The loser goes where [`split`]'s checks
/// send it.
///
/// What it trades: a queue round trip per vertex with edges (the check's push, its claim and
/// its batch: on kron:22 about 2.4 M of the split's 6.6 M tasks, the colour tasks less the 1.8 M
/// vertices without edges) against a fence per such vertex. In [`split`] a CTA group fences
/// once per batch, since only pushes follow the fence; here the check's reads follow it. On
/// thread workers the same trade (`inline_check`, the check on one thread) took
/// grid:4096x4096 from 4.72 ms (the best queued form) to 3.52
/// (`docs/results/2026-12-06h-inline-check-h100.md`).
///
/// **Measured on one H100** (`docs/results/2026-12-07h-fused-check-h100.md`): grid:4096x4096
/// 1.15 ms at thread/2 (1,056 blocks), against 2.68 for `inline_check` at its best (thread/16,
/// 264 blocks) and 7.16 for the BSP form; luxembourg_osm 0.065 ms at thread/2 and delaunay_n16
/// 0.085 at warp/8, against 0.094 and 0.124 for [`split`]; on the GPU the section of `gpu_suite`
/// whose pairs of vertices are coloured at once by different workers found every conflict
/// (325 K of 524 K pairs re-coloured on warps). On kron:22 (split 4,096, warp/8) it lost:
/// 7.53-7.60 ms against 7.28-7.29, the fence per vertex on its warps dearer than the check.
///
/// Under `Strategy::Bsp` a level colours and checks at once (the fence is not elided: reads
/// follow it), which is not Algorithm 5's colour-then-check level pair; the colouring table's
/// BSP column stays [`Tasks`] or [`split`].
pub mod split_fused {
    use crate::{Atomics, Queue, Slice, lanes};

    coloring_state!(
        without check
        /// [`super::split::SplitColoringState`] without the check queue.
        FusedSplitState {
            /// The vertices of degree above `big`, for `assign_big`.
            pub work_big: Queue<'a, u32>,
            /// The degree above which `assign_big` colours a vertex.
            pub big: u32,
            /// The most free colours `assign_big` passes over when it re-colours, as in
            /// [`split`](super::split).
            pub tie_skip: u32,
        }
    );

    split_sides!(checked FusedSplitState, |v| v);

    colour_task!(
        checked FusedSplitState with tie_skip,
        /// Colours a vertex of degree above `big` on a CTA, as [`split`](super::split)'s
        /// does, then checks it.
        #[atos::task(queue = "work_big", worker = "cta", fetch = 1)]
        assign_big
    );

    /// The program: colour and check (up to degree `big`, and above it).
    pub type Tasks = (assign::Task, assign_big::Task);
}

/// [`split`] with each hub's colouring one window of 64 colours per task, so that idle CTAs
/// help with it. A hub's `assign_big` in [`split`] reads its neighbours `colour / 64 + 1`
/// times on its one CTA (kron:22's largest, of degree 162,552 and colour about 400: a million
/// reads), and a run's last milliseconds are such colourings, one after another, while most
/// groups idle. Here `assign_big` takes `(v, base)`: one `lanes` loop over the edges that ORs
/// the colours in `base..base + 64` into `taken`, then a tail that stores the first free one
/// (and queues the check) or, with all 64 taken, queues `(v, base + 64)`. That is the balanced
/// shape with a reduction, so a persistent CTA group posts a hub's window on its board and idle
/// groups run parts of it, each adding its part of `taken` to the board's before the owner's
/// tail reads it (docs/runtime.md, "Shared ranges"). A vertex's windows may see colours of
/// different moments, so its colour is one no neighbour held when that window read it, not
/// always first fit's; "Why it ends properly coloured" holds as written (the colour is stored
/// and fenced before the check is queued). [`WAITING`] stays set while the
/// windows run and the last one's store of the colour clears it: a check that finds the hub
/// losing meanwhile queues nothing (the colouring under way ends in a check of its own). So a
/// hub has at most one item in `work_big` at a time. Bulk-synchronous runs take one level per
/// window (kron:22's hubs: about seven).
///
/// **Measured: slower on kron:22.** On one H100 (split 128, `assign` on warp/8, a build that
/// cleared a separate pending flag at the first window) it took
/// 11.4-11.5 ms against 8.4-8.7 for [`split`], with several hubs' windows at once
/// (`assign_big` fetching 8, balanced) as with one: every extra window is a task of its own,
/// and most of the 110,576 hubs need two or more
/// (`docs/results/2026-12-07e-hub-windows-h100.md`). With only the hubs above degree 4,096 or
/// 8,192 taking windows it came to 8.1-8.2 ms, still behind [`split`] at the same degree (7.3;
/// `docs/results/2026-12-07f-colour-word-h100.md`, calls 4-5). It stays, tested on the CPU and
/// the GPU, as the app that shares a loop with a reduction.
pub mod hub_windows {
    use crate::{Atomics, Queue, Slice, lanes};

    coloring_state!(
        /// [`super::split::SplitColoringState`] with hub items `(vertex, window base)`.
        HubWindowsState {
            /// `(v, base)`: the hubs (degree above `big`) and the window each colours next.
            pub work_big: Queue<'a, (u32, u32)>,
            /// The degree above which `assign_big` colours a vertex.
            pub big: u32,
        }
    );

    split_sides!(HubWindowsState, |v| (v, 0));

    /// Looks for a free colour of a hub in `base..base + 64`: takes the first, or queues the
    /// next window.
    #[atos::task(queue = "work_big", worker = "cta", fetch = 1)]
    pub fn assign_big((v, base): (u32, u32), s: &HubWindowsState) {
        let lo = s.offsets[v];
        let hi = s.offsets[v + 1];
        // Bit i: some neighbour holds colour base + i.
        let mut taken = 0u64;
        for e in lanes(lo..hi) {
            let u = s.cols[e];
            let c = s.color.load(u) & (u32::MAX >> 1);
            if u != v && c >= base && c - base < 64 {
                taken |= 1u64 << (c - base);
            }
        }
        let free = !taken;
        if free != 0 {
            // The colour, and `WAITING` cleared (the module doc, "Why the loser is queued").
            s.color.store(v, base + free.trailing_zeros());
            // As in `colour_task`: the colour before the check reads colours.
            atos::fence();
            s.check.push(v);
        } else {
            s.work_big.push((v, base + 64));
        }
    }

    check_task!(
        HubWindowsState,
        /// Checks a vertex of either side; routes a loser by its degree.
        #[atos::task(queue = "check", worker = "cta", fetch = 64)]
        check
    );

    /// The program: colour (up to degree `big`; above it a window at a time) and check.
    pub type Tasks = (assign::Task, check::Task, assign_big::Task);

    /// The hub seeds of [`split_seeds`](super::split_seeds)' second part, each at window 0.
    pub fn hub_seeds(large: &[u32]) -> Vec<(u32, u32)> {
        large.iter().map(|&v| (v, 0)).collect()
    }
}

/// Every vertex in id order, split at degree `big`: `(up to big, above big)`, the seeds of
/// `assign` and `assign_big`.
pub fn split_seeds(offsets: &[u32], big: u32) -> (Vec<u32>, Vec<u32>) {
    (0..offsets.len().saturating_sub(1) as u32)
        .partition(|&v| offsets[v as usize + 1] - offsets[v as usize] <= big)
}

/// How many vertices have no edges: each is coloured once and queues no check, so a run's
/// checks are its colour tasks less these.
pub fn vertices_without_edges(offsets: &[u32]) -> u64 {
    offsets.len().saturating_sub(1) as u64 - degree_above(offsets, 0)
}

/// How many vertices have a degree above `big`.
fn degree_above(offsets: &[u32], big: u32) -> u64 {
    offsets.windows(2).filter(|w| w[1] - w[0] > big).count() as u64
}

/// A split state (`$ty`) over `$offsets`/`$cols` split at degree `$big`: the plain state's
/// arrays and queues (from `$arrays`, a [`ColoringArrays`]; `without check`, all but the check
/// queue, as `coloring_state!` says), `work_big` with room for every vertex above `$big` once,
/// and the state's own fields.
macro_rules! split_state {
    (without check, $arrays:expr, $offsets:expr, $cols:expr, $big:expr, $ty:path { $($own:tt)* }) => {
        split_state!(@build [], $arrays, $offsets, $cols, $big, $ty { $($own)* })
    };
    ($arrays:expr, $offsets:expr, $cols:expr, $big:expr, $ty:path { $($own:tt)* }) => {
        split_state!(@build [check], $arrays, $offsets, $cols, $big, $ty { $($own)* })
    };
    (@build [$($check:ident)?], $arrays:expr, $offsets:expr, $cols:expr, $big:expr, $ty:path { $($own:tt)* }) => {{
        let plain = $arrays.state($offsets, $cols);
        $ty {
            offsets: plain.offsets,
            cols: plain.cols,
            color: plain.color,
            work: plain.work,
            $($check: plain.$check,)?
            work_big: Queue::with_capacity(degree_above($offsets, $big) + 1),
            big: $big,
            $($own)*
        }
    }};
}

/// Orders `hubs` by descending degree (ties by id), so that a queue seeded with them starts
/// the longest colourings first. A persistent group serves each of its queues once a round,
/// `assign`'s several vertices and `assign_big`'s one hub, so in id order the hubs of a
/// Kronecker graph fall behind the many vertices of low degree, and the largest of them may
/// start late and end the run alone. Measured slower on kron:22 (one H100, split 128: 11.7 ms
/// against 8.5 in id order): its largest hubs, joined to each other, are then coloured at
/// once, conflict and re-colour in chains (`docs/results/2026-12-07e-hub-windows-h100.md`).
pub fn hubs_by_degree(offsets: &[u32], hubs: &mut [u32]) {
    let degree = |v: u32| offsets[v as usize + 1] - offsets[v as usize];
    hubs.sort_by_key(|&v| (std::cmp::Reverse(degree(v)), v));
}

/// Host arrays of a run: colour words (all [`UNCOLORED`]: no colour, waiting), every vertex
/// seeded.
pub struct ColoringArrays {
    /// The colour words; read the colours with [`Self::colors`].
    pub color: AtomicArray<u32>,
    /// Every vertex, in id order.
    pub seeds: Vec<u32>,
}

impl ColoringArrays {
    /// Every vertex uncoloured and queued for `assign`.
    pub fn new(vertices: usize) -> ColoringArrays {
        let a = ColoringArrays {
            color: AtomicArray::filled(vertices, 0),
            seeds: (0..vertices as u32).collect(),
        };
        a.reset();
        a
    }

    /// Back to the start of a run: every vertex uncoloured and waiting.
    pub fn reset(&self) {
        self.color.fill(UNCOLORED);
    }

    /// Each vertex's colour, [`UNCOLORED`] for a vertex whose word still has [`WAITING`] set
    /// (none, after a run that ended properly): what the validators take.
    pub fn colors(&self) -> Vec<u32> {
        let mut colors = self.color.to_vec();
        for c in &mut colors {
            if *c & WAITING != 0 {
                *c = UNCOLORED;
            }
        }
        colors
    }

    /// The state over `offsets`/`cols` (a symmetric CSR with u32 offsets: [`check_graph`]).
    pub fn state<'a>(&'a self, offsets: &'a [u32], cols: &'a [u32]) -> ColoringState<'a> {
        let n = self.color.len() as u64;
        ColoringState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            color: self.color.view(),
            // A vertex waits at most once in `work`. In `check` it waits once per assign not
            // yet checked: once under BSP; asynchronously a vertex re-coloured before its check
            // ran is there again. 2n is room for every vertex twice, not a proven bound; an
            // overflow is a RunError naming the queue and the capacity needed.
            work: Queue::with_capacity(n + 1),
            check: Queue::with_capacity(2 * n + 1),
        }
    }

    /// The state of [`hub_windows`]' program: [`Self::state_split`]'s, the hubs' queue holding
    /// `(vertex, window)` items (seed it with [`hub_windows::hub_seeds`]).
    pub fn state_hub_windows<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        big: u32,
    ) -> hub_windows::HubWindowsState<'a> {
        // A hub is in `work_big` at most once (a window at a time; `WAITING` stays set until
        // its last window, so no check queues it meanwhile).
        split_state!(self, offsets, cols, big, hub_windows::HubWindowsState {})
    }

    /// The state of [`split_fused`]'s program: [`Self::state_split`]'s without the check queue
    /// (seed it with [`split_seeds`]).
    pub fn state_split_fused<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        big: u32,
    ) -> split_fused::FusedSplitState<'a> {
        split_state!(
            without check,
            self,
            offsets,
            cols,
            big,
            split_fused::FusedSplitState { tie_skip: 0 }
        )
    }

    /// The state of [`split`]'s program, the vertices of degree above `big` coloured by
    /// `assign_big` (seed them with [`split_seeds`]) by first fit (`tie_skip` 0: set the
    /// field to pass over tied colours, [`split`]'s "Passing over tied colours").
    pub fn state_split<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        big: u32,
    ) -> split::SplitColoringState<'a> {
        // As in `state`: a vertex waits at most once in `work` or `work_big`. `work` has room
        // for every vertex, so a program seeded with every vertex there (not by `split_seeds`)
        // still runs; its hubs are then coloured once by `assign`.
        split_state!(
            self,
            offsets,
            cols,
            big,
            split::SplitColoringState { tie_skip: 0 }
        )
    }
}

/// Checks that `offsets`/`cols` is a CSR colouring can run on: well formed, and undirected
/// (every entry `u -> v` has its reverse). A task checks only the neighbours its vertex lists,
/// so on a directed graph an edge listed one way could join two vertices of one colour with
/// nothing to see it; every state of this module assumes this and does not check it.
pub fn check_graph(offsets: &[u32], cols: &[u32]) -> Result<(), super::graph_check::GraphError> {
    use super::graph_check;
    graph_check::vertices("colouring", offsets, cols)?;
    graph_check::symmetric("colouring", offsets, cols)
}
