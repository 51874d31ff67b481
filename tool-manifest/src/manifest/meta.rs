//! A meta-schema violation in the manifest's words: "`type` must be one of "array", …, or a
//! list of them, found "int"" rather than `jsonschema`'s "not valid under any of the schemas
//! listed in the 'anyOf' keyword".
//!
//! The meta-schemas say "one of these forms" with `anyOf`, and `jsonschema` reports the `anyOf`
//! with every branch's errors as its context. The message comes from the deepest meaningful
//! error: a branch whose errors are only "not of this JSON type" at the keyword itself says
//! which form was expected, and the others say what is wrong within the form the value has. Each
//! error kind the meta-schemas raise is written here; `jsonschema`'s messages quote whole values.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::model::json_kind;
use crate::schema::keywords::Shape;
use crate::schema::words::{self, Fill};
use crate::schema::{Draft, JsonPointer, draft, truncate};
use toolwright_core::text::{or_list, with_article};

/// How many characters of the offending value a message quotes.
const VALUE_LIMIT: usize = 40;

/// How many accepted values a message lists before `…`.
const OPTION_LIMIT: usize = 10;

/// The pointer of the offending value and what is wrong with it, for one error of the
/// meta-validation of a schema in `draft`.
pub(super) fn describe(error: &ValidationError<'_>, draft: Draft) -> (String, String) {
    let (leaf, expected, alternatives) = match deepest(error) {
        Deepest::Leaf(leaf, alternatives) => {
            let Some(expected) = expectation(leaf) else {
                // A kind the meta-schemas do not raise: `jsonschema`'s own words, bounded.
                return (
                    leaf.instance_path().as_str().to_owned(),
                    truncate(&leaf.to_string(), VALUE_LIMIT * 3),
                );
            };
            (leaf, expected, alternatives)
        }
        Deepest::Types(error, types) => (error, format!("be {}", types_phrase(&types)), Vec::new()),
    };
    let pointer = leaf.instance_path().as_str().to_owned();
    // The other forms complete the list of what is accepted when the value had to be one of
    // some values; a value of the right form that breaks a rule of it (`minItems`) needs none.
    let choice = matches!(
        leaf.kind(),
        ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. }
    );
    let or_list = matches!(leaf.kind(), ValidationErrorKind::Enum { .. });
    let mut others: Vec<String> = Vec::new();
    for alternative in alternatives.into_iter().filter(|_| choice) {
        let phrase = if or_list && alternative == [ARRAY] {
            // `X` or an array of `X`: how the meta-schemas write "one or a list" (`type`).
            "a list of them".to_owned()
        } else {
            types_phrase(&alternative)
        };
        if !others.contains(&phrase) {
            others.push(phrase);
        }
    }
    let expected = if others.is_empty() {
        expected
    } else {
        format!("{expected}, or {}", others.join(", or "))
    };
    let subject = subject(&pointer, draft);
    (
        pointer,
        format!("{subject} must {expected}, found {}", found(leaf)),
    )
}

/// The JSON type name `jsonschema` writes for arrays.
const ARRAY: &str = "array";

/// The error a message describes.
pub(super) enum Deepest<'e, 'a> {
    /// An error about what the value holds, with the JSON types of the other forms the value
    /// could have had (each a list of type names) when the error is about the value itself.
    Leaf(&'e ValidationError<'a>, Vec<Vec<&'static str>>),
    /// Every form wants another JSON type: the `anyOf` and the types of all its forms.
    Types(&'e ValidationError<'a>, Vec<&'static str>),
}

/// The deepest meaningful error under `error` (itself unless it is an `anyOf` or `oneOf`).
pub(super) fn deepest<'e, 'a>(error: &'e ValidationError<'a>) -> Deepest<'e, 'a> {
    let context = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
        }
        _ => return Deepest::Leaf(error, Vec::new()),
    };
    let at = error.instance_path().as_str();
    let mut forms: Vec<Vec<&'static str>> = Vec::new();
    let mut within: Option<&'e ValidationError<'static>> = None;
    for branch in context {
        if let Some(types) = form_mismatch(branch, at) {
            forms.push(types);
            continue;
        }
        // The deepest error of the branch, and of all branches; the first of equals.
        for candidate in branch {
            if within.is_none_or(|w| depth(candidate) > depth(w)) {
                within = Some(candidate);
            }
        }
    }
    match within {
        Some(chosen) => match deepest(chosen) {
            // The other forms are alternatives only where the chosen error is about the value
            // itself, not about a part of it.
            Deepest::Leaf(leaf, mut alternatives) if leaf.instance_path().as_str() == at => {
                alternatives.extend(forms);
                Deepest::Leaf(leaf, alternatives)
            }
            Deepest::Types(inner, mut types) if inner.instance_path().as_str() == at => {
                for name in forms.into_iter().flatten() {
                    if !types.contains(&name) {
                        types.push(name);
                    }
                }
                Deepest::Types(inner, types)
            }
            deeper => deeper,
        },
        None => {
            let mut types: Vec<&'static str> = Vec::new();
            for name in forms.into_iter().flatten() {
                if !types.contains(&name) {
                    types.push(name);
                }
            }
            Deepest::Types(error, types)
        }
    }
}

