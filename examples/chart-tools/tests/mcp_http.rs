//! `chart-tools mcp --http` end to end, driven by rmcp's Streamable HTTP client (sessions of the
//! older protocols, and the stateless lifecycle of 2026-07-28) and by raw HTTP requests: who may
//! call, what each caller sees, and what every refusal answers. Every server listens on
//! 127.0.0.1 only and every test is bounded in time.

mod http_server;

use std::future::Future;
use std::time::Duration;

use http_server::{HttpServer, NARROW, READ, UNKNOWN, WRITE, WRITE_2};
use rmcp::ServiceExt as _;
use rmcp::model::{
    CacheScope, CallToolRequestParams, ClientRequest, ListToolsRequest, ProtocolVersion,
    ServerResult,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolwright_runtime::RunPolicy;

/// No test here takes long; this only keeps a broken server from hanging the run.
const GIVE_UP: Duration = Duration::from_secs(120);

async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(GIVE_UP, test)
        .await
        .expect("the test finishes in time")
}

#[derive(Debug, Clone, Copy)]
enum Lifecycle {
    /// `initialize` and a session (protocol versions before 2026-07-28).
    Session,
    /// `server/discover`, then self-contained requests (2026-07-28).
    Stateless,
}

const LIFECYCLES: [Lifecycle; 2] = [Lifecycle::Session, Lifecycle::Stateless];

type Client = RunningService<RoleClient, ()>;

async fn connect(url: &str, token: Option<&str>, lifecycle: Lifecycle) -> Option<Client> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = match lifecycle {
        Lifecycle::Session => ().serve(transport).await,
        Lifecycle::Stateless => {
            ().serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
        }
    };
    client.ok()
}

async fn client(url: &str, token: &str, lifecycle: Lifecycle) -> Client {
    connect(url, Some(token), lifecycle)
        .await
        .unwrap_or_else(|| panic!("{lifecycle:?}: the client connects"))
}

/// The tool names a client is offered, sorted, with the list's cache hints. Asked of the server
/// every time (`list_tools` would answer from the client's cache, as the hints allow).
async fn listed(client: &Client) -> (Vec<String>, Option<u64>, Option<CacheScope>) {
    let answer = client
        .send_request(ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params: None,
            extensions: Default::default(),
        }))
        .await
        .expect("tools/list answers");
    let ServerResult::ListToolsResult(result) = answer else {
        panic!("a tools/list result: {answer:?}");
    };
    let mut names: Vec<String> = result.tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    (names, result.ttl_ms, result.cache_scope)
}

async fn envelope(client: &Client, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{name}: a tool result, got {e:?}"));
    result
        .structured_content
        .unwrap_or_else(|| panic!("{name}: the envelope is the structured content"))
}

/// The names the chart's registry offers under `policy`, sorted.
fn expected_names(policy: &RunPolicy) -> Vec<String> {
    let registry = chart_tools::registry().expect("the chart's registry builds");
    let mut names: Vec<String> = registry
        .resolve(policy)
        .iter()
        .map(|m| m.name.to_owned())
        .collect();
    names.sort();
    names
}

fn horizontal_line(price: f64) -> Value {
    json!({
        "pane_id": "main",
        "kind": "horizontal_line",
        "anchors": [{"time": 1_751_241_600, "price": price}],
    })
}

/// A stateless (2026-07-28) `tools/call` as raw HTTP: one POST, one JSON answer.
fn raw_call(
    url: &str,
    token: Option<&str>,
    name: &str,
    arguments: &Value,
) -> reqwest::RequestBuilder {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    raw_post(url, token, &body.to_string())
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
}

fn raw_post(url: &str, token: Option<&str>, body: &str) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

