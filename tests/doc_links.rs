//! Every relative link of README.md and docs/ (results included) reaches a file of the
//! repository, and every link to a heading (`#anchor`, `file.md#anchor`) reaches a heading of
//! that file, named as GitHub names them. Links inside fenced code blocks are not links.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, docs/*.md and docs/results/*.md.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    for dir in ["docs", "docs/results"] {
        let mut mds: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        mds.sort();
        out.extend(mds);
    }
    out
}

/// The lines of `text` outside fenced code blocks, with their line numbers (from 1).
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// The targets of the `[text](target)` links of `line`.
fn targets(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &line[i + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .filter(|t| !t.is_empty() && !t.contains(' '))
        .collect()
}

/// A heading's anchor as GitHub makes it: lower case, spaces to hyphens, every other character
/// but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    prose(&text)
        .into_iter()
        .filter_map(|(_, l)| l.strip_prefix('#'))
        .map(|h| anchor(h.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in prose(&text) {
            for target in targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, fragment) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target, None),
                };
                let path = if file.is_empty() {
                    doc.clone()
                } else {
                    doc.parent().unwrap().join(file)
                };
                if !path.exists() {
                    broken.push(format!("{name}:{n}: {target}: no such file"));
                } else if let Some(a) = fragment
                    && path.extension().is_some_and(|e| e == "md")
                    && !anchors(&path).iter().any(|h| h == a)
                {
                    broken.push(format!("{name}:{n}: {target}: no such heading"));
                }
            }
        }
    }
    // 434 on 2026-12-07.
    assert!(
        checked > 300,
        "only {checked} links read: is the parser still reading them?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_named_as_github_names_them() {
    assert_eq!(
        anchor("The queue (`queue.cuh`, `cpu/queue.rs`)"),
        "the-queue-queuecuh-cpuqueuers"
    );
    assert_eq!(
        anchor("Rust semantics, kept on the GPU"),
        "rust-semantics-kept-on-the-gpu"
    );
    assert_eq!(
        anchor("Inline tasks (`#[atos::task(inline)]`)"),
        "inline-tasks-atostaskinline"
    );
}
