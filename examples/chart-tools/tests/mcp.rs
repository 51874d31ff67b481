//! `chart-tools mcp` end to end: the binary is spawned as an MCP server on stdio and driven by
//! rmcp's client, as an MCP host would drive it.

use std::collections::BTreeSet;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt as _};
use serde_json::{Value, json};
use tokio::process::{Child, Command};
use toolwright_runtime::RunPolicy;
use toolwright_runtime::handler::ToolMeta;

/// A running `chart-tools mcp` process and the client session talking to it.
struct Server {
    client: RunningService<RoleClient, ()>,
    child: Child,
}

impl Server {
    /// Spawns `chart-tools mcp <args>` and completes the MCP handshake with it.
    async fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // A failing test must not leave the server behind.
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take().expect("stdin is piped");
        let client =
            ().serve((stdout, stdin))
                .await
                .expect("the server completes the MCP handshake");
        Server { client, child }
    }

    /// Closes the session and checks that the server then exits on its own, successfully.
    async fn stop(self) {
        let Server { client, mut child } = self;
        client
            .cancel()
            .await
            .expect("the client closes the session");
        let status = child.wait().await.expect("the server process ends");
        assert!(
            status.success(),
            "the server exits cleanly when its client leaves: {status}"
        );
    }

    async fn tools(&self) -> Vec<Tool> {
        self.client
            .list_all_tools()
            .await
            .expect("tools/list answers")
    }

    async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object: {arguments}");
        };
        self.client
            .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
            .await
    }

    /// Calls a tool and returns its envelope, after checking the MCP form of the answer: the
    /// envelope is the structured content, the only content is the same JSON as text, and
    /// `isError` is true exactly when `success` is false.
    async fn envelope(&self, name: &str, arguments: Value) -> Value {
        let result = self
            .call(name, arguments.clone())
            .await
            .unwrap_or_else(|e| panic!("{name} {arguments}: a tool result, got {e:?}"));
        let structured = result
            .structured_content
            .clone()
            .expect("the envelope is the structured content");
        let texts: Vec<&str> = result
            .content
            .iter()
            .map(|c| c.as_text().expect("text content").text.as_str())
            .collect();
        assert_eq!(texts.len(), 1, "one text content: {texts:?}");
        let text: Value = serde_json::from_str(texts[0]).expect("the text is the JSON envelope");
        assert_eq!(text, structured, "the text and the structure agree");
        assert_eq!(
            result.is_error,
            Some(structured["success"] != json!(true)),
            "isError is set, true exactly when success is false: {structured}"
        );
        structured
    }
}

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

fn meta(name: &str) -> &'static ToolMeta {
    chart_tools::tools::ALL
        .iter()
        .copied()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no manifest for `{name}`"))
}

/// The names the binary's registry offers under `policy`, sorted.
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

fn output_validator(tools: &[Tool], name: &str) -> jsonschema::Validator {
    let tool = tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is listed"));
    let schema = Value::Object(
        (**tool
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("`{name}` has an outputSchema")))
        .clone(),
    );
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("the outputSchema of `{name}` compiles: {e}"))
}

fn assert_valid(validator: &jsonschema::Validator, name: &str, envelope: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(envelope)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the `{name}` envelope {envelope} does not validate against its outputSchema: {errors:?}"
    );
}

/// A `drawing_create` input that passes validation (the pane and time are checked by the tool).
fn horizontal_line(price: Value) -> Value {
    json!({
        "pane_id": "main",
        "kind": "horizontal_line",
        "anchors": [{"time": 1_751_241_600, "price": price}],
    })
}

