//! Every rule of the specification, end to end through `chart-tools run`.

mod common;

use common::{answers, call, example_input, message, results, run_binary};
use serde_json::{Value, json};

/// A message reading the whole chart state: panes, drawings, comparisons, settings.
fn snapshot_line() -> String {
    message(&[
        call("s1", "panes_list", json!({})),
        call("s2", "drawings_list", json!({})),
        call("s3", "comparisons_list", json!({})),
        call("s4", "settings_get", json!({})),
    ])
}

fn snapshot(answer: &Value) -> Vec<Value> {
    results(answer)
        .into_iter()
        .map(|result| {
            assert_eq!(result["success"], true, "{result}");
            result["data"].clone()
        })
        .collect()
}

fn destructive_tools() -> Vec<&'static toolwright_runtime::handler::ToolMeta> {
    chart_tools::declared_tools()
        .into_iter()
        .filter(|m| !m.safety.is_read_only())
        .collect()
}

fn read_only_tools() -> Vec<&'static toolwright_runtime::handler::ToolMeta> {
    chart_tools::declared_tools()
        .into_iter()
        .filter(|m| m.safety.is_read_only())
        .collect()
}

#[test]
fn a_read_only_run_refuses_every_forged_write_and_changes_nothing() {
    let writes = destructive_tools();
    // 12 chart writes, plus `code_interpreter` with its feature.
    assert_eq!(writes.len(), 13 - chart_tools::NOT_REGISTERED.len());
    let mut lines = vec![snapshot_line()];
    lines.extend(
        writes
            .iter()
            .map(|meta| message(&[call(meta.name, meta.name, example_input(meta.name))])),
    );
    lines.push(snapshot_line());
    let out = answers(&["--read-only"], &lines);
    assert_eq!(out.len(), lines.len());
    for (meta, answer) in writes.iter().zip(&out[1..]) {
        let expected = json!([{
            "id": meta.name,
            "name": meta.name,
            "result": {
                "success": false,
                "error": {
                    "code": "TOOL_NOT_ALLOWED",
                    "message": format!("The tool `{}` changes state and this run is read-only.", meta.name),
                    "retryable": false,
                    "recommendedAction": "Do not retry: this run is read-only. Use only the tools offered in this run."
                },
                "stateChanged": false
            }
        }]);
        assert_eq!(answer, &expected);
    }
    assert_eq!(
        snapshot(&out[0]),
        snapshot(&out[out.len() - 1]),
        "the chart is unchanged"
    );
}

#[test]
fn a_read_only_run_hides_no_read() {
    let reads = read_only_tools();
    assert_eq!(reads.len(), 11);
    let lines: Vec<String> = reads
        .iter()
        .map(|meta| message(&[call(meta.name, meta.name, example_input(meta.name))]))
        .collect();
    for (meta, answer) in reads.iter().zip(answers(&["--read-only"], &lines)) {
        let result = &answer[0]["result"];
        assert_eq!(result["success"], true, "{}: {result}", meta.name);
        assert_eq!(result["stateChanged"], false, "{}", meta.name);
    }
}

#[test]
fn the_same_writes_run_outside_a_read_only_run() {
    let lines = vec![
        snapshot_line(),
        message(&[call("w", "drawings_clear", json!({}))]),
        snapshot_line(),
    ];
    let out = answers(&[], &lines);
    assert_eq!(out[1][0]["result"]["success"], true);
    assert_eq!(out[1][0]["result"]["stateChanged"], true);
    assert_ne!(snapshot(&out[0]), snapshot(&out[2]));
}

#[test]
fn a_disabled_tool_is_refused_and_the_others_run() {
    let lines = vec![message(&[
        call("1", "drawing_delete", json!({"drawing_id": "d1"})),
        call("2", "drawings_list", json!({"pane_id": "main"})),
    ])];
    let out = answers(&["--disable", "drawing_delete"], &lines);
    let results = results(&out[0]);
    assert_eq!(results[0]["error"]["code"], "TOOL_NOT_ALLOWED");
    assert_eq!(
        results[0]["error"]["message"],
        "The tool `drawing_delete` is disabled by the user."
    );
    assert_eq!(results[0]["stateChanged"], false);
    let ids: Vec<&Value> = results[1]["data"]["drawings"]
        .as_array()
        .expect("drawings")
        .iter()
        .map(|d| &d["id"])
        .collect();
    assert_eq!(ids, [&json!("d1"), &json!("d2")], "d1 was not deleted");
}

#[test]
fn disabling_an_unknown_tool_is_a_usage_error() {
    let output = run_binary(&["--disable", "drawing_delet"], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown tool `drawing_delet` in `--disable`, expected one of `ask_user`"),
        "{stderr}"
    );
    assert!(stderr.contains("`drawing_delete`"), "{stderr}");
}

