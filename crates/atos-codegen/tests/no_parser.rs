//! The runtime links this crate: it must not pull a Rust parser into a user's binary. The syn
//! front end lives in `atos-frontend`, which only the proc macro uses.

#[test]
fn codegen_depends_on_no_rust_parser() {
    let manifest = include_str!("../Cargo.toml");
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("a [dependencies] table")
        .split("\n[")
        .next()
        .unwrap();
    for parser in ["syn", "quote", "proc-macro2"] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(parser)),
            "atos-codegen depends on `{parser}`: keep the syn front end in atos-frontend"
        );
    }
}
