//! `toolwright-proxy` over the reference MCP servers (`@modelcontextprotocol/server-everything`
//! and `server-filesystem` from npm, `mcp-server-time` and `mcp-server-git` from PyPI), driven by
//! the official MCP Python SDK (`tests/python/proxy_client.py`): each server's tools are pinned
//! into one folder with safety declared here, not taken from the servers' hints.
//!
//! Where a server, Python or the SDK is missing the test is skipped with a message, except in CI
//! (`CI` set), where `.ci/run` installs them and a missing one is a failure.

mod pinning;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use toolwright_core::Safety;

/// The script's own limit is 240 s; this only stops a hung interpreter.
const GIVE_UP: Duration = Duration::from_secs(300);

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/proxy_client.py");

/// The tools declared read-only here; every other is declared destructive, whatever its server
/// says: `get-env` (which shows the server's environment) and `trigger-long-running-operation`
/// claim `readOnlyHint: true` and are listed as destructive.
const READ_ONLY: &[&str] = &[
    "echo",
    "get-sum",
    "get_current_time",
    "convert_time",
    "read_text_file",
    "list_directory",
    "git_status",
    "git_log",
];

fn declare(name: &str) -> Safety {
    if READ_ONLY.contains(&name) {
        Safety::ReadOnly
    } else {
        Safety::Destructive
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_are_pinned_and_proxied_under_the_declared_safety() {
    let servers = [
        (
            "mcp-server-everything",
            "npm install -g @modelcontextprotocol/server-everything",
        ),
        (
            "mcp-server-filesystem",
            "npm install -g @modelcontextprotocol/server-filesystem",
        ),
        ("mcp-server-time", "pip install mcp-server-time"),
        ("mcp-server-git", "pip install mcp-server-git"),
    ];
    if servers
        .iter()
        .any(|(program, install)| pinning::missing(program, install).is_some())
        || pinning::sdk_missing().is_some()
    {
        return;
    }
    let work = tempfile::tempdir().expect("a temporary directory");
    let manifests = work.path().join("pinned");
    let root = work.path().join("files");
    let repo = work.path().join("repo");
    std::fs::create_dir_all(&manifests).expect("the manifests folder");
    std::fs::create_dir_all(&root).expect("the filesystem server's folder");
    std::fs::create_dir_all(&repo).expect("the repository folder");
    // The filesystem server resolves its folder: give it the resolved one, which the client
    // script's paths must start with.
    let root = root.canonicalize().expect("the folder resolves");
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("README"), "pinned\n").expect("a file to commit");
    git(&repo, &["add", "README"]);
    git(
        &repo,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "-m",
            "first",
        ],
    );

    let root_text = root.to_str().expect("a UTF-8 path");
    let mut expected = BTreeMap::new();
    for (server, argv) in [
        ("everything", vec!["mcp-server-everything"]),
        ("filesystem", vec!["mcp-server-filesystem", root_text]),
        ("time", vec!["mcp-server-time"]),
        ("git", vec!["mcp-server-git"]),
    ] {
        for (name, upstream_name) in pinning::pin(&manifests, server, &argv, declare).await {
            let read_only = declare(&upstream_name).is_read_only();
            expected.insert(
                name,
                json!({"readOnlyHint": read_only, "destructiveHint": !read_only}),
            );
        }
    }
    assert!(expected.contains_key("write_file") && expected.contains_key("get_sum"));

    let (read, write) = ("r".repeat(40), "w".repeat(40));
    let tokens = work.path().join("tokens.toml");
    std::fs::write(
        &tokens,
        format!(
            "[[token]]\nname = \"reader\"\ntoken = \"{read}\"\ngrant = \"read\"\n\n[[token]]\nname = \"writer\"\ntoken = \"{write}\"\ngrant = \"write\"\ndisabled = [\"git_commit\"]\n"
        ),
    )
    .expect("the token file");
    let proxy = json!([
        env!("CARGO_BIN_EXE_toolwright-proxy"),
        "--manifests",
        manifests.to_str().expect("a UTF-8 path"),
    ]);
    let run = tokio::process::Command::new("python3")
        .arg(SCRIPT)
        .env("PROXY", proxy.to_string())
        .env("EXPECTED", serde_json::to_string(&expected).expect("JSON"))
        .env("FS_ROOT", root_text)
        .env("GIT_REPO", repo.to_str().expect("a UTF-8 path"))
        .env("TOKENS", &tokens)
        .env("READ_TOKEN", &read)
        .env("WRITE_TOKEN", &write)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(GIVE_UP, run)
        .await
        .expect("the script ends in time")
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("passed "), "{stdout}");
}

fn git(repo: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}
