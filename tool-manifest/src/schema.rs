//! JSON Schema support: the subset the generator turns into Rust types, and the canonical form.
//!
//! The canonical form of a schema is its JSON with every object's keys in sorted order (the
//! default `serde_json` map is ordered) and no root `$schema` key: the generator always speaks
//! draft 2020-12.
//!
//! [`unsupported`] lists every construct of a schema that the generator cannot turn into Rust
//! types, each with the JSON Pointer of the offending keyword (or node) and a message saying what
//! was expected.

use serde_json::{Map, Value};

use crate::dialect::join;
use crate::model::backticked;
use crate::suggest::{self, Case};

pub use crate::dialect::DRAFT_2020_12;

/// Keywords any schema node may carry: they document, they do not shape the Rust type (nor
/// reject a value).
pub use crate::dialect::ANNOTATIONS;

/// The type names of the subset, in the order messages list them.
pub const TYPE_NAMES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

pub(crate) const STRING_KEYWORDS: &[&str] = &[
    "enum",
    "const",
    "minLength",
    "maxLength",
    "pattern",
    "format",
];
pub(crate) const NUMBER_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "enum",
    "const",
];
pub(crate) const ARRAY_KEYWORDS: &[&str] = &["items", "minItems", "maxItems", "uniqueItems"];
pub(crate) const ROOT_OBJECT_KEYWORDS: &[&str] =
    &["properties", "required", "additionalProperties"];
pub(crate) const OBJECT_KEYWORDS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
];

/// JSON Schema keywords the generator knowingly does not support (composition, references,
/// conditionals, …): they have no single Rust type.
const UNSUPPORTED_KEYWORDS: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "$schema",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "prefixItems",
    "additionalItems",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// One JSON type; `null` only stands beside another type (`[T, "null"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Null,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::String,
        Kind::Integer,
        Kind::Number,
        Kind::Boolean,
        Kind::Array,
        Kind::Object,
        Kind::Null,
    ];

    pub(crate) fn parse(word: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == word)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Array => "array",
            Kind::Object => "object",
            Kind::Null => "null",
        }
    }

    pub(crate) fn is_primitive(self) -> bool {
        matches!(
            self,
            Kind::String | Kind::Integer | Kind::Number | Kind::Boolean
        )
    }

    /// The keywords that apply to the type (`root`: the arguments' own object).
    pub(crate) fn keywords(self, root: bool) -> &'static [&'static str] {
        match self {
            Kind::String => STRING_KEYWORDS,
            Kind::Integer | Kind::Number => NUMBER_KEYWORDS,
            Kind::Boolean | Kind::Null => &[],
            Kind::Array => ARRAY_KEYWORDS,
            Kind::Object if root => ROOT_OBJECT_KEYWORDS,
            Kind::Object => OBJECT_KEYWORDS,
        }
    }

    /// Does a JSON value have this type?
    fn matches(self, value: &Value) -> bool {
        match self {
            Kind::String => value.is_string(),
            Kind::Integer => value.is_i64() || value.is_u64(),
            Kind::Number => value.is_number(),
            Kind::Boolean => value.is_boolean(),
            Kind::Array => value.is_array(),
            Kind::Object => value.is_object(),
            Kind::Null => value.is_null(),
        }
    }
}

/// A problem found in a schema: where (a JSON Pointer into the schema) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaIssue {
    /// The JSON Pointer (RFC 6901) of the offending keyword, value or node; `""` is the root.
    pub pointer: String,
    /// Lowercase, the offending name in backticks, the accepted values listed.
    pub message: String,
}

