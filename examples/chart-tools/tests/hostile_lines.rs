//! `chart-tools run` against hostile JSON Lines: every line gets one short answer, the run goes
//! on to the next line, and the process ends with status 0.

mod common;

use common::{call, message, run_binary_bytes};
use serde_json::{Value, json};

/// The longest answer a rejected line may get.
const SHORT: usize = 4 * 1024;

/// A valid message, sent after each hostile line to see that the run goes on.
const NEXT: &str = r#"[{"id":"next","name":"panes_list"}]"#;

/// A line bound above every hostile line of these tests (up to 20 MiB): they test what the run
/// and the registry do with what a line holds. The bound itself is tested at the end.
const WIDE_LINES: &[&str] = &["--max-line-bytes", "67108864"];

/// Runs `hostile` followed by [`NEXT`] and returns the raw answer lines, after checking that the
/// run ended with status 0 and answered [`NEXT`] with a success.
fn answer_then_go_on(hostile: &[u8]) -> Vec<String> {
    answer_then_go_on_with(WIDE_LINES, hostile)
}

/// As [`answer_then_go_on`], with these arguments of `run`.
fn answer_then_go_on_with(args: &[&str], hostile: &[u8]) -> Vec<String> {
    let mut input = hostile.to_vec();
    input.push(b'\n');
    input.extend_from_slice(NEXT.as_bytes());
    input.push(b'\n');
    let output = run_binary_bytes(args, &input);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}: {stderr}",
        output.status
    );
    let stdout = String::from_utf8(output.stdout).expect("the answers are UTF-8");
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "one answer per line: {:.500}", stdout);
    let last: Value = serde_json::from_str(&lines[1]).expect("the last answer is JSON");
    assert_eq!(last[0]["id"], "next", "{last:.300}");
    assert_eq!(
        last[0]["result"]["success"], true,
        "the run goes on: {last:.300}"
    );
    lines
}

/// The `MESSAGE_INVALID` message of a short answer line.
fn invalid_message(line: &str) -> String {
    assert!(line.len() < SHORT, "a short answer: {} bytes", line.len());
    let answer: Value = serde_json::from_str(line).expect("the answer is JSON");
    assert_eq!(answer["error"]["code"], "MESSAGE_INVALID", "{answer}");
    answer["error"]["message"]
        .as_str()
        .expect("a message")
        .to_owned()
}

/// The envelope of the single call of a short answer line.
fn single_result(line: &str) -> Value {
    assert!(line.len() < SHORT, "a short answer: {} bytes", line.len());
    let answer: Value = serde_json::from_str(line).expect("the answer is JSON");
    let answers = answer.as_array().expect("an array of answers");
    assert_eq!(answers.len(), 1, "{answer}");
    answers[0]["result"].clone()
}

