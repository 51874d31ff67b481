use toolwright_runtime::{Registry, tool, tool_defs};
use toolwright_runtime::handler::{Mode, Safety, StaticSchema, ToolMeta};

include!("support/drawing_create.rs");

/// The generator's `ALL`, with a second declared tool.
static ALL: &[&ToolMeta] = &[&tools::drawing_create::META, &DRAWING_DELETE];

static DRAWING_DELETE: ToolMeta = ToolMeta::new(
    "drawing_delete",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(r#"{"type":"object"}"#),
)
.source("tools/drawing_delete.toml");

struct Chart;

#[tool(manifest = tools::drawing_create)]
fn drawing_create(
    _chart: &mut Chart,
    _input: tools::drawing_create::Input,
) -> Result<(), tools::drawing_create::Error> {
    Ok(())
}

fn drawing_delete() {}

fn main() {
    // `drawing_delete` is a function without `#[tool]`: that is the one error.
    let _ = Registry::<Chart>::builder()
        .tools(tool_defs![ALL; drawing_create, drawing_delete])
        .build();
    drawing_delete();
}
