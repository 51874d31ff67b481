//! A property: instances generated from each manifest's schema (read through the schema
//! model) that the schema accepts deserialize into the generated `Input`, and what the input
//! serializes back to is still valid and reads back the same.
//!
//! No dependency builds instances from a JSON Schema, so the strategies are written here: each
//! node's types, `const`, `enum`, references, `anyOf`/`oneOf`, positional and repeated items,
//! required and optional properties, and extra properties where the schema allows them. The
//! schema itself (validated by the registry's validator) decides which candidates count.

use generated_check::tools;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};
use proptest::test_runner::{Config, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use toolwright_manifest::schema::{Body, Draft, Kind, Node, SchemaTree};
use toolwright_runtime::handler::ToolMeta;
use toolwright_runtime::validate::InputSchema;

/// How deep references and nested schemas are followed.
const MAX_DEPTH: usize = 6;

fn any_value() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-100i64..100).prop_map(Value::from),
        "[a-z]{0,4}".prop_map(Value::from),
    ]
    .boxed()
}

fn strategy(tree: &SchemaTree<'_>, node: &Node<'_>, depth: usize) -> BoxedStrategy<Value> {
    let object = match &node.body {
        Body::Object(object) if depth <= MAX_DEPTH => object,
        Body::Bool(false) => return Just(Value::Null).boxed(),
        _ => return any_value(),
    };
    if let Some(value) = object.const_value() {
        return Just(value.clone()).boxed();
    }
    if let Some(values) = object.enum_values() {
        return proptest::sample::select(values.to_vec()).boxed();
    }
    if let Some(reference) = object.reference()
        && let Some(target) = tree.resolve(reference)
    {
        return strategy(tree, target, depth + 1);
    }
    for branches in [object.any_of(), object.one_of()] {
        if !branches.is_empty() && object.types.is_none() {
            let each: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|b| strategy(tree, b, depth + 1))
                .collect();
            return Union::new(each).boxed();
        }
    }
    if object.types.is_none()
        && let Some(first) = object.all_of().first()
    {
        return strategy(tree, first, depth + 1);
    }
    let kinds: Vec<Kind> = object.types.clone().unwrap_or_default();
    if kinds.is_empty() {
        return any_value();
    }
    let each: Vec<BoxedStrategy<Value>> = kinds
        .iter()
        .map(|kind| typed(tree, node, *kind, depth))
        .collect();
    Union::new(each).boxed()
}

