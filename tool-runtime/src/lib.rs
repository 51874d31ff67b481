//! The runtime registry: it enforces what each tool declared.
//!
//! A host builds one [`Registry`] from its tools (`#[tool]` functions, or definitions written by
//! hand: [`handler`]). [`tool_defs!`] lists a crate's `#[tool]` functions and checks at compile
//! time that every tool the generator's list of declared manifest tools holds has an
//! implementation (`tool_defs![tools::ALL; panes_list, drawing_create]`). Each run has a
//! [`RunPolicy`]:
//!
//! 1. [`Registry::resolve`] lists the tools of the run: a read-only run drops every tool that is
//!    not `read-only`, disabled tools are dropped.
//! 2. [`Registry::execute`] checks the policy again for every call (`TOOL_NOT_ALLOWED`, nothing
//!    runs), checks the arguments against the registry's [`limits`] (depth and size, measured
//!    without recursion), validates them against the schema compiled at build time
//!    (`TOOL_INPUT_INVALID` with a short report), asks the policy's approver about valid calls
//!    to destructive tools ([`approval`]), and only then calls the tool. Every outcome is a
//!    [`ToolResult`] envelope, returned as data. Every way a call arrives takes this one path
//!    ([`call`]).
//! 3. [`Registry::execute_batch`] runs the calls of one model message: concurrently, sharing
//!    `&C`, when every tool is `parallel`; one at a time in order, each with `&mut C`, when any is
//!    `sequential`. One result per call, in call order; panics and timeouts stay in their call.
//!    [`Registry::run_batch`] does the same but pauses on calls the approver defers, and
//!    [`Registry::resume_batch`] runs them once a person decided ([`batch`]).
//!
//! The [`provider`] adapters read the calls out of an OpenAI, Anthropic or Gemini response and
//! write the results back in the provider's shape.
//!
//! What the model sees is always an envelope, `{"success":true,"data":…,"stateChanged":…}` or
//! `{"success":false,"error":{"code","message","retryable","recommendedAction"},"stateChanged":…}`.
//! `stateChanged` is false for refusals, invalid input and declared domain errors, and for
//! read-only tools; a destructive tool's success reports a change unless it answers
//! [`Unchanged`] or a [`Changed`] whose `changed` is false; a destructive tool that panicked,
//! timed out or failed without a declared code reports one (it may have changed state
//! half-way). The table is in [`tool`](mod@tool). Invalid input is reported as `The tool input
//! is invalid: <pointer>: <message>; …` with at most five errors, then `; … and N more` (see
//! [`validate`]).
//!
//! A tool may declare its time limit and the budget of its output (`timeout`,
//! `max_output_bytes`): the declaration replaces the registry's default for that tool, a host may
//! lower it and never raise it ([`RegistryBuilder`]), and a success whose `data` is over the
//! budget is answered `TOOL_FAILED`, retryable, asking for a narrower request. A success whose
//! `data` breaks the tool's declared output schema is `TOOL_FAILED` too.
//!
//! Every call gets a `tracing` span, `execute_tool`, in the OpenTelemetry GenAI conventions, and
//! the calls of a message an `execute_batch` span around them ([`trace`]); the library installs
//! no subscriber.
//!
//! [`settings::ToolSettings`] persists the tools a user switched off.
//!
//! [`search::ToolIndex`] ranks tools for a query (BM25), for the `tool_search` tool.
//!
//! The guide, from `Cargo.toml` to a served registry (manifests, code-first tools, the runtime,
//! providers and approvals, the command line, MCP servers), is the [`guide`] module.
//!
//! ```
//! use serde_json::json;
//! use toolwright_runtime::{NoArgs, Registry, RunPolicy, ToolError, tool, tool_defs};
//!
//! /// Lists the chart's panes.
//! #[tool(safety = "read-only", mode = "parallel")]
//! fn panes_list(panes: &Vec<String>, _input: NoArgs) -> Result<Vec<String>, ToolError> {
//!     Ok(panes.clone())
//! }
//!
//! /// Removes every pane.
//! #[tool(safety = "destructive", mode = "sequential")]
//! fn panes_clear(panes: &mut Vec<String>, _input: NoArgs) -> Result<usize, ToolError> {
//!     let removed = panes.len();
//!     panes.clear();
//!     Ok(removed)
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::builder().tools(tool_defs![panes_list, panes_clear]).build()?;
//! let mut panes = vec!["main".to_owned()];
//! let policy = RunPolicy::read_only();
//! let offered: Vec<&str> = registry.resolve(&policy).iter().map(|meta| meta.name).collect();
//! assert_eq!(offered, ["panes_list"]);
//! let listed = registry.execute(&policy, &mut panes, "panes_list", &json!({})).await;
//! assert_eq!(serde_json::to_string(&listed)?, r#"{"success":true,"data":["main"],"stateChanged":false}"#);
//! let cleared = registry.execute(&policy, &mut panes, "panes_clear", &json!({})).await;
//! assert_eq!(cleared.code(), Some("TOOL_NOT_ALLOWED")); // a write in a read-only run never runs
//! assert_eq!(panes, ["main"]);
//! # Ok(())
//! # }
//! ```

