//! Several `chart-tools run --approval defer --state FILE` processes on one state file: each
//! approval runs once, whichever process resumes it and however many try at once; a process
//! holding an older copy of the state never runs a decided approval again; with `--store`, the
//! approvals are claimed in Redis.

mod common;

use std::collections::BTreeMap;
use std::io::{BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chart_tools::chart::Chart;
use chart_tools::session::SavedState;
use serde_json::{Value, json};
use toolwright_runtime::approval::Decision;
use toolwright_runtime::batch::BatchOutcome;
use toolwright_runtime::{RunPolicy, ToolCall};

/// Processes that race, the approvals they race for, and how many times each process decides
/// every approval (one line each): 4 × 3 × 1,000 = 12,000 resume attempts.
const PROCESSES: usize = 4;
const APPROVALS: usize = 1_000;
const ROUNDS: usize = 3;

/// How long the processes of the race may take, at most.
const DEADLINE: Duration = Duration::from_secs(300);

fn drawing(n: usize) -> Value {
    json!({
        "pane_id": "main",
        "kind": "horizontal_line",
        "anchors": [{"time": 1735776000, "price": 182.5}],
        "text": format!("approved {n}")
    })
}

/// A state file holding `count` paused messages, one `drawing_create` each (built through the
/// registry, as a first process would have); their approval ids, in order.
fn paused_state(path: &Path, count: usize) -> Vec<String> {
    let registry = chart_tools::registry().expect("the registry builds");
    let policy = RunPolicy::full().with_approval(|_| Decision::Defer);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut chart = Chart::demo();
    let mut state = SavedState::default();
    for n in 0..count {
        let calls = [ToolCall::new(
            format!("call_{n}"),
            "drawing_create",
            drawing(n),
        )];
        let BatchOutcome::Paused(paused) =
            runtime.block_on(registry.run_batch(&policy, &mut chart, &calls))
        else {
            panic!("message {n} did not pause");
        };
        state.paused.push(paused);
    }
    std::fs::write(path, serde_json::to_vec(&state).expect("serializes")).expect("written");
    state
        .paused
        .iter()
        .map(|p| p.pending()[0].approval_id.clone())
        .collect()
}

/// Kills a child process when dropped.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_child(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .arg("run")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

fn spawn(args: &[&str]) -> Reaped {
    Reaped(spawn_child(args))
}

/// The decisions line approving `ids`.
fn approve(ids: &[String]) -> String {
    let decisions: serde_json::Map<String, Value> = ids
        .iter()
        .map(|id| (id.clone(), json!({"approve": true})))
        .collect();
    json!({ "decisions": decisions }).to_string()
}

#[test]
fn processes_racing_on_one_state_file_run_each_approval_once() {
    let folder = tempfile::tempdir().expect("a folder");
    let state = folder.path().join("approvals.json");
    let ids = paused_state(&state, APPROVALS);
    let state_arg = state.to_str().expect("a UTF-8 path");
    // Each process decides every approval ROUNDS times, a line a round, each line in its own
    // order, all processes at once; a thread per process writes its lines, another reads its
    // answers while it runs (its answers may fill their pipe before it read every line).
    let (sender, outputs) = std::sync::mpsc::channel();
    for p in 0..PROCESSES {
        let mut child = spawn_child(&["--approval", "defer", "--state", state_arg]);
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let lines: Vec<String> = (0..ROUNDS)
            .map(|round| {
                let mut order = ids.clone();
                order.rotate_left((round * PROCESSES + p) * APPROVALS / (PROCESSES * ROUNDS));
                approve(&order)
            })
            .collect();
        std::thread::spawn(move || {
            for line in lines {
                writeln!(stdin, "{line}").expect("written");
            }
        });
        let sender = sender.clone();
        std::thread::spawn(move || {
            let _ = sender.send(child.wait_with_output());
        });
    }
    let deadline = Instant::now() + DEADLINE;
    // The drawings each approval created, by their text, across the processes.
    let mut created: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..PROCESSES {
        let left = deadline.saturating_duration_since(Instant::now());
        let output = outputs
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("the processes took over {DEADLINE:?}"))
            .expect("the output");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
        for line in stdout.lines() {
            let answer: Value = serde_json::from_str(line).expect("a JSON line");
            if answer.get("error").is_some() {
                assert_eq!(answer["error"]["code"], "APPROVAL_UNKNOWN", "{answer}");
                continue;
            }
            let result = &common::results(&answer)[0];
            if result["success"] == true {
                let text = result["data"]["text"]
                    .as_str()
                    .unwrap_or_else(|| panic!("a created drawing: {result}"))
                    .to_owned();
                *created.entry(text).or_default() += 1;
            } else {
                assert!(
                    result["error"]["message"]
                        .as_str()
                        .is_some_and(|m| m.ends_with("it was already decided, and a call runs at most once. The call was not run again.")),
                    "{result}"
                );
            }
        }
    }
    let twice: Vec<_> = created.iter().filter(|(_, runs)| **runs != 1).collect();
    assert!(
        twice.is_empty(),
        "drawings created more than once: {twice:?}"
    );
    assert_eq!(created.len(), APPROVALS, "each approval ran once");
    for n in 0..APPROVALS {
        assert!(
            created.contains_key(&format!("approved {n}")),
            "approval {n} ran with its approved arguments"
        );
    }
    let left: Value =
        serde_json::from_slice(&std::fs::read(&state).expect("the state")).expect("JSON");
    assert_eq!(left, json!({"paused": []}), "every message was resumed");
    // Only the state, the ledger and their locks are left: every temporary file was renamed.
    let mut names: Vec<String> = std::fs::read_dir(folder.path())
        .expect("the folder lists")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "approvals.json",
            "approvals.json.ledger",
            "approvals.json.ledger.lock",
            "approvals.json.lock"
        ]
    );
}

