//! The types a tool author reaches for, through the registry: `NoArgs` for a tool without
//! arguments, `Changed` for a write that decides at run time whether it changed anything, and
//! what the registry answers for each (SPEC section 3).

use serde_json::{Value, json};
use toolwright_runtime::{
    Changed, DeclaredError, Failure, NoArgs, Registry, RunPolicy, ToolError, ToolResult, Unchanged,
    tool, tool_defs,
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

/// How `drawing_fail` fails, and `drawings_peek` too.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct FailArgs {
    /// `declared`, `undeclared`, `refused`, `failed` or `unserializable`.
    how: String,
    /// How many drawings to add first (1 unless given). Validation accepts any integer, the
    /// typed input only those of an `i64`.
    times: Option<i64>,
}

/// The codes `drawing_fail` declares.
#[derive(Debug, Clone, Copy, DeclaredError)]
enum DrawError {
    /// The chart is locked.
    #[declared(retryable = false, recommended_action = "Unlock the chart first.")]
    Locked,
}

/// What `drawing_fail` answers: a map whose keys JSON cannot write, unless it is empty.
type Unwritable = std::collections::BTreeMap<Vec<u8>, u8>;

/// Adds a drawing, then fails as told.
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_fail(chart: &mut Chart, input: FailArgs) -> Result<Unwritable, Failure<DrawError>> {
    for _ in 0..input.times.unwrap_or(1) {
        chart.drawings.push("half-written".to_owned());
    }
    fail(&input.how)
}

/// Reads the drawings, then fails as told.
#[tool(safety = "read-only", mode = "parallel")]
fn drawings_peek(input: FailArgs) -> Result<Unwritable, Failure<DrawError>> {
    fail(&input.how)
}

fn fail(how: &str) -> Result<Unwritable, Failure<DrawError>> {
    match how {
        "declared" => Err(DrawError::Locked.into()),
        "refused" => Err(Failure::NotAllowed(
            "the chart belongs to someone else".to_owned(),
        )),
        "failed" => Err(Failure::Failed("the store went away".to_owned())),
        "unserializable" => Ok(Unwritable::from([(vec![1], 1)])),
        _ => Ok(Unwritable::new()),
    }
}

/// A tool that fails with a code it does not declare (`ToolError::Declared` is public).
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_undeclared(chart: &mut Chart, _input: NoArgs) -> Result<(), ToolError> {
    chart.drawings.push("half-written".to_owned());
    Err(ToolError::Declared {
        code: "SOMETHING_ELSE",
        detail: None,
    })
}

/// The read-only twin of `drawing_undeclared`.
#[tool(safety = "read-only", mode = "parallel")]
fn drawings_undeclared(_input: NoArgs) -> Result<(), ToolError> {
    Err(ToolError::Declared {
        code: "SOMETHING_ELSE",
        detail: None,
    })
}

fn failing_registry() -> Registry<Chart> {
    Registry::builder()
        .tools(tool_defs![
            drawing_fail,
            drawings_peek,
            drawing_undeclared,
            drawings_undeclared
        ])
        .build()
        .expect("valid tools")
}

