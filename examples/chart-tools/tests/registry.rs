//! The demo chart's registry, called directly: what each run offers, and how calls are scheduled.

use chart_tools::chart::Chart;
use chart_tools::run::answer_user;
use chart_tools::tools;
use serde_json::json;
use toolwright_runtime::approval::Decision;
use toolwright_runtime::registry::RegistryProblem;
use toolwright_runtime::{Registry, RunPolicy, ToolCall};

/// The read-only tools of SPEC section 1.
const READ_ONLY: [&str; 11] = [
    "panes_list",
    "indicators_query",
    "instruments_query_name",
    "market_bars_query",
    "market_timeshare_query",
    "market_timeshare_range_query",
    "drawings_list",
    "comparisons_list",
    "settings_get",
    "web_search",
    "ask_user",
];

fn registry() -> Registry<Chart> {
    chart_tools::registry().expect("the registry builds")
}

/// 23 chart tools, plus `code_interpreter` with its feature.
const REGISTERED: usize = 24 - chart_tools::NOT_REGISTERED.len();

fn names(policy: &RunPolicy) -> Vec<&'static str> {
    registry().resolve(policy).iter().map(|m| m.name).collect()
}

fn sorted(names: &[&'static str]) -> Vec<&'static str> {
    let mut names = names.to_vec();
    names.sort_unstable();
    names
}

#[test]
fn a_read_only_run_offers_exactly_the_read_only_tools() {
    assert_eq!(names(&RunPolicy::read_only()), sorted(&READ_ONLY));
    let full = names(&RunPolicy::full());
    assert_eq!(full.len(), REGISTERED);
    assert!(READ_ONLY.iter().all(|name| full.contains(name)));
}

#[test]
fn disabled_tools_are_not_offered() {
    let offered = names(&RunPolicy::read_only().disable("web_search"));
    assert_eq!(offered.len(), 10);
    assert!(!offered.contains(&"web_search"));
    let offered = names(&RunPolicy::full().disable("drawing_create"));
    assert_eq!(offered.len(), REGISTERED - 1);
    assert!(!offered.contains(&"drawing_create"));
}

#[test]
fn a_missing_implementation_stops_the_build() {
    let error = Registry::builder()
        .tools(chart_tools::impls::tool_defs())
        .declared(tools::ALL)
        .build()
        .expect_err("code_interpreter has no implementation here");
    assert_eq!(
        error.problems(),
        [RegistryProblem::MissingImplementation {
            name: "code_interpreter".into(),
            location: "tools/code_interpreter.toml".into(),
        }]
    );
    let defs = chart_tools::impls::tool_defs();
    let error = Registry::builder()
        .tools(defs.iter().copied())
        .tool(defs[0])
        .build()
        .expect_err("a tool registered twice");
    assert!(
        error.to_string().contains("two tools are named `ask_user`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_denied_write_runs_nothing() {
    let registry = registry();
    let mut chart = Chart::demo();
    let policy = RunPolicy::full().with_approval(|request| {
        if request.meta.name == "drawings_clear" {
            Decision::deny("The user keeps their drawings.")
        } else {
            Decision::Approve
        }
    });
    let result = registry
        .execute(&policy, &mut chart, "drawings_clear", &json!({}))
        .await;
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The call to `drawings_clear` was not approved: The user keeps their drawings.")
    );
    assert!(!result.state_changed());
    let listed = registry
        .execute(&policy, &mut chart, "drawings_list", &json!({}))
        .await;
    let drawings = listed.data().expect("a success").value().expect("JSON")["drawings"].clone();
    assert_eq!(
        drawings.as_array().map(Vec::len),
        Some(3),
        "nothing was cleared"
    );
    // The approver is consulted only for writes, and lets this one through.
    let result = registry
        .execute(
            &policy,
            &mut chart,
            "drawing_delete",
            &json!({"drawing_id": "d3"}),
        )
        .await;
    assert!(result.is_success() && result.state_changed());
}

#[test]
fn messages_with_a_sequential_tool_run_one_call_at_a_time() {
    let registry = registry();
    let call = |name: &str| ToolCall::new(name, name, json!({}));
    let reads: Vec<ToolCall> = READ_ONLY
        .iter()
        .filter(|n| **n != "ask_user")
        .map(|n| call(n))
        .collect();
    assert!(!registry.is_sequential(&reads), "reads run in parallel");
    let mut with_question = reads.clone();
    with_question.push(call("ask_user"));
    assert!(
        registry.is_sequential(&with_question),
        "ask_user is sequential"
    );
    let mut with_write = reads;
    with_write.insert(0, call("settings_reset"));
    assert!(registry.is_sequential(&with_write), "writes are sequential");
}

#[tokio::test]
async fn a_batch_answers_every_call_in_order() {
    let registry = registry();
    let mut chart = Chart::demo().with_ask_user(answer_user(None));
    let calls = vec![
        ToolCall::new(
            "1",
            "pane_create",
            json!({"kind": "indicator", "indicators": [{"name": "macd"}]}),
        ),
        ToolCall::new(
            "2",
            "indicators_query",
            json!({"pane_id": "p1", "name": "macd", "limit": 2}),
        ),
        ToolCall::new("3", "nope", json!({})),
        ToolCall::new(
            "4",
            "ask_user",
            json!({"question": "Keep it?", "options": ["keep", "drop"]}),
        ),
        ToolCall::new("5", "panes_clear", json!({})),
        ToolCall::new("6", "panes_clear", json!({})),
    ];
    let results = registry
        .execute_batch(&RunPolicy::full(), &mut chart, &calls)
        .await;
    assert_eq!(results.len(), calls.len());
    assert_eq!(
        results[0].data().expect("created").value().expect("JSON")["id"],
        "p1"
    );
    let series = &results[1].data().expect("queried").value().expect("JSON")["indicators"];
    assert_eq!(series[0]["name"], "macd", "{series}");
    assert_eq!(results[2].code(), Some("TOOL_NOT_FOUND"));
    assert_eq!(
        results[3].data().expect("answered").value().expect("JSON")["answer"],
        "keep"
    );
    assert_eq!(
        results[4].data().expect("cleared").value().expect("JSON")["removed_panes"],
        json!(["lower", "p1"])
    );
    assert!(results[4].state_changed());
    assert!(
        results[5].is_success() && !results[5].state_changed(),
        "nothing left to clear"
    );
}

#[tokio::test]
async fn without_a_host_answer_ask_user_reports_the_user_unavailable() {
    let registry = registry();
    let mut chart = Chart::demo();
    let result = registry
        .execute(
            &RunPolicy::read_only(),
            &mut chart,
            "ask_user",
            &json!({"question": "Which?"}),
        )
        .await;
    let error = result.error().expect("a failure");
    let declared = tools::ask_user::META
        .error("USER_UNAVAILABLE")
        .expect("declared");
    assert_eq!(error.code, "USER_UNAVAILABLE");
    assert!(error.message.starts_with(declared.message));
    assert_eq!(error.recommended_action, declared.recommended_action);
    assert!(!result.state_changed());
}

/// SPEC section 12's bar over the reference set: with every tool deferred, no query finds
/// `panes_clear` (or any other write) in a read-only run: every word of every tool's name,
/// title and description, alone and all together, and the queries a model would write for it.
#[tokio::test]
async fn no_search_finds_panes_clear_in_a_read_only_run() {
    use toolwright_runtime::policy::{Defer, Loaded};
    use toolwright_runtime::registry::deferral::TOOL_SEARCH;

    let registry = registry();
    let loaded = Loaded::new();
    let policy = RunPolicy::read_only()
        .defer(Defer::After(0))
        .with_loaded(loaded.clone());
    let writes: Vec<&str> = registry
        .resolve(&RunPolicy::full())
        .iter()
        .filter(|m| !m.safety.is_read_only())
        .map(|m| m.name)
        .collect();
    assert!(writes.contains(&"panes_clear"));
    let mut queries: Vec<String> = vec![
        "clear panes".to_owned(),
        "remove every pane from the chart".to_owned(),
        "panes_clear".to_owned(),
        "delete all panes".to_owned(),
    ];
    for spec in registry.specs() {
        let text = format!("{} {} {}", spec.name, spec.title, spec.description);
        queries.push(text.chars().take(500).collect());
        queries.extend(
            text.split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .map(str::to_owned),
        );
    }
    queries.sort();
    queries.dedup();
    let mut chart = Chart::demo();
    let mut found_any = 0;
    for query in &queries {
        let answer = registry
            .execute(
                &policy,
                &mut chart,
                TOOL_SEARCH,
                &json!({"query": query, "limit": 10}),
            )
            .await;
        let answer = serde_json::to_value(&answer).expect("JSON");
        assert_eq!(answer["success"], true, "{query}: {answer}");
        let found: Vec<&str> = answer["data"]["tools"]
            .as_array()
            .expect("the tools found")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        found_any += usize::from(!found.is_empty());
        for write in &writes {
            assert!(!found.contains(write), "`{query}` found {write}");
        }
    }
    assert!(
        found_any * 2 > queries.len(),
        "most queries find a read-only tool ({found_any} of {})",
        queries.len()
    );
    for write in &writes {
        assert!(!loaded.contains(write));
    }
}
