//! `diff` on the reference tool set: a copy with `panes_list` made destructive, a required
//! property added to `drawing_create` and an error code removed reports exactly those three as
//! errors, each at its manifest's file and line (the command line's exit codes are tested by
//! `toolwright-manifest`'s own tests, on its fixtures).

use std::path::{Path, PathBuf};

use toolwright_manifest::diff::{self, Format, Policy, Severity};

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools")
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

fn line_of(path: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("read");
    text.lines()
        .position(|l| l.contains(needle))
        .expect("the line")
        + 1
}

#[test]
fn three_breaking_changes_of_the_reference_set_are_exactly_the_errors() {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = root.path().join("tools");
    std::fs::create_dir(&tools).expect("tools dir");
    for entry in std::fs::read_dir(reference()).expect("the reference manifests") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), tools.join(entry.file_name())).expect("copy");
    }
    edit(
        &tools.join("panes_list.toml"),
        "safety = \"read-only\"",
        "safety = \"destructive\"",
    );
    let drawing = tools.join("drawing_create.toml");
    edit(
        &drawing,
        "required = [\"pane_id\",",
        "required = [\"reason\", \"pane_id\",",
    );
    edit(
        &drawing,
        "[input.properties.",
        "[input.properties.reason]\ntype = \"string\"\ndescription = \"Why the drawing is made.\"\n\n[input.properties.",
    );
    let comparison = tools.join("comparison_create.toml");
    let text = std::fs::read_to_string(&comparison).expect("read");
    let start = text
        .find("[[errors]]\ncode = \"COMPARISON_EXISTS\"")
        .expect("the error entry");
    let end = text[start + 1..]
        .find("\n[[")
        .map_or(text.len(), |i| start + 1 + i + 1);
    std::fs::write(&comparison, format!("{}{}", &text[..start], &text[end..])).expect("write");

    let load = |dir: &Path| diff::load(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let (old, new) = diff::Side::pair(load(&reference()), load(&tools));
    let report = diff::diff(&old, &new, &Policy::default());
    let mut errors: Vec<(String, String, PathBuf, usize)> = report
        .changes
        .iter()
        .filter(|c| c.severity == Severity::Error)
        .map(|c| {
            let location = c.location.as_ref().expect("a location");
            (
                c.tool.clone(),
                c.kind.to_string(),
                location.file.clone(),
                location.line,
            )
        })
        .collect();
    errors.sort();
    assert_eq!(
        errors,
        [
            (
                "comparison_create".to_owned(),
                "error-code-removed".to_owned(),
                comparison.clone(),
                line_of(&comparison, "[[errors]]"),
            ),
            (
                "drawing_create".to_owned(),
                "required-added".to_owned(),
                drawing.clone(),
                line_of(&drawing, "[input.properties.reason]"),
            ),
            (
                "panes_list".to_owned(),
                "safety-loosened".to_owned(),
                tools.join("panes_list.toml"),
                line_of(&tools.join("panes_list.toml"), "safety = "),
            ),
        ],
        "{}",
        report.render(Format::Text)
    );
    assert!(report.fails(Severity::Error));
    let annotations = report.render(Format::Github);
    assert_eq!(
        annotations
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        3,
        "{annotations}"
    );
}
