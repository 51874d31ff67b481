//! `panes_list`, `pane_create`, `pane_replace_content`, `panes_clear`.

use toolwright_runtime::tool;

use super::declared_errors;
use crate::chart::{
    Chart, ChartError, IndicatorParams, IndicatorRequest, PaneView, PanesCleared, PanesList,
};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

declared_errors!(panes_list_error: tools::panes_list::Error {});
declared_errors!(pane_create_error: tools::pane_create::Error {
    InstrumentNotFound,
    IndicatorParametersInvalid,
    PaneLimitReached,
});
declared_errors!(pane_replace_content_error: tools::pane_replace_content::Error {
    PaneNotFound,
    InstrumentNotFound,
    IndicatorParametersInvalid,
    NothingToChange,
});
declared_errors!(panes_clear_error: tools::panes_clear::Error {});

#[tool(manifest = crate::tools::panes_list)]
pub(crate) fn panes_list(
    chart: &Chart,
    _input: tools::panes_list::Input,
) -> Result<PanesList, Failure<tools::panes_list::Error>> {
    chart.panes_list().map_err(panes_list_error)
}

/// The indicator requests of a `pane_create` or `pane_replace_content` input.
macro_rules! indicator_requests {
    ($indicators:expr) => {
        $indicators
            .iter()
            .map(|i| {
                IndicatorRequest::with_params(
                    i.name.into(),
                    IndicatorParams {
                        period: i.period,
                        fast_period: i.fast_period,
                        slow_period: i.slow_period,
                        signal_period: i.signal_period,
                        std_dev: i.std_dev,
                    },
                )
            })
            .collect::<Vec<_>>()
    };
}

#[tool(manifest = crate::tools::pane_create)]
pub(crate) fn pane_create(
    chart: &mut Chart,
    input: tools::pane_create::Input,
) -> Result<PaneView, Failure<tools::pane_create::Error>> {
    let indicators = indicator_requests!(input.indicators.unwrap_or_default());
    chart
        .pane_create(
            input.kind.into(),
            input.symbol.as_deref(),
            input.interval.map(Into::into),
            &indicators,
        )
        .map_err(pane_create_error)
}

#[tool(manifest = crate::tools::pane_replace_content)]
pub(crate) fn pane_replace_content(
    chart: &mut Chart,
    input: tools::pane_replace_content::Input,
) -> Result<Changed<PaneView>, Failure<tools::pane_replace_content::Error>> {
    let before = pane_view(chart, &input.pane_id);
    let indicators = input.indicators.map(|list| indicator_requests!(list));
    let after = chart
        .pane_replace_content(
            &input.pane_id,
            input.symbol.as_deref(),
            input.interval.map(Into::into),
            indicators.as_deref(),
        )
        .map_err(pane_replace_content_error)?;
    let changed = before.as_ref() != Some(&after);
    Ok(Changed::new(after, changed))
}

#[tool(manifest = crate::tools::panes_clear)]
pub(crate) fn panes_clear(
    chart: &mut Chart,
    _input: tools::panes_clear::Input,
) -> Result<Changed<PanesCleared>, Failure<tools::panes_clear::Error>> {
    let cleared = chart.panes_clear().map_err(panes_clear_error)?;
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
