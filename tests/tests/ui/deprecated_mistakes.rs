use toolwright_runtime::{ToolError, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Draws a line.
#[tool(
    safety = "destructive",
    mode = "sequential",
    deprecated(sinse = "2.0.0", until = "2027-01-31", note = 3)
)]
fn drawing_line(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Draws a ray.
#[tool(
    safety = "destructive",
    mode = "sequential",
    deprecated(note = "Gone.", note = "Twice.")
)]
fn drawing_ray(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

/// Draws an arrow.
#[tool(safety = "destructive", mode = "sequential", deprecated = "2.0.0", version = 2)]
fn drawing_arrow(_input: Args) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