async fn json_answer(response: reqwest::Response) -> Value {
    let text = response.text().await.expect("a body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("a JSON answer ({e}): {text:.300}"))
}

/// How many drawings the chart holds (asked with the read token).
async fn drawings(url: &str) -> usize {
    let response = raw_call(url, Some(READ), "drawings_list", &json!({}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 200);
    let answer = json_answer(response).await;
    answer["result"]["structuredContent"]["data"]["drawings"]
        .as_array()
        .unwrap_or_else(|| panic!("a list of drawings: {answer:.300}"))
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_token_lists_only_read_tools_and_a_forged_write_is_refused() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1000"]);
        let before = drawings(&server.url).await;
        for lifecycle in LIFECYCLES {
            let client = client(&server.url, READ, lifecycle).await;
            let (names, ttl, scope) = listed(&client).await;
            assert_eq!(
                names,
                expected_names(&RunPolicy::read_only()),
                "{lifecycle:?}"
            );
            assert_eq!(ttl, Some(toolwright_mcp::TOOLS_TTL_MS), "{lifecycle:?}");
            assert_eq!(
                scope,
                Some(CacheScope::Private),
                "{lifecycle:?}: the list depends on the grant"
            );
            let refused = envelope(&client, "drawing_create", horizontal_line(1.0)).await;
            assert_eq!(refused["error"]["code"], "TOOL_NOT_ALLOWED", "{refused}");
            assert_eq!(refused["stateChanged"], false);
            let _ = client.cancel().await;
        }
        assert_eq!(drawings(&server.url).await, before, "nothing was drawn");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_token_writes() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1000"]);
        let before = drawings(&server.url).await;
        for lifecycle in LIFECYCLES {
            let client = client(&server.url, WRITE, lifecycle).await;
            let (names, _, _) = listed(&client).await;
            assert_eq!(names, expected_names(&RunPolicy::full()), "{lifecycle:?}");
            let drawn = envelope(&client, "drawing_create", horizontal_line(2.0)).await;
            assert_eq!(drawn["success"], true, "{drawn}");
            assert_eq!(drawn["stateChanged"], true, "{drawn}");
            let _ = client.cancel().await;
        }
        assert_eq!(drawings(&server.url).await, before + 2);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_with_disabled_tools_neither_sees_nor_calls_them() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1000"]);
        let before = drawings(&server.url).await;
        let client = client(&server.url, NARROW, Lifecycle::Session).await;
        let (names, _, _) = listed(&client).await;
        assert_eq!(
            names,
            expected_names(
                &RunPolicy::full()
                    .disable("web_search")
                    .disable("drawings_clear")
            )
        );
        let refused = envelope(&client, "drawings_clear", json!({})).await;
        assert_eq!(refused["error"]["code"], "TOOL_NOT_ALLOWED", "{refused}");
        let drawn = envelope(&client, "drawing_create", horizontal_line(3.0)).await;
        assert_eq!(drawn["success"], true, "{drawn}");
        let _ = client.cancel().await;
        assert_eq!(
            drawings(&server.url).await,
            before + 1,
            "only the create ran"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_server_stays_read_only_for_a_write_token() {
    bounded(async {
        let server = HttpServer::start(&["--read-only", "--rate-limit", "1000"]);
        let before = drawings(&server.url).await;
        let client = client(&server.url, WRITE, Lifecycle::Stateless).await;
        let (names, _, _) = listed(&client).await;
        assert_eq!(names, expected_names(&RunPolicy::read_only()));
        let refused = envelope(&client, "drawing_create", horizontal_line(4.0)).await;
        assert_eq!(refused["error"]["code"], "TOOL_NOT_ALLOWED", "{refused}");
        let _ = client.cancel().await;
        assert_eq!(drawings(&server.url).await, before);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_get_their_status_and_nothing_runs() {
    bounded(async {
        let server = HttpServer::start(&["--max-body", "2048", "--rate-limit", "1000"]);
        let url = server.url.as_str();
        let before = drawings(url).await;
        let write = horizontal_line(5.0);

        // The same request with the write token runs: the refusals below refuse a call that
        // would have drawn.
        let control = raw_call(url, Some(WRITE), "drawing_create", &write)
            .send()
            .await
            .expect("an answer");
        assert_eq!(control.status(), 200);
        let control = json_answer(control).await;
        assert_eq!(
            control["result"]["structuredContent"]["success"], true,
            "{control}"
        );
        assert_eq!(drawings(url).await, before + 1);

        let missing = raw_call(url, None, "drawing_create", &write)
            .send()
            .await
            .expect("an answer");
        assert_eq!(missing.status(), 401);
        assert_eq!(missing.headers()["www-authenticate"], "Bearer");

        let wrong = raw_call(url, Some(UNKNOWN), "drawing_create", &write)
            .send()
            .await
            .expect("an answer");
        assert_eq!(wrong.status(), 401);
        assert_eq!(
            wrong.headers()["www-authenticate"],
            "Bearer error=\"invalid_token\""
        );
        let body = wrong.text().await.expect("a body");
        assert!(!body.contains(UNKNOWN), "the token is not echoed: {body}");

        let foreign = raw_call(url, Some(WRITE), "drawing_create", &write)
            .header("origin", "http://evil.example")
            .send()
            .await
            .expect("an answer");
        assert_eq!(foreign.status(), 403);

        let mut huge = write.clone();
        huge["text"] = json!("x".repeat(4096));
        let oversized = raw_call(url, Some(WRITE), "drawing_create", &huge)
            .send()
            .await
            .expect("an answer");
        assert_eq!(oversized.status(), 413);

        assert_eq!(drawings(url).await, before + 1, "no refused call ran");

        // Origins of the server's own machine are served.
        let local = raw_call(url, Some(WRITE), "drawing_create", &write)
            .header("origin", "http://localhost:5173")
            .send()
            .await
            .expect("an answer");
        assert_eq!(local.status(), 200);
        assert_eq!(drawings(url).await, before + 2);

        // rmcp's client cannot even connect without a valid token.
        for lifecycle in LIFECYCLES {
            assert!(
                connect(url, None, lifecycle).await.is_none(),
                "{lifecycle:?}"
            );
            assert!(
                connect(url, Some(UNKNOWN), lifecycle).await.is_none(),
                "{lifecycle:?}"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_past_the_rate_limit_gets_429_with_retry_after_and_nothing_more_runs() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1", "--burst", "3"]);
        let url = server.url.as_str();
        let before = drawings(url).await;
        let mut served = 0;
        let mut limited = 0;
        for price in 0..8 {
            let response = raw_call(
                url,
                Some(WRITE_2),
                "drawing_create",
                &horizontal_line(f64::from(price)),
            )
            .send()
            .await
            .expect("an answer");
            match response.status().as_u16() {
                200 => served += 1,
                429 => {
                    limited += 1;
                    let wait: u64 = response.headers()["retry-after"]
                        .to_str()
                        .expect("a header in ASCII")
                        .parse()
                        .expect("seconds");
                    assert!((1..=2).contains(&wait), "Retry-After: {wait}");
                }
                status => panic!("unexpected status {status}"),
            }
        }
        assert!(served >= 3, "the burst is served: {served}");
        assert!(limited >= 1, "the rest is limited: {limited}");
        // The read token has its own budget; the chart holds exactly the served calls.
        assert_eq!(drawings(url).await, before + served);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_with_mixed_grants_never_see_each_others_policy() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1000"]);
        let url = server.url.as_str();
        let before = drawings(url).await;
        let read_names = expected_names(&RunPolicy::read_only());
        let write_names = expected_names(&RunPolicy::full());
        let rounds = 3;
        let clients = (0u32..16).map(|i| {
            let (token, names) = if i % 2 == 0 {
                (READ, &read_names)
            } else {
                (WRITE, &write_names)
            };
            let lifecycle = LIFECYCLES[usize::from(i % 4 >= 2)];
            async move {
                let client = client(url, token, lifecycle).await;
                let mut drawn = 0;
                for round in 0..rounds {
                    let (listed, _, _) = listed(&client).await;
                    assert_eq!(&listed, names, "client {i} ({lifecycle:?}), round {round}");
                    let answer =
                        envelope(&client, "drawing_create", horizontal_line(f64::from(i))).await;
                    if token == READ {
                        assert_eq!(
                            answer["error"]["code"], "TOOL_NOT_ALLOWED",
                            "client {i}: {answer}"
                        );
                    } else {
                        assert_eq!(answer["success"], true, "client {i}: {answer}");
                        drawn += 1;
                    }
                }
                let _ = client.cancel().await;
                drawn
            }
        });
        let drawn: usize = futures_util::future::join_all(clients)
            .await
            .into_iter()
            .sum();
        assert_eq!(drawn, 8 * rounds);
        assert_eq!(drawings(url).await, before + drawn);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_errors_over_http_carry_the_request_id() {
    bounded(async {
        let server = HttpServer::start(&["--rate-limit", "1000"]);
        let url = server.url.as_str();

        let invalid = raw_post(url, Some(READ), r#"{"jsonrpc":"2.0","id":77}"#)
            .send()
            .await
            .expect("an answer");
        assert_eq!(invalid.status(), 400);
        let invalid = json_answer(invalid).await;
        assert_eq!(invalid["id"], 77, "{invalid}");
        assert_eq!(invalid["error"]["code"], -32600, "{invalid}");

        let early = raw_post(
            url,
            Some(READ),
            r#"{"jsonrpc":"2.0","id":"e1","method":"tools/list"}"#,
        )
        .send()
        .await
        .expect("an answer");
        assert_eq!(early.status(), 400);
        let early = json_answer(early).await;
        assert_eq!(early["id"], "e1", "{early}");
        assert_eq!(early["error"]["code"], -32600, "{early}");
        assert!(
            early["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("send `initialize` first")),
            "{early}"
        );

        let garbage = raw_post(url, Some(READ), "{not json")
            .send()
            .await
            .expect("an answer");
        assert_eq!(garbage.status(), 400);
        let garbage = json_answer(garbage).await;
        assert_eq!(garbage["id"], Value::Null, "{garbage}");
        assert_eq!(garbage["error"]["code"], -32700, "{garbage}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tokens_a_loopback_server_serves_its_own_policy_to_everyone() {
    bounded(async {
        let server = HttpServer::start_with(false, &["--read-only"]);
        let client = connect(&server.url, None, Lifecycle::Session)
            .await
            .expect("no token needed");
        let (names, _, scope) = listed(&client).await;
        assert_eq!(names, expected_names(&RunPolicy::read_only()));
        assert_eq!(
            scope,
            Some(CacheScope::Public),
            "every caller sees this list"
        );
        let _ = client.cancel().await;
    })
    .await;
}

#[test]
fn without_tokens_the_server_refuses_an_address_other_hosts_can_reach() {
    let (status, stderr) = http_server::refused(&["--http", "0.0.0.0:0"]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: refusing to serve without authentication on 0.0.0.0:0"),
        "{stderr}"
    );
}

#[test]
fn a_bad_token_file_stops_the_server_naming_the_file_and_the_place() {
    let secret = "too-short-secret";
    let (_dir, path) = http_server::temp_file(&format!(
        "[[token]]\nname = \"r\"\ntoken = \"{secret}\"\ngrant = \"read\"\n"
    ));
    let path_text = path.to_str().expect("a UTF-8 path");
    let (status, stderr) = http_server::refused(&["--http", "127.0.0.1:0", "--tokens", path_text]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: the token file `{path_text}` is invalid at line 3, column 9: "
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains(secret),
        "the token is never printed: {stderr}"
    );
    let (status, stderr) = http_server::refused(&["--tokens", path_text]);
    assert_eq!(status, Some(2), "--tokens needs --http: {stderr}");
}
