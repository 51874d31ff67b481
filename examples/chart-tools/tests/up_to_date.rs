//! The checked-in outputs of the reference tool set (`generated/`, `docs/tools/`) are current.

use std::path::{Path, PathBuf};

use toolwright_manifest::manifest;
use toolwright_manifest::outputs::{self, OutputDirs};

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn checked_in_outputs_are_current() {
    let root = repository_root();
    let specs = manifest::load_dir(&root.join("examples/chart-tools/tools"))
        .specs
        .unwrap_or_else(|e| panic!("the reference manifests are invalid:\n{e}"));
    let dirs = OutputDirs {
        out: root.join("generated"),
        docs: root.join("docs/tools"),
        lock: Some(root.join("examples/chart-tools/tools/tools.lock")),
    };
    let rendered = outputs::render(&specs, &dirs, &[])
        .unwrap_or_else(|e| panic!("the reference tools do not export:\n{e}"));
    let stale = rendered.stale().expect("the outputs can be read");
    let names: Vec<String> = stale
        .iter()
        .map(|file| {
            let relative = file.path.strip_prefix(&root).unwrap_or(&file.path);
            format!("  {} ({})", relative.display(), file.staleness)
        })
        .collect();
    assert!(
        names.is_empty(),
        "the checked-in outputs are stale:\n{}\nrun `cargo tool-manifest generate` at the repository root to refresh them",
        names.join("\n")
    );
}

#[test]
fn every_reference_tool_has_the_safety_and_mode_of_the_spec() {
    use toolwright_manifest::{Mode, Safety};
    const READ_ONLY: &[&str] = &[
        "panes_list",
        "indicators_query",
        "instruments_query_name",
        "market_bars_query",
        "market_timeshare_query",
        "market_timeshare_range_query",
        "drawings_list",
        "comparisons_list",
        "settings_get",
        "web_search",
        "ask_user",
    ];
    const DESTRUCTIVE: &[&str] = &[
        "pane_create",
        "pane_replace_content",
        "panes_clear",
        "drawing_create",
        "drawing_update",
        "drawing_delete",
        "drawings_copy",
        "drawings_clear",
        "comparison_create",
        "comparisons_clear",
        "settings_update",
        "settings_reset",
        "code_interpreter",
    ];
    let root = repository_root();
    let specs = manifest::load_dir(&root.join("examples/chart-tools/tools"))
        .specs
        .unwrap_or_else(|e| panic!("the reference manifests are invalid:\n{e}"));
    assert_eq!(specs.len(), READ_ONLY.len() + DESTRUCTIVE.len());
    for spec in &specs {
        let expected_safety = if READ_ONLY.contains(&spec.name.as_str()) {
            Safety::ReadOnly
        } else {
            assert!(
                DESTRUCTIVE.contains(&spec.name.as_str()),
                "{} is not in the spec",
                spec.name
            );
            Safety::Destructive
        };
        // Reads are parallel; every write, `ask_user` and `code_interpreter` are sequential.
        let expected_mode = if expected_safety == Safety::Destructive || spec.name == "ask_user" {
            Mode::Sequential
        } else {
            Mode::Parallel
        };
        assert_eq!(spec.safety, expected_safety, "{}", spec.name);
        assert_eq!(spec.mode, expected_mode, "{}", spec.name);
    }
    // The same values reach tools.json and every docs page.
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("generated/tools.json")).expect("tools.json"),
    )
    .expect("tools.json is JSON");
    for (entry, spec) in index.as_array().expect("an array").iter().zip(&specs) {
        assert_eq!(entry["name"], spec.name.as_str());
        assert_eq!(entry["safety"], spec.safety.as_str());
        assert_eq!(entry["mode"], spec.mode.as_str());
        let page = std::fs::read_to_string(root.join(format!("docs/tools/{}.md", spec.name)))
            .expect("a docs page per tool");
        assert!(
            page.contains(spec.safety.as_str()),
            "{}: safety missing from its page",
            spec.name
        );
        assert!(
            page.contains(spec.mode.as_str()),
            "{}: mode missing from its page",
            spec.name
        );
    }
}
