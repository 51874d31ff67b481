//! Input validation: a tool's JSON Schema (in its own draft), compiled once by the `jsonschema`
//! crate, and the short, bounded report the model receives when arguments fail it.
//!
//! The report is `The tool input is invalid: <error>; <error>; …` — at most
//! [`TOOL_INPUT_ERROR_LIMIT`] errors joined by `"; "`, then `; … and N more` when more exist.
//! Each error is `<pointer>: <message>`, with the RFC 6901 JSON Pointer of the offending value
//! (`/` for the root); a missing required property and an unexpected property are each reported
//! at their own pointer. Errors are sorted by pointer, then by message: segment by segment,
//! array indices (and keys that read as one) as numbers and before the other keys of their level,
//! the rest as text.
//!
//! `jsonschema` is the only validator: it checks that a schema is valid draft 2020-12 when it is
//! compiled, and decides every verdict. [`InputSchema::check`] asks its `is_valid` first and walks
//! `iter_errors` only for invalid input. This module writes the report from those errors: the
//! crate's own messages quote whole values and schemas, so each error kind gets a short message
//! here, with bounded quotes and pointers. A value that fails `type` and also `enum` or `const`
//! at one pointer is reported once, with the `enum`/`const` message, which lists what is accepted
//! (`drop_superseded` holds that rule).
//!
//! Numbers are compared exactly without `jsonschema`'s `arbitrary-precision` feature, and that
//! feature stays off. `jsonschema` compares integers as integers: bounds, `const` and `enum`
//! beyond 2^53 up to `u64::MAX` and down to `i64::MIN`, and `multipleOf` for every such integer
//! when the divisor is an integer up to 2^53; it checks decimal multiples such as `0.1` exactly
//! (`tests/exact_numbers.rs` shows each). Two things stay inexact. A `multipleOf` divisor past
//! 2^53: `jsonschema` keeps the divisor as an `f64`, so `9007199254740993` is read as
//! `9007199254740992` and every verdict is that number's (no option of the crate changes it; a
//! divisor kept as `u64`/`i64` with integer remainders would). And a number beyond 64-bit
//! integers, which `serde_json` reads as the nearest `f64` before any schema sees it (the
//! manifest loader and the import refuse such numbers in schemas). The feature would turn
//! on `serde_json/arbitrary_precision` for every crate of the build, ours and our users': each
//! number becomes text that `serde` buffers as a map, which breaks `#[serde(flatten)]` and
//! untagged enums holding numbers, and the generated inputs use both.

use std::collections::HashSet;
use std::fmt;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use toolwright_core::dialect::join_pointer;
use toolwright_core::schema::Draft;
use toolwright_core::schema::words::{self, Fill};

/// The most field errors a report lists.
pub const TOOL_INPUT_ERROR_LIMIT: usize = 5;

/// How many characters of a value or pattern a message may quote.
pub const QUOTE_LIMIT: usize = 32;

/// The separator between the errors of a report.
pub const ERROR_SEPARATOR: &str = "; ";

/// The prefix of every input report.
pub const INPUT_INVALID_PREFIX: &str = "The tool input is invalid: ";

/// How many enum options a message lists before `…`.
const ENUM_OPTION_LIMIT: usize = 8;

/// A tool's input schema, compiled once by `jsonschema` and never changed afterwards.
pub struct InputSchema {
    validator: Validator,
}

impl fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The compiled validator is a whole tree of keywords: not worth printing.
        f.debug_struct("InputSchema").finish_non_exhaustive()
    }
}

/// A schema that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct SchemaError {
    /// Why, as the schema compiler says it.
    pub message: String,
}