#[test]
fn an_unknown_tool_is_not_found_with_close_names() {
    let out = answers(&[], &[message(&[call("1", "drawing_craete", json!({}))])]);
    assert_eq!(
        out[0][0]["result"],
        json!({
            "success": false,
            "error": {
                "code": "TOOL_NOT_FOUND",
                "message": "The tool `drawing_craete` does not exist. Close names: `drawing_create`, `drawing_delete`, `drawing_update`.",
                "retryable": true,
                "recommendedAction": "Call one of the offered tools by its exact name."
            },
            "stateChanged": false
        })
    );
    // A read-only run offers no write, so it suggests none.
    let out = answers(
        &["--read-only"],
        &[message(&[call("1", "drawing_craete", json!({}))])],
    );
    let text = out[0][0]["result"]["error"]["message"]
        .as_str()
        .expect("a message");
    assert!(!text.contains("`drawing_create`"), "{text}");
}

/// `code_interpreter` is not registered without its feature.
#[cfg(not(feature = "code-interpreter"))]
#[test]
fn the_code_interpreter_is_not_found_without_its_feature() {
    let out = answers(
        &[],
        &[message(&[call(
            "1",
            "code_interpreter",
            example_input("code_interpreter"),
        )])],
    );
    assert_eq!(out[0][0]["result"]["error"]["code"], "TOOL_NOT_FOUND");
}

