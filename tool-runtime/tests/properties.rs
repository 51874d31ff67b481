//! Property tests over random messages (forged names, random arguments, random policies) with
//! an instrumented context:
//!
//! (a) a read-only run never executes a destructive tool;
//! (b) invalid input never reaches tool code;
//! (c) the calls of a message with a sequential tool never overlap;
//! (d) there is exactly one result per call, in call order.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolResult};

#[derive(Debug, Default)]
struct Counters {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    destructive_runs: AtomicUsize,
    invalid_reached: AtomicUsize,
    runs: AtomicUsize,
}

const SCHEMA: &str = r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":100}},"required":["n"],"additionalProperties":false}"#;

/// The schema, checked by hand: what tool code may assume.
fn is_valid_by_hand(args: &Value) -> bool {
    match args.as_object() {
        Some(map) => {
            // JSON Schema integers include `3.0`.
            map.len() == 1
                && map
                    .get("n")
                    .and_then(Value::as_f64)
                    .is_some_and(|n| n.fract() == 0.0 && (0.0..=100.0).contains(&n))
        }
        None => false,
    }
}

async fn body(counters: &Counters, args: &Value, safety: Safety) -> CallResult {
    counters.runs.fetch_add(1, Ordering::SeqCst);
    if !is_valid_by_hand(args) {
        counters.invalid_reached.fetch_add(1, Ordering::SeqCst);
    }
    if !safety.is_read_only() {
        counters.destructive_runs.fetch_add(1, Ordering::SeqCst);
    }
    let now = counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    counters.max_in_flight.fetch_max(now, Ordering::SeqCst);
    for _ in 0..3 {
        tokio::task::yield_now().await;
    }
    counters.in_flight.fetch_sub(1, Ordering::SeqCst);
    Ok(ToolOutput {
        data: args.into(),
        state_changed: !safety.is_read_only(),
    })
}

fn read<'a>(c: &'a Counters, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(body(c, args, Safety::ReadOnly))
}

fn write_shared<'a>(c: &'a Counters, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(body(c, args, Safety::Destructive))
}

fn write_exclusive<'a>(c: &'a mut Counters, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(body(c, args, Safety::Destructive))
}

const fn meta(name: &'static str, safety: Safety, mode: Mode) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(SCHEMA))
        .description("A property-test tool.")
        .source(name)
}

static READ_A: ToolMeta = meta("read_a", Safety::ReadOnly, Mode::Parallel);
static READ_B: ToolMeta = meta("read_b", Safety::ReadOnly, Mode::Parallel);
static ASK: ToolMeta = meta("ask", Safety::ReadOnly, Mode::Sequential);
static WRITE_PAR: ToolMeta = meta("write_par", Safety::Destructive, Mode::Parallel);
static WRITE_SEQ: ToolMeta = meta("write_seq", Safety::Destructive, Mode::Sequential);
static WRITE_SEQ_SHARED: ToolMeta = meta("write_seq_shared", Safety::Destructive, Mode::Sequential);

const ALL: &[&ToolMeta] = &[
    &READ_A,
    &READ_B,
    &ASK,
    &WRITE_PAR,
    &WRITE_SEQ,
    &WRITE_SEQ_SHARED,
];
const FORGED: &[&str] = &[
    "",
    "read",
    "READ_A",
    "write_seq ",
    "drop_all",
    "read_a\u{0}",
    "ask_user",
];

