//! Every `[[examples]]` of every manifest succeeds on a fresh demo chart, through the registry
//! and through `chart-tools run`: the docs never show a call that fails.

mod common;

use chart_tools::chart::Chart;
use chart_tools::run::answer_user;
use serde_json::{Value, json};
use toolwright_runtime::RunPolicy;

struct Example {
    tool: &'static str,
    description: &'static str,
    input: Value,
    read_only: bool,
}

fn examples() -> Vec<Example> {
    let examples: Vec<Example> = chart_tools::declared_tools()
        .into_iter()
        .flat_map(|meta| {
            meta.examples.iter().map(move |example| Example {
                tool: meta.name,
                description: example.description,
                input: serde_json::from_str(example.input).expect("examples are JSON"),
                read_only: meta.safety.is_read_only(),
            })
        })
        .collect();
    for meta in chart_tools::declared_tools() {
        assert!(
            examples.iter().any(|e| e.tool == meta.name),
            "`{}` has no example",
            meta.name
        );
    }
    examples
}

#[tokio::test]
async fn every_example_succeeds_through_the_registry() {
    let registry = chart_tools::registry().expect("the registry builds");
    let mut failures = Vec::new();
    for example in examples() {
        let chart = Chart::demo().with_ask_user(answer_user(None));
        // The host opts in to running code (as `chart-tools run` does with the feature).
        #[cfg(feature = "code-interpreter")]
        let chart = chart.with_interpreter(chart_tools::interpreter::Interpreter::local());
        let mut chart = chart;
        let result = registry
            .execute(&RunPolicy::full(), &mut chart, example.tool, &example.input)
            .await;
        if !result.is_success() {
            failures.push(format!(
                "{} ({}): {}",
                example.tool,
                example.description,
                serde_json::to_string(&result).expect("json")
            ));
        } else if example.read_only {
            assert!(!result.state_changed(), "{}", example.tool);
        }
    }
    assert!(
        failures.is_empty(),
        "failing examples:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_example_succeeds_through_the_binary() {
    let mut failures = Vec::new();
    for example in examples() {
        let line = json!([{"id": "example", "name": example.tool, "arguments": example.input}]);
        let answers = common::answers(&[], &[line.to_string()]);
        assert_eq!(answers.len(), 1, "one answer line for one message");
        let answer = &answers[0];
        assert_eq!(answer[0]["id"], "example");
        assert_eq!(answer[0]["name"], example.tool);
        if answer[0]["result"]["success"] != true {
            failures.push(format!(
                "{} ({}): {answer}",
                example.tool, example.description
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "failing examples:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_manifest_is_registered_but_the_opt_in_ones() {
    let registry = chart_tools::registry().expect("the registry builds");
    for name in chart_tools::NOT_REGISTERED {
        assert!(registry.get(name).is_none(), "`{name}` is registered");
    }
    assert_eq!(
        registry.len() + chart_tools::NOT_REGISTERED.len(),
        chart_tools::tools::ALL.len()
    );
    let declared: Vec<&str> = chart_tools::declared_tools()
        .iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(registry.names().collect::<Vec<_>>(), declared);
}
