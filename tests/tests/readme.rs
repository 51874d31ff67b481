//! The repository's README shows what the crates do: its blocks are the fixtures their tests
//! check the crates against.

use std::path::Path;

/// A file of the repository.
fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first block of `kind` after `heading` in the README.
fn readme_block(heading: &str, kind: &str) -> String {
    read("README.md")
        .split(heading)
        .nth(1)
        .and_then(|section| section.split(&format!("```{kind}\n")).nth(1))
        .and_then(|block| block.split("```").next())
        .unwrap_or_else(|| panic!("a {kind} block after {heading:?}"))
        .to_owned()
}

/// The import example is what `tool-manifest import` writes and reports (the generator's
/// `cli` tests compare the command with these fixtures).
#[test]
fn the_readme_import_example_is_the_import_fixture() {
    assert_eq!(
        readme_block("### Bring existing tools", "text"),
        read("tool-manifest/tests/fixtures/import/report.txt")
    );
    assert_eq!(
        readme_block("### Bring existing tools", "toml"),
        read("tool-manifest/tests/fixtures/import/get_issue.toml")
    );
}
