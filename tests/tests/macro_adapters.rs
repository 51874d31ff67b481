//! The adapters `#[tool]` emits, called through `ToolDef::handler` as the registry calls them.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    CallResult, ErrorMeta, ErrorSpec, Handler, Mode, Safety, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{
    Changed, DeclaredError, Failure, NoArgs, Registry, RunPolicy, ToolError, Unchanged, tool,
    tool_def, tool_defs,
};

#[derive(Debug, Default)]
struct Chart {
    panes: Vec<String>,
}

/// A pane to create.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct PaneArgs {
    /// The pane's ID.
    pane_id: String,
}

#[derive(Serialize)]
struct Panes {
    panes: Vec<String>,
}

/// Lists the panes of the chart.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(chart: &Chart, _input: NoArgs) -> Result<Panes, ToolError> {
    Ok(Panes {
        panes: chart.panes.clone(),
    })
}

/// Creates a pane.
///
/// Creating a pane that exists changes nothing.
#[tool(
    safety = "destructive",
    mode = "sequential",
    title = "Create a pane",
    category = "panes",
    idempotent = true,
    open_world = false,
    timeout = "2s",
    max_output_bytes = 512
)]
fn pane_create(input: PaneArgs, chart: &mut Chart) -> Result<Unchanged<bool>, ToolError> {
    if input.pane_id.is_empty() {
        return Err(ToolError::failed("the pane ID is empty"));
    }
    if chart.panes.contains(&input.pane_id) {
        return Ok(Unchanged(false));
    }
    chart.panes.push(input.pane_id);
    Ok(Unchanged(true))
}

/// Removes every pane.
#[tool(safety = "destructive", mode = "sequential")]
async fn panes_clear(chart: &mut Chart, _input: NoArgs) -> Result<usize, ToolError> {
    tokio::task::yield_now().await;
    let removed = chart.panes.len();
    chart.panes.clear();
    Ok(removed)
}

/// Searches the web.
#[tool(safety = "read-only", mode = "parallel", name = "web_search")]
async fn search(input: PaneArgs) -> Result<Vec<String>, ToolError> {
    tokio::task::yield_now().await;
    Ok(vec![format!("results for {}", input.pane_id)])
}

/// Why `pane_find` fails: its declared errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DeclaredError)]
enum LookupError {
    /// The pane does not exist.
    #[declared(
        retryable = true,
        recommended_action = "Call `panes_list` and retry with one of its IDs."
    )]
    PaneNotFound,
    /// With data, and the code and message written in the attribute.
    #[declared(
        code = "CHART_CLOSED",
        message = "No chart is open.",
        retryable = false,
        recommended_action = "Open a chart first."
    )]
    Closed {
        /// Since when, in seconds.
        since: u32,
    },
}

/// Finds a pane.
#[tool(safety = "read-only", mode = "parallel")]
fn pane_find(chart: &Chart, input: PaneArgs) -> Result<String, Failure<LookupError>> {
    chart
        .panes
        .iter()
        .find(|pane| **pane == input.pane_id)
        .cloned()
        .ok_or_else(|| {
            Failure::new(LookupError::PaneNotFound)
                .detail(format!("valid pane IDs: {}", chart.panes.join(", ")))
        })
}

/// Checks that a chart is open: fails with the enum itself.
#[tool(safety = "read-only", mode = "parallel")]
fn chart_check(_input: NoArgs) -> Result<(), LookupError> {
    Err(LookupError::Closed { since: 3 })
}

/// Reads a file: an error `ToolError` has no `From` for, converted as the compiler's note says.
#[tool(safety = "read-only", mode = "parallel")]
fn file_read(input: PaneArgs) -> Result<String, ToolError> {
    let text = std::fs::read_to_string(&input.pane_id).map_err(ToolError::failed)?;
    Ok(text)
}

