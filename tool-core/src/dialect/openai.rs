//! OpenAI function calling: strict mode where it can express the tool, `"strict": false`
//! where it cannot.
//!
//! Shapes: one function, `{name, description, parameters, strict}`, in the wrapper of each API:
//! Chat Completions nests it, `{type: "function", function: {…}}`
//! ([`Dialect::OpenAi`](super::Dialect::OpenAi)); Responses flattens it, `{type: "function",
//! name, description, parameters, strict}`
//! ([`Dialect::OpenAiResponses`](super::Dialect::OpenAiResponses)). Both APIs get the same
//! function: the decision below is made once per tool.
//!
//! Strict mode is per function. Every tool is first converted for strict mode
//! (`"strict": true`), which accepts a subset of JSON Schema and makes the model's output
//! follow it exactly. That converter:
//!
//! - closes every object (`additionalProperties: false`) and lists every property in `required`;
//! - makes every originally optional property nullable (`"type": [T, "null"]`, `null` added to an
//!   `enum`, or `anyOf` with `{"type": "null"}` for objects, references and constants). The
//!   registry must then accept `null` exactly there and treat it as absent: see
//!   [`NullStripper`](super::NullStripper);
//! - inlines a `$ref` that has sibling keywords (siblings win), merges `allOf`, turns `oneOf`
//!   into `anyOf` and a `type` listing several types into an `anyOf`;
//! - removes unsupported keywords (`minLength`, `maxLength`, `not`, `if`/`then`/`else`,
//!   `dependentRequired`, `uniqueItems`, `default`, formats outside the list, …) and keeps what
//!   they say in the description text, e.g. `(at least 1 character)`. The registry keeps
//!   enforcing them on every call.
//!
//! Closing objects and requiring every property narrows what the schema accepts: strict mode
//! demands it, and the nullable fields and the registry's own validation make up for it.
//!
//! A tool strict mode cannot express (maps with free keys, free-form objects, tuples, untyped
//! values, limits exceeded: the rules of [`STRICT_RULES`]) is still a valid function without
//! strict mode: it is exported with `"strict": false` and its canonical schema, changed only as
//! far as OpenAI requires of every function (a root `properties`, `items` on every array, a
//! root `allOf` merged), none of which narrows it. Its optional fields are not made nullable,
//! so the registry reads its `null`s as the values they are. The strict-mode rules it breaks
//! come back in [`Converted::non_strict`](super::Converted::non_strict), for a warning (or an
//! error, where strict mode is required). Only what no function can carry (a bad name, a root
//! that is not an object, a reference that does not resolve) is refused, with the pointer.

use serde_json::{Value, json};

use super::checks::{
    Verdict, check_local_refs, check_name, check_object_root, compact, siblings, walk,
};
use super::lower::{self, Combinators, Nulls, Profile, References, is_object_node, no_step};
use super::report::{Converted, Report, Rule, Violation, checked};
use crate::model::ToolSpec;
use crate::schema::draft::{self, Draft};
use crate::schema::join;
use crate::schema::keywords::Kind;
use crate::schema::walk::has_type;

/// The rules of OpenAI function calling, one entry each. The rules of [`STRICT_RULES`] apply to
/// a function with `"strict": true` only.
pub const RULES: &[Rule] = &[
    Rule {
        id: "openai.shape",
        text: "a definition is its API's function tool: `{type: \"function\", function: {name, description, parameters, strict}}` for Chat Completions, `{type: \"function\", name, description, parameters, strict}` for Responses",
    },
    Rule {
        id: "openai.name",
        text: "`name` matches `^[a-zA-Z0-9_-]{1,64}$`",
    },
    Rule {
        id: "openai.unique-name",
        text: "every function of a request has its own name",
    },
    Rule {
        id: "openai.max-functions",
        text: "at most 128 functions in one request",
    },
    Rule {
        id: "openai.valid-schema",
        text: "the tool's schema is valid JSON Schema 2020-12 before conversion (bounds, patterns that compile)",
    },
    Rule {
        id: "openai.object-root",
        text: "`parameters` has `type: \"object\"` and `properties` at the root, and no `anyOf`, `oneOf`, `allOf`, `enum` or `not` there",
    },
    Rule {
        id: "openai.array-items",
        text: "every schema of `type: \"array\"` has `items`, a schema object",
    },
    Rule {
        id: "openai.closed-objects",
        text: "strict mode: every object has `additionalProperties: false` (maps with free keys cannot be expressed)",
    },
    Rule {
        id: "openai.all-required",
        text: "strict mode: every property of every object is listed in `required`; optional ones are nullable",
    },
    Rule {
        id: "openai.typed",
        text: "strict mode: every schema has `type`, `enum`, `const`, `anyOf` or `$ref`",
    },
    Rule {
        id: "openai.refs",
        text: "every `$ref` is local and resolves; in strict mode it has no sibling keywords",
    },
    Rule {
        id: "openai.keywords",
        text: "strict mode: only supported keywords: `type`, `description`, `title`, `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `$defs`, `definitions`, `pattern`, `format`, `multipleOf`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`",
    },
    Rule {
        id: "openai.formats",
        text: "strict mode: `format` is one of `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`",
    },
    Rule {
        id: "openai.limits",
        text: "strict mode: at most 5000 properties, 10 levels of object nesting, 1000 enum values, 120,000 characters of names, enum and const values",
    },
];

