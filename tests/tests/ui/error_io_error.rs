use toolwright_runtime::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    path: String,
}

/// Reads a file.
#[tool(safety = "read-only", mode = "parallel")]
fn file_read(input: Args) -> std::io::Result<String> {
    let text = std::fs::read_to_string(&input.path)?;
    Ok(text)
}

fn main() {}
