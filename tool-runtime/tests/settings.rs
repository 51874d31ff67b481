//! The persisted choice of disabled tools (SPEC section 2).

mod registry_tools;

use std::fs;

use registry_tools::*;
use serde_json::json;
use toolwright_runtime::RunPolicy;
use toolwright_runtime::settings::{SettingsError, ToolSettings};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_missing_file_is_first_use_with_every_tool_enabled() {
    let dir = dir();
    let path = dir.path().join("tools.json");
    let settings = ToolSettings::load(&path).expect("a missing file is fine");
    assert!(settings.disabled().is_empty());
    assert!(settings.is_enabled("drawing_create"));
    assert!(!path.exists(), "loading does not create the file");
    let registry = chart_registry();
    assert_eq!(
        registry.resolve(&settings.to_policy()).len(),
        registry.len()
    );
}

#[test]
fn choices_persist_sorted_and_atomically() {
    let dir = dir();
    let path = dir.path().join("tools.json");
    let mut settings = ToolSettings::load(&path).expect("first use");
    assert!(settings.set_enabled("web_search", false));
    assert!(settings.set_enabled("drawing_create", false));
    assert!(
        !settings.set_enabled("drawing_create", false),
        "already disabled"
    );
    assert!(!settings.set_enabled("panes_list", true), "already enabled");
    settings.save().expect("saved");
    assert_eq!(
        fs::read_to_string(&path).expect("written"),
        "{\n  \"disabledTools\": [\n    \"drawing_create\",\n    \"web_search\"\n  ]\n}\n"
    );
    assert_eq!(
        files_in(dir.path()),
        ["tools.json"],
        "no temporary file is left behind"
    );

    let mut reloaded = ToolSettings::load(&path).expect("reloads");
    assert_eq!(reloaded, settings);
    assert!(reloaded.set_enabled("web_search", true));
    reloaded.save().expect("saved again");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&fs::read_to_string(&path).expect("written"))
            .expect("json"),
        json!({"disabledTools": ["drawing_create"]})
    );
}

#[test]
fn disabled_tools_leave_the_run_and_are_refused() {
    let dir = dir();
    let path = dir.path().join("tools.json");
    fs::write(
        &path,
        r#"{"disabledTools": ["panes_list", "a_tool_that_was_removed"]}"#,
    )
    .expect("write");
    let settings = ToolSettings::load(&path).expect("valid");
    let registry = chart_registry();
    let mut policy = RunPolicy::read_only();
    settings.apply(&mut policy);
    assert!(policy.is_read_only(), "applying keeps the run's mode");
    let names: Vec<&str> = registry.resolve(&policy).iter().map(|m| m.name).collect();
    assert!(!names.contains(&"panes_list"));
    let mut chart = Chart::new();
    let result =
        runtime().block_on(registry.execute(&policy, &mut chart, "panes_list", &json!({})));
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));

    // Names of tools that no longer exist are kept when saving.
    settings.save().expect("saved");
    let reloaded = ToolSettings::load(&path).expect("reloads");
    assert!(reloaded.disabled().contains("a_tool_that_was_removed"));
}

#[test]
fn a_corrupt_file_is_an_error_naming_it_and_is_never_overwritten() {
    let dir = dir();
    let path = dir.path().join("tools.json");
    for corrupt in [
        "{\"disabledTools\": [\"a\",",
        "{\"disabledTools\": \"a\"}",
        "{\"disabled\": []}",
        "",
        "[]",
    ] {
        fs::write(&path, corrupt).expect("write");
        let error = ToolSettings::load(&path).expect_err("corrupt");
        let text = error.to_string();
        assert!(matches!(error, SettingsError::Corrupt { .. }), "{text}");
        assert!(text.contains(&format!("`{}`", path.display())), "{text}");
        assert!(
            text.contains("fix or remove the file (it was left untouched)"),
            "{text}"
        );
        assert_eq!(fs::read_to_string(&path).expect("still there"), corrupt);
    }
    fs::write(&path, "{\"disabledTools\": [\"a\",").expect("write");
    let error = ToolSettings::load(&path).expect_err("corrupt");
    assert!(
        error.to_string().starts_with(&format!(
            "the tool settings `{}` are corrupt at line 1, column 23: ",
            path.display()
        )),
        "{error}"
    );

    // Settings loaded earlier refuse to replace a file that became corrupt since.
    let good = dir.path().join("good.json");
    let mut settings = ToolSettings::load(&good).expect("first use");
    settings.set_enabled("web_search", false);
    fs::write(&good, "not json").expect("write");
    assert!(matches!(
        settings.save(),
        Err(SettingsError::Corrupt { .. })
    ));
    assert_eq!(fs::read_to_string(&good).expect("still there"), "not json");
}

#[test]
fn an_unwritable_location_is_a_clear_error() {
    let dir = dir();
    let path = dir.path().join("missing_dir").join("tools.json");
    let mut settings = ToolSettings::load(&path).expect("first use");
    settings.set_enabled("web_search", false);
    let error = settings.save().expect_err("the directory does not exist");
    assert!(matches!(error, SettingsError::Write { .. }));
    assert!(error.to_string().starts_with(&format!(
        "cannot write the tool settings `{}`: ",
        path.display()
    )));
}
