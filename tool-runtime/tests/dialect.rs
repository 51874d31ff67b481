//! Validation follows the run's dialect: OpenAI strict mode's `null`s for optional fields are
//! read as absent, and only those; and a run's tools are offered in its dialect.

use std::sync::Mutex;

use serde_json::{Value, json};
use toolwright_core::dialect;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::provider::Dialect;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolResult};

/// What the tools' code received, in call order.
#[derive(Debug, Default)]
struct Seen {
    arguments: Mutex<Vec<Value>>,
}

impl Seen {
    fn record(&self, arguments: &Value) {
        self.arguments
            .lock()
            .expect("seen lock")
            .push(arguments.clone());
    }

    fn all(&self) -> Vec<Value> {
        self.arguments.lock().expect("seen lock").clone()
    }
}

const fn meta(name: &'static str, safety: Safety, mode: Mode, schema: &'static str) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(schema))
        .description("A test tool.")
        .source(name)
}

/// `query` required; `limit` and `filter` optional; inside `filter`, `pane` required and `since`
/// optional; `note` optional but already nullable in the canonical schema.
const SEARCH_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "query": {"type": "string"},
    "limit": {"type": "integer", "minimum": 1},
    "note": {"type": ["string", "null"]},
    "filter": {
      "type": "object",
      "properties": {
        "pane": {"type": "string"},
        "since": {"type": "integer"}
      },
      "required": ["pane"],
      "additionalProperties": false
    }
  },
  "required": ["query"],
  "additionalProperties": false
}"#;

static SEARCH: ToolMeta = meta("search", Safety::ReadOnly, Mode::Parallel, SEARCH_SCHEMA);

/// A map with free keys: OpenAI strict mode cannot express it (it is offered with
/// `"strict": false`), Gemini cannot at all.
static TAG: ToolMeta = meta(
    "tag",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}},"required":["tags"],"additionalProperties":false}"#,
);

/// Optional fields behind a reference, inside array items.
static ANNOTATE: ToolMeta = meta(
    "annotate",
    Safety::ReadOnly,
    Mode::Parallel,
    r##"{
  "type": "object",
  "$defs": {
    "Anchor": {
      "type": "object",
      "properties": {"time": {"type": "integer"}, "label": {"type": "string"}},
      "required": ["time"],
      "additionalProperties": false
    }
  },
  "properties": {"anchors": {"type": "array", "items": {"$ref": "#/$defs/Anchor"}}},
  "required": ["anchors"],
  "additionalProperties": false
}"##,
);

fn echo<'a>(seen: &'a Seen, arguments: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        seen.record(arguments);
        Ok(ToolOutput {
            data: arguments.into(),
            state_changed: false,
        })
    })
}

fn tag<'a>(seen: &'a mut Seen, arguments: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        seen.record(arguments);
        Ok(ToolOutput {
            data: Value::Null.into(),
            state_changed: true,
        })
    })
}

/// A free-form `meta` object (strict mode cannot express it) and an optional `limit`: offered
/// with `"strict": false`, so `limit` is not made nullable and a `null` for it is a value.
static NOTE: ToolMeta = meta(
    "note",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"text":{"type":"string"},"meta":{"type":"object"},"limit":{"type":"integer"}},"required":["text"],"additionalProperties":false}"#,
);

fn registry() -> Registry<Seen> {
    Registry::builder()
        .tool(ToolDef {
            meta: &SEARCH,
            handler: Handler::Shared(echo),
        })
        .tool(ToolDef {
            meta: &NOTE,
            handler: Handler::Shared(echo),
        })
        .tool(ToolDef {
            meta: &ANNOTATE,
            handler: Handler::Shared(echo),
        })
        .tool(ToolDef {
            meta: &TAG,
            handler: Handler::Exclusive(tag),
        })
        .build()
        .expect("the test tools are valid")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
}

fn call(policy: &RunPolicy, arguments: Value) -> (ToolResult, Vec<Value>) {
    call_tool(policy, "search", arguments)
}

fn call_tool(policy: &RunPolicy, name: &str, arguments: Value) -> (ToolResult, Vec<Value>) {
    let registry = registry();
    let mut seen = Seen::default();
    let result = runtime().block_on(registry.execute(policy, &mut seen, name, &arguments));
    (result, seen.all())
}

fn openai() -> RunPolicy {
    RunPolicy::full().with_dialect(Dialect::OpenAi)
}

