use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PaneId {
    pane_id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Kind {
    kind: String,
}

/// Creates a drawing.
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_create(pane: PaneId, kind: Kind) -> Result<(), ToolError> {
    let _ = (pane.pane_id, kind.kind);
    Ok(())
}

fn main() {}
