//! The types a tool author reaches for, through the registry: `NoArgs` for a tool without
//! arguments, `Changed` for a write that decides at run time whether it changed anything, and
//! what the registry answers for each (SPEC section 3).

use serde_json::{Value, json};
use toolwright_runtime::{
    Changed, NoArgs, Registry, RunPolicy, ToolError, ToolResult, Unchanged, tool, tool_defs,
};

#[derive(Debug, Default)]
struct Chart {
    drawings: Vec<String>,
}

/// Lists the drawings.
#[tool(safety = "read-only", mode = "parallel")]
fn drawings_list(chart: &Chart, _input: NoArgs) -> Result<Vec<String>, ToolError> {
    Ok(chart.drawings.clone())
}

/// Removes every drawing; with none, nothing changes.
#[tool(safety = "destructive", mode = "sequential")]
fn drawings_clear(chart: &mut Chart, _input: NoArgs) -> Result<Changed<usize>, ToolError> {
    let cleared = chart.drawings.len();
    chart.drawings.clear();
    Ok(Changed::new(cleared, cleared > 0))
}

/// Adds a drawing.
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_add(chart: &mut Chart, _input: NoArgs) -> Result<usize, ToolError> {
    chart
        .drawings
        .push(format!("d{}", chart.drawings.len() + 1));
    Ok(chart.drawings.len())
}

/// Says whether the chart has drawings, claiming a change (a read-only tool never reports one).
#[tool(safety = "read-only", mode = "parallel")]
fn drawings_any(chart: &Chart, _input: NoArgs) -> Result<Changed<bool>, ToolError> {
    Ok(Changed::new(!chart.drawings.is_empty(), true))
}

/// Counts the drawings, as a write that changed nothing.
#[tool(safety = "destructive", mode = "sequential")]
fn drawings_recount(chart: &mut Chart, _input: NoArgs) -> Result<Unchanged<usize>, ToolError> {
    Ok(Unchanged(chart.drawings.len()))
}

fn registry() -> Registry<Chart> {
    Registry::builder()
        .tools(tool_defs![
            drawings_list,
            drawings_clear,
            drawing_add,
            drawings_any,
            drawings_recount,
        ])
        .build()
        .expect("valid tools")
}

fn call(registry: &Registry<Chart>, chart: &mut Chart, name: &str, args: Value) -> ToolResult {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(registry.execute(&RunPolicy::full(), chart, name, &args))
}

#[test]
fn no_args_is_a_closed_empty_object() {
    let registry = registry();
    let spec = registry
        .specs()
        .into_iter()
        .find(|spec| spec.name == "drawings_list")
        .expect("drawings_list");
    assert_eq!(
        spec.input_schema,
        json!({"title": "NoArgs", "type": "object", "additionalProperties": false})
    );
    let mut chart = Chart::default();
    let listed = call(&registry, &mut chart, "drawings_list", json!({}));
    assert_eq!(listed, ToolResult::success(json!([]), false));
    let refused = call(
        &registry,
        &mut chart,
        "drawings_list",
        json!({"pane_id": "main"}),
    );
    assert_eq!(refused.code(), Some("TOOL_INPUT_INVALID"));
    assert_eq!(
        refused.error().map(|e| e.message.as_str()),
        Some("The tool input is invalid: /pane_id: Unexpected property")
    );
}

#[test]
fn changed_reports_what_the_tool_decided() {
    let registry = registry();
    let mut chart = Chart::default();
    // Nothing to clear: nothing changed.
    let cleared = call(&registry, &mut chart, "drawings_clear", json!({}));
    assert_eq!(cleared, ToolResult::success(json!(0), false));
    assert_eq!(
        call(&registry, &mut chart, "drawing_add", json!({})),
        ToolResult::success(json!(1), true)
    );
    let cleared = call(&registry, &mut chart, "drawings_clear", json!({}));
    assert_eq!(cleared, ToolResult::success(json!(1), true));
    assert!(chart.drawings.is_empty());
}

#[test]
fn a_read_only_tool_never_reports_a_change_and_unchanged_never_does() {
    let registry = registry();
    let mut chart = Chart::default();
    call(&registry, &mut chart, "drawing_add", json!({}));
    assert_eq!(
        call(&registry, &mut chart, "drawings_any", json!({})),
        ToolResult::success(json!(true), false)
    );
    assert_eq!(
        call(&registry, &mut chart, "drawings_recount", json!({})),
        ToolResult::success(json!(1), false)
    );
}
