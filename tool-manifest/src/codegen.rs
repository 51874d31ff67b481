//! Rust code generation: tool specs → one Rust file of typed inputs, error enums and frozen
//! metadata.
//!
//! The file is written as plain text with a fixed layout, the way prost-build writes its code
//! (see `rust.rs`): generating it costs a fraction of parsing the manifests, and nothing in a
//! manifest can make it fail to compile or become a doctest. `Builder::format` (feature
//! `format`) lays it out with prettyplease for reading.
//!
//! The output is included by a crate that depends on `toolwright-runtime`:
//!
//! ```ignore
//! pub mod tools {
//!     include!(concat!(env!("OUT_DIR"), "/tools.rs"));
//! }
//! ```
//!
//! Per tool it holds a module named after the tool (raw when it is a keyword, `r#match`;
//! `_self`, `_super` and `_crate` for the three names Rust refuses even raw) with:
//!
//! - `Input`: the typed arguments (serde `Serialize`/`Deserialize`), with one named type per
//!   nested object and per string enum;
//! - `Error`: an enum of the declared error codes, implementing `DeclaredError`, with
//!   `from_code` (`Error::from_code("PANE_NOT_FOUND")` is `Some(Error::PaneNotFound)`, a code
//!   the tool does not declare `None`) and `TryFrom<&str>` (the unknown code as the error), so
//!   that a function generic over the tools' `Error`s can turn a code into any of them (every
//!   variant is without data);
//! - `META`: the frozen `ToolMeta`.
//!
//! and, at the top level, `ALL`: every tool's metadata sorted by name. The generated code refers
//! to nothing but `::toolwright_runtime::…` and `::std::…`, so the including crate needs no other
//! dependency.
//!
//! Every valid JSON Schema (draft-07, 2019-09 or 2020-12) is accepted. The Rust type of each
//! node is as precise as a faithful mapping allows: it accepts every value the schema accepts
//! and keeps all of it; where no Rust type does, it is `serde_json::Value`. The one exception is
//! an `integer` unbounded on a side, which stops at its Rust type's end (see below). The
//! registry validates every call against the whole schema before deserializing, so the keywords
//! that only restrict values (`minimum`, `pattern`, `not`, `if`, …) never change a type.
//!
//! | schema | Rust |
//! |---|---|
//! | `true`, `{}`, annotations only | `serde_json::Value` |
//! | `string` (any `format`, `contentEncoding`) | `String` |
//! | `string` with `enum`, or an `enum` of strings | an enum (`Copy`, `Eq`, `Hash`), one variant per word |
//! | `enum` of mixed types | `serde_json::Value` |
//! | `const` | a string: a checked constant, an enum of its one word; else the constant's type (`bool`, an integer, `f64`, `()`) |
//! | `integer` | `i64` (integral floats `2.0`, `1e2` accepted); `u64` or `i128` when the bounds pass `i64`; else `serde_json::Value` (see "Integers past 64 bits") |
//! | `number` / `boolean` / `null` | `f64` / `bool` / `()` |
//! | `array` with `items` | `Vec<T>` |
//! | `array` without `items` | `Vec<serde_json::Value>` |
//! | `prefixItems` (draft-07: array `items`), all present, no more allowed | a tuple struct |
//! | `prefixItems` with items missing or more allowed | `Vec<serde_json::Value>` |
//! | `object` with `properties` | a struct named after the property (or its `title`) |
//! | … and `additionalProperties: false` (no `patternProperties`) | the struct with `deny_unknown_fields` |
//! | … and other properties allowed | the struct with a `#[serde(flatten)]` map that keeps them (`BTreeMap<String, T>` for an `additionalProperties` schema) |
//! | `object` with only an `additionalProperties` schema | `BTreeMap<String, T>` |
//! | `object` with one `patternProperties` schema, no other property | `BTreeMap<String, T>` |
//! | `object` alone, `propertyNames`, other `patternProperties` | `serde_json::Map<String, Value>` |
//! | `[T, "null"]`, `anyOf`/`oneOf` of `T` and `{type: null}` | `Option<T>` |
//! | optional nullable property | `Option<Option<T>>`: absent is `None`, `null` is `Some(None)` |
//! | `default` of an optional property (valid for its schema) | a serde default: an absent field reads as `Some(default)` |
//! | `anyOf`/`oneOf` of objects told apart by a `const` (or one-value `enum`) property | an internally tagged enum |
//! | `anyOf`/`oneOf` of branches of distinct JSON types | an untagged enum |
//! | `type` listing several types | what `anyOf` of one `{"type": …}` each (with the node's other keywords) gives: an untagged enum, in an `Option` when `null` is listed |
//! | other `anyOf`/`oneOf`, several types | `serde_json::Value` |
//! | `allOf` | the type of its first branch that has one (every branch holds every valid value) |
//! | `$ref` to a node of the schema | the type of that node (`serde_json::Value` when recursive) |
//! | a root that is not an object schema | `pub type Input = T;` |
//!
//! ## Integers past 64 bits
//!
//! An `integer` is an `i64` when each bound it has (`minimum`/`exclusiveMinimum`,
//! `maximum`/`exclusiveMaximum`, or the least and greatest of its `enum`) is within `i64`, also
//! when it has none; a `u64` when its lower bound is at least 0 and its bounds are within
//! `u64`; an `i128` when it has both bounds and they are within `i128`; `serde_json::Value`
//! otherwise (where `serde_json` reads an integer past 64 bits as the nearest `f64`). A side
//! without a bound stops at the type's end: `{"type": "integer", "minimum": 0}` is an `i64`,
//! and a call with `1e19` there, which the schema accepts, is refused by the registry as
//! `TOOL_INPUT_INVALID` with the type's range (`/n: Expected integer from -9223372036854775808
//! to 9223372036854775807`); a manifest example or `input_examples` entry with such a value is
//! a mistake at its `file:line:col`. Give the bound (`maximum = 18446744073709551615` with
//! `minimum = 0` makes a `u64`) to take more.
//!
//! Where a node's schema says more than "any value" and it is still typed `serde_json::Value`
//! (an `enum` of other values than strings, overlapping `anyOf` branches or types, a recursive
//! reference, integer bounds past `i128`, …), [`generate_with`] names the node and why,
//! and the build script prints it as a `cargo:warning`.
//!
//! A property not in `required` is an `Option` with `#[serde(default)]`; `deny_unknown_fields`
//! is set exactly when `additionalProperties = false` without `patternProperties`.
//!
//! ## One schema
//!
//! The schema of a manifest-bound tool is its manifest's, frozen in `META`: the generated types
//! derive no schemars `JsonSchema`, which would be a second schema of the same arguments.
//! [`Options::derive_json_schema`] (`Builder::derive_json_schema`) puts the derive back for a
//! crate that wants schemars' schema of the types too; the validation keywords are then copied
//! onto the fields' schemars schemas so that it stays close to the manifest's.
//!
//! ## Existing Rust types
//!
//! [`Options::extern_types`] (`Builder::extern_type`, after prost-build's `extern_path`) maps a
//! generated type, named by its path (`drawing_create::Anchor`, or `*::Interval` for the type of
//! that name in every tool), to an existing Rust type (`crate::chart::Anchor`): the generated
//! code uses it for every node that would have been that type and writes no type for it (nor
//! for the types nested in it), so that a shape several tools share is one type. The generator
//! cannot see the type, so it is the crate's to make it fit:
//!
//! - it deserializes every value the node's schema accepts, as serde reads it from the JSON
//!   words of the schema (an enum's variants renamed to the manifest's words: `"1m"`, not
//!   `M1`; integers also written as integral floats, `2.0`, which the registry reads again as
//!   integers when the type refuses them);
//! - it implements what the generated types around it derive: `Debug`, `Clone`, `PartialEq`,
//!   `serde::Serialize` and `serde::Deserialize` (and `schemars::JsonSchema` with
//!   `derive_json_schema`).
//!
//! The registry validates every call against the manifest's schema first, so the type needs to
//! refuse nothing. A mapping that matches no generated type is an error.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::{ToolSpec, is_valid_tool_name};
use crate::schema::{Draft, SchemaTree, display_pointer};

