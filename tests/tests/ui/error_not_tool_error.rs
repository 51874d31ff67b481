use toolwright_runtime::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(_input: Args) -> Result<Vec<String>, String> {
    Err("no chart".to_owned())
}

fn main() {}