impl SchemaIssue {
    fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaIssue {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// A JSON Pointer for messages: the root (`""`) is written `/`.
pub fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// Removes a root `$schema` that names draft 2020-12 (the canonical form has none).
///
/// Returns an issue when the root `$schema` names another dialect or is not a string (the key is
/// removed either way, so it is reported once).
pub fn strip_dialect(schema: &mut Value) -> Option<SchemaIssue> {
    let map = schema.as_object_mut()?;
    match map.remove("$schema") {
        None => None,
        Some(Value::String(uri)) if crate::dialect::is_2020_12(&uri) => None,
        Some(other) => Some(SchemaIssue::new(
            "/$schema",
            format!(
                "unsupported `$schema` {}, expected {DRAFT_2020_12:?} (or no `$schema`: every schema is draft 2020-12)",
                short(&other)
            ),
        )),
    }
}

/// Every construct of an input schema that the generator cannot turn into Rust types.
///
/// The root must be `type = "object"`; every node needs a `type` of the supported subset and only
/// the keywords that apply to it. Each issue points at the offending keyword (a missing `type` or
/// `items` points at the node). An empty list means the generator can handle the schema.
pub fn unsupported(schema: &Value) -> Vec<SchemaIssue> {
    let mut issues = Vec::new();
    let Some(root) = schema.as_object() else {
        issues.push(SchemaIssue::new(
            "",
            format!(
                "expected the input schema to be an object, found {}",
                json_type(schema)
            ),
        ));
        return issues;
    };
    match root.get("type") {
        Some(Value::String(word)) if word == "object" => check_node(root, "", true, &mut issues),
        Some(other) => issues.push(SchemaIssue::new(
            "/type",
            format!(
                "the input schema's root must be `type = \"object\"` (the arguments are a struct), found `type = {}`",
                short(other)
            ),
        )),
        None => issues.push(SchemaIssue::new(
            "",
            "the input schema's root has no `type`, expected `type = \"object\"` (the arguments are a struct)",
        )),
    }
    issues
}

/// The JSON text of a schema in canonical form: compact, keys sorted, no `$schema` key at the
/// root.
pub fn canonical_text(schema: &Value) -> String {
    let mut schema = canonical_json(schema);
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
    }
    schema.to_string()
}

/// The same JSON value with every object's keys in sorted order (whatever map type
/// `serde_json` was built with).
pub fn canonical_json(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), canonical_json(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_json).collect()),
        other => other.clone(),
    }
}

/// A `default` or one `examples` value written inside a schema, with the schema node it must
/// match.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleValue<'a> {
    /// `default` or `examples`.
    pub keyword: &'static str,
    /// The JSON Pointer of the node that holds it.
    pub node_pointer: String,
    /// The JSON Pointer of the value itself.
    pub pointer: String,
    /// The value.
    pub value: &'a Value,
    /// The node it must match.
    pub schema: &'a Value,
}

/// Every `default` and `examples` value in the nodes of a schema of the supported subset
/// (the root, `properties`, `items`, `additionalProperties`), in document order.
pub fn sample_values(schema: &Value) -> Vec<SampleValue<'_>> {
    let mut samples = Vec::new();
    collect_samples(schema, "", &mut samples);
    samples
}

/// `at` is the pointer of `node`.
fn collect_samples<'a>(node: &'a Value, at: &str, samples: &mut Vec<SampleValue<'a>>) {
    let Some(map) = node.as_object() else {
        return;
    };
    let sample = |keyword, pointer, value| SampleValue {
        keyword,
        node_pointer: at.to_owned(),
        pointer,
        value,
        schema: node,
    };
    if let Some(value) = map.get("default") {
        samples.push(sample("default", join(at, "default"), value));
    }
    let examples = map.get("examples").and_then(Value::as_array);
    for (i, value) in examples.into_iter().flatten().enumerate() {
        samples.push(sample("examples", format!("{at}/examples/{i}"), value));
    }
    let properties = map.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        collect_samples(property, &join(&join(at, "properties"), name), samples);
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(child) = map.get(keyword) {
            collect_samples(child, &join(at, keyword), samples);
        }
    }
}

