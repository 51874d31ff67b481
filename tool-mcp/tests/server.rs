//! The MCP server end to end: an in-process server and rmcp's client over a duplex stream.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode, Implementation,
    ProtocolVersion, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::RwLock;
use toolwright_mcp::McpServer;
use toolwright_runtime::approval::{ApprovalStore, Decision, MemoryApprovalStore};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta,
    ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolError};

#[derive(Debug)]
struct Chart {
    panes: Vec<String>,
    drawings: Vec<String>,
}

impl Chart {
    fn new() -> Self {
        Chart {
            panes: vec!["main".to_owned(), "lower".to_owned()],
            drawings: Vec::new(),
        }
    }
}

static PANES_LIST: ToolMeta = ToolMeta::new(
    "panes_list",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"prefix":{"type":"string"}},"additionalProperties":false}"#,
    ),
)
.title("List panes")
.description("Lists the chart's panes.")
.category("chart")
.output_schema(StaticSchema::Json(
        r#"{"type":"object","properties":{"panes":{"type":"array","items":{"type":"string"}}},"required":["panes"],"additionalProperties":false}"#,
    ))
.source("tests/mcp.rs");

fn panes_list<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let prefix = args.get("prefix").and_then(Value::as_str).unwrap_or("");
        let panes: Vec<&String> = chart
            .panes
            .iter()
            .filter(|p| p.starts_with(prefix))
            .collect();
        Ok(ToolOutput {
            data: json!({ "panes": panes }).into(),
            state_changed: false,
        })
    })
}

static DRAWING_ERRORS: &[ErrorMeta] = &[ErrorMeta::new(
    "PANE_NOT_FOUND",
    "Pane not found.",
    true,
    "Call panes_list to get the valid pane IDs, then retry.",
)];

static DRAWING_CREATE: ToolMeta = ToolMeta::new(
    "drawing_create",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"pane_id":{"type":"string"},"price":{"type":"number"}},"required":["pane_id","price"],"additionalProperties":false}"#,
    ),
)
.title("Create a drawing")
.description("Draws a horizontal line on a pane.")
.category("chart")
.errors(DRAWING_ERRORS)
.source("tests/mcp.rs");

fn drawing_create<'a>(chart: &'a mut Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let pane = args["pane_id"].as_str().unwrap_or_default();
        if !chart.panes.iter().any(|p| p == pane) {
            return Err(ToolError::Declared {
                code: "PANE_NOT_FOUND",
                detail: Some(format!("Valid pane IDs: {}.", chart.panes.join(", "))),
            });
        }
        let id = format!("d{}", chart.drawings.len() + 1);
        chart.drawings.push(id.clone());
        Ok(ToolOutput {
            data: json!({ "id": id }).into(),
            state_changed: true,
        })
    })
}

/// Declares an output schema; for the query `"off-schema"` it returns something else.
static WEB_SEARCH: ToolMeta = ToolMeta::new(
    "web_search",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"query":{"type":"string","minLength":1}},"required":["query"],"additionalProperties":false}"#,
    ),
)
.title("Search the web")
.description("Searches the web.")
.category("web")
.output_schema(StaticSchema::Json(
        r#"{"type":"object","properties":{"results":{"type":"array","items":{"type":"string"}}},"required":["results"],"additionalProperties":false}"#,
    ))
.source("tests/mcp.rs");

fn web_search<'a>(_chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let query = args["query"].as_str().unwrap_or_default();
        let data = if query == "off-schema" {
            json!({ "hits": 3 })
        } else {
            json!({ "results": [format!("about {query}")] })
        };
        Ok(ToolOutput {
            data: data.into(),
            state_changed: false,
        })
    })
}

fn registry() -> Arc<Registry<Chart>> {
    Arc::new(
        Registry::builder()
            .tool(ToolDef {
                meta: &PANES_LIST,
                handler: Handler::Shared(panes_list),
            })
            .tool(ToolDef {
                meta: &DRAWING_CREATE,
                handler: Handler::Exclusive(drawing_create),
            })
            .tool(ToolDef {
                meta: &WEB_SEARCH,
                handler: Handler::Shared(web_search),
            })
            .build()
            .expect("the test tools are valid"),
    )
}