#[test]
fn invalid_input_is_reported_in_the_spec_form_before_any_code_runs() {
    let bad_price = json!({
        "pane_id": "main",
        "kind": "horizontal_line",
        "anchors": [{"time": 1735776000, "price": "high"}]
    });
    let lines = vec![
        snapshot_line(),
        message(&[call("1", "drawing_create", bad_price)]),
        message(&[call(
            "2",
            "drawing_create",
            json!({"kind": "text", "anchors": []}),
        )]),
        message(&[call(
            "3",
            "drawing_create",
            json!({"pane_id": "main", "kind": "ray", "anchors": [], "colour": "red"}),
        )]),
        message(&[call(
            "4",
            "drawing_create",
            json!({
                "kind": "rays",
                "colour": 1,
                "anchors": [{"time": -1, "price": "x"}, {}, {}],
                "style": {"width": 0, "color": "red"},
                "text": ""
            }),
        )]),
        snapshot_line(),
    ];
    let out = answers(&[], &lines);
    assert_eq!(
        out[1][0]["result"],
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
    let message_of = |answer: &Value| {
        answer[0]["result"]["error"]["message"]
            .as_str()
            .expect("a message")
            .to_owned()
    };
    let missing = message_of(&out[2]);
    assert!(
        missing.contains("/pane_id: Expected required property"),
        "{missing}"
    );
    let unexpected = message_of(&out[3]);
    assert!(
        unexpected.contains("/colour: Unexpected property"),
        "{unexpected}"
    );
    let many = message_of(&out[4]);
    assert_eq!(
        many.matches(": Expected").count() + many.matches(": Unexpected").count(),
        5,
        "{many}"
    );
    assert!(many.ends_with(" more"), "{many}");
    assert!(many.contains("; … and "), "{many}");
    assert_eq!(snapshot(&out[0]), snapshot(&out[5]), "nothing ran");
}

#[test]
fn a_domain_error_names_what_is_valid_and_the_declared_recovery() {
    let meta = &chart_tools::tools::drawing_create::META;
    let declared = |code: &str| meta.error(code).expect("declared");
    let lines = vec![
        message(&[call("p", "panes_list", json!({}))]),
        message(&[call(
            "1",
            "drawing_create",
            json!({"pane_id": "upper", "kind": "horizontal_line", "anchors": [{"time": 1735776000, "price": 1.0}]}),
        )]),
        message(&[call(
            "2",
            "drawing_create",
            json!({"pane_id": "main", "kind": "horizontal_line", "anchors": [{"time": 946684800, "price": 1.0}]}),
        )]),
    ];
    let out = answers(&[], &lines);
    let result = &out[1][0]["result"];
    let pane = declared("PANE_NOT_FOUND");
    assert_eq!(result["success"], false);
    assert_eq!(result["stateChanged"], false);
    assert_eq!(result["error"]["code"], "PANE_NOT_FOUND");
    assert_eq!(result["error"]["retryable"], pane.retryable);
    assert_eq!(
        result["error"]["recommendedAction"],
        pane.recommended_action
    );
    let text = result["error"]["message"].as_str().expect("a message");
    assert!(text.starts_with(pane.message), "{text}");
    assert!(text.contains("Valid pane IDs: main, lower."), "{text}");

    let loaded = &out[0][0]["result"]["data"]["panes"][0]["loaded"];
    let result = &out[2][0]["result"];
    let range = declared("DATE_OUT_OF_RANGE");
    assert_eq!(result["error"]["code"], "DATE_OUT_OF_RANGE");
    assert_eq!(
        result["error"]["recommendedAction"],
        range.recommended_action
    );
    assert_eq!(result["stateChanged"], false);
    let text = result["error"]["message"].as_str().expect("a message");
    let first = loaded["first"].as_str().expect("first");
    let last = loaded["last"].as_str().expect("last");
    assert!(text.contains(&format!("{first} to {last}")), "{text}");
    assert!(text.contains("2000-01-01"), "{text}");
}

#[test]
fn a_mixed_message_runs_in_order_with_one_result_per_call() {
    let drawing = example_input("drawing_create");
    let calls = [
        call("a", "drawing_create", drawing),
        call("b", "drawings_list", json!({"pane_id": "main"})),
        call("c", "no_such_tool", json!({})),
        call("d", "drawing_delete", json!({"drawing_id": 4})),
        call("e", "drawing_delete", json!({"drawing_id": "d4"})),
        call("f", "drawings_list", json!({"pane_id": "main"})),
    ];
    let out = answers(&[], &[message(&calls)]);
    assert_eq!(out.len(), 1);
    let ids: Vec<&str> = out[0]
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let results = results(&out[0]);
    assert_eq!(results[0]["data"]["id"], "d4");
    assert_eq!(results[0]["stateChanged"], true);
    let listed = |r: &Value| -> Vec<String> {
        r["data"]["drawings"]
            .as_array()
            .expect("drawings")
            .iter()
            .map(|d| d["id"].as_str().expect("id").to_owned())
            .collect()
    };
    assert_eq!(listed(results[1]), ["d1", "d2", "d4"], "b saw a");
    assert_eq!(results[2]["error"]["code"], "TOOL_NOT_FOUND");
    assert_eq!(results[3]["error"]["code"], "TOOL_INPUT_INVALID");
    assert_eq!(results[4]["success"], true);
    assert_eq!(listed(results[5]), ["d1", "d2"], "f saw e");
}

#[test]
fn a_parallel_message_answers_in_call_order() {
    let reads = read_only_tools();
    let calls: Vec<Value> = reads
        .iter()
        .filter(|m| m.mode == toolwright_runtime::handler::Mode::Parallel)
        .enumerate()
        .map(|(i, m)| call(&format!("call-{i}"), m.name, example_input(m.name)))
        .collect();
    assert_eq!(calls.len(), 10, "every read but ask_user is parallel");
    let out = answers(&[], &[message(&calls)]);
    let answered = out[0].as_array().expect("answers");
    assert_eq!(answered.len(), calls.len());
    for (call, answer) in calls.iter().zip(answered) {
        assert_eq!(answer["id"], call["id"]);
        assert_eq!(answer["name"], call["name"]);
        assert_eq!(answer["result"]["success"], true, "{answer}");
    }
}

#[test]
fn writes_report_whether_they_changed_anything() {
    let one = |name: &str, arguments: Value| message(&[call(name, name, arguments)]);
    let theme = json!({"key": "theme", "value": "light"});
    let same_drawing = json!({"drawing_id": "d1", "text": "Support"});
    let same_pane = json!({"pane_id": "lower", "interval": "1d"});
    let from_lower = json!({"from_pane_id": "lower", "to_pane_id": "main"});
    let lines = vec![
        (one("comparisons_clear", json!({})), true),
        (one("comparisons_clear", json!({})), false),
        (one("settings_reset", json!({})), false),
        (one("settings_update", theme.clone()), true),
        (one("settings_update", theme), false),
        (one("settings_reset", json!({"keys": ["theme"]})), true),
        (one("drawing_update", same_drawing), false),
        (
            one(
                "drawing_update",
                json!({"drawing_id": "d1", "text": "Floor"}),
            ),
            true,
        ),
        (one("pane_replace_content", same_pane), false),
        (
            one(
                "pane_replace_content",
                json!({"pane_id": "lower", "interval": "1w"}),
            ),
            true,
        ),
        (one("drawings_clear", json!({"pane_id": "lower"})), true),
        (one("drawings_copy", from_lower), false),
        (one("drawings_clear", json!({"pane_id": "lower"})), false),
        (one("panes_clear", json!({})), true),
        (one("panes_clear", json!({})), false),
    ];
    let input: Vec<String> = lines.iter().map(|(line, _)| line.clone()).collect();
    let out = answers(&[], &input);
    for ((line, changed), answer) in lines.iter().zip(&out) {
        let result = &answer[0]["result"];
        assert_eq!(result["success"], true, "{line}: {result}");
        assert_eq!(result["stateChanged"], *changed, "{line}: {result}");
    }
}

#[test]
fn invalid_lines_are_answered_and_the_run_goes_on() {
    let mut input = Vec::new();
    for line in [
        "not json",
        r#"{"id":"1","name":"panes_list"}"#,
        r#"[{"id":"1"},{"id":"2","name":"panes_list"}]"#,
        "",
        "   ",
        r#"[{"id":"2","name":"panes_list","arguments":{}}]"#,
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(b"[\xff]\n");
    input.extend_from_slice(br#"[{"id":"3","name":"settings_get"}]"#);
    let output = common::run_binary_bytes(&[], &input);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 6, "blank lines are skipped: {stdout}");
    let invalid = |line: &Value| {
        assert_eq!(line["error"]["code"], "MESSAGE_INVALID", "{line}");
        line["error"]["message"]
            .as_str()
            .expect("a message")
            .to_owned()
    };
    assert!(invalid(&lines[0]).starts_with("the line is not valid JSON"));
    assert_eq!(
        invalid(&lines[1]),
        "expected a JSON array of calls, found an object"
    );
    assert_eq!(invalid(&lines[2]), r#"call 1: missing "name""#);
    assert_eq!(lines[3][0]["result"]["success"], true);
    assert_eq!(invalid(&lines[4]), "the line is not valid UTF-8");
    assert_eq!(
        lines[5][0]["id"], "3",
        "a last line without newline is read"
    );
    assert_eq!(lines[5][0]["result"]["success"], true);
}

#[test]
fn the_settings_file_is_applied_and_never_written() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("tools.json");
    let text = "{\"disabledTools\": [\"drawings_clear\", \"retired_tool\"]}\n";
    std::fs::write(&path, text).expect("settings written");
    let path_arg = path.to_str().expect("a UTF-8 path");
    let lines = vec![message(&[
        call("1", "drawings_clear", json!({})),
        call("2", "comparisons_clear", json!({})),
    ])];
    let out = answers(
        &["--settings", path_arg, "--disable", "comparisons_clear"],
        &lines,
    );
    let results = results(&out[0]);
    for result in results {
        assert_eq!(result["error"]["code"], "TOOL_NOT_ALLOWED", "{result}");
    }
    assert_eq!(
        std::fs::read_to_string(&path).expect("still there"),
        text,
        "the file is not rewritten"
    );

    // A missing file is first use: every tool is enabled, and no file is created.
    let missing = dir.path().join("missing.json");
    let out = answers(
        &["--settings", missing.to_str().expect("UTF-8")],
        &[message(&[call("1", "drawings_clear", json!({}))])],
    );
    assert_eq!(out[0][0]["result"]["success"], true);
    assert!(!missing.exists());
}

#[test]
fn an_unreadable_settings_file_stops_the_run_with_status_2() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let corrupt = dir.path().join("tools.json");
    std::fs::write(&corrupt, "{\"disabledTools\": [\"x\",").expect("written");
    let input = message(&[call("1", "panes_list", json!({}))]);
    let output = run_binary(&["--settings", corrupt.to_str().expect("UTF-8")], &input);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "no call ran");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("tools.json"), "{stderr}");
    assert!(stderr.contains("corrupt at line 1"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&corrupt).expect("kept"),
        "{\"disabledTools\": [\"x\",",
        "a corrupt file is left untouched"
    );

    // A directory cannot be read as a file.
    let output = run_binary(&["--settings", dir.path().to_str().expect("UTF-8")], &input);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot read the tool settings"), "{stderr}");
}

#[test]
fn ask_user_answers_from_the_flag_or_the_first_option() {
    let ask = |arguments: Value| message(&[call("q", "ask_user", arguments)]);
    let lines = vec![
        ask(json!({"question": "Which timeframe?", "options": ["1d", "1h"]})),
        ask(json!({"question": "Shall I go on?"})),
    ];
    let data = |out: &[Value], i: usize| out[i][0]["result"]["data"].clone();
    let out = answers(&[], &lines);
    assert_eq!(
        data(&out, 0),
        json!({"question": "Which timeframe?", "answer": "1d", "chose_option": true})
    );
    assert_eq!(
        data(&out, 1),
        json!({"question": "Shall I go on?", "answer": "yes"})
    );
    let out = answers(&["--answer", "1h"], &lines);
    assert_eq!(data(&out, 0)["answer"], "1h");
    assert_eq!(data(&out, 0)["chose_option"], true);
    assert_eq!(data(&out, 1)["answer"], "1h");
}
