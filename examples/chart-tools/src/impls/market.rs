//! `indicators_query`, `instruments_query_name`, `market_bars_query`, `market_timeshare_query`,
//! `market_timeshare_range_query`.

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{BarsQuery, Chart, IndicatorsQuery, InstrumentMatches, Timeshare};
use crate::tools;
use toolwright_runtime::Failure;

#[tool(manifest = crate::tools::indicators_query)]
pub(crate) fn indicators_query(
    chart: &Chart,
    input: tools::indicators_query::Input,
) -> Result<IndicatorsQuery, Failure<tools::indicators_query::Error>> {
    chart
        .indicators_query(&input.pane_id, input.name, input.limit)
        .map_err(declared)
}

#[tool(manifest = crate::tools::instruments_query_name)]
pub(crate) fn instruments_query_name(
    chart: &Chart,
    input: tools::instruments_query_name::Input,
) -> Result<InstrumentMatches, tools::instruments_query_name::Error> {
    Ok(chart.instruments_query_name(&input.query, input.limit))
}

#[tool(manifest = crate::tools::market_bars_query)]
pub(crate) fn market_bars_query(
    chart: &Chart,
    input: tools::market_bars_query::Input,
) -> Result<BarsQuery, Failure<tools::market_bars_query::Error>> {
    chart
        .market_bars_query(
            &input.symbol,
            input.interval,
            input.from,
            input.to,
            input.limit,
        )
        .map_err(declared)
}

#[tool(manifest = crate::tools::market_timeshare_query)]
pub(crate) fn market_timeshare_query(
    chart: &Chart,
    input: tools::market_timeshare_query::Input,
) -> Result<Timeshare, Failure<tools::market_timeshare_query::Error>> {
    chart
        .market_timeshare_query(&input.symbol)
        .map_err(declared)
}

#[tool(manifest = crate::tools::market_timeshare_range_query)]
pub(crate) fn market_timeshare_range_query(
    chart: &Chart,
    input: tools::market_timeshare_range_query::Input,
) -> Result<Timeshare, Failure<tools::market_timeshare_range_query::Error>> {
    chart
        .market_timeshare_range_query(&input.symbol, input.from, input.to)
        .map_err(declared)
}
