//! `toolwright-proxy --defer-upstream` (and `--defer-after`) over a pinned upstream of the tests'
//! own (`tests/python/upstream_server.py`), driven by the official MCP Python SDK
//! (`tests/python/deferral_client.py`) over stdio and Streamable HTTP: only `tool_search` is
//! listed until a search finds a tool, the session is told its list changed, and a read-only
//! run (`--read-only`, or a `read` token) never finds, lists or forwards a write.
//!
//! Needs Python and the MCP Python SDK (`pip install mcp`); skipped without them, except in CI.

mod pinning;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};
use toolwright_core::Safety;

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/upstream_server.py"
);

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/deferral_client.py"
);

/// The script's own limit is 120 s; this only stops a hung interpreter.
const GIVE_UP: Duration = Duration::from_secs(180);

/// The upstream's tools. `note_write` claims to be read-only; its manifest declares it
/// destructive.
fn tools() -> Value {
    json!([
        {
            "name": "lookup",
            "description": "Looks a word up in the dictionary.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "word": {"type": "string", "maxLength": 20},
                    "limit": {"type": "integer", "minimum": 1}
                },
                "required": ["word", "limit"]
            }
        },
        {
            "name": "synonyms",
            "description": "Lists words of the same meaning.",
            "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}}
        },
        {
            "name": "note_write",
            "description": "Writes a note into the notebook.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            },
            "annotations": {"readOnlyHint": true}
        }
    ])
}

fn declare(name: &str) -> Safety {
    if name == "note_write" {
        Safety::Destructive
    } else {
        Safety::ReadOnly
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_defers_pinned_tools_and_a_read_only_search_finds_no_write() {
    if pinning::sdk_missing().is_some() {
        return;
    }
    let work = tempfile::tempdir().expect("a temporary directory");
    let tools_file = work.path().join("tools.json");
    let log = work.path().join("calls.log");
    let manifests = work.path().join("pinned");
    std::fs::create_dir_all(&manifests).expect("the manifests folder");
    std::fs::write(
        &tools_file,
        serde_json::to_string_pretty(&tools()).expect("JSON"),
    )
    .expect("the tools file");
    let argv = [
        "env".to_owned(),
        format!("UPSTREAM_TOOLS={}", tools_file.display()),
        format!("UPSTREAM_LOG={}", log.display()),
        "python3".to_owned(),
        SERVER.to_owned(),
    ];
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let pinned = pinning::pin(&manifests, "words", &argv, declare).await;
    assert_eq!(pinned.len(), 3, "{pinned:?}");

    let mut queries = BTreeMap::new();
    for tool in tools().as_array().expect("an array") {
        let name = tool["name"].as_str().expect("a name");
        let description = tool["description"].as_str().expect("a description");
        queries.insert(name.to_owned(), format!("{name} {description}"));
    }
    let (read, write) = ("r".repeat(40), "w".repeat(40));
    let tokens = work.path().join("tokens.toml");
    std::fs::write(
        &tokens,
        format!(
            "[[token]]\nname = \"reader\"\ntoken = \"{read}\"\ngrant = \"read\"\n\n[[token]]\nname = \"writer\"\ntoken = \"{write}\"\ngrant = \"write\"\n"
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
        .env("WRITES", json!(["note_write"]).to_string())
        .env("QUERIES", json!(queries).to_string())
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

    // Every call that reached the upstream: the read-only runs' forged writes never did.
    let calls: Vec<String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let call: Value = serde_json::from_str(line).expect("a JSON log line");
            call["name"].as_str().expect("a name").to_owned()
        })
        .collect();
    assert_eq!(calls, ["lookup"], "only the found read ran upstream");
}