fn registry() -> Registry<Counters> {
    Registry::builder()
        .tool(ToolDef {
            meta: &READ_A,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &READ_B,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &ASK,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &WRITE_PAR,
            handler: Handler::Shared(write_shared),
        })
        .tool(ToolDef {
            meta: &WRITE_SEQ,
            handler: Handler::Exclusive(write_exclusive),
        })
        .tool(ToolDef {
            meta: &WRITE_SEQ_SHARED,
            handler: Handler::Shared(write_shared),
        })
        .declared(ALL)
        .build()
        .expect("valid tools")
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        "[a-z~/]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z~/]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0u64..=100).prop_map(|n| json!({"n": n})),
        1 => (101u64..1000).prop_map(|n| json!({"n": n})),
        1 => (0u64..=100).prop_map(|n| json!({"n": n, "extra": true})),
        1 => (0u64..=100).prop_map(|n| json!({"n": n as f64 + 0.5})),
        1 => (0u64..=100).prop_map(|n| json!({"n": n as f64})),
        2 => json_value(),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(ALL.iter().map(|m| m.name).collect::<Vec<_>>()).prop_map(str::to_owned),
        1 => prop::sample::select(FORGED.to_vec()).prop_map(str::to_owned),
        1 => "[a-z_]{0,12}",
    ]
}

fn calls() -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec((name(), arguments()), 0..8).prop_map(|calls| {
        calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall::new(format!("call_{i}"), name, arguments))
            .collect()
    })
}

fn policy() -> impl Strategy<Value = (bool, BTreeSet<String>)> {
    (
        any::<bool>(),
        prop::collection::btree_set(
            prop::sample::select(ALL.iter().map(|m| m.name.to_owned()).collect::<Vec<_>>()),
            0..3,
        ),
    )
}

fn meta_of(name: &str) -> Option<&'static ToolMeta> {
    ALL.iter().copied().find(|m| m.name == name)
}

/// The policy a case draws: read-only or not, and the tools switched off.
fn run_policy(read_only: bool, disabled: std::collections::BTreeSet<String>) -> RunPolicy {
    let policy = RunPolicy::full().disable_all(disabled);
    if read_only {
        policy.into_read_only()
    } else {
        policy
    }
}

/// What the result of a call must be, judged from the outside.
fn expected_code(policy: &RunPolicy, call: &ToolCall) -> Option<&'static str> {
    let Some(meta) = meta_of(&call.name) else {
        return Some("TOOL_NOT_FOUND");
    };
    if (policy.is_read_only() && !meta.safety.is_read_only()) || policy.is_disabled(meta.name) {
        return Some("TOOL_NOT_ALLOWED");
    }
    if !is_valid_by_hand(&call.arguments) {
        return Some("TOOL_INPUT_INVALID");
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn batches_keep_every_promise(calls in calls(), (read_only, disabled) in policy()) {
        let registry = registry();
        let policy = run_policy(read_only, disabled);
        let mut counters = Counters::default();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
        let results = runtime.block_on(registry.execute_batch(&policy, &mut counters, &calls));

        // (d) one result per call, in call order.
        prop_assert_eq!(results.len(), calls.len());
        for (call, result) in calls.iter().zip(&results) {
            let expected = expected_code(&policy, call);
            prop_assert_eq!(result.code(), expected, "call {:?}", call);
            match result {
                ToolResult::Success { data, state_changed } => {
                    prop_assert_eq!(data, &call.arguments, "the result belongs to its call");
                    let meta = meta_of(&call.name).expect("a success comes from a known tool");
                    prop_assert_eq!(*state_changed, !meta.safety.is_read_only());
                }
                ToolResult::Failure { state_changed, .. } => prop_assert!(!state_changed),
            }
        }
        let ran = results.iter().filter(|r| r.is_success()).count();
        prop_assert_eq!(counters.runs.load(Ordering::SeqCst), ran, "only admitted calls run");

        // (a) a read-only run never executes a destructive tool.
        if read_only {
            prop_assert_eq!(counters.destructive_runs.load(Ordering::SeqCst), 0);
        }
        // (b) invalid input never reaches tool code.
        prop_assert_eq!(counters.invalid_reached.load(Ordering::SeqCst), 0);
        // (c) a message with a sequential tool never overlaps.
        let sequential = calls.iter().any(|c| meta_of(&c.name).is_some_and(|m| m.mode.is_sequential()));
        prop_assert_eq!(registry.is_sequential(&calls), sequential);
        if sequential {
            prop_assert!(counters.max_in_flight.load(Ordering::SeqCst) <= 1);
        }
    }

    #[test]
    fn execute_admits_exactly_what_policy_and_schema_allow(
        name in name(),
        arguments in arguments(),
        (read_only, disabled) in policy(),
    ) {
        let registry = registry();
        let policy = run_policy(read_only, disabled);
        let mut counters = Counters::default();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
        let result = runtime.block_on(registry.execute(&policy, &mut counters, &name, &arguments));
        let call = ToolCall::new("c", name, arguments);
        prop_assert_eq!(result.code(), expected_code(&policy, &call));
        prop_assert_eq!(counters.runs.load(Ordering::SeqCst), usize::from(result.is_success()));
        prop_assert_eq!(counters.invalid_reached.load(Ordering::SeqCst), 0);
        if let Some(error) = result.error() {
            // Reports stay short whatever the input.
            prop_assert!(error.message.chars().count() <= 1200, "{}", error.message);
        }
    }
}

