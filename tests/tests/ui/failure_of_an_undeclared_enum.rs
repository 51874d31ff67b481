use toolwright_runtime::{Failure, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    query: String,
}

/// Why the search fails: not declared, so the model could not be told what to do.
enum SearchError {
    Unavailable,
}

/// Searches the web.
#[tool(safety = "read-only", mode = "parallel")]
fn web_search(input: Args) -> Result<Vec<String>, Failure<SearchError>> {
    if input.query.is_empty() {
        return Err(Failure::new(SearchError::Unavailable));
    }
    Ok(Vec::new())
}

fn main() {}
