//! Hostile tool arguments: deep, huge, wide, and many calls at once. Every call gets a bounded
//! answer, no tool code runs on input that crosses a bound, and nothing overflows the stack.

mod registry_tools;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use registry_tools::meta;
use serde_json::{Map, Value, json};
use toolwright_runtime::approval::Decision;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, Mode, Safety, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::limits::Limits;
use toolwright_runtime::limits::{
    DEFAULT_MAX_ARGUMENT_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_ERROR_MESSAGE_BYTES,
    drop_iteratively,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError, ToolResult};

/// Counts how often tool code ran.
#[derive(Debug, Default)]
struct Counter {
    entered: AtomicUsize,
}

impl Counter {
    fn entered(&self) -> usize {
        self.entered.load(Ordering::SeqCst)
    }
}

/// Accepts anything: only the registry's own bounds stand between the input and the tool.
static ANYTHING: ToolMeta = meta("anything", Safety::ReadOnly, Mode::Parallel, "{}", &[]);

/// A recursive schema: a tree of nodes, each with children.
static TREE: ToolMeta = meta(
    "tree",
    Safety::ReadOnly,
    Mode::Parallel,
    r##"{"$ref": "#/$defs/node", "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}"##,
    &[],
);

static TEXT: ToolMeta = meta(
    "text",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type": "object", "properties": {"text": {"type": "string", "maxLength": 100}}, "additionalProperties": false}"#,
    &[],
);

/// A pattern that backtracks exponentially on `aaaa…c` in a backtracking engine.
static PATTERN: ToolMeta = meta(
    "pattern",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type": "string", "pattern": "^(a|aa)+(?=b)\\1$"}"#,
    &[],
);

static WRITE: ToolMeta = meta(
    "write",
    Safety::Destructive,
    Mode::Sequential,
    "{}",
    &[ErrorMeta::new(
        "TOO_LOUD",
        "The write was refused.",
        false,
        "Write something shorter.",
    )],
);

fn anything<'a>(counter: &'a Counter, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        counter.entered.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput {
            data: json!({"kind": kind(args)}).into(),
            state_changed: false,
        })
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Fails with a declared error whose detail is as long as the argument asks.
fn write<'a>(counter: &'a mut Counter, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        counter.entered.fetch_add(1, Ordering::SeqCst);
        let repeat = args.get("detail").and_then(Value::as_u64).unwrap_or(0);
        if repeat == 0 {
            return Ok(ToolOutput {
                data: json!("written").into(),
                state_changed: true,
            });
        }
        let detail = "é".repeat(usize::try_from(repeat).unwrap_or(usize::MAX));
        Err(ToolError::Declared {
            code: "TOO_LOUD",
            detail: Some(detail),
        })
    })
}

fn registry(limits: Limits) -> Registry<Counter> {
    Registry::builder()
        .tool(ToolDef {
            meta: &ANYTHING,
            handler: Handler::Shared(anything),
        })
        .tool(ToolDef {
            meta: &TREE,
            handler: Handler::Shared(anything),
        })
        .tool(ToolDef {
            meta: &TEXT,
            handler: Handler::Shared(anything),
        })
        .tool(ToolDef {
            meta: &PATTERN,
            handler: Handler::Shared(anything),
        })
        .tool(ToolDef {
            meta: &WRITE,
            handler: Handler::Exclusive(write),
        })
        .limits(limits)
        .build()
        .expect("the test tools are valid")
}

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(future)
}

fn execute(
    registry: &Registry<Counter>,
    counter: &mut Counter,
    name: &str,
    args: &Value,
) -> ToolResult {
    run(registry.execute(&RunPolicy::full(), counter, name, args))
}

fn message(result: &ToolResult) -> &str {
    &result.error().expect("a failure").message
}

/// `[[[…0…]]]`, `levels` deep, built without recursion.
fn nested_arrays(levels: usize) -> Value {
    let mut value = json!(0);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// `{"a":{"a":…0…}}`, `levels` deep, built without recursion.
fn nested_objects(levels: usize) -> Value {
    let mut value = json!(0);
    for _ in 0..levels {
        let mut map = Map::new();
        map.insert("a".to_owned(), value);
        value = Value::Object(map);
    }
    value
}

const DEPTH_REPORT: &str = "The tool input is invalid: /: Expected nesting of at most 64 levels";

#[test]
fn a_200_000_deep_array_is_refused_before_any_recursive_walk() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    for deep in [nested_arrays(200_000), nested_objects(200_000)] {
        for tool in ["anything", "tree", "text"] {
            let result = execute(&registry, &mut counter, tool, &deep);
            assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"), "{tool}");
            assert_eq!(message(&result), DEPTH_REPORT, "{tool}");
            assert!(!result.state_changed());
        }
        // Dropping the value normally recurses once per level, which can overflow a test
        // thread's stack: it is taken apart without recursion.
        drop_iteratively(deep);
    }
    assert_eq!(counter.entered(), 0, "no tool code ran");
}

