//! `chart-tools host`: provider responses in, the provider's result messages out; and approvals
//! a person gives later, across processes, for `host` and `run`.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A published example response (`tool-runtime/tests/fixtures/providers/<name>.jsonc`) as one
/// line, without its leading comment lines.
fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tool-runtime/tests/fixtures/providers")
        .join(format!("{name}.jsonc"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: String = text
        .lines()
        .skip_while(|line| line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let value: Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    value.to_string()
}

/// `(id, name)` of every tool call of a response, read straight from the provider's shape.
fn calls_in(provider: &str, response: &Value) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
    match provider {
        "openai" => items(&response["choices"][0]["message"]["tool_calls"])
            .iter()
            .map(|c| (text(&c["id"]), text(&c["function"]["name"])))
            .collect(),
        "openai-responses" => items(&response["output"])
            .iter()
            .filter(|i| i["type"] == "function_call")
            .map(|i| (text(&i["call_id"]), text(&i["name"])))
            .collect(),
        "anthropic" => items(&response["content"])
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| (text(&b["id"]), text(&b["name"])))
            .collect(),
        _ => items(&response["candidates"][0]["content"]["parts"])
            .iter()
            .filter(|p| p.get("functionCall").is_some())
            .map(|p| {
                (
                    text(&p["functionCall"]["id"]),
                    text(&p["functionCall"]["name"]),
                )
            })
            .collect(),
    }
}

/// The envelopes of an answer line, checked against the provider's result shape: one answer
/// per call, in call order, each paired with its call.
fn envelopes(provider: &str, calls: &[(String, String)], answer: &Value) -> Vec<Value> {
    let messages = answer
        .as_array()
        .unwrap_or_else(|| panic!("{provider}: an array of messages: {answer}"));
    let parse = |text: &Value| -> Value {
        serde_json::from_str(text.as_str().expect("JSON text")).expect("the envelope")
    };
    let answers: Vec<(String, Value)> = match provider {
        "openai" => messages
            .iter()
            .map(|m| {
                assert_eq!(m["role"], "tool", "{m}");
                assert_eq!(m.as_object().map(|o| o.len()), Some(3), "{m}");
                (
                    m["tool_call_id"].as_str().unwrap_or("?").to_owned(),
                    parse(&m["content"]),
                )
            })
            .collect(),
        "openai-responses" => messages
            .iter()
            .map(|m| {
                assert_eq!(m["type"], "function_call_output", "{m}");
                assert_eq!(m.as_object().map(|o| o.len()), Some(3), "{m}");
                (
                    m["call_id"].as_str().unwrap_or("?").to_owned(),
                    parse(&m["output"]),
                )
            })
            .collect(),
        "anthropic" => {
            assert_eq!(messages.len(), usize::from(!calls.is_empty()), "{answer}");
            messages
                .iter()
                .flat_map(|m| {
                    assert_eq!(m["role"], "user", "{m}");
                    m["content"].as_array().cloned().unwrap_or_default()
                })
                .map(|b| {
                    assert_eq!(b["type"], "tool_result", "{b}");
                    let envelope = parse(&b["content"]);
                    assert_eq!(b["is_error"], envelope["success"] != true, "{b}");
                    (
                        b["tool_use_id"].as_str().unwrap_or("?").to_owned(),
                        envelope,
                    )
                })
                .collect()
        }
        _ => {
            assert_eq!(messages.len(), usize::from(!calls.is_empty()), "{answer}");
            messages
                .iter()
                .flat_map(|m| {
                    assert_eq!(m["role"], "user", "{m}");
                    m["parts"].as_array().cloned().unwrap_or_default()
                })
                .zip(calls)
                .map(|(p, (_, name))| {
                    let response = &p["functionResponse"];
                    assert_eq!(&response["name"], name, "{p}");
                    assert!(response["response"].is_object(), "{p}");
                    let id = response["id"].as_str().unwrap_or("").to_owned();
                    (id, response["response"].clone())
                })
                .collect()
        }
    };
    let ids: Vec<&str> = answers.iter().map(|(id, _)| id.as_str()).collect();
    let expected: Vec<&str> = calls.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, expected, "{provider}: one answer per call, in order");
    answers
        .into_iter()
        .map(|(_, envelope)| {
            assert!(
                envelope["success"].is_boolean() && envelope["stateChanged"].is_boolean(),
                "{envelope}"
            );
            envelope
        })
        .collect()
}

