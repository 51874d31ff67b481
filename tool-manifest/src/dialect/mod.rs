//! Provider dialects: tool definitions in the exact shape each provider accepts.
//!
//! A tool's canonical input schema is plain JSON Schema 2020-12 (from a manifest, or from schemars
//! for code-first tools). Every provider accepts a different subset of it. Each dialect here has
//!
//! - one table of rules ([`Dialect::rules`]), one entry per rule, each with a stable id;
//! - a converter that rewrites the canonical schema into what the provider accepts (moving
//!   constraints it cannot express into the description text: the registry keeps enforcing the
//!   canonical schema, so nothing is lost at run time);
//! - a checker that runs after every conversion and verifies every rule of the table on the
//!   converted definition.
//!
//! A tool that still breaks a rule fails the export with a [`Violation`] naming the tool, the JSON
//! Pointer into its exported definition (`/parameters/properties/style`) and the rule. Nothing is
//! emitted that the provider would reject at request time.
//!
//! | dialect | shape of one definition |
//! |---|---|
//! | [`Dialect::Mcp`] | `{name, title, description, inputSchema, outputSchema?, annotations}` (`tools/list`) |
//! | [`Dialect::OpenAi`] | `{type: "function", name, description, parameters, strict: true}` (Responses API) |
//! | [`Dialect::Anthropic`] | `{name, description, input_schema}` |
//! | [`Dialect::Gemini`] | `{name, description, parameters?}` (`functionDeclarations`, OpenAPI subset) |

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::model::ToolSpec;

pub mod anthropic;
pub mod gemini;
pub mod mcp;
pub mod openai;

pub use openai::{openai_nullable_pointers, strip_openai_nulls};

/// A consumer of tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    /// Model Context Protocol `tools/list`.
    Mcp,
    /// OpenAI function calling in strict mode (Responses API shape).
    OpenAi,
    /// Anthropic tool use.
    Anthropic,
    /// Google Gemini `functionDeclarations` with `parameters` (OpenAPI subset).
    Gemini,
}

impl Dialect {
    /// Every dialect, in declaration order.
    pub const ALL: &'static [Dialect] = &[
        Dialect::Mcp,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
    ];

    /// Every accepted spelling, in declaration order.
    pub const ACCEPTED: &'static [&'static str] = &["mcp", "openai", "anthropic", "gemini"];

    /// The spelling used on the command line and in file names (`generated/providers/<name>.json`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Mcp => "mcp",
            Dialect::OpenAi => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
        }
    }

    /// The file the export is written to: `<name>.json`.
    pub fn file_name(self) -> String {
        format!("{}.json", self.as_str())
    }

    /// The rules this dialect's checker verifies, one entry per rule.
    pub const fn rules(self) -> &'static [Rule] {
        match self {
            Dialect::Mcp => mcp::RULES,
            Dialect::OpenAi => openai::RULES,
            Dialect::Anthropic => anthropic::RULES,
            Dialect::Gemini => gemini::RULES,
        }
    }

    /// The rule with this id in this dialect's table.
    pub fn rule(self, id: &str) -> Option<&'static Rule> {
        self.rules().iter().find(|r| r.id == id)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A dialect name that is not one of [`Dialect::ACCEPTED`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dialect `{}`, expected one of ", self.0)?;
        for (i, name) in Dialect::ACCEPTED.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{name}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// One rule of a provider: what it rejects at request time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable id, `<dialect>.<rule>` (`openai.closed-objects`).
    pub id: &'static str,
    /// What the provider requires, in one sentence.
    pub text: &'static str,
}

/// A tool that breaks a rule of a dialect, after conversion.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// The tool's name.
    pub tool: String,
    /// JSON Pointer (RFC 6901) into the tool's exported definition (`/name`,
    /// `/parameters/properties/style`); empty for the whole definition or the whole export.
    /// Below the schema key it follows the canonical schema, except inside inlined references.
    pub pointer: String,
    /// The id of the broken rule (an entry of [`Dialect::rules`]).
    pub rule: &'static str,
    /// What exactly is wrong there.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(
            f,
            "tool `{}` at `{}`: {} (rule `{}`)",
            self.tool, pointer, self.message, self.rule
        )
    }
}

/// Every violation of one export. Display: one violation per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError {
    /// The dialect being exported.
    pub dialect: Dialect,
    /// Sorted by tool, pointer and rule.
    pub violations: Vec<Violation>,
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}: {v}", self.dialect)?;
        }
        Ok(())
    }
}