struct Session {
    client: RunningService<RoleClient, ()>,
    chart: Arc<RwLock<Chart>>,
}

impl Session {
    async fn start(policy: RunPolicy) -> Session {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = McpServer::new(registry(), policy, Chart::new(), "chart-test", "1.2.3")
            .expect("every test tool has an MCP definition");
        let chart = Arc::clone(server.context());
        tokio::spawn(server.serve(server_io));
        let client = ().serve(client_io).await.expect("the client connects");
        Session { client, chart }
    }

    async fn tools(&self) -> Vec<Tool> {
        self.client
            .list_all_tools()
            .await
            .expect("tools/list answers")
    }

    async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object");
        };
        self.client
            .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
            .await
    }

    async fn envelope(&self, name: &str, arguments: Value) -> (Value, bool) {
        let result = self.call(name, arguments).await.expect("a tool result");
        let structured = result
            .structured_content
            .clone()
            .expect("the envelope is the structured content");
        let texts: Vec<String> = result
            .content
            .iter()
            .map(|c| c.as_text().expect("text content").text.clone())
            .collect();
        assert_eq!(texts.len(), 1, "one text content");
        assert!(
            texts[0].starts_with(r#"{"success":"#),
            "the text keeps the envelope's key order: {}",
            texts[0]
        );
        let text: Value = serde_json::from_str(&texts[0]).expect("the text is the JSON envelope");
        assert_eq!(text, structured, "the text and the structure agree");
        assert_eq!(
            result.is_error,
            Some(structured["success"] != json!(true)),
            "isError is true exactly when success is false"
        );
        (structured, result.is_error == Some(true))
    }
}

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

fn annotations(tool: &Tool) -> Value {
    serde_json::to_value(tool.annotations.as_ref().expect("explicit annotations"))
        .expect("annotations serialize")
}

