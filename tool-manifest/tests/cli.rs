//! The `tool-manifest` binary: exit codes 0 / 1 / 2, run in a temporary repository.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &str = "tests/fixtures/tools";
const CONFIG: &str = "manifests = \"tools\"\nout = \"generated\"\ndocs = \"docs/tools\"\n";

/// A temporary repository with the fixture manifests in `tools/` and a config file.
fn repository() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = root.path().join("tools");
    std::fs::create_dir(&tools).expect("tools dir");
    for entry in std::fs::read_dir(FIXTURES).expect("fixtures") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), tools.join(entry.file_name())).expect("copy");
    }
    std::fs::write(root.path().join("tool-manifest.toml"), CONFIG).expect("config");
    root
}

fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-manifest"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("run the binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir` with its content, sorted by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let content = std::fs::read_to_string(&path).expect("read");
                files.push((
                    path.strip_prefix(dir).expect("inside").to_path_buf(),
                    content,
                ));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn generate_writes_every_output_then_check_passes() {
    let root = repository();
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let printed = stdout(&output);
    for file in [
        "generated/tools.json",
        "generated/schemas/drawing_create.json",
        "generated/schemas/panes_list.json",
        "generated/schemas/web_search.json",
        "docs/tools/panes_list.md",
    ] {
        assert!(
            printed.contains(&format!("wrote {file}\n")),
            "{file} in:\n{printed}"
        );
        assert!(root.path().join(file).is_file(), "{file} exists");
    }

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("up to date"));
}

#[test]
fn generate_twice_changes_nothing() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    let before = snapshot(root.path());
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).starts_with("up to date"),
        "{}",
        stdout(&output)
    );
    assert!(!stdout(&output).contains("wrote"));
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn check_before_generate_names_every_missing_file() {
    let root = repository();
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    assert!(
        printed.contains("stale: generated/tools.json (missing)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("stale: generated/schemas/web_search.json (missing)\n"),
        "{printed}"
    );
    assert!(
        printed.ends_with("run `cargo tool-manifest generate` to refresh\n"),
        "{printed}"
    );
    assert!(
        !root.path().join("generated").exists(),
        "check writes nothing"
    );
}

#[test]
fn changing_a_safety_makes_check_name_the_stale_file() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    let manifest = root.path().join("tools/web_search.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(
        &manifest,
        text.replace("safety = \"read-only\"", "safety = \"destructive\""),
    )
    .expect("edit");

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    let lines: Vec<&str> = printed.lines().collect();
    // The docs pages may show the safety too: every stale file is named, the index among them,
    // the schemas (which do not hold the safety) are not.
    assert!(
        lines.contains(&"stale: generated/tools.json (out of date)"),
        "{printed}"
    );
    let (last, stale) = lines.split_last().expect("lines");
    assert_eq!(*last, "run `cargo tool-manifest generate` to refresh");
    assert!(
        stale
            .iter()
            .all(|l| l.starts_with("stale: ") && l.ends_with(" (out of date)")),
        "{printed}"
    );
    assert!(!printed.contains("schemas/"), "{printed}");

    let output = run(root.path(), &["generate"]);
    let written: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    let expected: Vec<String> = stale
        .iter()
        .map(|l| {
            format!(
                "wrote {}",
                l.trim_start_matches("stale: ")
                    .trim_end_matches(" (out of date)")
            )
        })
        .collect();
    assert_eq!(
        written, expected,
        "generate rewrites exactly the stale files"
    );
    assert_eq!(run(root.path(), &["check"]).status.code(), Some(0));
    let index = std::fs::read_to_string(root.path().join("generated/tools.json")).expect("read");
    let index: serde_json::Value = serde_json::from_str(&index).expect("JSON");
    assert_eq!(index[2]["safety"], "destructive");
}

#[test]
fn a_removed_tool_leaves_stale_files_that_generate_removes() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    std::fs::remove_file(root.path().join("tools/web_search.toml")).expect("remove");

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    assert!(
        printed.contains("stale: docs/tools/web_search.md (no longer generated)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("stale: generated/schemas/web_search.json (no longer generated)\n"),
        "{printed}"
    );

    let output = run(root.path(), &["generate"]);
    assert!(stdout(&output).contains("removed generated/schemas/web_search.json\n"));
    assert!(
        !root
            .path()
            .join("generated/schemas/web_search.json")
            .exists()
    );
    assert_eq!(run(root.path(), &["check"]).status.code(), Some(0));
}

#[test]
fn an_invalid_manifest_exits_2_with_every_located_error() {
    let root = repository();
    let manifest = root.path().join("tools/panes_list.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(
        &manifest,
        text.replace("mode = \"parallel\"", "mode = \"serial\"\nsaftey = 1"),
    )
    .expect("edit");

    for command in ["check", "generate"] {
        let output = run(root.path(), &[command]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        let file = Path::new("tools")
            .join("panes_list.toml")
            .display()
            .to_string();
        assert_eq!(
            stderr(&output),
            format!(
                "error: {file}:5:8: expected `mode` to be \"parallel\" or \"sequential\", found \"serial\"\n\
                 error: {file}:6:1: unknown key `saftey`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `input`, `output`, `errors`, `examples`; did you mean `safety`?\n\
                 2 errors\n"
            ),
            "{command}"
        );
    }
    assert!(
        !root.path().join("generated").exists(),
        "nothing is written from invalid manifests"
    );
}

#[test]
fn flags_override_the_config_file() {
    let root = repository();
    let output = run(
        root.path(),
        &["generate", "--out", "elsewhere", "--docs", "pages"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(root.path().join("elsewhere/tools.json").is_file());
    assert!(root.path().join("pages/panes_list.md").is_file());
    assert!(!root.path().join("generated").exists());

    let output = run(root.path(), &["check"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the config's directories were not generated"
    );
    let output = run(
        root.path(),
        &["check", "--out", "elsewhere", "--docs", "pages"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn the_refresh_command_repeats_the_flags_given() {
    let root = repository();
    let output = run(root.path(), &["check", "--out", "elsewhere"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .ends_with("run `cargo tool-manifest generate --out elsewhere` to refresh\n")
    );
}

#[test]
fn a_bad_config_file_is_located() {
    let root = repository();
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        "manifests = \"tools\"\noutput = \"generated\"\ndocs = 3\n",
    )
    .expect("config");
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: tool-manifest.toml:2:1: unknown key `output`, expected one of `manifests`, `out`, `docs`\n\
         error: tool-manifest.toml:3:8: expected `docs` to be a directory path (a non-empty string), found an integer\n\
         2 errors\n"
    );
}

#[test]
fn without_a_config_file_the_flags_are_required() {
    let root = repository();
    std::fs::remove_file(root.path().join("tool-manifest.toml")).expect("remove config");
    let output = run(root.path(), &["check", "--manifests", "tools"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: no `tool-manifest.toml` in the current directory, expected it or the flags `--out`, `--docs`\n"
    );
    let output = run(
        root.path(),
        &[
            "generate",
            "--manifests",
            "tools",
            "--out",
            "generated",
            "--docs",
            "docs/tools",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_missing_manifest_directory_exits_2() {
    let root = repository();
    let output = run(root.path(), &["check", "--manifests", "nowhere"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: nowhere: the manifest directory does not exist\n"
    );
}
