//! Pinning a live server's tools into manifests, as `tool-manifest import --from-mcp` does, then
//! declaring each tool's safety as its author would.

#![allow(dead_code)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use toolwright_core::{Endpoint, Safety};
use toolwright_manifest::import;
use toolwright_upstream::Upstream;

/// How long a server may take to start and list its tools.
const LIST_LIMIT: Duration = Duration::from_secs(120);

/// Why `program` cannot be run here, if it cannot: then the test skips, except in CI, which
/// installs every server (`.ci/run`) and fails instead.
pub fn missing(program: &str, install: &str) -> Option<String> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    if found {
        return None;
    }
    let why = format!("`{program}` is not installed ({install})");
    assert!(std::env::var_os("CI").is_none(), "CI installs it: {why}");
    eprintln!("skipped: {why}");
    Some(why)
}

/// Why the MCP Python SDK cannot be used here, if it cannot (skipped as [`missing`] is).
pub fn sdk_missing() -> Option<String> {
    let why = match std::process::Command::new("python3")
        .args(["-c", "import mcp.client, anyio"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Err(e) => format!("python3 cannot be run: {e}"),
        Ok(output) if !output.status.success() => format!(
            "the MCP Python SDK is not installed (pip install mcp): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Ok(_) => return None,
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "CI installs the SDK: {why}"
    );
    eprintln!("skipped: {why}");
    Some(why)
}

/// The endpoint of a command line.
pub fn command(argv: &[&str]) -> toolwright_upstream::Endpoint {
    toolwright_upstream::Endpoint::Command {
        program: argv[0].to_owned(),
        args: argv[1..].iter().map(|a| (*a).to_owned()).collect(),
        env: Vec::new(),
    }
}

/// Pins every tool the server started by `argv` lists into `dir` as `server`, each declared
/// with the safety `declare` gives its upstream name (`parallel` for read-only tools,
/// `sequential` for the others). Returns the names of the manifests written.
pub async fn pin(
    dir: &Path,
    server: &str,
    argv: &[&str],
    declare: impl Fn(&str) -> Safety,
) -> Vec<(String, String)> {
    let upstream = tokio::time::timeout(LIST_LIMIT, Upstream::connect(&command(argv)))
        .await
        .expect("the server starts in time")
        .expect("the server starts");
    let tools = upstream
        .list_tools()
        .await
        .expect("the server lists its tools");
    upstream.close().await;
    let endpoint = Endpoint::Command(argv.iter().map(|a| (*a).to_owned()).collect());
    let reading = import::pinned(tools, server, &endpoint, false).expect("a valid pin");
    let names: Vec<(String, String)> = reading
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.source_name.clone()))
        .collect();
    let outcome = import::write(reading, dir, false);
    assert_eq!(outcome.skipped, 0, "{:?}", outcome.report);
    for (name, upstream_name) in &names {
        declare_safety(&dir.join(format!("{name}.toml")), declare(upstream_name));
    }
    names
}

/// Declares `safety` in a pinned manifest, where `import` left the two commented lines.
pub fn declare_safety(manifest: &Path, safety: Safety) {
    let text = std::fs::read_to_string(manifest).expect("the manifest reads");
    let mode = if safety.is_read_only() {
        "parallel"
    } else {
        "sequential"
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.starts_with("# safety = ") {
            out.push_str(&format!("safety = \"{}\"\n", safety.as_str()));
        } else if line.starts_with("# mode = ") {
            out.push_str(&format!("mode = \"{mode}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(
        out.contains("\nsafety = "),
        "import left the safety line: {text}"
    );
    std::fs::write(manifest, out).expect("the manifest writes");
}
