//! A model of the stamped-ring protocol (queue.cuh, "stamped rings"; docs/runtime.md, "Stamped
//! rings"), run under random schedules: groups claim batches, copy them out by their stamps,
//! run them (each item pushes a few more) and push through `end_alloc`, the room look, the
//! `end_count` approval, the free-stamp wait, the written stamps and the `avail` credit. Each
//! step of the model is one atomic or one wait of the CUDA code, so any interleaving of those
//! steps is one a GPU may run; the scheduler picks the next group at random.
//!
//! It checks what the protocol's comments argue, on small rings that wrap many laps:
//! - **waits end**: while the run has not failed, some group can always move (no deadlock);
//! - **every item runs once**: the items copied out are exactly those pushed;
//! - **overflows are real**: a reported overflow saw more than `capacity` items alive, counting
//!   only items really pushed and not yet claimed (its lower bound never over-counts).
//!
//! Schedules are random, and in three runs of four one group is picked 64 times less often than
//! the others (a warp the SM seldom runs), so the others run far ahead of its reservation.
//!
//! It is a model, not the CUDA: it follows the order of the device code's atomics and waits,
//! and a change there should change it. It can fail: with the room bound taken as a wrapping
//! difference (the hang of docs/results/2026-12-07c call s1) it finds a deadlock
//! (`a_wrapping_room_bound_deadlocks`). Three more changes, tried by hand when it was written,
//! each failed `stamped_rings_end_and_deliver_every_item_once`: a writer that does not wait for
//! its slots' free stamps (deadlocks: a claimer waits for a stamp overwritten by a later lap),
//! a claimer that does not wait for the written stamps (items copied out that were not those
//! pushed), and the overflow's lower bound taken as `need - start` (an overflow over-counted).

/// A small deterministic generator (SplitMix64): the schedules and the pushes per item.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// How a writer bounds the items alive from above: `need - start` clamped at 0 (queue.cuh), or
/// the wrapping difference the first version took.
#[derive(Clone, Copy, PartialEq)]
enum RoomBound {
    Clamped,
    Wrapping,
}

/// The ring's counters and slots (`QueueCounters`, the items and their stamps).
struct Ring {
    capacity: u64,
    slots: u64,
    end_alloc: u64,
    end_count: u64,
    start: u64,
    avail: i64,
    stamps: Vec<u32>,
    items: Vec<u64>,
    done: u64,
}

impl Ring {
    fn lap2(&self, i: u64) -> u32 {
        ((i / self.slots) as u32) << 1
    }
    fn slot(&self, i: u64) -> usize {
        (i % self.slots) as usize
    }
}

/// A push of a running batch: its items' `ids` at `base` (once reserved), the batch's items
/// left to run after it (`rest`) and how many the batch claimed (`ran`).
#[derive(Debug)]
struct Push {
    base: u64,
    ids: Vec<u64>,
    rest: Vec<u64>,
    ran: u64,
}

impl Push {
    fn need(&self) -> u64 {
        self.base + self.ids.len() as u64
    }
}

/// Where one group is in its loop.
#[derive(Debug)]
enum Step {
    /// Polls `avail` (claim_for's relaxed read).
    Idle,
    /// take_credit's add of `-want`, with what the poll saw.
    Take {
        want: u64,
    },
    /// take_credit gave back what it could not take; then `start`.
    GiveBack {
        took: u64,
        back: u64,
    },
    /// claim_for's add on `start`.
    Start {
        took: u64,
    },
    /// run_from: every item's written stamp, then the copy-out and the free stamps.
    Copy {
        base: u64,
        n: u64,
    },
    /// The batch runs: `items` left to run, the pushes each makes.
    Run {
        items: Vec<u64>,
        ran: u64,
    },
    /// A push (one reservation): its add on `end_alloc`.
    Reserve(Push),
    /// make_room's looks: `start` read (the upper bound), or the lower bound's two reads (with
    /// the items alive when `avail` was read).
    Look(Push, bool),
    LowerAvail(Push),
    LowerCount(Push, i64, u64),
    /// The leader counts the range on `end_count` (approved).
    Approve(Push),
    /// Every slot's free stamp (a wrapped lap), then the stores and the written stamps.
    Write(Push),
    /// The leader credits `avail` with `n` items.
    Credit {
        n: u64,
        rest: Vec<u64>,
        ran: u64,
    },
    /// The batch counts done.
    Done {
        ran: u64,
    },
}

