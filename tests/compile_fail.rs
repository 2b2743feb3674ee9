//! Every rejected construct gets a spanned, prescriptive error (goldens in tests/ui/*.stderr).

#[test]
fn rejected_constructs_have_clear_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
