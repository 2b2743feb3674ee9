//! Strong scaling of a bench run: for each graph and app, the best verified time on each
//! device count, and its speed-up over the best one-device time of the same run.
//!
//! A *series* is one way of spreading: transport (peer-to-peer or NVSHMEM), aggregation and
//! partition. Its one-device point is the plain program on one device (`atos`, not
//! `--spread-one`'s `atos x1`), so the speed-up includes what spreading costs. Within a device
//! count the best worker and fetch is taken, as a user tuning each count would.

use super::record::{Record, Status, grids_vary};

/// One point of a series: `devices` devices, the best time there and what ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub devices: usize,
    pub ms: f64,
    /// `strategy worker/fetch` of the best record.
    pub config: String,
    /// One-device best time / this time.
    pub speedup: f64,
}

/// One series of one graph and app.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub graph: String,
    pub app: String,
    /// `p2p eager vertices`, `nvshmem 1024:20 random:7`, ...
    pub label: String,
    /// Ascending device counts, the one-device baseline first.
    pub points: Vec<Point>,
}

/// The fastest verified record with a time above zero (a zero would be an infinite speed-up).
fn best<'a>(recs: impl Iterator<Item = &'a Record>) -> Option<&'a Record> {
    recs.filter(|r| r.status == Status::Ok && r.median_ms.is_some_and(|m| m > 0.0))
        .min_by(|a, b| a.median_ms.unwrap().total_cmp(&b.median_ms.unwrap()))
}

/// `strategy worker/fetch`, with the blocks (`@264`) when `with_grid` ([`grids_vary`]).
fn config(r: &Record, with_grid: bool) -> String {
    format!("{} {}", r.strategy, r.worker_fetch_at(with_grid))
}

