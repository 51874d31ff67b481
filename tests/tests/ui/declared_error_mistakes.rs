use toolwright_runtime::{DeclaredError, Failure, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    query: String,
}

/// Why the search fails.
#[derive(Debug, DeclaredError)]
enum SearchError {
    /// The search service did not answer.
    #[declared(retryable = true, recomended_action = "Retry in a minute.")]
    Unavailable,
    /// The query is too long.
    #[declared(code = "TOOL_FAILED", retryable = false, recommended_action = "Shorten it.")]
    TooLong,
    /// Not declared.
    Forgotten,
    #[declared(retryable = true, recommended_action = "Retry.")]
    NoMessage,
    /// The service is slow.
    #[declared(retryable = true, recommended_action = "Retry later.")]
    Slow,
    /// The same code twice.
    #[declared(code = "SLOW", retryable = false, recommended_action = "Retry later.")]
    Again,
}

/// Searches the web: the enum's mistakes are the only errors, nothing is added here.
#[tool(safety = "read-only", mode = "parallel")]
fn web_search(input: Args) -> Result<Vec<String>, Failure<SearchError>> {
    if input.query.is_empty() {
        return Err(Failure::new(SearchError::Unavailable));
    }
    Ok(Vec::new())
}

fn main() {}
