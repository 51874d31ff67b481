//! Whatever the model sends, every call gets an envelope: no panic, no undeclared failure, and
//! a refused or invalid call changes nothing.

use chart_tools::chart::Chart;
use chart_tools::run::{answer_line, answer_user};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwright_runtime::handler::ToolMeta;
use toolwright_runtime::{Registry, RunPolicy};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-5i64..2_000_000_000).prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-z_]{0,12}".prop_map(Value::from),
        "[A-Za-z0-9.:/_ #-]{0,24}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop_oneof![
            Just("main"),
            Just("lower"),
            Just("d1"),
            Just("AAPL"),
            Just("1d"),
            Just("theme"),
            Just("trend_line"),
            Just("#26a69a"),
            Just("sma"),
            Just("macd"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn tools() -> Vec<&'static ToolMeta> {
    chart_tools::declared_tools()
}

/// An example of a tool with one property replaced, removed or added.
fn mutated_call() -> impl Strategy<Value = (&'static str, Value)> {
    let tools = tools();
    (
        0..tools.len(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        json_value(),
        0..3u8,
    )
        .prop_map(move |(tool, example, key, value, how)| {
            let meta = tools[tool];
            let example = &meta.examples[example.index(meta.examples.len())];
            let mut arguments: Map<String, Value> =
                serde_json::from_str(example.input).expect("examples are JSON");
            let schema = meta.input_schema.to_value().expect("a schema");
            let keys: Vec<String> = schema["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            match (how, keys.is_empty()) {
                (0, false) => {
                    arguments.insert(keys[key.index(keys.len())].clone(), value);
                }
                (1, false) => {
                    arguments.remove(&keys[key.index(keys.len())]);
                }
                _ => {
                    arguments.insert("extra".to_owned(), value);
                }
            }
            (meta.name, Value::Object(arguments))
        })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
}

fn registry() -> Registry<Chart> {
    chart_tools::registry().expect("the registry builds")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_call_gets_an_envelope_and_never_fails_undeclared((name, arguments) in mutated_call()) {
        let registry = registry();
        let mut chart = Chart::demo().with_ask_user(answer_user(None));
        let result = runtime().block_on(registry.execute(&RunPolicy::full(), &mut chart, name, &arguments));
        let meta = registry.get(name).expect("registered").meta;
        if let Some(error) = result.error() {
            let declared = meta.error(&error.code).is_some();
            prop_assert!(
                declared || error.code == "TOOL_INPUT_INVALID",
                "`{name}` {arguments}: {error:?}"
            );
            prop_assert!(!result.state_changed());
            prop_assert!(error.message.chars().count() < 1200, "{}", error.message);
        }
        if meta.safety.is_read_only() {
            prop_assert!(!result.state_changed());
        }
    }

    #[test]
    fn a_read_only_run_never_runs_a_write((name, arguments) in mutated_call()) {
        let registry = registry();
        let mut chart = Chart::demo();
        let policy = RunPolicy::read_only();
        let runtime = runtime();
        let before = runtime.block_on(registry.execute(&policy, &mut chart, "panes_list", &json!({})));
        let result = runtime.block_on(registry.execute(&policy, &mut chart, name, &arguments));
        let after = runtime.block_on(registry.execute(&policy, &mut chart, "panes_list", &json!({})));
        if !registry.get(name).expect("registered").meta.safety.is_read_only() {
            prop_assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
        }
        prop_assert!(!result.state_changed());
        prop_assert_eq!(before, after);
    }

    #[test]
    fn every_line_gets_one_json_answer(line in prop_oneof![
        any::<String>(),
        json_value().prop_map(|v| v.to_string()),
        prop::collection::vec(json_value(), 0..4).prop_map(|v| Value::Array(v).to_string()),
        prop::collection::vec(
            (json_value(), "[a-z_]{0,16}", json_value()).prop_map(|(id, name, arguments)| {
                json!({"id": id, "name": name, "arguments": arguments})
            }),
            0..4,
        )
        .prop_map(|v| Value::Array(v).to_string()),
    ]) {
        let registry = registry();
        let mut chart = Chart::demo();
        let answer = runtime().block_on(answer_line(&registry, &RunPolicy::full(), &mut chart, &line));
        match answer {
            None => prop_assert!(line.trim().is_empty()),
            Some(answer) => {
                prop_assert!(!answer.contains('\n'));
                let value: Value = serde_json::from_str(&answer).expect("the answer is JSON");
                match value {
                    Value::Array(answers) => {
                        let calls: Value = serde_json::from_str(&line).expect("a message is JSON");
                        prop_assert_eq!(answers.len(), calls.as_array().map_or(0, Vec::len));
                    }
                    other => prop_assert_eq!(&other["error"]["code"], "MESSAGE_INVALID"),
                }
            }
        }
    }
}
