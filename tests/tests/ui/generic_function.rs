use toolwright_runtime::{ToolError, tool};

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list<T: serde::de::DeserializeOwned>(_input: T) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
