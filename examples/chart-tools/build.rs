//! Generates the typed inputs, error enums and frozen metadata of `tools/*.toml`. Every tool
//! must be expressible for MCP, which the binary serves (as `tool-manifest.toml` requires too).
//!
//! The shapes the tools share are the chart's own types: an anchor, a style, an interval, … is
//! one Rust type whichever tool takes it, and the tools hand their inputs to the chart as they
//! come (the chart's enums are spelled as the manifests' words: `"1m"`, `"trend_line"`).

fn main() -> Result<(), toolwright_manifest::build::BuildError> {
    toolwright_manifest::Builder::new()
        .manifest_dir("tools")
        .required_providers(&[toolwright_manifest::dialect::Dialect::Mcp])
        .extern_type("*::Anchor", "crate::chart::Anchor")
        .extern_type("*::Style", "crate::chart::StyleChange")
        .extern_type("*::Interval", "crate::chart::Interval")
        .extern_type("*::Indicator", "crate::chart::IndicatorRequest")
        .extern_type("*::Name", "crate::chart::IndicatorName")
        .extern_type("*::Key", "crate::chart::SettingKey")
        .extern_type("drawing_create::Kind", "crate::chart::DrawingKind")
        .extern_type("pane_create::Kind", "crate::chart::PaneKind")
        .compile()?;
    Ok(())
}