struct Run {
    ring: Ring,
    groups: Vec<Step>,
    fetch: u64,
    bound: RoomBound,
    rng: Rng,
    next_id: u64,
    budget: u64,
    pushed: Vec<u64>,
    copied: Vec<u64>,
    /// Credits taken by claims whose `start` add has not happened yet.
    in_transit: u64,
    /// How often each group is picked, relative to the others: one group in most runs is
    /// slow (a warp the SM seldom schedules), so the others run far ahead of its steps.
    weights: Vec<u64>,
    overflow: bool,
}

/// What one run ended in.
#[derive(Debug, PartialEq)]
enum End {
    /// Every item ran once; how many were pushed in all.
    Finished(u64),
    Overflow,
    Deadlock(String),
}

impl Run {
    fn new(seed: u64, shape: &Shape, bound: RoomBound) -> Run {
        let (slots, seeds) = (shape.slots, shape.seeds);
        let mut ring = Ring {
            capacity: shape.capacity,
            slots,
            end_alloc: seeds,
            end_count: seeds,
            start: 0,
            avail: seeds as i64,
            stamps: vec![0; slots as usize],
            items: vec![u64::MAX; slots as usize],
            done: 0,
        };
        // The reset: the seeds written (stamp 1), every other slot free for lap 0.
        for i in 0..seeds {
            let s = ring.slot(i);
            ring.stamps[s] = 1;
            ring.items[s] = i;
        }
        Run {
            ring,
            groups: (0..shape.groups).map(|_| Step::Idle).collect(),
            fetch: shape.fetch,
            bound,
            rng: Rng(seed),
            next_id: seeds,
            budget: shape.budget,
            pushed: (0..seeds).collect(),
            copied: Vec::new(),
            in_transit: 0,
            weights: Vec::new(),
            overflow: false,
        }
    }

    /// The pushes an item makes: 0 to 2 new items (1 on average) while the budget lasts.
    fn children(&mut self) -> Vec<u64> {
        let k = self.rng.below(3).min(self.budget);
        self.budget -= k;
        (0..k)
            .map(|_| {
                self.next_id += 1;
                self.next_id - 1
            })
            .collect()
    }

    /// Whether group `g` can change the run's state now (a poll that finds nothing, a look that
    /// must look again and an unfinished wait cannot).
    fn can_move(&self, g: usize) -> bool {
        let r = &self.ring;
        match &self.groups[g] {
            Step::Idle => r.avail > 0,
            Step::Copy { base, n } => {
                (*base..base + n).all(|i| r.stamps[r.slot(i)] == r.lap2(i) + 1)
            }
            // A look moves when it would end the wait: room, or an overflow to report (the
            // first look's, or the lower bound's, here from one snapshot of the counters).
            Step::Look(p, first) => {
                let n = p.ids.len() as u64;
                (*first && n > r.capacity)
                    || self.upper(p.need()) <= r.capacity
                    || p.need() as i64 - r.end_count as i64 + r.avail.max(0) > r.capacity as i64
            }
            Step::Write(p) => {
                (p.base..p.need()).all(|i| i < r.slots || r.stamps[r.slot(i)] == r.lap2(i))
            }
            _ => true,
        }
    }

    fn upper(&self, need: u64) -> u64 {
        let started = self.ring.start;
        match self.bound {
            RoomBound::Clamped => need.saturating_sub(started),
            RoomBound::Wrapping => need.wrapping_sub(started),
        }
    }