/// The series of `records` with at least one verified spread point and a verified
/// one-device run to compare with, in the order their graphs and apps first appear.
pub fn series<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<Series> {
    let atos: Vec<&Record> = records
        .into_iter()
        .filter(|r| r.implementation == "atos")
        .collect();
    let with_grid = grids_vary(atos.iter().copied());
    let mut out: Vec<Series> = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in &atos {
        let key = (r.graph.as_str(), r.app.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same = || {
            atos.iter()
                .copied()
                .filter(move |x| x.graph == key.0 && x.app == key.1)
        };
        let Some(base) = best(same().filter(|x| x.devices.is_none())) else {
            continue;
        };
        let base_ms = base.median_ms.unwrap();
        let mut labels: Vec<String> = Vec::new();
        for x in same().filter(|x| x.devices.is_some_and(|d| d > 1)) {
            let label = x.spread_label();
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        for label in labels {
            let mut counts: Vec<usize> = same()
                .filter(|x| x.spread_label() == label)
                .filter_map(|x| x.devices)
                .filter(|&d| d > 1)
                .collect();
            counts.sort_unstable();
            counts.dedup();
            let mut points = vec![Point {
                devices: 1,
                ms: base_ms,
                config: config(base, with_grid),
                speedup: 1.0,
            }];
            for d in counts {
                let at = same().filter(|x| x.devices == Some(d) && x.spread_label() == label);
                if let Some(b) = best(at) {
                    let ms = b.median_ms.unwrap();
                    points.push(Point {
                        devices: d,
                        ms,
                        config: config(b, with_grid),
                        speedup: base_ms / ms,
                    });
                }
            }
            if points.len() > 1 {
                out.push(Series {
                    graph: key.0.to_string(),
                    app: key.1.to_string(),
                    label,
                    points,
                });
            }
        }
    }
    out
}

/// The terminal table: one row per series and device count.
pub fn table(series: &[Series], slug_of: impl Fn(&str) -> String) -> Vec<String> {
    if series.is_empty() {
        return Vec::new();
    }
    let header = [
        "graph",
        "app",
        "spread",
        "devices",
        "best ms",
        "speed-up",
        "best config",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = vec![header];
    for s in series {
        for p in &s.points {
            rows.push(vec![
                slug_of(&s.graph),
                s.app.clone(),
                if p.devices == 1 {
                    "one device".into()
                } else {
                    s.label.clone()
                },
                p.devices.to_string(),
                format!("{:.3}", p.ms),
                format!("{:.2}x", p.speedup),
                p.config.clone(),
            ]);
        }
    }
    let mut lines = vec![
        "strong scaling: best verified time per device count; speed-up over the best one-device run of this bench"
            .to_string(),
    ];
    lines.extend(super::text_table::lines(&rows, |i| (3..=5).contains(&i)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::{GraphInfo, GraphSignature};

    fn record(app: &str, devices: Option<usize>, agg: &str, fetch: u32, ms: f64) -> Record {
        let info = GraphInfo {
            spec: "kron:24".into(),
            signature: GraphSignature {
                vertices: 1 << 24,
                edges: 500_000_000,
                max_degree: 1_000_000,
                avg_degree: 30.0,
            },
            source: 0,
            reached: 1 << 23,
            max_depth: 7,
        };
        let mut r = Record::new(&info, "atos", app);
        r.strategy = "persistent".into();
        r.worker = "cta".into();
        r.fetch = Some(fetch);
        r.queue = "ring".into();
        r.device = "NVIDIA H200".into();
        r.devices = devices;
        if devices.is_some() {
            r.aggregation = Some(agg.into());
            r.partition = Some("vertices".into());
        }
        r.times_ms = vec![ms];
        r.summarize_times();
        r
    }

    #[test]
    fn series_take_the_best_config_per_count_against_the_one_device_best() {
        let mut recs = vec![
            record("bfs", None, "", 8, 20.0),
            record("bfs", None, "", 64, 16.0),
            record("bfs", Some(2), "eager", 8, 10.0),
            record("bfs", Some(2), "eager", 64, 12.0),
            record("bfs", Some(4), "eager", 8, 5.0),
            record("bfs", Some(2), "1024:20", 8, 9.0),
            // A failed run is never a time.
            record("bfs", Some(4), "1024:20", 8, 1.0),
            // --spread-one's x1 is not the baseline.
            record("bfs", Some(1), "eager", 8, 1.0),
            // No one-device run of pagerank: no series.
            record("pagerank", Some(2), "eager", 8, 3.0),
        ];
        recs[6].fail("wrong depths".into(), None);
        let s = series(&recs);
        assert_eq!(s.len(), 2, "{s:#?}");
        assert_eq!(s[0].label, "p2p eager vertices");
        let pts: Vec<(usize, f64, f64)> = s[0]
            .points
            .iter()
            .map(|p| (p.devices, p.ms, p.speedup))
            .collect();
        assert_eq!(pts, [(1, 16.0, 1.0), (2, 10.0, 1.6), (4, 5.0, 3.2)]);
        assert_eq!(s[0].points[0].config, "persistent cta/64");
        assert_eq!(s[1].label, "p2p 1024:20 vertices");
        assert_eq!(s[1].points.len(), 2, "the failed x4 run is left out");
        let lines = table(&s, |g| g.replace(':', "-"));
        assert!(lines[0].starts_with("strong scaling"));
        assert!(lines[2].contains("one device") && lines[2].contains("1.00x"));
        assert!(lines[4].contains("p2p eager vertices") && lines[4].contains("3.20x"));
        assert_eq!(lines.len(), 2 + 5);
    }

    #[test]
    fn a_point_names_its_blocks_where_a_configuration_ran_at_several() {
        let at = |devices, blocks, ms| {
            let mut r = record("bfs", devices, "eager", 64, ms);
            r.grid = Some([blocks, 256]);
            r
        };
        let recs = [
            at(None, 1056, 16.0),
            at(None, 264, 14.0),
            at(Some(2), 1056, 9.0),
            at(Some(2), 264, 10.0),
        ];
        let s = series(&recs);
        let configs: Vec<&str> = s[0].points.iter().map(|p| p.config.as_str()).collect();
        assert_eq!(
            configs,
            ["persistent cta/64 @264", "persistent cta/64 @1056"]
        );
        // One grid per configuration: no blocks in the names.
        let s = series([&recs[0], &recs[2]]);
        assert_eq!(s[0].points[0].config, "persistent cta/64");
    }

    #[test]
    fn nvshmem_records_are_their_own_series() {
        let mut n = record("bfs", Some(2), "eager", 8, 8.0);
        n.device = "NVIDIA H200 (NVSHMEM rank 0 of 2)".into();
        let recs = vec![
            record("bfs", None, "", 8, 16.0),
            record("bfs", Some(2), "eager", 8, 10.0),
            n,
        ];
        let labels: Vec<String> = series(&recs).into_iter().map(|s| s.label).collect();
        assert_eq!(labels, ["p2p eager vertices", "nvshmem eager vertices"]);
    }
}
