//! `toolwright_mcp::http` in process, with a verifier of the host's own (the shape an OAuth
//! resource server takes): the grant it returns is the caller's policy, its rejections are the
//! Bearer challenges, and `serve_until` ends the server. A session and an approval belong to the
//! token that opened or asked for them.

#![cfg(feature = "http")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright_mcp::McpServer;
use toolwright_mcp::auth::{Access, Grant, Rejection, TokenVerifier};
use toolwright_mcp::http::{HttpConfig, HttpServer};
use toolwright_runtime::approval::{ApprovalStore, Decision, MemoryApprovalStore};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy};

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
/// how often it is asked. `switching` is carol's token, whose grant is write access while
/// `carol_writes` holds (scopes an OAuth server may take back at any time).
#[derive(Debug, Default)]
struct Scopes {
    asked: AtomicUsize,
    carol_writes: AtomicBool,
}

impl TokenVerifier for Scopes {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Grant, Rejection>> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            match token {
                "scope-read" => Ok(Grant::new("alice", Access::Read)),
                "scope-write" => Ok(Grant::new("bob", Access::Write)),
                "switching" if self.carol_writes.load(Ordering::Relaxed) => {
                    Ok(Grant::new("carol", Access::Write))
                }
                "switching" => Ok(Grant::new("carol", Access::Read)),
                "other-audience" => Err(Rejection::InsufficientScope),
                _ => Err(Rejection::InvalidToken),
            }
        })
    }
}

fn registry() -> Arc<Registry<usize>> {
    Arc::new(
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
    )
}

/// Serves `server` behind `verifier` on 127.0.0.1: its URL, and the sender that stops it.
async fn start(
    server: McpServer<usize>,
    verifier: Arc<Scopes>,
) -> (String, tokio::sync::oneshot::Sender<()>) {
    let config = HttpConfig::default().with_verifier(verifier as Arc<dyn TokenVerifier>);
    let http = HttpServer::bind("127.0.0.1:0".parse().expect("an address"), server, config)
        .await
        .expect("the server binds");
    let url = http.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.serve_until(async move {
        let _ = stopped.await;
    }));
    (url, stop)
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
    let server = McpServer::new(registry(), RunPolicy::full(), 0_usize, "counter", "1")
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

// ---- sessions (protocols before 2026-07-28) belong to the token that opened them ----

/// The protocol of the sessions below.
const SESSION_PROTOCOL: &str = "2025-06-18";

/// A request of `token` in the session `session` (none for `initialize`).
fn in_session(
    method: reqwest::Method,
    url: &str,
    token: &str,
    session: Option<&str>,
) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .request(method, url)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", SESSION_PROTOCOL);
    match session {
        Some(id) => request.header("mcp-session-id", id),
        None => request,
    }
}

/// The JSON-RPC message of an answer, in JSON or in a server-sent event (after the priming
/// event, which has no data).
async fn message(response: reqwest::Response) -> Value {
    let text = response.text().await.expect("a body");
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(&text);
    serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("a JSON message ({e}): {text}"))
}

/// Opens a session for `token`: `initialize`, then `notifications/initialized`.
async fn open_session(url: &str, token: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": SESSION_PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    let response = in_session(reqwest::Method::POST, url, token, None)
        .body(initialize.to_string())
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    assert_eq!(message(response).await["id"], 0);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = in_session(reqwest::Method::POST, url, token, Some(&session))
        .body(initialized.to_string())
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status(), 202);
    session
}

