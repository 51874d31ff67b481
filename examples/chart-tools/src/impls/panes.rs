//! `panes_list`, `pane_create`, `pane_replace_content`, `panes_clear`.

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{Chart, PaneView, PanesCleared, PanesList};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

#[tool(manifest = crate::tools::panes_list)]
pub(crate) fn panes_list(
    chart: &Chart,
    _input: tools::panes_list::Input,
) -> Result<PanesList, Failure<tools::panes_list::Error>> {
    chart.panes_list().map_err(declared)
}

#[tool(manifest = crate::tools::pane_create)]
pub(crate) fn pane_create(
    chart: &mut Chart,
    input: tools::pane_create::Input,
) -> Result<PaneView, Failure<tools::pane_create::Error>> {
    chart
        .pane_create(
            input.kind,
            input.symbol.as_deref(),
            input.interval,
            &input.indicators.unwrap_or_default(),
        )
        .map_err(declared)
}

#[tool(manifest = crate::tools::pane_replace_content)]
pub(crate) fn pane_replace_content(
    chart: &mut Chart,
    input: tools::pane_replace_content::Input,
) -> Result<Changed<PaneView>, Failure<tools::pane_replace_content::Error>> {
    let before = pane_view(chart, &input.pane_id);
    let after = chart
        .pane_replace_content(
            &input.pane_id,
            input.symbol.as_deref(),
            input.interval,
            input.indicators.as_deref(),
        )
        .map_err(declared)?;
    let changed = before.as_ref() != Some(&after);
    Ok(Changed::new(after, changed))
}

#[tool(manifest = crate::tools::panes_clear)]
pub(crate) fn panes_clear(
    chart: &mut Chart,
    _input: tools::panes_clear::Input,
) -> Result<Changed<PanesCleared>, Failure<tools::panes_clear::Error>> {
    let cleared = chart.panes_clear().map_err(declared)?;
    let changed = !cleared.removed_panes.is_empty();
    Ok(Changed::new(cleared, changed))
}

/// The pane as `panes_list` shows it, if it exists.
fn pane_view(chart: &Chart, pane_id: &str) -> Option<PaneView> {
    chart
        .panes_list()
        .ok()?
        .panes
        .into_iter()
        .find(|p| p.id == pane_id)
}
