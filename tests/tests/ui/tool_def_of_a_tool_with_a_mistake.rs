use toolwright_runtime::{Registry, tool_def};

use tools::*;

struct Chart;

mod tools {
    use toolwright_runtime::{ToolError, tool};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Args {}

    /// Lists the panes.
    #[tool(saftey = "read-only", mode = "parallel")]
    pub fn panes_list(_input: Args) -> Result<Vec<String>, ToolError> {
        Ok(Vec::new())
    }
}

fn main() {
    let _ = Registry::<Chart>::builder().tool(tool_def!(panes_list)).build();
}