/// The `stateChanged` table of the `tool` module, row by row: a destructive tool that failed
/// after its code ran may have changed state, except where it says it did not (a declared code,
/// a refusal); what fails before its code runs changed nothing; a read-only tool never does.
#[test]
fn every_failure_says_whether_state_may_have_changed() {
    let registry = failing_registry();
    let mut chart = Chart::default();
    for (how, code, destructive_changed) in [
        ("declared", "LOCKED", false),
        ("refused", "TOOL_NOT_ALLOWED", false),
        ("failed", "TOOL_FAILED", true),
        ("unserializable", "TOOL_FAILED", true),
    ] {
        let args = json!({"how": how});
        let written = call(&registry, &mut chart, "drawing_fail", args.clone());
        assert_eq!(written.code(), Some(code), "{how}: {written:?}");
        assert_eq!(written.state_changed(), destructive_changed, "{how}");
        let read = call(&registry, &mut chart, "drawings_peek", args);
        assert_eq!(read.code(), Some(code), "{how}: {read:?}");
        assert!(
            !read.state_changed(),
            "{how}: a read-only tool changes nothing"
        );
    }
    assert_eq!(chart.drawings.len(), 4, "the tool ran each time");

    // A code the tool does not declare: `TOOL_FAILED`, after the tool ran.
    let undeclared = call(&registry, &mut chart, "drawing_undeclared", json!({}));
    assert_eq!(undeclared.code(), Some("TOOL_FAILED"));
    assert_eq!(
        undeclared.error().map(|e| e.message.as_str()),
        Some(
            "The tool `drawing_undeclared` failed with the undeclared error code `SOMETHING_ELSE`."
        )
    );
    assert!(
        undeclared.state_changed(),
        "it may have changed state half-way"
    );
    assert!(
        undeclared
            .error()
            .is_some_and(|e| e.recommended_action.contains("may have changed")),
        "{undeclared:?}"
    );
    let undeclared = call(&registry, &mut chart, "drawings_undeclared", json!({}));
    assert_eq!(undeclared.code(), Some("TOOL_FAILED"));
    assert!(!undeclared.state_changed());
    assert_eq!(chart.drawings.len(), 5);

    // Arguments the schema accepts and the typed input does not: the tool never ran.
    let too_large = call(
        &registry,
        &mut chart,
        "drawing_fail",
        json!({"how": "failed", "times": 1e19}),
    );
    assert_eq!(
        too_large.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /times: invalid value: integer `10000000000000000000`, expected i64"
        )
    );
    assert!(!too_large.state_changed());
    assert_eq!(chart.drawings.len(), 5, "the tool did not run");
}

/// Whole numbers a code-first tool reads into integer fields.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveArgs {
    by: i32,
    steps: Vec<u8>,
    limit: Option<u64>,
    offset: Offset,
    /// Kept as sent.
    note: Option<Value>,
}

#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Offset {
    dx: i16,
}

/// Moves a drawing; answers the input it read.
#[tool(safety = "read-only", mode = "parallel")]
fn drawing_move(input: MoveArgs) -> Result<MoveArgs, ToolError> {
    Ok(input)
}

/// JSON Schema counts `2.0` as an integer, so validation accepts it; the typed input of a
/// code-first tool reads it too, as it does for a manifest's generated input.
#[test]
fn integral_floats_that_validation_accepts_reach_code_first_integer_fields() {
    let registry = Registry::<Chart>::builder()
        .tools(tool_defs![drawing_move])
        .build()
        .expect("valid tools");
    let mut chart = Chart::default();
    let moved = call(
        &registry,
        &mut chart,
        "drawing_move",
        json!({"by": -2.0, "steps": [1.0, 2, 3e0], "limit": 1e3, "offset": {"dx": 4.0}, "note": 2.5}),
    );
    assert_eq!(
        moved,
        ToolResult::success(
            json!({"by": -2, "steps": [1, 2, 3], "limit": 1000, "offset": {"dx": 4}, "note": 2.5}),
            false
        )
    );
    // A call that reads as it is keeps its numbers as sent.
    let kept = call(
        &registry,
        &mut chart,
        "drawing_move",
        json!({"by": 1, "steps": [], "offset": {"dx": 0}, "note": 2.0}),
    );
    assert_eq!(
        kept,
        ToolResult::success(
            json!({"by": 1, "steps": [], "limit": null, "offset": {"dx": 0}, "note": 2.0}),
            false
        )
    );
    // Whole numbers out of the field's range are still invalid, at their pointer.
    for (args, pointer) in [
        (
            json!({"by": 1, "steps": [300.0], "offset": {"dx": 0}}),
            "/steps/0",
        ),
        (
            json!({"by": 1, "steps": [], "offset": {"dx": 1e10}}),
            "/offset/dx",
        ),
        (
            json!({"by": 1, "steps": [], "limit": -1.0, "offset": {"dx": 0}}),
            "/limit",
        ),
    ] {
        let refused = call(&registry, &mut chart, "drawing_move", args.clone());
        assert_eq!(refused.code(), Some("TOOL_INPUT_INVALID"), "{args}");
        let message = refused.error().map_or("", |e| e.message.as_str());
        assert!(
            message.starts_with(&format!("The tool input is invalid: {pointer}: ")),
            "{args}: {message}"
        );
    }
    // Beyond every integer type serde reads: the float is kept, and is what the message names.
    let refused = call(
        &registry,
        &mut chart,
        "drawing_move",
        json!({"by": 1, "steps": [], "limit": 1e20, "offset": {"dx": 0}}),
    );
    assert_eq!(
        refused.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /limit: invalid type: floating point `1e+20`, expected u64"
        )
    );
}
