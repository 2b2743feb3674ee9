//! What the devices of spread runs did, read from their records: how evenly the tasks fell on
//! the devices, the items pushed between devices and their rate over the run, and the busiest
//! device's accesses to other devices' elements. Each is a count the run made, not an estimate:
//! the rates divide it by the run's median time, so they are averages over the whole run.

use super::record::{Record, Status};

/// The figures of one verified spread run (more than one device).
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    pub devices: usize,
    pub ms: f64,
    /// The busiest device's tasks over the mean (1.0: even).
    pub task_balance: Option<f64>,
    pub items: Option<u64>,
    /// Item bytes per second over the run, in GB/s.
    pub item_gbps: Option<f64>,
    /// The most accesses one device made to other devices' elements.
    pub remote_ops_max: Option<u64>,
    /// Those accesses per microsecond of the run.
    pub remote_ops_per_us: Option<f64>,
    /// Elements delivered from combine copies, all devices.
    pub delivered: Option<u64>,
}

impl Traffic {
    /// `None` for a one-device run, an unverified one or one without a time.
    pub fn of(r: &Record) -> Option<Traffic> {
        let devices = r.devices.filter(|&d| d > 1)?;
        let ms = r.median_ms.filter(|&m| m > 0.0)?;
        if r.status != Status::Ok {
            return None;
        }
        let task_balance = r.device_tasks.as_ref().and_then(|t| {
            let total: u64 = t.iter().sum();
            let max = *t.iter().max()?;
            (total > 0).then(|| max as f64 * t.len() as f64 / total as f64)
        });
        let remote_ops_max = r
            .device_remote_ops
            .as_ref()
            .and_then(|o| o.iter().max().copied());
        Some(Traffic {
            devices,
            ms,
            task_balance,
            items: r.remote_items,
            item_gbps: r.remote_bytes.map(|b| b as f64 / (ms * 1e6)),
            remote_ops_max,
            remote_ops_per_us: remote_ops_max.map(|o| o as f64 / (ms * 1e3)),
            delivered: r.device_delivered.as_ref().map(|d| d.iter().sum()),
        })
    }
}

/// What a spread run's progress samples say (`--timeline`): per device the share of the run
/// in which it took items (claimed or kept), and how long the run went on after the last.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Per device: the summed length of the sample intervals in which its items taken grew, over
    /// the span from the first sample to the end (the last entry).
    pub active: Vec<f64>,
    /// From the first sample that saw every item taken to the end: at least the time the
    /// devices went on after the run took its last item (finishing the items taken last, the end check
    /// across devices, an idle hook's last sweeps), and at most one sample gap less than it.
    pub tail_ms: f64,
    /// From the first sample at which the devices together had taken 99% of the run's items to
    /// the end: the run's last items (on 2 and 4 H200s, 0.6-1.7 ms of a kron BFS run against
    /// 0.13-0.17 on one GPU, docs/results/2026-11-28d-x4-h200.md), at most one sample gap long.
    pub last_items_ms: f64,
    /// The median gap between samples, microseconds.
    pub gap_us: f64,
}

impl Progress {
    /// `samples[d]`: device `d`'s (nanoseconds, claims) at the same times, the last entry at
    /// the run's end (`DeviceStats::progress`). `None` with fewer than two entries (a run that
    /// ended before the second sample) or devices that disagree on the count.
    pub fn of(samples: &[Vec<(u64, u64)>]) -> Option<Progress> {
        let m = samples.first()?.len();
        if m < 2 || samples.iter().any(|s| s.len() != m) {
            return None;
        }
        let t = |i: usize| samples[0][i].0 as f64;
        let span = t(m - 1) - t(0);
        let active = samples
            .iter()
            .map(|s| {
                let busy: f64 = (1..m)
                    .filter(|&i| s[i].1 > s[i - 1].1)
                    .map(|i| t(i) - t(i - 1))
                    .sum();
                if span > 0.0 { busy / span } else { 0.0 }
            })
            .collect();
        let total = |i: usize| samples.iter().map(|s| s[i].1).sum::<u64>();
        let last = (0..m).find(|&i| total(i) == total(m - 1)).unwrap_or(0);
        // 99% of the items, in integers: total * 100 >= final * 99.
        let most = (0..m)
            .find(|&i| u128::from(total(i)) * 100 >= u128::from(total(m - 1)) * 99)
            .unwrap_or(0);
        let mut gaps: Vec<f64> = (1..m).map(|i| (t(i) - t(i - 1)) / 1e3).collect();
        gaps.sort_by(f64::total_cmp);
        Some(Progress {
            active,
            tail_ms: (t(m - 1) - t(last)) / 1e6,
            last_items_ms: (t(m - 1) - t(most)) / 1e6,
            gap_us: gaps[gaps.len() / 2],
        })
    }
}

