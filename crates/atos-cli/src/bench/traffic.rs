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
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for r in records {
        let Some(t) = Traffic::of(r) else { continue };
        rows.push(vec![
            slug_of(&r.graph),
            r.app.clone(),
            r.spread_label(),
            t.devices.to_string(),
            format!("{} {}", r.strategy, r.worker_fetch()),
            format!("{:.3}", t.ms),
            opt(t.task_balance.map(|b| format!("{b:.3}"))),
            opt(t.items.map(|i| i.to_string())),
            opt(t.item_gbps.map(|g| format!("{g:.3}"))),
            opt(t.remote_ops_max.map(|o| o.to_string())),
            opt(t.remote_ops_per_us.map(|o| format!("{o:.1}"))),
            opt(t.delivered.map(|d| d.to_string())),
        ]);
    }
    if rows.len() == 1 {
        return Vec::new();
    }
    let mut lines = vec![
        "between devices: tasks on the busiest device over the mean; items pushed to other devices and their bytes per second over the run; the busiest device's loads, stores and atomics on other devices' elements and their rate; elements delivered from combine copies"
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
    fn one_device_and_failed_runs_have_no_row() {
        let one = spread(None, 22.7);
        let mut failed = spread(Some(2), 20.0);
        failed.status = Status::Failed;
        assert_eq!(Traffic::of(&one), None);
        assert_eq!(Traffic::of(&failed), None);
        assert!(table(&[one, failed], |s| s.to_string()).is_empty());
    }
}