#[test]
fn nan_is_not_json() {
    let lines = answer_then_go_on(
        br#"[{"id":"1","name":"drawing_create","arguments":{"pane_id":"main","kind":"horizontal_line","anchors":[{"time":1751241600,"price":NaN}]}}]"#,
    );
    let message = invalid_message(&lines[0]);
    assert!(
        message.starts_with("the line is not valid JSON: ") && message.contains("column"),
        "says where: {message}"
    );
    let lines =
        answer_then_go_on(br#"[{"id":"1","name":"settings_update","arguments":{"x":Infinity}}]"#);
    invalid_message(&lines[0]);
}

#[test]
fn invalid_utf8_is_answered_and_skipped() {
    let mut line = br#"[{"id":"1","name":"web_search","arguments":{"query":""#.to_vec();
    line.extend_from_slice(&[0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
    line.extend_from_slice(br#""}}]"#);
    let lines = answer_then_go_on(&line);
    assert_eq!(invalid_message(&lines[0]), "the line is not valid UTF-8");

    // A lone continuation byte at the very start of the line, no JSON at all.
    let lines = answer_then_go_on(&[0x80, b'[', b']']);
    assert_eq!(invalid_message(&lines[0]), "the line is not valid UTF-8");
}

#[test]
fn a_ten_megabyte_string_argument_gets_a_short_answer() {
    let huge = "A".repeat(10 * 1024 * 1024);
    for (name, arguments) in [
        ("instruments_query_name", json!({"query": huge})),
        ("web_search", json!({"query": huge})),
        (
            "drawing_create",
            json!({"pane_id": huge, "kind": "text", "anchors": [{"time": 1, "price": 1}]}),
        ),
        // The same string as a key that the schema does not allow.
        ("panes_list", json!({ huge.clone(): 1 })),
    ] {
        let line = message(&[call("1", name, arguments)]);
        let lines = answer_then_go_on(line.as_bytes());
        let result = single_result(&lines[0]);
        assert_eq!(result["success"], false, "{name}: {result}");
        assert_eq!(
            result["error"]["code"], "TOOL_INPUT_INVALID",
            "{name}: {result}"
        );
        assert_eq!(result["stateChanged"], false, "{name}");
    }
    // As the name of a tool or the id of a call, it is echoed as given, but the envelope
    // stays short: the answer is never much longer than the question.
    for (id, name) in [("1", huge.as_str()), (huge.as_str(), "panes_lst")] {
        let line = message(&[call(id, name, json!({}))]);
        let lines = answer_then_go_on(line.as_bytes());
        assert!(
            lines[0].len() < line.len() + SHORT,
            "{} bytes",
            lines[0].len()
        );
        let answer: Value = serde_json::from_str(&lines[0]).expect("the answer is JSON");
        assert_eq!(answer[0]["id"].as_str().map(str::len), Some(id.len()));
        assert_eq!(answer[0]["name"].as_str().map(str::len), Some(name.len()));
        let result = &answer[0]["result"];
        assert!(result.to_string().len() < SHORT, "a short envelope");
        assert_eq!(result["error"]["code"], "TOOL_NOT_FOUND", "{result:.300}");
    }
}

#[test]
fn a_twenty_thousand_key_object_gets_at_most_five_errors() {
    let keys: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| (format!("key{i:05}"), json!(i)))
        .collect();
    let line = message(&[call("1", "panes_list", Value::Object(keys.clone()))]);
    let lines = answer_then_go_on(line.as_bytes());
    let result = single_result(&lines[0]);
    assert_eq!(result["error"]["code"], "TOOL_INPUT_INVALID", "{result}");
    let message_text = result["error"]["message"].as_str().expect("a message");
    assert_eq!(
        message_text.matches("Unexpected property").count(),
        5,
        "{message_text}"
    );
    assert!(message_text.ends_with("… and 19995 more"), "{message_text}");

    // The same object where a scalar is expected.
    let line = message(&[call(
        "1",
        "settings_update",
        json!({"key": "theme", "value": Value::Object(keys)}),
    )]);
    let lines = answer_then_go_on(line.as_bytes());
    let result = single_result(&lines[0]);
    assert_eq!(result["error"]["code"], "TOOL_INPUT_INVALID", "{result}");
}

#[test]
fn a_hundred_thousand_nested_arrays_are_rejected_without_a_crash() {
    let depth = 100_000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for line in [
        deep.clone(),
        format!(r#"[{{"id":"1","name":"panes_list","arguments":{{"x":{deep}}}}}]"#),
        // Never closed.
        "[".repeat(depth),
        format!(
            r#"[{{"id":"1","name":"panes_list","arguments":{}"#,
            "{\"a\":".repeat(depth)
        ),
    ] {
        let lines = answer_then_go_on(line.as_bytes());
        let message = invalid_message(&lines[0]);
        assert!(
            message.starts_with("the line is not valid JSON: "),
            "{message}"
        );
    }
}

#[test]
fn nesting_that_json_accepts_gets_a_short_tool_error() {
    let depth = 100;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for (name, arguments) in [
        ("panes_list", format!(r#"{{"x":{deep}}}"#)),
        (
            "drawing_create",
            format!(r#"{{"pane_id":"main","kind":"text","anchors":{deep}}}"#),
        ),
        (
            "settings_update",
            format!(r#"{{"key":"theme","value":{deep}}}"#),
        ),
    ] {
        let line = format!(r#"[{{"id":"1","name":"{name}","arguments":{arguments}}}]"#);
        let lines = answer_then_go_on(line.as_bytes());
        let result = single_result(&lines[0]);
        assert_eq!(
            result["error"]["code"], "TOOL_INPUT_INVALID",
            "{name}: {result}"
        );
    }
}

#[test]
fn an_object_line_is_not_a_message() {
    let lines = answer_then_go_on(br#"{"id":"1","name":"panes_list"}"#);
    assert_eq!(
        invalid_message(&lines[0]),
        "expected a JSON array of calls, found an object"
    );
    for (line, kind) in [
        ("\"panes_list\"", "a string"),
        ("42", "a number"),
        ("null", "null"),
        ("true", "a boolean"),
    ] {
        let lines = answer_then_go_on(line.as_bytes());
        assert_eq!(
            invalid_message(&lines[0]),
            format!("expected a JSON array of calls, found {kind}")
        );
    }
}

#[test]
fn an_empty_message_is_answered_by_an_empty_array() {
    let lines = answer_then_go_on(b"[]");
    assert_eq!(lines[0], "[]");
    let lines = answer_then_go_on(b"  [ ]  ");
    assert_eq!(lines[0], "[]");
}

#[test]
fn two_thousand_calls_get_two_thousand_results_in_order() {
    let calls: Vec<Value> = (0..2_000)
        .map(|i| match i % 7 {
            3 => call(&format!("c{i}"), "panes_lst", json!({})),
            5 => call(&format!("c{i}"), "drawings_list", json!({"pane_id": 5})),
            _ => call(&format!("c{i}"), "panes_list", json!({})),
        })
        .collect();
    let lines = answer_then_go_on(message(&calls).as_bytes());
    let answer: Value = serde_json::from_str(&lines[0]).expect("the answer is JSON");
    let answers = answer.as_array().expect("an array of answers");
    assert_eq!(answers.len(), 2_000);
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], format!("c{i}"), "in call order");
        let expected = match i % 7 {
            3 => Some("TOOL_NOT_FOUND"),
            5 => Some("TOOL_INPUT_INVALID"),
            _ => None,
        };
        assert_eq!(
            answer["result"]["error"]["code"].as_str(),
            expected,
            "call {i}: {answer}"
        );
    }
}

#[test]
fn a_run_of_hostile_lines_answers_each_and_exits_zero() {
    let mut input = Vec::new();
    let lines: [&[u8]; 8] = [
        b"[NaN]",
        &[0xc0, 0xaf],
        b"{}",
        b"[]",
        b"[{\"id\":\"1\"}]",
        b"\t",
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        b"[{\"id\":\"last\",\"name\":\"settings_get\"}]",
    ];
    for line in lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    // The last line has no newline.
    input.extend_from_slice(NEXT.as_bytes());
    let output = run_binary_bytes(&[], &input);
    assert!(output.status.success(), "exit {:?}", output.status);
    let stdout = String::from_utf8(output.stdout).expect("the answers are UTF-8");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every answer is JSON"))
        .collect();
    // The blank line is skipped; every other line gets one answer.
    assert_eq!(answers.len(), 8, "{stdout}");
    let codes: Vec<&str> = answers
        .iter()
        .map(|a| a["error"]["code"].as_str().unwrap_or("answered"))
        .collect();
    assert_eq!(
        codes,
        [
            "MESSAGE_INVALID",
            "MESSAGE_INVALID",
            "MESSAGE_INVALID",
            "answered",
            "MESSAGE_INVALID",
            "MESSAGE_INVALID",
            "answered",
            "answered"
        ]
    );
    assert_eq!(answers[3], json!([]));
    assert_eq!(answers[6][0]["result"]["success"], true);
    assert_eq!(answers[7][0]["id"], "next");
}

#[test]
fn two_thousand_writes_and_reads_run_one_at_a_time_in_call_order() {
    let calls: Vec<Value> = (0..2_000)
        .map(|i| {
            if i % 100 == 99 {
                call(&format!("c{i}"), "drawings_list", json!({}))
            } else {
                call(
                    &format!("c{i}"),
                    "drawing_create",
                    json!({"pane_id": "main", "kind": "horizontal_line", "anchors": [{"time": 1_751_241_600, "price": i}]}),
                )
            }
        })
        .collect();
    let lines = answer_then_go_on(message(&calls).as_bytes());
    let answer: Value = serde_json::from_str(&lines[0]).expect("the answer is JSON");
    let answers = answer.as_array().expect("an array of answers");
    assert_eq!(answers.len(), 2_000);
    // The demo chart starts with 3 drawings; each write adds the next one.
    let mut drawings = 3;
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], format!("c{i}"), "in call order");
        let result = &answer["result"];
        assert_eq!(result["success"], true, "call {i}: {result:.300}");
        if i % 100 == 99 {
            let listed = result["data"]["drawings"]
                .as_array()
                .unwrap_or_else(|| panic!("a list of drawings: {result:.300}"));
            assert_eq!(
                listed.len(),
                drawings,
                "call {i} sees every write before it"
            );
        } else {
            drawings += 1;
            assert_eq!(result["data"]["id"], format!("d{drawings}"), "call {i}");
            assert_eq!(result["data"]["anchors"][0]["price"], json!(i as f64));
        }
    }
}

#[test]
fn malformed_calls_get_short_answers() {
    let huge = "k".repeat(10 * 1024 * 1024);
    // A huge unexpected key of a call is quoted short.
    let line = format!(r#"[{{"id":"1","name":"panes_list","{huge}":0}}]"#);
    let message_text = invalid_message(&answer_then_go_on(line.as_bytes())[0]);
    assert!(
        message_text.starts_with(r#"call 1: unexpected key "kkkk"#)
            && message_text.ends_with(r#"…", expected "id", "name" or "arguments""#),
        "{message_text}"
    );
    // 2,000 broken calls: five problems and a count of the rest.
    let broken = vec![json!({"id": "x"}); 2_000];
    let message_text = invalid_message(&answer_then_go_on(message(&broken).as_bytes())[0]);
    assert!(
        message_text.starts_with(r#"call 1: missing "name"; call 2: missing "name""#),
        "{message_text}"
    );
    assert!(
        message_text.ends_with("; … and 1995 more"),
        "{message_text}"
    );
    // One broken call fails the whole message: none of its calls runs.
    let broken = message(&[
        call("1", "drawings_clear", json!({})),
        json!({"id": "2", "arguments": {}}),
    ]);
    let list = message(&[call("3", "drawings_list", json!({}))]);
    let answers = common::answers(&[], &[broken, list]);
    assert_eq!(answers[0]["error"]["message"], r#"call 2: missing "name""#);
    assert_eq!(
        common::results(&answers[1])[0]["data"]["drawings"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "the demo chart's drawings are all there: {}",
        answers[1]
    );
    // A number JSON cannot hold in a double is not JSON to the reader.
    let line = r#"[{"id":"1","name":"market_bars_query","arguments":{"limit":1e400}}]"#;
    let message_text = invalid_message(&answer_then_go_on(line.as_bytes())[0]);
    assert!(
        message_text.starts_with("the line is not valid JSON: "),
        "{message_text}"
    );
    // One past the largest u64 is read as a float, then refused by the schema.
    let line = r#"[{"id":"1","name":"drawing_create","arguments":{"pane_id":"main","kind":"text","anchors":[{"time":18446744073709551616,"price":1}]}}]"#;
    let result = single_result(&answer_then_go_on(line.as_bytes())[0]);
    assert_eq!(result["error"]["code"], "TOOL_INPUT_INVALID", "{result}");
}

#[test]
fn crlf_lines_and_a_byte_order_mark() {
    let output = run_binary_bytes(
        &[],
        b"[]\r\n\r\n[{\"id\":\"1\",\"name\":\"settings_get\"}]\r\n",
    );
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 answers");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "a CR-only line is blank: {stdout:.300}");
    assert_eq!(lines[0], "[]");
    assert!(!lines[1].contains('\r'));
    assert_eq!(single_result(lines[1])["success"], true);

    let lines = answer_then_go_on("\u{feff}[]".as_bytes());
    assert!(
        invalid_message(&lines[0]).starts_with("the line is not valid JSON: "),
        "{}",
        lines[0]
    );
}

#[test]
fn arguments_that_are_not_an_object_are_answered_per_call() {
    let line = message(&[
        call("1", "drawings_list", json!({"pane_id": "lower"})),
        json!({"id": "2", "name": "drawings_clear", "arguments": [1]}),
        json!({"id": "3", "name": "drawings_clear", "arguments": "all"}),
        json!({"id": "4", "name": "drawings_clear", "arguments": null}),
        call("5", "drawings_list", json!({})),
    ]);
    let answers = common::answers(&[], &[line]);
    let results = common::results(&answers[0]);
    assert_eq!(results.len(), 5, "every call is answered");
    assert_eq!(results[0]["success"], true);
    for (result, found) in results[1..4].iter().zip(["an array", "a string", "null"]) {
        assert_eq!(result["error"]["code"], "TOOL_INPUT_INVALID");
        assert_eq!(
            result["error"]["message"],
            format!("The tool input is invalid: /: Expected object, found {found}")
        );
        assert_eq!(result["stateChanged"], false);
    }
    assert_eq!(
        results[4]["data"]["drawings"].as_array().map(Vec::len),
        Some(3),
        "nothing was cleared"
    );
}

#[test]
fn a_line_over_the_bound_is_answered_unread_and_the_run_goes_on() {
    // 20 MiB of a valid message: over the default bound of 4 MiB.
    let huge = message(&[call(
        "1",
        "web_search",
        json!({"query": "q".repeat(20 << 20)}),
    )]);
    let lines = answer_then_go_on_with(&[], huge.as_bytes());
    assert_eq!(
        invalid_message(&lines[0]),
        "the line is over 4194304 bytes, the most a line may have; it was discarded unread"
    );
    // The bound is the flag's; a line of exactly the bound is read.
    let line = message(&[call("1", "panes_list", json!({}))]);
    let bound = line.len().to_string();
    let lines = answer_then_go_on_with(&["--max-line-bytes", &bound], line.as_bytes());
    assert_eq!(single_result(&lines[0])["success"], true);
    let shorter = (line.len() - 1).to_string();
    let lines = answer_then_go_on_with(&["--max-line-bytes", &shorter], line.as_bytes());
    assert!(
        invalid_message(&lines[0]).starts_with(&format!("the line is over {shorter} bytes")),
        "{lines:?}"
    );
}

#[test]
fn host_answers_an_over_long_response_as_an_invalid_response() {
    let huge = format!(
        r#"{{"choices":[{{"message":{{"content":"{}"}}}}]}}"#,
        "x".repeat(5 << 20)
    );
    let mut input = huge.into_bytes();
    input.push(b'\n');
    input.extend_from_slice(
        br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"no calls"}}]}"#,
    );
    input.push(b'\n');
    let output = common::command(&["host", "--provider", "openai"], &input);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout:.500}");
    let first: Value = serde_json::from_str(lines[0]).expect("JSON");
    assert_eq!(first["error"]["code"], "RESPONSE_INVALID", "{first}");
    assert_eq!(lines[1], "[]");
}