#[tokio::test]
async fn a_full_server_lists_every_tool_with_explicit_annotations() {
    let session = Session::start(RunPolicy::full()).await;
    let tools = session.tools().await;
    assert_eq!(
        names(&tools),
        ["drawing_create", "panes_list", "web_search"]
    );
    assert_eq!(
        annotations(&tools[0]),
        json!({"title": "Create a drawing", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(
        annotations(&tools[1]),
        json!({"title": "List panes", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(
        annotations(&tools[2]),
        json!({"title": "Search the web", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        DRAWING_CREATE
            .input_schema
            .to_value()
            .expect("the frozen schema is JSON")
    );
    assert_eq!(tools[0].title.as_deref(), Some("Create a drawing"));
    assert_eq!(
        tools[0].description.as_deref(),
        Some("Draws a horizontal line on a pane.")
    );
    let info = session
        .client
        .peer_info()
        .expect("the server introduced itself");
    let server = info.server_info.as_ref().expect("the server named itself");
    assert_eq!(server.name, "chart-test");
    assert_eq!(server.version, "1.2.3");
}

#[tokio::test]
async fn a_read_only_server_lists_only_read_only_tools() {
    let session = Session::start(RunPolicy::read_only()).await;
    let tools = session.tools().await;
    assert_eq!(names(&tools), ["panes_list", "web_search"]);
    for tool in &tools {
        assert_eq!(annotations(tool)["readOnlyHint"], true, "{}", tool.name);
        assert_eq!(annotations(tool)["destructiveHint"], false, "{}", tool.name);
    }
    let disabled = Session::start(RunPolicy::read_only().disable("web_search")).await;
    assert_eq!(names(&disabled.tools().await), ["panes_list"]);
}

#[tokio::test]
async fn a_call_returns_the_envelope_as_structure_and_text() {
    let session = Session::start(RunPolicy::full()).await;
    let (envelope, is_error) = session
        .envelope("panes_list", json!({"prefix": "ma"}))
        .await;
    assert!(!is_error);
    assert_eq!(
        envelope,
        json!({"success": true, "data": {"panes": ["main"]}, "stateChanged": false})
    );

    let (envelope, is_error) = session
        .envelope("drawing_create", json!({"pane_id": "main", "price": 1.5}))
        .await;
    assert!(!is_error);
    assert_eq!(
        envelope,
        json!({"success": true, "data": {"id": "d1"}, "stateChanged": true})
    );
    assert_eq!(session.chart.read().await.drawings, ["d1"]);
}

#[tokio::test]
async fn invalid_input_is_a_result_with_is_error() {
    let session = Session::start(RunPolicy::full()).await;
    let (envelope, is_error) = session
        .envelope(
            "drawing_create",
            json!({"pane_id": "main", "price": "high"}),
        )
        .await;
    assert!(is_error);
    assert_eq!(
        envelope,
        json!({
            "success": false,
            "error": {
                "code": "TOOL_INPUT_INVALID",
                "message": "The tool input is invalid: /price: Expected number",
                "retryable": true,
                "recommendedAction": "Correct the invalid field and retry the request."
            },
            "stateChanged": false
        })
    );
    assert!(session.chart.read().await.drawings.is_empty());
}

#[tokio::test]
async fn a_declared_domain_error_is_a_result_with_its_hint() {
    let session = Session::start(RunPolicy::full()).await;
    let (envelope, is_error) = session
        .envelope("drawing_create", json!({"pane_id": "upper", "price": 1}))
        .await;
    assert!(is_error);
    assert_eq!(envelope["error"]["code"], "PANE_NOT_FOUND");
    assert_eq!(
        envelope["error"]["message"],
        "Pane not found. Valid pane IDs: main, lower."
    );
    assert_eq!(
        envelope["error"]["recommendedAction"],
        "Call panes_list to get the valid pane IDs, then retry."
    );
    assert_eq!(envelope["stateChanged"], false);
}

#[tokio::test]
async fn a_write_in_a_read_only_server_is_refused_as_a_result() {
    let session = Session::start(RunPolicy::read_only()).await;
    let (envelope, is_error) = session
        .envelope("drawing_create", json!({"pane_id": "main", "price": 1}))
        .await;
    assert!(is_error);
    assert_eq!(
        envelope,
        json!({
            "success": false,
            "error": {
                "code": "TOOL_NOT_ALLOWED",
                "message": "The tool `drawing_create` changes state and this run is read-only.",
                "retryable": false,
                "recommendedAction": "Do not retry: this run is read-only. Use only the tools offered in this run."
            },
            "stateChanged": false
        })
    );
    assert!(
        session.chart.read().await.drawings.is_empty(),
        "the tool never ran"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_the_protocols_invalid_params_error() {
    let session = Session::start(RunPolicy::full()).await;
    let error = session
        .call("drawing_craete", json!({}))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.code.0, -32602);
    assert_eq!(
        error.message,
        "unknown tool `drawing_craete`, close names: `drawing_create`"
    );
}

#[tokio::test]
async fn structured_content_validates_against_the_declared_output_schema() {
    let session = Session::start(RunPolicy::full()).await;
    let tools = session.tools().await;
    let validator = |name: &str| {
        let tool = tools
            .iter()
            .find(|t| t.name == name)
            .expect("the tool is listed");
        let schema = Value::Object(
            (**tool
                .output_schema
                .as_ref()
                .expect("every tool declares its output"))
            .clone(),
        );
        assert_eq!(schema["type"], "object", "MCP wants an object root");
        jsonschema::draft202012::new(&schema).expect("the output schema compiles")
    };
    let cases = [
        ("panes_list", json!({})),
        ("panes_list", json!({"prefix": 7})),
        ("drawing_create", json!({"pane_id": "main", "price": 2})),
        ("drawing_create", json!({"pane_id": "nowhere", "price": 2})),
        ("drawing_create", json!({"price": 2})),
        ("web_search", json!({"query": "eurusd"})),
        ("web_search", json!({"query": ""})),
        ("web_search", json!({"query": "off-schema"})),
    ];
    let mut outcomes = BTreeSet::new();
    for (name, arguments) in cases {
        let (envelope, is_error) = session.envelope(name, arguments.clone()).await;
        let validator = validator(name);
        let errors: Vec<String> = validator
            .iter_errors(&envelope)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{name} {arguments}: {envelope} does not validate: {errors:?}"
        );
        outcomes.insert(is_error);
    }
    assert_eq!(
        outcomes,
        BTreeSet::from([false, true]),
        "successes and errors were both checked"
    );
    // The declared output schema constrains `data`: a success that breaks it is not valid.
    let wrong = json!({"success": true, "data": {"hits": 3}, "stateChanged": false});
    assert!(!validator("web_search").is_valid(&wrong));
}

#[tokio::test]
async fn output_off_its_declared_schema_becomes_tool_failed() {
    let session = Session::start(RunPolicy::full()).await;
    let (envelope, is_error) = session
        .envelope("web_search", json!({"query": "off-schema"}))
        .await;
    assert!(is_error);
    assert_eq!(envelope["error"]["code"], "TOOL_FAILED");
    assert_eq!(
        envelope["error"]["message"],
        "The tool `web_search` returned output that does not match its declared output schema."
    );
    assert_eq!(envelope["stateChanged"], false);
}

#[tokio::test]
async fn concurrent_writes_of_one_session_never_overlap() {
    let session = Session::start(RunPolicy::full()).await;
    let write =
        |price: i64| session.envelope("drawing_create", json!({"pane_id": "main", "price": price}));
    let read = || session.envelope("panes_list", json!({}));
    let (a, b, c, r1, r2) = tokio::join!(write(1), write(2), write(3), read(), read());
    let ids: BTreeSet<String> = [a, b, c]
        .into_iter()
        .map(|(envelope, _)| {
            envelope["data"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(
        ids,
        BTreeSet::from(["d1".to_owned(), "d2".to_owned(), "d3".to_owned()])
    );
    for (envelope, _) in [r1, r2] {
        assert_eq!(envelope["success"], true);
    }
    assert_eq!(session.chart.read().await.drawings.len(), 3);
}

#[tokio::test]
async fn missing_arguments_read_as_an_empty_object() {
    let session = Session::start(RunPolicy::full()).await;
    let result = session
        .client
        .call_tool(CallToolRequestParams::new("panes_list"))
        .await
        .expect("a tool result");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.structured_content,
        Some(json!({"success": true, "data": {"panes": ["main", "lower"]}, "stateChanged": false}))
    );
}

#[tokio::test]
async fn an_mcp_session_reads_null_as_a_value_whatever_the_policy_says() {
    let policy = RunPolicy::full().with_dialect(toolwright_runtime::provider::Dialect::OpenAi);
    let server = McpServer::new(registry(), policy, Chart::new(), "chart-test", "1.2.3")
        .expect("every test tool has an MCP definition");
    assert_eq!(
        server.policy().dialect(),
        Some(toolwright_runtime::provider::Dialect::Mcp)
    );
    let result = server.execute("panes_list", &json!({"prefix": null})).await;
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool input is invalid: /prefix: Expected string")
    );
}

#[tokio::test]
async fn the_free_serve_function_serves_a_session() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(toolwright_mcp::serve(
        registry(),
        RunPolicy::read_only(),
        Chart::new(),
        "chart-test",
        "1.2.3",
        server_io,
    ));
    let client = ().serve(client_io).await.expect("the client connects");
    let tools = client.list_all_tools().await.expect("tools/list answers");
    assert_eq!(names(&tools), ["panes_list", "web_search"]);
    client
        .cancel()
        .await
        .expect("the client closes the session");
    server
        .await
        .expect("the server task ends")
        .expect("the session ends cleanly when the client leaves");
}

#[tokio::test]
async fn reads_share_the_context_and_writes_have_it_to_themselves() {
    use futures_util::FutureExt as _;

    let server = McpServer::new(
        registry(),
        RunPolicy::full(),
        Chart::new(),
        "chart-test",
        "1",
    )
    .expect("every test tool has an MCP definition");
    let write = json!({"pane_id": "main", "price": 1});

    // While another reader holds the context, reads run and writes wait.
    let reading = server.context().read().await;
    let read = server.execute("panes_list", &json!({})).now_or_never();
    assert_eq!(read.map(|r| r.is_success()), Some(true), "reads share");
    assert!(
        server
            .execute("drawing_create", &write)
            .now_or_never()
            .is_none(),
        "a write waits for the readers"
    );
    drop(reading);

    // While a write holds the context, reads wait; refused and invalid calls answer at once.
    let writing = server.context().write().await;
    assert!(
        server
            .execute("panes_list", &json!({}))
            .now_or_never()
            .is_none(),
        "a read waits for the write"
    );
    let invalid = server
        .execute("drawing_create", &json!({"pane_id": "main"}))
        .now_or_never()
        .expect("invalid input answers without the context");
    assert_eq!(invalid.code(), Some("TOOL_INPUT_INVALID"));
    drop(writing);

    let read_only = McpServer::new(registry(), RunPolicy::read_only(), Chart::new(), "t", "1")
        .expect("every test tool has an MCP definition");
    let _writing = read_only.context().write().await;
    let refused = read_only
        .execute("drawing_create", &write)
        .now_or_never()
        .expect("a refusal answers without the context");
    assert_eq!(refused.code(), Some("TOOL_NOT_ALLOWED"));
}

// ---- approvals over MCP: an input request for a confirmation ----

/// How the person at the client answers a confirmation.
#[derive(Clone)]
enum Answer {
    Approve,
    Refuse(&'static str),
    Decline,
}

/// A client on protocol 2026-07-28 that answers elicitations and records their messages.
#[derive(Clone)]
struct Confirming {
    answer: Answer,
    asked: Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Confirming {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = &request
        {
            let schema = serde_json::to_value(requested_schema).expect("the schema serializes");
            assert_eq!(schema["properties"]["approve"]["type"], "boolean");
            assert_eq!(schema["required"], json!(["approve"]));
            self.asked.lock().expect("lock").push(message.clone());
        }
        Ok(match self.answer {
            Answer::Approve => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true}))
            }
            Answer::Refuse(reason) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"approve": false, "reason": reason})),
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("confirming-client", "1.0.0"),
        )
    }
}

fn deferring() -> RunPolicy {
    RunPolicy::full().with_approval(|_| Decision::Defer)
}

/// A server whose approver defers every write, and a 2026-07-28 client answering `answer`.
async fn confirming_session(
    answer: Answer,
) -> (
    RunningService<RoleClient, Confirming>,
    Arc<RwLock<Chart>>,
    Arc<std::sync::Mutex<Vec<String>>>,
) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(registry(), deferring(), Chart::new(), "chart-test", "1.2.3")
        .expect("every test tool has an MCP definition");
    let chart = Arc::clone(server.context());
    tokio::spawn(server.serve(server_io));
    let (client, asked) = confirming_client(answer, client_io).await;
    (client, chart, asked)
}

/// A 2026-07-28 client answering `answer` on `io`, and the confirmations it was asked.
async fn confirming_client(
    answer: Answer,
    io: tokio::io::DuplexStream,
) -> (
    RunningService<RoleClient, Confirming>,
    Arc<std::sync::Mutex<Vec<String>>>,
) {
    let asked = Arc::default();
    let client = Confirming {
        answer,
        asked: Arc::clone(&asked),
    }
    .serve_with_lifecycle(
        io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the client connects on 2026-07-28");
    (client, asked)
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("arguments are an object");
    };
    map
}

#[tokio::test]
async fn a_deferred_write_asks_the_client_and_runs_once_confirmed() {
    let (client, chart, asked) = confirming_session(Answer::Approve).await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("drawing_create")
                .with_arguments(arguments(json!({"pane_id": "main", "price": 1.5}))),
        )
        .await
        .expect("a tool result");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"success": true, "data": {"id": "d1"}, "stateChanged": true}))
    );
    assert_eq!(chart.read().await.drawings, ["d1"]);
    let asked = asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 1, "one confirmation");
    assert!(
        asked[0].contains("`drawing_create`")
            && asked[0].contains(r#"{"pane_id":"main","price":1.5}"#),
        "{}",
        asked[0]
    );
    // Reads are never asked about.
    let read = client
        .call_tool(CallToolRequestParams::new("panes_list"))
        .await
        .expect("a tool result");
    assert_eq!(read.is_error, Some(false));
}

