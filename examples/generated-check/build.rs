//! Generates `$OUT_DIR/tools.rs` from `tools/*.toml`.
//!
//! The manifests exercise every mapping rule, some of which OpenAI's strict mode and Gemini
//! cannot express: the crate offers its tools to MCP and Anthropic, and only those are checked.
//! Some map to `serde_json::Value` on purpose (the mapping's fallbacks are cases here), so the
//! build does not warn about them.

use toolwright_manifest::dialect::Dialect;

fn main() {
    if let Err(e) = toolwright_manifest::Builder::new()
        .manifest_dir("tools")
        .providers(&[Dialect::Mcp, Dialect::Anthropic])
        .required_providers(&[Dialect::Mcp])
        .fallback_warnings(false)
        .compile()
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