const NESTED_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "a": {"type": "array", "maxItems": 3, "items": {"type": "object", "properties": {"x": {"type": "number", "minimum": 0}}, "required": ["x"], "additionalProperties": false}},
    "s": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^[a-z]*$"},
    "e": {"enum": ["one", "two"]}
  },
  "required": ["a", "s"],
  "additionalProperties": false
}"#;

/// Objects with the schema's keys (and a few others) holding random values, or anything at all.
fn nested_instance() -> impl Strategy<Value = Value> {
    let item = prop_oneof![(-5i64..5).prop_map(|x| json!({"x": x})), json_value(),];
    let value = prop_oneof![
        prop::collection::vec(item, 0..6).prop_map(Value::Array),
        json_value(),
    ];
    prop_oneof![
        1 => json_value(),
        4 => prop::collection::btree_map(prop::sample::select(vec!["a", "s", "e", "z", "a/b~"]), value, 0..5)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
    ]
}

proptest! {
    #[test]
    fn reports_are_bounded_and_count_what_they_leave_out(instance in nested_instance()) {
        let schema: Value = serde_json::from_str(NESTED_SCHEMA).expect("json");
        let schema = toolwright_runtime::validate::InputSchema::compile(&schema).expect("compiles");
        match schema.check(&instance) {
            Ok(()) => prop_assert!(schema.is_valid(&instance)),
            Err(errors) => {
                prop_assert!(!schema.is_valid(&instance));
                let all = errors.errors();
                prop_assert!(!all.is_empty());
                let report = errors.report();
                let body = report.strip_prefix("The tool input is invalid: ").expect("the prefix");
                let parts: Vec<&str> = body.split("; ").collect();
                let listed = all.len().min(toolwright_runtime::validate::TOOL_INPUT_ERROR_LIMIT);
                for (part, error) in parts.iter().zip(all).take(listed) {
                    prop_assert_eq!(*part, error.to_string());
                    prop_assert!(part.starts_with('/'));
                }
                if all.len() > listed {
                    prop_assert_eq!(parts.len(), listed + 1);
                    let more = format!("… and {} more", all.len() - listed);
                    prop_assert_eq!(parts[listed], more.as_str());
                } else {
                    prop_assert_eq!(parts.len(), listed);
                }
            }
        }
    }
}

#[test]
fn parallel_messages_do_overlap_so_the_overlap_check_can_fail() {
    let registry = registry();
    let mut counters = Counters::default();
    let calls: Vec<ToolCall> = (0..3)
        .map(|i| ToolCall::new(format!("{i}"), "read_a", json!({"n": i})))
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let results =
        runtime.block_on(registry.execute_batch(&RunPolicy::full(), &mut counters, &calls));
    assert!(results.iter().all(ToolResult::is_success));
    assert_eq!(counters.max_in_flight.load(Ordering::SeqCst), 3);
}
