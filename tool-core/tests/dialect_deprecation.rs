//! A deprecated tool in every dialect: it stays exported, its description ends with its
//! deprecation, MCP carries the declarations in `_meta`, and every checker accepts the result.

use serde_json::{Value, json};
use toolwright_core::dialect::{self, Dialect};
use toolwright_core::{Deprecation, Mode, Safety, ToolSpec};

/// `drawing_line`, deprecated for `drawing_create`, with every field of a deprecation declared.
fn deprecated() -> ToolSpec {
    let mut spec = ToolSpec::new(
        "drawing_line",
        Safety::Destructive,
        Mode::Sequential,
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["pane_id"],
            "properties": {"pane_id": {"type": "string", "description": "The pane."}}
        }),
    );
    spec.title = "Draw a line".to_owned();
    spec.description = "Draws a trend line on a pane.".to_owned();
    spec.version = Some("2.1.0".to_owned());
    let mut deprecation = Deprecation::new("2.0.0");
    deprecation.sunset = Some("2027-06-30".to_owned());
    deprecation.replacement = Some("drawing_create".to_owned());
    deprecation.note = Some("Use drawing_create with kind = \"line\".".to_owned());
    spec.deprecated = Some(deprecation);
    spec
}

/// The same tool, declaring neither a version nor a deprecation.
fn current() -> ToolSpec {
    let mut spec = deprecated();
    spec.version = None;
    spec.deprecated = None;
    spec
}

fn definition(dialect: Dialect, spec: &ToolSpec) -> Value {
    dialect::convert(dialect, spec)
        .unwrap_or_else(|v| panic!("{dialect}: {v:?}"))
        .definition
}

/// The description in a definition of either OpenAI shape or any other dialect.
fn description(definition: &Value) -> &str {
    definition
        .get("function")
        .unwrap_or(definition)
        .get("description")
        .and_then(Value::as_str)
        .expect("a description")
}

const NOTICE: &str = "Draws a trend line on a pane.\n\nDeprecated since version 2.0.0; it may be removed after 2027-06-30. Use `drawing_create` instead. Use drawing_create with kind = \"line\".";

#[test]
fn every_dialect_exports_the_deprecation() {
    for dialect in Dialect::ALL {
        let text =
            serde_json::to_string_pretty(&definition(*dialect, &deprecated())).expect("json");
        insta::assert_snapshot!(format!("deprecated_{dialect}"), text);
    }
}

#[test]
fn the_description_ends_with_the_notice_in_every_dialect() {
    assert_eq!(dialect::exported_description(&deprecated()), NOTICE);
    for dialect in Dialect::ALL {
        assert_eq!(
            description(&definition(*dialect, &deprecated())),
            NOTICE,
            "{dialect}"
        );
        // Everything else is the definition of the same tool undeclared.
        let mut with = definition(*dialect, &deprecated());
        let without = definition(*dialect, &current());
        assert_eq!(description(&without), "Draws a trend line on a pane.");
        let fields = if with.get("function").is_some() {
            &mut with["function"]
        } else {
            &mut with
        };
        fields["description"] = json!("Draws a trend line on a pane.");
        if let Some(fields) = fields.as_object_mut() {
            fields.remove("_meta");
        }
        assert_eq!(with, without, "{dialect}");
    }
}

#[test]
fn every_checker_accepts_a_deprecated_tool() {
    for spec in [deprecated(), current()] {
        for dialect in Dialect::ALL {
            let definition = definition(*dialect, &spec);
            let violations = dialect::check(*dialect, &definition, &spec);
            assert!(violations.is_empty(), "{dialect}: {violations:?}");
        }
    }
    // A deprecated tool is never left out: with its replacement, both are exported.
    let mut replacement = current();
    replacement.name = "drawing_create".to_owned();
    for dialect in Dialect::ALL {
        let catalog = dialect::catalog(*dialect, &[deprecated(), replacement.clone()]);
        assert!(
            catalog.excluded.is_empty(),
            "{dialect}: {:?}",
            catalog.excluded
        );
        assert_eq!(catalog.definitions.as_array().map(Vec::len), Some(2));
        dialect::export(*dialect, &[deprecated(), replacement.clone()]).expect("exports");
    }
}

#[test]
fn mcp_carries_the_declarations_in_meta() {
    let mcp = definition(Dialect::Mcp, &deprecated());
    assert_eq!(
        mcp["_meta"],
        json!({
            "dev.toolwright/version": "2.1.0",
            "dev.toolwright/deprecated": {
                "since": "2.0.0",
                "sunset": "2027-06-30",
                "replacement": "drawing_create",
                "note": "Use drawing_create with kind = \"line\"."
            }
        })
    );
    let mut version_only = current();
    version_only.version = Some("1.0.0".to_owned());
    assert_eq!(
        definition(Dialect::Mcp, &version_only)["_meta"],
        json!({"dev.toolwright/version": "1.0.0"})
    );
    assert!(definition(Dialect::Mcp, &current()).get("_meta").is_none());
    // No other dialect has a place for them: only the description says so.
    for dialect in Dialect::ALL.iter().filter(|d| **d != Dialect::Mcp) {
        let text = definition(*dialect, &deprecated()).to_string();
        assert!(
            !text.contains("_meta") && !text.contains("2.1.0"),
            "{dialect}: {text}"
        );
    }
}

#[test]
fn a_deprecation_without_a_description_is_the_notice_alone() {
    let mut spec = deprecated();
    spec.description = String::new();
    let mut deprecation = Deprecation::new("2026-01-15");
    deprecation.replacement = Some("drawing_create".to_owned());
    spec.deprecated = Some(deprecation);
    assert_eq!(
        dialect::exported_description(&spec),
        "Deprecated since 2026-01-15. Use `drawing_create` instead."
    );
}
