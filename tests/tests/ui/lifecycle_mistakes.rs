use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Draws a line.
#[tool(
    safety = "destructive",
    mode = "sequential",
    version = "2.1",
    deprecated(since = "3.0.0", sunset = "2027-02-29", replacement = "drawing_line")
)]
fn drawing_line(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Draws a line, deprecated since a version after its own.
#[tool(
    safety = "destructive",
    mode = "sequential",
    version = "1.0.0",
    deprecated(since = "2.0.0", replacement = "Drawing-Create")
)]
fn drawing_ray(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Draws an arrow, removed before it was deprecated.
#[tool(
    safety = "destructive",
    mode = "sequential",
    deprecated(since = "2026-06-30", sunset = "2026-01-01")
)]
fn drawing_arrow(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
