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
//!   [`openai_nullable_pointers`] and [`strip_openai_nulls`];
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

use serde_json::{Map, Value, json};

use super::{
    ANNOTATIONS, Converted, Dialect, Notes, Report, Rule, Violation, check_local_refs, inline_ref,
    join, merge_into, rename_one_of, required_names, resolve_local, split_type_union, walk,
};
use crate::model::ToolSpec;

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
/// Bounds the rewriting of one node (`$ref` chains, nested `allOf`).
const MAX_REWRITES: usize = 64;

struct Ctx<'a> {
    root: &'a Value,
    report: &'a mut Report,
    /// The references being inlined on the current path (a recursive one is not inlined again).
    inlining: Vec<String>,
}

/// The tool for `api`: strict when strict mode can express it, otherwise `"strict": false`
/// with the strict-mode violations listed.
pub(crate) fn conversion(spec: &ToolSpec, api: Api) -> Result<Converted, Vec<Violation>> {
    // Both attempts are checked in the Responses shape (the bare function); the wrapper and
    // the pointers of `api` come last.
    let flat = Dialect::OpenAiResponses;
    let (function, non_strict) = match super::checked(flat, spec, |r| strict_function(spec, r)) {
        Ok(function) => (function, Vec::new()),
        Err(strict) => {
            let relaxed = super::checked(flat, spec, |r| relaxed_function(spec, r))
                .map_err(|v| in_shape(v, api))?;
            (relaxed, strict)
        }
    };
    Ok(Converted {
        definition: wrap(function, api),
        non_strict: in_shape(non_strict, api),
    })
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

fn strict_function(spec: &ToolSpec, report: &mut Report) -> Value {
    super::check_canonical(
        &spec.input_schema,
        "/parameters",
        "openai.valid-schema",
        report,
    );
    let mut parameters = spec.input_schema.clone();
    let mut ctx = Ctx {
        root: &spec.input_schema,
        report,
        inlining: Vec::new(),
    };
    strict_node(&mut parameters, "/parameters", true, &mut ctx);
    function(spec, parameters, true)
}

/// The function without strict mode: the canonical schema, changed only where OpenAI refuses
/// every function (none of it narrows what the schema accepts): a root `allOf` merged into the
/// root, a root `properties` written out, `items` written on an array schema without one
/// (`{}`: any item, as before).
fn relaxed_function(spec: &ToolSpec, report: &mut Report) -> Value {
    super::check_canonical(
        &spec.input_schema,
        "/parameters",
        "openai.valid-schema",
        report,
    );
    let mut parameters = spec.input_schema.clone();
    super::merge_root_all_of(&mut parameters, "/parameters", "openai.object-root", report);
    if let Value::Object(root) = &mut parameters
        && !root.contains_key("properties")
    {
        root.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    any_items(&mut parameters);
    function(spec, parameters, false)
}

/// Writes `items: {}` on every array schema without an `items` schema object: in place of
/// `true` or of none, the same items are accepted; in place of `false` (no items after
/// `prefixItems`), more.
fn any_items(node: &mut Value) {
    if let Value::Object(map) = node
        && super::has_type(map, "array")
        && !map.get("items").is_some_and(Value::is_object)
    {
        map.insert("items".to_owned(), Value::Object(Map::new()));
    }
    super::for_each_child_mut(node, "", &mut |child, _| any_items(child));
}

fn function(spec: &ToolSpec, parameters: Value, strict: bool) -> Value {
    json!({
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": parameters,
        "strict": strict,
    })
}

fn strict_node(node: &mut Value, ptr: &str, is_root: bool, ctx: &mut Ctx<'_>) {
    let Value::Object(map) = node else {
        ctx.report.push(
            ptr,
            "openai.typed",
            "a boolean schema cannot be expressed; write a schema with a `type`",
        );
        return;
    };

    let on_path = ctx.inlining.len();
    rewrite(map, ptr, ctx);

    // Keywords strict mode refuses: removed, their meaning kept in the description.
    let mut notes = Notes::default();
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if key == "format" {
            notes.format(map, FORMATS);
        } else if key == "prefixItems"
            || (key == "items" && map.get("items").is_some_and(Value::is_array))
        {
            ctx.report.push(
                &join(ptr, &key),
                "openai.keywords",
                format!("`{key}` (a tuple) cannot be expressed in strict mode"),
            );
        } else if !KEYWORDS.contains(&key.as_str())
            && key != "patternProperties"
            && let Some(value) = map.remove(&key)
        {
            notes.keyword(&key, &value);
        }
    }

    // Subschemas.
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, child) in properties.iter_mut() {
            strict_node(child, &join(&join(ptr, "properties"), name), false, ctx);
        }
    }
    if let Some(items) = map.get_mut("items")
        && items.is_object()
    {
        strict_node(items, &join(ptr, "items"), false, ctx);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for (i, branch) in branches.iter_mut().enumerate() {
            strict_node(branch, &format!("{ptr}/anyOf/{i}"), false, ctx);
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(entries)) = map.get_mut(defs) {
            for (name, child) in entries.iter_mut() {
                strict_node(child, &join(&join(ptr, defs), name), false, ctx);
            }
        }
    }

    close_object(map, ptr, is_root, ctx);
    notes.write(map);
    ctx.inlining.truncate(on_path);
}