/// The types a node's `type` names (besides `null`).
fn parse_type(
    node: &Map<String, Value>,
    at: &str,
    issues: &mut Vec<SchemaIssue>,
) -> Option<Vec<Kind>> {
    let accepted = crate::model::quoted_list(TYPE_NAMES);
    let Some(ty) = node.get("type") else {
        issues.push(SchemaIssue::new(
            at,
            format!(
                "schema at `{}` has no `type`, expected one of {} (or a list such as [\"string\", \"null\"])",
                display_pointer(at),
                accepted
            ),
        ));
        return None;
    };
    let type_at = join(at, "type");
    match ty {
        Value::String(word) => match Kind::parse(word).filter(|kind| *kind != Kind::Null) {
            Some(kind) => Some(vec![kind]),
            None => {
                issues.push(SchemaIssue::new(
                    type_at,
                    format!(
                        "unsupported type {word:?} at `{}`, expected one of {}",
                        display_pointer(at),
                        accepted
                    ),
                ));
                None
            }
        },
        Value::Array(words) => {
            let mut kinds = Vec::new();
            let mut seen = Vec::new();
            let mut ok = true;
            for (i, word) in words.iter().enumerate() {
                let Some(word) = word.as_str() else {
                    issues.push(SchemaIssue::new(
                        format!("{type_at}/{i}"),
                        format!(
                            "expected a type name in `type` at `{}`, found {}",
                            display_pointer(at),
                            short(word)
                        ),
                    ));
                    ok = false;
                    continue;
                };
                if seen.contains(&word) {
                    issues.push(SchemaIssue::new(
                        format!("{type_at}/{i}"),
                        format!(
                            "duplicate type {word:?} in `type` at `{}`",
                            display_pointer(at)
                        ),
                    ));
                    ok = false;
                    continue;
                }
                seen.push(word);
                if word == "null" {
                    continue;
                }
                match Kind::parse(word) {
                    Some(kind) => kinds.push(kind),
                    None => {
                        issues.push(SchemaIssue::new(
                            format!("{type_at}/{i}"),
                            format!(
                                "unsupported type {word:?} in `type` at `{}`, expected one of {accepted} or \"null\"",
                                display_pointer(at)
                            ),
                        ));
                        ok = false;
                    }
                }
            }
            if !ok {
                return None;
            }
            if kinds.is_empty() {
                issues.push(SchemaIssue::new(
                    type_at,
                    format!(
                        "`type` at `{}` names no type besides \"null\", expected one of {accepted} (optionally with \"null\")",
                        display_pointer(at)
                    ),
                ));
                return None;
            }
            if kinds.len() > 1 && kinds.iter().any(|k| !k.is_primitive()) {
                issues.push(SchemaIssue::new(
                    type_at,
                    format!(
                        "`type` at `{}` mixes \"array\" or \"object\" with other types, expected [T, \"null\"] or a list of primitive types (\"string\", \"integer\", \"number\", \"boolean\")",
                        display_pointer(at)
                    ),
                ));
                return None;
            }
            Some(kinds)
        }
        other => {
            issues.push(SchemaIssue::new(
                type_at,
                format!(
                    "expected `type` at `{}` to be a type name or a list of type names, found {}",
                    display_pointer(at),
                    short(other)
                ),
            ));
            None
        }
    }
}

