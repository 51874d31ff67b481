//! Deferred tools and the registry's `tool_search` (SPEC section 12): what each provider is
//! offered, byte stability of the eager part as tools are found, and the property that a
//! read-only run never returns, loads or executes a write, whatever the tool set and the query.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::policy::{Defer, Loaded};
use toolwright_runtime::provider::Provider;
use toolwright_runtime::registry::RegistryProblem;
use toolwright_runtime::registry::deferral::TOOL_SEARCH;
use toolwright_runtime::{Registry, RunPolicy};

const SCHEMA: &str =
    r#"{"type":"object","properties":{"target":{"type":"string"}},"additionalProperties":false}"#;

/// How many calls reached tool code, and how many of them were writes.
#[derive(Debug, Default)]
struct Runs {
    all: AtomicUsize,
    writes: AtomicUsize,
}

fn run<'a>(runs: &'a Runs, meta: &'static ToolMeta, _: &'a Value) -> BoxFuture<'a, CallResult> {
    runs.all.fetch_add(1, Ordering::SeqCst);
    if !meta.safety.is_read_only() {
        runs.writes.fetch_add(1, Ordering::SeqCst);
    }
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!(meta.name).into(),
            state_changed: !meta.safety.is_read_only(),
        })
    })
}

/// One tool of a test set.
#[derive(Debug, Clone)]
struct Tool {
    name: String,
    description: String,
    safety: Safety,
    deferred: bool,
    category: Option<&'static str>,
}

fn meta_of(tool: &Tool) -> &'static ToolMeta {
    let name: &'static str = Box::leak(tool.name.clone().into_boxed_str());
    let description: &'static str = Box::leak(tool.description.clone().into_boxed_str());
    let mut meta = ToolMeta::new(
        name,
        tool.safety,
        Mode::Parallel,
        StaticSchema::Json(SCHEMA),
    )
    .description(description)
    .source("tests/deferral.rs");
    if let Some(category) = tool.category {
        meta = meta.category(category);
    }
    if tool.deferred {
        meta = meta.defer_loading();
    }
    Box::leak(Box::new(meta))
}

fn registry(tools: &[Tool]) -> Registry<Runs> {
    let mut builder = Registry::builder();
    for tool in tools {
        builder = builder.tool(ToolDef {
            meta: meta_of(tool),
            handler: Handler::Named(run),
        });
    }
    builder.build().expect("a valid registry")
}

fn tool(name: &str, description: &str, safety: Safety, deferred: bool) -> Tool {
    Tool {
        name: name.to_owned(),
        description: description.to_owned(),
        safety,
        deferred,
        category: None,
    }
}

/// A chart host's tools: two eager, five deferred (one write among them), one in a category.
fn chart_tools() -> Vec<Tool> {
    let mut tools = vec![
        tool(
            "panes_list",
            "Lists the chart's panes.",
            Safety::ReadOnly,
            false,
        ),
        tool(
            "chart_info",
            "Describes the open chart.",
            Safety::ReadOnly,
            false,
        ),
        tool(
            "panes_clear",
            "Removes every pane of the chart.",
            Safety::Destructive,
            true,
        ),
        tool(
            "indicator_search",
            "Finds indicators by name: moving average, RSI.",
            Safety::ReadOnly,
            true,
        ),
        tool(
            "price_history",
            "Reads the price history of a symbol.",
            Safety::ReadOnly,
            true,
        ),
        tool(
            "alert_list",
            "Lists the price alerts.",
            Safety::ReadOnly,
            true,
        ),
    ];
    let mut drawing = tool(
        "drawing_list",
        "Lists the drawings on the chart.",
        Safety::ReadOnly,
        true,
    );
    drawing.category = Some("drawings");
    tools.push(drawing);
    tools
}