fn host(provider: &str, extra: &[&str], lines: &[String]) -> Vec<Value> {
    let mut args = vec!["host", "--provider", provider];
    args.extend_from_slice(extra);
    common::command_answers(&args, lines)
}

#[test]
fn the_published_example_responses_round_trip_into_result_messages() {
    for provider in ["openai", "openai-responses", "anthropic", "gemini"] {
        let prefix = match provider {
            "openai" => "openai_chat",
            "openai-responses" => "openai_responses",
            other => other,
        };
        let names = ["single", "parallel", "malformed"].map(|kind| format!("{prefix}_{kind}"));
        let lines: Vec<String> = names.iter().map(|name| fixture(name)).collect();
        let answers = host(provider, &[], &lines);
        assert_eq!(
            answers.len(),
            lines.len(),
            "{provider}: one line per response"
        );
        for ((line, answer), name) in lines.iter().zip(&answers).zip(&names) {
            let response: Value = serde_json::from_str(line).expect("JSON");
            let calls = calls_in(provider, &response);
            assert!(!calls.is_empty(), "{name}");
            let envelopes = envelopes(provider, &calls, answer);
            // The examples call tools the chart does not have.
            for envelope in envelopes {
                assert_eq!(
                    envelope["error"]["code"], "TOOL_NOT_FOUND",
                    "{name}: {envelope}"
                );
            }
        }
    }
}

/// A response of each provider calling a chart read, a chart write and a read whose arguments
/// are not an object.
fn chart_responses() -> Vec<(&'static str, Value)> {
    vec![
        (
            "openai",
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "panes_list", "arguments": "{}"}},
                {"id": "call_2", "type": "function", "function": {"name": "drawings_clear", "arguments": "{}"}},
                {"id": "call_3", "type": "function", "function": {"name": "drawings_list", "arguments": "{\"pane_id\":"}}
            ]}, "finish_reason": "tool_calls"}]}),
        ),
        (
            "openai-responses",
            json!({"object": "response", "output": [
                {"type": "function_call", "call_id": "call_1", "name": "panes_list", "arguments": "{}"},
                {"type": "function_call", "call_id": "call_2", "name": "drawings_clear", "arguments": "{}"},
                {"type": "function_call", "call_id": "call_3", "name": "drawings_list", "arguments": "[\"main\"]"}
            ]}),
        ),
        (
            "anthropic",
            json!({"role": "assistant", "stop_reason": "tool_use", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "panes_list", "input": {}},
                {"type": "tool_use", "id": "toolu_2", "name": "drawings_clear", "input": {}},
                {"type": "tool_use", "id": "toolu_3", "name": "drawings_list", "input": "main"}
            ]}),
        ),
        (
            "gemini",
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "panes_list", "args": {}}},
                {"functionCall": {"name": "drawings_clear", "args": {}, "id": "g2"}},
                {"functionCall": {"name": "drawings_list", "args": [1]}}
            ]}}]}),
        ),
    ]
}

#[test]
fn read_only_hosts_refuse_forged_writes_in_every_provider_shape() {
    for (provider, response) in chart_responses() {
        let answers = host(provider, &["--read-only"], &[response.to_string()]);
        let calls = calls_in(provider, &response);
        let envelopes = envelopes(provider, &calls, &answers[0]);
        assert_eq!(envelopes[0]["success"], true, "{provider}");
        assert_eq!(
            envelopes[1]["error"]["code"], "TOOL_NOT_ALLOWED",
            "{provider}"
        );
        assert_eq!(
            envelopes[1]["error"]["message"],
            "The tool `drawings_clear` changes state and this run is read-only."
        );
        assert_eq!(envelopes[1]["stateChanged"], false);
        assert_eq!(
            envelopes[2]["error"]["code"], "TOOL_INPUT_INVALID",
            "{provider}"
        );
        assert!(
            envelopes[2]["error"]["message"].as_str().is_some_and(
                |m| m.starts_with("The tool input is invalid: /: Expected object, found ")
            ),
            "{provider}: {}",
            envelopes[2]
        );
    }
}