fn check_node(node: &Map<String, Value>, at: &str, root: bool, issues: &mut Vec<SchemaIssue>) {
    let Some(kinds) = parse_type(node, at, issues) else {
        return;
    };
    let single = match kinds.as_slice() {
        [kind] => Some(*kind),
        _ => None,
    };
    let mut accepted: Vec<&str> = vec!["type"];
    for kind in &kinds {
        for keyword in kind.keywords(root) {
            if !accepted.contains(keyword) {
                accepted.push(keyword);
            }
        }
    }
    let type_label = match single {
        Some(kind) => format!("{} `{}`", article(kind.name()), kind.name()),
        None => "a multi-type".to_owned(),
    };
    let where_ = if root {
        "the root".to_owned()
    } else {
        format!("`{}`", display_pointer(at))
    };

    for (keyword, value) in node {
        if ANNOTATIONS.contains(&keyword.as_str()) {
            continue;
        }
        let keyword_at = || join(at, keyword);
        if !accepted.contains(&keyword.as_str()) {
            let keyword_at = keyword_at();
            let expected = format!(
                "expected one of {} or an annotation ({})",
                backticked(&accepted),
                backticked(ANNOTATIONS)
            );
            let message = if UNSUPPORTED_KEYWORDS.contains(&keyword.as_str()) {
                format!(
                    "unsupported keyword `{keyword}` at {where_}: the generator cannot turn it into a Rust type; {expected}"
                )
            } else if is_type_keyword(keyword) {
                format!(
                    "keyword `{keyword}` does not apply to {type_label} schema at {where_}, {expected}"
                )
            } else {
                let mut message = format!("unknown keyword `{keyword}` at {where_}, {expected}");
                let all: Vec<&str> = accepted.iter().chain(ANNOTATIONS).copied().collect();
                if let Some(close) = closest(keyword, &all) {
                    message.push_str(&format!("; did you mean `{close}`?"));
                }
                message
            };
            issues.push(SchemaIssue::new(keyword_at, message));
            continue;
        }
        match keyword.as_str() {
            "enum" => check_enum(value, single, &keyword_at(), issues),
            "const" => {
                if let Some(kind) = single
                    && !kind.matches(value)
                {
                    issues.push(SchemaIssue::new(
                        keyword_at(),
                        format!(
                            "`const` of {type_label} schema at {where_} must be {} {}, found {}",
                            article(kind.name()),
                            kind.name(),
                            short(value)
                        ),
                    ));
                }
            }
            "items" => match value.as_object() {
                Some(items) => check_node(items, &keyword_at(), false, issues),
                None => issues.push(SchemaIssue::new(
                    keyword_at(),
                    format!("expected `items` at {where_} to be one schema (a table), found {}", short(value)),
                )),
            },
            "properties" => match value.as_object() {
                Some(properties) => {
                    let keyword_at = keyword_at();
                    for (name, property) in properties {
                        let property_at = join(&keyword_at, name);
                        match property.as_object() {
                            Some(property) => check_node(property, &property_at, false, issues),
                            None => issues.push(SchemaIssue::new(
                                property_at,
                                format!(
                                    "expected property `{name}` at {where_} to be a schema (a table), found {}",
                                    short(property)
                                ),
                            )),
                        }
                    }
                }
                None => issues.push(SchemaIssue::new(
                    keyword_at(),
                    format!("expected `properties` at {where_} to be a table of schemas, found {}", short(value)),
                )),
            },
            "required" => check_required(node, value, &keyword_at, &where_, issues),
            "additionalProperties" => match value {
                Value::Bool(_) => {}
                Value::Object(_) if root => {
                    issues.push(SchemaIssue::new(
                        keyword_at(),
                        "`additionalProperties` at the root must be `false` or absent (the arguments are a struct), found a schema",
                    ));
                }
                Value::Object(map) => {
                    if node.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()) {
                        issues.push(SchemaIssue::new(
                            keyword_at(),
                            format!(
                                "`additionalProperties` at {where_} is a schema next to `properties`, expected `false` or absent (a struct), or no `properties` (a map)"
                            ),
                        ));
                    } else {
                        check_node(map, &keyword_at(), false, issues);
                    }
                }
                other => issues.push(SchemaIssue::new(
                    keyword_at(),
                    format!(
                        "expected `additionalProperties` at {where_} to be `false`, `true` or a schema, found {}",
                        short(other)
                    ),
                )),
            },
            _ => {}
        }
    }

    if kinds.contains(&Kind::Array) && !node.contains_key("items") {
        issues.push(SchemaIssue::new(
            at,
            format!(
                "array schema at {where_} has no `items`, expected one schema for the elements"
            ),
        ));
    }
    let is_map = node
        .get("additionalProperties")
        .is_some_and(Value::is_object);
    if !root && kinds.contains(&Kind::Object) && !node.contains_key("properties") && !is_map {
        issues.push(SchemaIssue::new(
            at,
            format!(
                "object schema at {where_} has neither `properties` (a struct) nor an `additionalProperties` schema (a map), expected one of them"
            ),
        ));
    }
}

fn check_enum(value: &Value, single: Option<Kind>, at: &str, issues: &mut Vec<SchemaIssue>) {
    let Some(values) = value.as_array() else {
        issues.push(SchemaIssue::new(
            at,
            format!("expected `enum` to be an array, found {}", short(value)),
        ));
        return;
    };
    if values.is_empty() {
        issues.push(SchemaIssue::new(
            at,
            "`enum` is empty, expected at least one value",
        ));
        return;
    }
    let Some(kind) = single else {
        return;
    };
    for (i, item) in values.iter().enumerate() {
        let item_at = || format!("{at}/{i}");
        if !kind.matches(item) {
            let why = if kind == Kind::String {
                " (a string enum becomes a Rust enum)"
            } else {
                ""
            };
            issues.push(SchemaIssue::new(
                item_at(),
                format!(
                    "`enum` value {} of a `{}` schema is not {} {}{why}",
                    short(item),
                    kind.name(),
                    article(kind.name()),
                    kind.name()
                ),
            ));
        } else if values[..i].contains(item) {
            issues.push(SchemaIssue::new(
                item_at(),
                format!("duplicate `enum` value {}", short(item)),
            ));
        }
    }
}

