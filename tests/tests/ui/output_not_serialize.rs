use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

struct Panes;

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(_input: Args) -> Result<Panes, ToolError> {
    Ok(Panes)
}

fn main() {}
