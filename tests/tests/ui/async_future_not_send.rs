use std::rc::Rc;

use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

async fn fetch() {}

/// Searches the web.
#[tool(safety = "read-only", mode = "parallel")]
async fn web_search(_input: Args) -> Result<usize, ToolError> {
    let shared = Rc::new(1);
    fetch().await;
    Ok(*shared)
}

fn main() {}