fn check_required(
    node: &Map<String, Value>,
    value: &Value,
    at: &dyn Fn() -> String,
    where_: &str,
    issues: &mut Vec<SchemaIssue>,
) {
    let Some(names) = value.as_array() else {
        issues.push(SchemaIssue::new(
            at(),
            format!(
                "expected `required` at {where_} to be an array of property names, found {}",
                short(value)
            ),
        ));
        return;
    };
    let declared = node.get("properties").and_then(Value::as_object);
    for (i, name) in names.iter().enumerate() {
        let item_at = || format!("{}/{i}", at());
        let Some(name) = name.as_str() else {
            issues.push(SchemaIssue::new(
                item_at(),
                format!(
                    "expected a property name in `required` at {where_}, found {}",
                    short(name)
                ),
            ));
            continue;
        };
        if names[..i].iter().any(|n| n.as_str() == Some(name)) {
            issues.push(SchemaIssue::new(
                item_at(),
                format!("duplicate required property `{name}` at {where_}"),
            ));
        } else if !declared.is_some_and(|p| p.contains_key(name)) {
            let properties: Vec<&str> = declared
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let expected = if properties.is_empty() {
                "there are no `properties`".to_owned()
            } else {
                format!("expected one of {}", backticked(&properties))
            };
            issues.push(SchemaIssue::new(
                item_at(),
                format!(
                    "required property `{name}` at {where_} is not in `properties`, {expected}"
                ),
            ));
        }
    }
}

pub(crate) fn is_type_keyword(keyword: &str) -> bool {
    [
        STRING_KEYWORDS,
        NUMBER_KEYWORDS,
        ARRAY_KEYWORDS,
        OBJECT_KEYWORDS,
    ]
    .iter()
    .any(|set| set.contains(&keyword))
}

pub(crate) fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The JSON type of a value, with its article, for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value for a message: JSON text, cut short when long.
pub(crate) fn short(value: &Value) -> String {
    truncate(&value.to_string(), 40)
}

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    let mut cut = String::new();
    for (i, c) in text.chars().enumerate() {
        if i + 1 >= max && text.chars().nth(max).is_some() {
            cut.push('…');
            break;
        }
        push_visible(&mut cut, c);
    }
    cut
}

/// Pushes `c`, or its `\u{…}` escape when it is a control character or one that is invisible
/// or reorders text (bidirectional controls, zero-width characters, the byte order mark): a
/// message must show what is written, not hide or reverse it.
fn push_visible(out: &mut String, c: char) {
    let invisible = c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        );
    if invisible {
        out.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
    } else {
        out.push(c);
    }
}

