//! Compile errors of `#[tool]`: one file per mistake, the expected message checked in beside it.
//! Refresh the `.stderr` files with `TRYBUILD=overwrite cargo test -p toolwright-tests --test macro_ui`,
//! then read every one.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
