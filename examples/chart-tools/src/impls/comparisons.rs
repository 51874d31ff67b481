//! `comparisons_list`, `comparison_create`, `comparisons_clear`.

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{Chart, ComparisonView, ComparisonsCleared, ComparisonsList};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

#[tool(manifest = crate::tools::comparisons_list)]
pub(crate) fn comparisons_list(
    chart: &Chart,
    input: tools::comparisons_list::Input,
) -> Result<ComparisonsList, Failure<tools::comparisons_list::Error>> {
    chart
        .comparisons_list(input.pane_id.as_deref())
        .map_err(declared)
}

#[tool(manifest = crate::tools::comparison_create)]
pub(crate) fn comparison_create(
    chart: &mut Chart,
    input: tools::comparison_create::Input,
) -> Result<ComparisonView, Failure<tools::comparison_create::Error>> {
    chart
        .comparison_create(&input.symbol, input.pane_id.as_deref())
        .map_err(declared)
}

#[tool(manifest = crate::tools::comparisons_clear)]
pub(crate) fn comparisons_clear(
    chart: &mut Chart,
    input: tools::comparisons_clear::Input,
) -> Result<Changed<ComparisonsCleared>, Failure<tools::comparisons_clear::Error>> {
    let cleared = chart
        .comparisons_clear(input.pane_id.as_deref())
        .map_err(declared)?;
    let changed = !cleared.removed.is_empty();
    Ok(Changed::new(cleared, changed))
}