/// One answer line of a running process.
fn read_answer(reader: &mut impl std::io::BufRead) -> Value {
    let mut line = String::new();
    reader.read_line(&mut line).expect("an answer line");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn a_process_holding_an_older_state_cannot_run_a_decided_approval_again() {
    let folder = tempfile::tempdir().expect("a folder");
    let state = folder.path().join("approvals.json");
    let state_arg = state.to_str().expect("a UTF-8 path");
    let args = ["--approval", "defer", "--state", state_arg];
    let message = common::message(&[common::call("1", "drawings_clear", json!({}))]);
    let first = common::answers(&args, &[message]);
    let id = first[0]["pending"][0]["approvalId"]
        .as_str()
        .expect("an approval id")
        .to_owned();
    let decisions = approve(std::slice::from_ref(&id));

    // An older process: it read the state while the approval was pending.
    let mut older = spawn(&args);
    let mut older_in = older.0.stdin.take().expect("stdin is piped");
    let mut older_out = BufReader::new(older.0.stdout.take().expect("stdout is piped"));
    let list = common::message(&[common::call("2", "drawings_list", json!({}))]);
    writeln!(older_in, "{list}").expect("written");
    let listed = read_answer(&mut older_out);
    assert_eq!(
        common::results(&listed)[0]["data"]["drawings"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );

    // Another process decides, runs the approval and exits.
    let ran = common::answers(&args, std::slice::from_ref(&decisions));
    assert_eq!(
        common::results(&ran[0])[0]["data"]["removed"],
        json!(["d1", "d2", "d3"])
    );

    // The older process, still holding the approval, is told it was decided: nothing runs.
    writeln!(older_in, "{decisions}").expect("written");
    let stale = read_answer(&mut older_out);
    let result = &common::results(&stale)[0];
    assert_eq!(result["error"]["code"], "TOOL_NOT_ALLOWED", "{result}");
    assert_eq!(
        result["error"]["message"],
        "The approval of the call to `drawings_clear` was refused: it was already decided, and a call runs at most once. The call was not run again."
    );
    writeln!(older_in, "{list}").expect("written");
    let after = read_answer(&mut older_out);
    assert_eq!(
        common::results(&after)[0]["data"]["drawings"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "the older process's chart was not cleared"
    );
    drop(older_in);
    let status = older.0.wait().expect("the older process exits");
    assert!(status.success());

    // Its save did not bring the decided approval back: a third process runs nothing.
    let third = common::answers(&args, &[decisions]);
    assert_eq!(
        third,
        [
            json!({"error": {"code": "APPROVAL_UNKNOWN", "message": format!("approval `{id}` was already decided")}})
        ]
    );
    let left: Value =
        serde_json::from_slice(&std::fs::read(&state).expect("the state")).expect("JSON");
    assert_eq!(left, json!({"paused": []}));
}

#[test]
fn a_damaged_ledger_fails_every_resume_closed() {
    let folder = tempfile::tempdir().expect("a folder");
    let state = folder.path().join("approvals.json");
    let state_arg = state.to_str().expect("a UTF-8 path");
    let args = ["--approval", "defer", "--state", state_arg];
    let message = common::message(&[
        common::call("1", "drawings_clear", json!({})),
        common::call("2", "drawings_list", json!({})),
    ]);
    let first = common::answers(&args, &[message]);
    let id = first[0]["pending"][0]["approvalId"]
        .as_str()
        .expect("an approval id")
        .to_owned();
    let ledger = folder.path().join("approvals.json.ledger");
    std::fs::write(&ledger, "[]").expect("written");
    let answers = common::answers(&args, &[approve(&[id])]);
    let results = common::results(&answers[0]);
    assert_eq!(results[0]["error"]["code"], "TOOL_FAILED");
    assert_eq!(results[0]["error"]["retryable"], true);
    assert_eq!(results[0]["stateChanged"], false);
    let message = results[0]["error"]["message"].as_str().expect("a message");
    assert!(
        message.contains(&format!(
            "the approval ledger `{}` is damaged",
            ledger.display()
        )),
        "{message}"
    );
    assert_eq!(results[1]["error"]["code"], "TOOL_NOT_ALLOWED", "behind it");
    assert_eq!(std::fs::read_to_string(&ledger).expect("kept"), "[]");
}

#[test]
fn a_store_that_is_not_redis_is_a_usage_error() {
    let output = common::run_binary(&["--store", "memcached://127.0.0.1:1"], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a Redis URL"), "{stderr}");
}

/// The Redis of the tests, or `None` (the test is skipped) when there is none outside CI.
fn redis_url() -> Option<String> {
    match std::env::var("TOOLWRIGHT_TEST_REDIS") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "TOOLWRIGHT_TEST_REDIS is not set, and CI is: the Redis tests must run in CI"
            );
            eprintln!("skipped: TOOLWRIGHT_TEST_REDIS is not set");
            None
        }
    }
}

#[test]
fn copies_of_a_state_on_two_machines_share_one_redis() {
    let Some(url) = redis_url() else { return };
    let folder = tempfile::tempdir().expect("a folder");
    let here = folder.path().join("here.json");
    let there = folder.path().join("there.json");
    let message = common::message(&[common::call("1", "drawings_clear", json!({}))]);
    let first = common::answers(
        &[
            "--approval",
            "defer",
            "--state",
            here.to_str().expect("UTF-8"),
        ],
        &[message],
    );
    let id = first[0]["pending"][0]["approvalId"]
        .as_str()
        .expect("an approval id")
        .to_owned();
    // The state travels to another machine: a copy, with a ledger file of its own.
    std::fs::copy(&here, &there).expect("copied");
    let decisions = approve(std::slice::from_ref(&id));
    let on = |state: &Path| {
        common::answers(
            &[
                "--approval",
                "defer",
                "--state",
                state.to_str().expect("UTF-8"),
                "--store",
                &url,
            ],
            std::slice::from_ref(&decisions),
        )
    };
    let ran = on(&there);
    assert_eq!(common::results(&ran[0])[0]["stateChanged"], true);
    let again = on(&here);
    assert_eq!(
        common::results(&again[0])[0]["error"]["message"],
        "The approval of the call to `drawings_clear` was refused: it was already decided, and a call runs at most once. The call was not run again."
    );
    assert!(
        !folder.path().join("here.json.ledger").exists(),
        "with --store, no ledger file is written"
    );
}