#[tokio::test]
async fn a_refusal_at_the_client_reaches_the_model_and_nothing_runs() {
    for (answer, message) in [
        (
            Answer::Refuse("Not on the main pane."),
            "The call to `drawing_create` was not approved: Not on the main pane.",
        ),
        (
            Answer::Decline,
            "The call to `drawing_create` was not approved: The user declined the call.",
        ),
    ] {
        let (client, chart, _) = confirming_session(answer).await;
        let result = client
            .call_tool(
                CallToolRequestParams::new("drawing_create")
                    .with_arguments(arguments(json!({"pane_id": "main", "price": 1}))),
            )
            .await
            .expect("a tool result");
        let envelope = result.structured_content.expect("the envelope");
        assert_eq!(envelope["error"]["code"], "TOOL_NOT_ALLOWED");
        assert_eq!(envelope["error"]["message"], message);
        assert!(chart.read().await.drawings.is_empty());
    }
}

#[tokio::test]
async fn an_invalid_write_is_answered_without_asking() {
    let (client, _, asked) = confirming_session(Answer::Approve).await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("drawing_create")
                .with_arguments(arguments(json!({"pane_id": "main"}))),
        )
        .await
        .expect("a tool result");
    let envelope = result.structured_content.expect("the envelope");
    assert_eq!(envelope["error"]["code"], "TOOL_INPUT_INVALID");
    assert!(asked.lock().expect("lock").is_empty(), "nobody was asked");
}

