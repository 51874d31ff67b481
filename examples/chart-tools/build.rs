//! Generates the typed inputs, error enums and frozen metadata of `tools/*.toml`.

fn main() -> Result<(), tool_manifest::build::BuildError> {
    tool_manifest::Builder::new().manifest_dir("tools").compile()?;
    Ok(())
}
