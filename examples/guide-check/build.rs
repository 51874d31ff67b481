// build.rs
fn main() -> Result<(), toolwright_manifest::build::BuildError> {
    toolwright_manifest::Builder::new()
        .manifest_dir("tools")
        .compile()?;
    Ok(())
}