    /// One step of group `g`.
    fn step(&mut self, g: usize) {
        let movable = self.can_move(g);
        let step = std::mem::replace(&mut self.groups[g], Step::Idle);
        let next = match step {
            Step::Idle => {
                if self.ring.avail > 0 {
                    Step::Take {
                        want: (self.ring.avail as u64).min(self.fetch),
                    }
                } else {
                    Step::Idle
                }
            }
            Step::Take { want } => {
                let had = self.ring.avail;
                self.ring.avail -= want as i64;
                let took = if had <= 0 { 0 } else { (had as u64).min(want) };
                self.in_transit += took;
                Step::GiveBack {
                    took,
                    back: want - took,
                }
            }
            Step::GiveBack { took, back } => {
                self.ring.avail += back as i64;
                if took == 0 {
                    Step::Idle
                } else {
                    Step::Start { took }
                }
            }
            Step::Start { took } => {
                let base = self.ring.start;
                self.ring.start += took;
                self.in_transit -= took;
                Step::Copy { base, n: took }
            }
            Step::Copy { base, n } => {
                if !movable {
                    Step::Copy { base, n }
                } else {
                    let mut batch = Vec::new();
                    for i in base..base + n {
                        let s = self.ring.slot(i);
                        batch.push(self.ring.items[s]);
                        self.ring.stamps[s] = self.ring.lap2(i) + 2;
                    }
                    self.copied.extend(&batch);
                    Step::Run {
                        items: batch,
                        ran: n,
                    }
                }
            }
            Step::Run { mut items, ran } => {
                if items.is_empty() {
                    Step::Done { ran }
                } else if self.rng.below(2) == 0 {
                    // Held pushes: the batch's items in one reservation.
                    let mut ids = Vec::new();
                    for _ in 0..items.len() {
                        ids.extend(self.children());
                    }
                    self.start_push(ids, Vec::new(), ran)
                } else {
                    // One reservation per item.
                    items.pop();
                    let ids = self.children();
                    self.start_push(ids, items, ran)
                }
            }
            Step::Reserve(mut p) => {
                p.base = self.ring.end_alloc;
                self.ring.end_alloc += p.ids.len() as u64;
                self.pushed.extend(&p.ids);
                Step::Look(p, true)
            }
            Step::Look(p, first) => {
                if first && p.ids.len() as u64 > self.ring.capacity {
                    // first_look: more than `capacity` items in one push.
                    self.overflow = true;
                    return;
                }
                if self.upper(p.need()) > self.ring.capacity {
                    Step::LowerAvail(p)
                } else {
                    Step::Approve(p)
                }
            }
            Step::LowerAvail(p) => {
                let avail = self.ring.avail;
                // The items really alive now (below `need`, every one reserved: not yet
                // claimed, counting credits taken whose `start` add is still to come).
                let alive = p.need().saturating_sub(self.ring.start + self.in_transit);
                Step::LowerCount(p, avail, alive)
            }
            Step::LowerCount(p, avail, alive) => {
                let lower = p.need() as i64 - self.ring.end_count as i64 + avail.max(0);
                if lower > self.ring.capacity as i64 {
                    // The bound never counts an item twice: as many were alive at its first read.
                    assert!(
                        lower as u64 <= alive,
                        "an overflow over-counted: bound {lower}, {alive} alive ({})",
                        self.describe()
                    );
                    self.overflow = true;
                    return;
                }
                Step::Look(p, false)
            }
            Step::Approve(p) => {
                self.ring.end_count += p.ids.len() as u64;
                Step::Write(p)
            }
            Step::Write(p) if !movable => Step::Write(p),
            Step::Write(p) => {
                for (k, id) in p.ids.iter().enumerate() {
                    let i = p.base + k as u64;
                    let s = self.ring.slot(i);
                    self.ring.items[s] = *id;
                    self.ring.stamps[s] = self.ring.lap2(i) + 1;
                }
                Step::Credit {
                    n: p.ids.len() as u64,
                    rest: p.rest,
                    ran: p.ran,
                }
            }
            Step::Credit { n, rest, ran } => {
                self.ring.avail += n as i64;
                Step::Run { items: rest, ran }
            }
            Step::Done { ran } => {
                self.ring.done += ran;
                Step::Idle
            }
        };
        self.groups[g] = next;
    }

    /// A push of `ids` (none: the next item, or the batch's end).
    fn start_push(&mut self, ids: Vec<u64>, rest: Vec<u64>, ran: u64) -> Step {
        if ids.is_empty() {
            Step::Run { items: rest, ran }
        } else {
            Step::Reserve(Push {
                base: 0,
                ids,
                rest,
                ran,
            })
        }
    }

    fn finished(&self) -> bool {
        self.ring.done == self.ring.end_alloc && self.groups.iter().all(|s| matches!(s, Step::Idle))
    }

