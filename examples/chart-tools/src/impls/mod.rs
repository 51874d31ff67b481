//! The tools of the demo chart: one `#[tool(manifest = crate::tools::<name>)]` function per
//! manifest (every one but `code_interpreter`), each converting the generated input into the
//! arguments of the [`Chart`](crate::chart::Chart) method of the same name.
//!
//! - Reads take `&Chart`, writes `&mut Chart`; the manifest decides which, and the attribute
//!   checks it at compile time.
//! - A [`ChartError`] becomes the code the tool declares for it, with the error's guidance as the
//!   detail. A chart error the tool does not declare (the chart's methods share one error type,
//!   and some of its codes cannot happen for a given tool) becomes `TOOL_FAILED`.
//! - A write that changed nothing (clearing what is already empty, setting a value it already
//!   has) answers with `stateChanged: false` ([`tool_runtime::Changed`]).

use tool_runtime::{Fault, ToolDef};

use crate::chart::{Chart, ChartError};

mod comparisons;
mod drawings;
mod market;
mod panes;
mod settings;
mod user;
mod words;

#[cfg(test)]
mod tests;

/// Every implemented tool of the demo chart, sorted by name.
pub fn tool_defs() -> Vec<ToolDef<Chart>> {
    use tool_runtime::tool_def;
    vec![
        tool_def!(user::ask_user),
        tool_def!(comparisons::comparison_create),
        tool_def!(comparisons::comparisons_clear),
        tool_def!(comparisons::comparisons_list),
        tool_def!(drawings::drawing_create),
        tool_def!(drawings::drawing_delete),
        tool_def!(drawings::drawing_update),
        tool_def!(drawings::drawings_clear),
        tool_def!(drawings::drawings_copy),
        tool_def!(drawings::drawings_list),
        tool_def!(market::indicators_query),
        tool_def!(market::instruments_query_name),
        tool_def!(market::market_bars_query),
        tool_def!(market::market_timeshare_query),
        tool_def!(market::market_timeshare_range_query),
        tool_def!(panes::pane_create),
        tool_def!(panes::pane_replace_content),
        tool_def!(panes::panes_clear),
        tool_def!(panes::panes_list),
        tool_def!(settings::settings_get),
        tool_def!(settings::settings_reset),
        tool_def!(settings::settings_update),
        tool_def!(user::web_search),
    ]
}

/// Writes `fn $name(ChartError) -> Fault<$error>`: each listed variant of [`ChartError`] becomes
/// the variant of the same name of the tool's generated error enum, with the chart error's
/// guidance as the detail; every other variant is a chart error the tool does not declare, which
/// the registry reports as `TOOL_FAILED`.
macro_rules! declared_errors {
    ($name:ident: $error:ty {}) => {
        pub(crate) fn $name(error: ChartError) -> ::tool_runtime::Fault<$error> {
            $crate::impls::undeclared(&error)
        }
    };
    ($name:ident: $error:ty { $($variant:ident),+ $(,)? }) => {
        pub(crate) fn $name(error: ChartError) -> ::tool_runtime::Fault<$error> {
            type Declared = $error;
            let code = match error {
                $(ChartError::$variant { .. } => Declared::$variant,)+
                #[allow(unreachable_patterns)]
                other => return $crate::impls::undeclared(&other),
            };
            ::tool_runtime::Failure::new(code).detail(error.detail()).into()
        }
    };
}
pub(crate) use declared_errors;

/// A chart error whose code the tool does not declare: `TOOL_FAILED`.
pub(crate) fn undeclared<E>(error: &ChartError) -> Fault<E> {
    Fault::Failed(format!(
        "unexpected chart error `{}`: {}",
        error.code(),
        error.detail()
    ))
}