fn input_invalid(result: &ToolResult) -> &str {
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"), "{result:?}");
    assert!(!result.state_changed());
    &result.error().expect("a failure").message
}

#[test]
fn an_optional_field_sent_as_null_is_read_as_absent() {
    let (result, seen) = call(
        &openai(),
        json!({"query": "eurusd", "limit": null, "filter": null}),
    );
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        seen,
        [json!({"query": "eurusd"})],
        "the tool sees them absent"
    );
}

#[test]
fn a_nested_optional_field_sent_as_null_is_read_as_absent() {
    let (result, seen) = call(
        &openai(),
        json!({"query": "q", "limit": 5, "filter": {"pane": "main", "since": null}}),
    );
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        seen,
        [json!({"query": "q", "limit": 5, "filter": {"pane": "main"}})]
    );
}

#[test]
fn a_required_field_sent_as_null_is_still_invalid() {
    let (result, seen) = call(&openai(), json!({"query": null, "limit": null}));
    assert_eq!(
        input_invalid(&result),
        "The tool input is invalid: /query: Expected string"
    );
    assert!(seen.is_empty(), "invalid input never reaches tool code");

    let (result, seen) = call(
        &openai(),
        json!({"query": "q", "filter": {"pane": null, "since": null}}),
    );
    assert_eq!(
        input_invalid(&result),
        "The tool input is invalid: /filter/pane: Expected string"
    );
    assert!(seen.is_empty());
}

#[test]
fn optional_fields_behind_a_reference_follow_the_same_rule() {
    let (result, seen) = call_tool(
        &openai(),
        "annotate",
        json!({"anchors": [{"time": 1, "label": null}, {"time": 2, "label": "b"}]}),
    );
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        seen,
        [json!({"anchors": [{"time": 1}, {"time": 2, "label": "b"}]})]
    );

    let (result, seen) = call_tool(
        &openai(),
        "annotate",
        json!({"anchors": [{"time": 1}, {"time": null, "label": null}]}),
    );
    assert_eq!(
        input_invalid(&result),
        "The tool input is invalid: /anchors/1/time: Expected integer"
    );
    assert!(seen.is_empty());

    let (result, _) = call_tool(
        &RunPolicy::full(),
        "annotate",
        json!({"anchors": [{"time": 1, "label": null}]}),
    );
    assert_eq!(
        input_invalid(&result),
        "The tool input is invalid: /anchors/0/label: Expected string"
    );
}

#[test]
fn both_openai_apis_read_strict_mode_nulls_as_absent() {
    for policy in [
        RunPolicy::full().with_dialect(Dialect::OpenAiResponses),
        RunPolicy::full().with_provider(toolwright_runtime::provider::Provider::OpenAiResponses),
        RunPolicy::full().with_provider(toolwright_runtime::provider::Provider::OpenAi),
    ] {
        let (result, seen) = call(&policy, json!({"query": "q", "limit": null}));
        assert!(result.is_success(), "{policy:?}: {result:?}");
        assert_eq!(seen, [json!({"query": "q"})], "{policy:?}");
    }
}

#[test]
fn a_tool_offered_without_strict_mode_keeps_its_nulls() {
    let registry = registry();
    let definition = registry
        .definition("note", Dialect::OpenAi)
        .expect("a known tool")
        .expect("a function");
    assert_eq!(definition["function"]["strict"], false);
    assert_eq!(
        definition["function"]["parameters"]["properties"]["limit"],
        json!({"type": "integer"}),
        "not made nullable"
    );
    assert_eq!(registry.openai_nullable_pointers("note"), Some(&[][..]));
    for policy in [
        openai(),
        RunPolicy::full().with_dialect(Dialect::OpenAiResponses),
    ] {
        // The model was never told `null` means absent: it is the value it is.
        let (result, seen) = call_tool(&policy, "note", json!({"text": "t", "limit": null}));
        assert_eq!(
            input_invalid(&result),
            "The tool input is invalid: /limit: Expected integer"
        );
        assert!(seen.is_empty());
        let (result, seen) = call_tool(&policy, "note", json!({"text": "t", "meta": {"x": 1}}));
        assert!(result.is_success(), "{result:?}");
        assert_eq!(seen, [json!({"text": "t", "meta": {"x": 1}})]);
    }
}

