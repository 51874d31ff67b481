//! A tool's declared time limit and output budget hold over MCP as they do for the registry: the
//! server's calls take the registry's one call pipeline.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolwright_mcp::McpServer;
use toolwright_runtime::{Registry, RunPolicy, ToolError, tool, tool_def};

#[derive(Debug, Deserialize, JsonSchema)]
struct Bars {
    /// How many bars to return.
    count: usize,
}

/// Returns `count` bars: `["bar-0000",…]`, 11 bytes of JSON a bar, plus one.
#[tool(safety = "read-only", mode = "parallel", max_output_bytes = 100)]
fn bars_query(_chart: &(), input: Bars) -> Result<Vec<String>, ToolError> {
    Ok((0..input.count).map(|i| format!("bar-{i:04}")).collect())
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Pause {
    /// How long to wait, in milliseconds.
    millis: u64,
}

/// Waits, then answers.
#[tool(safety = "read-only", mode = "parallel", timeout = "40ms")]
async fn slow_read(_chart: &(), input: Pause) -> Result<u64, ToolError> {
    tokio::time::sleep(Duration::from_millis(input.millis)).await;
    Ok(input.millis)
}

#[test]
fn the_mcp_server_enforces_them() {
    let registry = Registry::builder()
        .tool(tool_def!(bars_query))
        .tool(tool_def!(slow_read))
        .build()
        .expect("valid");
    let server =
        McpServer::new(Arc::new(registry), RunPolicy::full(), (), "t", "1").expect("a server");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let within = runtime.block_on(server.execute("bars_query", &json!({"count": 2})));
    assert!(within.is_success(), "{within:?}");
    let over = runtime.block_on(server.execute("bars_query", &json!({"count": 10})));
    assert_eq!(over.code(), Some("TOOL_FAILED"));
    assert!(over.error().is_some_and(|e| e.retryable));
    let slow = runtime.block_on(server.execute("slow_read", &json!({"millis": 5000})));
    assert_eq!(slow.code(), Some("TOOL_TIMEOUT"));
}
