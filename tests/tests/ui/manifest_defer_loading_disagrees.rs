use toolwright_runtime::tool;

include!("support/drawing_create.rs");

struct Chart;

#[tool(manifest = tools::drawing_create, safety = "destructive", defer_loading)]
fn drawing_create(
    _chart: &Chart,
    _input: tools::drawing_create::Input,
) -> Result<(), tools::drawing_create::Error> {
    Ok(())
}

fn main() {}