/// `tools/list` of `token` in `session`: its status, and the message when it is `200`.
async fn list_in(url: &str, token: &str, session: &str) -> (u16, Option<Value>) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = in_session(reqwest::Method::POST, url, token, Some(session))
        .body(body.to_string())
        .send()
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    if status == 200 {
        (status, Some(message(response).await))
    } else {
        (status, None)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tokens_session_is_not_found_and_cannot_be_ended() {
    let server = McpServer::new(registry(), RunPolicy::full(), 0_usize, "counter", "1")
        .expect("an MCP definition for every tool");
    let (url, stop) = start(server, Arc::default()).await;
    let url = url.as_str();
    let bobs = open_session(url, "scope-write").await;
    let (status, listed) = list_in(url, "scope-write", &bobs).await;
    assert_eq!(status, 200);
    assert_eq!(
        listed.expect("a message")["result"]["tools"][1]["name"],
        "count"
    );

    // Alice's token is valid, but the session is not hers: it does not exist for her. The same
    // answer as for a session that never existed, so her requests learn nothing about it.
    let (status, _) = list_in(url, "scope-read", &bobs).await;
    assert_eq!(status, 404, "alice may not use bob's session");
    let (status, _) = list_in(url, "scope-read", "no-such-session").await;
    assert_eq!(status, 404);
    let stream = in_session(reqwest::Method::GET, url, "scope-read", Some(&bobs))
        .send()
        .await
        .expect("an answer");
    assert_eq!(stream.status(), 404, "nor read its stream");
    // Her DELETE of bob's session and of one that does not exist get the same answer.
    let mut answers = Vec::new();
    for session in [bobs.as_str(), "no-such-session"] {
        let ended = in_session(reqwest::Method::DELETE, url, "scope-read", Some(session))
            .send()
            .await
            .expect("an answer");
        let status = ended.status().as_u16();
        let content_type = ended.headers().get("content-type").cloned();
        answers.push((status, content_type, ended.text().await.expect("a body")));
    }
    assert_eq!(
        answers[0], answers[1],
        "nor end it, nor learn that it exists"
    );
    assert_eq!(answers[0].0, 404);
    assert_eq!(answers[0].2, "Not Found: Session not found");
    // The same answer as rmcp's to a session it does not have.
    let unknown = in_session(
        reqwest::Method::POST,
        url,
        "scope-write",
        Some("no-such-session"),
    )
    .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
    .send()
    .await
    .expect("an answer");
    assert_eq!(
        (
            unknown.status().as_u16(),
            unknown.headers().get("content-type").cloned()
        ),
        (answers[0].0, answers[0].1.clone())
    );
    assert_eq!(unknown.text().await.expect("a body"), answers[0].2);

    // Bob's session goes on, and bob can end it.
    let (status, _) = list_in(url, "scope-write", &bobs).await;
    assert_eq!(status, 200, "bob's session is still there");
    let ended = in_session(reqwest::Method::DELETE, url, "scope-write", Some(&bobs))
        .send()
        .await
        .expect("an answer");
    assert_eq!(ended.status(), 202);
    let (status, _) = list_in(url, "scope-write", &bobs).await;
    assert_eq!(status, 404, "an ended session is gone");
    let _ = stop.send(());
}

// ---- approvals: asked for one token, checked against the retry's policy before being used ----

/// A stateless `tools/call` of `bump` by a client that answers elicitations, with `retry`'s
/// fields (`requestState`, `inputResponses`) added to its parameters.
async fn bump_as(url: &str, token: &str, retry: &Value) -> Value {
    let mut params = json!({
        "name": "bump",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        }
    });
    if let (Value::Object(params), Value::Object(retry)) = (&mut params, retry) {
        params.extend(retry.clone());
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "bump")
        .body(body.to_string())
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status(), 200);
    message(response).await["result"].clone()
}

/// The sealed state of the approval `token` is asked for.
async fn ask(url: &str, token: &str) -> String {
    let asked = bump_as(url, token, &json!({})).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    asked["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned()
}

/// The retry of an approval with the person's `approve: true`.
fn approved(state: &str) -> Value {
    json!({
        "requestState": state,
        "inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}}
    })
}

fn deferring_server() -> McpServer<usize> {
    let policy = RunPolicy::full().with_approval(|_| Decision::Defer);
    McpServer::new(registry(), policy, 0_usize, "counter", "1")
        .expect("an MCP definition for every tool")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_token_cannot_use_up_a_write_tokens_approval() {
    let ledger = Arc::new(MemoryApprovalStore::new());
    let server =
        deferring_server().with_approval_store(Arc::clone(&ledger) as Arc<dyn ApprovalStore>);
    let counter = Arc::clone(server.context());
    let (url, stop) = start(server, Arc::default()).await;
    let state = ask(&url, "scope-write").await;

    let stolen = bump_as(&url, "scope-read", &approved(&state)).await;
    let envelope = &stolen["structuredContent"];
    assert_eq!(envelope["error"]["code"], "TOOL_NOT_ALLOWED", "{stolen}");
    assert_eq!(*counter.read().await, 0, "nothing ran");
    assert!(ledger.is_empty(), "the approval is unused");

    let used = bump_as(&url, "scope-write", &approved(&state)).await;
    assert_eq!(used["structuredContent"]["data"], 1, "{used}");
    assert_eq!(*counter.read().await, 1);
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_retried_under_a_narrower_grant_is_refused_and_stays_unused() {
    let ledger = Arc::new(MemoryApprovalStore::new());
    let server =
        deferring_server().with_approval_store(Arc::clone(&ledger) as Arc<dyn ApprovalStore>);
    let counter = Arc::clone(server.context());
    let verifier = Arc::new(Scopes::default());
    verifier.carol_writes.store(true, Ordering::Relaxed);
    let (url, stop) = start(server, Arc::clone(&verifier)).await;
    let state = ask(&url, "switching").await;

    // Carol's write access is taken back before she answers: the retry is the read-only run's
    // refusal, and the approval is not used.
    verifier.carol_writes.store(false, Ordering::Relaxed);
    let refused = bump_as(&url, "switching", &approved(&state)).await;
    assert_eq!(
        refused["structuredContent"]["error"]["message"],
        "The tool `bump` changes state and this run is read-only.",
        "{refused}"
    );
    assert!(ledger.is_empty(), "the approval is unused");

    verifier.carol_writes.store(true, Ordering::Relaxed);
    let used = bump_as(&url, "switching", &approved(&state)).await;
    assert_eq!(used["structuredContent"]["data"], 1, "{used}");
    let again = bump_as(&url, "switching", &approved(&state)).await;
    assert!(
        again["structuredContent"]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already decided")),
        "{again}"
    );
    assert_eq!(*counter.read().await, 1, "it ran once");
    assert_eq!(ledger.len(), 1);
    let _ = stop.send(());
}
