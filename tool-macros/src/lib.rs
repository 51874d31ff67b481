//! The `#[tool]` attribute: a tool declared once, as a function.
//!
//! Use it through `tool_runtime`, which re-exports it as `tool_runtime::tool` along with
//! `tool_runtime::tool_def!`. See the `tool_runtime` crate docs for the full guide.
//!
//! - [`macro@tool`] reads the function and its attribute (`attr.rs`, `ast.rs`), checks them
//!   together (`valid.rs`), and emits the function unchanged plus one hidden definition
//!   function (`expand.rs`). Every mistake is reported at once, each on its own tokens; with
//!   mistakes, the definition emitted beside the function is a fallback with the same name and
//!   signature whose body is `unreachable!()`, so that a `tool_def!` of the tool still resolves:
//!   one mistake gives one message.
//! - [`tool_def!`] turns the path of a `#[tool]` function into its `ToolDef`.

use proc_macro::TokenStream;

mod ast;
mod attr;
mod expand;
mod valid;

/// Declares a tool: `#[tool(safety = "read-only", mode = "parallel")]` on a function.
///
/// # Code-first tools
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use schemars::JsonSchema;
/// use tool_runtime::{ToolDef, ToolError, tool, tool_def};
///
/// struct Chart {
///     panes: Vec<String>,
/// }
///
/// /// The arguments of `pane_create`.
/// #[derive(Deserialize, JsonSchema)]
/// struct PaneArgs {
///     /// The new pane's ID.
///     pane_id: String,
/// }
///
/// /// Lists the panes of the chart.
/// #[tool(safety = "read-only", mode = "parallel")]
/// fn panes_list(chart: &Chart, _input: NoArgs) -> Result<Vec<String>, ToolError> {
///     Ok(chart.panes.clone())
/// }
///
/// /// Creates a pane.
/// #[tool(safety = "destructive", mode = "sequential", title = "Create a pane")]
/// async fn pane_create(chart: &mut Chart, input: PaneArgs) -> Result<(), ToolError> {
///     chart.panes.push(input.pane_id);
///     Ok(())
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct NoArgs {}
///
/// let tools: [ToolDef<Chart>; 2] = [tool_def!(panes_list), tool_def!(pane_create)];
/// assert_eq!(tools[1].meta.description, "Creates a pane.");
/// ```
///
/// - **Keys**: `safety` (`"read-only"` or `"destructive"`) and `mode` (`"parallel"` or
///   `"sequential"`) must both be stated: there is no default. `name` defaults to the
///   function's name, `title` to the name with `_` as spaces and a capital first letter;
///   `category` is optional.
/// - **Description**: the doc comment (common indentation removed, trimmed). A code-first tool
///   without one does not compile: the model reads it to decide when to call the tool.
/// - **Input**: the one by-value parameter. Its type derives `Deserialize` and `JsonSchema`; its
///   schemars schema (draft 2020-12, `$schema` key dropped, everything else kept) is the tool's
///   input schema. The schema's root must be an object, so use a struct.
/// - **Context**: the optional reference parameter, `&C` or `&mut C`, in any position. `&mut C`
///   only for a `destructive`, `sequential` tool: reads and parallel calls run side by side
///   sharing the context. A tool without a context works with any `C`.
/// - **Result**: `Result<T, E>` with `T: Serialize` (or `Unchanged<T>`) and `E: Into<ToolError>`
///   (`ToolError`, or `Failure<E>` of a `DeclaredError` enum). An `async fn`'s future must be
///   `Send`.
/// - **Shape**: a free, non-generic, safe function (lifetime parameters are fine).
///
/// # Manifest-bound tools
///
/// `#[tool(manifest = crate::tools::drawing_create)]` binds the function to the module the
/// generator wrote for `tools/drawing_create.toml`: the metadata is the manifest's `META`, the
/// input must be that module's `Input`, the error `Error`, `Failure<Error>` (a declared code with guidance) or `Fault<Error>` (also `TOOL_FAILED` or `TOOL_NOT_ALLOWED`). The attribute
/// may restate `safety` and `mode`; they are checked against the manifest at compile time, and
/// a disagreement is one error naming the tool, both values and the manifest file. `name`,
/// `title` and `category` come from the manifest only.
///
/// # What is emitted
///
/// The function, unchanged, and a hidden `__tool_def_<fn name>` function returning its
/// `ToolDef` (frozen metadata `static` + adapter); call it through [`tool_def!`]. With any
/// mistake, the function is emitted with every error, each on the offending tokens, and a
/// fallback `__tool_def_<fn name>` of the same signature whose body is `unreachable!()`: a
/// `tool_def!` of the tool resolves and type-checks, so it adds no error of its own (the crate
/// does not compile anyway).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// `tool_def!(path::to::tool_fn)`: the `::tool_runtime::ToolDef<C>` of a `#[tool]` function,
/// ready for the registry (`Registry::builder().tool(tool_def!(tools::panes_list))`).
///
/// `C` is the context type the function takes; for a tool without context, any `C`.
#[proc_macro]
pub fn tool_def(input: TokenStream) -> TokenStream {
    expand::tool_def(input.into()).into()
}
