//! SVG plots of a bench run (plotters' SVG backend: text becomes `<text>` elements, no font
//! files are read).
//!
//! Per graph: `<slug>-heatmap-<strategy>[-<queue>].svg` (worker x fetch, median time),
//! `<slug>-timeline.svg` (tasks completed per time slice, `--timeline` runs) and
//! `<slug>-best.svg` (best median time per strategy, and per original binary) and
//! `<slug>-scaling.svg` (speed-up over one device per device count, `--devices` runs;
//! `scaling.rs` computes it).

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::record::{Record, Status, grids_vary};
use super::scaling;

type PlotResult<T> = Result<T, Box<dyn std::error::Error>>;

/// A file-name-safe name for a graph spec: a file's stem, or the spec with `:`, `,` and other
/// unsafe characters turned into `-`.
pub fn slug(spec: &str) -> String {
    let path = Path::new(spec);
    let base = if spec.contains('/') || path.is_file() {
        path.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(spec)
            .to_string()
    } else {
        spec.to_string()
    };
    let s: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() { "graph".into() } else { s }
}

/// Unique slugs for `specs`, in order (a repeated slug gets `-2`, `-3`, ...).
pub fn unique_slugs(specs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for spec in specs {
        let base = slug(spec);
        let mut s = base.clone();
        let mut k = 2;
        while out.contains(&s) {
            s = format!("{base}-{k}");
            k += 1;
        }
        out.push(s);
    }
    out
}

/// Writes every plot for the records of `graphs` (spec, slug) into `dir`; returns the files.
pub fn write_all(
    dir: &Path,
    graphs: &[(String, String)],
    records: &[Record],
) -> PlotResult<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("creating the plots folder {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for (spec, slug) in graphs {
        let recs: Vec<&Record> = records.iter().filter(|r| &r.graph == spec).collect();
        if recs.is_empty() {
            continue;
        }
        files.extend(heatmaps(dir, slug, &recs)?);
        if let Some(f) = timeline(dir, slug, &recs)? {
            files.push(f);
        }
        if let Some(f) = best(dir, slug, &recs)? {
            files.push(f);
        }
        if let Some(f) = scaling_plot(dir, slug, &recs)? {
            files.push(f);
        }
    }
    Ok(files)
}

fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Green (fast) through yellow to red (slow), `t` in 0..=1.
fn heat(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let (r, g) = if t < 0.5 {
        (2.0 * t, 1.0)
    } else {
        (1.0, 2.0 * (1.0 - t))
    };
    RGBColor((70.0 + 185.0 * r) as u8, (70.0 + 150.0 * g) as u8, 90)
}

fn text_style(size: u32, h: HPos, v: VPos) -> TextStyle<'static> {
    ("sans-serif", size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(h, v))
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

/// One worker x fetch heatmap of median times per (strategy, queue) of atos records.
fn heatmaps(dir: &Path, slug: &str, recs: &[&Record]) -> PlotResult<Vec<PathBuf>> {
    let ours: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.implementation == "atos")
        .collect();
    let queues = distinct(ours.iter().map(|r| r.queue.clone()));
    // One heatmap per block count when a configuration ran at several (`--grid a,b`): a cell
    // would otherwise show whichever row came first. Rows group by the blocks they launched,
    // so a default grid (occupancy x SMs) may put worker kinds on different maps.
    let grids: Vec<Option<u32>> = if grids_vary(ours.iter().copied()) {
        distinct(ours.iter().map(|r| r.grid.map(|g| g[0])))
    } else {
        vec![None]
    };
    let split_grids = grids.len() > 1;
    let mut files = Vec::new();
    for strategy in distinct(ours.iter().map(|r| r.strategy.clone())) {
        for queue in &queues {
            for grid in &grids {
                let cells: Vec<&Record> = ours
                    .iter()
                    .copied()
                    .filter(|r| r.strategy == strategy && &r.queue == queue)
                    .filter(|r| !split_grids || r.grid.map(|g| g[0]) == *grid)
                    .collect();
                if cells.iter().all(|r| r.status == Status::Skipped) {
                    continue;
                }
                let at = match grid {
                    Some(b) if split_grids => format!("-grid{b}"),
                    _ => String::new(),
                };
                let name = if queues.len() > 1 {
                    format!("{slug}-heatmap-{strategy}-{queue}{at}.svg")
                } else {
                    format!("{slug}-heatmap-{strategy}{at}.svg")
                };
                let title = match grid {
                    Some(b) if split_grids => {
                        format!("{slug}: {strategy}, {queue} queue, {b} blocks")
                    }
                    _ => format!("{slug}: {strategy}, {queue} queue"),
                };
                let path = dir.join(name);
                heatmap(&path, &title, &cells)?;
                files.push(path);
            }
        }
    }
    Ok(files)
}