/// The rules only strict mode has: a tool that breaks one of them (and nothing else) is
/// exported with `"strict": false`.
pub const STRICT_RULES: &[&str] = &[
    "openai.closed-objects",
    "openai.all-required",
    "openai.typed",
    "openai.keywords",
    "openai.formats",
    "openai.limits",
];

/// Which API a definition is written for: the same function, in its own wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// `{type: "function", function: {…}}`.
    ChatCompletions,
    /// `{type: "function", name, …}`.
    Responses,
}

impl Api {
    /// Where the function's fields are, as a pointer prefix into the definition.
    const fn prefix(self) -> &'static str {
        match self {
            Api::ChatCompletions => "/function",
            Api::Responses => "",
        }
    }
}

/// The OpenAI decision for one tool, shared by both APIs: its function (the Responses shape)
/// with the strict-mode violations when it is not strict, or why no function can carry it.
pub(crate) type Decision = Result<(Value, Vec<Violation>), Vec<Violation>>;

/// At most this many functions in one request.
pub const MAX_FUNCTIONS: usize = 128;

/// Keywords strict mode accepts.
pub const KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// String formats strict mode accepts.
pub const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const MAX_PROPERTIES: usize = 5000;
const MAX_NESTING: usize = 10;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_CHARS: usize = 120_000;
const LARGE_ENUM: usize = 250;
const LARGE_ENUM_CHARS: usize = 15_000;

/// How strict mode takes a schema: the keywords of [`KEYWORDS`] and the formats of [`FORMATS`]
/// stay, every object is closed and its optional properties made required but nullable, a
/// `$ref` with siblings is inlined.
const STRICT: Profile = Profile {
    typed: Some("openai.typed"),
    keywords_rule: "openai.keywords",
    refs_rule: "openai.refs",
    root_rule: "openai.object-root",
    keywords: Some(KEYWORDS),
    // Closing the object refuses a map's `patternProperties`, with its own rule.
    kept: &["patternProperties"],
    formats: |_| FORMATS,
    tuples: (
        &["prefixItems", "items"],
        "`{}` (a tuple) cannot be expressed in strict mode",
    ),
    example: false,
    references: References::Alone,
    combinators: Combinators::Everywhere,
    nulls: Nulls::Listed,
    closed: Some("openai.closed-objects"),
    items_written: false,
    adjust: no_step,
    finish: no_step,
};

/// How a function without strict mode takes a schema: as it is, changed only where OpenAI
/// refuses every function (none of it narrows what the schema accepts): a root `allOf` merged
/// into the root, a root `properties` written out, `items: {}` written on an array schema
/// without an `items` schema object (in place of `true` or of none, the same items are
/// accepted; in place of `false`, more).
const RELAXED: Profile = Profile {
    typed: None,
    keywords: None,
    references: References::Kept,
    combinators: Combinators::RootAllOf,
    closed: None,
    items_written: true,
    ..STRICT
};

/// The function of a tool (in the Responses shape, the bare function) and, when strict mode
/// cannot express it, the strict-mode violations; `verdict` is the canonical schema's. Both
/// attempts are checked in the Responses shape; the wrapper and the pointers of an API come
/// last ([`in_api`]), so both APIs share this decision.
pub(crate) fn function(spec: &ToolSpec, verdict: &Verdict) -> Decision {
    let attempt = |profile: &Profile, strict: bool| {
        checked(
            &spec.name,
            |report| {
                verdict.report("/parameters", "openai.valid-schema", report);
                let parameters = lower::lower(&spec.input_schema, "/parameters", profile, report);
                json!({
                    "type": "function",
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": parameters,
                    "strict": strict,
                })
            },
            |definition, report| check(definition, Api::Responses, report),
        )
    };
    match attempt(&STRICT, true) {
        Ok(function) => Ok((function, Vec::new())),
        Err(strict) => Ok((attempt(&RELAXED, false)?, strict)),
    }
}