/// Inlines `$ref` with siblings, merges `allOf`, renames `oneOf`, splits type unions; pushes the
/// references it inlines on `ctx.inlining`.
fn rewrite(map: &mut Map<String, Value>, ptr: &str, ctx: &mut Ctx<'_>) {
    for _ in 0..MAX_REWRITES {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned)
            && map.len() > 1
        {
            if ctx.inlining.contains(&reference) {
                // Recursion: inlining again would never end. The reference stays alone; its
                // siblings only annotate or restate what the registry enforces anyway.
                map.retain(|key, _| key == "$ref");
                return;
            }
            match inline_ref(ctx.root, &reference, map) {
                Some(merged) => {
                    *map = merged;
                    ctx.inlining.push(reference);
                    continue;
                }
                None => {
                    ctx.report.push(
                        &join(ptr, "$ref"),
                        "openai.refs",
                        format!("`$ref` `{reference}` is not a local reference to a schema object"),
                    );
                    return;
                }
            }
        }
        if let Some(all_of) = map.remove("allOf") {
            let entries = all_of.as_array().cloned().unwrap_or_default();
            for (i, entry) in entries.iter().enumerate() {
                let entry = match entry {
                    Value::Object(e) => match e.get("$ref").and_then(Value::as_str) {
                        Some(r) if ctx.inlining.iter().any(|on_path| on_path == r) => {
                            ctx.report.push(
                                &format!("{ptr}/allOf/{i}/$ref"),
                                "openai.refs",
                                format!("`allOf` with the recursive `$ref` `{r}` cannot be merged"),
                            );
                            continue;
                        }
                        Some(r) => {
                            match inline_ref(ctx.root, r, e) {
                                Some(merged) => {
                                    ctx.inlining.push(r.to_owned());
                                    merged
                                }
                                None => {
                                    ctx.report.push(
                                    &format!("{ptr}/allOf/{i}/$ref"),
                                    "openai.refs",
                                    format!("`$ref` `{r}` is not a local reference to a schema object"),
                                );
                                    continue;
                                }
                            }
                        }
                        None => e.clone(),
                    },
                    _ => {
                        ctx.report.push(
                            &format!("{ptr}/allOf/{i}"),
                            "openai.keywords",
                            "a boolean schema in `allOf` cannot be expressed",
                        );
                        continue;
                    }
                };
                if let Err(key) = merge_into(map, &entry) {
                    ctx.report.push(
                        &format!("{ptr}/allOf/{i}"),
                        "openai.keywords",
                        format!("`allOf` is not supported and this entry cannot be merged: `{key}` conflicts"),
                    );
                }
            }
            continue;
        }
        if rename_one_of(map, ptr, "openai.keywords", ctx.report) {
            continue;
        }
        if let Some(split) = split_type_union(map) {
            *map = split;
            continue;
        }
        return;
    }
    ctx.report.push(
        ptr,
        "openai.refs",
        "the `$ref`/`allOf` chain here does not end",
    );
}

fn is_object_node(map: &Map<String, Value>) -> bool {
    super::has_type(map, "object") || map.contains_key("properties")
}

/// Closes an object and makes its optional properties required-but-nullable.
fn close_object(map: &mut Map<String, Value>, ptr: &str, is_root: bool, ctx: &mut Ctx<'_>) {
    if !is_object_node(map) {
        return;
    }
    let has_properties = map
        .get("properties")
        .is_some_and(|p| p.as_object().is_some_and(|p| !p.is_empty()));
    let extra = map.get("additionalProperties");
    let free_keys = extra.is_some_and(|e| e.is_object() || e == &Value::Bool(true))
        || map.contains_key("patternProperties");
    // Closing an object that declares other keys (a map, `additionalProperties: true`) would
    // take them away; closing one without declared properties, every argument (the root
    // without properties is a tool without arguments, and is closed).
    if free_keys {
        ctx.report.push(
            ptr,
            "openai.closed-objects",
            "an object that accepts other keys (`additionalProperties`, `patternProperties`: a map) cannot be expressed in strict mode",
        );
        return;
    }
    if !has_properties && extra.is_none() && !is_root {
        ctx.report.push(
            ptr,
            "openai.closed-objects",
            "an object without declared `properties` (a free-form object) cannot be expressed in strict mode",
        );
        return;
    }
    map.remove("patternProperties");
    map.insert("additionalProperties".to_owned(), Value::Bool(false));

    let required = required_names(map);
    let mut names = Vec::new();
    let properties = map
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        for (name, child) in properties.iter_mut() {
            names.push(Value::String(name.clone()));
            if !required.contains(name) {
                make_nullable(child);
            }
        }
    }
    map.insert("required".to_owned(), Value::Array(names));
}