#[test]
fn the_approver_never_sees_arguments_past_the_bounds() {
    let registry = registry(Limits::default());
    let asked = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&asked);
    let policy = RunPolicy::full().with_approval(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        Decision::Approve
    });
    let mut counter = Counter::default();
    let deep = nested_arrays(100_000);
    let result = run(registry.execute(&policy, &mut counter, "write", &deep));
    drop_iteratively(deep);
    assert_eq!(message(&result), DEPTH_REPORT);
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    // A read-only run still answers `TOOL_NOT_ALLOWED` first: retrying cannot help.
    let deep = nested_arrays(100_000);
    let result = run(registry.execute(&RunPolicy::read_only(), &mut counter, "write", &deep));
    drop_iteratively(deep);
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(counter.entered(), 0);
}

#[test]
fn the_depth_bound_is_exact_and_configurable() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let at_limit = nested_arrays(DEFAULT_MAX_DEPTH);
    let result = execute(&registry, &mut counter, "tree", &at_limit);
    assert!(
        message(&result).contains("/0/0"),
        "64 levels pass the bound and reach validation: {}",
        message(&result)
    );
    let result = execute(&registry, &mut counter, "anything", &at_limit);
    assert!(result.is_success(), "{result:?}");
    let over = nested_arrays(DEFAULT_MAX_DEPTH + 1);
    assert_eq!(
        message(&execute(&registry, &mut counter, "anything", &over)),
        DEPTH_REPORT
    );

    let shallow = registry_with(|limits| limits.max_depth = 2);
    assert!(execute(&shallow, &mut counter, "anything", &json!({"a": [1]})).is_success());
    let result = execute(&shallow, &mut counter, "anything", &json!({"a": [[1]]}));
    assert_eq!(
        message(&result),
        "The tool input is invalid: /: Expected nesting of at most 2 levels"
    );
    assert_eq!(shallow.limits().max_depth, 2);
}

fn registry_with(change: impl FnOnce(&mut Limits)) -> Registry<Counter> {
    let mut limits = Limits::default();
    change(&mut limits);
    registry(limits)
}

#[test]
fn a_10_mb_string_is_refused_with_a_bounded_answer() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let huge = json!({"text": "x".repeat(10 * 1024 * 1024)});
    let result = execute(&registry, &mut counter, "text", &huge);
    assert_eq!(
        message(&result),
        format!(
            "The tool input is invalid: /: Expected arguments of at most {DEFAULT_MAX_ARGUMENT_BYTES} bytes"
        )
    );
    assert_eq!(counter.entered(), 0);

    // With the bound raised, the string is validated and the answer quotes none of it.
    let roomy = registry_with(|limits| limits.max_argument_bytes = 64 * 1024 * 1024);
    let result = execute(&roomy, &mut counter, "text", &huge);
    assert_eq!(
        message(&result),
        "The tool input is invalid: /text: Expected string length less or equal to 100"
    );
    let result = execute(&roomy, &mut counter, "tree", &huge);
    assert_eq!(
        message(&result),
        "The tool input is invalid: /: Expected array"
    );
    assert_eq!(counter.entered(), 0);
}

#[test]
fn a_20_000_key_object_gets_five_errors_and_a_count() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let wide: Map<String, Value> = (0..20_000)
        .map(|i| (format!("k{i:05}"), json!(i)))
        .collect();
    let result = execute(&registry, &mut counter, "text", &Value::Object(wide));
    assert_eq!(
        message(&result),
        "The tool input is invalid: /k00000: Unexpected property; /k00001: Unexpected property; \
         /k00002: Unexpected property; /k00003: Unexpected property; /k00004: Unexpected property; \
         … and 19995 more"
    );
    assert_eq!(counter.entered(), 0);
}

/// Keys that read as array indices sort as numbers, the others as text: mixed in one object,
/// they still sort (the standard sort may panic on an order that is not total).
#[test]
fn keys_that_read_as_indices_among_other_keys_are_sorted() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let mut seed: u64 = 7;
    let mut reports = Vec::new();
    for round in 0..40 {
        let mut object = Map::new();
        for _ in 0..(30 + 10 * round) {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let n = (seed >> 33) % 1000;
            let key = match (seed >> 20) % 3 {
                0 => format!("{n}"),
                1 => format!("{n}~"),
                _ => format!("{}a", n % 50),
            };
            object.insert(key, json!(n));
        }
        let keys = object.len();
        let result = execute(&registry, &mut counter, "text", &Value::Object(object));
        let text = message(&result).to_owned();
        assert!(
            text.ends_with(&format!("… and {} more", keys - 5)),
            "{keys} keys: {text}"
        );
        reports.push(text);
    }
    assert_eq!(counter.entered(), 0);
    // The numbers come first, smallest first.
    for text in reports {
        let first: Vec<u64> = text
            .trim_start_matches("The tool input is invalid: ")
            .split("; ")
            .take(5)
            .map(|error| {
                let pointer = error.split(':').next().unwrap_or_default();
                pointer[1..].parse().unwrap_or(u64::MAX)
            })
            .collect();
        assert!(first.is_sorted() && first[4] < 1000, "{text}");
    }
}

