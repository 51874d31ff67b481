use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

struct Chart;

impl Chart {
    /// Lists the panes.
    #[tool(safety = "read-only", mode = "parallel")]
    fn panes_list(&self, _input: Args) -> Result<(), ToolError> {
        Ok(())
    }
}

fn main() {}
