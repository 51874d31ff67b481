use toolwright_runtime::{ToolDef, tool_def};

fn panes_list() {}

fn main() {
    let _: ToolDef<()> = tool_def!(panes_list);
    panes_list();
}