impl std::error::Error for ExportError {}

/// The definitions of `specs` for `dialect`: a JSON array in the provider's own request shape,
/// sorted by tool name.
///
/// # Errors
/// Every tool that breaks a rule of the dialect after conversion, and every rule about the whole
/// set (unique names, the number of functions per request), all reported together.
pub fn export(dialect: Dialect, specs: &[ToolSpec]) -> Result<Value, ExportError> {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));

    let mut violations = Vec::new();
    let mut definitions = Vec::with_capacity(sorted.len());
    for spec in &sorted {
        match convert(dialect, spec) {
            Ok(definition) => definitions.push(definition),
            Err(mut found) => violations.append(&mut found),
        }
    }
    violations.extend(check_set(dialect, &sorted));

    if violations.is_empty() {
        Ok(Value::Array(definitions))
    } else {
        violations.sort();
        violations.dedup();
        Err(ExportError {
            dialect,
            violations,
        })
    }
}

/// [`export`] as the text of `generated/providers/<dialect>.json`: pretty-printed, keys sorted,
/// ending in a newline; byte-identical from run to run.
///
/// # Errors
/// As [`export`].
pub fn export_json(dialect: Dialect, specs: &[ToolSpec]) -> Result<String, ExportError> {
    let value = export(dialect, specs)?;
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    Ok(text)
}

/// The definition of one tool for `dialect`, converted and then checked against every rule.
///
/// # Errors
/// Every rule the tool still breaks, with the pointer into the definition.
pub fn convert(dialect: Dialect, spec: &ToolSpec) -> Result<Value, Vec<Violation>> {
    let mut report = Report::new(&spec.name);
    let definition = match dialect {
        Dialect::Mcp => mcp::convert(spec, &mut report),
        Dialect::OpenAi => openai::convert(spec, &mut report),
        Dialect::Anthropic => anthropic::convert(spec, &mut report),
        Dialect::Gemini => gemini::convert(spec, &mut report),
    };
    let refused = report.violations.clone();
    let mut checked = Report::new(&spec.name);
    match dialect {
        Dialect::Mcp => mcp::check(&definition, spec, &mut checked),
        Dialect::OpenAi => openai::check(&definition, &mut checked),
        Dialect::Anthropic => anthropic::check(&definition, &mut checked),
        Dialect::Gemini => gemini::check(&definition, &mut checked),
    }
    // What the checker finds where the converter already refused is a consequence, not news.
    for found in checked.violations {
        if !refused
            .iter()
            .any(|r| is_consequence(&found.pointer, &r.pointer))
        {
            report.violations.push(found);
        }
    }
    report.finish().map(|()| definition)
}

/// Is a checker finding at `found` explained by a refusal at `refused`: the same place, below
/// it, or the schema directly holding it?
fn is_consequence(found: &str, refused: &str) -> bool {
    found == refused
        || found.starts_with(&format!("{refused}/"))
        || refused
            .strip_prefix(&format!("{found}/"))
            .is_some_and(|rest| !rest.contains('/'))
}

/// Only the checker: the violations of an already converted definition (empty when it passes).
/// Useful to verify a definition written by hand or by an older version.
pub fn check(dialect: Dialect, definition: &Value, spec: &ToolSpec) -> Vec<Violation> {
    let mut report = Report::new(&spec.name);
    match dialect {
        Dialect::Mcp => mcp::check(definition, spec, &mut report),
        Dialect::OpenAi => openai::check(definition, &mut report),
        Dialect::Anthropic => anthropic::check(definition, &mut report),
        Dialect::Gemini => gemini::check(definition, &mut report),
    }
    let mut violations = report.violations;
    violations.sort();
    violations.dedup();
    violations
}

/// Rules about the whole set: unique names, and the number of functions in one request.
fn check_set(dialect: Dialect, sorted: &[&ToolSpec]) -> Vec<Violation> {
    let mut violations = Vec::new();
    let unique = match dialect {
        Dialect::Mcp => mcp::UNIQUE_NAMES,
        Dialect::OpenAi => openai::UNIQUE_NAMES,
        Dialect::Anthropic => anthropic::UNIQUE_NAMES,
        Dialect::Gemini => gemini::UNIQUE_NAMES,
    };
    for pair in sorted.windows(2) {
        if let [a, b] = pair
            && a.name == b.name
        {
            violations.push(Violation {
                tool: b.name.clone(),
                pointer: "/name".to_owned(),
                rule: unique,
                message: format!("tool name `{}` is declared more than once", b.name),
            });
        }
    }
    if dialect == Dialect::OpenAi && sorted.len() > openai::MAX_FUNCTIONS {
        violations.push(Violation {
            tool: sorted[openai::MAX_FUNCTIONS].name.clone(),
            pointer: String::new(),
            rule: openai::MAX_FUNCTIONS_RULE,
            message: format!(
                "the export has {} functions, at most {} are accepted in one request",
                sorted.len(),
                openai::MAX_FUNCTIONS
            ),
        });
    }
    violations
}