/// A module of the shape the generator writes for a manifest tool.
mod tools {
    pub mod drawing_create {
        #[derive(
            Debug,
            Clone,
            PartialEq,
            ::toolwright_runtime::__private::serde::Deserialize,
            ::toolwright_runtime::__private::schemars::JsonSchema,
        )]
        #[serde(crate = "::toolwright_runtime::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolwright_runtime::__private::schemars")]
        pub struct Input {
            pub pane_id: String,
        }

        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Error {
            PaneNotFound,
        }

        impl ::toolwright_runtime::DeclaredError for Error {
            const ERRORS: &'static [::toolwright_runtime::handler::ErrorMeta] = META.errors;

            fn code(&self) -> &'static str {
                match self {
                    Error::PaneNotFound => "PANE_NOT_FOUND",
                }
            }
        }

        pub static META: ::toolwright_runtime::handler::ToolMeta = ::toolwright_runtime::handler::ToolMeta::new(
    "drawing_create",
    ::toolwright_runtime::handler::Safety::Destructive,
    ::toolwright_runtime::handler::Mode::Sequential,
    ::toolwright_runtime::handler::StaticSchema::Json(
                r#"{"additionalProperties":false,"properties":{"pane_id":{"type":"string"}},"required":["pane_id"],"type":"object"}"#,
            ),
)
.title("Create a drawing")
.description("Draws on a pane.")
.category("drawings")
.errors(&[::toolwright_runtime::handler::ErrorMeta::new("PANE_NOT_FOUND", "The pane does not exist.", true, "List the panes and use one of their IDs.")])
.source("tools/drawing_create.toml");
    }

    pub mod drawings_list {
        #[derive(
            Debug,
            Clone,
            PartialEq,
            ::toolwright_runtime::__private::serde::Deserialize,
            ::toolwright_runtime::__private::schemars::JsonSchema,
        )]
        #[serde(crate = "::toolwright_runtime::__private::serde")]
        #[schemars(crate = "::toolwright_runtime::__private::schemars")]
        pub struct Input {}

        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Error {}

        impl ::toolwright_runtime::DeclaredError for Error {
            const ERRORS: &'static [::toolwright_runtime::handler::ErrorMeta] = META.errors;

            fn code(&self) -> &'static str {
                match *self {}
            }
        }

        pub static META: ::toolwright_runtime::handler::ToolMeta =
            ::toolwright_runtime::handler::ToolMeta::new(
                "drawings_list",
                ::toolwright_runtime::handler::Safety::ReadOnly,
                ::toolwright_runtime::handler::Mode::Parallel,
                ::toolwright_runtime::handler::StaticSchema::Json(r#"{"type":"object"}"#),
            )
            .title("List drawings")
            .description("Lists the drawings.")
            .category("drawings")
            .source("tools/drawings_list.toml");
    }
}

/// Draws on a pane (the manifest's description is the one the model sees).
#[tool(manifest = tools::drawing_create, safety = "destructive", mode = "sequential")]
fn drawing_create(
    chart: &mut Chart,
    input: tools::drawing_create::Input,
) -> Result<String, Failure<tools::drawing_create::Error>> {
    if !chart.panes.contains(&input.pane_id) {
        return Err(
            Failure::new(tools::drawing_create::Error::PaneNotFound).detail("valid pane IDs: main")
        );
    }
    Ok(format!("drawn on {}", input.pane_id))
}

#[tool(manifest = crate::tools::drawings_list)]
async fn drawings_list(
    _input: tools::drawings_list::Input,
    chart: &Chart,
) -> Result<Vec<String>, tools::drawings_list::Error> {
    tokio::task::yield_now().await;
    Ok(chart
        .panes
        .iter()
        .map(|pane| format!("drawing on {pane}"))
        .collect())
}

