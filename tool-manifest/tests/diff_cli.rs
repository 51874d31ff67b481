//! `tool-manifest diff` and the lock file, as a user runs them: on copies of the crate's fixture
//! manifests, against a git revision of a temporary repository, and `check` when the lock is
//! stale. (The same three breaking changes of the reference tool set are diffed by the chart
//! example's own tests, which hold those manifests.)
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixture manifests of this crate.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools")
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-manifest"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run the binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `root/tools` holding a copy of the fixture manifests (and `root/tool-manifest.toml`), with a
/// second declared error of `web_search`, so that one can be removed and the other pointed at.
fn copy_of_reference(root: &Path) -> PathBuf {
    let tools = root.join("tools");
    std::fs::create_dir_all(&tools).expect("tools dir");
    for entry in std::fs::read_dir(fixtures()).expect("the fixture manifests") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), tools.join(entry.file_name())).expect("copy");
    }
    let search = tools.join("web_search.toml");
    let text = std::fs::read_to_string(&search).expect("read");
    std::fs::write(
        &search,
        format!(
            "{text}\n[[errors]]\ncode = \"SEARCH_QUOTA_EXCEEDED\"\nmessage = \"Too many searches today.\"\nretryable = false\nrecommended_action = \"Answer without searching.\"\n"
        ),
    )
    .expect("write");
    std::fs::write(
        root.join("tool-manifest.toml"),
        "manifests = \"tools\"\nout = \"generated\"\ndocs = \"docs/tools\"\n",
    )
    .expect("config");
    tools
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// Three breaking changes: `panes_list` made destructive, a required property added to
/// `drawing_create`, an error code removed (`SEARCH_UNAVAILABLE` of `web_search`).
fn break_three(tools: &Path) {
    edit(
        &tools.join("panes_list.toml"),
        "safety = \"read-only\"",
        "safety = \"destructive\"",
    );
    let drawing = tools.join("drawing_create.toml");
    let text = std::fs::read_to_string(&drawing).expect("read");
    let required = text
        .lines()
        .find(|l| l.starts_with("required = ["))
        .expect("a required list")
        .to_owned();
    edit(
        &drawing,
        &required,
        &required.replacen("required = [", "required = [\"reason\", ", 1),
    );
    edit(
        &drawing,
        "[input.properties.",
        "[input.properties.reason]\ntype = \"string\"\ndescription = \"Why the drawing is made.\"\n\n[input.properties.",
    );
    let search = tools.join("web_search.toml");
    let text = std::fs::read_to_string(&search).expect("read");
    let start = text
        .find("[[errors]]\ncode = \"SEARCH_UNAVAILABLE\"")
        .expect("the error entry");
    let end = text[start + 1..]
        .find("\n[[")
        .map_or(text.len(), |i| start + 1 + i + 1);
    std::fs::write(&search, format!("{}{}", &text[..start], &text[end..])).expect("write");
}

