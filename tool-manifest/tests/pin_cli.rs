//! `tool-manifest import --from-mcp` and `diff --against-live` against a real MCP server,
//! `mcp-server-time` (PyPI): its tools' descriptions name the local time zone it is started
//! with, so starting it with another one is a real change of its definitions.
//!
//! Skipped where the server is not installed, except in CI (`CI` set), where `.ci/run` installs
//! it and a missing one is a failure.
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::{Command, Output};

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

fn server_missing() -> bool {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("mcp-server-time").is_file())
    });
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs mcp-server-time (pip install mcp-server-time)"
        );
        eprintln!("skipped: mcp-server-time is not installed (pip install mcp-server-time)");
    }
    !found
}

const IMPORT: &[&str] = &[
    "import",
    "--from-mcp",
    "--server",
    "time",
    "--out",
    "pinned",
    "--",
    "mcp-server-time",
    "--local-timezone",
    "UTC",
];

/// Declares `safety = "read-only"` where `import` left it for the author.
fn declare_read_only(manifest: &Path) {
    let text = std::fs::read_to_string(manifest).expect("the manifest");
    let declared = text
        .replace("# safety = \"read-only\"", "safety = \"read-only\"")
        .replace("# mode = \"parallel\"", "mode = \"parallel\"");
    assert_ne!(declared, text, "the suggestion is read-only: {text}");
    std::fs::write(manifest, declared).expect("the manifest");
}

#[test]
fn a_live_servers_tools_are_pinned_and_their_safety_is_left_to_the_author() {
    if server_missing() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let imported = run(dir.path(), IMPORT);
    let stderr = text(&imported.stderr);
    assert!(imported.status.success(), "{stderr}");
    assert!(
        stderr.contains("imported 2 tools into pinned (2 need review)"),
        "{stderr}"
    );
    let pinned = dir.path().join("pinned");
    let manifest = std::fs::read_to_string(pinned.join("get_current_time.toml")).expect("written");
    assert!(
        manifest.contains("# the upstream's hints (not trusted): readOnlyHint true"),
        "{manifest}"
    );
    assert!(
        !manifest.lines().any(|l| l.starts_with("safety")),
        "{manifest}"
    );
    assert!(manifest.contains("[upstream]\nserver = \"time\"\ncommand = [\"mcp-server-time\", \"--local-timezone\", \"UTC\"]\ntool = \"get_current_time\"\ndigest = \"sha256:"), "{manifest}");
    let definition: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pinned.join("get_current_time.upstream.json")).expect("the pin"),
    )
    .expect("JSON");
    assert_eq!(definition["name"], "get_current_time");

    // Nothing loads until the author declares what the tools may do.
    let exported = run(
        dir.path(),
        &["export", "--dialect", "mcp", "--manifests", "pinned"],
    );
    let stderr = text(&exported.stderr);
    assert_eq!(exported.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("missing key `safety`")
            && stderr.contains("the upstream's hints are not trusted"),
        "{stderr}"
    );
    for tool in ["get_current_time", "convert_time"] {
        declare_read_only(&pinned.join(format!("{tool}.toml")));
    }
    let exported = run(
        dir.path(),
        &["export", "--dialect", "mcp", "--manifests", "pinned"],
    );
    assert!(exported.status.success(), "{}", text(&exported.stderr));

    // Again: the files exist.
    let again = run(dir.path(), IMPORT);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("pass --force to overwrite"));

    // The same tools of another server get its id as a prefix.
    let mut other: Vec<&str> = IMPORT.to_vec();
    other[3] = "clock";
    let other = run(dir.path(), &other);
    assert!(other.status.success(), "{}", text(&other.stderr));
    assert!(pinned.join("clock_get_current_time.toml").is_file());
    let renamed =
        std::fs::read_to_string(pinned.join("clock_get_current_time.toml")).expect("written");
    assert!(
        renamed.contains("name = \"clock_get_current_time\"")
            && renamed.contains("tool = \"get_current_time\""),
        "{renamed}"
    );
}

#[test]
fn diff_against_live_shows_what_changed_since_the_pin() {
    if server_missing() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    assert!(run(dir.path(), IMPORT).status.success());
    let pinned = dir.path().join("pinned");
    for tool in ["get_current_time", "convert_time"] {
        declare_read_only(&pinned.join(format!("{tool}.toml")));
    }
    let diff = &[
        "diff",
        "--against-live",
        "--manifests",
        "pinned",
        "--format",
        "json",
    ];
    let same = run(dir.path(), diff);
    assert!(same.status.success(), "{}", text(&same.stderr));
    let report: serde_json::Value = serde_json::from_slice(&same.stdout).expect("a JSON report");
    assert_eq!(report["changes"], serde_json::json!([]), "{report}");

    // The server started with another time zone describes its parameters otherwise.
    for tool in ["get_current_time", "convert_time"] {
        let path = pinned.join(format!("{tool}.toml"));
        let manifest = std::fs::read_to_string(&path).expect("the manifest");
        std::fs::write(&path, manifest.replace("\"UTC\"]", "\"Europe/Paris\"]")).expect("written");
    }
    let changed = run(dir.path(), diff);
    assert!(changed.status.success(), "{}", text(&changed.stderr));
    let report: serde_json::Value = serde_json::from_slice(&changed.stdout).expect("a JSON report");
    let changes = report["changes"].as_array().expect("changes");
    assert!(
        changes.iter().any(|c| c["tool"] == "get_current_time"
            && c["kind"] == "description-changed"
            && c["pointer"] == "/inputSchema/properties/timezone/description"),
        "{report}"
    );
    let failing = run(
        dir.path(),
        &[
            "diff",
            "--against-live",
            "--manifests",
            "pinned",
            "--fail-on",
            "warning",
        ],
    );
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing.stdout));
}

#[test]
fn live_imports_refuse_what_would_leak_or_cannot_be_reached() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let leaked = run(
        dir.path(),
        &[
            "import",
            "--from-mcp-url",
            "http://user:secret@127.0.0.1:9/mcp",
        ],
    );
    assert_eq!(leaked.status.code(), Some(2));
    let stderr = text(&leaked.stderr);
    assert!(
        stderr.contains("credentials") && !stderr.contains("secret@"),
        "{stderr}"
    );
    let keyed = run(
        dir.path(),
        &[
            "import",
            "--from-mcp-url",
            "http://127.0.0.1:9/mcp?api_key=abc",
        ],
    );
    assert_eq!(keyed.status.code(), Some(2));
    assert!(
        text(&keyed.stderr).contains("`api_key` of an upstream URL looks like a credential"),
        "{}",
        text(&keyed.stderr)
    );
    let down = run(
        dir.path(),
        &["import", "--from-mcp-url", "http://127.0.0.1:9/mcp"],
    );
    assert_eq!(down.status.code(), Some(2));
    assert!(
        text(&down.stderr).contains("127.0.0.1:9"),
        "{}",
        text(&down.stderr)
    );
    let absent = run(
        dir.path(),
        &["import", "--from-mcp", "--", "no-such-mcp-server-here"],
    );
    assert_eq!(absent.status.code(), Some(2));
    assert!(
        text(&absent.stderr).contains("no-such-mcp-server-here"),
        "{}",
        text(&absent.stderr)
    );
    assert!(
        std::fs::read_dir(dir.path())
            .expect("the folder")
            .next()
            .is_none(),
        "nothing was written"
    );
}
