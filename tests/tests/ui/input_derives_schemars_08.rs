use toolwright_runtime::{ToolError, tool};

/// The arguments, deriving `JsonSchema` of schemars 0.8 instead of 1 (the attribute names the
/// crate only because this test depends on both versions).
#[derive(serde::Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
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