#[tokio::test]
async fn the_request_state_is_sealed_bound_to_its_arguments_and_used_once() {
    let (client, chart, _) = confirming_session(Answer::Approve).await;
    let call = CallToolRequestParams::new("drawing_create")
        .with_arguments(arguments(json!({"pane_id": "main", "price": 2})));
    let CallToolResponse::InputRequired(asked) = client
        .call_tool_once(call.clone())
        .await
        .expect("an answer")
    else {
        panic!("an input request");
    };
    let state = asked.request_state.clone().expect("a request state");
    let requests = asked.input_requests.expect("input requests");
    assert!(requests.contains_key("approval"));
    let approve: rmcp::model::InputResponses = [(
        "approval".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )]
    .into_iter()
    .collect();
    let retry = |params: CallToolRequestParams| {
        let client = &client;
        async move {
            match client.call_tool_once(params).await.expect("an answer") {
                CallToolResponse::Complete(result) => {
                    result.structured_content.expect("the envelope")
                }
                other => panic!("a result: {other:?}"),
            }
        }
    };
    // A changed state does not verify.
    let mut forged = state.clone();
    forged.insert(forged.len() / 2, 'x');
    let envelope = retry(
        call.clone()
            .with_request_state(forged)
            .with_input_responses(approve.clone()),
    )
    .await;
    assert_eq!(envelope["error"]["code"], "TOOL_NOT_ALLOWED");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not verify")),
        "{envelope}"
    );
    // The state approves these arguments, not others.
    let other = CallToolRequestParams::new("drawing_create")
        .with_arguments(arguments(json!({"pane_id": "lower", "price": 2})));
    let envelope = retry(
        other
            .with_request_state(state.clone())
            .with_input_responses(approve.clone()),
    )
    .await;
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("other arguments")),
        "{envelope}"
    );
    assert!(chart.read().await.drawings.is_empty());
    // The right state runs the call, once.
    let with_state = call.with_request_state(state).with_input_responses(approve);
    let envelope = retry(with_state.clone()).await;
    assert_eq!(envelope["success"], true, "{envelope}");
    let envelope = retry(with_state).await;
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already decided")),
        "{envelope}"
    );
    assert_eq!(chart.read().await.drawings, ["d1"], "it ran once");
}

