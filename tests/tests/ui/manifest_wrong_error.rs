use toolwright_runtime::{ToolError, tool};

include!("support/drawing_create.rs");

struct Chart;

#[tool(manifest = tools::drawing_create)]
fn drawing_create(
    _chart: &mut Chart,
    _input: tools::drawing_create::Input,
) -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