mod rust;
mod types;

use rust::{ErrorVariant, Out, TypeDef};

/// The first line of every generated Rust file.
pub const HEADER: &str = "// @generated by tool-manifest. Do not edit.";

/// A spec the generator cannot turn into Rust: a name shared or invalid, or a `$schema` of
/// another draft.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool `{tool}`: input schema at `{}`: {message}",
    display_pointer(pointer)
)]
#[non_exhaustive]
pub struct CodegenError {
    /// The tool whose spec is at fault.
    pub tool: String,
    /// The JSON Pointer (RFC 6901) of the offending node in the tool's input schema; empty for
    /// the root or for a mistake outside the schema.
    pub pointer: String,
    /// What is wrong, lowercase, the offending name in backticks.
    pub message: String,
}

impl CodegenError {
    fn new(tool: &str, pointer: &str, message: impl Into<String>) -> Self {
        CodegenError {
            tool: tool.to_owned(),
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }
}

/// A node of an input schema the generator types as `serde_json::Value` although the schema
/// says more about its values than "any JSON value" (the call is still validated against the
/// whole schema; the tool reads the value itself). A warning, not an error: the build script
/// prints it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool `{tool}`: input schema at `{}` falls back to `serde_json::Value`: {reason}",
    display_pointer(pointer)
)]
#[non_exhaustive]
pub struct Fallback {
    /// The tool.
    pub tool: String,
    /// The JSON Pointer (RFC 6901) of the node in the tool's input schema.
    pub pointer: String,
    /// Why no other Rust type holds its values, lowercase.
    pub reason: String,
}