/// The tool for `api`: [`function`]'s decision in the API's wrapper, with the pointers of its
/// shape.
pub(crate) fn in_api(function: &Decision, api: Api) -> Result<Converted, Vec<Violation>> {
    match function {
        Ok((function, non_strict)) => Ok(Converted {
            definition: wrap(function.clone(), api),
            non_strict: in_shape(non_strict.clone(), api),
        }),
        Err(violations) => Err(in_shape(violations.clone(), api)),
    }
}

/// The function (Responses shape) in the wrapper of `api`.
fn wrap(function: Value, api: Api) -> Value {
    match (api, function) {
        (Api::ChatCompletions, Value::Object(mut fields)) => {
            fields.remove("type");
            json!({"type": "function", "function": fields})
        }
        (_, function) => function,
    }
}

/// Violations found on the bare function, with pointers into the definition of `api`.
fn in_shape(mut violations: Vec<Violation>, api: Api) -> Vec<Violation> {
    for violation in &mut violations {
        if !violation.pointer.is_empty() {
            violation.pointer = format!("{}{}", api.prefix(), violation.pointer);
        }
    }
    violations
}

/// The name of a function tool in either API's shape.
pub(crate) fn function_name(definition: &Value) -> Option<&str> {
    definition
        .get("function")
        .unwrap_or(definition)
        .get("name")
        .and_then(Value::as_str)
}

/// Checks a definition of `api`: its shape, then the function, with the rules of strict mode
/// when it says `"strict": true`.
pub(crate) fn check(definition: &Value, api: Api, report: &mut Report) {
    let Some(function) = function_of(definition, api, report) else {
        return;
    };
    let mut found = Report::new(&report.tool);
    check_function(&function, &mut found);
    for v in in_shape(found.violations, api) {
        report.violations.push(v);
    }
}

/// The bare function of a definition of `api` (in the Responses shape), or the `openai.shape`
/// violations of a definition that is not that shape.
fn function_of(definition: &Value, api: Api, report: &mut Report) -> Option<Value> {
    let Value::Object(fields) = definition else {
        report.push("", "openai.shape", "a definition is a JSON object");
        return None;
    };
    if fields.get("type").and_then(Value::as_str) != Some("function") {
        report.push(
            "/type",
            "openai.shape",
            "a function tool has `\"type\": \"function\"`",
        );
    }
    match api {
        Api::ChatCompletions => {
            let Some(Value::Object(inner)) = fields.get("function") else {
                report.push(
                    "/function",
                    "openai.shape",
                    "a Chat Completions tool holds its function in `function`",
                );
                return None;
            };
            for key in fields
                .keys()
                .filter(|k| !matches!(k.as_str(), "type" | "function"))
            {
                report.push(
                    &join("", key),
                    "openai.shape",
                    format!("`{key}` belongs inside `function` in a Chat Completions tool"),
                );
            }
            let mut function = inner.clone();
            function.insert("type".to_owned(), json!("function"));
            Some(Value::Object(function))
        }
        Api::Responses => {
            if fields.contains_key("function") {
                report.push(
                    "/function",
                    "openai.shape",
                    "a Responses tool has its function's fields at the top, without `function`",
                );
            }
            Some(definition.clone())
        }
    }
}

fn check_function(definition: &Value, report: &mut Report) {
    check_name(
        definition,
        64,
        &[],
        "openai.name",
        |name| format!("function name `{name}` must match `^[a-zA-Z0-9_-]{{1,64}}$`"),
        report,
    );
    if !matches!(definition.get("strict"), None | Some(Value::Bool(_))) {
        report.push("/strict", "openai.shape", "`strict` is a boolean");
    }
    let strict = definition.get("strict") == Some(&Value::Bool(true));
    let parameters = definition.get("parameters");
    check_object_root(
        parameters,
        "/parameters",
        "openai.object-root",
        "object",
        report,
    );
    let Some(parameters) = parameters else { return };
    for combinator in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        if parameters.get(combinator).is_some() {
            report.push(
                &join("/parameters", combinator),
                "openai.object-root",
                format!("the root schema must not have `{combinator}`"),
            );
        }
    }
    if parameters.is_object() && !parameters.get("properties").is_some_and(Value::is_object) {
        report.push(
            "/parameters",
            "openai.object-root",
            "the root schema must have `properties` (`{}` when there are none)",
        );
    }
    walk(parameters, "/parameters", &mut |node, ptr| {
        if let Value::Object(map) = node
            && has_type(map, Kind::Array)
            && !map.get("items").is_some_and(Value::is_object)
        {
            report.push(
                ptr,
                "openai.array-items",
                "an array schema must have `items`",
            );
        }
    });
    if strict {
        check_strict(parameters, report);
    } else {
        check_local_refs(parameters, "/parameters", "openai.refs", report);
    }
}