#[test]
fn null_is_invalid_without_the_openai_dialect() {
    for policy in [
        RunPolicy::full(),
        RunPolicy::full().with_dialect(Dialect::Anthropic),
        RunPolicy::full().with_dialect(Dialect::Mcp),
    ] {
        let (result, seen) = call(&policy, json!({"query": "q", "limit": null}));
        assert_eq!(
            input_invalid(&result),
            "The tool input is invalid: /limit: Expected integer",
            "{policy:?}"
        );
        assert!(seen.is_empty());
    }
}

#[test]
fn a_null_the_canonical_schema_allows_is_kept() {
    let (result, seen) = call(&openai(), json!({"query": "q", "note": null}));
    assert!(result.is_success(), "{result:?}");
    assert_eq!(seen, [json!({"query": "q", "note": null})]);
}

#[test]
fn the_parallel_batch_path_reads_nulls_the_same_way() {
    let registry = registry();
    let mut seen = Seen::default();
    let calls = [
        ToolCall::new("1", "search", json!({"query": "a", "limit": null})),
        ToolCall::new("2", "search", json!({"query": null})),
    ];
    let results = runtime().block_on(registry.execute_batch(&openai(), &mut seen, &calls));
    assert!(results[0].is_success(), "{:?}", results[0]);
    assert_eq!(
        input_invalid(&results[1]),
        "The tool input is invalid: /query: Expected string"
    );
    assert_eq!(seen.all(), [json!({"query": "a"})]);
}

#[test]
fn the_registry_knows_which_fields_strict_mode_makes_nullable() {
    let registry = registry();
    assert_eq!(
        registry.openai_nullable_pointers("search"),
        Some(
            &[
                "/properties/filter".to_owned(),
                "/properties/filter/properties/since".to_owned(),
                "/properties/limit".to_owned(),
            ][..]
        )
    );
    assert_eq!(registry.openai_nullable_pointers("missing"), None);
}

#[test]
fn definitions_are_the_export_of_the_runs_tools() {
    let registry = registry();
    for base in [RunPolicy::full(), RunPolicy::read_only()] {
        for dialect in Dialect::ALL {
            let policy = base.clone().with_dialect(*dialect);
            let expected = dialect::export(*dialect, &registry.resolve_specs(&policy));
            assert_eq!(registry.definitions(&policy), expected, "{policy:?}");
            // Served from the cache the second time: the same answer.
            assert_eq!(registry.definitions(&policy), expected, "{policy:?}");
        }
    }
}

#[test]
fn a_run_without_a_dialect_gets_the_canonical_specs() {
    let registry = registry();
    let canonical = registry
        .definitions(&RunPolicy::read_only())
        .expect("canonical definitions never fail");
    let expected =
        serde_json::to_value(registry.resolve_specs(&RunPolicy::read_only())).expect("json");
    assert_eq!(canonical, expected);
    assert_eq!(
        canonical
            .as_array()
            .map(|a| a.iter().map(|d| d["name"].clone()).collect::<Vec<_>>()),
        Some(vec![json!("annotate"), json!("note"), json!("search")])
    );
}

#[test]
fn a_tool_strict_mode_cannot_express_is_offered_to_openai_without_it() {
    let registry = registry();
    let offered = registry
        .definitions(&openai())
        .expect("every tool is a function");
    let strict: Vec<(&str, bool)> = offered
        .as_array()
        .expect("an array")
        .iter()
        .map(|tool| {
            (
                tool["function"]["name"].as_str().expect("a name"),
                tool["function"]["strict"] == true,
            )
        })
        .collect();
    assert_eq!(
        strict,
        [
            ("annotate", true),
            ("note", false),
            ("search", true),
            ("tag", false)
        ]
    );
    let search = &offered[2]["function"];
    assert_eq!(
        search["parameters"]["required"],
        json!(["filter", "limit", "note", "query"])
    );
}

