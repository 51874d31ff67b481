use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel", defer_loading = "yes")]
fn panes_list(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Clears the panes.
#[tool(safety = "destructive", mode = "sequential", defer_loading(true))]
fn panes_clear(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
