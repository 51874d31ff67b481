//! The tools of the demo chart: one `#[tool(manifest = crate::tools::<name>)]` function per
//! manifest (every one but `code_interpreter`), each converting the generated input into the
//! arguments of the [`Chart`] method of the same name.
//!
//! - Reads take `&Chart`, writes `&mut Chart`; the manifest decides which, and the attribute
//!   checks it at compile time.
//! - The inputs hold the chart's own types where a manifest's shape is one (an anchor, a style,
//!   an interval, …: see `build.rs`), so they go to the chart as they come.
//! - A [`ChartError`] becomes the code the tool declares for it, with the error's guidance as the
//!   detail ([`declared`]). A chart error the tool does not declare (the chart's methods share one
//!   error type, and some of its codes cannot happen for a given tool) becomes `TOOL_FAILED`.
//! - A write that changed nothing (clearing what is already empty, setting a value it already
//!   has) answers with `stateChanged: false` ([`toolwright_runtime::Changed`]).

use toolwright_runtime::Failure;
use toolwright_runtime::handler::ToolDef;

use crate::chart::{Chart, ChartError};

mod comparisons;
mod drawings;
mod market;
mod panes;
mod settings;
mod user;

#[cfg(test)]
mod tests;

/// Every implemented tool of the demo chart, sorted by name: every tool `tools/` declares but
/// `code_interpreter` (registered by `crate::interpreter`, with the `code-interpreter`
/// feature). A declared tool missing from the list does not compile.
pub fn tool_defs() -> Vec<ToolDef<Chart>> {
    toolwright_runtime::tool_defs![crate::tools::ALL, except &["code_interpreter"];
        user::ask_user,
        comparisons::comparison_create,
        comparisons::comparisons_clear,
        comparisons::comparisons_list,
        drawings::drawing_create,
        drawings::drawing_delete,
        drawings::drawing_update,
        drawings::drawings_clear,
        drawings::drawings_copy,
        drawings::drawings_list,
        market::indicators_query,
        market::instruments_query_name,
        market::market_bars_query,
        market::market_timeshare_query,
        market::market_timeshare_range_query,
        panes::pane_create,
        panes::pane_replace_content,
        panes::panes_clear,
        panes::panes_list,
        settings::settings_get,
        settings::settings_reset,
        settings::settings_update,
        user::web_search,
    ]
    .to_vec()
}

/// A chart error as the code the tool declares for it, with the error's guidance as the detail
/// (`E` is the tool's generated `Error`, which reads a code with `TryFrom<&str>`); a chart error
/// whose code the tool does not declare is `TOOL_FAILED`.
pub(crate) fn declared<E: TryFrom<&'static str>>(error: ChartError) -> Failure<E> {
    match E::try_from(error.code()) {
        Ok(code) => Failure::new(code).detail(error.detail()),
        Err(_) => Failure::Failed(format!(
            "unexpected chart error `{}`: {}",
            error.code(),
            error.detail()
        )),
    }
}
