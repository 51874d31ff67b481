//! The calls of one message (SPEC section 7): parallel by default, sequential when any call
//! targets a sequential tool; one result per call, in call order.

mod registry_tools;

use std::sync::atomic::{AtomicUsize, Ordering};

use registry_tools::*;
use serde_json::{Value, json};
use toolwright_runtime::approval::Decision;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolResult};

/// A context that measures how many tool bodies are in flight at once.
#[derive(Debug, Default)]
struct Probe {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    order: std::sync::Mutex<Vec<String>>,
    writes: usize,
}

impl Probe {
    fn max(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    fn order(&self) -> Vec<String> {
        self.order.lock().expect("order lock").clone()
    }
}

/// Enters, yields a few times so that other calls of the message could interleave, leaves.
async fn measured(probe: &Probe, id: &str) {
    let now = probe.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    probe.max_in_flight.fetch_max(now, Ordering::SeqCst);
    probe.order.lock().expect("order lock").push(id.to_owned());
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
    probe.in_flight.fetch_sub(1, Ordering::SeqCst);
}

const ID_SCHEMA: &str = r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#;

const fn probe_meta(name: &'static str, safety: Safety, mode: Mode) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(ID_SCHEMA))
        .description("A probe.")
        .source(name)
}

static READ: ToolMeta = probe_meta("read", Safety::ReadOnly, Mode::Parallel);
static WRITE: ToolMeta = probe_meta("write", Safety::Destructive, Mode::Sequential);
static SEQUENTIAL_READ: ToolMeta = probe_meta("ask_user", Safety::ReadOnly, Mode::Sequential);

fn id_of(args: &Value) -> String {
    args["id"].as_str().unwrap_or_default().to_owned()
}

fn read<'a>(probe: &'a Probe, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let id = id_of(args);
        measured(probe, &id).await;
        Ok(ToolOutput {
            data: json!(id).into(),
            state_changed: false,
        })
    })
}

fn write<'a>(probe: &'a mut Probe, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let id = id_of(args);
        measured(probe, &id).await;
        probe.writes += 1;
        Ok(ToolOutput {
            data: json!(id).into(),
            state_changed: true,
        })
    })
}

fn probe_registry() -> Registry<Probe> {
    Registry::builder()
        .tool(ToolDef {
            meta: &READ,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &WRITE,
            handler: Handler::Exclusive(write),
        })
        .tool(ToolDef {
            meta: &SEQUENTIAL_READ,
            handler: Handler::Shared(read),
        })
        .build()
        .expect("valid probes")
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall::new(id, name, json!({"id": id}))
}

fn run(
    registry: &Registry<Probe>,
    policy: &RunPolicy,
    probe: &mut Probe,
    calls: &[ToolCall],
) -> Vec<ToolResult> {
    runtime().block_on(registry.execute_batch(policy, probe, calls))
}

fn data(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|r| r.data().map_or(Value::Null, |d| d.value().expect("JSON")))
        .collect()
}

#[test]
fn parallel_calls_run_side_by_side_and_keep_their_order() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    let calls: Vec<ToolCall> = (0..4).map(|i| call(&format!("r{i}"), "read")).collect();
    assert!(!registry.is_sequential(&calls));
    let results = run(&registry, &RunPolicy::full(), &mut probe, &calls);
    assert_eq!(
        data(&results),
        [json!("r0"), json!("r1"), json!("r2"), json!("r3")]
    );
    assert_eq!(probe.max(), 4, "the calls of a parallel message overlap");
}

#[test]
fn one_sequential_call_makes_the_whole_message_sequential() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    let calls = [
        call("r0", "read"),
        call("w1", "write"),
        call("r2", "read"),
        call("w3", "write"),
    ];
    assert!(registry.is_sequential(&calls));
    let results = run(&registry, &RunPolicy::full(), &mut probe, &calls);
    assert_eq!(
        data(&results),
        [json!("r0"), json!("w1"), json!("r2"), json!("w3")]
    );
    assert_eq!(probe.max(), 1, "no two calls overlap");
    assert_eq!(probe.order(), ["r0", "w1", "r2", "w3"]);
    assert_eq!(probe.writes, 2);
    let changed: Vec<bool> = results.iter().map(ToolResult::state_changed).collect();
    assert_eq!(changed, [false, true, false, true]);
}

#[test]
fn a_sequential_read_only_tool_also_serializes_its_message() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    let calls = [
        call("r0", "read"),
        call("a1", "ask_user"),
        call("r2", "read"),
    ];
    let results = run(&registry, &RunPolicy::read_only(), &mut probe, &calls);
    assert!(results.iter().all(ToolResult::is_success));
    assert_eq!(probe.max(), 1);
    assert_eq!(probe.order(), ["r0", "a1", "r2"]);
}

