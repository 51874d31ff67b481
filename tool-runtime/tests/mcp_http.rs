//! `toolwright_runtime::mcp::http` in process, with a verifier of the host's own (the shape an OAuth
//! resource server takes): the grant it returns is the caller's policy, its rejections are the
//! Bearer challenges, and `serve_until` ends the server.

#![cfg(feature = "mcp-http")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright_runtime::mcp::McpServer;
use toolwright_runtime::mcp::auth::{Access, Grant, Rejection, TokenVerifier};
use toolwright_runtime::mcp::http::{HttpConfig, HttpServer};
use toolwright_runtime::{
    BoxFuture, CallResult, Handler, Mode, Registry, RunPolicy, Safety, StaticSchema, ToolDef,
    ToolMeta, ToolOutput,
};

static COUNT: ToolMeta = ToolMeta::new(
    "count",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
)
.title("Count")
.description("Reads the counter.")
.source("tests/mcp_http.rs");

static BUMP: ToolMeta = ToolMeta::new(
    "bump",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
)
.title("Bump")
.description("Adds one to the counter.")
.source("tests/mcp_http.rs");

fn count<'a>(counter: &'a usize, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!(*counter).into(),
            state_changed: false,
        })
    })
}

fn bump<'a>(counter: &'a mut usize, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        *counter += 1;
        Ok(ToolOutput {
            data: json!(*counter).into(),
            state_changed: true,
        })
    })
}

/// Accepts `scope-read` and `scope-write`, refuses `other-audience` as out of scope, and counts
/// how often it is asked.
#[derive(Debug, Default)]
struct Scopes {
    asked: AtomicUsize,
}

impl TokenVerifier for Scopes {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Grant, Rejection>> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            match token {
                "scope-read" => Ok(Grant::new("alice", Access::Read)),
                "scope-write" => Ok(Grant::new("bob", Access::Write)),
                "other-audience" => Err(Rejection::InsufficientScope),
                _ => Err(Rejection::InvalidToken),
            }
        })
    }
}

fn call(url: &str, token: &str, name: &str) -> reqwest::RequestBuilder {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body.to_string())
}

async fn envelope(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    let answer: Value =
        serde_json::from_str(&response.text().await.expect("a body")).expect("a JSON answer");
    answer["result"]["structuredContent"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_own_verifier_decides_each_callers_policy() {
    let registry = Arc::new(
        Registry::builder()
            .tool(ToolDef {
                meta: &COUNT,
                handler: Handler::Shared(count),
            })
            .tool(ToolDef {
                meta: &BUMP,
                handler: Handler::Exclusive(bump),
            })
            .build()
            .expect("valid tools"),
    );
    let server = McpServer::new(registry, RunPolicy::full(), 0_usize, "counter", "1")
        .expect("an MCP definition for every tool");
    let counter = Arc::clone(server.context());
    let verifier = Arc::new(Scopes::default());
    let config = HttpConfig::default()
        .with_path("/tools")
        .with_verifier(Arc::clone(&verifier) as Arc<dyn TokenVerifier>)
        .with_resource_metadata("http://127.0.0.1/.well-known/oauth-protected-resource");
    let http = HttpServer::bind("127.0.0.1:0".parse().expect("an address"), server, config)
        .await
        .expect("the server binds");
    let url = http.url();
    assert!(url.ends_with("/tools"), "{url}");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.serve_until(async move {
        let _ = stopped.await;
    }));

    let refused = envelope(
        call(&url, "scope-read", "bump")
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(refused["error"]["code"], "TOOL_NOT_ALLOWED", "{refused}");
    let read = envelope(
        call(&url, "scope-read", "count")
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(read["data"], 0, "{read}");
    let bumped = envelope(
        call(&url, "scope-write", "bump")
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(bumped["data"], 1, "{bumped}");

    let out_of_scope = call(&url, "other-audience", "bump")
        .send()
        .await
        .expect("an answer");
    assert_eq!(out_of_scope.status(), 403);
    assert_eq!(
        out_of_scope.headers()["www-authenticate"],
        "Bearer error=\"insufficient_scope\", resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\""
    );
    let invalid = call(&url, "expired", "bump")
        .send()
        .await
        .expect("an answer");
    assert_eq!(invalid.status(), 401);
    assert_eq!(*counter.read().await, 1, "only the write grant's call ran");
    assert_eq!(
        verifier.asked.load(Ordering::Relaxed),
        5,
        "asked once per request"
    );

    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(30), serving)
        .await
        .expect("the server stops when asked")
        .expect("the task ends")
        .expect("serving ends cleanly");
}