/// The JSON types a branch wants, when its only complaint is that the value at `at` is not of
/// one of them (`type`, or an `enum` none of whose values has the value's type).
fn form_mismatch(branch: &[ValidationError<'_>], at: &str) -> Option<Vec<&'static str>> {
    let mut types: Vec<&'static str> = Vec::new();
    for error in branch {
        if error.instance_path().as_str() != at {
            return None;
        }
        let wanted = match error.kind() {
            ValidationErrorKind::Type { kind } => type_names(kind),
            ValidationErrorKind::Enum { options } => {
                let options: Vec<&Value> = match options.as_ref() {
                    Value::Array(values) => values.iter().collect(),
                    other => vec![other],
                };
                let found = json_kind(error.instance());
                if options.iter().any(|o| json_kind(o) == found) {
                    return None;
                }
                options.iter().map(|o| kind_name(o)).collect()
            }
            _ => return None,
        };
        for name in wanted {
            if !types.contains(&name) {
                types.push(name);
            }
        }
    }
    (!types.is_empty()).then_some(types)
}

fn depth(error: &ValidationError<'_>) -> usize {
    error.instance_path().as_str().matches('/').count()
}

/// What the schema's author wrote the value as: `` `minimum` ``, `` `type` item 0 ``, or, for
/// a value inside a keyword's data or subschemas, the keyword and the path in it
/// (`` `properties/id` ``). Keywords are told from property names by the shape of the keyword
/// before them.
fn subject(pointer: &str, draft: Draft) -> String {
    #[derive(Clone, Copy)]
    enum Next {
        Keyword,
        Index,
        Name,
        Data,
    }
    let tokens: Vec<String> = JsonPointer::from_escaped(pointer)
        .tokens()
        .map(|t| t.into_owned())
        .collect();
    let mut start = None;
    let mut next = Next::Keyword;
    for (i, token) in tokens.iter().enumerate() {
        next = match next {
            Next::Keyword => {
                start = Some(i);
                match draft::shape(draft, token) {
                    Some(Shape::Schema) => Next::Keyword,
                    Some(Shape::SchemaOrList) if tokens.get(i + 1).is_some_and(|t| is_index(t)) => {
                        Next::Index
                    }
                    Some(Shape::SchemaOrList) => Next::Keyword,
                    Some(Shape::SchemaList) => Next::Index,
                    Some(Shape::SchemaMap | Shape::Dependencies) => Next::Name,
                    Some(Shape::Data) | None => Next::Data,
                }
            }
            Next::Index | Next::Name => Next::Keyword,
            Next::Data => Next::Data,
        };
    }
    let Some(start) = start else {
        return "the schema".to_owned();
    };
    match &tokens[start..] {
        [keyword] => format!("`{keyword}`"),
        [keyword, index] if is_index(index) => format!("`{keyword}` item {index}"),
        rest => format!("`{}`", rest.join("/")),
    }
}

fn is_index(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit())
}

/// What the value must be or do, after "must", in the meta-schema words of the keyword table
/// ([`crate::schema::words`]); `None` for a kind the meta-schemas do not raise.
fn expectation(error: &ValidationError<'_>) -> Option<String> {
    use ValidationErrorKind as Kind;
    let (keyword, value) = match error.kind() {
        Kind::Type { kind } => ("type", types_phrase(&type_names(kind))),
        Kind::Enum { options } => match options.as_ref() {
            Value::Array(values) => {
                let mut listed: Vec<String> = values
                    .iter()
                    .take(OPTION_LIMIT)
                    .map(|v| truncate(&v.to_string(), VALUE_LIMIT))
                    .collect();
                if values.len() > OPTION_LIMIT {
                    listed.push("…".to_owned());
                }
                ("enum", listed.join(", "))
            }
            other => ("const", quoted(other)),
        },
        Kind::Constant { expected_value } => ("const", quoted(expected_value)),
        Kind::Minimum { limit } => ("minimum", limit.to_string()),
        Kind::ExclusiveMinimum { limit } => ("exclusiveMinimum", limit.to_string()),
        Kind::Maximum { limit } => ("maximum", limit.to_string()),
        Kind::ExclusiveMaximum { limit } => ("exclusiveMaximum", limit.to_string()),
        Kind::MinItems { limit } => ("minItems", limit.to_string()),
        Kind::MaxItems { limit } => ("maxItems", limit.to_string()),
        Kind::MinLength { limit } => ("minLength", limit.to_string()),
        Kind::MaxLength { limit } => ("maxLength", limit.to_string()),
        Kind::MinProperties { limit } => ("minProperties", limit.to_string()),
        Kind::MaxProperties { limit } => ("maxProperties", limit.to_string()),
        Kind::UniqueItems => ("uniqueItems", String::new()),
        Kind::Pattern { pattern } => ("pattern", truncate(pattern, VALUE_LIMIT)),
        Kind::Format { format } => ("format", format.clone()),
        Kind::Required { property } => ("required", quoted(property)),
        Kind::FalseSchema => return Some("not be given".to_owned()),
        _ => return None,
    };
    words::say(keyword, |w| w.must, Fill::value(&value))
}

/// What was found: the value's JSON type for a type mismatch, else the value, bounded.
fn found(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::Type { .. }
        | ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. } => json_kind(error.instance()).to_owned(),
        _ => quoted(error.instance()),
    }
}

/// A value as JSON text, bounded.
fn quoted(value: &Value) -> String {
    truncate(&value.to_string(), VALUE_LIMIT)
}

fn type_names(kind: &TypeKind) -> Vec<&'static str> {
    match kind {
        TypeKind::Single(one) => vec![one.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    }
}

/// The JSON type name of a value (`string`, `array`): its [`json_kind`] without the article.
fn kind_name(value: &Value) -> &'static str {
    let kind = json_kind(value);
    kind.split_once(' ').map_or(kind, |(_, name)| name)
}

/// `a string`, `a boolean or an object`, `a boolean, an object or an array`.
fn types_phrase(names: &[&str]) -> String {
    if names.is_empty() {
        return "of another type".to_owned();
    }
    let words: Vec<String> = names.iter().map(|name| with_article(name)).collect();
    or_list(&words)
}
