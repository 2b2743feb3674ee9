//! docs/dsl.md names every operation device code may use, from the one table that declares it
//! (`atos_codegen::ops`): scalar methods, `Atomics` operations, float constants and the
//! reductions of a `lanes` loop. An operation added to a table without a word in the document
//! fails here.

use atos::codegen::ops::{ATOMICS, FLOAT_CONSTS, METHODS, REDUCTIONS};

fn dsl_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/dsl.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The code spans of `doc` (text between backquotes on one line; fenced blocks count as text).
fn code_spans(doc: &str) -> Vec<&str> {
    doc.lines()
        .flat_map(|l| l.split('`').skip(1).step_by(2))
        .collect()
}

/// Whether a code span holds `name` as a whole word (`fetch_min(i, v)` holds `fetch_min`, not
/// `fetch`).
fn names(spans: &[&str], name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    spans
        .iter()
        .any(|s| s.split(|c: char| !word(c)).any(|w| w == name))
}

#[test]
fn dsl_md_names_every_operation_of_the_tables() {
    let doc = dsl_md();
    let spans = code_spans(&doc);
    let mut missing = Vec::new();
    for name in METHODS.iter().map(|m| m.name) {
        if !names(&spans, name) {
            missing.push(format!("scalar method `{name}`"));
        }
    }
    for name in ATOMICS.iter().map(|a| a.name) {
        if !names(&spans, name) {
            missing.push(format!("`Atomics` operation `{name}`"));
        }
    }
    for name in FLOAT_CONSTS.iter().map(|c| c.name) {
        if !names(&spans, name) {
            missing.push(format!("float constant `{name}`"));
        }
    }
    for r in REDUCTIONS {
        // `x = x.min(e)` is written so; `x += e` as its operator.
        if !spans.iter().any(|s| s.contains(r.rust)) {
            missing.push(format!("reduction `{}`", r.rust));
        }
    }
    assert!(missing.is_empty(), "docs/dsl.md does not name: {missing:?}");
    // The check can fail: a name no table declares is not found (and renaming `count_ones`,
    // `compare_and_swap` and `MIN_POSITIVE` in the document, or dropping `x ^= e`, failed it).
    assert!(!names(&spans, "fetch_nand"));
}
