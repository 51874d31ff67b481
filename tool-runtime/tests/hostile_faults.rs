//! Faults inside tools: a panic, a hang, a declared error in the middle of a sequential message.
//! Every call is answered, in order, and what the calls before and after did is kept.

use std::time::Duration;

use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta,
    ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError, ToolResult};

/// What the tools did, in order.
#[derive(Debug, Default)]
struct Journal {
    entries: Vec<String>,
}

const ID_SCHEMA: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false}"#;

const fn meta(
    name: &'static str,
    safety: Safety,
    mode: Mode,
    errors: &'static [ErrorMeta],
) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(ID_SCHEMA))
        .description("A test tool.")
        .errors(errors)
        .source(name)
}

static APPEND: ToolMeta = meta("append", Safety::Destructive, Mode::Sequential, &[]);
static REFUSE: ToolMeta = meta(
    "refuse",
    Safety::Destructive,
    Mode::Sequential,
    &[ErrorMeta::new(
        "FULL",
        "The journal is full.",
        false,
        "Stop writing.",
    )],
);
static EXPLODE: ToolMeta = meta("explode", Safety::Destructive, Mode::Sequential, &[]);
static HANG: ToolMeta = meta("hang", Safety::Destructive, Mode::Sequential, &[]);
static READ: ToolMeta = meta("read", Safety::ReadOnly, Mode::Parallel, &[]);
static READ_PANIC: ToolMeta = meta("read_panic", Safety::ReadOnly, Mode::Parallel, &[]);
static READ_HANG: ToolMeta = meta("read_hang", Safety::ReadOnly, Mode::Parallel, &[]);

fn id(args: &Value) -> String {
    args["id"].as_str().unwrap_or_default().to_owned()
}

fn append<'a>(journal: &'a mut Journal, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        journal.entries.push(id(args));
        Ok(ToolOutput {
            data: json!(journal.entries.len()).into(),
            state_changed: true,
        })
    })
}

fn refuse<'a>(_: &'a mut Journal, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Err(ToolError::Declared {
            code: "FULL",
            detail: None,
        })
    })
}

/// Writes half of its work, then panics (with a payload that is not a string).
fn explode<'a>(journal: &'a mut Journal, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        journal.entries.push(format!("{} (half)", id(args)));
        std::panic::panic_any(42_u8)
    })
}

/// Writes half of its work, then never finishes.
fn hang<'a>(journal: &'a mut Journal, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        journal.entries.push(format!("{} (half)", id(args)));
        std::future::pending().await
    })
}

fn read<'a>(journal: &'a Journal, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!({"id": id(args), "entries": journal.entries.len()}).into(),
            state_changed: false,
        })
    })
}

/// Panics before it returns its future.
fn read_panic<'a>(_: &'a Journal, args: &'a Value) -> BoxFuture<'a, CallResult> {
    panic!("read_panic {}", id(args))
}

fn read_hang<'a>(_: &'a Journal, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(std::future::pending())
}

fn registry() -> Registry<Journal> {
    let limit = Duration::from_millis(50);
    Registry::builder()
        .tool(ToolDef {
            meta: &APPEND,
            handler: Handler::Exclusive(append),
        })
        .tool(ToolDef {
            meta: &REFUSE,
            handler: Handler::Exclusive(refuse),
        })
        .tool(ToolDef {
            meta: &EXPLODE,
            handler: Handler::Exclusive(explode),
        })
        .tool(ToolDef {
            meta: &HANG,
            handler: Handler::Exclusive(hang),
        })
        .tool(ToolDef {
            meta: &READ,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &READ_PANIC,
            handler: Handler::Shared(read_panic),
        })
        .tool(ToolDef {
            meta: &READ_HANG,
            handler: Handler::Shared(read_hang),
        })
        .timeout("hang", limit)
        .timeout("read_hang", limit)
        .build()
        .expect("the test tools are valid")
}

fn run(registry: &Registry<Journal>, journal: &mut Journal, calls: &[ToolCall]) -> Vec<ToolResult> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(registry.execute_batch(&RunPolicy::full(), journal, calls))
}

fn call(n: usize, name: &str) -> ToolCall {
    ToolCall::new(
        format!("call{n}"),
        name,
        json!({"id": format!("{name}{n}")}),
    )
}

/// `(code or "ok", stateChanged)` per result.
fn outcomes(results: &[ToolResult]) -> Vec<(String, bool)> {
    results
        .iter()
        .map(|r| (r.code().unwrap_or("ok").to_owned(), r.state_changed()))
        .collect()
}

fn outcome(code: &str, changed: bool) -> (String, bool) {
    (code.to_owned(), changed)
}

#[test]
fn faults_in_a_sequential_message_stay_in_their_call() {
    let registry = registry();
    let mut journal = Journal::default();
    let calls = [
        call(0, "append"),
        call(1, "refuse"),
        call(2, "append"),
        call(3, "explode"),
        call(4, "append"),
        call(5, "hang"),
        call(6, "append"),
        call(7, "read"),
    ];
    let results = run(&registry, &mut journal, &calls);
    assert_eq!(
        outcomes(&results),
        [
            outcome("ok", true),
            outcome("FULL", false),
            outcome("ok", true),
            outcome("TOOL_FAILED", true),
            outcome("ok", true),
            outcome("TOOL_TIMEOUT", true),
            outcome("ok", true),
            outcome("ok", false),
        ]
    );
    // Nothing is lost: every write before and after each fault is kept, in call order, and the
    // half-done work of the tools that failed is reported as a possible change.
    assert_eq!(
        journal.entries,
        [
            "append0",
            "append2",
            "explode3 (half)",
            "append4",
            "hang5 (half)",
            "append6"
        ]
    );
    assert_eq!(
        results[7].data().map(|d| d.value().expect("JSON")),
        Some(json!({"id": "read7", "entries": 6}))
    );
}

#[test]
fn faults_in_a_parallel_message_stay_in_their_call() {
    let registry = registry();
    let mut journal = Journal::default();
    let calls: Vec<ToolCall> = (0..30)
        .map(|n| match n % 3 {
            0 => call(n, "read"),
            1 => call(n, "read_panic"),
            _ => call(n, "read_hang"),
        })
        .collect();
    let results = run(&registry, &mut journal, &calls);
    assert_eq!(results.len(), 30);
    for (n, result) in results.iter().enumerate() {
        match n % 3 {
            0 => assert_eq!(
                result.data().map(|d| d.value().expect("JSON")),
                Some(json!({"id": format!("read{n}"), "entries": 0}))
            ),
            1 => assert_eq!(
                outcomes(std::slice::from_ref(result)),
                [outcome("TOOL_FAILED", false)]
            ),
            _ => assert_eq!(
                outcomes(std::slice::from_ref(result)),
                [outcome("TOOL_TIMEOUT", false)]
            ),
        }
    }
}

#[test]
fn a_registry_keeps_answering_after_faults() {
    let registry = registry();
    let mut journal = Journal::default();
    for round in 0..20 {
        let calls = [call(round, "explode"), call(round, "append")];
        let results = run(&registry, &mut journal, &calls);
        assert_eq!(
            outcomes(&results),
            [outcome("TOOL_FAILED", true), outcome("ok", true)]
        );
    }
    assert_eq!(journal.entries.len(), 40);
}