fn typed(tree: &SchemaTree<'_>, node: &Node<'_>, kind: Kind, depth: usize) -> BoxedStrategy<Value> {
    let Some(object) = node.object() else {
        return any_value();
    };
    let int = |keyword: &str| object.number(keyword).and_then(serde_json::Number::as_i64);
    match kind {
        Kind::Null => Just(Value::Null).boxed(),
        Kind::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        Kind::Integer => {
            let low = int("minimum").unwrap_or(-1000).max(-1_000_000);
            let high = int("maximum").unwrap_or(low + 1000).min(low + 1_000_000);
            // Integral floats are integers too.
            (low..=high.max(low), any::<bool>())
                .prop_map(|(n, float)| if float { json!(n as f64) } else { json!(n) })
                .boxed()
        }
        Kind::Number => prop_oneof![
            (-1000.0f64..1000.0).prop_map(Value::from),
            (-1000i64..1000).prop_map(Value::from),
        ]
        .boxed(),
        Kind::String => {
            if let Some(pattern) = object.text("pattern")
                && let Ok(strings) = proptest::string::string_regex(
                    pattern.trim_start_matches('^').trim_end_matches('$'),
                )
            {
                return strings.prop_map(Value::from).boxed();
            }
            let min = object.count("minLength").unwrap_or(0).min(8) as usize;
            let max = object.count("maxLength").unwrap_or(8).clamp(min as u64, 12) as usize;
            proptest::string::string_regex(&format!("[a-z0-9 ]{{{min},{max}}}")).map_or_else(
                |_| Just(Value::from("")).boxed(),
                |s| s.prop_map(Value::from).boxed(),
            )
        }
        Kind::Array => {
            let prefix: Vec<BoxedStrategy<Value>> = object
                .prefix_items()
                .iter()
                .map(|item| strategy(tree, item, depth + 1))
                .collect();
            let rest = match object.items() {
                Some(items) => strategy(tree, items, depth + 1),
                None if prefix.is_empty() => any_value(),
                None => Just(Value::Null).boxed(),
            };
            let min = object.count("minItems").unwrap_or(0).min(3) as usize;
            let max = object.count("maxItems").unwrap_or(3).clamp(min as u64, 4) as usize;
            let more = if prefix.is_empty() { min..=max } else { 0..=1 };
            (prefix, proptest::collection::vec(rest, more))
                .prop_map(|(mut head, tail)| {
                    head.extend(tail);
                    Value::Array(head)
                })
                .boxed()
        }
        Kind::Object => {
            let required = object.required();
            let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
            for (name, property) in object.properties() {
                let name = (*name).to_owned();
                let value = strategy(tree, property, depth + 1);
                if required.contains(&name.as_str()) {
                    fields.push(value.prop_map(move |v| Some((name.clone(), v))).boxed());
                } else {
                    fields.push(
                        proptest::option::of(value.prop_map(move |v| (name.clone(), v))).boxed(),
                    );
                }
            }
            // Other properties, where `additionalProperties` allows them.
            let extra = match object.additional_properties() {
                Some(schema) if matches!(schema.body, Body::Bool(false)) => None,
                Some(schema) => Some(strategy(tree, schema, depth + 1)),
                None => Some(any_value()),
            };
            let extra = match extra {
                Some(value) => {
                    proptest::collection::btree_map("zz[a-z]{1,3}", value, 0..=2).boxed()
                }
                None => Just(Default::default()).boxed(),
            };
            (fields, extra)
                .prop_map(|(fields, extra)| {
                    let mut map: Map<String, Value> = extra.into_iter().collect();
                    map.extend(fields.into_iter().flatten());
                    Value::Object(map)
                })
                .boxed()
        }
    }
}

/// Runs the property for one tool's generated `Input`.
fn check<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(meta: &ToolMeta) {
    let schema = meta.input_schema.to_value().expect("schema JSON");
    let validator = InputSchema::compile(&schema).expect("the schema compiles");
    let draft = Draft::of(&schema).expect("a draft the toolkit reads");
    let tree = SchemaTree::parse(&schema, draft);
    let instances = strategy(&tree, &tree.root, 0);
    let mut runner = TestRunner::new(Config {
        cases: 64,
        max_global_rejects: 50_000,
        failure_persistence: None,
        ..Config::default()
    });
    let accepted = std::cell::Cell::new(0usize);
    let result = runner.run(&instances, |instance| {
        prop_assume!(validator.is_valid(&instance));
        accepted.set(accepted.get() + 1);
        let input: T = serde_json::from_value(instance.clone())
            .map_err(|e| TestCaseError::fail(format!("{instance} does not deserialize: {e}")))?;
        let back = serde_json::to_value(&input).expect("serializes");
        prop_assert!(
            validator.is_valid(&back),
            "{back} (from {instance}) is not valid"
        );
        let again: T = serde_json::from_value(back.clone()).expect("reads back");
        prop_assert_eq!(again, input);
        Ok(())
    });
    if let Err(e) = result {
        panic!("`{}`: {e}", meta.name);
    }
    assert!(
        accepted.get() > 0,
        "`{}`: no valid instance was generated",
        meta.name
    );
}

#[test]
fn generated_instances_deserialize_into_every_input() {
    check::<tools::mapping_rules::Input>(&tools::mapping_rules::META);
    check::<tools::draft07_ranges::Input>(&tools::draft07_ranges::META);
    check::<tools::draft2019_pairs::Input>(&tools::draft2019_pairs::META);
    check::<tools::drawing_create::Input>(&tools::drawing_create::META);
    check::<tools::market_bars_query::Input>(&tools::market_bars_query::META);
    check::<tools::panes_list::Input>(&tools::panes_list::META);
    check::<tools::settings_update::Input>(&tools::settings_update::META);
    check::<tools::big_values::Input>(&tools::big_values::META);
    check::<tools::_self::Input>(&tools::_self::META);
}