#[test]
fn long_and_odd_keys_are_quoted_by_prefix_only() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let keys = [
        "é".repeat(5_000),
        "\u{202e}\u{0}/~".repeat(2_000),
        "🦀".repeat(3_000),
    ];
    let object: Map<String, Value> = keys.iter().map(|k| (k.clone(), json!(1))).collect();
    let result = execute(&registry, &mut counter, "text", &Value::Object(object));
    let text = message(&result);
    assert!(text.len() < 3 * 1024, "{} bytes", text.len());
    assert_eq!(text.matches("Unexpected property").count(), 3, "{text}");
    assert!(
        text.contains("~1~0"),
        "keys are escaped as JSON Pointers: {text}"
    );
}

#[test]
fn an_unknown_name_of_a_megabyte_is_quoted_by_prefix_only() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let name = "anything".repeat(128 * 1024);
    let result = execute(&registry, &mut counter, &name, &json!({}));
    assert_eq!(result.code(), Some("TOOL_NOT_FOUND"));
    assert!(message(&result).len() < 200, "{}", message(&result));
}

#[test]
fn a_tool_s_long_error_detail_is_cut_to_the_message_bound() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    let result = execute(
        &registry,
        &mut counter,
        "write",
        &json!({"detail": 1_000_000}),
    );
    assert_eq!(result.code(), Some("TOO_LOUD"));
    let text = message(&result);
    assert!(
        text.len() <= DEFAULT_MAX_ERROR_MESSAGE_BYTES,
        "{} bytes",
        text.len()
    );
    assert!(text.starts_with("The write was refused. éé"));
    assert!(text.ends_with('…'));

    let tight = registry_with(|limits| limits.max_error_message_bytes = 100);
    let result = execute(&tight, &mut counter, "write", &json!({"detail": 1_000}));
    assert!(message(&result).len() <= 100);
    let result = execute(&tight, &mut counter, "write", &json!({"detail": 2}));
    assert_eq!(
        message(&result),
        "The write was refused. éé",
        "short messages are kept whole"
    );
}

fn calls(count: usize, name: &str) -> Vec<ToolCall> {
    (0..count)
        .map(|i| ToolCall::new(format!("c{i}"), name, json!({"i": i})))
        .collect()
}

#[test]
fn a_2_000_call_message_returns_2_000_results_in_order() {
    let registry = registry(Limits::default());
    for name in ["anything", "write"] {
        let mut counter = Counter::default();
        let mut message = calls(2_000, name);
        // Invalid and unknown calls in the middle answer in place.
        message[500] = ToolCall::new("bad", "nope", json!({}));
        message[1_500] = ToolCall::new("deep", name, nested_arrays(1_000));
        let results = run(registry.execute_batch(&RunPolicy::full(), &mut counter, &message));
        assert_eq!(results.len(), 2_000, "{name}");
        for (i, result) in results.iter().enumerate() {
            match i {
                500 => assert_eq!(result.code(), Some("TOOL_NOT_FOUND")),
                1_500 => assert_eq!(result.code(), Some("TOOL_INPUT_INVALID")),
                _ => assert!(result.is_success(), "{name} call {i}: {result:?}"),
            }
        }
        assert_eq!(counter.entered(), 1_998, "{name}");
    }
}

#[test]
fn calls_past_the_batch_bound_are_answered_without_running() {
    let registry = registry_with(|limits| limits.max_batch_calls = 10);
    for name in ["anything", "write"] {
        let mut counter = Counter::default();
        let results =
            run(registry.execute_batch(&RunPolicy::full(), &mut counter, &calls(25, name)));
        assert_eq!(results.len(), 25);
        assert!(results[..10].iter().all(ToolResult::is_success), "{name}");
        for result in &results[10..] {
            assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
            assert_eq!(
                message(result),
                "The message has 25 tool calls and at most 10 may run; this call was not run."
            );
            assert!(!result.state_changed());
        }
        assert_eq!(counter.entered(), 10, "{name}");
    }
}

#[test]
fn a_pattern_that_backtracks_gets_an_answer() {
    let registry = registry(Limits::default());
    let mut counter = Counter::default();
    for length in [10, 40, 10_000] {
        let text = format!("{}c", "a".repeat(length));
        let result = execute(&registry, &mut counter, "pattern", &json!(text));
        let text = message(&result);
        assert!(
            text == "The tool input is invalid: /: Expected string to match pattern \"^(a|aa)+(?=b)\\\\1$\""
                || text
                    == "The tool input is invalid: /: Expected string that the pattern can be checked against",
            "{text}"
        );
    }
    assert_eq!(counter.entered(), 0);
}