/// Collects the violations of one tool.
#[derive(Debug)]
pub(crate) struct Report {
    tool: String,
    violations: Vec<Violation>,
}

impl Report {
    pub(crate) fn new(tool: &str) -> Self {
        Report {
            tool: tool.to_owned(),
            violations: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, pointer: &str, rule: &'static str, message: impl Into<String>) {
        self.violations.push(Violation {
            tool: self.tool.clone(),
            pointer: pointer.to_owned(),
            rule,
            message: message.into(),
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.violations.len()
    }

    fn finish(mut self) -> Result<(), Vec<Violation>> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            self.violations.sort();
            self.violations.dedup();
            Err(self.violations)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Schema walking, shared by the dialects.

/// Keywords whose value is a map of names to subschemas.
const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is a list of subschemas.
const SUBSCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is one subschema.
const SUBSCHEMA_SINGLE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];

/// Escapes one JSON Pointer segment (RFC 6901).
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `ptr` + `/segment`, escaped.
pub(crate) fn join(ptr: &str, segment: &str) -> String {
    format!("{ptr}/{}", escape(segment))
}

/// Calls `f` on every direct subschema of `node` (pre-order helpers build on this).
pub(crate) fn for_each_child(node: &Value, ptr: &str, f: &mut dyn FnMut(&Value, &str)) {
    let Value::Object(map) = node else { return };
    for (key, value) in map {
        let here = join(ptr, key);
        if SUBSCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(children) = value {
                for (name, child) in children {
                    f(child, &join(&here, name));
                }
            }
        } else if SUBSCHEMA_LISTS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(children) = value {
                for (i, child) in children.iter().enumerate() {
                    f(child, &format!("{here}/{i}"));
                }
            }
        } else if SUBSCHEMA_SINGLE.contains(&key.as_str()) && value.is_object() {
            f(value, &here);
        }
    }
}

/// Calls `f` on every direct subschema of `node`, mutably.
pub(crate) fn for_each_child_mut(node: &mut Value, ptr: &str, f: &mut dyn FnMut(&mut Value, &str)) {
    let Value::Object(map) = node else { return };
    for (key, value) in map.iter_mut() {
        let here = join(ptr, key);
        if SUBSCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(children) = value {
                for (name, child) in children.iter_mut() {
                    f(child, &join(&here, name));
                }
            }
        } else if SUBSCHEMA_LISTS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(children) = value {
                for (i, child) in children.iter_mut().enumerate() {
                    f(child, &format!("{here}/{i}"));
                }
            }
        } else if SUBSCHEMA_SINGLE.contains(&key.as_str()) && value.is_object() {
            f(value, &here);
        }
    }
}

/// Visits `node` and every subschema below it, pre-order.
pub(crate) fn walk(node: &Value, ptr: &str, f: &mut dyn FnMut(&Value, &str)) {
    f(node, ptr);
    for_each_child(node, ptr, &mut |child, here| walk(child, here, f));
}

/// Removes `key` from `node` and from every subschema below it.
pub(crate) fn remove_everywhere(node: &mut Value, key: &str) {
    if let Value::Object(map) = node {
        map.remove(key);
    }
    for_each_child_mut(node, "", &mut |child, _| remove_everywhere(child, key));
}

/// Resolves a local `$ref` (`#`, `#/$defs/Name`, any `#/...` pointer) against `root`.
pub(crate) fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded = percent_decode(pointer)?;
    root.pointer(&decoded)
}