/// How [`generate_with`] writes the code; [`Builder`](crate::Builder) sets it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Whether the generated types also derive schemars' `JsonSchema` (see "One schema" above).
    /// Default: false.
    pub derive_json_schema: bool,
    /// Generated types replaced by existing Rust types (see "Existing Rust types" above): the
    /// generated type's path (`tool::Type`, or `*::Type` for every tool; a tool's own mapping
    /// wins) → the Rust path of the type to use (`crate::chart::Anchor`).
    pub extern_types: BTreeMap<String, String>,
}

/// What [`generate_with`] produces.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Generated {
    /// The Rust file, as [`generate`] returns it.
    pub code: String,
    /// Every node typed `serde_json::Value` for want of a precise type, once per node, by tool
    /// name, then in the order the generator met them.
    pub fallbacks: Vec<Fallback>,
}

/// Generates the Rust file for a set of tools with the default [`Options`]: one module per tool
/// and the sorted `ALL` list.
///
/// The result starts with [`HEADER`], has one blank line between items and depends only on the
/// set of specs, not on their order.
///
/// # Errors
/// When two specs share a name, a name is not a valid tool name, or an input schema names a
/// draft the generator does not read (the error names the tool and the JSON Pointer).
pub fn generate(specs: &[ToolSpec]) -> Result<String, CodegenError> {
    generate_with(specs, &Options::default()).map(|generated| generated.code)
}

