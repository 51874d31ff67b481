use toolwright_runtime::tool;

include!("support/drawing_create.rs");

struct Chart;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct MyArgs {
    pane_id: String,
}

#[tool(manifest = tools::drawing_create)]
fn drawing_create(_chart: &mut Chart, input: MyArgs) -> Result<(), tools::drawing_create::Error> {
    let _ = input.pane_id;
    Ok(())
}

fn main() {}