#[test]
fn refused_unknown_and_invalid_calls_answer_in_place_without_running() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    let calls = [
        call("r0", "read"),
        call("x1", "reed"),
        ToolCall::new("r2", "read", json!({"id": 7})),
        call("w3", "write"),
        call("r4", "read"),
    ];
    // A read-only run: the write is refused, yet its presence still serializes the message.
    let results = run(&registry, &RunPolicy::read_only(), &mut probe, &calls);
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(
        codes,
        [
            None,
            Some("TOOL_NOT_FOUND"),
            Some("TOOL_INPUT_INVALID"),
            Some("TOOL_NOT_ALLOWED"),
            None
        ]
    );
    assert_eq!(probe.order(), ["r0", "r4"]);
    assert_eq!(probe.writes, 0);
    assert!(results.iter().all(|r| !r.state_changed()));

    // A full run with only parallel tools and an unknown name stays parallel.
    let mut probe = Probe::default();
    let calls = [call("r0", "read"), call("x1", "nope"), call("r2", "read")];
    let results = run(&registry, &RunPolicy::full(), &mut probe, &calls);
    assert_eq!(results.len(), 3);
    assert_eq!(results[1].code(), Some("TOOL_NOT_FOUND"));
    assert_eq!(probe.max(), 2);
}

#[test]
fn an_empty_message_has_no_results() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    assert!(run(&registry, &RunPolicy::full(), &mut probe, &[]).is_empty());
}

#[test]
fn a_panic_or_a_timeout_stays_in_its_own_call() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let parallel = [
        ToolCall::new("1", "panes_list", json!({})),
        ToolCall::new("2", "read_panic", json!({"when": "call"})),
        ToolCall::new("3", "read_hang", json!({})),
        ToolCall::new("4", "read_panic", json!({"when": "poll"})),
        ToolCall::new("5", "web_search", json!({"query": "rust"})),
    ];
    let results =
        runtime().block_on(registry.execute_batch(&RunPolicy::full(), &mut chart, &parallel));
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(
        codes,
        [
            None,
            Some("TOOL_FAILED"),
            Some("TOOL_TIMEOUT"),
            Some("TOOL_FAILED"),
            None
        ]
    );
    assert_eq!(
        results[4].data().map(|d| d.value().expect("JSON")),
        Some(json!({"results": ["rust"]}))
    );

    let sequential = [
        ToolCall::new("1", "write_panic", json!({"when": "poll"})),
        ToolCall::new(
            "2",
            "drawing_create",
            json!({"pane_id": "main", "kind": "trend_line", "anchors": []}),
        ),
        ToolCall::new("3", "write_hang", json!({})),
        ToolCall::new("4", "write_panic", json!({"when": "call"})),
        ToolCall::new("5", "panes_list", json!({})),
    ];
    let results =
        runtime().block_on(registry.execute_batch(&RunPolicy::full(), &mut chart, &sequential));
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(
        codes,
        [
            Some("TOOL_FAILED"),
            None,
            Some("TOOL_TIMEOUT"),
            Some("TOOL_FAILED"),
            None
        ]
    );
    let changed: Vec<bool> = results.iter().map(ToolResult::state_changed).collect();
    assert_eq!(
        changed,
        [true, true, true, true, false],
        "writes that panicked or timed out may have changed state"
    );
}

#[test]
fn the_approver_is_asked_in_call_order() {
    let registry = probe_registry();
    let mut probe = Probe::default();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = std::sync::Arc::clone(&asked);
    let policy = RunPolicy::full().with_approval(move |request| {
        let id = id_of(request.arguments);
        record.lock().expect("lock").push(id.clone());
        if id == "w2" {
            Decision::deny("not this one")
        } else {
            Decision::Approve
        }
    });
    let calls = [
        call("w0", "write"),
        call("r1", "read"),
        call("w2", "write"),
        call("w3", "write"),
    ];
    let results = run(&registry, &policy, &mut probe, &calls);
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(codes, [None, None, Some("TOOL_NOT_ALLOWED"), None]);
    assert_eq!(*asked.lock().expect("lock"), ["w0", "w2", "w3"]);
    assert_eq!(probe.order(), ["w0", "r1", "w3"]);
}

#[test]
fn tool_calls_deserialize_from_provider_json() {
    let call: ToolCall =
        serde_json::from_str(r#"{"id":"c1","name":"read"}"#).expect("no arguments");
    assert_eq!(call.arguments, json!({}));
    let call: ToolCall =
        serde_json::from_str(r#"{"id":"c1","name":"read","arguments":{"id":"x"}}"#)
            .expect("with arguments");
    assert_eq!(call, ToolCall::new("c1", "read", json!({"id": "x"})));
}
