//! Deferred tools over MCP (SPEC section 12): `tools/list` offers the eager tools and
//! `tool_search`, a search loads deferred tools into its session only (appended, the eager part
//! byte-identical, `notifications/tools/list_changed` sent), and a read-only server or a `read`
//! grant never returns, lists or runs a write. Over newline-delimited JSON-RPC (the stdio path)
//! and over Streamable HTTP, with rmcp's client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolwright_mcp::McpServer;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::policy::Defer;
use toolwright_runtime::{Registry, RunPolicy};

const TARGET: &str =
    r#"{"type":"object","properties":{"pane_id":{"type":"string"}},"additionalProperties":false}"#;

static PANES_LIST: ToolMeta = ToolMeta::new(
    "panes_list",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(TARGET),
)
.title("List panes")
.description("Lists the chart's panes.")
.source("tests/deferral.rs");

static DRAWING_CREATE: ToolMeta = ToolMeta::new(
    "drawing_create",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(TARGET),
)
.title("Create a drawing")
.description("Draws a horizontal line on a pane.")
.source("tests/deferral.rs");

static PRICE_HISTORY: ToolMeta = ToolMeta::new(
    "price_history",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(r#"{"type":"object","properties":{"symbol":{"type":"string"}},"additionalProperties":false}"#),
)
.title("Price history")
.description("Returns the daily closing prices of a symbol over the last year.")
.output_schema(StaticSchema::Json(
    r#"{"type":"object","properties":{"closes":{"type":"array","items":{"type":"number"}}},"required":["closes"]}"#,
))
.defer_loading()
.source("tests/deferral.rs");

static SYMBOL_SEARCH: ToolMeta = ToolMeta::new(
    "symbol_search",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}"#,
    ),
)
.title("Find a symbol")
.description("Finds ticker symbols whose company name matches a text.")
.defer_loading()
.source("tests/deferral.rs");

/// The write a read-only run must never surface.
static PANES_CLEAR: ToolMeta = ToolMeta::new(
    "panes_clear",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(TARGET),
)
.title("Clear a pane")
.description("Removes every drawing from a pane of the chart.")
.defer_loading()
.source("tests/deferral.rs");

/// How many calls reached tool code, and how many of them were writes.
#[derive(Debug, Default)]
struct Runs {
    all: AtomicUsize,
    writes: AtomicUsize,
}

fn run<'a>(runs: &'a Runs, meta: &'static ToolMeta, _: &'a Value) -> BoxFuture<'a, CallResult> {
    runs.all.fetch_add(1, Ordering::SeqCst);
    if !meta.safety.is_read_only() {
        runs.writes.fetch_add(1, Ordering::SeqCst);
    }
    Box::pin(async move {
        let data = if meta.name == "price_history" {
            json!({"closes": [1.5, 2.5]})
        } else {
            json!(meta.name)
        };
        Ok(ToolOutput {
            data: data.into(),
            state_changed: !meta.safety.is_read_only(),
        })
    })
}

fn registry() -> Arc<Registry<Runs>> {
    let mut builder = Registry::builder();
    for meta in [
        &PANES_LIST,
        &DRAWING_CREATE,
        &PRICE_HISTORY,
        &SYMBOL_SEARCH,
        &PANES_CLEAR,
    ] {
        builder = builder.tool(ToolDef {
            meta,
            handler: Handler::Named(run),
        });
    }
    Arc::new(builder.build().expect("the test tools are valid"))
}

fn server(policy: RunPolicy) -> McpServer<Runs> {
    McpServer::new(registry(), policy, Runs::default(), "deferral-test", "1")
        .expect("every test tool has an MCP definition")
}

/// A client that reports each `notifications/tools/list_changed`.
#[derive(Clone)]
struct Told(mpsc::UnboundedSender<()>);

impl ClientHandler for Told {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

struct Client {
    service: RunningService<RoleClient, Told>,
    told: mpsc::UnboundedReceiver<()>,
}

impl Client {
    /// A session of `server` over newline-delimited JSON-RPC (what `serve_stdio` serves).
    async fn lines(server: &McpServer<Runs>) -> Client {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let (input, output) = tokio::io::split(server_io);
        tokio::spawn(server.clone().serve_lines(input, output));
        let (tx, told) = mpsc::unbounded_channel();
        let service = Told(tx)
            .serve(client_io)
            .await
            .expect("the client connects");
        Client { service, told }
    }

