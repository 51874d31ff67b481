use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Lists the panes.
#[tool]
fn panes_list(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Clears the panes.
#[tool(safety = "destructive")]
fn panes_clear(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
