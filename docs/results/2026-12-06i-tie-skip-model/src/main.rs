//! An event model of speculative greedy colouring's schedule (`atos::apps::coloring::split`),
//! to ask how often hubs are re-coloured and how long the tail is, with and without
//! `assign_big`'s tie skip. A model, not the GPU: `W` workers take tasks from one FIFO in push
//! order; a task reads the state when it starts and writes when it ends; it lasts
//! `10 + passes * (degree / lanes + 1)` units (lanes 256 for vertices above `big`, a CTA;
//! 32 below, a warp; `passes` the 64-colour windows an assign scans, 1 for a check).
//!
//! Usage: `model GRAPH W MODE BIG [degree]`, MODE one of
//! - `base`: first fit everywhere (tie_skip 0);
//! - `skip:CAP`: vertices above BIG pass over up to CAP free colours, one per tied rival
//!   (a neighbour holding the colour the vertex lost with, pending, first in the tie order),
//!   as `assign_big` does with `tie_skip = CAP`; `skip:0` is `base`, `skip:max` uncapped.
//!
//! and `degree` to seed the largest degrees first (Welsh and Powell's order) instead of id
//! order.
//!
//! Prints tasks, colour tasks per vertex, colourings of vertices above BIG, colours (distinct,
//! and the largest + 1), conflicts left (must be 0), the model times at which 99%,
//! 99.9% and 99.99% of the tasks had ended, and the last, and the work: the units the workers
//! were busy over W (the end if none were ever idle) and the share of the vertices above BIG,
//! and, above BIG, the passes over the neighbours per colouring and the share of all work
//! spent in passes after the first.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const UNCOLORED: u32 = u32::MAX;

#[derive(Clone, Copy)]
enum Task {
    Assign(u32),
    Check(u32),
}

/// A task in flight: when it ends and what it writes then.
struct Running {
    end: u64,
    seq: u64,
    task: Task,
    color: u32,
    losers: Vec<u32>,
}

