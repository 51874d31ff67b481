//! `web_search` (the chart's offline index) and `ask_user` (the host's callback).

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{Chart, SearchResults, UserAnswer};
use crate::tools;
use toolwright_runtime::Failure;

#[tool(manifest = crate::tools::web_search)]
pub(crate) fn web_search(
    chart: &Chart,
    input: tools::web_search::Input,
) -> Result<SearchResults, Failure<tools::web_search::Error>> {
    chart
        .web_search(&input.query, input.limit)
        .map_err(declared)
}

#[tool(manifest = crate::tools::ask_user)]
pub(crate) fn ask_user(
    chart: &Chart,
    input: tools::ask_user::Input,
) -> Result<UserAnswer, Failure<tools::ask_user::Error>> {
    chart
        .ask_user(&input.question, &input.options.unwrap_or_default())
        .map_err(declared)
}