fn heatmap(path: &Path, title: &str, cells: &[&Record]) -> PlotResult<()> {
    let workers = distinct(cells.iter().map(|r| r.worker.clone()));
    let mut fetches = distinct(cells.iter().map(|r| r.fetch));
    fetches.sort();
    let times: Vec<f64> = cells.iter().filter_map(|r| r.median_ms).collect();
    let (lo, hi) = times.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    let (cw, ch) = (110i32, 46i32);
    let (left, top) = (90i32, 60i32);
    let width = (left + cw * fetches.len() as i32 + 30).max(420) as u32;
    let height = (top + ch * workers.len() as i32 + 70) as u32;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        title.to_string(),
        (width as i32 / 2, 20),
        text_style(18, HPos::Center, VPos::Center),
    ))?;
    root.draw(&Text::new(
        "median time per run (worker x fetch)".to_string(),
        (width as i32 / 2, 40),
        text_style(12, HPos::Center, VPos::Center),
    ))?;
    for (j, w) in workers.iter().enumerate() {
        let y0 = top + ch * j as i32;
        root.draw(&Text::new(
            w.clone(),
            (left - 10, y0 + ch / 2),
            text_style(14, HPos::Right, VPos::Center),
        ))?;
        for (i, f) in fetches.iter().enumerate() {
            let x0 = left + cw * i as i32;
            let cell = cells.iter().find(|r| &r.worker == w && &r.fetch == f);
            let (fill, label) = match cell {
                Some(r) => match (r.status, r.median_ms) {
                    (Status::Ok, Some(m)) => {
                        let t = if hi > lo {
                            (m.ln() - lo.ln()) / (hi.ln() - lo.ln())
                        } else {
                            0.0
                        };
                        (heat(t), fmt_ms(m))
                    }
                    (Status::Skipped, _) => (RGBColor(225, 225, 225), "skipped".into()),
                    _ => (RGBColor(160, 160, 160), "FAILED".into()),
                },
                None => (WHITE, String::new()),
            };
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + cw, y0 + ch)],
                ShapeStyle::from(&fill).filled(),
            ))?;
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + cw, y0 + ch)],
                ShapeStyle::from(&WHITE).stroke_width(2),
            ))?;
            root.draw(&Text::new(
                label,
                (x0 + cw / 2, y0 + ch / 2),
                text_style(13, HPos::Center, VPos::Center),
            ))?;
        }
    }
    let bottom = top + ch * workers.len() as i32;
    for (i, f) in fetches.iter().enumerate() {
        let label = f.map_or("-".to_string(), |f| f.to_string());
        root.draw(&Text::new(
            label,
            (left + cw * i as i32 + cw / 2, bottom + 14),
            text_style(14, HPos::Center, VPos::Center),
        ))?;
    }
    root.draw(&Text::new(
        "fetch".to_string(),
        (left + cw * fetches.len() as i32 / 2, bottom + 38),
        text_style(14, HPos::Center, VPos::Center),
    ))?;
    root.present()?;
    Ok(())
}