impl PartialEq for Running {
    fn eq(&self, o: &Self) -> bool {
        (self.end, self.seq) == (o.end, o.seq)
    }
}
impl Eq for Running {}
impl PartialOrd for Running {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Running {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.end, self.seq).cmp(&(o.end, o.seq))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 && !(args.len() == 6 && args[5] == "degree") {
        eprintln!("usage: model GRAPH WORKERS base|skip:CAP|skip:max BIG [degree]");
        std::process::exit(2);
    }
    let spec = &args[1];
    let workers: usize = args[2].parse().expect("WORKERS: a number");
    let cap: u32 = match args[3].as_str() {
        "base" => 0,
        "skip:max" => u32::MAX,
        m => m
            .strip_prefix("skip:")
            .and_then(|c| c.parse().ok())
            .expect("MODE: base, skip:CAP or skip:max"),
    };
    let big: u64 = args[4].parse().expect("BIG: a degree");
    // HUB_WINDOW: the colours a vertex above BIG scans per pass over its neighbours after a
    // first pass over 64 (64: one u64 per lane; 256: four, as `assign_big`'s `wide` did,
    // built 2026-12-07 and removed when an H100 measured it slower). Each
    // extra word costs its own reduction, modelled as 2 units per pass.
    let window: u64 = std::env::var("HUB_WINDOW").map_or(64, |w| w.parse().expect("HUB_WINDOW"));
    let words = window / 64;
    let g = atos_graph::load(spec).expect("a graph spec or file");
    let n = g.num_vertices();
    let deg: Vec<u64> = (0..n as u32).map(|v| g.degree(v)).collect();
    // The tie rule: the larger degree, then the smaller id, keeps its colour.
    let first = |u: u32, v: u32| {
        let (du, dv) = (deg[u as usize], deg[v as usize]);
        du > dv || (du == dv && u < v)
    };
    let mut color = vec![UNCOLORED; n];
    let mut pending = vec![true; n];
    let mut order: Vec<u32> = (0..n as u32).collect();
    if args.len() == 6 {
        order.sort_by_key(|&v| Reverse(deg[v as usize]));
    }
    let mut queue: VecDeque<Task> = order.into_iter().map(Task::Assign).collect();
    let mut running: BinaryHeap<Reverse<Running>> = BinaryHeap::new();
    let (mut now, mut seq, mut idle) = (0u64, 0u64, workers);
    // Units the workers were busy, all tasks and those of vertices above BIG.
    let (mut busy, mut hub_busy) = (0u64, 0u64);
    // Above BIG: the colourings' passes over the neighbours, and the work of those after the
    // first (a pass per 64-colour window).
    let (mut hub_passes, mut hub_later) = (0u64, 0u64);
    let mut ends: Vec<u64> = Vec::new();
    let (mut assigns, mut hub_assigns, mut skipped) = (0u64, 0u64, 0u64);
    loop {
        while idle > 0 {
            let Some(task) = queue.pop_front() else {
                break;
            };
            idle -= 1;
            let v = match task {
                Task::Assign(v) | Task::Check(v) => v,
            };
            let d = deg[v as usize];
            let lanes = if d > big { 256 } else { 32 };
            let nbrs = g.neighbors(v);
            let (mut chosen, mut losers) = (0, Vec::new());
            let passes = match task {
                Task::Assign(_) => {
                    assigns += 1;
                    hub_assigns += u64::from(d > big);
                    pending[v as usize] = false;
                    let old = color[v as usize];
                    let mut ties = 0u32;
                    if d > big && cap > 0 && old != UNCOLORED {
                        for &u in nbrs {
                            let rival = u != v && color[u as usize] == old;
                            ties += u32::from(rival && pending[u as usize] && first(u, v));
                        }
                    }
                    let mut ties = ties.min(cap);
                    skipped += u64::from(ties > 0);
                    let mut taken =
                        vec![false; nbrs.len() + cap.min(nbrs.len() as u32) as usize + 1];
                    for &u in nbrs {
                        let c = color[u as usize];
                        if u != v && (c as usize) < taken.len() {
                            taken[c as usize] = true;
                        }
                    }
                    let mut c = 0usize;
                    loop {
                        if c >= taken.len() || !taken[c] {
                            if ties == 0 {
                                break;
                            }
                            ties -= 1;
                        }
                        c += 1;
                    }
                    chosen = c as u32;
                    // A first pass over 64 colours, then (above BIG) `window` per pass.
                    match c as u64 {
                        c if c < 64 => 1,
                        c if d > big => 2 + (c - 64) / window,
                        c => c / 64 + 1,
                    }
                }
                Task::Check(_) => {
                    let c = color[v as usize];
                    for &u in nbrs {
                        if u != v && color[u as usize] == c {
                            losers.push(if first(u, v) { v } else { u });
                        }
                    }
                    1
                }
            };
            seq += 1;
            // The wide passes' extra reductions (all passes after the first, above BIG).
            let extra = if d > big && matches!(task, Task::Assign(_)) {
                2 * (words - 1)
            } else {
                0
            };
            let end = now + 10 + passes * (d / lanes + 1) + (passes - 1) * extra;
            busy += end - now;
            if d > big {
                hub_busy += end - now;
                if let Task::Assign(_) = task {
                    hub_passes += passes;
                    hub_later += (passes - 1) * (d / lanes + 1 + extra);
                }
            }
            running.push(Reverse(Running {
                end,
                seq,
                task,
                color: chosen,
                losers,
            }));
        }
        let Some(Reverse(r)) = running.pop() else {
            break;
        };
        now = r.end;
        idle += 1;
        ends.push(now);
        match r.task {
            Task::Assign(v) => {
                color[v as usize] = r.color;
                queue.push_back(Task::Check(v));
            }
            Task::Check(_) => {
                for l in r.losers {
                    if !pending[l as usize] {
                        pending[l as usize] = true;
                        queue.push_back(Task::Assign(l));
                    }
                }
            }
        }
    }
    let conflicts = (0..n as u32)
        .map(|v| {
            let nbrs = g.neighbors(v);
            nbrs.iter()
                .filter(|&&u| u != v && color[u as usize] == color[v as usize])
                .count()
        })
        .sum::<usize>();
    let mut distinct = color.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let top = color.iter().max().map_or(0, |&c| c + 1);
    let at = |p: f64| ends[((ends.len() as f64 * p) as usize).min(ends.len() - 1)];
    println!(
        "{spec} workers {workers} {} big {big}{}{}: tasks {} colour tasks/vertex {:.3} above-big colourings {hub_assigns} with skips {skipped} colours {} (top {top}) conflicts {conflicts} | 99% {} 99.9% {} 99.99% {} end {now} | busy/W {} above-big share {:.1}% | above-big passes/colouring {:.2}, later passes {:.1}% of the work",
        args[3],
        if args.len() == 6 { " degree order" } else { "" },
        if window == 64 {
            String::new()
        } else {
            format!(" hub window {window}")
        },
        ends.len(),
        assigns as f64 / n as f64,
        distinct.len(),
        at(0.99),
        at(0.999),
        at(0.9999),
        busy / workers as u64,
        100.0 * hub_busy as f64 / busy.max(1) as f64,
        hub_passes as f64 / hub_assigns.max(1) as f64,
        100.0 * hub_later as f64 / busy.max(1) as f64,
    );
}
