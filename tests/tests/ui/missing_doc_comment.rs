use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