#[tokio::test]
async fn a_full_server_lists_every_registered_tool_with_explicit_annotations() {
    let server = Server::start(&[]).await;
    let tools = server.tools().await;
    let expected = expected_names(&RunPolicy::full());
    assert_eq!(
        expected.len(),
        23 + usize::from(cfg!(feature = "code-interpreter")),
        "the registry holds the chart's tools: {expected:?}"
    );
    let mut listed = names(&tools);
    listed.sort();
    assert_eq!(listed, expected);

    for tool in &tools {
        let meta = meta(&tool.name);
        let read_only = meta.safety.is_read_only();
        let annotations = serde_json::to_value(
            tool.annotations
                .as_ref()
                .unwrap_or_else(|| panic!("`{}` has annotations", tool.name)),
        )
        .expect("annotations serialize");
        // Every reference tool declares both hints; the annotations carry them exactly.
        let (Some(idempotent), Some(open_world)) = (meta.idempotent, meta.open_world) else {
            panic!("`{}` declares `idempotent` and `open_world`", tool.name);
        };
        assert_eq!(
            annotations,
            json!({
                "title": meta.title,
                "readOnlyHint": read_only,
                "destructiveHint": !read_only,
                "idempotentHint": idempotent,
                "openWorldHint": open_world,
            }),
            "every hint of `{}` is written explicitly",
            tool.name
        );
        assert_eq!(tool.title.as_deref(), Some(meta.title));
        assert_eq!(tool.description.as_deref(), Some(meta.description));
        assert_eq!(
            Value::Object((*tool.input_schema).clone()),
            meta.input_schema
                .to_value()
                .expect("the frozen schema is JSON"),
            "the inputSchema of `{}` is the declared one",
            tool.name
        );
        let output = tool
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("`{}` has an outputSchema", tool.name));
        assert_eq!(output.get("type"), Some(&json!("object")), "{}", tool.name);
        jsonschema::draft202012::new(&Value::Object((**output).clone()))
            .unwrap_or_else(|e| panic!("the outputSchema of `{}` compiles: {e}", tool.name));
    }
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).expect("listed");
        serde_json::to_value(tool.annotations.as_ref().expect("annotations")).expect("serialize")
    };
    assert_eq!(hints("web_search")["openWorldHint"], true);
    assert_eq!(hints("drawings_clear")["destructiveHint"], true);
    assert_eq!(hints("panes_list")["readOnlyHint"], true);

    let info = server
        .client
        .peer_info()
        .expect("the server introduced itself");
    let implementation = info.server_info.as_ref().expect("the server named itself");
    assert_eq!(implementation.name, "chart-tools");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));
    server.stop().await;
}

