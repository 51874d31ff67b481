use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel", safety = "read-only")]
fn panes_list(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
