//! `mcp-server-time` (PyPI), a Python server over stdio.

mod support;

use serde_json::json;
use support::{LIMIT, arguments, command, names, on_path, require};
use toolwright_upstream::Upstream;

/// The `mcp-server-time` script, or `python3 -m mcp_server_time` when only the module is there.
fn time_server() -> Option<toolwright_upstream::Endpoint> {
    if let Some(script) = on_path("mcp-server-time") {
        return Some(command(
            script.display().to_string(),
            &["--local-timezone", "UTC"],
        ));
    }
    let python = on_path("python3")?;
    let has_module = std::process::Command::new(&python)
        .args(["-c", "import mcp_server_time"])
        .status()
        .is_ok_and(|status| status.success());
    has_module.then(|| {
        command(
            python.display().to_string(),
            &["-m", "mcp_server_time", "--local-timezone", "UTC"],
        )
    })
}

#[tokio::test]
async fn lists_and_calls_get_current_time() {
    let found = time_server();
    if require(
        found.as_ref().map(|_| "found".into()),
        "mcp-server-time (pip install mcp-server-time)",
    )
    .is_none()
    {
        return;
    }
    let Some(endpoint) = found else { return };
    tokio::time::timeout(LIMIT, async {
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        let tools = upstream.list_tools().await.expect("lists");
        assert!(
            names(&tools).contains(&"get_current_time"),
            "tools {:?}",
            names(&tools)
        );
        let result = upstream
            .call_tool("get_current_time", arguments(json!({"timezone": "UTC"})))
            .await
            .expect("answers");
        assert_ne!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"]
            .as_str()
            .expect("a text content");
        assert!(text.contains("UTC"), "{text}");
        upstream.close().await;
    })
    .await
    .expect("within the time limit");
}