/// [`generate`] with `options`, and the nodes typed `serde_json::Value` for want of a precise
/// type (the build script prints each as a `cargo:warning`).
///
/// # Errors
/// As [`generate`], and an [extern type](Options::extern_types) whose generated path is not
/// `tool::Type` or `*::Type`, whose Rust path is not a path, or that matches no generated type.
pub fn generate_with(specs: &[ToolSpec], options: &Options) -> Result<Generated, CodegenError> {
    let externs = ExternTypes::parse(&options.extern_types)?;
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in sorted.windows(2) {
        if let [a, b] = pair
            && a.name == b.name
        {
            return Err(CodegenError::new(&a.name, "", "the tool is declared twice"));
        }
    }

    let mut out = Out::new(options.derive_json_schema);
    out.line(HEADER);
    out.blank();
    let mut fallbacks = Vec::new();
    let mut modules = Vec::with_capacity(sorted.len());
    let mut used = BTreeSet::new();
    for spec in &sorted {
        let module = module_name(&spec.name)?;
        let draft = Draft::of(&spec.input_schema)
            .map_err(|message| CodegenError::new(&spec.name, "/$schema", message))?;
        let tree = SchemaTree::parse(&spec.input_schema, draft);
        let mut types = types::TypeGen::new(&spec.name, &tree, externs.of(&spec.name));
        let input = types.root();
        let items: Vec<&TypeDef<'_>> = std::iter::once(&input)
            .chain(types.items.iter().flatten())
            .collect();
        rust::tool_module(&mut out, spec, &module, &items, &error_variants(spec));
        out.blank();
        modules.push(module);
        fallbacks.extend(types.fallbacks.iter().map(|(pointer, reason)| Fallback {
            tool: spec.name.clone(),
            pointer: pointer.clone(),
            reason: reason.clone(),
        }));
        used.append(&mut types.used_externs);
    }
    externs.check_used(&used, &sorted)?;
    rust::all_static(&mut out, &modules);
    Ok(Generated {
        code: out.text,
        fallbacks,
    })
}

/// The integers a Rust integer type of the generated code holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntegerRange {
    /// The type.
    pub rust: &'static str,
    /// Its least value.
    pub min: &'static str,
    /// Its greatest value.
    pub max: &'static str,
}

/// `i64`, `u64` and `i128`, the integer types the generator picks.
const INTEGER_RANGES: [IntegerRange; 3] = [
    IntegerRange {
        rust: "i64",
        min: "-9223372036854775808",
        max: "9223372036854775807",
    },
    IntegerRange {
        rust: "u64",
        min: "0",
        max: "18446744073709551615",
    },
    IntegerRange {
        rust: "i128",
        min: "-170141183460469231731687303715884105728",
        max: "170141183460469231731687303715884105727",
    },
];

impl IntegerRange {
    fn of(ty: &rust::Ty) -> Option<&'static IntegerRange> {
        let rust = ty.to_string();
        INTEGER_RANGES.iter().find(|r| r.rust == rust)
    }

    /// The range as schema keywords. `i128`'s bounds pass 64 bits, which `serde_json` reads as
    /// floats: -2^127 and 2^127 are exact, the upper one exclusive.
    fn keywords(&self) -> serde_json::Map<String, Value> {
        let mut keywords = serde_json::Map::new();
        if self.rust == "i128" {
            keywords.insert("minimum".to_owned(), Value::from(-(2f64.powi(127))));
            keywords.insert("exclusiveMaximum".to_owned(), Value::from(2f64.powi(127)));
        } else {
            for (keyword, bound) in [("minimum", self.min), ("maximum", self.max)] {
                if let Ok(number) = bound.parse::<serde_json::Number>() {
                    keywords.insert(keyword.to_owned(), Value::Number(number));
                }
            }
        }
        keywords
    }

    /// Whether the bounds a schema node writes itself (`node`: its keywords) keep every value it
    /// accepts inside this range: a lower bound at or above the least value, an upper one
    /// below the greatest (an exclusive bound is taken as inclusive, which only errs towards
    /// checking). A float bound is compared as a float: each range's least value is exact as
    /// one, and its greatest rounds up, so it must be strictly below.
    fn holds(&self, node: &serde_json::Map<String, Value>) -> bool {
        let (Ok(min), Ok(max)) = (self.min.parse::<i128>(), self.max.parse::<i128>()) else {
            return false;
        };
        let integer = |n: &serde_json::Number| {
            n.as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
        };
        let bound = |keywords: [&str; 2], within: &dyn Fn(&serde_json::Number) -> bool| {
            keywords
                .iter()
                .filter_map(|k| node.get(*k).and_then(Value::as_number))
                .any(within)
        };
        let (low, high) = (min as f64, max as f64);
        bound(["minimum", "exclusiveMinimum"], &|n| match integer(n) {
            Some(n) => n >= min,
            None => n.as_f64().is_some_and(|f| f >= low),
        }) && bound(["maximum", "exclusiveMaximum"], &|n| match integer(n) {
            Some(n) => n <= max,
            None => n.as_f64().is_some_and(|f| f < high),
        })
    }

    /// The range whose schema bound (see [`type_ranges`]) is `limit`.
    pub(crate) fn bounded_by(limit: &Value) -> Option<&'static IntegerRange> {
        INTEGER_RANGES
            .iter()
            .find(|range| range.keywords().values().any(|bound| bound == limit))
    }
}