impl InputSchema {
    /// Compiles `schema` in the draft its `$schema` names (draft-07, 2019-09 or 2020-12; 2020-12
    /// without one). `format` is an annotation only; remote references are never fetched.
    ///
    /// # Errors
    /// When the schema names another draft, is not a valid schema of its draft, or a reference
    /// cannot be resolved.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        let draft = Draft::of(schema).map_err(|message| SchemaError {
            message: bounded(&message, 300),
        })?;
        draft
            .options()
            .build(schema)
            .map(|validator| InputSchema { validator })
            .map_err(|e| SchemaError {
                message: bounded(&e.to_string(), 300),
            })
    }

    /// The fast check: true when `instance` is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Validates `instance`; on failure every error, sorted, ready for the report.
    ///
    /// Validation recurses along the instance: bound its depth first
    /// ([`Limits::check_arguments`](crate::limits::Limits::check_arguments), as the registry does).
    ///
    /// # Errors
    /// The field errors when `instance` does not match the schema.
    pub fn check(&self, instance: &Value) -> Result<(), InputErrors> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        Err(self.errors(instance))
    }

    /// Every error `jsonschema` finds in `instance`, in report order.
    fn errors(&self, instance: &Value) -> InputErrors {
        let mut found = Vec::new();
        let mut written = Vec::new();
        for error in self.validator.iter_errors(instance) {
            let keyword = Keyword::of(error.kind());
            field_errors(instance, &error, &mut written);
            found.extend(written.drain(..).map(|error| (keyword, error)));
        }
        let mut errors = drop_superseded(found);
        if errors.is_empty() {
            // `is_valid` and `iter_errors` disagreed; never let such input through.
            errors.push(FieldError {
                pointer: "/".to_owned(),
                message: "Invalid value".to_owned(),
            });
        }
        sort_for_report(&mut errors);
        errors.dedup();
        for error in &mut errors {
            error.pointer = bounded_pointer(&error.pointer);
        }
        InputErrors { errors }
    }
}

/// What the report's one merging rule needs to know of the keyword behind an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    /// `type`.
    Type,
    /// `enum` or `const`: the message lists what is accepted.
    Choice,
    /// Any other keyword.
    Other,
}

impl Keyword {
    fn of(kind: &ValidationErrorKind) -> Self {
        match kind {
            ValidationErrorKind::Type { .. } => Keyword::Type,
            ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. } => {
                Keyword::Choice
            }
            _ => Keyword::Other,
        }
    }
}

/// The one rule that merges errors: when a value fails `type` and also `enum` or `const` at the
/// same pointer (`{"type": "string", "enum": ["a", "b"]}` given `5`), only the `enum`/`const`
/// error stands. Its message names the accepted values, which says more than the type alone, and
/// the value is reported once. Every other error stands; the report counts what is left.
fn drop_superseded(found: Vec<(Keyword, FieldError)>) -> Vec<FieldError> {
    let choices: HashSet<String> = found
        .iter()
        .filter(|(keyword, _)| *keyword == Keyword::Choice)
        .map(|(_, error)| error.pointer.clone())
        .collect();
    found
        .into_iter()
        .filter(|(keyword, error)| !(*keyword == Keyword::Type && choices.contains(&error.pointer)))
        .map(|(_, error)| error)
        .collect()
}

/// One field error: `<pointer>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldError {
    /// The RFC 6901 JSON Pointer of the offending value; `/` for the root.
    pub pointer: String,
    /// A short message saying what was expected.
    pub message: String,
}

