//! `atos report`: the bench's tables and plots again, from the JSON lines `atos bench --out`
//! wrote, without running anything: a run's records fetched back from a GPU machine, or the
//! records of several calls side by side. Each file is one run: its strong-scaling speed-ups
//! compare records of that file only, as the bench does, never a time from another file.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::bench::record::{Record, SCHEMA};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// JSON-lines files written by `atos bench --out`, each reported on its own (a file is one
    /// run: speed-ups compare its records only).
    #[arg(required = true, value_name = "RECORDS.jsonl")]
    files: Vec<PathBuf>,
    /// Also write the bench's SVG plots of each file into this folder (into a subfolder named
    /// after the file and its folder, `call1-records`, when several files are given).
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
}

/// What can stop a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}:{line}: not a bench record ({source}); give the files `atos bench --out` writes"
    )]
    Parse {
        path: PathBuf,
        line: usize,
        source: serde_json::Error,
    },
    #[error(
        "{path}:{line}: a record of schema {found}; this atos reads schema {SCHEMA} (report it with the atos that wrote it)"
    )]
    Schema {
        path: PathBuf,
        line: usize,
        found: u64,
    },
    #[error("{path}: no records in it")]
    Empty { path: PathBuf },
    #[error("{0}")]
    Plots(String),
}

/// Every record of a JSON-lines file (blank lines skipped), or the first line that is not one.
pub fn read_records(path: &Path) -> Result<Vec<Record>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.into(),
        source,
    })?;
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |source| ReportError::Parse {
            path: path.into(),
            line: i + 1,
            source,
        };
        // The schema first, so that a record of another version says so rather than naming
        // whichever field changed.
        let value: serde_json::Value = serde_json::from_str(line).map_err(at)?;
        match value.get("schema").and_then(serde_json::Value::as_u64) {
            Some(found) if found != u64::from(SCHEMA) => {
                return Err(ReportError::Schema {
                    path: path.into(),
                    line: i + 1,
                    found,
                });
            }
            _ => records.push(serde_json::from_value(value).map_err(at)?),
        }
    }
    if records.is_empty() {
        return Err(ReportError::Empty { path: path.into() });
    }
    Ok(records)
}

pub fn run(args: &ReportArgs) -> Result<(), ReportError> {
    let runs: Vec<(PathBuf, Vec<Record>)> = args
        .files
        .iter()
        .map(|f| read_records(f).map(|r| (f.clone(), r)))
        .collect::<Result<_, _>>()?;
    // Each file's plot folder when there are several: its name, with its folder's in front
    // (`call1-records`), made unique as graph slugs are.
    let folders = crate::bench::graph_slugs(
        &args
            .files
            .iter()
            .map(|f| {
                let stem = f.file_stem().unwrap_or(f.as_os_str()).to_string_lossy();
                match f.parent().and_then(Path::file_name) {
                    Some(parent) => format!("{}-{stem}", parent.to_string_lossy()),
                    None => stem.into_owned(),
                }
            })
            .collect::<Vec<_>>(),
    );
    for (k, (path, records)) in runs.iter().enumerate() {
        if k > 0 {
            println!();
        }
        let mut devices: Vec<&str> = Vec::new();
        for r in records {
            if !devices.contains(&r.device.as_str()) {
                devices.push(&r.device);
            }
        }
        println!(
            "== {} ({} records; {})",
            path.display(),
            records.len(),
            devices.join(", ")
        );
        let mut graphs: Vec<String> = Vec::new();
        for r in records {
            if !graphs.contains(&r.graph) {
                graphs.push(r.graph.clone());
            }
        }
        let slugs = crate::bench::graph_slugs(&graphs);
        crate::bench::summarize(records, &graphs, &slugs);
        if let Some(dir) = &args.plots {
            let dir = if runs.len() > 1 {
                dir.join(&folders[k])
            } else {
                dir.clone()
            };
            let files = crate::bench::write_plots(&dir, records, &graphs, &slugs)
                .map_err(ReportError::Plots)?;
            println!("{} plots in {}", files.len(), dir.display());
        }
    }
    Ok(())
}