    /// A session over Streamable HTTP with `token`.
    async fn http(url: &str, token: &str) -> Client {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let transport = StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
        );
        let (tx, told) = mpsc::unbounded_channel();
        let service = Told(tx)
            .serve(transport)
            .await
            .expect("the client connects over HTTP");
        Client { service, told }
    }

    async fn tools(&self) -> Vec<Tool> {
        self.service
            .list_all_tools()
            .await
            .expect("tools/list answers")
    }

    async fn envelope(&self, name: &str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object");
        };
        self.service
            .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
            .await
            .expect("a tool result")
            .structured_content
            .expect("the envelope is the structured content")
    }

    /// The tools a search for `query` returned.
    async fn search(&self, query: &str) -> Vec<Value> {
        let found = self
            .envelope("tool_search", json!({"query": query, "limit": 10}))
            .await;
        assert_eq!(found["success"], true, "{found}");
        assert_eq!(found["stateChanged"], false, "{found}");
        found["data"]["tools"]
            .as_array()
            .expect("the found tools")
            .clone()
    }

    /// Waits for `notifications/tools/list_changed`.
    async fn told(&mut self) {
        tokio::time::timeout(Duration::from_secs(20), self.told.recv())
            .await
            .expect("the client is told in time")
            .expect("the client runs");
    }

    /// True when `notifications/tools/list_changed` arrives within a short while.
    async fn told_soon(&mut self) -> bool {
        tokio::time::timeout(Duration::from_millis(300), self.told.recv())
            .await
            .is_ok()
    }
}

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