/// `schema` with each `integer` node that the generated code types as a Rust integer also bound
/// to that type's range (in a branch of its `allOf`): a value `schema` accepts and this one
/// refuses is a value the generated `Input` cannot hold. `None` when no node needs it (none is
/// a Rust integer, or each one's own bounds lie within its type's range, as they do when the
/// manifest bounds its integers), or the draft is not one the generator reads.
pub(crate) fn type_ranges(schema: &Value) -> Option<Value> {
    let draft = Draft::of(schema).ok()?;
    let tree = SchemaTree::parse(schema, draft);
    let mut types = types::TypeGen::new("", &tree, BTreeMap::new());
    types.root();
    let unbounded: Vec<(&String, &IntegerRange)> = (types.integers.iter())
        .filter_map(|(pointer, ty)| Some((pointer, IntegerRange::of(ty)?)))
        .filter(|(pointer, range)| {
            !matches!(schema.pointer(pointer), Some(Value::Object(node)) if range.holds(node))
        })
        .collect();
    if unbounded.is_empty() {
        return None;
    }
    let mut bounded = schema.clone();
    for (pointer, range) in unbounded {
        let Some(Value::Object(node)) = bounded.pointer_mut(pointer) else {
            continue;
        };
        let branch = Value::Object(range.keywords());
        match node.get_mut("allOf") {
            Some(Value::Array(all)) => all.push(branch),
            _ => {
                node.insert("allOf".to_owned(), Value::Array(vec![branch]));
            }
        }
    }
    Some(bounded)
}

/// The module of a tool: its name, raw when it is a keyword (`r#match`). `self`, `super` and
/// `crate` cannot be raw identifiers: their modules are `_self`, `_super` and `_crate`, names
/// no other tool can have, since a tool name starts with a letter.
fn module_name(tool: &str) -> Result<String, CodegenError> {
    if !is_valid_tool_name(tool) {
        return Err(CodegenError::new(
            tool,
            "",
            format!("`{tool}` is not a valid tool name, expected `^[a-z][a-z0-9_]{{0,63}}$`"),
        ));
    }
    Ok(match tool {
        "self" | "super" | "crate" => format!("_{tool}"),
        _ => ident(tool),
    })
}

// ---------------------------------------------------------------------------------------------
// Extern types

/// [`Options::extern_types`], checked: `(tool, type name, Rust path, key)`, the tool `*` for
/// every tool.
struct ExternTypes<'o>(Vec<(&'o str, &'o str, &'o str, &'o str)>);