#[tokio::test]
async fn the_servers_ledger_forgets_approvals_once_they_expired() {
    // The policy's clock, in seconds since the Unix epoch: it moves half an approval's life
    // between calls, so that each approval expires two calls after it was asked.
    let seconds = Arc::new(AtomicU64::new(1_000_000));
    let ttl = Duration::from_secs(60);
    let policy = deferring().with_approval_ttl(ttl).with_clock({
        let seconds = Arc::clone(&seconds);
        move || UNIX_EPOCH + Duration::from_secs(seconds.load(Ordering::Relaxed))
    });
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let ledger = Arc::new(MemoryApprovalStore::new());
    let server = McpServer::new(registry(), policy, Chart::new(), "chart-test", "1.2.3")
        .expect("every test tool has an MCP definition")
        .with_approval_store(Arc::clone(&ledger) as Arc<dyn ApprovalStore>);
    let chart = Arc::clone(server.context());
    tokio::spawn(server.serve(server_io));
    let (client, _) = confirming_client(Answer::Approve, client_io).await;
    let calls = 40;
    let mut largest = 0;
    for call in 0..calls {
        let result = client
            .call_tool(
                CallToolRequestParams::new("drawing_create")
                    .with_arguments(arguments(json!({"pane_id": "main", "price": call}))),
            )
            .await
            .expect("a tool result");
        assert_eq!(result.is_error, Some(false), "call {call}: {result:?}");
        largest = largest.max(ledger.len());
        seconds.fetch_add(ttl.as_secs() / 2, Ordering::Relaxed);
    }
    assert_eq!(
        chart.read().await.drawings.len(),
        calls,
        "every call ran once"
    );
    assert!(
        largest <= 3,
        "the ledger held {largest} approvals, while at most 2 were unexpired at a time"
    );
}