fn names(definitions: &Value, key: &str) -> Vec<String> {
    definitions
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|d| d.get(key).and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn search_tools(result: &toolwright_runtime::ToolResult) -> Vec<Value> {
    let value = serde_json::to_value(result).expect("JSON");
    assert_eq!(value["success"], true, "{value}");
    value["data"]["tools"]
        .as_array()
        .expect("the tools found")
        .clone()
}

#[tokio::test]
async fn a_local_search_loads_tools_after_the_eager_part_which_stays_byte_identical() {
    let registry = registry(&chart_tools());
    let loaded = Loaded::new();
    let policy = RunPolicy::full()
        .with_provider(Provider::Gemini)
        .with_loaded(loaded.clone());
    let mut runs = Runs::default();
    let before = registry.definitions(&policy).expect("definitions");
    assert_eq!(
        names(&before, "name"),
        ["chart_info", "panes_list", TOOL_SEARCH],
        "the eager tools, then the registry's search"
    );
    let found = registry
        .execute(
            &policy,
            &mut runs,
            TOOL_SEARCH,
            &json!({"query": "price history of a symbol", "limit": 1}),
        )
        .await;
    let found = search_tools(&found);
    assert_eq!(found[0]["name"], "price_history", "{found:?}");
    // Gemini's shape: a function declaration.
    assert!(found[0].get("parameters").is_some(), "{found:?}");
    let after = registry.definitions(&policy).expect("definitions");
    let before = before.as_array().expect("array");
    let after = after.as_array().expect("array");
    for (old, new) in before.iter().zip(after) {
        assert_eq!(
            serde_json::to_string(old).expect("JSON"),
            serde_json::to_string(new).expect("JSON"),
            "the eager part stays byte-identical"
        );
    }
    let appended: Vec<&str> = after[before.len()..]
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(
        appended,
        loaded.names(),
        "found tools are appended in the order found"
    );
    assert_eq!(appended, ["price_history"]);
    // A second search appends after the first one's tools, and never repeats one.
    registry
        .execute(
            &policy,
            &mut runs,
            TOOL_SEARCH,
            &json!({"query": "drawings", "limit": 1}),
        )
        .await;
    let third = registry.definitions(&policy).expect("definitions");
    let third = third.as_array().expect("array");
    assert_eq!(&third[..after.len()], after, "appended, never reordered");
    assert_eq!(loaded.names(), ["price_history", "drawing_list"]);
    assert_eq!(runs.all.load(Ordering::SeqCst), 0, "a search runs no tool");
    // A found tool is called like any other.
    let answer = registry
        .execute(&policy, &mut runs, "price_history", &json!({}))
        .await;
    assert!(answer.is_success());
}

#[tokio::test]
async fn a_search_call_is_validated_and_unknown_without_deferred_tools() {
    let chart = registry(&chart_tools());
    let policy = RunPolicy::full();
    let mut runs = Runs::default();
    for bad in [
        json!({}),
        json!({"query": ""}),
        json!({"query": "x", "limit": 99}),
    ] {
        let answer = chart.execute(&policy, &mut runs, TOOL_SEARCH, &bad).await;
        assert_eq!(answer.code(), Some("TOOL_INPUT_INVALID"), "{bad}");
    }
    // OpenAI strict mode sends `null` for the absent limit: read as absent.
    let strict = RunPolicy::full().with_provider(Provider::OpenAi);
    let answer = chart
        .execute(
            &strict,
            &mut runs,
            TOOL_SEARCH,
            &json!({"query": "drawings", "limit": null}),
        )
        .await;
    assert!(answer.is_success(), "{answer:?}");
    let eager_only = registry(&[tool("a_tool", "A tool.", Safety::ReadOnly, false)]);
    let answer = eager_only
        .execute(&policy, &mut runs, TOOL_SEARCH, &json!({"query": "x"}))
        .await;
    assert_eq!(answer.code(), Some("TOOL_NOT_FOUND"));
    assert_eq!(
        eager_only.definitions(&policy).expect("definitions"),
        eager_only
            .definitions(&RunPolicy::full())
            .expect("definitions"),
    );
}

#[test]
fn anthropic_gets_its_tool_search_and_defer_loading_flags() {
    let registry = registry(&chart_tools());
    let policy = RunPolicy::read_only().with_provider(Provider::Anthropic);
    let definitions = registry.definitions(&policy).expect("definitions");
    let all = definitions.as_array().expect("array");
    assert_eq!(
        names(&definitions, "name")[..2],
        ["chart_info", "panes_list"]
    );
    assert_eq!(
        all[2],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    for deferred in &all[3..] {
        assert_eq!(deferred["defer_loading"], true, "{deferred}");
        assert!(deferred.get("input_schema").is_some());
    }
    let listed = names(&definitions, "name");
    assert!(
        !listed.contains(&"panes_clear".to_owned()),
        "a read-only run offers no write, deferred or not: {listed:?}"
    );
    assert!(listed.contains(&"price_history".to_owned()));
}

#[test]
fn openai_responses_gets_tool_search_and_namespaces() {
    let registry = registry(&chart_tools());
    let policy = RunPolicy::full().with_provider(Provider::OpenAiResponses);
    let definitions = registry.definitions(&policy).expect("definitions");
    let all = definitions.as_array().expect("array");
    assert_eq!(all[2], json!({"type": "tool_search"}));
    let namespace = all
        .iter()
        .find(|d| d["type"] == "namespace")
        .expect("the category's namespace");
    assert_eq!(namespace["name"], "drawings");
    assert_eq!(namespace["tools"][0]["name"], "drawing_list");
    assert_eq!(namespace["tools"][0]["defer_loading"], true);
    assert!(
        namespace["description"]
            .as_str()
            .is_some_and(|d| d.contains("drawing_list"))
    );
    let alone: Vec<&Value> = all[3..]
        .iter()
        .filter(|d| d["type"] == "function")
        .collect();
    assert!(alone.iter().all(|d| d["defer_loading"] == true));
    assert!(alone.iter().any(|d| d["name"] == "panes_clear"));
}

/// The runtime's list and the generator's export are one arrangement: for the declared
/// deferrals, without host rules or loaded tools, `Registry::definitions` is the core export of
/// the run's specs, in every dialect and with the local search asked for or not.
#[test]
fn a_runs_list_is_the_core_export_of_its_tools() {
    use toolwright_core::dialect::{self, Dialect};

    let mut tools = chart_tools();
    let mut eager_category = tool("zone_list", "Lists time zones.", Safety::ReadOnly, false);
    eager_category.category = Some("drawings");
    tools.push(eager_category);
    let registry = registry(&tools);
    for policy in [RunPolicy::full(), RunPolicy::read_only()] {
        let specs = registry.resolve_specs(&policy);
        for dialect in Dialect::ALL {
            let run = policy.clone().with_dialect(*dialect);
            let expected = dialect::export(*dialect, &specs).expect("the set exports");
            assert_eq!(
                registry.definitions(&run).expect("definitions"),
                expected,
                "{dialect}"
            );
            assert_eq!(
                dialect::catalog(*dialect, &specs).tool_list(),
                expected,
                "{dialect}"
            );
            if dialect.has_tool_search() {
                let local = registry
                    .definitions(&run.with_local_search())
                    .expect("definitions");
                let gemini_like = local.as_array().expect("an array");
                assert_eq!(
                    gemini_like.last(),
                    Some(dialect::deferral::tool_search_definition(Some(*dialect))),
                    "{dialect}: the registry's search, nothing found yet"
                );
            }
        }
    }
}

#[test]
fn host_rules_defer_past_the_first_n_and_by_name() {
    let tools: Vec<Tool> = (0..6)
        .map(|i| tool(&format!("tool_{i}"), "A tool.", Safety::ReadOnly, false))
        .collect();
    let registry = registry(&tools);
    let policy = RunPolicy::full().defer(Defer::After(2));
    assert_eq!(
        registry.deferred(&policy),
        ["tool_2", "tool_3", "tool_4", "tool_5"]
    );
    let policy = RunPolicy::full()
        .defer(Defer::Tool("tool_0".to_owned()))
        .defer(Defer::After(2));
    assert_eq!(
        registry.deferred(&policy),
        ["tool_0", "tool_3", "tool_4", "tool_5"]
    );
    assert_eq!(registry.offered(&policy), ["tool_1", "tool_2", TOOL_SEARCH]);
    assert!(registry.deferred(&RunPolicy::full()).is_empty());
}

/// A tool registered with its upstream pin is deferred by `Defer::Upstream` (a tool without
/// one is not), grouped by its server in an OpenAI Responses request, and an upstream given for
/// a tool that is not registered is a problem at `build()`.
#[test]
fn upstream_tools_are_deferred_by_the_upstream_rule_and_grouped_by_server() {
    use toolwright_core::{Endpoint, Upstream};

    let pin = |tool: &str| {
        Upstream::new(
            "notes",
            Endpoint::Command(vec!["notes-server".to_owned()]),
            tool,
            format!("sha256:{}", "0".repeat(64)),
        )
    };
    let tools = [
        tool(
            "notes_search",
            "Searches the notes.",
            Safety::ReadOnly,
            false,
        ),
        tool(
            "notes_delete",
            "Deletes a note.",
            Safety::Destructive,
            false,
        ),
        tool(
            "panes_list",
            "Lists the chart's panes.",
            Safety::ReadOnly,
            false,
        ),
    ];
    let mut builder = Registry::<Runs>::builder();
    for t in &tools {
        builder = builder.tool(ToolDef {
            meta: meta_of(t),
            handler: Handler::Named(run),
        });
    }
    let registry = builder
        .upstream("notes_search", pin("search"))
        .upstream("notes_delete", pin("delete"))
        .build()
        .expect("a valid registry");
    let policy = RunPolicy::full().defer(Defer::Upstream);
    assert_eq!(registry.deferred(&policy), ["notes_delete", "notes_search"]);
    assert!(registry.deferred(&RunPolicy::full()).is_empty());
    let responses = registry
        .definitions(&policy.clone().with_provider(Provider::OpenAiResponses))
        .expect("definitions");
    let namespace = responses
        .as_array()
        .and_then(|list| list.iter().find(|d| d["type"] == "namespace"))
        .expect("a namespace of the server's tools");
    assert_eq!(namespace["name"], "notes");
    assert_eq!(
        names(&namespace["tools"], "name"),
        ["notes_delete", "notes_search"]
    );
    // Read-only: the server's write is neither deferred nor listed, only its read.
    assert_eq!(
        registry.deferred(&RunPolicy::read_only().defer(Defer::Upstream)),
        ["notes_search"]
    );

    let err = Registry::<Runs>::builder()
        .tool(ToolDef {
            meta: meta_of(&tools[2]),
            handler: Handler::Named(run),
        })
        .upstream("notes_search", pin("search"))
        .build()
        .expect_err("no tool `notes_search` is registered");
    assert!(
        matches!(err.problems(), [RegistryProblem::UnknownUpstream { name }] if name == "notes_search"),
        "{err}"
    );
}

#[test]
fn no_tool_may_take_the_search_tools_name() {
    let err = Registry::<Runs>::builder()
        .tool(ToolDef {
            meta: meta_of(&tool(TOOL_SEARCH, "Mine.", Safety::ReadOnly, false)),
            handler: Handler::Named(run),
        })
        .build()
        .expect_err("reserved");
    assert!(
        matches!(err.problems(), [RegistryProblem::ReservedName { name, .. }] if name == TOOL_SEARCH),
        "{err}"
    );
}

/// Words the random tools and queries are made of.
const WORDS: &[&str] = &[
    "chart",
    "pane",
    "clear",
    "remove",
    "list",
    "price",
    "alert",
    "create",
    "delete",
    "read",
    "symbol",
    "history",
    "drawing",
    "indicator",
    "file",
    "write",
    "issue",
    "time",
    "move",
    "add",
];

fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(WORDS)
}

fn tool_set() -> impl Strategy<Value = Vec<Tool>> {
    prop::collection::vec(
        (
            prop::collection::vec(word(), 1..4),
            prop::collection::vec(word(), 0..8),
            any::<bool>(),
            any::<bool>(),
        ),
        1..24,
    )
    .prop_map(|tools| {
        tools
            .into_iter()
            .enumerate()
            .map(|(i, (name, description, write, deferred))| Tool {
                name: format!("{}_{i}", name.join("_")),
                description: description.join(" "),
                safety: if write {
                    Safety::Destructive
                } else {
                    Safety::ReadOnly
                },
                deferred,
                category: None,
            })
            .collect()
    })
}

fn provider() -> impl Strategy<Value = Option<Provider>> {
    prop_oneof![
        Just(None),
        Just(Some(Provider::OpenAi)),
        Just(Some(Provider::OpenAiResponses)),
        Just(Some(Provider::Anthropic)),
        Just(Some(Provider::Gemini)),
    ]
}

/// A tool the user disabled and a pinned tool withheld for drift are never found by a search,
/// loaded or run, even when the query is their own name and description; the other deferred
/// tools still are.
#[tokio::test]
async fn disabled_and_withheld_tools_are_never_found() {
    let tools = chart_tools();
    let registry = registry(&tools);
    let loaded = Loaded::new();
    let policy = RunPolicy::full()
        .disable("price_history")
        .withhold(
            "alert_list",
            "The tool `alert_list` changed upstream since it was pinned.",
        )
        .with_provider(Provider::Gemini)
        .with_loaded(loaded.clone());
    let mut runs = Runs::default();
    for hidden in ["price_history", "alert_list"] {
        let tool = tools
            .iter()
            .find(|t| t.name == hidden)
            .expect("a chart tool");
        let query = format!("{} {}", tool.name, tool.description);
        let answer = registry
            .execute(
                &policy,
                &mut runs,
                TOOL_SEARCH,
                &json!({"query": query, "limit": 10}),
            )
            .await;
        let found = search_tools(&answer);
        assert!(
            found.iter().all(|d| d["name"] != hidden),
            "{hidden} found: {found:?}"
        );
        assert!(!loaded.contains(hidden));
        assert!(!registry.offered(&policy).contains(&hidden));
        let called = registry
            .execute(&policy, &mut runs, hidden, &json!({}))
            .await;
        assert_eq!(called.code(), Some("TOOL_NOT_ALLOWED"), "{hidden}");
    }
    assert_eq!(runs.all.load(Ordering::SeqCst), 0, "nothing ran");
    // The search still finds the run's other deferred tools.
    let answer = registry
        .execute(
            &policy,
            &mut runs,
            TOOL_SEARCH,
            &json!({"query": "indicators moving average"}),
        )
        .await;
    assert_eq!(search_tools(&answer)[0]["name"], "indicator_search");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// In a read-only run no write tool is returned by a search, loaded into the list,
    /// offered in any provider's form (deferred included) or executed, whatever the tools, the
    /// host's deferral rules and the queries.
    #[test]
    fn a_read_only_run_never_surfaces_a_write(
        tools in tool_set(),
        queries in prop::collection::vec(prop::collection::vec(word(), 0..5), 1..5),
        after in prop::option::of(0usize..6),
        provider in provider(),
        local in any::<bool>(),
    ) {
        let registry = registry(&tools);
        let writes: Vec<&str> = tools
            .iter()
            .filter(|t| !t.safety.is_read_only())
            .map(|t| t.name.as_str())
            .collect();
        let loaded = Loaded::new();
        let mut policy = RunPolicy::read_only().with_loaded(loaded.clone());
        if let Some(provider) = provider {
            policy = policy.with_provider(provider);
        }
        if let Some(n) = after {
            policy = policy.defer(Defer::After(n));
        }
        if local {
            policy = policy.with_local_search();
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        let mut runs = Runs::default();
        for query in &queries {
            let query = if query.is_empty() { "chart".to_owned() } else { query.join(" ") };
            let answer = runtime.block_on(registry.execute(
                &policy,
                &mut runs,
                TOOL_SEARCH,
                &json!({"query": query, "limit": 10}),
            ));
            let text = serde_json::to_string(&answer).expect("JSON");
            for write in &writes {
                prop_assert!(!text.contains(&format!("\"{write}\"")), "{write} found: {text}");
            }
        }
        for write in &writes {
            prop_assert!(!loaded.contains(write));
            prop_assert!(!registry.offered(&policy).contains(write));
            prop_assert!(!registry.deferred(&policy).contains(write));
        }
        let offered = serde_json::to_string(&registry.definitions(&policy).expect("definitions"))
            .expect("JSON");
        for write in &writes {
            prop_assert!(!offered.contains(&format!("\"{write}\"")), "{write} offered");
            let answer = runtime.block_on(registry.execute(&policy, &mut runs, write, &json!({})));
            prop_assert_eq!(answer.code(), Some("TOOL_NOT_ALLOWED"));
        }
        prop_assert_eq!(runs.writes.load(Ordering::SeqCst), 0);
    }
}
