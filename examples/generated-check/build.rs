//! Generates, from the manifests:
//!
//! - `$OUT_DIR/tools.rs` from `tools/*.toml`, with the default options. The manifests exercise
//!   every mapping rule, some of which OpenAI's strict mode and Gemini cannot express: the crate
//!   offers its tools to MCP and Anthropic, and only those are checked. Some map to
//!   `serde_json::Value` on purpose (the mapping's fallbacks are cases here), so the build does
//!   not warn about them.
//! - `$OUT_DIR/schemas.rs` from the same manifests, its types also deriving `JsonSchema`.
//! - `$OUT_DIR/shared.rs` from `shared/*.toml`, whose tools share shapes: those are the crate's
//!   own types (`src/lib.rs`, `shapes`).

use toolwright_manifest::Builder;
use toolwright_manifest::dialect::Dialect;

fn main() {
    let tools = || {
        Builder::new()
            .manifest_dir("tools")
            .providers(&[Dialect::Mcp, Dialect::Anthropic])
            .required_providers(&[Dialect::Mcp])
            .fallback_warnings(false)
    };
    let shared = Builder::new()
        .manifest_dir("shared")
        .required_providers(&[Dialect::Mcp])
        .out_file("shared.rs")
        .extern_type("*::Anchor", "crate::shapes::Anchor")
        .extern_type("*::Interval", "crate::shapes::Interval")
        .extern_type("bars_mark::Input", "crate::shapes::Mark");
    for builder in [
        tools(),
        tools().derive_json_schema(true).out_file("schemas.rs"),
        shared,
    ] {
        if let Err(e) = builder.compile() {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