#[tokio::test]
async fn a_read_only_server_lists_exactly_the_read_only_tools() {
    let server = Server::start(&["--read-only"]).await;
    let tools = server.tools().await;
    let mut listed = names(&tools);
    listed.sort();
    let expected = expected_names(&RunPolicy::read_only());
    assert_eq!(listed, expected);
    assert_eq!(listed.len(), 11, "{listed:?}");
    let all_read_only: Vec<&str> = chart_tools::declared_tools()
        .into_iter()
        .filter(|m| m.safety.is_read_only())
        .map(|m| m.name)
        .collect();
    assert_eq!(
        listed, all_read_only,
        "every read-only tool, and nothing else"
    );
    for tool in &tools {
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(annotations.destructive_hint, Some(false), "{}", tool.name);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_successful_call_answers_the_envelope_that_its_output_schema_describes() {
    let server = Server::start(&[]).await;
    let tools = server.tools().await;
    let envelope = server.envelope("panes_list", json!({})).await;
    assert_eq!(envelope["success"], true);
    assert_eq!(envelope["stateChanged"], false);
    let panes: Vec<&str> = envelope["data"]["panes"]
        .as_array()
        .expect("a list of panes")
        .iter()
        .map(|p| p["id"].as_str().expect("a pane id"))
        .collect();
    assert_eq!(panes, ["main", "lower"], "the demo chart's panes");
    assert_valid(
        &output_validator(&tools, "panes_list"),
        "panes_list",
        &envelope,
    );

    // A write changes the chart the following calls see.
    let created = server
        .envelope("drawing_create", horizontal_line(json!(190.5)))
        .await;
    assert_eq!(created["success"], true, "{created}");
    assert_eq!(created["stateChanged"], true);
    assert_valid(
        &output_validator(&tools, "drawing_create"),
        "drawing_create",
        &created,
    );
    let after = server.envelope("panes_list", json!({})).await;
    assert_eq!(
        after["data"]["panes"][0]["drawings"]
            .as_array()
            .expect("drawing ids")
            .len(),
        envelope["data"]["panes"][0]["drawings"]
            .as_array()
            .expect("drawing ids")
            .len()
            + 1,
        "the new drawing is on the main pane: {after}"
    );
    server.stop().await;
}

#[tokio::test]
async fn every_answer_of_every_tool_validates_against_its_output_schema() {
    let server = Server::start(&[]).await;
    let tools = server.tools().await;
    let mut outcomes = BTreeSet::new();
    for tool in &tools {
        let name = tool.name.as_ref();
        if name == "code_interpreter" {
            // Runs code on this machine: its envelopes are covered by its own tests.
            continue;
        }
        let validator = output_validator(&tools, name);
        let meta = meta(name);
        let mut inputs: Vec<Value> = meta
            .examples
            .iter()
            .map(|e| serde_json::from_str(e.input).expect("examples are JSON"))
            .collect();
        inputs.push(json!({"no_such_argument": true}));
        for input in inputs {
            let envelope = server.envelope(name, input.clone()).await;
            assert_valid(&validator, name, &envelope);
            outcomes.insert(
                envelope["error"]["code"]
                    .as_str()
                    .unwrap_or("success")
                    .to_owned(),
            );
        }
    }
    assert!(
        outcomes.contains("success"),
        "successes were checked: {outcomes:?}"
    );
    assert!(
        outcomes.contains("TOOL_INPUT_INVALID"),
        "errors were checked: {outcomes:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn invalid_input_is_a_tool_error_in_the_spec_form() {
    let server = Server::start(&[]).await;
    let before = server.envelope("drawings_list", json!({})).await;
    let envelope = server
        .envelope("drawing_create", horizontal_line(json!("high")))
        .await;
    assert_eq!(
        envelope,
        json!({
            "success": false,
            "error": {
                "code": "TOOL_INPUT_INVALID",
                "message": "The tool input is invalid: /anchors/0/price: Expected number",
                "retryable": true,
                "recommendedAction": "Correct the invalid field and retry the request."
            },
            "stateChanged": false
        })
    );
    let envelope = server
        .envelope(
            "drawing_create",
            json!({"pane_id": "main", "colour": "red"}),
        )
        .await;
    let message = envelope["error"]["message"].as_str().expect("a message");
    assert!(
        message.starts_with("The tool input is invalid: "),
        "{message}"
    );
    for part in [
        "/kind: Expected required property",
        "/anchors: Expected required property",
        "/colour: Unexpected property",
    ] {
        assert!(message.contains(part), "`{part}` in {message}");
    }
    assert_eq!(
        server.envelope("drawings_list", json!({})).await,
        before,
        "no invalid call changed the chart"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_write_in_a_read_only_server_is_refused_as_a_tool_error() {
    let server = Server::start(&["--read-only"]).await;
    let before = server.envelope("drawings_list", json!({})).await;
    assert_eq!(before["success"], true, "{before}");
    let refusal = json!({
        "success": false,
        "error": {
            "code": "TOOL_NOT_ALLOWED",
            "message": "The tool `drawings_clear` changes state and this run is read-only.",
            "retryable": false,
            "recommendedAction": "Do not retry: this run is read-only. Use only the tools offered in this run."
        },
        "stateChanged": false
    });
    assert_eq!(server.envelope("drawings_clear", json!({})).await, refusal);
    // The policy is checked before the input: even an invalid write is only refused.
    assert_eq!(
        server
            .envelope("drawings_clear", json!({"everything": [1, 2, 3]}))
            .await,
        refusal
    );
    let create = server
        .envelope("drawing_create", horizontal_line(json!(1)))
        .await;
    assert_eq!(create["error"]["code"], "TOOL_NOT_ALLOWED");
    assert_eq!(
        server.envelope("drawings_list", json!({})).await,
        before,
        "the refused writes never ran"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_tool_is_the_protocols_invalid_params_error() {
    let server = Server::start(&[]).await;
    let error = server
        .call("drawing_craete", json!({}))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.code.0, -32602);
    assert!(
        error
            .message
            .starts_with("unknown tool `drawing_craete`, close names: `drawing_create`"),
        "the closest name first: {}",
        error.message
    );

    // A huge name is quoted short, and the session goes on.
    let long = "x".repeat(100_000);
    let error = server
        .call(&long, json!({}))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code.0, -32602);
    assert!(error.message.len() < 200, "{}", error.message);
    assert_eq!(
        server.envelope("panes_list", json!({})).await["success"],
        true
    );
    server.stop().await;
}

#[tokio::test]
async fn a_disabled_tool_is_not_listed_and_its_calls_are_refused() {
    let server = Server::start(&["--disable", "drawings_clear", "--disable", "web_search"]).await;
    let listed = names(&server.tools().await);
    let expected = expected_names(
        &RunPolicy::full()
            .disable("drawings_clear")
            .disable("web_search"),
    );
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, expected);
    assert!(
        !listed
            .iter()
            .any(|n| n == "drawings_clear" || n == "web_search")
    );
    assert!(listed.iter().any(|n| n == "drawing_create"), "{listed:?}");

    let before = server.envelope("drawings_list", json!({})).await;
    assert_eq!(
        server.envelope("drawings_clear", json!({})).await,
        json!({
            "success": false,
            "error": {
                "code": "TOOL_NOT_ALLOWED",
                "message": "The tool `drawings_clear` is disabled by the user.",
                "retryable": false,
                "recommendedAction": "Do not retry: the user disabled this tool. Use only the tools offered in this run."
            },
            "stateChanged": false
        })
    );
    let search = server
        .envelope("web_search", json!({"query": "AAPL earnings"}))
        .await;
    assert_eq!(search["error"]["code"], "TOOL_NOT_ALLOWED", "{search}");
    assert_eq!(server.envelope("drawings_list", json!({})).await, before);
    server.stop().await;
}

#[tokio::test]
async fn a_settings_file_disables_tools_of_the_server() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("settings.json");
    std::fs::write(&path, r#"{"disabledTools": ["panes_clear"]}"#).expect("settings written");
    let path = path.to_str().expect("a UTF-8 path");
    let server = Server::start(&["--settings", path]).await;
    let mut listed = names(&server.tools().await);
    listed.sort();
    assert_eq!(
        listed,
        expected_names(&RunPolicy::full().disable("panes_clear"))
    );
    let refused = server.envelope("panes_clear", json!({})).await;
    assert_eq!(
        refused["error"]["message"], "The tool `panes_clear` is disabled by the user.",
        "{refused}"
    );
    assert_eq!(
        server.envelope("panes_list", json!({})).await["data"]["panes"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "the panes are still there"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_tool_to_disable_stops_the_server_before_it_serves() {
    let output = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .args(["mcp", "--disable", "drawings_claer"])
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing is served");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 errors");
    assert!(
        stderr.starts_with("error: unknown tool `drawings_claer` in `--disable`, expected one of "),
        "{stderr}"
    );
    assert!(stderr.contains("`drawings_clear`"), "{stderr}");
}

#[tokio::test]
async fn the_answer_flag_answers_ask_user_over_mcp() {
    let server = Server::start(&["--read-only", "--answer", "weekly please"]).await;
    let envelope = server
        .envelope(
            "ask_user",
            json!({"question": "Which interval?", "options": ["1d", "1h"]}),
        )
        .await;
    assert_eq!(
        envelope["data"],
        json!({"answer": "weekly please", "chose_option": false, "question": "Which interval?"})
    );
    server.stop().await;

    let server = Server::start(&[]).await;
    let envelope = server
        .envelope(
            "ask_user",
            json!({"question": "Which interval?", "options": ["1d", "1h"]}),
        )
        .await;
    assert_eq!(envelope["data"]["answer"], "1d", "the first option");
    server.stop().await;
}

#[tokio::test]
async fn concurrent_calls_of_one_session_all_land() {
    let server = Server::start(&[]).await;
    let before = server.envelope("drawings_list", json!({})).await;
    let count = |envelope: &Value| {
        envelope["data"]["drawings"]
            .as_array()
            .unwrap_or_else(|| panic!("a list of drawings: {envelope}"))
            .len()
    };
    let write = |price: i64| server.envelope("drawing_create", horizontal_line(json!(price)));
    let read = || server.envelope("panes_list", json!({}));
    let (a, b, c, d, r1, r2) = tokio::join!(write(1), write(2), write(3), write(4), read(), read());
    let ids: BTreeSet<String> = [a, b, c, d]
        .iter()
        .map(|envelope| {
            assert_eq!(envelope["success"], true, "{envelope}");
            envelope["data"]["id"]
                .as_str()
                .unwrap_or_else(|| panic!("a drawing id: {envelope}"))
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 4, "four distinct drawings: {ids:?}");
    for read in [r1, r2] {
        assert_eq!(read["success"], true, "{read}");
    }
    let after = server.envelope("drawings_list", json!({})).await;
    assert_eq!(count(&after), count(&before) + 4, "{after}");
    server.stop().await;
}

/// A `chart-tools mcp` process spoken to in raw JSON-RPC lines.
mod raw {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
    use std::time::Duration;

    use serde_json::{Value, json};

    /// Only keeps a broken server from hanging the test run; no answer is expected to take long.
    const GIVE_UP: Duration = Duration::from_secs(120);

    pub struct RawServer {
        child: Child,
        stdin: Option<ChildStdin>,
        lines: Receiver<String>,
    }

    impl RawServer {
        /// Spawns the server and completes the handshake by hand.
        pub fn start() -> RawServer {
            RawServer::start_with(&[])
        }

        /// As [`RawServer::start`], with these arguments of `mcp`.
        pub fn start_with(args: &[&str]) -> RawServer {
            let mut server = RawServer::spawn_with(args);
            server.send(
                json!({
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"}
                    }
                })
                .to_string()
                .as_bytes(),
            );
            let answer = server.answer_to(0);
            assert_eq!(answer["result"]["serverInfo"]["name"], "chart-tools");
            server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
            server
        }

        /// Spawns the server without a handshake.
        pub fn spawn() -> RawServer {
            RawServer::spawn_with(&[])
        }

        /// As [`RawServer::spawn`], with these arguments of `mcp`.
        pub fn spawn_with(args: &[&str]) -> RawServer {
            let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
                .arg("mcp")
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("the binary starts");
            let stdin = child.stdin.take().expect("stdin is piped");
            let stdout = child.stdout.take().expect("stdout is piped");
            let (sender, lines) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
            RawServer {
                child,
                stdin: Some(stdin),
                lines,
            }
        }

        /// Writes one line (a newline is added).
        pub fn send(&mut self, line: &[u8]) {
            let stdin = self.stdin.as_mut().expect("the session is open");
            stdin.write_all(line).expect("the server reads");
            stdin.write_all(b"\n").expect("the server reads");
            stdin.flush().expect("the server reads");
        }

        /// The next line the server writes.
        pub fn next_line(&mut self) -> String {
            match self.lines.recv_timeout(GIVE_UP) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!("the server stopped answering"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            }
        }

        /// Reads lines up to the answer to request `id`; returns it, with the other lines seen.
        pub fn answer_to(&mut self, id: i64) -> Value {
            loop {
                let line = self.next_line();
                let message: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the server writes JSON ({e}): {line:.300}"));
                if message["id"] == id {
                    return message;
                }
            }
        }

        /// Closes stdin and checks that the server exits successfully.
        pub fn stop(mut self) {
            drop(self.stdin.take());
            let status = self.child.wait().expect("the server process ends");
            assert!(status.success(), "the server exits cleanly: {status}");
        }
    }

    impl Drop for RawServer {
        fn drop(&mut self) {
            // Only reached with the process still running when a test failed.
            if self.stdin.is_some() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
    }
}

fn tools_call(id: i64, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
}

#[test]
fn hostile_lines_do_not_stop_the_server() {
    let mut server = raw::RawServer::start();
    let depth = 100_000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let hostile: Vec<Vec<u8>> = vec![
        tools_call(1, "panes_list", r#"{"x":NaN}"#).into_bytes(),
        b"\xff\xfe{\"jsonrpc\":\"2.0\"}".to_vec(),
        b"not json at all".to_vec(),
        tools_call(2, "panes_list", &format!(r#"{{"x":{deep}}}"#)).into_bytes(),
        "[".repeat(depth).into_bytes(),
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/cal","params":{}}"#.to_vec(),
    ];
    for line in &hostile[..5] {
        server.send(line);
        // A line that is not JSON is answered with the parse error, not dropped.
        let line = server.next_line();
        assert!(line.len() < 1024, "a short answer: {line:.300}");
        let answer: Value = serde_json::from_str(&line).expect("an answer in JSON");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
    }
    server.send(b"[1, 2]");
    let answer: Value = serde_json::from_str(&server.next_line()).expect("JSON");
    assert_eq!(answer["error"]["code"], -32600, "invalid request: {answer}");
    server.send(&hostile[5]);
    let unknown_method = server.answer_to(3);
    assert_eq!(
        unknown_method["error"]["code"], -32601,
        "method not found: {unknown_method}"
    );
    server.send(tools_call(4, "settings_get", "{}").as_bytes());
    let answer = server.answer_to(4);
    assert_eq!(answer["result"]["isError"], false, "{answer:.300}");
    assert_eq!(answer["result"]["structuredContent"]["success"], true);
    server.stop();
}

#[test]
fn huge_arguments_get_short_tool_errors() {
    // Lines of 10 MiB reach the registry only with a wider line bound than the default.
    let mut server = raw::RawServer::start_with(&["--max-line-bytes", "67108864"]);
    let huge = "A".repeat(10 * 1024 * 1024);
    let keys: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| (format!("key{i:05}"), json!(i)))
        .collect();
    let cases = [
        ("web_search", json!({ "query": huge })),
        ("panes_list", json!({ huge.clone(): true })),
        ("panes_list", Value::Object(keys)),
        (
            "drawing_create",
            json!({"pane_id": "main", "kind": "text", "anchors": [{"time": 1, "price": 1}], "style": {"color": huge}}),
        ),
    ];
    for (id, (name, arguments)) in (10..).zip(cases) {
        server.send(tools_call(id, name, &arguments.to_string()).as_bytes());
        let answer = server.answer_to(id);
        let text = answer.to_string();
        assert!(
            text.len() < 8 * 1024,
            "{name}: a short answer, {} bytes",
            text.len()
        );
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{name}: {text}");
        assert_eq!(
            result["structuredContent"]["error"]["code"], "TOOL_INPUT_INVALID",
            "{name}: {text}"
        );
    }
    server.stop();
}

#[tokio::test]
async fn a_corrupt_settings_file_stops_the_server_before_it_serves() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("settings.json");
    std::fs::write(&path, "{\"disabledTools\": [1]}").expect("settings written");
    let output = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .arg("mcp")
        .arg("--settings")
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing is served");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 errors");
    assert!(
        stderr.starts_with("error: the tool settings `") && stderr.contains("line 1, column"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("the file is still there"),
        "{\"disabledTools\": [1]}",
        "the file is left untouched"
    );
}

#[test]
fn malformed_call_params_are_answered_with_an_error_and_the_session_goes_on() {
    let mut server = raw::RawServer::start();
    let malformed = [
        (20, r#"{"name":"panes_list","arguments":[1,2]}"#),
        (21, r#"{"name":42}"#),
        (22, r#"{"arguments":{}}"#),
    ];
    for (id, params) in malformed {
        server.send(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
                .as_bytes(),
        );
        let answer = server.answer_to(id);
        assert!(
            answer["error"]["code"].is_i64() && answer.get("result").is_none(),
            "{params}: a JSON-RPC error, got {answer}"
        );
    }
    // `null` arguments read as no arguments.
    server.send(tools_call(23, "panes_list", "null").as_bytes());
    let answer = server.answer_to(23);
    assert_eq!(answer["result"]["isError"], false, "{answer:.300}");
    server.stop();
}

/// A 2026-07-28 client whose user approves every confirmation.
#[derive(Clone)]
struct Approving;

impl rmcp::ClientHandler for Approving {
    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({"approve": true})),
        )
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_elicitation()
                .build(),
            rmcp::model::Implementation::new("approving-client", "1.0.0"),
        )
    }
}

#[tokio::test]
async fn deferred_writes_are_confirmed_by_the_clients_user() {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    // An older client cannot be asked: the write is refused, saying why.
    let server = Server::start(&["--approval", "defer"]).await;
    let envelope = server.envelope("drawings_clear", json!({})).await;
    assert_eq!(envelope["error"]["code"], "TOOL_NOT_ALLOWED");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("needs the user's approval")),
        "{envelope}"
    );
    server.stop().await;

    // A 2026-07-28 client asks its user, and the write runs once approved.
    let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .args(["mcp", "--approval", "defer"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stdin = child.stdin.take().expect("stdin is piped");
    let client = Approving
        .serve_with_lifecycle(
            (stdout, stdin),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the client connects on 2026-07-28");
    let result = client
        .call_tool(CallToolRequestParams::new("drawings_clear"))
        .await
        .expect("a tool result");
    let envelope = result.structured_content.expect("the envelope");
    assert_eq!(envelope["success"], true, "{envelope}");
    assert_eq!(envelope["data"]["removed"], json!(["d1", "d2", "d3"]));
    client
        .cancel()
        .await
        .expect("the client closes the session");
    let status = child.wait().await.expect("the server ends");
    assert!(status.success(), "{status}");
}

#[test]
fn an_invalid_request_is_answered_with_its_id_and_the_session_goes_on() {
    let mut server = raw::RawServer::start();
    let invalid: [(&[u8], Value); 4] = [
        (br#"{"jsonrpc":"2.0","id":31}"#, json!(31)),
        (
            br#"{"jsonrpc":"2.0","id":"x-32","method":7}"#,
            json!("x-32"),
        ),
        (
            br#"{"jsonrpc":"2.0","id":33,"method":"tools/list","params":[1]}"#,
            json!(33),
        ),
        (
            br#"{"jsonrpc":"2.0","id":[34],"method":"tools/list"}"#,
            Value::Null,
        ),
    ];
    for (line, id) in invalid {
        server.send(line);
        let answer: Value = serde_json::from_str(&server.next_line()).expect("an answer in JSON");
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
    }
    // An invalid notification is not answered; the next request is.
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":7}"#);
    server.send(tools_call(35, "settings_get", "{}").as_bytes());
    let answer: Value = serde_json::from_str(&server.next_line()).expect("JSON");
    assert_eq!(answer["id"], 35, "{answer:.300}");
    assert_eq!(answer["result"]["isError"], false, "{answer:.300}");
    server.stop();
}

#[test]
fn an_early_notification_does_not_end_the_session_and_an_early_request_is_told_to_initialize() {
    let mut server = raw::RawServer::spawn();
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let early = server.answer_to(1);
    assert_eq!(early["error"]["code"], -32600, "{early}");
    let message = early["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "Invalid Request: the session is not initialized: send `initialize` first"
        ),
        "{early}"
    );
    server.send(
        json!({
            "jsonrpc": "2.0",
            "id": 2,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}
            }
        })
        .to_string()
        .as_bytes(),
    );
    let initialized = server.answer_to(2);
    assert_eq!(initialized["result"]["serverInfo"]["name"], "chart-tools");
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    let listed = server.answer_to(3);
    assert!(listed["result"]["tools"].is_array(), "{listed:.300}");
    server.stop();
}

#[test]
fn tools_list_is_sorted_by_name_and_carries_cache_hints() {
    let mut server = raw::RawServer::start();
    server.send(br#"{"jsonrpc":"2.0","id":40,"method":"tools/list"}"#);
    let listed = server.answer_to(40);
    let result = &listed["result"];
    let names: Vec<&str> = result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "sorted by name");
    assert_eq!(names.len(), expected_names(&RunPolicy::full()).len());
    assert_eq!(
        result["ttlMs"],
        toolwright_mcp::TOOLS_TTL_MS,
        "{result:.300}"
    );
    assert_eq!(
        result["cacheScope"], "public",
        "over stdio every caller sees the server's list"
    );
    server.stop();
}

#[test]
fn a_line_over_the_bound_is_answered_and_the_next_request_is_served() {
    let mut server = raw::RawServer::start();
    let huge = tools_call(
        7,
        "web_search",
        &json!({"query": "q".repeat(20 << 20)}).to_string(),
    );
    server.send(huge.as_bytes());
    let line = server.next_line();
    let answer: Value = serde_json::from_str(&line).expect("an answer in JSON");
    assert_eq!(
        answer,
        json!({
            "jsonrpc": "2.0",
            "id": 7,
            "error": {
                "code": -32600,
                "message": "Invalid Request: the line is over 4194304 bytes, the most a message may have; it was discarded"
            }
        })
    );
    server.send(tools_call(8, "panes_list", "{}").as_bytes());
    let answer = server.answer_to(8);
    assert_eq!(
        answer["result"]["structuredContent"]["success"], true,
        "{answer:.300}"
    );
    server.stop();

    // Room for the handshake, not for a long query.
    let mut server = raw::RawServer::start_with(&["--max-line-bytes", "200"]);
    server.send(
        tools_call(
            9,
            "web_search",
            &json!({"query": "q".repeat(300)}).to_string(),
        )
        .as_bytes(),
    );
    let answer: Value = serde_json::from_str(&server.next_line()).expect("JSON");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], 9, "the call's id, read from the line's start");
    server.send(tools_call(10, "panes_list", "{}").as_bytes());
    assert_eq!(server.answer_to(10)["result"]["isError"], false);
    server.stop();
}
