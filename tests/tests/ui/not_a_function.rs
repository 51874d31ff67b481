use toolwright_runtime::tool;

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel")]
struct PanesList {
    limit: u32,
}

fn main() {}
