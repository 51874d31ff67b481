use toolwright_runtime::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
fn panes_list(_input: Args) -> Vec<String> {
    Vec::new()
}

fn main() {}
