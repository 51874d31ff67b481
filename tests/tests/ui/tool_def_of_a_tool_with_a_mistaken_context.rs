use toolwright_runtime::tool_def;
use toolwright_runtime::handler::ToolDef;

use tools::*;

pub struct Chart;

mod tools {
    use toolwright_runtime::{ToolError, tool};

    use super::Chart;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Args {}

    /// Creates a drawing.
    #[tool(safety = "destructive", mode = "parallel")]
    pub fn drawing_create(chart: &mut Chart, _input: Args) -> Result<(), ToolError> {
        let _ = chart;
        Ok(())
    }
}

fn main() {
    let _: ToolDef<Chart> = tool_def!(drawing_create);
}