fn found_names(found: &[Value]) -> Vec<String> {
    found
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// Each listed definition as the bytes a client receives.
fn bytes(tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .map(|t| serde_json::to_string(t).expect("a definition serializes"))
        .collect()
}

/// The writes among `names` (by the registry's declarations; a name it does not know counts as
/// one, but `tool_search`, which is read-only).
fn writes(names: &[String]) -> Vec<String> {
    let registry = registry();
    names
        .iter()
        .filter(|n| {
            *n != "tool_search"
                && registry
                    .get(n)
                    .is_none_or(|def| !def.meta.safety.is_read_only())
        })
        .cloned()
        .collect()
}

/// A search for a tool as the model would ask for it if it knew the tool: its name and its
/// description, word for word.
fn query_for(meta: &ToolMeta) -> String {
    format!("{} {}", meta.name, meta.description)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_loads_a_deferred_tool_into_its_session_only() {
    let server = server(RunPolicy::full());
    assert!(server.defers());
    let mut client = Client::lines(&server).await;
    let info = client.service.peer_info().expect("the server's info");
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        Some(true),
        "the server says its list changes"
    );

    let eager = client.tools().await;
    assert_eq!(
        names(&eager),
        ["drawing_create", "panes_list", "tool_search"],
        "the eager tools and the search; no deferred tool"
    );
    let search = &eager[2];
    let hints = serde_json::to_value(search.annotations.as_ref().expect("annotations"))
        .expect("annotations serialize");
    assert_eq!(hints["readOnlyHint"], true, "{hints}");
    assert_eq!(hints["destructiveHint"], false, "{hints}");
    assert!(search.output_schema.is_some(), "the envelope schema");

    // A deferred tool nobody found is callable by name all the same: deferral is listing only.
    let direct = client
        .envelope("symbol_search", json!({"text": "acme"}))
        .await;
    assert_eq!(direct["success"], true, "{direct}");

    let found = client
        .search("daily closing prices of a symbol over the last year")
        .await;
    assert_eq!(
        found_names(&found).first().map(String::as_str),
        Some("price_history"),
        "{found:?}"
    );
    client.told().await;
    let after = client.tools().await;
    assert_eq!(
        bytes(&after[..3]),
        bytes(&eager),
        "the eager part is byte-identical"
    );
    assert_eq!(
        names(&after[3..]),
        found_names(&found),
        "the found tools are appended, in the order found"
    );
    let listed = serde_json::to_value(&after[3]).expect("serializes");
    assert_eq!(
        found[0], listed,
        "the search returns the definition tools/list gives (the envelope as output schema)"
    );
    assert!(
        listed["outputSchema"]["anyOf"].is_array(),
        "the envelope: {listed}"
    );
    let price = client
        .envelope("price_history", json!({"symbol": "ACME"}))
        .await;
    assert_eq!(price["data"]["closes"][1], 2.5, "{price}");

    // Found again: nothing new, nothing to tell.
    let again = client
        .search("daily closing prices of a symbol over the last year")
        .await;
    assert_eq!(found_names(&again), found_names(&found));
    assert!(!client.told_soon().await, "no notification for nothing new");
    assert_eq!(bytes(&client.tools().await), bytes(&after));

    // A second session of the same server starts from the eager list.
    let other = Client::lines(&server).await;
    assert_eq!(bytes(&other.tools().await), bytes(&eager));
    assert_eq!(
        names(&server.tools()),
        ["drawing_create", "panes_list", "tool_search"],
        "the server's own list is not a session's"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn found_tools_are_appended_in_the_order_found() {
    let server = server(RunPolicy::full());
    let mut client = Client::lines(&server).await;
    let eager = client.tools().await;
    let first = client.search(&query_for(&SYMBOL_SEARCH)).await;
    assert_eq!(
        found_names(&first).first().map(String::as_str),
        Some("symbol_search")
    );
    client.told().await;
    let second = client.search(&query_for(&PRICE_HISTORY)).await;
    assert_eq!(
        found_names(&second).first().map(String::as_str),
        Some("price_history")
    );
    let mut order = found_names(&first);
    for name in found_names(&second) {
        if !order.contains(&name) {
            order.push(name);
        }
    }
    let listed = client.tools().await;
    assert_eq!(bytes(&listed[..eager.len()]), bytes(&eager));
    assert_eq!(names(&listed[eager.len()..]), order);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_server_never_surfaces_or_runs_a_write() {
    let server = server(RunPolicy::read_only());
    let runs = Arc::clone(server.context());
    let client = Client::lines(&server).await;
    let eager = client.tools().await;
    assert_eq!(names(&eager), ["panes_list", "tool_search"]);
    for meta in [&PANES_CLEAR, &DRAWING_CREATE] {
        let found = client.search(&query_for(meta)).await;
        assert!(
            writes(&found_names(&found)).is_empty(),
            "a read-only search returns no write: {found:?}"
        );
        for definition in &found {
            assert_eq!(
                definition["annotations"]["readOnlyHint"], true,
                "{definition}"
            );
        }
    }
    let listed = client.tools().await;
    assert!(
        writes(&names(&listed)).is_empty(),
        "no write is listed: {:?}",
        names(&listed)
    );
    assert_eq!(bytes(&listed[..2]), bytes(&eager));
    for name in ["panes_clear", "drawing_create"] {
        let forged = client.envelope(name, json!({"pane_id": "main"})).await;
        assert_eq!(forged["error"]["code"], "TOOL_NOT_ALLOWED", "{forged}");
    }
    assert_eq!(
        runs.read().await.writes.load(Ordering::SeqCst),
        0,
        "no write ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_rule_defers_tools_and_a_server_without_deferral_offers_no_search() {
    // Every tool past the first one deferred (the declared ones are deferred anyway).
    let server = server(RunPolicy::full().defer(Defer::After(1)));
    let client = Client::lines(&server).await;
    assert_eq!(
        names(&client.tools().await),
        ["drawing_create", "tool_search"]
    );
    let found = client.search(&query_for(&PANES_LIST)).await;
    assert!(found_names(&found).contains(&"panes_list".to_owned()));

    // No deferred tool: no search, no `listChanged`, the list cached as before.
    let plain = Registry::builder()
        .tool(ToolDef {
            meta: &PANES_LIST,
            handler: Handler::Named(run),
        })
        .build()
        .expect("valid");
    let server = McpServer::new(
        Arc::new(plain),
        RunPolicy::full(),
        Runs::default(),
        "p",
        "1",
    )
    .expect("an MCP definition");
    assert!(!server.defers());
    let client = Client::lines(&server).await;
    assert_eq!(names(&client.tools().await), ["panes_list"]);
    let info = client.service.peer_info().expect("the server's info");
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        None
    );
    let unknown = client
        .service
        .call_tool(CallToolRequestParams::new("tool_search").with_arguments(
            serde_json::Map::from_iter([("query".to_owned(), json!("x"))]),
        ))
        .await;
    assert!(
        unknown.is_err(),
        "an unknown tool is a protocol error: {unknown:?}"
    );
}

#[cfg(feature = "http")]
mod http {
    use super::*;
    use toolwright_mcp::auth::{Access, Grant, Rejection, TokenVerifier};
    use toolwright_mcp::http::{HttpConfig, HttpServer};

    /// `reader` has a read grant, `writer` a write grant.
    #[derive(Debug)]
    struct Tokens;

    impl TokenVerifier for Tokens {
        fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Grant, Rejection>> {
            Box::pin(async move {
                match token {
                    "reader" => Ok(Grant::new("r", Access::Read)),
                    "writer" => Ok(Grant::new("w", Access::Write)),
                    _ => Err(Rejection::InvalidToken),
                }
            })
        }
    }

    async fn start(server: McpServer<Runs>) -> (String, tokio::sync::oneshot::Sender<()>) {
        let config = HttpConfig::default().with_verifier(Arc::new(Tokens));
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

    /// One request of a client without a session (protocol 2026-07-28): the JSON-RPC answer.
    async fn stateless(url: &str, token: &str, name: &str, arguments: Value) -> Value {
        let body = json!({
            "jsonrpc": "2.0",
            "id": 7,
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
        let response = reqwest::Client::new()
            .post(url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(body.to_string())
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), 200);
        let text = response.text().await.expect("a body");
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("one JSON answer, no event stream ({e}): {text}"))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn over_http_each_session_loads_its_own_and_a_read_grant_finds_no_write() {
        let server = server(RunPolicy::full());
        let runs = Arc::clone(server.context());
        let (url, stop) = start(server).await;

        let reader = Client::http(&url, "reader").await;
        let eager = reader.tools().await;
        assert_eq!(names(&eager), ["panes_list", "tool_search"]);
        let found = reader.search(&query_for(&PANES_CLEAR)).await;
        assert!(
            writes(&found_names(&found)).is_empty(),
            "a read grant's search returns no write: {found:?}"
        );
        assert!(writes(&names(&reader.tools().await)).is_empty());
        let forged = reader
            .envelope("panes_clear", json!({"pane_id": "main"}))
            .await;
        assert_eq!(forged["error"]["code"], "TOOL_NOT_ALLOWED", "{forged}");
        assert_eq!(runs.read().await.writes.load(Ordering::SeqCst), 0);

        let mut writer = Client::http(&url, "writer").await;
        let eager = writer.tools().await;
        assert_eq!(
            names(&eager),
            ["drawing_create", "panes_list", "tool_search"]
        );
        let found = writer.search(&query_for(&PANES_CLEAR)).await;
        assert_eq!(
            found_names(&found).first().map(String::as_str),
            Some("panes_clear")
        );
        writer.told().await;
        let listed = writer.tools().await;
        assert_eq!(bytes(&listed[..3]), bytes(&eager));
        assert_eq!(names(&listed[3..]), found_names(&found));
        let cleared = writer
            .envelope("panes_clear", json!({"pane_id": "main"}))
            .await;
        assert_eq!(cleared["success"], true, "{cleared}");
        // The reader's session loaded nothing of the writer's.
        assert!(writes(&names(&reader.tools().await)).is_empty());
        assert!(!names(&reader.tools().await).contains(&"panes_clear".to_owned()));

        // Without a session: the search answers (one JSON answer, nothing sent before it), and
        // a found tool is called by name.
        let answer = stateless(
            &url,
            "writer",
            "tool_search",
            json!({"query": query_for(&PRICE_HISTORY)}),
        )
        .await;
        let envelope = &answer["result"]["structuredContent"];
        assert_eq!(
            envelope["data"]["tools"][0]["name"], "price_history",
            "{answer}"
        );
        let price = stateless(&url, "writer", "price_history", json!({"symbol": "A"})).await;
        assert_eq!(
            price["result"]["structuredContent"]["success"], true,
            "{price}"
        );
        let read_only = stateless(
            &url,
            "reader",
            "tool_search",
            json!({"query": query_for(&PANES_CLEAR)}),
        )
        .await;
        let tools = read_only["result"]["structuredContent"]["data"]["tools"]
            .as_array()
            .expect("the found tools")
            .clone();
        assert!(writes(&found_names(&tools)).is_empty(), "{read_only}");

        let _ = stop.send(());
    }
}