impl<'o> ExternTypes<'o> {
    fn parse(map: &'o BTreeMap<String, String>) -> Result<Self, CodegenError> {
        let mut externs = Vec::with_capacity(map.len());
        for (key, path) in map {
            let wrong = |message: String| CodegenError::new(key, "", message);
            let Some((tool, name)) = key.rsplit_once("::").filter(|(tool, name)| {
                (*tool == "*" || is_valid_tool_name(tool)) && is_ident(name)
            }) else {
                return Err(wrong(format!(
                    "extern type `{key}`: expected the path of a generated type, `tool::Type` or `*::Type`"
                )));
            };
            // A path of identifiers, checked here rather than by the compiler in the generated
            // file (`syn` is a dependency only with the `format` feature).
            let mut segments = path.strip_prefix("::").unwrap_or(path).split("::");
            let raw_ok = |s: &str| !matches!(s, "crate" | "self" | "super" | "Self");
            let segment = |s: &str| {
                s.strip_prefix("r#")
                    .map_or(is_ident(s), |r| is_ident(r) && raw_ok(r))
            };
            if !segments.all(segment) {
                return Err(wrong(format!(
                    "extern type `{key}`: `{path}` is not the path of a Rust type (`crate::module::Type`)"
                )));
            }
            externs.push((tool, name, path.as_str(), key.as_str()));
        }
        Ok(ExternTypes(externs))
    }

    /// The types replaced in `tool`: its name → the Rust path (a tool's own mapping over one of
    /// `*`) and the keys of the mappings that match it (both count as used).
    fn of(&self, tool: &str) -> BTreeMap<&'o str, (&'o str, Vec<&'o str>)> {
        let mut types: BTreeMap<&str, (&str, Vec<&str>)> = BTreeMap::new();
        let every = self.0.iter().filter(|e| e.0 == "*");
        for &(_, name, path, key) in every.chain(self.0.iter().filter(|e| e.0 == tool)) {
            let entry = types.entry(name).or_default();
            entry.0 = path;
            entry.1.push(key);
        }
        types
    }

    /// An error for the first mapping no generated type used.
    fn check_used(&self, used: &BTreeSet<&str>, specs: &[&ToolSpec]) -> Result<(), CodegenError> {
        let Some(&(tool, name, _, key)) = self.0.iter().find(|e| !used.contains(e.3)) else {
            return Ok(());
        };
        let message = match specs.iter().any(|s| s.name == tool) {
            _ if tool == "*" => {
                format!("extern type `{key}`: no tool has a generated type `{name}`")
            }
            true => format!("extern type `{key}`: `{tool}` has no generated type `{name}`"),
            false => format!("extern type `{key}`: no tool is named `{tool}`"),
        };
        Err(CodegenError::new(tool, "", message))
    }
}

/// Is `name` an identifier: an ASCII letter or `_`, then letters, digits and `_`?
fn is_ident(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
}

// ---------------------------------------------------------------------------------------------
// Errors