/// Decodes `%XX` escapes in a URI fragment.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Checks every `$ref` and `$dynamicRef` below `schema`: local and resolvable.
pub(crate) fn check_local_refs(
    schema: &Value,
    base: &str,
    rule: &'static str,
    report: &mut Report,
) {
    walk(schema, base, &mut |node, ptr| {
        for key in ["$ref", "$dynamicRef"] {
            let Some(reference) = node.get(key) else {
                continue;
            };
            let here = join(ptr, key);
            match reference.as_str() {
                Some(r) if r.starts_with('#') => {
                    if resolve_local(schema, r).is_none() {
                        report.push(&here, rule, format!("`{key}` `{r}` does not resolve"));
                    }
                }
                Some(r) => report.push(
                    &here,
                    rule,
                    format!("`{key}` `{r}` is not local; only `#/...` references are allowed"),
                ),
                None => report.push(&here, rule, format!("`{key}` is not a string")),
            }
        }
    });
}

/// The JSON type names of a node's `type` (a string or a list).
pub(crate) fn types_of(node: &Map<String, Value>) -> Vec<String> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Keywords that only annotate a schema: they never reject a value.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Keywords that apply to one JSON type only.
pub(crate) fn keyword_type(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "minLength" | "maxLength" | "pattern" | "format" | "contentEncoding"
        | "contentMediaType" => &["string"],
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            &["number", "integer"]
        }
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains"
        | "minContains" | "maxContains" | "unevaluatedItems" | "additionalItems" => &["array"],
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => &["object"],
        _ => return None,
    })
}

/// The JSON type name of a value (`integer` for integral numbers).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Does a value of JSON type `actual` satisfy the schema type `wanted`?
pub(crate) fn type_matches(wanted: &str, actual: &str) -> bool {
    wanted == actual || (wanted == "number" && actual == "integer")
}

/// Splits a node whose `type` lists two or more non-null types into an `anyOf` with one branch
/// per type, each carrying the keywords that apply to its type (and the `enum`/`const` values of
/// its type). Annotations stay on the outer node. A `null` in the list becomes a `{"type":
/// "null"}` branch. Returns `None` when the node lists fewer than two non-null types.
pub(crate) fn split_type_union(node: &Map<String, Value>) -> Option<Map<String, Value>> {
    let types = types_of(node);
    let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    if non_null.len() < 2 || node.contains_key("anyOf") || node.contains_key("oneOf") {
        return None;
    }
    let mut outer = Map::new();
    let mut branches = Vec::new();
    for t in &non_null {
        let mut branch = Map::new();
        branch.insert("type".to_owned(), Value::String((*t).clone()));
        // A branch none of whose `enum`/`const` values has its type accepts nothing: left out.
        let mut possible = true;
        for (key, value) in node {
            if let Some(applies) = keyword_type(key) {
                if applies.iter().any(|a| type_matches(a, t)) {
                    branch.insert(key.clone(), value.clone());
                }
            } else if key == "enum" {
                let mine: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| type_matches(t, json_type(v)))
                    .cloned()
                    .collect();
                possible &= !mine.is_empty();
                branch.insert(key.clone(), Value::Array(mine));
            } else if key == "const" {
                possible &= type_matches(t, json_type(value));
                branch.insert(key.clone(), value.clone());
            }
        }
        if possible {
            branches.push(Value::Object(branch));
        }
    }
    if branches.is_empty() {
        return None;
    }
    if types.iter().any(|t| t == "null")
        && node
            .get("enum")
            .is_none_or(|e| e.as_array().is_some_and(|v| v.contains(&Value::Null)))
    {
        let mut null = Map::new();
        null.insert("type".to_owned(), Value::String("null".to_owned()));
        branches.push(Value::Object(null));
    }
    for (key, value) in node {
        let typed =
            keyword_type(key).is_some() || matches!(key.as_str(), "type" | "enum" | "const");
        if !typed {
            outer.insert(key.clone(), value.clone());
        }
    }
    outer.insert("anyOf".to_owned(), Value::Array(branches));
    Some(outer)
}

