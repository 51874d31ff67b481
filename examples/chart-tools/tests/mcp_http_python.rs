//! `chart-tools mcp --http` against the official MCP Python SDK (`pip install mcp`): the script
//! `tests/python/mcp_http_client.py` checks grants, refusals and mixed clients with the SDK's
//! own client, in its legacy (session) and 2026-07-28 (stateless) modes.
//!
//! Where Python or the package is missing the test is skipped with a message, except in CI
//! (`CI` set), where `.ci/run` installs the package and a missing one is a failure.

mod http_server;

use std::process::Stdio;
use std::time::Duration;

use http_server::{HttpServer, READ, UNKNOWN, WRITE, WRITE_2};
use toolwright_runtime::RunPolicy;

/// The script's own limit is 120 s; this only stops a hung interpreter.
const GIVE_UP: Duration = Duration::from_secs(180);

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/mcp_http_client.py"
);

/// Why the SDK cannot be used here, if it cannot.
fn sdk_missing() -> Option<String> {
    match std::process::Command::new("python3")
        .args(["-c", "import mcp.client, httpx2, anyio"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Err(e) => Some(format!("python3 cannot be run: {e}")),
        Ok(output) if !output.status.success() => Some(format!(
            "the MCP Python SDK is not installed (pip install mcp): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Ok(_) => None,
    }
}

fn names(policy: &RunPolicy) -> String {
    let registry = chart_tools::registry().expect("the chart's registry builds");
    let mut names: Vec<&str> = registry.resolve(policy).iter().map(|m| m.name).collect();
    names.sort_unstable();
    serde_json::to_string(&names).expect("names in JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_sees_the_same_grants_refusals_and_isolation() {
    if let Some(missing) = sdk_missing() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs the MCP Python SDK: {missing}"
        );
        eprintln!("skipped: {missing}");
        return;
    }
    let server = HttpServer::start(&["--rate-limit", "1000"]);
    let limited = HttpServer::start(&["--rate-limit", "1", "--burst", "5", "--max-body", "2048"]);
    let run = tokio::process::Command::new("python3")
        .arg(SCRIPT)
        .env("MCP_URL", &server.url)
        .env("MCP_LIMITED_URL", &limited.url)
        .env("MCP_READ_TOKEN", READ)
        .env("MCP_WRITE_TOKEN", WRITE)
        .env("MCP_WRITE_2_TOKEN", WRITE_2)
        .env("MCP_UNKNOWN_TOKEN", UNKNOWN)
        .env("MCP_READ_NAMES", names(&RunPolicy::read_only()))
        .env("MCP_WRITE_NAMES", names(&RunPolicy::full()))
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(GIVE_UP, run)
        .await
        .expect("the script finishes in time")
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(stdout.trim_end().ends_with("passed, 0 failed"), "{stdout}");
    println!("{stdout}");
}
