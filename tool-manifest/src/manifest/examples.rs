//! The checks of an example's arguments (`[[examples]]`' `input`, `input_examples`): valid
//! against the input schema, then holdable by the generated Rust types, since an example the
//! generated `Input` cannot hold would pass `check` and fail the tool's own test of it.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::limits::QUOTE_LIMIT;
use super::meta;
use super::report::Report;
use super::schema_source::{LoadedSchema, SpanIndex};
use crate::codegen;
use crate::schema::{display_pointer, join, truncate};

/// Checks the example `what` (`example 2`), located by `index`, against `schema`.
pub(super) fn check(
    report: &mut Report<'_>,
    what: &str,
    value: &Value,
    index: &SpanIndex,
    schema: &LoadedSchema,
) {
    let errors = report.count();
    schema_errors(report, what, value, index, &schema.validator);
    if report.count() > errors {
        return;
    }
    let Some(ranges) = schema.ranges() else {
        return;
    };
    for error in ranges.iter_errors(value) {
        let leaf = match meta::deepest(&error) {
            meta::Deepest::Leaf(leaf, _) | meta::Deepest::Types(leaf, _) => leaf,
        };
        let pointer = leaf.instance_path().as_str().to_owned();
        let limit = match leaf.kind() {
            ValidationErrorKind::Minimum { limit }
            | ValidationErrorKind::Maximum { limit }
            | ValidationErrorKind::ExclusiveMaximum { limit } => Some(limit),
            _ => None,
        };
        let expected = match limit.and_then(codegen::IntegerRange::bounded_by) {
            Some(range) => format!(
                "expected an integer from {} to {} (`{}`)",
                range.min, range.max, range.rust
            ),
            None => "expected a smaller integer".to_owned(),
        };
        report.error(
            index.value_offset(&pointer),
            format!(
                "{what} cannot be held by the generated Rust type at `{}`: {expected}, found {}",
                display_pointer(&pointer),
                truncate(&leaf.instance().to_string(), QUOTE_LIMIT)
            ),
        );
    }
}

/// Every way the example fails the schema, at the offending value (or key).
fn schema_errors(
    report: &mut Report<'_>,
    what: &str,
    value: &Value,
    index: &SpanIndex,
    validator: &jsonschema::Validator,
) {
    for error in validator.iter_errors(value) {
        let pointer = error.instance_path().as_str().to_owned();
        if let ValidationErrorKind::AdditionalProperties { unexpected } = error.kind() {
            // Point at each unexpected key rather than at the object holding it.
            for name in unexpected {
                let at = join(&pointer, name);
                report.error(
                    index.key_offset(&at),
                    format!(
                        "{what} fails the input schema at `{at}`: unexpected property `{}` (the schema does not allow other properties)",
                        truncate(name, QUOTE_LIMIT)
                    ),
                );
            }
            continue;
        }
        report.error(
            index.value_offset(&pointer),
            format!(
                "{what} fails the input schema at `{}`: {}",
                display_pointer(&pointer),
                truncate(&error.to_string(), QUOTE_LIMIT * 2)
            ),
        );
    }
}