#[test]
fn a_line_that_is_not_a_response_is_answered_and_the_host_goes_on() {
    let lines = [
        "{not json".to_owned(),
        json!({"output": []}).to_string(),
        json!({"choices": [{"message": {"tool_calls": [{"id": "a", "type": "function", "function": {"arguments": "{}"}}]}}]}).to_string(),
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}]}).to_string(),
    ];
    let answers = host("openai", &[], &lines);
    assert_eq!(answers[0]["error"]["code"], "RESPONSE_INVALID");
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the line is not valid JSON: "))
    );
    assert_eq!(
        answers[1],
        json!({"error": {"code": "RESPONSE_INVALID", "message": "/: missing \"choices\""}})
    );
    assert_eq!(
        answers[2]["error"]["message"],
        "/choices/0/message/tool_calls/0/function: missing \"name\""
    );
    assert_eq!(answers[3], json!([]), "no tool calls, no result messages");
}

/// A fresh state file path in a temporary folder.
fn state_file(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("approvals.json")
}

fn approval_ids(pending_line: &Value) -> Vec<String> {
    pending_line["pending"]
        .as_array()
        .unwrap_or_else(|| panic!("a pending line: {pending_line}"))
        .iter()
        .map(|p| p["approvalId"].as_str().expect("an id").to_owned())
        .collect()
}

#[test]
fn deferred_approvals_survive_a_restart_and_run_once() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let state = state_file(&dir);
    let state_arg = state.to_str().expect("a UTF-8 path");
    let args = ["--approval", "defer", "--state", state_arg];
    let response = json!({"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "drawings_list", "arguments": "{\"pane_id\":\"lower\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "drawing_delete", "arguments": "{\"drawing_id\":\"d3\"}"}},
        {"id": "call_3", "type": "function", "function": {"name": "panes_list", "arguments": "{}"}}
    ]}, "finish_reason": "tool_calls"}]});

    // First process: the read before the write ran, the write and what follows wait.
    let first = host("openai", &args, &[response.to_string()]);
    let pending = &first[0];
    assert_eq!(
        pending["pending"],
        json!([{"approvalId": pending["pending"][0]["approvalId"], "id": "call_2", "name": "drawing_delete", "arguments": {"drawing_id": "d3"}}])
    );
    assert_eq!(pending["answered"][0]["id"], "call_1");
    assert_eq!(pending["answered"].as_array().map(Vec::len), Some(1));
    let ids = approval_ids(pending);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("the state was saved"))
            .expect("the state is JSON");
    assert_eq!(saved["paused"].as_array().map(Vec::len), Some(1));

    // Second process, same state file: the decision resumes the message.
    let decisions = json!({"decisions": {ids[0].clone(): {"approve": true}}}).to_string();
    let second = host("openai", &args, std::slice::from_ref(&decisions));
    let calls = calls_in("openai", &response);
    let envelopes = envelopes("openai", &calls, &second[0]);
    assert_eq!(envelopes[0]["success"], true);
    assert_eq!(
        envelopes[1]["data"]["deleted"]["id"], "d3",
        "{}",
        envelopes[1]
    );
    assert_eq!(
        envelopes[1]["stateChanged"], true,
        "the approved write ran on resume"
    );
    assert_eq!(envelopes[2]["success"], true, "the call behind it ran too");

    // Third process: the same decision again runs nothing.
    let third = host("openai", &args, &[decisions]);
    assert_eq!(
        third[0],
        json!({"error": {"code": "APPROVAL_UNKNOWN", "message": format!("approval `{}` was already decided", ids[0])}})
    );
    assert_eq!(third.len(), 1);
}

