use toolwright_runtime::tool;

include!("support/drawing_create.rs");

struct Chart;

#[tool(manifest = tools::drawing_create, title = "Draw")]
fn drawing_create(
    _chart: &mut Chart,
    _input: tools::drawing_create::Input,
) -> Result<(), tools::drawing_create::Error> {
    Ok(())
}

fn main() {}
