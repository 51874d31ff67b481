use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

struct Chart;

/// Asks the user a question.
#[tool(safety = "read-only", mode = "sequential")]
fn ask_user(_chart: &mut Chart, _input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