/// The closest candidate to `word`, ignoring case, if it is close enough to be a typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // The distance is at least the difference in length: a word twice as long as every
    // candidate is no typo of one (and is not worth a quadratic comparison).
    let longest = candidates.iter().map(|c| c.len()).max().unwrap_or(0);
    if word.len() > 2 * longest + 3 {
        return None;
    }
    suggest::closest(
        word,
        candidates,
        Case::Insensitive,
        |distance, candidate| distance <= (candidate.chars().count().max(3) / 3).max(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pointers(schema: Value) -> Vec<String> {
        unsupported(&schema)
            .into_iter()
            .map(|i| i.pointer)
            .collect()
    }

    #[test]
    fn the_documented_subset_is_accepted() {
        let schema = json!({
            "type": "object",
            "description": "arguments",
            "additionalProperties": false,
            "required": ["pane_id", "kind", "anchors"],
            "properties": {
                "pane_id": {"type": "string", "minLength": 1, "pattern": "^p", "format": "uuid"},
                "kind": {"type": "string", "enum": ["trend_line", "horizontal_line"], "default": "trend_line"},
                "anchors": {
                    "type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true,
                    "items": {
                        "type": "object",
                        "required": ["time"],
                        "properties": {
                            "time": {"type": "integer", "minimum": 0},
                            "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}
                        }
                    }
                },
                "style": {"type": ["object", "null"], "minProperties": 1, "properties": {"bold": {"type": "boolean"}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "value": {"type": ["string", "number", "boolean"], "title": "Value"},
                "note": {"type": ["string", "null"], "const": "x", "deprecated": true, "$comment": "c"}
            }
        });
        assert_eq!(unsupported(&schema), vec![]);
    }

    #[test]
    fn composition_and_references_are_rejected_at_their_keyword() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "string"}], "type": "string"},
                "b": {"$ref": "#/$defs/x"},
                "c/d": {"type": "string", "patternProperties": {}}
            }
        });
        assert_eq!(
            pointers(schema),
            vec![
                "/properties/a/anyOf",
                "/properties/b",
                "/properties/c~1d/patternProperties"
            ]
        );
    }

    #[test]
    fn messages_name_the_keyword_and_list_what_is_accepted() {
        let issues = unsupported(&json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minLength": 1}, "s": {"type": "string", "maxLenght": 3}}
        }));
        assert_eq!(issues.len(), 2);
        assert!(
            issues[0].message.starts_with(
                "keyword `minLength` does not apply to an `integer` schema at `/properties/n`, expected one of `type`, `minimum`,"
            ),
            "{}",
            issues[0].message
        );
        assert!(
            issues[1]
                .message
                .starts_with("unknown keyword `maxLenght` at `/properties/s`")
        );
        assert!(
            issues[1].message.ends_with("did you mean `maxLength`?"),
            "{}",
            issues[1].message
        );
    }

    #[test]
    fn the_root_must_be_an_object_struct() {
        assert_eq!(pointers(json!({"type": "string"})), vec!["/type"]);
        assert_eq!(pointers(json!({"properties": {}})), vec![""]);
        assert_eq!(
            pointers(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            vec!["/additionalProperties"]
        );
        assert_eq!(
            pointers(json!({"type": "object", "minProperties": 1})),
            vec!["/minProperties"]
        );
    }

    #[test]
    fn enums_required_and_items_are_checked() {
        let schema = json!({
            "type": "object",
            "required": ["a", "zz", "a"],
            "properties": {
                "a": {"type": "string", "enum": ["x", 1, "x"]},
                "b": {"type": "array"},
                "bb": {"type": "object", "additionalProperties": true},
                "c": {"type": "integer", "enum": [1, 2.5]},
                "d": {"type": ["array", "string"]},
                "e": {"type": "null"},
                "f": {"type": "strng"}
            }
        });
        assert_eq!(
            pointers(schema),
            vec![
                "/properties/a/enum/1",
                "/properties/a/enum/2",
                "/properties/b",
                "/properties/bb",
                "/properties/c/enum/1",
                "/properties/d/type",
                "/properties/e/type",
                "/properties/f/type",
                "/required/1",
                "/required/2",
            ]
        );
    }

    #[test]
    fn dialect_is_stripped_only_when_it_is_2020_12() {
        let mut schema = json!({"$schema": DRAFT_2020_12, "type": "object"});
        assert_eq!(strip_dialect(&mut schema), None);
        assert_eq!(schema, json!({"type": "object"}));
        let mut schema =
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"});
        let issue = strip_dialect(&mut schema).expect("draft 7 is not accepted");
        assert_eq!(issue.pointer, "/$schema");
    }

    #[test]
    fn canonical_text_sorts_keys_and_drops_the_dialect_at_the_root_only() {
        // Parsed from text, not built with `json!`: guards against `serde_json/preserve_order`
        // being switched on by feature unification.
        let value: Value = serde_json::from_str(
            r#"{"type":"object","$schema":"x","properties":{"b":{"$schema":"y"},"a":{}}}"#,
        )
        .expect("JSON");
        assert_eq!(
            canonical_text(&value),
            r#"{"properties":{"a":{},"b":{"$schema":"y"}},"type":"object"}"#
        );
    }

    #[test]
    fn sample_values_are_found_in_every_node() {
        let schema = json!({
            "type": "object",
            "default": {},
            "properties": {
                "a": {"type": "integer", "default": 1, "examples": [2, 3]},
                "b": {"type": "array", "items": {"type": "string", "default": "x"}},
                "c": {"type": "object", "additionalProperties": {"type": "number", "default": 0.5}}
            }
        });
        let found: Vec<(String, String)> = sample_values(&schema)
            .into_iter()
            .map(|s| (s.pointer, s.node_pointer))
            .collect();
        let expected = [
            ("/default", ""),
            ("/properties/a/default", "/properties/a"),
            ("/properties/a/examples/0", "/properties/a"),
            ("/properties/a/examples/1", "/properties/a"),
            ("/properties/b/items/default", "/properties/b/items"),
            (
                "/properties/c/additionalProperties/default",
                "/properties/c/additionalProperties",
            ),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn closest_suggests_only_near_words() {
        assert_eq!(
            closest("saftey", &["name", "safety", "mode"]),
            Some("safety")
        );
        assert_eq!(closest("tilte", &["name", "title", "mode"]), Some("title"));
        assert_eq!(closest("colour", &["name", "safety", "mode"]), None);
    }
}
