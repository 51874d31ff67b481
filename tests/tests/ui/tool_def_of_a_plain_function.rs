use toolwright_runtime::tool_def;
use toolwright_runtime::handler::ToolDef;

fn panes_list() {}

fn main() {
    let _: ToolDef<()> = tool_def!(panes_list);
    panes_list();
}