/// Merges the keywords of `from` into `into` (an `allOf` entry into its parent, or a parent's
/// keywords into an `anyOf` branch). `properties` are united, `required` lists joined; any other
/// keyword present on both sides with different values is a conflict, returned by name.
pub(crate) fn merge_into(
    into: &mut Map<String, Value>,
    from: &Map<String, Value>,
) -> Result<(), String> {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(key)) {
            (_, None) => {
                into.insert(key.clone(), value.clone());
            }
            (_, Some(existing)) if existing == value => {}
            ("properties", Some(Value::Object(mine))) => {
                let Value::Object(theirs) = value else {
                    return Err(key.clone());
                };
                for (name, schema) in theirs {
                    match mine.get(name) {
                        None => {
                            mine.insert(name.clone(), schema.clone());
                        }
                        Some(same) if same == schema => {}
                        Some(_) => return Err(format!("properties/{name}")),
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                let Value::Array(theirs) = value else {
                    return Err(key.clone());
                };
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            ("description" | "title" | "$comment" | "examples", Some(_)) => {}
            (_, Some(_)) => return Err(key.clone()),
        }
    }
    Ok(())
}

/// Human text for a keyword a provider cannot take, to keep in the description; `None` for
/// keywords that can be dropped without telling the model anything.
pub(crate) fn describe_keyword(key: &str, value: &Value) -> Option<String> {
    let n = || number_text(value);
    Some(match key {
        "minLength" => format!("at least {} character{}", n(), plural(value)),
        "maxLength" => format!("at most {} character{}", n(), plural(value)),
        "minimum" => format!("at least {}", n()),
        "maximum" => format!("at most {}", n()),
        "exclusiveMinimum" => format!("greater than {}", n()),
        "exclusiveMaximum" => format!("less than {}", n()),
        "multipleOf" => format!("a multiple of {}", n()),
        "minItems" => format!("at least {} item{}", n(), plural(value)),
        "maxItems" => format!("at most {} item{}", n(), plural(value)),
        "uniqueItems" if value == &Value::Bool(true) => "items are unique".to_owned(),
        "minProperties" => format!("at least {} propert{}", n(), ies(value)),
        "maxProperties" => format!("at most {} propert{}", n(), ies(value)),
        "pattern" => format!(
            "matches the pattern `{}`",
            value.as_str().unwrap_or_default()
        ),
        "format" => format!("format `{}`", value.as_str().unwrap_or_default()),
        "const" => format!("always {}", compact(value)),
        "enum" => {
            let values: Vec<String> = value
                .as_array()
                .map(|v| v.iter().map(compact).collect())
                .unwrap_or_default();
            format!("one of {}", values.join(", "))
        }
        "default" => format!("default: {}", compact(value)),
        "examples" => {
            let values: Vec<String> = value
                .as_array()
                .map(|v| v.iter().map(compact).collect())
                .unwrap_or_default();
            if values.is_empty() {
                return None;
            }
            format!("for example {}", values.join(", "))
        }
        "deprecated" if value == &Value::Bool(true) => "deprecated".to_owned(),
        "dependentRequired" => {
            let mut parts = Vec::new();
            if let Value::Object(map) = value {
                for (name, needs) in map {
                    let needs: Vec<String> = needs
                        .as_array()
                        .map(|v| {
                            v.iter()
                                .filter_map(Value::as_str)
                                .map(|s| format!("`{s}`"))
                                .collect()
                        })
                        .unwrap_or_default();
                    parts.push(format!("`{name}` requires {}", needs.join(", ")));
                }
            }
            parts.join("; ")
        }
        "dependentSchemas" => {
            let mut parts = Vec::new();
            if let Value::Object(map) = value {
                for (name, schema) in map {
                    parts.push(format!("with `{name}` it also matches {}", compact(schema)));
                }
            }
            parts.join("; ")
        }
        "not" => format!("must not match {}", compact(value)),
        "if" => format!("if it matches {}", compact(value)),
        "then" => format!("then it matches {}", compact(value)),
        "else" => format!("otherwise it matches {}", compact(value)),
        "contains" => format!("contains an item matching {}", compact(value)),
        "minContains" => format!("at least {} matching item{}", n(), plural(value)),
        "maxContains" => format!("at most {} matching item{}", n(), plural(value)),
        "propertyNames" => format!("property names match {}", compact(value)),
        "patternProperties" => {
            let mut parts = Vec::new();
            if let Value::Object(map) = value {
                for (pattern, schema) in map {
                    parts.push(format!(
                        "properties named like `{pattern}` match {}",
                        compact(schema)
                    ));
                }
            }
            parts.join("; ")
        }
        "additionalProperties" | "unevaluatedProperties" if value.is_object() => {
            format!("other properties match {}", compact(value))
        }
        "contentEncoding" => format!("encoded as {}", value.as_str().unwrap_or_default()),
        "contentMediaType" => format!("media type {}", value.as_str().unwrap_or_default()),
        _ => return None,
    })
}

fn number_text(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        other => compact(other),
    }
}

fn plural(value: &Value) -> &'static str {
    if value.as_f64() == Some(1.0) { "" } else { "s" }
}