fn error_variants(spec: &ToolSpec) -> Vec<ErrorVariant<'_>> {
    let mut taken = BTreeSet::new();
    spec.errors
        .iter()
        .map(|e| {
            let base = match pascal_case(&e.code) {
                p if p.is_empty() => "Code".to_owned(),
                p if p.starts_with(|c: char| c.is_ascii_digit()) => format!("E{p}"),
                p if p == "Self" => "SelfCode".to_owned(),
                p => p,
            };
            ErrorVariant {
                ident: ident(&unique(&base, &mut taken)),
                code: &e.code,
                message: &e.message,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Names and docs

/// An identifier, raw (`r#type`) when it is a keyword.
fn ident(name: &str) -> String {
    if is_keyword(name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// The snake_case identifier a JSON property would like to have.
fn field_base(property: &str) -> String {
    let mut name = snake_case(property);
    if name.is_empty() {
        name = "field".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if matches!(name.as_str(), "self" | "super" | "crate" | "_") {
        name.push('_');
    }
    name
}

/// The Rust field of every JSON property of an object, and whether serde needs a `rename`.
/// Properties that already are their identifier keep it; the others get a unique one.
fn field_idents<'p>(
    properties: impl Iterator<Item = &'p str> + Clone,
) -> BTreeMap<&'p str, (String, bool)> {
    let mut taken = BTreeSet::new();
    let mut idents = BTreeMap::new();
    for exact in [true, false] {
        for property in properties.clone() {
            let base = field_base(property);
            if (base == property) == exact {
                let name = unique(&base, &mut taken);
                let renamed = name != property || is_keyword(&name);
                idents.insert(property, (ident(&name), renamed));
            }
        }
    }
    idents
}

/// `base`, or `base2`, `base3`… whichever is not yet taken; marks it taken.
fn unique(base: &str, taken: &mut BTreeSet<String>) -> String {
    let name = first_free(base, |c| !taken.contains(c));
    taken.insert(name.clone());
    name
}

/// `base`, or `base2`, `base3`…, whichever `is_free` accepts first.
fn first_free(base: &str, is_free: impl Fn(&str) -> bool) -> String {
    std::iter::once(base.to_owned())
        .chain((2..).map(|n| format!("{base}{n}")))
        .find(|c| is_free(c))
        .unwrap_or_else(|| base.to_owned())
}

/// Walks the ASCII alphanumeric parts of a word, split at separators and case changes
/// (`paneId` → `pane`, `id`; `HTTPServer` → `http`, `server`; `trend_line` → `trend`, `line`):
/// `emit` gets every character of every part, lowercased, and whether it starts a part.
fn walk_words(s: &str, mut emit: impl FnMut(char, bool)) {
    let mut in_word = false;
    let mut prev = ' ';
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_alphanumeric() {
            in_word = false;
            prev = c;
            continue;
        }
        let mut starts = !in_word;
        if c.is_ascii_uppercase() && in_word {
            let next = chars.peek().copied().unwrap_or(' ');
            starts = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next.is_ascii_lowercase());
        }
        emit(c.to_ascii_lowercase(), starts);
        in_word = true;
        prev = c;
    }
}

/// `trend_line` → `TrendLine`, `PANE_NOT_FOUND` → `PaneNotFound`.
fn pascal_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    walk_words(s, |c, starts| {
        out.push(if starts { c.to_ascii_uppercase() } else { c });
    });
    out
}

/// `paneId` → `pane_id`.
pub(crate) fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    walk_words(s, |c, starts| {
        if starts && !out.is_empty() {
            out.push('_');
        }
        out.push(c);
    });
    out
}

/// The name of one item of an array named `plural`: `Anchors` → `Anchor`, `Entries` → `Entry`;
/// names that do not read as an English plural in `s` get `Item`: `Data` → `DataItem`,
/// `Status` → `StatusItem`, `Series` → `SeriesItem`, `Address` → `AddressItem`.
fn singular(plural: &str) -> String {
    let not_plural = ["ss", "us", "is", "eries", "ecies"];
    if not_plural.iter().any(|end| plural.ends_with(end)) {
        return format!("{plural}Item");
    }
    if let Some(stem) = plural.strip_suffix("ies")
        && !stem.is_empty()
    {
        return format!("{stem}y");
    }
    match plural.strip_suffix('s') {
        Some(stem) if !stem.is_empty() => stem.to_owned(),
        _ => format!("{plural}Item"),
    }
}