/// The terminal table, one row per verified spread run; empty when there is none.
pub fn table(records: &[Record], slug_of: impl Fn(&str) -> String) -> Vec<String> {
    let header = [
        "graph",
        "app",
        "spread",
        "devices",
        "config",
        "median ms",
        "tasks max/mean",
        "items",
        "item GB/s",
        "remote ops max",
        "per us",
        "delivered",
        "active min",
        "last 1% ms",
        "end tail ms",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let with_grid = super::record::grids_vary(records);
    for r in records {
        let Some(t) = Traffic::of(r) else { continue };
        rows.push(vec![
            slug_of(&r.graph),
            r.app.clone(),
            r.spread_label(),
            t.devices.to_string(),
            format!("{} {}", r.strategy, r.worker_fetch_at(with_grid)),
            format!("{:.3}", t.ms),
            opt(t.task_balance.map(|b| format!("{b:.3}"))),
            opt(t.items.map(|i| i.to_string())),
            opt(t.item_gbps.map(|g| format!("{g:.3}"))),
            opt(t.remote_ops_max.map(|o| o.to_string())),
            opt(t.remote_ops_per_us.map(|o| format!("{o:.1}"))),
            opt(t.delivered.map(|d| d.to_string())),
            opt(r
                .device_active
                .as_ref()
                .and_then(|a| a.iter().copied().min_by(f64::total_cmp))
                .map(|a| format!("{a:.2}"))),
            opt(r.last_items_ms.map(|t| format!("{t:.3}"))),
            opt(r.end_tail_ms.map(|t| format!("{t:.3}"))),
        ]);
    }
    if rows.len() == 1 {
        return Vec::new();
    }
    let mut lines = vec![
        "between devices: tasks on the busiest device over the mean; items pushed to other devices and their bytes per second over the run; the busiest device's loads, stores and atomics on other devices' elements and their rate; elements delivered from combine copies; with --timeline, the least active device's share of the run spent claiming items, how long the run's last 1% of items took to the end, and how long the run went on after its last claim"
            .to_string(),
    ];
    lines.extend(super::text_table::lines(&rows, |i| i >= 3 && i != 4));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::{GraphInfo, GraphSignature};

    fn spread(devices: Option<usize>, ms: f64) -> Record {
        let info = GraphInfo {
            spec: "kron:24".into(),
            signature: GraphSignature {
                vertices: 1 << 24,
                edges: 520_763_324,
                max_degree: 1_000_000,
                avg_degree: 31.0,
            },
            source: 0,
            reached: 1 << 24,
            max_depth: 6,
        };
        let mut r = Record::new(&info, "atos", "bfs");
        r.strategy = "persistent".into();
        r.worker = "cta".into();
        r.fetch = Some(64);
        r.queue = "ring".into();
        r.device = "4 x NVIDIA H200".into();
        r.devices = devices;
        r.aggregation = Some("1024:20".into());
        r.partition = Some("edges".into());
        r.times_ms = vec![ms];
        r.summarize_times();
        r
    }

    /// The figures of the first 4-GPU kron:24 BFS run (docs/results/2026-11-28-x4-h200).
    #[test]
    fn figures_are_the_records_counts_over_the_run() {
        let mut r = spread(Some(4), 16.796);
        r.device_tasks = Some(vec![4_221_965, 4_250_694, 4_295_196, 4_352_306]);
        r.remote_items = Some(12_863_663);
        r.remote_bytes = Some(12_863_663 * 4);
        r.device_remote_ops = Some(vec![6_906_642, 6_339_595, 6_997_324, 7_508_539]);
        let t = Traffic::of(&r).unwrap();
        let total = 4_221_965.0 + 4_250_694.0 + 4_295_196.0 + 4_352_306.0;
        assert!((t.task_balance.unwrap() - 4.0 * 4_352_306.0 / total).abs() < 1e-12);
        assert!((t.item_gbps.unwrap() - 12_863_663.0 * 4.0 / 16.796e6).abs() < 1e-9);
        assert_eq!(t.remote_ops_max, Some(7_508_539));
        assert!((t.remote_ops_per_us.unwrap() - 7_508_539.0 / 16_796.0).abs() < 1e-9);
        assert_eq!(t.delivered, None);
        let lines = table(&[r], |s| s.replace(':', "-"));
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines[2].starts_with("kron-24  bfs  p2p 1024:20 edges"),
            "{}",
            lines[2]
        );
        assert!(
            lines[2].contains("12863663") && lines[2].contains("3.064"),
            "{}",
            lines[2]
        );
    }

    #[test]
    fn progress_gives_each_devices_active_share_and_the_tail() {
        // Samples every 10 us, the end at 100 us: device 0 claims in the first four
        // intervals, device 1 in the second and fourth; the last claim is seen at 40 us.
        let d0 = [
            (0, 0),
            (10_000, 5),
            (20_000, 9),
            (30_000, 12),
            (40_000, 20),
            (50_000, 20),
            (100_000, 20),
        ];
        let d1 = [
            (0, 0),
            (10_000, 0),
            (20_000, 3),
            (30_000, 3),
            (40_000, 7),
            (50_000, 7),
            (100_000, 7),
        ];
        let p = Progress::of(&[d0.to_vec(), d1.to_vec()]).unwrap();
        assert_eq!(p.active, [0.4, 0.2]);
        assert!((p.tail_ms - 0.06).abs() < 1e-12, "{p:?}");
        // 99% of 27 items is 26.73: first reached with all 27, at 40 us, as the tail.
        assert!((p.last_items_ms - 0.06).abs() < 1e-12, "{p:?}");
        assert_eq!(p.gap_us, 10.0);
        // A trickle: 990 of 1000 items by 10 us, the last at 50 us, the end at 60 us.
        let trickle = [
            (0, 0),
            (10_000, 990),
            (30_000, 995),
            (50_000, 1000),
            (60_000, 1000),
        ];
        let p = Progress::of(&[trickle.to_vec()]).unwrap();
        assert!((p.last_items_ms - 0.05).abs() < 1e-12, "{p:?}");
        assert!((p.tail_ms - 0.01).abs() < 1e-12, "{p:?}");
        // The last claim seen only at the end: no tail to speak of.
        let late = [(0, 0), (10_000, 5), (20_000, 9)];
        assert_eq!(Progress::of(&[late.to_vec()]).unwrap().tail_ms, 0.0);
        assert_eq!(Progress::of(&[d0[..1].to_vec()]), None);
        assert_eq!(Progress::of(&[d0.to_vec(), d1[..3].to_vec()]), None);
    }

    #[test]
    fn one_device_and_failed_runs_have_no_row() {
        let one = spread(None, 22.7);
        let mut failed = spread(Some(2), 20.0);
        failed.status = Status::Failed;
        assert_eq!(Traffic::of(&one), None);
        assert_eq!(Traffic::of(&failed), None);
        assert!(table(&[one, failed], |s| s.to_string()).is_empty());
    }
}
