//! `@modelcontextprotocol/server-everything` over Streamable HTTP on 127.0.0.1: list and call,
//! with a header whose value never shows.

mod support;

use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use support::{LIMIT, arguments, everything, names};
use toolwright_secrets::SecretString;
use toolwright_upstream::{Endpoint, Upstream, UpstreamError, describe};

/// Starts the server on a free port of 127.0.0.1 and waits until it accepts connections.
async fn serve(program: &std::path::Path) -> (tokio::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port();
    let child = tokio::process::Command::new(program)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (child, port);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn lists_and_calls_over_http() {
    let Some(program) = everything() else { return };
    tokio::time::timeout(LIMIT, async {
        let (_server, port) = serve(&program).await;
        let endpoint = Endpoint::Url {
            url: format!("http://127.0.0.1:{port}/mcp?token=q-s3cret"),
            headers: vec![("X-Upstream-Key".into(), SecretString::new("h-s3cret-value"))],
        };
        assert_eq!(describe(&endpoint), format!("http://127.0.0.1:{port}/mcp"));
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        let printed = format!("{upstream:?} {endpoint:?}");
        assert!(
            !printed.contains("s3cret"),
            "a secret is printed: {printed}"
        );
        assert!(upstream.server_info().0.contains("everything"));

        let tools = upstream.list_tools().await.expect("lists");
        assert!(names(&tools).contains(&"echo"), "tools {:?}", names(&tools));
        let result = upstream
            .call_tool("echo", arguments(json!({"message": "hi"})))
            .await
            .expect("echo answers");
        let text = result["content"][0]["text"]
            .as_str()
            .expect("a text content");
        assert!(text.contains("hi"), "echo said {text}");
        upstream.close().await;
    })
    .await
    .expect("within the time limit");
}

#[tokio::test]
async fn a_port_nobody_listens_on_is_a_connect_error() {
    tokio::time::timeout(LIMIT, async {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("its address")
            .port();
        let endpoint = Endpoint::Url {
            url: format!("http://user:pw-s3cret@127.0.0.1:{port}/mcp?key=q-s3cret"),
            headers: Vec::new(),
        };
        let error = Upstream::connect_with_timeout(&endpoint, Duration::from_secs(20))
            .await
            .expect_err("nothing listens");
        let text = error.to_string();
        assert!(matches!(error, UpstreamError::Connect { .. }), "{text}");
        assert!(
            text.contains(&format!("http://127.0.0.1:{port}/mcp")),
            "{text}"
        );
        assert!(!text.contains("s3cret"), "a secret is printed: {text}");
    })
    .await
    .expect("within the time limit");
}

#[tokio::test]
async fn an_invalid_header_is_a_connect_error() {
    let endpoint = Endpoint::Url {
        url: "http://127.0.0.1:9/mcp".into(),
        headers: vec![("bad header".into(), SecretString::new("v"))],
    };
    let error = tokio::time::timeout(LIMIT, Upstream::connect(&endpoint))
        .await
        .expect("within the time limit")
        .expect_err("the header name has a space");
    assert!(matches!(error, UpstreamError::Connect { .. }), "{error}");
    assert!(error.to_string().contains("`bad header`"), "{error}");
}
