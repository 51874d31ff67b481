use toolwright_runtime::{ToolError, tool};

#[derive(schemars::JsonSchema)]
struct Args {
    pane_id: String,
}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(input: Args) -> Result<(), ToolError> {
    let _ = input.pane_id;
    Ok(())
}

fn main() {}
