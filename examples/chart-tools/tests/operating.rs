//! Operating the binary: `--trace json` writes a span per call to stderr, `--trace-content`
//! records arguments and results through the prompt redactor, and the declared output budgets
//! of the reference tools hold.

mod common;

use std::io::Write as _;
use std::process::{Command, Stdio};

use common::{call, message};
use serde_json::{Value, json};

/// Runs `chart-tools <args>` on `lines` with `env`; returns the answer lines and the stderr
/// lines, after checking that it exited 0.
fn run(args: &[&str], env: &[(&str, &str)], lines: &[String]) -> (Vec<Value>, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .args(args)
        .env_remove("PROVIDER_API_KEY")
        .env_remove("SEARCH_API_KEY")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    for line in lines {
        stdin.write_all(line.as_bytes()).expect("written");
        stdin.write_all(b"\n").expect("written");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the binary exits");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    assert!(output.status.success(), "{:?}: {stderr}", output.status);
    let answers = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON answers"))
        .collect();
    (answers, stderr.lines().map(str::to_owned).collect())
}

/// The `span` objects of the closed spans named `name` among the JSON lines of stderr.
fn closed(stderr: &[String], name: &str) -> Vec<Value> {
    stderr
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .filter(|event| event["fields"]["message"] == "close" && event["span"]["name"] == name)
        .map(|event| event["span"].clone())
        .collect()
}

#[test]
fn trace_json_writes_one_execute_tool_span_per_call() {
    let lines = [
        message(&[
            call("call_1", "drawings_list", json!({"pane_id": "lower"})),
            call("call_2", "drawings_clear", json!({})),
            call("call_3", "panes_lst", json!({})),
        ]),
        message(&[call("call_4", "drawing_create", json!({"pane_id": 1}))]),
    ];
    let (answers, stderr) = run(&["run", "--read-only", "--trace", "json"], &[], &lines);
    assert_eq!(answers.len(), 2);
    let calls = closed(&stderr, "execute_tool");
    assert_eq!(calls.len(), 4, "{stderr:#?}");
    assert_eq!(closed(&stderr, "execute_batch").len(), 2, "{stderr:#?}");

    let first = &calls[0];
    for (field, value) in [
        ("otel.name", json!("execute_tool drawings_list")),
        ("gen_ai.operation.name", json!("execute_tool")),
        ("gen_ai.tool.name", json!("drawings_list")),
        ("gen_ai.tool.call.id", json!("call_1")),
        ("gen_ai.tool.type", json!("function")),
        ("tool.safety", json!("read-only")),
        ("tool.mode", json!("parallel")),
        ("tool.state_changed", json!(false)),
    ] {
        assert_eq!(first[field], value, "{field}: {first}");
    }
    assert!(first.get("error.type").is_none(), "{first}");
    let refusals: Vec<(&Value, &Value, &Value)> = calls[1..]
        .iter()
        .map(|s| {
            (
                &s["gen_ai.tool.call.id"],
                &s["error.type"],
                &s["tool.refusal"],
            )
        })
        .collect();
    assert_eq!(
        refusals,
        [
            (
                &json!("call_2"),
                &json!("TOOL_NOT_ALLOWED"),
                &json!("read_only_run")
            ),
            (
                &json!("call_3"),
                &json!("TOOL_NOT_FOUND"),
                &json!("not_found")
            ),
            (
                &json!("call_4"),
                &json!("TOOL_NOT_ALLOWED"),
                &json!("read_only_run")
            ),
        ]
    );
    // Nothing of the arguments or results without --trace-content.
    assert!(
        calls
            .iter()
            .all(|s| s.get("gen_ai.tool.call.arguments").is_none()
                && s.get("gen_ai.tool.call.result").is_none()),
        "{calls:#?}"
    );
}

#[test]
fn nothing_is_written_to_stderr_without_trace() {
    let lines = [message(&[call("1", "panes_list", json!({}))])];
    let (answers, stderr) = run(&["run"], &[], &lines);
    assert_eq!(answers.len(), 1);
    assert!(stderr.is_empty(), "{stderr:?}");
}

#[test]
fn trace_content_records_arguments_and_results_redacted_as_prompts() {
    let key = "pk-7d1f0c5a9e3b4f2a8c6d";
    let query = format!("moving average {key} /home/alice/notes.txt");
    let lines = [message(&[call("1", "web_search", json!({"query": query}))])];
    let (answers, stderr) = run(
        &["run", "--trace", "json", "--trace-content"],
        &[("PROVIDER_API_KEY", key)],
        &lines,
    );
    assert_eq!(answers.len(), 1);
    let span = &closed(&stderr, "execute_tool")[0];
    let arguments = span["gen_ai.tool.call.arguments"]
        .as_str()
        .expect("arguments");
    assert_eq!(
        arguments,
        r#"{"query":"moving average [REDACTED] [LOCAL_PATH]/notes.txt"}"#
    );
    let result = span["gen_ai.tool.call.result"].as_str().expect("a result");
    assert!(result.starts_with(r#"{"success":true,"data":"#), "{result}");
    assert!(!stderr.iter().any(|line| line.contains(key)), "{stderr:#?}");
}

#[test]
fn a_long_range_of_bars_is_over_its_budget_and_a_narrower_one_fits() {
    let lines = [
        message(&[call(
            "wide",
            "market_bars_query",
            json!({"symbol": "AAPL", "interval": "1m", "limit": 1000}),
        )]),
        message(&[call(
            "narrow",
            "market_bars_query",
            json!({"symbol": "AAPL", "interval": "1m", "limit": 100}),
        )]),
    ];
    let (answers, stderr) = run(&["run", "--trace", "json"], &[], &lines);
    let wide = &answers[0][0]["result"];
    assert_eq!(wide["success"], false, "{wide:.300}");
    assert_eq!(wide["stateChanged"], false);
    let error = &wide["error"];
    assert_eq!(error["code"], "TOOL_FAILED");
    assert_eq!(error["retryable"], true);
    let text = error["message"].as_str().expect("a message");
    assert!(
        text.starts_with("The output of `market_bars_query` is ")
            && text.ends_with(
                " bytes, more than its budget of 16384 bytes, so it was not returned: a narrower request is needed."
            ),
        "{text}"
    );
    assert_eq!(
        error["recommendedAction"],
        "Retry with a narrower request (a shorter range, fewer items, a lower limit) so the output fits."
    );
    let narrow = &answers[1][0]["result"];
    assert_eq!(narrow["success"], true, "{narrow:.300}");
    let size = narrow["data"].to_string().len();
    assert!(size <= 16384, "{size}");
    let spans = closed(&stderr, "execute_tool");
    assert_eq!(spans[0]["error.type"], "TOOL_FAILED");
    assert_eq!(spans[1]["tool.output_bytes"], json!(size));
}

#[test]
fn every_example_of_every_tool_fits_its_budget() {
    for meta in chart_tools::tools::ALL {
        if chart_tools::NOT_REGISTERED.contains(&meta.name) {
            continue;
        }
        let budget = meta
            .max_output_bytes
            .unwrap_or_else(|| panic!("`{}` declares a budget", meta.name));
        for example in meta.examples {
            let arguments: Value = serde_json::from_str(example.input).expect("JSON");
            let lines = [message(&[call("1", meta.name, arguments)])];
            let (answers, _) = run(&["run"], &[], &lines);
            let result = &answers[0][0]["result"];
            assert_eq!(
                result["success"], true,
                "{}: {}: {result:.300}",
                meta.name, example.description
            );
            let size = result["data"].to_string().len() as u64;
            assert!(size <= budget, "{}: {size} > {budget}", meta.name);
        }
    }
}

#[test]
fn the_mcp_server_answers_an_output_over_its_budget_as_a_tool_error() {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    });
    let lines = [
        initialize.to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "market_bars_query", "arguments": {"symbol": "AAPL", "interval": "1m", "limit": 1000}}
        })
        .to_string(),
    ];
    let (answers, stderr) = run(&["mcp", "--trace", "json"], &[], &lines);
    let answer = answers
        .iter()
        .find(|a| a["id"] == 1)
        .expect("the call is answered");
    assert_eq!(answer["result"]["isError"], true, "{answer:.300}");
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!(envelope["error"]["code"], "TOOL_FAILED");
    assert_eq!(envelope["error"]["retryable"], true);
    let spans = closed(&stderr, "execute_tool");
    assert_eq!(spans.len(), 1, "{stderr:#?}");
    assert_eq!(spans[0]["mcp.method.name"], "tools/call");
    assert_eq!(spans[0]["error.type"], "TOOL_FAILED");
}