/// A raw newline-delimited session: lines in, lines out.
struct Lines {
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    output: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Lines {
    /// A server reading lines of at most `max_line_bytes`, after the handshake.
    async fn start(max_line_bytes: usize) -> Lines {
        use tokio::io::AsyncBufReadExt as _;
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = McpServer::new(registry(), RunPolicy::full(), Chart::new(), "t", "1")
            .expect("every test tool has an MCP definition")
            .with_max_line_bytes(max_line_bytes);
        let (input, output) = tokio::io::split(server_io);
        tokio::spawn(server.serve_lines(input, output));
        let (output, input) = tokio::io::split(client_io);
        let mut lines = Lines {
            input,
            output: tokio::io::BufReader::new(output).lines(),
        };
        lines
            .send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
            .await;
        assert_eq!(lines.answer().await["id"], 0);
        lines
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        lines
    }

    async fn send(&mut self, line: &str) {
        use tokio::io::AsyncWriteExt as _;
        self.input
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("the server reads");
    }

    async fn answer(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.output.next_line())
            .await
            .expect("an answer in time")
            .expect("the server writes")
            .expect("a line");
        serde_json::from_str(&line).expect("an answer in JSON")
    }
}

#[tokio::test]
async fn a_line_over_the_bound_is_answered_with_the_id_its_start_gives() {
    let max = 256;
    let mut lines = Lines::start(max).await;
    let pad = "x".repeat(2 * max);
    let call = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"web_search","arguments":{{"query":"{pad}"}}}}}}"#
        )
    };
    for (line, id) in [
        (call("7"), json!(7)),
        (call(r#""call-8""#), json!("call-8")),
        (call("-9.5"), json!(-9.5)),
        // Members before `id` are skipped, however they nest, as long as `id` is in the start.
        (
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"web_search","arguments":{{"id":1}}}},"id":10,"pad":"{pad}"}}"#
            ),
            json!(10),
        ),
        // `id` past the bound, after the arguments that made the line long: not known.
        (
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"web_search","arguments":{{"query":"{pad}"}}}},"id":11}}"#
            ),
            Value::Null,
        ),
        // An `id` inside the parameters is not the message's.
        (
            format!(r#"{{"jsonrpc":"2.0","params":{{"id":12,"pad":"{pad}"}}}}"#),
            Value::Null,
        ),
        // Not a message at all, or an `id` that is neither a number nor a string.
        (format!("[{{\"id\":13}},\"{pad}\"]"), Value::Null),
        (call(r#"{"n":14}"#), Value::Null),
        (call("null"), Value::Null),
    ] {
        lines.send(&line).await;
        let answer = lines.answer().await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert_eq!(
            answer["error"]["message"],
            format!(
                "Invalid Request: the line is over {max} bytes, the most a message may have; it was discarded"
            )
        );
    }
    lines
        .send(r#"{"jsonrpc":"2.0","id":15,"method":"tools/list"}"#)
        .await;
    let listed = lines.answer().await;
    assert_eq!(listed["id"], 15);
    assert!(listed["result"]["tools"].is_array(), "{listed:.300}");
}

#[tokio::test]
async fn an_older_client_is_told_that_approval_was_required() {
    let session = Session::start(deferring()).await;
    let (envelope, is_error) = session
        .envelope("drawing_create", json!({"pane_id": "main", "price": 1}))
        .await;
    assert!(is_error);
    assert_eq!(envelope["error"]["code"], "TOOL_NOT_ALLOWED");
    let message = envelope["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("The call to `drawing_create` needs the user's approval, and it cannot be asked: this client speaks MCP 2025-")
            && message.contains("needs 2026-07-28 or later"),
        "{message}"
    );
    assert!(session.chart.read().await.drawings.is_empty());
}

#[tokio::test]
async fn an_approver_that_decides_at_once_needs_no_client_support() {
    let policy = RunPolicy::full().with_approval(|request| {
        if request.arguments["pane_id"] == "main" {
            Decision::Approve
        } else {
            Decision::deny("Only the main pane.")
        }
    });
    let session = Session::start(policy).await;
    let (envelope, _) = session
        .envelope("drawing_create", json!({"pane_id": "main", "price": 1}))
        .await;
    assert_eq!(envelope["success"], true);
    let (envelope, _) = session
        .envelope("drawing_create", json!({"pane_id": "lower", "price": 1}))
        .await;
    assert_eq!(
        envelope["error"]["message"],
        "The call to `drawing_create` was not approved: Only the main pane."
    );
    assert_eq!(session.chart.read().await.drawings, ["d1"]);
}

#[test]
fn the_text_content_keeps_the_envelope_key_order() {
    use toolwright_mcp::call_tool_result;
    use toolwright_runtime::ToolResult;
    use toolwright_runtime::envelope::{ErrorBody, RuntimeCode, ToolData};

    let text = |result: &CallToolResult| {
        result.content[0]
            .as_text()
            .expect("text content")
            .text
            .clone()
    };
    let failure = call_tool_result(&ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::NotFound,
            "No tool `x`.",
            "Call one of the offered tools.",
        ),
        false,
    ));
    assert_eq!(
        text(&failure),
        r#"{"success":false,"error":{"code":"TOOL_NOT_FOUND","message":"No tool `x`.","retryable":true,"recommendedAction":"Call one of the offered tools."},"stateChanged":false}"#
    );
    assert_eq!(failure.is_error, Some(true));
    // The tool's own output keeps its order too (here its fields' order, not sorted); the
    // structured content is the same envelope.
    #[derive(serde::Serialize)]
    struct Output {
        z: u8,
        a: [u8; 1],
    }
    let data = ToolData::from_serialize(&Output { z: 1, a: [2] }).expect("JSON");
    let success = call_tool_result(&ToolResult::success(data, true));
    assert_eq!(
        text(&success),
        r#"{"success":true,"data":{"z":1,"a":[2]},"stateChanged":true}"#
    );
    assert_eq!(
        success.structured_content,
        Some(json!({"success": true, "data": {"z": 1, "a": [2]}, "stateChanged": true}))
    );
    assert_eq!(success.is_error, Some(false));
}
