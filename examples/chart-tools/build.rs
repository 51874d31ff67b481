//! Generates the typed inputs, error enums and frozen metadata of `tools/*.toml`. Every tool
//! must be expressible for MCP, which the binary serves (as `tool-manifest.toml` requires too).

fn main() -> Result<(), toolwright_manifest::build::BuildError> {
    toolwright_manifest::Builder::new()
        .manifest_dir("tools")
        .required_providers(&[toolwright_manifest::dialect::Dialect::Mcp])
        .compile()?;
    Ok(())
}
