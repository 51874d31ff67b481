use toolwright_runtime::{ToolError, tool};

struct Chart;

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(_chart: &Chart) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
