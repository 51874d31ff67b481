use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

struct Chart;

/// Creates a drawing.
#[tool(safety = "destructive", mode = "parallel")]
fn drawing_create(chart: &mut Chart, _input: Args) -> Result<(), ToolError> {
    let _ = chart;
    Ok(())
}

fn main() {}