#[test]
fn a_tool_the_dialect_cannot_express_fails_only_the_runs_that_offer_it() {
    let registry = registry();
    let gemini = RunPolicy::full().with_provider(toolwright_runtime::provider::Provider::Gemini);
    let error = registry
        .definitions(&gemini)
        .expect_err("a map with free keys has no Gemini form");
    assert_eq!(error.dialect, Dialect::Gemini);
    assert!(
        error
            .violations
            .iter()
            .all(|v| (v.tool == "tag" || v.tool == "note") && v.rule == "gemini.object-properties"),
        "{error}"
    );
    // A read-only run does not offer `tag`: with `note` disabled, its definitions are fine.
    let read_only = registry
        .definitions(
            &RunPolicy::read_only()
                .disable("note")
                .with_provider(toolwright_runtime::provider::Provider::Gemini),
        )
        .expect("only `annotate` and `search` are offered");
    assert_eq!(read_only[1]["name"], "search");
    // Disabling the tools has the same effect.
    assert!(
        registry
            .definitions(&gemini.disable("tag").disable("note"))
            .is_ok()
    );
}

#[test]
fn each_conversion_is_computed_once_per_registry() {
    let registry = registry();
    let first = registry
        .definition("search", Dialect::Gemini)
        .expect("a known tool")
        .expect("a valid definition");
    let second = registry
        .definition("search", Dialect::Gemini)
        .expect("a known tool")
        .expect("a valid definition");
    assert!(std::ptr::eq(first, second), "the cached value is reused");
    assert!(registry.definition("missing", Dialect::Gemini).is_none());
    let refused = registry
        .definition("tag", Dialect::Gemini)
        .expect("a known tool")
        .expect_err("no Gemini form");
    assert!(!refused.is_empty());
}

mod strict_form {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};
    use toolwright_runtime::RunPolicy;

    use super::{call, openai};

    /// `search` arguments: `(canonical, strict, substituted)`, where the strict form sends `null`
    /// for every absent optional field (`limit`, `filter`, `filter.since`) as a strict-mode
    /// model does, and `substituted` says whether it did. `note` is nullable in the canonical
    /// schema already: its `null` is a value in both forms.
    fn arguments() -> impl Strategy<Value = (Value, Value, bool)> {
        (
            prop::option::of("[a-z]{0,4}"),
            prop::option::of(0i64..4),
            prop::option::of(prop::option::of("[a-z]{0,3}")),
            prop::option::of((prop::option::of("[a-z]{1,3}"), prop::option::of(-2i64..3))),
        )
            .prop_map(|(query, limit, note, filter)| {
                let mut canonical = Map::new();
                let mut strict = Map::new();
                let substituted = limit.is_none() || filter.as_ref().is_none_or(|f| f.1.is_none());
                if let Some(query) = query {
                    canonical.insert("query".into(), json!(query));
                    strict.insert("query".into(), json!(query));
                }
                match limit {
                    Some(limit) => {
                        canonical.insert("limit".into(), json!(limit));
                        strict.insert("limit".into(), json!(limit));
                    }
                    None => {
                        strict.insert("limit".into(), Value::Null);
                    }
                }
                if let Some(note) = note {
                    canonical.insert("note".into(), json!(note));
                    strict.insert("note".into(), json!(note));
                }
                match filter {
                    Some((pane, since)) => {
                        let mut inner = Map::new();
                        let mut strict_inner = Map::new();
                        if let Some(pane) = pane {
                            inner.insert("pane".into(), json!(pane));
                            strict_inner.insert("pane".into(), json!(pane));
                        }
                        match since {
                            Some(since) => {
                                inner.insert("since".into(), json!(since));
                                strict_inner.insert("since".into(), json!(since));
                            }
                            None => {
                                strict_inner.insert("since".into(), Value::Null);
                            }
                        }
                        canonical.insert("filter".into(), Value::Object(inner));
                        strict.insert("filter".into(), Value::Object(strict_inner));
                    }
                    None => {
                        strict.insert("filter".into(), Value::Null);
                    }
                }
                (Value::Object(canonical), Value::Object(strict), substituted)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn a_strict_call_runs_exactly_as_its_canonical_call((canonical, strict, substituted) in arguments()) {
            let (expected, expected_seen) = call(&RunPolicy::full(), canonical);
            let (found, found_seen) = call(&openai(), strict.clone());
            prop_assert_eq!(&found, &expected);
            prop_assert_eq!(found_seen, expected_seen);

            // The canonical run reads the same `null`s as values: wrong unless there are none.
            let (canonical_run, _) = call(&RunPolicy::full(), strict.clone());
            if substituted {
                prop_assert_eq!(canonical_run.code(), Some("TOOL_INPUT_INVALID"));
            } else {
                prop_assert_eq!(canonical_run, expected);
            }
        }
    }
}