/// Report order: by pointer (array indices compared as numbers, before the other keys at their
/// level), then by message. Each pointer is split into its segments once, not at every
/// comparison (that was a quarter of the cost of an invalid call).
fn sort_for_report(errors: &mut Vec<FieldError>) {
    let order = {
        let keys: Vec<Vec<SegmentOrder<'_>>> = errors
            .iter()
            .map(|error| segments(&error.pointer).collect())
            .collect();
        let mut order: Vec<usize> = (0..errors.len()).collect();
        order.sort_by(|&a, &b| {
            keys[a]
                .cmp(&keys[b])
                .then_with(|| errors[a].message.cmp(&errors[b].message))
        });
        order
    };
    let mut unsorted: Vec<Option<FieldError>> = errors.drain(..).map(Some).collect();
    errors.extend(order.into_iter().filter_map(|at| unsorted[at].take()));
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// Every field error of one invalid input, in report order. Displayed as its
/// [`report`](InputErrors::report).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.report())]
pub struct InputErrors {
    errors: Vec<FieldError>,
}

impl InputErrors {
    /// Every error, sorted (not only the ones the report lists).
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// The report: `The tool input is invalid: <e1>; <e2>; … and N more`.
    pub fn report(&self) -> String {
        let shown = &self.errors[..self.errors.len().min(TOOL_INPUT_ERROR_LIMIT)];
        let mut out = String::with_capacity(INPUT_INVALID_PREFIX.len() + 64 * shown.len() + 16);
        out.push_str(INPUT_INVALID_PREFIX);
        for (i, error) in shown.iter().enumerate() {
            if i > 0 {
                out.push_str(ERROR_SEPARATOR);
            }
            out.push_str(&error.pointer);
            out.push_str(": ");
            out.push_str(&error.message);
        }
        let more = self.errors.len() - shown.len();
        if more > 0 {
            out.push_str(ERROR_SEPARATOR);
            out.push_str(&format!("… and {more} more"));
        }
        out
    }
}

/// The longest pointer segment a report quotes in full.
const SEGMENT_LIMIT: usize = 64;

/// The longest pointer a report quotes in full.
const POINTER_LIMIT: usize = 256;

/// Property names come from the input: a report quotes a prefix of long ones only.
fn bounded_pointer(pointer: &str) -> String {
    if pointer.len() <= SEGMENT_LIMIT {
        return pointer.to_owned();
    }
    let segments: Vec<String> = pointer
        .split('/')
        .map(|s| bounded(s, SEGMENT_LIMIT))
        .collect();
    bounded(&segments.join("/"), POINTER_LIMIT)
}

fn pointer_of(location: &str) -> String {
    if location.is_empty() {
        "/".to_owned()
    } else {
        location.to_owned()
    }
}

/// The segments of a pointer as they sort: pointers compare segment by segment (a pointer
/// before its own children), each pair of segments as [`SegmentOrder`] says.
fn segments(pointer: &str) -> impl Iterator<Item = SegmentOrder<'_>> {
    pointer.split('/').map(SegmentOrder::of)
}

/// How one pointer segment sorts. The sort of the report relies on this being a total order
/// (the standard sort may panic otherwise), so the segments that read as array indices, compared
/// as numbers, form one block: comparing them as numbers among themselves and as text against
/// the others would not be transitive (`2` < `10` < `1~0` < `2`).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SegmentOrder<'a> {
    /// The empty segment: the root (`/`) before anything under it.
    Empty,
    /// An array index (or an object key that reads as one, as `u64` parses it): by number, then
    /// by text.
    Index(u64, &'a str),
    /// Any other segment, by its bytes (character order in UTF-8).
    Text(&'a str),
}

impl<'a> SegmentOrder<'a> {
    fn of(segment: &'a str) -> Self {
        match segment.parse() {
            Ok(index) => SegmentOrder::Index(index, segment),
            Err(_) if segment.is_empty() => SegmentOrder::Empty,
            Err(_) => SegmentOrder::Text(segment),
        }
    }
}

pub(crate) use toolwright_core::text::bounded;
use toolwright_core::text::{bounded_owned, or_list};

/// A value as compact JSON, cut to [`QUOTE_LIMIT`] characters.
fn quote(value: &Value) -> String {
    bounded_owned(value.to_string(), QUOTE_LIMIT)
}

fn quote_str(text: &str) -> String {
    // Serializing a string cannot fail; the text is the same as the `Value::String`'s.
    bounded_owned(serde_json::to_string(text).unwrap_or_default(), QUOTE_LIMIT)
}

/// The message the keyword table gives `keyword` for a value that fails it, `value` filled in
/// (SPEC section 3's wording).
fn expected(keyword: &str, value: &str) -> String {
    words::say(keyword, |w| w.expected, Fill::value(value)).unwrap_or_default()
}

fn type_list(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.as_str().to_owned(),
        TypeKind::Multiple(set) if set.is_empty() => "a value".to_owned(),
        TypeKind::Multiple(set) => {
            let names: Vec<&str> = set.iter().map(|t| t.as_str()).collect();
            or_list(&names)
        }
    }
}