    fn run(mut self) -> End {
        // Every group at 64, one at 1 in three runs of four.
        self.weights = vec![64; self.groups.len()];
        if self.rng.below(4) != 0 {
            let slow = self.rng.below(self.groups.len() as u64) as usize;
            self.weights[slow] = 1;
        }
        for _ in 0..2_000_000 {
            if self.overflow {
                return End::Overflow;
            }
            if self.finished() {
                let mut pushed = self.pushed.clone();
                let mut copied = self.copied.clone();
                pushed.sort_unstable();
                copied.sort_unstable();
                assert_eq!(pushed, copied, "the items copied out are not those pushed");
                return End::Finished(pushed.len() as u64);
            }
            let movable: Vec<usize> = (0..self.groups.len())
                .filter(|&g| self.can_move(g))
                .collect();
            if movable.is_empty() {
                return End::Deadlock(self.describe());
            }
            let total: u64 = movable.iter().map(|&g| self.weights[g]).sum();
            let mut pick = self.rng.below(total);
            let mut g = movable[0];
            for &m in &movable {
                if pick < self.weights[m] {
                    g = m;
                    break;
                }
                pick -= self.weights[m];
            }
            self.step(g);
        }
        End::Deadlock(format!("no end after 2,000,000 steps: {}", self.describe()))
    }

    fn describe(&self) -> String {
        let r = &self.ring;
        format!(
            "end_alloc {} end_count {} start {} avail {} done {}; groups {:?}",
            r.end_alloc, r.end_count, r.start, r.avail, r.done, self.groups
        )
    }
}

/// The rings, groups and workloads the tests run: rings of 2 to 32 items (slots the next power
/// of two above, or twice that), 2 to 5 groups taking 1 to 4 items, 1 to 3 seeds, 20 to 200
/// pushes; each over `seeds_per_shape` schedules.
/// A ring and the run on it: the ring's capacity and slots, the groups and the items each takes,
/// the seeds, and the pushes the items make in all.
#[derive(Debug)]
struct Shape {
    capacity: u64,
    slots: u64,
    groups: usize,
    fetch: u64,
    seeds: u64,
    budget: u64,
}

fn shapes() -> Vec<Shape> {
    let mut v = Vec::new();
    for capacity in [2u64, 3, 4, 6, 8, 16, 32] {
        let tight = (capacity + 1).next_power_of_two();
        for slots in [tight, 2 * tight] {
            for (groups, fetch) in [(2usize, 1u64), (3, 2), (5, 1), (4, 4)] {
                let seeds = capacity.min(1 + (groups as u64 % 3));
                for budget in [20u64, 200] {
                    v.push(Shape {
                        capacity,
                        slots,
                        groups,
                        fetch,
                        seeds,
                        budget,
                    });
                }
            }
        }
    }
    v
}

fn run_all(bound: RoomBound, seeds_per_shape: u64) -> (u64, u64, Vec<String>, u64) {
    let (mut finished, mut overflows, mut deadlocks, mut wrapped) = (0, 0, Vec::new(), 0);
    for (k, shape) in shapes().iter().enumerate() {
        for seed in 0..seeds_per_shape {
            match Run::new((k as u64) << 32 | seed, shape, bound).run() {
                End::Finished(pushed) => {
                    finished += 1;
                    if pushed > shape.slots {
                        wrapped += 1;
                    }
                }
                End::Overflow => overflows += 1,
                End::Deadlock(why) => deadlocks.push(format!("{shape:?}, schedule {seed}: {why}")),
            }
        }
    }
    (finished, overflows, deadlocks, wrapped)
}

/// The protocol as queue.cuh runs it: no schedule deadlocks, every finished run copied out each
/// pushed item once, every overflow saw more than `capacity` alive; and the runs are not all
/// overflows: most finish, many after their rings wrapped.
#[test]
fn stamped_rings_end_and_deliver_every_item_once() {
    let (finished, overflows, deadlocks, wrapped) = run_all(RoomBound::Clamped, 40);
    eprintln!("{finished} finished ({wrapped} wrapped), {overflows} overflowed");
    assert!(
        deadlocks.is_empty(),
        "{} deadlocks, first: {}",
        deadlocks.len(),
        deadlocks[0]
    );
    let runs = finished + overflows;
    assert!(
        finished * 2 > runs,
        "only {finished} of {runs} runs finished ({overflows} overflowed)"
    );
    assert!(
        wrapped * 4 > finished,
        "only {wrapped} of {finished} finished runs wrapped their ring"
    );
    assert!(
        overflows > 0,
        "no run overflowed: the overflow checks never ran"
    );
}

/// The model finds the hang the first version had (docs/results/2026-12-07c, call s1): with the
/// room bound a wrapping difference, a writer whose range claims have passed waits forever and
/// the claimers of its items wait for it.
#[test]
fn a_wrapping_room_bound_deadlocks() {
    let (_, _, deadlocks, _) = run_all(RoomBound::Wrapping, 40);
    assert!(
        !deadlocks.is_empty(),
        "the model found no deadlock with the wrapping bound"
    );
}