#[test]
fn run_takes_decisions_too_and_a_denial_reaches_the_model() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let state = state_file(&dir);
    let state_arg = state.to_str().expect("a UTF-8 path");
    let args = ["--approval", "defer", "--state", state_arg];
    let message = common::message(&[
        common::call("1", "drawings_clear", json!({})),
        common::call("2", "drawings_list", json!({})),
    ]);
    let first = common::answers(&args, &[message]);
    let ids = approval_ids(&first[0]);
    assert_eq!(first[0]["answered"], json!([]), "nothing before the write");
    let unknown = "0".repeat(32);
    let decisions = json!({"decisions": {
        ids[0].clone(): {"deny": "Keep my drawings."},
        unknown.clone(): {"approve": true}
    }})
    .to_string();
    let second = common::answers(&args, &[decisions]);
    assert_eq!(
        second[0],
        json!({"error": {"code": "APPROVAL_UNKNOWN", "message": format!("no pending approval `{unknown}`")}})
    );
    let results = common::results(&second[1]);
    assert_eq!(
        results[0]["error"]["message"],
        "The call to `drawings_clear` was not approved: Keep my drawings."
    );
    assert_eq!(
        results[1]["data"]["drawings"].as_array().map(Vec::len),
        Some(3),
        "nothing was cleared"
    );
}

#[test]
fn one_process_can_pause_and_resume_without_a_state_file() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .args(["run", "--approval", "defer"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut read_line = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("an answer line");
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let message = common::message(&[common::call("1", "drawings_clear", json!({}))]);
    writeln!(stdin, "{message}").expect("written");
    let pending = read_line();
    let id = approval_ids(&pending)[0].clone();
    writeln!(stdin, "{}", json!({"decisions": {id: {"approve": true}}})).expect("written");
    let answer = read_line();
    assert_eq!(
        common::results(&answer)[0]["data"]["removed"],
        json!(["d1", "d2", "d3"])
    );
    writeln!(stdin, "{message}").expect("written");
    let _second = read_line();
    drop(stdin);
    let output = child.wait_with_output().expect("the binary exits");
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 approval(s) still pending are dropped"),
        "{stderr}"
    );
}

#[test]
fn allow_and_deny_decide_at_once() {
    let message = common::message(&[common::call("1", "drawings_clear", json!({}))]);
    let allowed = common::answers(&["--approval", "allow"], std::slice::from_ref(&message));
    assert_eq!(common::results(&allowed[0])[0]["stateChanged"], true);
    let denied = common::answers(&["--approval", "deny"], &[message]);
    assert_eq!(
        common::results(&denied[0])[0]["error"]["message"],
        "The call to `drawings_clear` was not approved: The user does not allow changes in this run."
    );
}

#[test]
fn malformed_decisions_and_state_files_are_clear_errors() {
    let answers = common::answers(
        &["--approval", "defer"],
        &[
            json!({"decisions": {"abc": {"approve": false}}}).to_string(),
            json!({"decisions": [], "x": 1}).to_string(),
        ],
    );
    assert_eq!(
        answers[0],
        json!({"error": {"code": "DECISIONS_INVALID", "message": "decisions/abc: expected {\"approve\": true}, {\"deny\": \"reason\"} or {\"edit\": {…arguments}}"}})
    );
    assert_eq!(answers[1]["error"]["code"], "DECISIONS_INVALID");

    let dir = tempfile::tempdir().expect("a temporary folder");
    let state = state_file(&dir);
    std::fs::write(&state, "{\"paused\": 1}").expect("written");
    let output = common::run_binary(&["--state", state.to_str().expect("UTF-8")], "[]\n");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a saved approval state"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&state).expect("still there"),
        "{\"paused\": 1}",
        "a corrupt state file is left as it is"
    );
}