fn one_of(options: &Value) -> String {
    match options {
        Value::Array(items) => {
            let mut listed: Vec<String> = items.iter().take(ENUM_OPTION_LIMIT).map(quote).collect();
            if items.len() > ENUM_OPTION_LIMIT {
                listed.push("…".to_owned());
            }
            expected("enum", &listed.join(", "))
        }
        other => expected("enum", &quote(other)),
    }
}

/// Turns one validator error into field errors (one per missing or unexpected property).
fn field_errors(root: &Value, error: &ValidationError<'_>, out: &mut Vec<FieldError>) {
    let location = error.instance_path().as_str();
    let at = |message: String| FieldError {
        pointer: pointer_of(location),
        message,
    };
    let message = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let pointer = match property {
                Value::String(name) => join_pointer(location, name),
                other => join_pointer(location, &other.to_string()),
            };
            out.push(FieldError {
                pointer,
                message: expected("required", ""),
            });
            return;
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                out.push(FieldError {
                    pointer: join_pointer(location, name),
                    message: expected("additionalProperties", ""),
                });
            }
            return;
        }
        ValidationErrorKind::Type { kind } => expected("type", &type_list(kind)),
        ValidationErrorKind::Enum { options } => one_of(options),
        ValidationErrorKind::Constant { expected_value } => {
            expected("const", &quote(expected_value))
        }
        ValidationErrorKind::Minimum { limit } => expected("minimum", &quote(limit)),
        ValidationErrorKind::Maximum { limit } => expected("maximum", &quote(limit)),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            expected("exclusiveMinimum", &quote(limit))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            expected("exclusiveMaximum", &quote(limit))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            expected("multipleOf", &multiple_of.to_string())
        }
        ValidationErrorKind::MinLength { limit } => expected("minLength", &limit.to_string()),
        ValidationErrorKind::MaxLength { limit } => expected("maxLength", &limit.to_string()),
        ValidationErrorKind::MinItems { limit } => expected("minItems", &limit.to_string()),
        ValidationErrorKind::MaxItems { limit } => expected("maxItems", &limit.to_string()),
        ValidationErrorKind::AdditionalItems { limit } => {
            expected("additionalItems", &limit.to_string())
        }
        ValidationErrorKind::UniqueItems => expected("uniqueItems", ""),
        ValidationErrorKind::MinProperties { limit } => {
            expected("minProperties", &limit.to_string())
        }
        ValidationErrorKind::MaxProperties { limit } => {
            expected("maxProperties", &limit.to_string())
        }
        ValidationErrorKind::Pattern { pattern } => expected("pattern", &quote_str(pattern)),
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => {
            "Expected string that the pattern can be checked against".to_owned()
        }
        ValidationErrorKind::Format { format } => expected("format", &quote_str(format)),
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            expected("contentEncoding", &quote_str(content_encoding))
        }
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            expected("contentMediaType", &quote_str(content_media_type))
        }
        ValidationErrorKind::FromUtf8 { .. } => "Expected encoded UTF-8 text".to_owned(),
        ValidationErrorKind::FalseSchema => {
            // `additionalProperties: false` without `properties` (and `propertyNames: false`) is
            // reported once for the whole object: every one of its properties is unexpected.
            let keyword = error
                .schema_path()
                .as_str()
                .rsplit('/')
                .next()
                .unwrap_or_default();
            let object = root.pointer(location).and_then(Value::as_object);
            match object {
                Some(object)
                    if !object.is_empty()
                        && matches!(keyword, "additionalProperties" | "propertyNames") =>
                {
                    for name in object.keys() {
                        out.push(FieldError {
                            pointer: join_pointer(location, name),
                            message: expected("additionalProperties", ""),
                        });
                    }
                    return;
                }
                _ => "Unexpected value".to_owned(),
            }
        }
        ValidationErrorKind::AnyOf { .. } => expected("anyOf", ""),
        ValidationErrorKind::OneOfNotValid { .. } => expected("oneOf", "none"),
        ValidationErrorKind::OneOfMultipleValid { .. } => expected("oneOf", "several"),
        ValidationErrorKind::Not { .. } => expected("not", ""),
        ValidationErrorKind::Contains => expected("contains", ""),
        ValidationErrorKind::PropertyNames { error } => {
            let name = match error.instance().as_ref() {
                Value::String(name) => quote_str(name),
                other => quote(other),
            };
            expected("propertyNames", &name)
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            expected("unevaluatedItems", &unexpected.len().to_string())
        }
        ValidationErrorKind::Custom { message, .. } => bounded(message, 2 * QUOTE_LIMIT),
        ValidationErrorKind::Referencing(_) => "Expected value the schema can resolve".to_owned(),
    };
    out.push(at(message));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cmp::Ordering;

    fn compare_pointers(a: &str, b: &str) -> Ordering {
        segments(a).cmp(segments(b))
    }

    fn report(schema: Value, instance: Value) -> String {
        let schema = InputSchema::compile(&schema).expect("schema compiles");
        schema.check(&instance).expect_err("invalid").report()
    }

    /// Each `(schema, instance, report without its prefix)`.
    fn assert_reports<const N: usize>(cases: [(Value, Value, &str); N]) {
        for (schema, instance, expected) in cases {
            let text = report(schema.clone(), instance);
            assert_eq!(
                text,
                format!("{INPUT_INVALID_PREFIX}{expected}"),
                "schema {schema}"
            );
        }
    }

    #[test]
    fn pointer_order_is_total() {
        // Index-like segments among others: numbers first, as numbers; the rest as text.
        assert_eq!(compare_pointers("/2", "/10"), Ordering::Less);
        assert_eq!(compare_pointers("/10", "/1~0"), Ordering::Less);
        assert_eq!(compare_pointers("/2", "/1~0"), Ordering::Less);
        assert_eq!(compare_pointers("/", "/0"), Ordering::Less);
        let pointers = [
            "/",
            "/0",
            "/2",
            "/02",
            "/+2",
            "/10",
            "/1~0",
            "/1a",
            "/2a",
            "/a",
            "/a/0",
            "/a/1~0",
            "/a/10",
            "/~0",
            "/é",
            "/18446744073709551616",
            "/18446744073709551615",
        ];
        for a in pointers {
            assert_eq!(compare_pointers(a, a), Ordering::Equal, "{a}");
            for b in pointers {
                let ab = compare_pointers(a, b);
                assert_eq!(ab, compare_pointers(b, a).reverse(), "{a} {b}");
                assert_eq!(ab == Ordering::Equal, a == b, "{a} {b}");
                for c in pointers {
                    if ab != Ordering::Greater && compare_pointers(b, c) != Ordering::Greater {
                        assert_ne!(compare_pointers(a, c), Ordering::Greater, "{a} {b} {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn keys_that_read_as_indices_sort_among_other_keys() {
        // Enough errors for the standard sort to notice an order that is not total.
        let keys: serde_json::Map<String, Value> = (0..300)
            .flat_map(|i| [format!("{i}"), format!("{i}~"), format!("{}a", i % 7)])
            .map(|key| (key, Value::Null))
            .collect();
        let schema =
            InputSchema::compile(&json!({"additionalProperties": false})).expect("schema compiles");
        let errors = schema.check(&Value::Object(keys)).expect_err("invalid");
        let pointers: Vec<&str> = errors.errors().iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers.len(), 607);
        assert_eq!(pointers[..3], ["/0", "/1", "/2"]);
        assert_eq!(pointers[299..303], ["/299", "/0a", "/0~0", "/100~0"]);
    }

    #[test]
    fn a_value_failing_type_and_enum_or_const_is_reported_once() {
        let cases = [
            (
                json!({"type": "string", "enum": ["a", "b"]}),
                json!(5),
                "/: Expected one of \"a\", \"b\"",
            ),
            (
                json!({"type": "string", "const": "px"}),
                json!(1),
                "/: Expected \"px\"",
            ),
            // Through a reference: the two keywords need not sit in one schema object.
            (
                json!({"$defs": {"K": {"enum": ["a", "b"]}}, "properties": {"k": {"$ref": "#/$defs/K", "type": "string"}}}),
                json!({"k": null}),
                "/k: Expected one of \"a\", \"b\"",
            ),
            // Only `type` gives way, and only at the pointer of the `enum`/`const` error.
            (
                json!({"type": "integer", "minimum": 0}),
                json!(-1.5),
                "/: Expected integer; /: Expected number to be greater or equal to 0",
            ),
            (
                json!({"properties": {"a": {"type": "string"}, "b": {"type": "string", "enum": ["x"]}}}),
                json!({"a": 1, "b": 2}),
                "/a: Expected string; /b: Expected one of \"x\"",
            ),
            (
                json!({"properties": {"a": {"type": "string"}}, "enum": [{"a": "x"}]}),
                json!({"a": 1}),
                "/: Expected one of {\"a\":\"x\"}; /a: Expected string",
            ),
        ];
        assert_reports(cases);
    }

    #[test]
    fn how_many_more_counts_after_merging() {
        // Seven values, each failing `type` and `enum`: seven errors, not fourteen.
        let properties: serde_json::Map<String, Value> = (0..7)
            .map(|i| (format!("p{i}"), json!({"type": "string", "enum": ["a"]})))
            .collect();
        let schema = json!({"type": "object", "properties": properties});
        let instance: serde_json::Map<String, Value> =
            (0..7).map(|i| (format!("p{i}"), json!(i))).collect();
        let text = report(schema, Value::Object(instance));
        assert_eq!(
            text,
            "The tool input is invalid: /p0: Expected one of \"a\"; /p1: Expected one of \"a\"; \
             /p2: Expected one of \"a\"; /p3: Expected one of \"a\"; /p4: Expected one of \"a\"; \
             … and 2 more"
        );
    }

    #[test]
    fn index_like_segments_sort_as_u64_parses_them() {
        assert_eq!(compare_pointers("/a/+2", "/a/10"), Ordering::Less);
        assert_eq!(compare_pointers("/a/02", "/a/2"), Ordering::Less);
        assert_eq!(compare_pointers("/é/1", "/z/1"), Ordering::Greater);
    }

    #[test]
    fn long_pointers_are_cut() {
        let long = "k".repeat(100);
        assert_eq!(bounded_pointer("/a/0"), "/a/0");
        assert_eq!(
            bounded_pointer(&format!("/{long}/0")),
            format!("/{}…/0", "k".repeat(64))
        );
        let deep = "/0".repeat(500);
        assert_eq!(bounded_pointer(&deep).chars().count(), POINTER_LIMIT + 1);
    }

    #[test]
    fn bounded_cuts_on_characters() {
        assert_eq!(bounded("abc", 3), "abc");
        assert_eq!(bounded("abcd", 3), "abc…");
        assert_eq!(bounded("ééééé", 2), "éé…");
    }

    #[test]
    fn messages_for_every_reachable_keyword() {
        let cases = [
            (json!({"type": "number"}), json!("x"), "/: Expected number"),
            (
                json!({"type": "integer"}),
                json!(1.5),
                "/: Expected integer",
            ),
            (
                json!({"type": ["string", "null"]}),
                json!(1),
                "/: Expected null or string",
            ),
            (
                json!({"enum": ["a", 1]}),
                json!("b"),
                "/: Expected one of \"a\", 1",
            ),
            (json!({"const": "line"}), json!("b"), "/: Expected \"line\""),
            (
                json!({"minimum": 0}),
                json!(-1),
                "/: Expected number to be greater or equal to 0",
            ),
            (
                json!({"maximum": 2.5}),
                json!(3),
                "/: Expected number to be less or equal to 2.5",
            ),
            (
                json!({"exclusiveMinimum": 0}),
                json!(0),
                "/: Expected number to be greater than 0",
            ),
            (
                json!({"exclusiveMaximum": 1}),
                json!(1),
                "/: Expected number to be less than 1",
            ),
            (
                json!({"multipleOf": 2}),
                json!(3),
                "/: Expected number to be a multiple of 2",
            ),
            (
                json!({"minLength": 1}),
                json!(""),
                "/: Expected string length greater or equal to 1",
            ),
            (
                json!({"maxLength": 2}),
                json!("abc"),
                "/: Expected string length less or equal to 2",
            ),
            (
                json!({"minItems": 1}),
                json!([]),
                "/: Expected at least 1 item",
            ),
            (
                json!({"maxItems": 10}),
                json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
                "/: Expected at most 10 items",
            ),
            (
                json!({"uniqueItems": true}),
                json!([1, 1]),
                "/: Expected unique items",
            ),
            (
                json!({"minProperties": 2}),
                json!({"a": 1}),
                "/: Expected at least 2 properties",
            ),
            (
                json!({"maxProperties": 1}),
                json!({"a": 1, "b": 2}),
                "/: Expected at most 1 property",
            ),
            (
                json!({"pattern": "^[a-z]+$"}),
                json!("A"),
                "/: Expected string to match pattern \"^[a-z]+$\"",
            ),
            (json!(false), json!(1), "/: Unexpected value"),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
                json!(null),
                "/: Expected value to match at least one allowed schema",
            ),
            (
                json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
                json!(1),
                "/: Expected value to match exactly one allowed schema, it matches several",
            ),
            (
                json!({"not": {"type": "null"}}),
                json!(null),
                "/: Expected value not to match the excluded schema",
            ),
            (
                json!({"contains": {"type": "null"}}),
                json!([1]),
                "/: Expected array to contain a matching item",
            ),
            (
                json!({"propertyNames": {"maxLength": 2}}),
                json!({"abc": 1}),
                "/: Unexpected property name \"abc\"",
            ),
            (
                json!({"prefixItems": [{}], "items": false}),
                json!([1, 2]),
                "/1: Unexpected value",
            ),
            (
                json!({"unevaluatedProperties": false}),
                json!({"x": 1}),
                "/x: Unexpected property",
            ),
        ];
        assert_reports(cases);
    }

    #[test]
    fn long_schema_values_are_quoted_by_prefix_only() {
        let long = "x".repeat(200);
        let text = report(json!({"const": long}), json!("y"));
        assert!(text.chars().count() < 100, "{text}");
        assert!(text.ends_with('…'), "{text}");
    }

    #[test]
    fn many_enum_options_are_cut() {
        let options: Vec<String> = (0..20).map(|i| format!("o{i}")).collect();
        let text = report(json!({"enum": options}), json!("z"));
        assert_eq!(
            text,
            format!(
                "{INPUT_INVALID_PREFIX}/: Expected one of \"o0\", \"o1\", \"o2\", \"o3\", \"o4\", \"o5\", \"o6\", \"o7\", …"
            )
        );
    }

    #[test]
    fn invalid_schemas_do_not_compile() {
        let error = InputSchema::compile(&json!({"type": "nope"})).expect_err("invalid");
        assert!(!error.message.is_empty());
        let error = InputSchema::compile(&json!({"$ref": "https://example.invalid/s.json"}))
            .expect_err("no remote refs");
        assert!(!error.message.is_empty());
    }
}