/// The rules of strict mode, on the `parameters` of a strict function.
fn check_strict(parameters: &Value, report: &mut Report) {
    check_local_refs(parameters, "/parameters", "openai.refs", report);
    // Counted over every schema for `openai.limits`.
    let (mut properties, mut enum_values, mut chars, mut large_enum) = (0, 0, 0, None);
    walk(parameters, "/parameters", &mut |node, ptr| {
        let Value::Object(map) = node else {
            report.push(ptr, "openai.typed", "a boolean schema cannot be expressed");
            return;
        };
        for key in map.keys() {
            if !KEYWORDS.contains(&key.as_str()) {
                report.push(
                    &join(ptr, key),
                    "openai.keywords",
                    format!("keyword `{key}` is not supported in strict mode"),
                );
            }
        }
        if let Some(format) = map.get("format") {
            let known = format.as_str().is_some_and(|f| FORMATS.contains(&f));
            if !known {
                report.push(
                    &join(ptr, "format"),
                    "openai.formats",
                    format!("format {} is not supported in strict mode", compact(format)),
                );
            }
        }
        if map.contains_key("$ref") && map.len() > 1 {
            report.push(
                &join(ptr, "$ref"),
                "openai.refs",
                format!("`$ref` has sibling keywords {}", siblings(map, "$ref")),
            );
        }
        if !["type", "enum", "const", "anyOf", "$ref"]
            .iter()
            .any(|k| map.contains_key(*k))
        {
            report.push(
                ptr,
                "openai.typed",
                "the schema has no `type`, `enum`, `const`, `anyOf` or `$ref`",
            );
        }
        if is_object_node(map) {
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                report.push(
                    ptr,
                    "openai.closed-objects",
                    "the object must have `\"additionalProperties\": false`",
                );
            }
            let required = map.get("required").and_then(Value::as_array);
            if let Some(Value::Object(properties)) = map.get("properties") {
                for name in properties.keys() {
                    if !required.is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name))) {
                        report.push(
                            &join(&join(ptr, "properties"), name),
                            "openai.all-required",
                            format!("property `{name}` is not listed in `required`"),
                        );
                    }
                }
            }
        }
        for key in ["properties", "$defs", "definitions"] {
            if let Some(Value::Object(entries)) = map.get(key) {
                if key == "properties" {
                    properties += entries.len();
                }
                chars += entries.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            enum_values += values.len();
            let enum_chars: usize = values.iter().map(value_chars).sum();
            chars += enum_chars;
            if values.len() > LARGE_ENUM && enum_chars > LARGE_ENUM_CHARS {
                large_enum = Some(enum_chars);
            }
        }
        chars += map.get("const").map_or(0, value_chars);
    });
    let depth = nesting(parameters);
    let limits = [
        (
            properties > MAX_PROPERTIES,
            format!("{properties} properties, at most {MAX_PROPERTIES} are accepted"),
        ),
        (
            depth > MAX_NESTING,
            format!("{depth} levels of object nesting, at most {MAX_NESTING} are accepted"),
        ),
        (
            enum_values > MAX_ENUM_VALUES,
            format!("{enum_values} enum values, at most {MAX_ENUM_VALUES} are accepted"),
        ),
        (
            chars > MAX_CHARS,
            format!(
                "{chars} characters of names, enum and const values, at most {MAX_CHARS} are accepted"
            ),
        ),
    ];
    for (exceeded, message) in limits {
        if exceeded {
            report.push("/parameters", "openai.limits", message);
        }
    }
    if let Some(chars) = large_enum {
        report.push("/parameters", "openai.limits", format!("an enum of more than {LARGE_ENUM} values has {chars} characters, at most {LARGE_ENUM_CHARS} are accepted"));
    }
}

fn value_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        Value::Null => 0,
        other => compact(other).chars().count(),
    }
}

/// Levels of object nesting: the root object is level 1. `$defs` entries count from their own
/// root (references are not followed: recursion is allowed).
fn nesting(node: &Value) -> usize {
    let own = usize::from(node.as_object().is_some_and(is_object_node));
    let mut deepest = 0;
    let Value::Object(map) = node else {
        return own;
    };
    draft::for_each_subschema(map, Draft::Draft202012, "", &mut |child, ptr| {
        if !child.is_object() {
            return;
        }
        let is_def = ptr.starts_with("/$defs/") || ptr.starts_with("/definitions/");
        let depth = nesting(child);
        let depth = if is_def {
            depth.saturating_sub(own)
        } else {
            depth
        };
        deepest = deepest.max(depth);
    });
    own + deepest
}