/// Tasks completed per time slice over time, one line per configuration with a timeline.
fn timeline(dir: &Path, slug: &str, recs: &[&Record]) -> PlotResult<Option<PathBuf>> {
    let with_grid = grids_vary(recs.iter().copied());
    let series: Vec<(String, Vec<(f64, f64)>)> = recs
        .iter()
        .filter_map(|r| {
            let t = r.timeline.as_ref()?;
            let rates: Vec<(f64, f64)> = t
                .windows(2)
                .filter(|w| w[1].0 > w[0].0)
                .map(|w| {
                    let dt_us = w[1].0 - w[0].0;
                    let done = w[1].1.saturating_sub(w[0].1) as f64;
                    // tasks per microsecond = million tasks per second
                    (w[1].0 / 1e3, done / dt_us)
                })
                .collect();
            (!rates.is_empty()).then(|| {
                (
                    format!(
                        "{} {} {}",
                        r.strategy,
                        r.worker_fetch_at(with_grid),
                        r.queue
                    ),
                    rates,
                )
            })
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    let x_max = series
        .iter()
        .flat_map(|(_, s)| s.iter().map(|p| p.0))
        .fold(0.0f64, f64::max)
        .max(1e-3);
    let y_max = series
        .iter()
        .flat_map(|(_, s)| s.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1e-3);
    let path = dir.join(format!("{slug}-timeline.svg"));
    let root = SVGBackend::new(&path, (900, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{slug}: throughput over time"), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max * 1.02, 0.0..y_max * 1.1)?;
    chart
        .configure_mesh()
        .x_desc("time since launch (ms)")
        .y_desc("tasks completed per µs (Mtasks/s)")
        .draw()?;
    for (i, (label, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))?
            .label(label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    drop(chart);
    drop(root);
    Ok(Some(path))
}

/// Best median time per strategy (atos) and per original binary.
fn best(dir: &Path, slug: &str, recs: &[&Record]) -> PlotResult<Option<PathBuf>> {
    let with_grid = grids_vary(recs.iter().copied());
    let mut bars: Vec<(String, String, f64)> = Vec::new(); // (label, detail, ms)
    let groups = distinct(recs.iter().map(|r| {
        (
            r.implementation.clone(),
            if r.implementation == "original" {
                r.binary.clone().unwrap_or_default()
            } else {
                r.strategy.clone()
            },
        )
    }));
    for (imp, key) in groups {
        let best = recs
            .iter()
            .filter(|r| r.implementation == imp && r.status == Status::Ok)
            .filter(|r| {
                if imp == "original" {
                    r.binary.as_deref() == Some(key.as_str())
                } else {
                    r.strategy == key
                }
            })
            .filter_map(|r| r.median_ms.map(|m| (*r, m)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((r, m)) = best {
            let (label, detail) = if imp == "original" {
                (
                    format!("original {key}"),
                    format!("-i {}", r.idle.unwrap_or(0)),
                )
            } else {
                (
                    key.clone(),
                    format!("{} {}", r.worker_fetch_at(with_grid), r.queue),
                )
            };
            bars.push((label, detail, m));
        }
    }
    if bars.is_empty() {
        return Ok(None);
    }
    let max = bars.iter().map(|b| b.2).fold(0.0f64, f64::max);
    let (bw, gap, left, top, plot_h) = (130i32, 30i32, 40i32, 60i32, 300i32);
    let width = (left * 2 + (bw + gap) * bars.len() as i32).max(420) as u32;
    let height = (top + plot_h + 70) as u32;
    let path = dir.join(format!("{slug}-best.svg"));
    let root = SVGBackend::new(&path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        format!("{slug}: best median time per strategy (lower is better)"),
        (width as i32 / 2, 22),
        text_style(16, HPos::Center, VPos::Center),
    ))?;
    let base = top + plot_h;
    root.draw(&PathElement::new(
        vec![(left - 10, base), (width as i32 - left + 10, base)],
        BLACK.stroke_width(1),
    ))?;
    for (i, (label, detail, m)) in bars.iter().enumerate() {
        let x0 = left + gap / 2 + (bw + gap) * i as i32;
        let h = ((m / max) * (plot_h - 30) as f64).round().max(1.0) as i32;
        let style = if label.starts_with("original") {
            RGBColor(150, 150, 150).filled()
        } else {
            Palette99::pick(i).filled()
        };
        root.draw(&Rectangle::new([(x0, base - h), (x0 + bw, base)], style))?;
        root.draw(&Text::new(
            fmt_ms(*m),
            (x0 + bw / 2, base - h - 10),
            text_style(13, HPos::Center, VPos::Center),
        ))?;
        root.draw(&Text::new(
            label.clone(),
            (x0 + bw / 2, base + 16),
            text_style(13, HPos::Center, VPos::Center),
        ))?;
        root.draw(&Text::new(
            detail.clone(),
            (x0 + bw / 2, base + 34),
            text_style(11, HPos::Center, VPos::Center),
        ))?;
    }
    root.present()?;
    drop(root);
    Ok(Some(path))
}

/// Speed-up over the best one-device run against the device count, one line per app and
/// way of spreading, with the ideal (linear) line dashed.
fn scaling_plot(dir: &Path, slug: &str, recs: &[&Record]) -> PlotResult<Option<PathBuf>> {
    let series = scaling::series(recs.iter().copied());
    if series.is_empty() {
        return Ok(None);
    }
    let points = || series.iter().flat_map(|s| s.points.iter());
    let max_d = points().map(|p| p.devices).max().unwrap_or(1).max(2) as f64;
    let y_max = points().map(|p| p.speedup).fold(max_d, f64::max);
    let path = dir.join(format!("{slug}-scaling.svg"));
    let root = SVGBackend::new(&path, (900, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{slug}: strong scaling (speed-up over one device, higher is better)"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5..max_d + 0.5, 0.0..y_max * 1.1)?;
    chart
        .configure_mesh()
        .x_desc("devices")
        .y_desc("speed-up over the best one-device run")
        .x_labels(max_d as usize + 1)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let ideal = RGBColor(150, 150, 150);
    chart
        .draw_series(DashedLineSeries::new(
            [(1.0, 1.0), (max_d, max_d)],
            6,
            4,
            ideal.stroke_width(1),
        ))?
        .label("ideal")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], ideal.stroke_width(1)));
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let xy: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (p.devices as f64, p.speedup))
            .collect();
        chart
            .draw_series(LineSeries::new(xy.iter().copied(), color.stroke_width(2)))?
            .label(format!("{} {}", s.app, s.label))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart.draw_series(
            xy.iter()
                .map(|&(x, y)| Circle::new((x, y), 4, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    drop(chart);
    drop(root);
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::{GraphInfo, GraphSignature};

    /// GPU-like records (no GPU needed): a worker x fetch grid with a failed and a skipped
    /// cell, timelines, and original rows.
    fn synthetic() -> Vec<Record> {
        let info = GraphInfo {
            spec: "kron:22".into(),
            signature: GraphSignature {
                vertices: 4_194_304,
                edges: 120_000_000,
                max_degree: 100_000,
                avg_degree: 28.6,
            },
            source: 0,
            reached: 3_000_000,
            max_depth: 6,
        };
        let mut out = Vec::new();
        for (k, strategy) in ["persistent", "bsp"].into_iter().enumerate() {
            for (j, worker) in ["warp", "cta"].into_iter().enumerate() {
                for (i, fetch) in [8u32, 64, 256].into_iter().enumerate() {
                    let mut r = Record::new(&info, "atos", "bfs");
                    r.strategy = strategy.into();
                    r.worker = worker.into();
                    r.fetch = Some(fetch);
                    r.queue = "ring".into();
                    r.times_ms = vec![10.0 + (i * 7 + j * 3 + k * 5) as f64];
                    r.summarize_times();
                    if strategy == "persistent" {
                        r.timeline = Some(
                            (0..400)
                                .map(|t| {
                                    let x = t as f64 * 20.0;
                                    let done =
                                        3e6 * (1.0 - (-(x / (2000.0 + 500.0 * i as f64))).exp());
                                    (x, done as u64)
                                })
                                .collect(),
                        );
                    }
                    if (strategy, worker, fetch) == ("bsp", "warp", 256) {
                        r.fail("a run timed out".into(), None);
                    }
                    if (strategy, worker, fetch) == ("bsp", "cta", 256) {
                        r.skip("not applicable".into());
                    }
                    out.push(r);
                }
            }
        }
        for (bin, ms) in [("bfs_cta_64", Some(30.0)), ("bfs_warp", None)] {
            let mut r = Record::new(&info, "original", "bfs");
            r.binary = Some(bin.into());
            r.idle = Some(30000);
            r.strategy = "persistent".into();
            r.worker = "cta".into();
            r.times_ms = ms.into_iter().collect();
            r.summarize_times();
            r.status = if ms.is_some() {
                Status::Ok
            } else {
                Status::Failed
            };
            out.push(r);
        }
        out
    }

    /// Writes `recs`' plots as kron:22's into a fresh temporary folder named after `tag`;
    /// returns the folder and the files' names.
    fn plot_kron(recs: &[Record], tag: &str) -> (PathBuf, Vec<String>) {
        let dir = std::env::temp_dir().join(format!("atos-bench-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let graphs = vec![("kron:22".to_string(), "kron-22".to_string())];
        let files = write_all(&dir, &graphs, recs).unwrap();
        let names = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        (dir, names)
    }

    #[test]
    fn a_grid_sweep_gets_a_heatmap_per_block_count() {
        let mut recs = synthetic();
        // Persistent warp/8 again at 264 blocks: the rest launched 660.
        for r in recs.iter_mut().filter(|r| r.implementation == "atos") {
            r.grid = Some([660, 256]);
        }
        let mut again = recs[0].clone();
        assert_eq!(
            (again.strategy.as_str(), again.worker_fetch().as_str()),
            ("persistent", "warp/8")
        );
        again.grid = Some([264, 256]);
        again.times_ms = vec![4.0];
        again.summarize_times();
        recs.push(again);
        let (dir, names) = plot_kron(&recs, "grids");
        assert_eq!(
            names,
            [
                "kron-22-heatmap-persistent-grid660.svg",
                "kron-22-heatmap-persistent-grid264.svg",
                "kron-22-heatmap-bsp-grid660.svg",
                "kron-22-timeline.svg",
                "kron-22-best.svg"
            ]
        );
        let at264 =
            std::fs::read_to_string(dir.join("kron-22-heatmap-persistent-grid264.svg")).unwrap();
        assert!(
            at264.contains("264 blocks") && at264.contains("4.00 ms"),
            "{at264}"
        );
        let best = std::fs::read_to_string(dir.join("kron-22-best.svg")).unwrap();
        assert!(best.contains("warp/8 @264"), "{best}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plots_from_synthetic_records() {
        let (dir, names) = plot_kron(&synthetic(), "plots");
        assert_eq!(
            names,
            [
                "kron-22-heatmap-persistent.svg",
                "kron-22-heatmap-bsp.svg",
                "kron-22-timeline.svg",
                "kron-22-best.svg"
            ]
        );
        let heat = std::fs::read_to_string(dir.join("kron-22-heatmap-bsp.svg")).unwrap();
        assert!(heat.contains("FAILED") && heat.contains("skipped") && heat.contains("15.00 ms"));
        let timeline = std::fs::read_to_string(dir.join("kron-22-timeline.svg")).unwrap();
        assert!(
            timeline.contains("<polyline") || timeline.contains("<path"),
            "{timeline}"
        );
        assert!(timeline.contains("persistent cta/64 ring"));
        let best = std::fs::read_to_string(dir.join("kron-22-best.svg")).unwrap();
        assert!(best.contains("original bfs_cta_64") && !best.contains("original bfs_warp"));
        assert!(best.contains("10.00 ms") && best.contains("warp/8 ring"));
        if std::env::var_os("ATOS_KEEP_PLOTS").is_none() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// Spread records of the synthetic graph give a scaling plot: one line per way of
    /// spreading, and the ideal line.
    #[test]
    fn scaling_plot_from_spread_records() {
        let dir = std::env::temp_dir().join(format!("atos-bench-scaling-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut recs = synthetic();
        let one = recs[0].clone();
        for (d, agg, ms) in [
            (2, "eager", 6.0),
            (4, "eager", 3.5),
            (8, "eager", 2.0),
            (8, "1024:20", 2.5),
        ] {
            let mut r = one.clone();
            r.devices = Some(d);
            r.aggregation = Some(agg.into());
            r.partition = Some("vertices".into());
            r.timeline = None;
            r.times_ms = vec![ms];
            r.summarize_times();
            recs.push(r);
        }
        let graphs = vec![("kron:22".to_string(), "kron-22".to_string())];
        let files = write_all(&dir, &graphs, &recs).unwrap();
        assert_eq!(
            files.last().unwrap().file_name().unwrap(),
            "kron-22-scaling.svg"
        );
        let svg = std::fs::read_to_string(dir.join("kron-22-scaling.svg")).unwrap();
        for label in [
            "bfs p2p eager vertices",
            "bfs p2p 1024:20 vertices",
            "ideal",
            "devices",
        ] {
            assert!(svg.contains(label), "{label} missing");
        }
        if std::env::var_os("ATOS_KEEP_PLOTS").is_none() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("grid:4096x4096"), "grid-4096x4096");
        assert_eq!(slug("kron:22,w=7"), "kron-22-w-7");
        assert_eq!(
            slug("../shared/data/luxembourg_osm.edges"),
            "luxembourg_osm"
        );
        let specs = [
            "a/g.mtx".to_string(),
            "b/g.edges".to_string(),
            "kron:8".into(),
        ];
        assert_eq!(unique_slugs(&specs), vec!["g", "g-2", "kron-8"]);
    }
}