fn ies(value: &Value) -> &'static str {
    if value.as_f64() == Some(1.0) {
        "y"
    } else {
        "ies"
    }
}

/// Compact JSON text of a value (strings quoted).
pub(crate) fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The order notes are written in (bounds read "at least … ; at most …"), then by keyword.
const NOTE_ORDER: &[&str] = &[
    "const",
    "enum",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "not",
    "if",
    "then",
    "else",
    "contentEncoding",
    "contentMediaType",
    "default",
    "examples",
    "deprecated",
];

/// Notes about removed keywords, written into the description in a fixed order.
#[derive(Debug, Default)]
pub(crate) struct Notes(Vec<(usize, String)>);

impl Notes {
    /// Describes `key: value` if it says anything the model should know.
    pub(crate) fn keyword(&mut self, key: &str, value: &Value) {
        if let Some(text) = describe_keyword(key, value) {
            self.push(key, text);
        }
    }

    /// A note ranked as `key`.
    pub(crate) fn push(&mut self, key: &str, text: String) {
        let rank = NOTE_ORDER
            .iter()
            .position(|k| *k == key)
            .unwrap_or(NOTE_ORDER.len());
        self.0.push((rank, text));
    }

    /// Appends the notes to the node's description.
    pub(crate) fn write(mut self, node: &mut Map<String, Value>) {
        self.0.sort_by_key(|(rank, _)| *rank);
        let texts: Vec<String> = self.0.into_iter().map(|(_, text)| text).collect();
        append_notes(node, &texts);
    }
}

/// Appends `(note; note)` to the node's description.
pub(crate) fn append_notes(node: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let text = format!("({})", notes.join("; "));
    let description = match node.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => format!("{} {text}", d.trim_end()),
        _ => text,
    };
    node.insert("description".to_owned(), Value::String(description));
}

/// Formats that only restate the width of a Rust number (schemars writes them); dropping them
/// tells the model nothing it needs.
pub(crate) const NUMBER_WIDTH_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// `^[A-Za-z0-9_-]{1,max}$` plus `extra` characters.
pub(crate) fn name_fits(name: &str, max: usize, extra: &[char]) -> bool {
    !name.is_empty()
        && name.chars().count() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
}

/// Checks the root of an input schema: `type: "object"`.
pub(crate) fn check_object_root(
    schema: Option<&Value>,
    ptr: &str,
    rule: &'static str,
    object: &str,
    report: &mut Report,
) {
    match schema {
        None => report.push(ptr, rule, "the schema is missing"),
        Some(Value::Object(map)) => {
            if map.get("type").and_then(Value::as_str) != Some(object) {
                report.push(
                    &join(ptr, "type"),
                    rule,
                    format!("the root schema must have `type` {object:?}"),
                );
            }
        }
        Some(_) => report.push(ptr, rule, "the schema is not a JSON object"),
    }
}

/// Meta-validates `schema` against JSON Schema 2020-12 and, when `compile` is set, compiles it
/// (patterns, references).
pub(crate) fn check_2020_12(
    schema: &Value,
    ptr: &str,
    rule: &'static str,
    compile: bool,
    report: &mut Report,
) {
    let meta = jsonschema::draft202012::meta::validator();
    let mut any = false;
    for error in meta.iter_errors(schema) {
        any = true;
        let at = format!("{ptr}{}", error.instance_path().as_str());
        report.push(&at, rule, format!("not valid JSON Schema 2020-12: {error}"));
    }
    if !any
        && compile
        && let Err(error) = jsonschema::draft202012::new(schema)
    {
        let at = format!("{ptr}{}", error.instance_path().as_str());
        report.push(&at, rule, format!("the schema does not compile: {error}"));
    }
}

/// Verifies that a canonical schema is valid JSON Schema 2020-12 before it is converted (a
/// provider refuses what does not even parse: a negative `maxLength`, a pattern that is not a
/// regex). Patterns and references are compiled only when every reference is local: a remote
/// one is the subject of its own rule.
pub(crate) fn check_canonical(schema: &Value, base: &str, rule: &'static str, report: &mut Report) {
    let mut refs = Report::new("");
    check_local_refs(schema, base, rule, &mut refs);
    check_2020_12(schema, base, rule, refs.len() == 0, report);
}

/// The names in a node's `required` list.
pub(crate) fn required_names(node: &Map<String, Value>) -> BTreeSet<String> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