/// Is `name` a strict or reserved Rust keyword (edition 2024), usable only as a raw identifier?
fn is_keyword(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
        "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do",
        "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "gen",
    ];
    KEYWORDS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversions_split_words_at_case_changes_and_separators() {
        assert_eq!(pascal_case("trend_line"), "TrendLine");
        assert_eq!(pascal_case("PANE_NOT_FOUND"), "PaneNotFound");
        assert_eq!(pascal_case("horizontal-line"), "HorizontalLine");
        assert_eq!(pascal_case("1m"), "1m");
        assert_eq!(snake_case("paneId"), "pane_id");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("line.color"), "line_color");
        assert_eq!(snake_case("ß"), "");
    }

    #[test]
    fn array_items_get_a_singular_name() {
        assert_eq!(singular("Anchors"), "Anchor");
        assert_eq!(singular("Entries"), "Entry");
        assert_eq!(singular("Address"), "AddressItem");
        assert_eq!(singular("Data"), "DataItem");
        assert_eq!(singular("S"), "SItem");
        assert_eq!(singular("Status"), "StatusItem");
        assert_eq!(singular("Series"), "SeriesItem");
        assert_eq!(singular("Axis"), "AxisItem");
        assert_eq!(singular("PaneIds"), "PaneId");
    }

    #[test]
    fn fields_that_are_not_identifiers_are_renamed() {
        let properties = ["paneId", "pane_id", "kind", "type", "self", "1m", "", "a b"];
        let idents = field_idents(properties.iter().copied());
        let field = |p: &str| {
            let (ident, renamed) = &idents[p];
            (ident.to_string(), *renamed)
        };
        // An exact identifier keeps its name even when another property converts to it.
        assert_eq!(field("pane_id"), ("pane_id".to_owned(), false));
        assert_eq!(field("paneId"), ("pane_id2".to_owned(), true));
        assert_eq!(field("kind"), ("kind".to_owned(), false));
        assert_eq!(field("type"), ("r#type".to_owned(), true));
        assert_eq!(field("self"), ("self_".to_owned(), true));
        assert_eq!(field("1m"), ("_1m".to_owned(), true));
        assert_eq!(field(""), ("field".to_owned(), true));
        assert_eq!(field("a b"), ("a_b".to_owned(), true));
    }

    #[test]
    fn only_integers_their_own_bounds_do_not_keep_in_range_get_the_types_range() {
        let with = |n: Value| {
            type_ranges(&serde_json::json!({
                "type": "object",
                "properties": {"n": n, "m": {"type": "integer", "minimum": 0, "maximum": 9}}
            }))
        };
        let bounded = [
            serde_json::json!({"type": "integer", "minimum": -5, "maximum": 10}),
            serde_json::json!({"type": "integer", "minimum": -5, "maximum": i64::MAX}),
            serde_json::json!({"type": "integer", "exclusiveMinimum": -1, "exclusiveMaximum": 1e18}),
        ];
        for n in bounded {
            assert_eq!(with(n.clone()), None, "{n}");
        }
        let unbounded = [
            serde_json::json!({"type": "integer"}),
            serde_json::json!({"type": "integer", "minimum": 0}),
            serde_json::json!({"type": "integer", "maximum": 10}),
        ];
        for n in unbounded {
            let bounded = with(n.clone()).unwrap_or_else(|| panic!("{n} needs its type's range"));
            assert!(
                bounded["properties"]["n"]["allOf"].is_array(),
                "{n}: {bounded}"
            );
            assert!(
                bounded["properties"]["m"].get("allOf").is_none(),
                "{bounded}"
            );
        }
    }

    #[test]
    fn a_float_bound_holds_only_strictly_below_a_greatest_value_that_rounds_up() {
        let i64_range = &INTEGER_RANGES[0];
        let node = |max: Value| {
            let Value::Object(node) = serde_json::json!({"minimum": -1, "maximum": max}) else {
                unreachable!("an object")
            };
            node
        };
        assert!(i64_range.holds(&node(serde_json::json!(i64::MAX))));
        // 2^63, the float `i64::MAX as f64` rounds to: one above `i64::MAX`.
        assert!(!i64_range.holds(&node(serde_json::json!(9_223_372_036_854_775_808.0))));
        assert!(i64_range.holds(&node(serde_json::json!(9.2e18))));
        assert!(!i64_range.holds(&node(serde_json::json!(u64::MAX))));
    }
}
