//! A code-first tool's `version` and `deprecated(...)`: in its frozen metadata, and exported as
//! a manifest tool declaring the same is; a `replacement` that is not a tool of the registry is
//! a problem when the registry is built.

use std::path::Path;

use serde_json::{Value, json};
use toolwright_manifest::dialect::{self, Dialect};
use toolwright_manifest::manifest::parse_manifest;
use toolwright_runtime::handler::{DeprecationMeta, ToolDef};
use toolwright_runtime::registry::RegistryProblem;
use toolwright_runtime::{NoArgs, Registry, ToolError, tool, tool_def};

/// Draws a trend line on a pane.
#[tool(
    safety = "destructive",
    mode = "sequential",
    title = "Draw a line",
    version = "2.1.0",
    deprecated(
        since = "2.0.0",
        sunset = "2027-01-31",
        replacement = "drawing_create",
        note = "Use drawing_create with kind = \"line\"."
    )
)]
fn drawing_line(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Draws on a pane.
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_create(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Lists the panes.
#[tool(
    safety = "read-only",
    mode = "parallel",
    deprecated(since = "2026-01-15")
)]
fn panes_list(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Searches.
#[tool(
    safety = "read-only",
    mode = "parallel",
    deprecated(since = "1.0.0", replacement = "drawing_creat")
)]
fn search(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

#[test]
fn the_declarations_are_in_the_metadata() {
    let def: ToolDef<()> = tool_def!(drawing_line);
    assert_eq!(def.meta.version, Some("2.1.0"));
    assert_eq!(
        def.meta.deprecated,
        Some(
            DeprecationMeta::new("2.0.0")
                .sunset("2027-01-31")
                .replacement("drawing_create")
                .note("Use drawing_create with kind = \"line\".")
        )
    );

    let def: ToolDef<()> = tool_def!(panes_list);
    assert_eq!(def.meta.version, None);
    assert_eq!(
        def.meta.deprecated,
        Some(DeprecationMeta::new("2026-01-15"))
    );

    let def: ToolDef<()> = tool_def!(drawing_create);
    assert_eq!((def.meta.version, def.meta.deprecated), (None, None));
}

/// The MCP definition of `drawing_line` as a manifest declaring the same.
fn manifest_definition() -> Value {
    let spec = parse_manifest(
        Path::new("tools/drawing_line.toml"),
        r#"name = "drawing_line"
title = "Draw a line"
description = "Draws a trend line on a pane."
safety = "destructive"
mode = "sequential"
version = "2.1.0"
deprecated = { since = "2.0.0", sunset = "2027-01-31", replacement = "drawing_create", note = "Use drawing_create with kind = \"line\"." }

[input]
type = "object"
additionalProperties = false
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    dialect::convert(Dialect::Mcp, &spec)
        .unwrap_or_else(|v| panic!("{v:?}"))
        .definition
}

#[test]
fn the_exports_carry_them_as_a_manifest_tools_do() {
    let registry: Registry<()> = Registry::builder()
        .tool(tool_def!(drawing_line))
        .tool(tool_def!(drawing_create))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let definition = registry
        .definition("drawing_line", Dialect::Mcp)
        .expect("a registered tool")
        .unwrap_or_else(|v| panic!("{v:?}"))
        .clone();
    assert_eq!(
        definition["_meta"],
        json!({
            "dev.toolwright/version": "2.1.0",
            "dev.toolwright/deprecated": {
                "since": "2.0.0",
                "sunset": "2027-01-31",
                "replacement": "drawing_create",
                "note": "Use drawing_create with kind = \"line\"."
            }
        })
    );
    let manifest = manifest_definition();
    for key in ["_meta", "description", "annotations", "name", "title"] {
        assert_eq!(definition[key], manifest[key], "{key}");
    }
    assert!(
        definition["description"].as_str().is_some_and(|d| d
            .ends_with("Use `drawing_create` instead. Use drawing_create with kind = \"line\".")),
        "{definition}"
    );
}

#[test]
fn a_replacement_is_a_tool_of_the_registry() {
    let error = Registry::<()>::builder()
        .tool(tool_def!(drawing_line))
        .build()
        .expect_err("an unknown replacement");
    assert!(
        matches!(
            error.problems(),
            [RegistryProblem::UnknownReplacement { name, replacement, close: None, .. }]
                if name == "drawing_line" && replacement == "drawing_create"
        ),
        "{error}"
    );

    // With `drawing_create` registered, only the misspelt replacement is a problem.
    let error = Registry::<()>::builder()
        .tool(tool_def!(drawing_line))
        .tool(tool_def!(drawing_create))
        .tool(tool_def!(search))
        .build()
        .expect_err("an unknown replacement");
    let def: ToolDef<()> = tool_def!(search);
    assert_eq!(
        error.to_string(),
        format!(
            "tool `search` (`{}`) is deprecated in favour of `drawing_creat`, which is not a registered or declared tool; register `drawing_creat`, or correct the `replacement`; did you mean `drawing_create`?",
            def.meta.source
        )
    );
}