fn block_on(future: toolwright_runtime::handler::BoxFuture<'_, CallResult>) -> CallResult {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

fn call_shared<C>(def: ToolDef<C>, context: &C, args: Value) -> CallResult {
    match def.handler {
        Handler::Shared(f) => block_on(f(context, &args)),
        Handler::Named(f) => block_on(f(context, def.meta, &args)),
        Handler::Exclusive(_) => panic!("`{}` should take the context shared", def.meta.name),
    }
}

fn call_exclusive<C>(def: ToolDef<C>, context: &mut C, args: Value) -> CallResult {
    match def.handler {
        Handler::Exclusive(f) => block_on(f(context, &args)),
        Handler::Shared(_) | Handler::Named(_) => {
            panic!("`{}` should take the context exclusively", def.meta.name)
        }
    }
}

fn chart() -> Chart {
    Chart {
        panes: vec!["main".to_owned(), "lower".to_owned()],
    }
}

#[test]
fn a_sync_read_only_tool_reports_no_change() {
    let def: ToolDef<Chart> = tool_def!(panes_list);
    let output = call_shared(def, &chart(), json!({})).expect("panes_list succeeds");
    assert_eq!(
        output,
        ToolOutput {
            data: json!({"panes": ["main", "lower"]}).into(),
            state_changed: false
        }
    );
}

#[test]
fn a_sync_destructive_tool_gets_the_context_to_itself() {
    let mut chart = chart();
    let def: ToolDef<Chart> = tool_def!(pane_create);
    let output = call_exclusive(def, &mut chart, json!({"pane_id": "third"})).expect("created");
    // `Unchanged` marks even a change as unchanged: the tool decides.
    assert_eq!(
        output,
        ToolOutput {
            data: json!(true).into(),
            state_changed: false
        }
    );
    assert_eq!(chart.panes, ["main", "lower", "third"]);
    let error = call_exclusive(def, &mut chart, json!({"pane_id": ""})).expect_err("empty id");
    assert_eq!(error, ToolError::Failed("the pane ID is empty".to_owned()));
}

#[test]
fn arguments_that_do_not_deserialize_are_input_errors_and_nothing_runs() {
    let mut chart = chart();
    let error = call_exclusive(tool_def!(pane_create), &mut chart, json!({"pane_id": 7}))
        .expect_err("not a string");
    let ToolError::Input(message) = error else {
        panic!("expected an input error, got {error:?}")
    };
    assert!(
        message.contains("invalid type: integer `7`, expected a string"),
        "{message}"
    );
    assert_eq!(chart.panes, ["main", "lower"]);
    let error = call_exclusive(tool_def!(pane_create), &mut chart, json!({"pane": "x"}))
        .expect_err("unknown field");
    assert!(
        matches!(error, ToolError::Input(ref m) if m.contains("unknown field `pane`")),
        "{error:?}"
    );
}

#[test]
fn an_async_tool_with_exclusive_context_runs_to_completion() {
    let mut chart = chart();
    let output = call_exclusive(tool_def!(panes_clear), &mut chart, json!({})).expect("cleared");
    assert_eq!(
        output,
        ToolOutput {
            data: json!(2).into(),
            state_changed: true
        }
    );
    assert!(chart.panes.is_empty());
}

#[test]
fn a_tool_without_context_works_with_any_context_type() {
    let with_chart: ToolDef<Chart> = tool_def!(search);
    let with_unit: ToolDef<()> = tool_def!(search);
    assert_eq!(with_chart.meta.name, "web_search");
    let expected = ToolOutput {
        data: json!(["results for rust"]).into(),
        state_changed: false,
    };
    assert_eq!(
        call_shared(with_chart, &chart(), json!({"pane_id": "rust"})),
        Ok(expected.clone())
    );
    assert_eq!(
        call_shared(with_unit, &(), json!({"pane_id": "rust"})),
        Ok(expected)
    );
}

#[test]
fn declared_errors_carry_their_code_and_guidance() {
    let error = call_shared(tool_def!(pane_find), &chart(), json!({"pane_id": "upper"}))
        .expect_err("no such pane");
    assert_eq!(
        error,
        ToolError::Declared {
            code: "PANE_NOT_FOUND",
            detail: Some("valid pane IDs: main, lower".to_owned())
        }
    );
}

/// The declared errors a code-first tool's metadata holds, as a manifest's `[[errors]]`.
fn lookup_errors() -> [ErrorMeta; 2] {
    [
        ErrorMeta::new(
            "PANE_NOT_FOUND",
            "The pane does not exist.",
            true,
            "Call `panes_list` and retry with one of its IDs.",
        ),
        ErrorMeta::new(
            "CHART_CLOSED",
            "No chart is open.",
            false,
            "Open a chart first.",
        ),
    ]
}

#[test]
fn a_derived_enum_declares_each_code_once_for_code_and_metadata() {
    assert_eq!(LookupError::ERRORS, lookup_errors());
    assert_eq!(LookupError::Closed { since: 3 }.code(), "CHART_CLOSED");
    let meta = tool_def!(pane_find).meta;
    assert_eq!(
        meta.errors,
        lookup_errors(),
        "the tool declares its enum's codes"
    );
    let no_codes: ToolDef<Chart> = tool_def!(panes_list);
    assert!(no_codes.meta.errors.is_empty(), "`ToolError` declares none");
}

#[test]
fn a_tool_fails_with_its_declared_enum_itself_or_any_error_as_tool_failed() {
    let check: ToolDef<()> = tool_def!(chart_check);
    assert_eq!(check.meta.errors, lookup_errors());
    assert_eq!(
        call_shared(check, &(), json!({})),
        Err(ToolError::Declared {
            code: "CHART_CLOSED",
            detail: None
        })
    );
    let read: ToolDef<()> = tool_def!(file_read);
    let error = call_shared(read, &(), json!({"pane_id": "no/such/file"})).expect_err("no file");
    assert!(matches!(error, ToolError::Failed(_)), "{error:?}");
}

#[test]
fn a_code_first_tool_answers_its_declared_errors_and_its_docs_list_them() {
    let registry = Registry::<Chart>::builder()
        .tools(tool_defs![pane_find, panes_list])
        .build()
        .expect("valid tools");
    let mut chart = chart();
    let result = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(registry.execute(
            &RunPolicy::full(),
            &mut chart,
            "pane_find",
            &json!({"pane_id": "upper"}),
        ));
    assert_eq!(
        serde_json::to_string(&result).expect("json"),
        r#"{"success":false,"error":{"code":"PANE_NOT_FOUND","message":"The pane does not exist. valid pane IDs: main, lower","retryable":true,"recommendedAction":"Call `panes_list` and retry with one of its IDs."},"stateChanged":false}"#
    );

    let specs = registry.specs();
    let spec = specs
        .iter()
        .find(|spec| spec.name == "pane_find")
        .expect("pane_find");
    assert_eq!(
        spec.errors,
        lookup_errors().map(|e| ErrorSpec::new(
            e.code,
            e.message,
            e.retryable,
            e.recommended_action
        ))
    );
    let docs = toolwright_manifest::docs::render(&specs);
    let page = docs
        .iter()
        .find(|(path, _)| path.contains("pane_find"))
        .map(|(_, page)| page.as_str())
        .expect("a page for pane_find");
    assert!(
        page.contains("| `CHART_CLOSED` | No chart is open. | no | Open a chart first. |"),
        "{page}"
    );
}

#[test]
fn code_first_metadata_comes_from_the_attribute_and_the_doc_comment() {
    let def: ToolDef<Chart> = tool_def!(pane_create);
    let meta = def.meta;
    assert_eq!(meta.name, "pane_create");
    assert_eq!(meta.title, "Create a pane");
    assert_eq!(
        meta.description,
        "Creates a pane.\n\nCreating a pane that exists changes nothing."
    );
    assert_eq!(
        (meta.safety, meta.mode),
        (Safety::Destructive, Mode::Sequential)
    );
    assert_eq!(meta.category, Some("panes"));
    assert_eq!(
        (meta.idempotent, meta.open_world),
        (Some(true), Some(false))
    );
    assert_eq!(meta.source, "macro_adapters::pane_create");
    assert!(meta.errors.is_empty() && meta.examples.is_empty() && meta.output_schema.is_none());
    assert_eq!(
        (meta.timeout_ms, meta.max_output_bytes),
        (Some(2_000), Some(512))
    );

    let list: ToolDef<Chart> = tool_def!(panes_list);
    assert_eq!(
        list.meta.title, "Panes list",
        "the default title is the name, humanized"
    );
    assert_eq!(
        (list.safety(), list.mode()),
        (Safety::ReadOnly, Mode::Parallel)
    );
    assert_eq!(list.meta.category, None);
    assert_eq!(
        (list.meta.idempotent, list.meta.open_world),
        (None, None),
        "hints not declared are not guessed"
    );
    assert_eq!(
        (list.meta.timeout_ms, list.meta.max_output_bytes),
        (None, None)
    );
}

#[test]
fn a_manifest_bound_tool_uses_the_generated_metadata() {
    let def: ToolDef<Chart> = tool_def!(drawing_create);
    assert!(std::ptr::eq(def.meta, &tools::drawing_create::META));
    let mut chart = chart();
    let output = call_exclusive(def, &mut chart, json!({"pane_id": "main"})).expect("drawn");
    assert_eq!(
        output,
        ToolOutput {
            data: json!("drawn on main").into(),
            state_changed: true
        }
    );
    let error =
        call_exclusive(def, &mut chart, json!({"pane_id": "upper"})).expect_err("unknown pane");
    assert_eq!(
        error,
        ToolError::Declared {
            code: "PANE_NOT_FOUND",
            detail: Some("valid pane IDs: main".to_owned())
        }
    );
    let error = call_exclusive(def, &mut chart, json!({"pane_id": "main", "colour": "red"}))
        .expect_err("closed schema");
    assert!(matches!(error, ToolError::Input(_)), "{error:?}");
}

#[test]
fn an_async_manifest_bound_tool_shares_the_context() {
    let def: ToolDef<Chart> = tool_def!(drawings_list);
    assert!(std::ptr::eq(def.meta, &tools::drawings_list::META));
    let output = call_shared(def, &chart(), json!({})).expect("listed");
    assert_eq!(
        output,
        ToolOutput {
            data: json!(["drawing on main", "drawing on lower"]).into(),
            state_changed: false
        }
    );
}

/// Runs code (compiled only when the host opts in; here: outside tests).
#[tool(safety = "destructive", mode = "sequential")]
#[cfg(not(test))]
fn code_interpreter(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Reads the settings (compiled in tests).
#[tool(safety = "read-only", mode = "parallel")]
#[cfg(test)]
fn settings_get(_input: NoArgs) -> Result<&'static str, ToolError> {
    Ok("dark")
}

#[test]
fn a_cfg_below_the_attribute_applies_to_the_definition_too() {
    let output = call_shared::<()>(tool_def!(settings_get), &(), json!({})).expect("settings");
    assert_eq!(output.data, json!("dark"));
}

/// Removes a pane; removing one that is not there changes nothing.
#[tool(safety = "destructive", mode = "sequential")]
fn pane_remove(chart: &mut Chart, input: PaneArgs) -> Result<Changed<usize>, ToolError> {
    let before = chart.panes.len();
    chart.panes.retain(|pane| *pane != input.pane_id);
    Ok(Changed::new(chart.panes.len(), chart.panes.len() != before))
}

#[test]
fn a_tool_reports_at_run_time_whether_it_changed_anything() {
    let mut chart = chart();
    let def: ToolDef<Chart> = tool_def!(pane_remove);
    let removed = call_exclusive(def, &mut chart, json!({"pane_id": "lower"})).expect("removed");
    assert_eq!(
        removed,
        ToolOutput {
            data: json!(1).into(),
            state_changed: true
        }
    );
    let nothing = call_exclusive(def, &mut chart, json!({"pane_id": "lower"})).expect("no-op");
    assert_eq!(
        nothing,
        ToolOutput {
            data: json!(1).into(),
            state_changed: false
        }
    );
}

/// The declared tools of this file, as the generator's `ALL` lists them.
static ALL: &[&ToolMeta] = &[&tools::drawing_create::META, &tools::drawings_list::META];

#[test]
fn tool_defs_lists_every_tool_in_order_and_keeps_only_those_whose_cfg_holds() {
    let defs: [ToolDef<Chart>; 4] = tool_defs![ALL;
        drawing_create,
        crate::tools_elsewhere::drawings_list,
        #[cfg(not(test))]
        code_interpreter,
        #[cfg(test)]
        settings_get,
        self::pane_remove,
    ];
    let names: Vec<&str> = defs.iter().map(|def| def.meta.name).collect();
    assert_eq!(
        names,
        [
            "drawing_create",
            "drawings_list",
            "settings_get",
            "pane_remove"
        ]
    );
    // The definition is the one `tool_def!` gives.
    assert!(std::ptr::eq(defs[0].meta, tool_def!(drawing_create).meta));

    let skipped: [ToolDef<Chart>; 1] = tool_defs![ALL, except &["drawing_create"]; drawings_list];
    assert_eq!(skipped[0].meta.name, "drawings_list");
    let code_first: [ToolDef<()>; 2] = tool_defs![search, settings_get];
    assert_eq!(code_first[0].meta.name, "web_search");
}

/// Tools reached through another module, by a glob import and by `super::`.
mod tools_elsewhere {
    pub(crate) use super::drawings_list;
    use super::*;

    #[test]
    fn tool_def_takes_any_path_that_names_the_function() {
        let by_glob: ToolDef<Chart> = tool_def!(panes_list);
        let by_super: ToolDef<Chart> = tool_def!(super::panes_list);
        let by_crate: ToolDef<Chart> = tool_def!(crate::panes_list);
        let by_import: ToolDef<Chart> = tool_def!(drawings_list);
        assert!(std::ptr::eq(by_glob.meta, by_super.meta));
        assert!(std::ptr::eq(by_glob.meta, by_crate.meta));
        assert_eq!(by_import.meta.name, "drawings_list");
    }
}