#[test]
fn three_breaking_changes_are_exactly_the_errors() {
    let root = tempfile::tempdir().expect("temp dir");
    copy_of_reference(&root.path().join("old"));
    let tools = copy_of_reference(root.path());
    break_three(&tools);
    let old = "old/tools";

    let output = run(root.path(), &["diff", old, "tools", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let errors: Vec<(String, String, String, String)> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["severity"] == "error")
        .map(|c| {
            (
                c["tool"].as_str().unwrap_or("").to_owned(),
                c["kind"].as_str().unwrap_or("").to_owned(),
                c["location"]["file"].as_str().unwrap_or("").to_owned(),
                c["location"]["line"].to_string(),
            )
        })
        .collect();
    let line_of = |file: &str, needle: &str| {
        let text = std::fs::read_to_string(tools.join(file)).expect("read");
        (text
            .lines()
            .position(|l| l.contains(needle))
            .expect("the line")
            + 1)
        .to_string()
    };
    let expected = vec![
        (
            "drawing_create".to_owned(),
            "required-added".to_owned(),
            "tools/drawing_create.toml".to_owned(),
            line_of("drawing_create.toml", "[input.properties.reason]"),
        ),
        (
            "panes_list".to_owned(),
            "safety-loosened".to_owned(),
            "tools/panes_list.toml".to_owned(),
            line_of("panes_list.toml", "safety = "),
        ),
        (
            "web_search".to_owned(),
            "error-code-removed".to_owned(),
            "tools/web_search.toml".to_owned(),
            line_of("web_search.toml", "[[errors]]"),
        ),
    ];
    let mut sorted = errors.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "{report:#}");

    // `--fail-on error` fails; the annotations name each file and line.
    let output = run(
        root.path(),
        &[
            "diff",
            old,
            "tools",
            "--format",
            "github",
            "--fail-on",
            "error",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let annotations = text(&output.stdout);
    for (tool, kind, file, line) in &expected {
        let wanted = format!("::error file={file},line={line},title={tool}%3A {kind}::");
        assert!(annotations.contains(&wanted), "{wanted} in\n{annotations}");
    }
    assert_eq!(
        annotations
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        3,
        "{annotations}"
    );

    // Text, worst first: the three tools with errors (the fixtures' only tools) come first.
    let output = run(root.path(), &["diff", old, "tools"]);
    let shown = text(&output.stdout);
    let first: Vec<&str> = shown
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .take(3)
        .collect();
    let mut first_sorted = first.clone();
    first_sorted.sort();
    assert_eq!(
        first_sorted,
        ["drawing_create", "panes_list", "web_search"],
        "{shown}"
    );
    // No change, no failure.
    let output = run(root.path(), &["diff", old, old, "--fail-on", "warning"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stdout), "no changes\n");
}

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        text(&output.stderr)
    );
}