// The README's examples run as doctests, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Where the links between the guide's chapters go in rustdoc. A chapter links to another by a
/// reference (`[Manifests][manifest.md]`) that its own file defines as the mdBook page
/// (`[manifest.md]: manifest.md`); these definitions come first in each chapter's docs, and the
/// first definition of a label is the one Markdown uses. Only rustdoc's pages have the guide:
/// its snippets run as the doctests of `guide-check`, against that crate's generated tools.
#[cfg(all(doc, not(doctest)))]
macro_rules! guide_links {
    () => {
        "[getting-started.md]: crate::guide::getting_started\n\
         [getting-started.md#a-tool-without-declared-errors]: crate::guide::getting_started#a-tool-without-declared-errors\n\
         [manifest.md]: crate::guide::manifests\n\
         [manifest.md#keys]: crate::guide::manifests#keys\n\
         [manifest.md#nested-type-names]: crate::guide::manifests#nested-type-names\n\
         [code-first.md]: crate::guide::code_first\n\
         [code-first.md#what-statechanged-says]: crate::guide::code_first#what-statechanged-says\n\
         [runtime.md]: crate::guide::runtime\n\
         [runtime.md#reading-a-toolresult]: crate::guide::runtime#reading-a-toolresult\n\
         [runtime.md#time-limits-and-output-budgets]: crate::guide::runtime#time-limits-and-output-budgets\n\
         [providers.md]: crate::guide::providers\n\
         [providers.md#deferred-approvals]: crate::guide::providers#deferred-approvals\n\
         [providers.md#offering-the-tools]: crate::guide::providers#offering-the-tools\n\
         [cli.md]: crate::guide::command_line\n\
         [lifecycle.md]: crate::guide::lifecycle\n\
         [mcp.md]: crate::guide::mcp_servers\n\
         [pinned.md]: crate::guide::pinned_servers\n\
         [many-tools.md]: crate::guide::many_tools\n\n"
    };
}

#[cfg(all(doc, not(doctest)))]
#[doc = guide_links!()]
/// The guide: from `Cargo.toml` to a served registry, chapter by chapter (the same text as the
/// guide's mdBook).
///
#[doc = include_str!("../guide/README.md")]
pub mod guide;

pub mod approval;
pub mod batch;
pub mod call;
pub mod envelope;
pub mod handler;
pub mod limits;
#[cfg(feature = "lines")]
pub mod lines;
pub mod policy;
pub mod provider;
mod refusal;
pub mod registry;
pub mod search;
pub mod settings;
pub mod tool;
mod tool_call;
pub mod trace;
pub mod validate;

pub use envelope::ToolResult;
pub use policy::RunPolicy;
pub use registry::{Registry, RegistryBuilder};
pub use tool::{Changed, DeclaredError, Failure, NoArgs, ToolError, Unchanged};
pub use tool_call::ToolCall;
pub use toolwright_macros::{DeclaredError, tool, tool_def, tool_defs};

#[doc(hidden)]
pub mod __private;
