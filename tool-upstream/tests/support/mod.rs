//! Finding the real servers the tests run against.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use toolwright_upstream::Endpoint;

/// The bound of every test: no server, however broken, makes the suite hang.
pub const LIMIT: Duration = Duration::from_secs(60);

/// `name` found in `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Returns `None` after printing why the test is skipped; under `CI` a missing server fails
/// the test instead, since CI installs it.
pub fn require(found: Option<PathBuf>, what: &str) -> Option<PathBuf> {
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs {what}, but it was not found"
        );
        println!("skipped: {what} is not installed");
    }
    found
}

/// The `mcp-server-everything` program (npm `@modelcontextprotocol/server-everything`).
pub fn everything() -> Option<PathBuf> {
    require(
        on_path("mcp-server-everything"),
        "mcp-server-everything (npm install -g @modelcontextprotocol/server-everything)",
    )
}

/// A command endpoint with no environment of its own.
pub fn command(program: impl Into<String>, args: &[&str]) -> Endpoint {
    Endpoint::Command {
        program: program.into(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        env: Vec::new(),
    }
}

/// The tool names of a `tools/list`.
pub fn names(tools: &[serde_json::Value]) -> Vec<&str> {
    tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

/// `{"message": …}` and the like, as the arguments map of a call.
pub fn arguments(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("arguments must be an object, not {other}"),
    }
}