#[test]
fn against_reads_the_manifests_of_a_git_revision_without_a_checkout() {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = copy_of_reference(root.path());
    git(root.path(), &["init", "-q", "-b", "main"]);
    git(root.path(), &["add", "."]);
    git(root.path(), &["commit", "-q", "-m", "tools"]);
    edit(
        &tools.join("panes_list.toml"),
        "safety = \"read-only\"",
        "safety = \"destructive\"",
    );
    let output = run(
        root.path(),
        &["diff", "--against", "main", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let kinds: Vec<&str> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["safety-loosened"], "{report:#}");
    // The working tree is untouched.
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(root.path())
        .output()
        .expect("git status");
    assert_eq!(text(&status.stdout).trim(), "M tools/panes_list.toml");
    // From a subdirectory, and with a revision that does not exist.
    let output = run(&tools, &["diff", "--against", "HEAD", "--manifests", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("safety-loosened"));
    let output = run(root.path(), &["diff", "--against", "no-such-branch"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("at `no-such-branch`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn check_names_the_tools_whose_definitions_changed_and_the_lock_did_not() {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = copy_of_reference(root.path());
    std::fs::remove_file(tools.join("tools.lock")).ok();
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(tools.join("tools.lock").is_file());
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // Reformatting a manifest changes no digest.
    edit(
        &tools.join("panes_list.toml"),
        "safety = \"read-only\"",
        "safety   =   \"read-only\"   # reads",
    );
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // A definition changed and nothing regenerated: the lock names the tool.
    edit(
        &tools.join("panes_list.toml"),
        "\"read-only\"",
        "\"destructive\"",
    );
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("tools/tools.lock (out of date): the definition of `panes_list` changed and the lock did not"),
        "{stderr}"
    );
    // The lock is a side of a diff too.
    let output = run(
        root.path(),
        &["diff", "tools/tools.lock", "tools", "--fail-on", "error"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("safety-loosened"));
    // `lock` in the config moves it.
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        "manifests = \"tools\"\nout = \"generated\"\ndocs = \"docs/tools\"\nlock = \"tools.lock\"\n",
    )
    .expect("config");
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(root.path().join("tools.lock").is_file());
}

#[test]
fn a_side_that_cannot_be_read_says_why() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::write(root.path().join("broken.json"), "{\"tools\": 3}").expect("write");
    std::fs::write(root.path().join("text.json"), "not json").expect("write");
    std::fs::write(
        root.path().join("ok.json"),
        "{\"tools\": [{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}}]}",
    )
    .expect("write");
    for (file, says) in [
        ("broken.json", "tools: expected an array, found a number"),
        ("text.json", "neither a directory of manifests nor JSON"),
        ("missing.json", "cannot read `missing.json`"),
    ] {
        let output = run(root.path(), &["diff", file, "ok.json"]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(
            text(&output.stderr).contains(says),
            "{file}: {}",
            text(&output.stderr)
        );
    }
    // Two MCP `tools/list` files of any server need no config file.
    std::fs::write(
        root.path().join("new.json"),
        "[{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}, \"annotations\": {\"readOnlyHint\": true}}]",
    )
    .expect("write");
    let output = run(root.path(), &["diff", "ok.json", "new.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("safety-tightened"));
    let output = run(
        root.path(),
        &["diff", "ok.json", "new.json", "--fail-on", "info"],
    );
    assert_eq!(output.status.code(), Some(2));
}

/// Inserts top-level keys after the `name` line of a manifest.
fn declare(path: &Path, keys: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    let line = text.lines().next().expect("a first line").to_owned();
    std::fs::write(path, text.replacen(&line, &format!("{line}\n{keys}"), 1)).expect("write");
}

#[test]
fn declared_versions_and_deprecations_decide_what_a_removal_or_a_break_costs() {
    let root = tempfile::tempdir().expect("temp dir");
    let old_root = root.path().join("old");
    let new_root = root.path().join("new");
    let old = copy_of_reference(&old_root);
    let new = copy_of_reference(&new_root);
    for tools in [&old, &new] {
        std::fs::remove_file(tools.join("tools.lock")).ok();
    }
    declare(&old.join("panes_list.toml"), "version = \"1.4.0\"");
    declare(&new.join("panes_list.toml"), "version = \"1.5.0\"");
    edit(
        &new.join("panes_list.toml"),
        "safety = \"read-only\"",
        "safety = \"destructive\"",
    );
    // `drawing_create` deprecated with a sunset long past, `web_search` with one to come; both
    // removed.
    declare(
        &old.join("drawing_create.toml"),
        "deprecated = { since = \"2020-01-01\", sunset = \"2021-01-01\" }",
    );
    declare(
        &old.join("web_search.toml"),
        "deprecated = { since = \"2026-01-01\", sunset = \"2999-12-31\" }",
    );
    std::fs::remove_file(new.join("drawing_create.toml")).expect("remove");
    std::fs::remove_file(new.join("web_search.toml")).expect("remove");
    let output = run(
        root.path(),
        &["diff", "old/tools", "new/tools", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let found: Vec<(String, String, String)> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap_or("").to_owned(),
                c["kind"].as_str().unwrap_or("").to_owned(),
                c["severity"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let has = |tool: &str, kind: &str, severity: &str| {
        found.contains(&(tool.to_owned(), kind.to_owned(), severity.to_owned()))
    };
    assert!(
        has("panes_list", "major-version-not-bumped", "error"),
        "{found:?}"
    );
    assert!(has("drawing_create", "tool-removed", "info"), "{found:?}");
    assert!(has("web_search", "tool-removed", "error"), "{found:?}");
    // The `[diff]` table accepts the loosening of one tool, and says so.
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        "manifests = \"new/tools\"\n\n[diff]\naccept = [{ tool = \"panes_list\", kind = \"safety-loosened\", reason = \"it now clears what it lists\" }]\n",
    )
    .expect("config");
    let output = run(root.path(), &["diff", "old/tools"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("accepted by `[diff] accept`: it now clears what it lists"),
        "{}",
        text(&output.stdout)
    );
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        "manifests = \"new/tools\"\n\n[diff]\nseverity = { safety-loosened = \"info\" }\n",
    )
    .expect("config");
    let output = run(root.path(), &["diff", "old/tools"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("cannot be made info for every tool"),
        "{}",
        text(&output.stderr)
    );
}