/// Does this schema already accept `null`?
fn is_nullable(map: &Map<String, Value>, root: &Value, depth: usize) -> bool {
    let nullable = |schema: &Value| {
        schema
            .as_object()
            .is_some_and(|s| is_nullable(s, root, depth + 1))
    };
    let in_enum = map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.contains(&Value::Null));
    let in_branch = ["anyOf", "oneOf"].iter().any(|key| {
        let branches = map.get(*key).and_then(Value::as_array);
        branches.is_some_and(|branches| branches.iter().any(nullable))
    });
    let referenced = map.get("$ref").and_then(Value::as_str);
    super::has_type(map, "null")
        || map.get("const") == Some(&Value::Null)
        || (in_enum && !map.contains_key("type"))
        || in_branch
        || (depth < 8
            && referenced
                .and_then(|r| resolve_local(root, r))
                .is_some_and(nullable))
}

/// Makes a converted property schema accept `null`.
fn make_nullable(child: &mut Value) {
    let Value::Object(map) = child else { return };
    if is_nullable(map, &Value::Null, 0) {
        return;
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return;
    }
    let is_object = super::has_type(map, "object");
    if map.contains_key("$ref") || map.contains_key("const") || is_object {
        let mut outer = Map::new();
        for key in ANNOTATIONS {
            if let Some(value) = map.remove(*key) {
                outer.insert((*key).to_owned(), value);
            }
        }
        let inner = std::mem::take(map);
        outer.insert(
            "anyOf".to_owned(),
            Value::Array(vec![Value::Object(inner), json!({"type": "null"})]),
        );
        *map = outer;
        return;
    }
    match map.get_mut("type") {
        Some(t @ Value::String(_)) => *t = json!([t.take(), "null"]),
        Some(Value::Array(list)) => list.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
}

/// The schema locations (JSON Pointers into the canonical input schema, e.g.
/// `/properties/style/properties/color`) of the properties that strict mode turned from optional
/// into required-but-nullable. At exactly these places a `null` from the model means "absent";
/// anywhere else `null` is as invalid as the canonical schema says.
pub fn openai_nullable_pointers(schema: &Value) -> Vec<String> {
    let mut pointers = Vec::new();
    walk(schema, "", &mut |node, ptr| {
        let Value::Object(map) = node else { return };
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = required_names(map);
        for (name, child) in properties {
            let nullable = child.as_object().is_none_or(|c| is_nullable(c, schema, 0));
            if !required.contains(name) && !nullable {
                pointers.push(join(&join(ptr, "properties"), name));
            }
        }
    });
    pointers.sort();
    pointers
}

/// Returns `arguments` with the `null`s a strict-mode model sends for absent optional
/// properties removed (exactly at the places [`openai_nullable_pointers`] names, following
/// `$ref`, `allOf`, `anyOf`, `oneOf`, `items` and `additionalProperties`), ready to be validated
/// against the canonical `schema`. Every other value is left as it is.
pub fn strip_openai_nulls(schema: &Value, arguments: &Value) -> Value {
    let mut arguments = arguments.clone();
    strip(schema, schema, &mut arguments, 0);
    arguments
}

fn strip(schema: &Value, root: &Value, value: &mut Value, depth: usize) {
    let Value::Object(map) = schema else { return };
    if depth > MAX_REWRITES {
        return;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve_local(root, reference)
    {
        strip(target, root, value, depth + 1);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            for branch in branches {
                strip(branch, root, value, depth + 1);
            }
        }
    }
    match value {
        Value::Object(object) => {
            let required = required_names(map);
            let properties = map.get("properties").and_then(Value::as_object);
            if let Some(properties) = properties {
                for (name, sub) in properties {
                    let Some(found) = object.get_mut(name) else {
                        continue;
                    };
                    let nullable = sub.as_object().is_none_or(|s| is_nullable(s, root, 0));
                    if found.is_null() && !required.contains(name) && !nullable {
                        object.remove(name);
                    } else {
                        strip(sub, root, found, depth + 1);
                    }
                }
            }
            if let Some(extra) = map.get("additionalProperties")
                && extra.is_object()
            {
                for (name, found) in object.iter_mut() {
                    if properties.is_none_or(|p| !p.contains_key(name)) {
                        strip(extra, root, found, depth + 1);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = map.get("items")
                && item_schema.is_object()
            {
                for item in items {
                    strip(item_schema, root, item, depth + 1);
                }
            }
        }
        _ => {}
    }
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
    super::check_name(
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
    super::check_object_root(
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
            && super::has_type(map, "array")
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
                    format!(
                        "format {} is not supported in strict mode",
                        super::compact(format)
                    ),
                );
            }
        }
        if map.contains_key("$ref") && map.len() > 1 {
            report.push(
                &join(ptr, "$ref"),
                "openai.refs",
                format!(
                    "`$ref` has sibling keywords {}",
                    super::siblings(map, "$ref")
                ),
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
        other => super::compact(other).chars().count(),
    }
}

/// Levels of object nesting: the root object is level 1. `$defs` entries count from their own
/// root (references are not followed: recursion is allowed).
fn nesting(node: &Value) -> usize {
    let own = usize::from(node.as_object().is_some_and(is_object_node));
    let mut deepest = 0;
    super::for_each_child(node, "", &mut |child, ptr| {
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
