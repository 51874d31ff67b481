//! Generates `$OUT_DIR/tools.rs` from `tools/*.toml`.

fn main() {
    if let Err(e) = tool_manifest::Builder::new()
        .manifest_dir("tools")
        .compile()
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
