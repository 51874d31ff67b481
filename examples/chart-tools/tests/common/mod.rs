//! Running the `chart-tools` binary and reading its answers.

#![allow(dead_code)]

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs `chart-tools run <args>` with `input` on stdin until it exits.
pub fn run_binary(args: &[&str], input: &str) -> Output {
    run_binary_bytes(args, input.as_bytes())
}

/// Runs `chart-tools run <args>` with `input` (any bytes) on stdin until it exits.
pub fn run_binary_bytes(args: &[&str], input: &[u8]) -> Output {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    command(&all, input)
}

/// Runs `chart-tools <args>` (the subcommand first) with `input` on stdin until it exits.
pub fn command(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input).expect("the binary reads its input");
    drop(stdin);
    child.wait_with_output().expect("the binary exits")
}

/// Runs `chart-tools run <args>` on `lines` and returns one JSON value per output line; the run
/// must succeed and write valid JSON lines.
pub fn answers(args: &[&str], lines: &[String]) -> Vec<Value> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    command_answers(&all, lines)
}

/// Runs `chart-tools <args>` on `lines` and returns one JSON value per output line; the command
/// must succeed and write valid JSON lines.
pub fn command_answers(args: &[&str], lines: &[String]) -> Vec<Value> {
    let mut input = lines.join("\n");
    input.push('\n');
    let output = command(args, input.as_bytes());
    let stdout = String::from_utf8(output.stdout).expect("the output is UTF-8");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}: {stderr}",
        output.status
    );
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// The `result` of every call of one answer line, in order.
pub fn results(answer: &Value) -> Vec<&Value> {
    answer
        .as_array()
        .unwrap_or_else(|| panic!("an array of answers: {answer}"))
        .iter()
        .map(|a| &a["result"])
        .collect()
}

/// One call as a JSON value.
pub fn call(id: &str, name: &str, arguments: Value) -> Value {
    serde_json::json!({"id": id, "name": name, "arguments": arguments})
}

/// One message line of calls.
pub fn message(calls: &[Value]) -> String {
    Value::Array(calls.to_vec()).to_string()
}

/// The first example input of a tool.
pub fn example_input(name: &str) -> Value {
    let meta = chart_tools::tools::ALL
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"));
    serde_json::from_str(meta.examples[0].input).expect("examples are JSON")
}
