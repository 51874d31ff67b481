//! Writing the generated items as Rust text.
//!
//! The layout is fixed, as prost-build writes its code: four spaces per level, one attribute,
//! field, variant, match arm or struct field per line whatever its length, one blank line
//! between items. Nothing is measured, so the text depends on nothing but the items.
//!
//! What comes from a manifest enters the text in three forms only, each safe for any content:
//!
//! - string literals, written by `str`'s `Debug` ([`lit`]);
//! - doc comments ([`doc`]);
//! - identifiers, which the caller builds from ASCII letters, digits and `_` (raw when they are
//!   keywords).
//!
//! JSON values inside attributes are literals or JSON text parsed at run time ([`json_value`]).

use std::fmt::{self, Write as _};

use serde_json::Value;

use crate::model::ToolSpec;
use crate::schema::{canonical_json, canonical_text};

/// The lints the generated module allows. Its docs are the manifests' texts, written for people
/// and models, not for rustdoc and clippy (`clippy::doc_*`, `rustdoc::all`; `unknown_lints` for
/// a toolchain older than one of these lints), and a NUL before a digit in a text is `\0` and
/// the digit in a string literal (`clippy::octal_escapes`).
const MODULE_ALLOW: &str = "missing_docs, unknown_lints, clippy::doc_lazy_continuation, \
    clippy::doc_nested_refdefs, clippy::doc_overindented_list_items, \
    clippy::doc_suspicious_footnotes, clippy::octal_escapes, clippy::type_complexity, \
    rustdoc::all";
const SERDE_CRATE: &str = "::toolwright_runtime::__private::serde";
const SCHEMARS_CRATE: &str = "::toolwright_runtime::__private::schemars";
const SERDE_DERIVES: &str = "::toolwright_runtime::__private::serde::Serialize, \
    ::toolwright_runtime::__private::serde::Deserialize";
const JSON_SCHEMA_DERIVE: &str = "::toolwright_runtime::__private::schemars::JsonSchema";
const JSON_VALUE: &str = "::toolwright_runtime::__private::serde_json::Value";
const JSON: &str = "::toolwright_runtime::__private::serde_json";
const JSON_MAP: &str = "::toolwright_runtime::__private::serde_json::Map<String, ::toolwright_runtime::__private::serde_json::Value>";
/// Reads integers written as integral floats (`2.0`, `1e2`), which JSON Schema counts as
/// integers, into Rust integers (alone or inside `Option`, `Vec` and maps).
const INTEGRAL: &str = "::toolwright_runtime::__private::integral";
/// Reads a present optional field (`null` included) as `Some`.
const PRESENT: &str = "::toolwright_runtime::__private::present";
/// [`PRESENT`] for a type holding integers.
const PRESENT_INTEGRAL: &str = "::toolwright_runtime::__private::present_integral";

/// A Rust type of the generated code.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ty {
    String,
    I64,
    U64,
    I128,
    F64,
    Bool,
    /// `()`: only `null`.
    Unit,
    /// Any JSON value.
    Value,
    /// Any JSON object: `serde_json::Map<String, Value>`.
    Object,
    /// A type declared in the tool's module.
    Named(String),
    /// An existing Rust type, by its path (see `Options::extern_types`).
    Extern(String),
    Vec(Box<Ty>),
    Option(Box<Ty>),
    /// `BTreeMap<String, T>`.
    Map(Box<Ty>),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::String => f.write_str("String"),
            Ty::I64 => f.write_str("i64"),
            Ty::U64 => f.write_str("u64"),
            Ty::I128 => f.write_str("i128"),
            Ty::F64 => f.write_str("f64"),
            Ty::Bool => f.write_str("bool"),
            Ty::Unit => f.write_str("()"),
            Ty::Value => f.write_str(JSON_VALUE),
            Ty::Object => f.write_str(JSON_MAP),
            Ty::Named(name) | Ty::Extern(name) => f.write_str(name),
            Ty::Vec(item) => write!(f, "Vec<{item}>"),
            Ty::Option(inner) => write!(f, "Option<{inner}>"),
            Ty::Map(value) => write!(f, "::std::collections::BTreeMap<String, {value}>"),
        }
    }
}

impl Ty {
    /// Does reading the type need [`INTEGRAL`]: an integer, alone or inside `Option`, `Vec` or
    /// a map (a named type reads its own fields)?
    pub fn holds_integer(&self) -> bool {
        match self {
            Ty::I64 | Ty::U64 | Ty::I128 => true,
            Ty::Option(inner) | Ty::Vec(inner) | Ty::Map(inner) => inner.holds_integer(),
            _ => false,
        }
    }
}

/// How a field is optional, as serde and schemars see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Presence {
    /// Required, not nullable.
    Required,
    /// Required but nullable: the type is an `Option`, the schema still requires it.
    RequiredNullable,
    /// Not required: `Option`, absent when `None`.
    Optional,
    /// Not required and nullable: `Option<Option<T>>` (or `Option<Value>`), `None` when absent,
    /// `Some(None)` (`Some(Value::Null)`) when `null`.
    OptionalNullable,
}

/// One field of a generated struct.
#[derive(Debug)]
pub(super) struct FieldDef<'a> {
    pub doc: &'a str,
    /// The identifier, `r#` included.
    pub ident: String,
    /// The JSON property, when it is not the identifier.
    pub rename: Option<&'a str>,
    pub presence: Presence,
    /// Keywords copied onto the field's schemars schema.
    pub extend: Vec<(&'a str, &'a Value)>,
    /// The schema's `default` of an optional field, when it is valid for the field: an absent
    /// field is read as it.
    pub default: Option<&'a Value>,
    pub ty: Ty,
}

/// A generated struct (`Input` or a nested object).
#[derive(Debug)]
pub(super) struct StructDef<'a> {
    pub doc: std::borrow::Cow<'a, str>,
    pub name: String,
    pub deny_unknown_fields: bool,
    /// Derive `Default` (nothing is required).
    pub default: bool,
    pub fields: Vec<FieldDef<'a>>,
    /// The flattened map that keeps the properties beyond the declared ones: its field and
    /// its type (`BTreeMap<String, T>`).
    pub extra: Option<(String, Ty)>,
}

/// A generated tuple struct (positional array items).
#[derive(Debug)]
pub(super) struct TupleDef<'a> {
    pub doc: &'a str,
    pub name: String,
    pub elements: Vec<Ty>,
}

/// One variant of a generated union.
#[derive(Debug)]
pub(super) struct Variant<'a> {
    pub ident: String,
    /// The tag value, when it is not the identifier.
    pub rename: Option<&'a str>,
    pub ty: Ty,
}

/// A generated union of schemas: internally tagged by a property, or untagged.
#[derive(Debug)]
pub(super) struct UnionDef<'a> {
    pub doc: &'a str,
    pub name: String,
    pub tag: Option<&'a str>,
    pub variants: Vec<Variant<'a>>,
}

/// A generated string enum.
#[derive(Debug)]
pub(super) struct EnumDef<'a> {
    pub doc: &'a str,
    pub name: String,
    /// The variant identifiers and the words they stand for, when different.
    pub variants: Vec<(String, Option<&'a str>)>,
}

/// A type declared in a tool's module.
#[derive(Debug)]
pub(super) enum TypeDef<'a> {
    Struct(StructDef<'a>),
    Enum(EnumDef<'a>),
    Tuple(TupleDef<'a>),
    Union(UnionDef<'a>),
    /// `pub type Input = T;` for a root that is not an object schema.
    Alias {
        doc: std::borrow::Cow<'a, str>,
        name: String,
        ty: Ty,
    },
}

/// One variant of a tool's `Error`.
#[derive(Debug)]
pub(super) struct ErrorVariant<'a> {
    pub ident: String,
    pub code: &'a str,
    pub message: &'a str,
}

/// The text being written, the depth of the lines to come, and whether the types derive
/// schemars' `JsonSchema` too.
#[derive(Debug, Default)]
pub(super) struct Out {
    pub text: String,
    depth: usize,
    json_schema: bool,
}

impl Out {
    pub fn new(json_schema: bool) -> Self {
        Out {
            json_schema,
            ..Out::default()
        }
    }

    /// `#[derive(…)]` of a type: the `std` derives, serde's and, when asked for, `JsonSchema`;
    /// then `#[serde(crate = …{serde})]` (`serde` starts with `, `) and the
    /// `#[schemars(crate = …)]` that goes with the derive.
    fn derives(&mut self, std: &str, serde: &str) {
        let schema = if self.json_schema {
            format!(", {JSON_SCHEMA_DERIVE}")
        } else {
            String::new()
        };
        self.line(format_args!("#[derive({std}, {SERDE_DERIVES}{schema})]"));
        self.line(format_args!("#[serde(crate = {SERDE_CRATE:?}{serde})]"));
        if self.json_schema {
            self.line(format_args!("#[schemars(crate = {SCHEMARS_CRATE:?})]"));
        }
    }

    /// A line at the current depth.
    pub fn line(&mut self, text: impl fmt::Display) {
        for _ in 0..self.depth {
            self.text.push_str("    ");
        }
        // Writing to a `String` cannot fail.
        let _ = writeln!(self.text, "{text}");
    }

    /// A line that opens a block: the lines after it are one level deeper.
    fn open(&mut self, text: impl fmt::Display) {
        self.line(text);
        self.depth += 1;
    }

    /// A line that closes a block, one level less deep.
    fn close(&mut self, text: impl fmt::Display) {
        self.depth = self.depth.saturating_sub(1);
        self.line(text);
    }

    pub fn blank(&mut self) {
        self.text.push('\n');
    }
}

/// A Rust string literal of any text. `str`'s `Debug` writes it: quotes around the text with
/// `"` and `\` escaped, and every control, text-direction or otherwise unprintable character as
/// `\n`, `\r`, `\t`, `\0` or `\u{…}`, which are all escapes of Rust's string literals.
pub(super) fn lit(text: &str) -> String {
    format!("{text:?}")
}

/// `///` lines of text from a manifest (a description, a message).
///
/// The text is Markdown, and rustdoc runs the Rust code blocks of every doc comment as doctests
/// of the crate that includes the generated file: a description must never become one. So no
/// line may open a code block, in whatever Markdown context it lands:
///
/// - a line whose text, after its indentation, block-quote markers (`>`) and list markers (`-`,
///   `+`, `*`, `1.`, `1)`), starts with a fence (```` ``` ```` or `~~~`) gets a backslash before
///   the fence, which Markdown then shows as text;
/// - the indentation before and between those markers is cut to three spaces (a tab counts as
///   four), one less than an indented code block needs.
///
/// Each line is looked at alone. Rewriting a fence's info string to `text` instead would keep
/// the block shown as code, but needs to know which fence opens a block and which closes one,
/// and that depends on the structure around it (block quotes, list items, HTML blocks) as only a
/// full CommonMark parser knows it: one wrong guess lets a Rust block through.
///
/// A character a comment must not hold (a control or a text-direction character) is written as
/// its `\u{…}` escape. `META` keeps the exact text.
pub(super) fn doc(out: &mut Out, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    for line in text.lines().flat_map(|line| line.split('\r')) {
        let line = doc_line(line);
        if line.is_empty() {
            out.line("///");
        } else {
            out.line(format_args!("/// {line}"));
        }
    }
}

/// One line of [`doc`].
fn doc_line(line: &str) -> String {
    let line = line.trim_end().replace('\t', "    ");
    let mut text = String::with_capacity(line.len() + 1);
    let mut rest = line.as_str();
    loop {
        let unindented = rest.trim_start_matches(' ');
        let indent = (rest.len() - unindented.len()).min(3);
        text.extend(std::iter::repeat_n(' ', indent));
        rest = unindented;
        let marker = if rest.starts_with('>') {
            1
        } else {
            list_marker(rest)
        };
        if marker == 0 {
            break;
        }
        let (head, tail) = rest.split_at(marker);
        text.push_str(head);
        rest = tail;
    }
    if rest.starts_with("```") || rest.starts_with("~~~") {
        text.push('\\');
    }
    for c in rest.chars() {
        if (c.is_control() && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        {
            text.extend(c.escape_unicode());
        } else {
            text.push(c);
        }
    }
    text
}

/// The length of the list marker `text` starts with (`-`, `+`, `*`, digits and `.` or `)`,
/// then a space or the end of the line), 0 when none.
fn list_marker(text: &str) -> usize {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let len = match text.as_bytes().get(digits) {
        Some(b'.' | b')') if digits > 0 => digits + 1,
        Some(b'-' | b'+' | b'*') if digits == 0 => 1,
        _ => return 0,
    };
    match text.as_bytes().get(len) {
        None | Some(b' ') => len,
        Some(_) => 0,
    }
}

/// The module of one tool: its types, `Error` and `META`, a blank line apart.
pub(super) fn tool_module(
    out: &mut Out,
    spec: &ToolSpec,
    module: &str,
    types: &[&TypeDef<'_>],
    errors: &[ErrorVariant<'_>],
) {
    doc(out, &spec.description);
    out.line(format_args!("#[allow({MODULE_ALLOW})]"));
    out.open(format_args!("pub mod {module} {{"));
    for item in types {
        match item {
            TypeDef::Struct(def) => struct_def(out, def),
            TypeDef::Enum(def) => enum_def(out, def),
            TypeDef::Tuple(def) => tuple_def(out, def),
            TypeDef::Union(def) => union_def(out, def),
            TypeDef::Alias {
                doc: text,
                name,
                ty,
            } => {
                doc(out, text);
                out.line(format_args!("pub type {name} = {ty};"));
            }
        }
        out.blank();
    }
    error_enum(out, &spec.name, errors);
    out.blank();
    meta(out, spec);
    out.close("}");
}

fn struct_def(out: &mut Out, def: &StructDef<'_>) {
    doc(out, &def.doc);
    let derives = if def.default {
        "Debug, Clone, PartialEq, Default"
    } else {
        "Debug, Clone, PartialEq"
    };
    let deny = if def.deny_unknown_fields {
        ", deny_unknown_fields"
    } else {
        ""
    };
    out.derives(derives, deny);
    if def.fields.is_empty() && def.extra.is_none() {
        out.line(format_args!("pub struct {} {{}}", def.name));
        return;
    }
    out.open(format_args!("pub struct {} {{", def.name));
    for field in &def.fields {
        doc(out, field.doc);
        if let Some(property) = field.rename {
            out.line(format_args!("#[serde(rename = {})]", lit(property)));
        }
        let integral = field.ty.holds_integer();
        match field.presence {
            Presence::Required | Presence::RequiredNullable if integral => {
                out.line(format_args!("#[serde(deserialize_with = {INTEGRAL:?})]"));
            }
            Presence::Required | Presence::RequiredNullable => {}
            Presence::Optional => {
                let with = if integral {
                    format!(", deserialize_with = {INTEGRAL:?}")
                } else {
                    String::new()
                };
                let default = match field.default {
                    Some(_) => format!(" = \"{}::{}\"", def.name, default_fn(&field.ident)),
                    None => String::new(),
                };
                out.line(format_args!(
                    "#[serde(default{default}, skip_serializing_if = \"Option::is_none\"{with})]"
                ));
            }
            Presence::OptionalNullable => {
                let with = if integral { PRESENT_INTEGRAL } else { PRESENT };
                out.line(format_args!(
                    "#[serde(default, skip_serializing_if = \"Option::is_none\", deserialize_with = {with:?})]"
                ));
            }
        }
        if field.presence == Presence::RequiredNullable && out.json_schema {
            out.line("#[schemars(required)]");
        }
        if !field.extend.is_empty() && out.json_schema {
            let pairs: Vec<String> = field
                .extend
                .iter()
                .map(|(keyword, value)| format!("{} = {}", lit(keyword), json_value(value)))
                .collect();
            out.line(format_args!("#[schemars(extend({}))]", pairs.join(", ")));
        }
        out.line(format_args!("pub {}: {},", field.ident, field.ty));
    }
    if let Some((ident, ty)) = &def.extra {
        doc(
            out,
            "The properties beyond the declared ones, kept as they came.",
        );
        let with = if ty.holds_integer() {
            format!(", deserialize_with = {INTEGRAL:?}")
        } else {
            String::new()
        };
        out.line(format_args!("#[serde(flatten{with})]"));
        out.line(format_args!("pub {ident}: {ty},"));
    }
    out.close("}");
    let defaults: Vec<(&FieldDef<'_>, &Value)> = def
        .fields
        .iter()
        .filter_map(|f| f.default.map(|value| (f, value)))
        .collect();
    if defaults.is_empty() {
        return;
    }
    out.blank();
    out.open(format_args!("impl {} {{", def.name));
    for (i, (field, value)) in defaults.iter().enumerate() {
        if i > 0 {
            out.blank();
        }
        let property = field
            .rename
            .unwrap_or_else(|| field.ident.trim_start_matches("r#"));
        doc(
            out,
            &format!("The `default` of `{property}`, read when it is absent."),
        );
        // The value was validated against the field's schema when the code was generated, so
        // it deserializes; `ok()` keeps a hand-edited file from panicking.
        out.open(format_args!(
            "fn {}() -> {} {{",
            default_fn(&field.ident),
            field.ty
        ));
        out.line(format_args!(
            "{JSON}::from_str({}).ok()",
            lit(&value.to_string())
        ));
        out.close("}");
    }
    out.close("}");
}

/// The function that returns a field's `default`.
fn default_fn(ident: &str) -> String {
    format!("default_{}", ident.trim_start_matches("r#"))
}

fn tuple_def(out: &mut Out, def: &TupleDef<'_>) {
    doc(out, def.doc);
    out.derives("Debug, Clone, PartialEq", "");
    let elements: Vec<String> = def
        .elements
        .iter()
        .map(|ty| {
            if ty.holds_integer() {
                format!("#[serde(deserialize_with = {INTEGRAL:?})] pub {ty}")
            } else {
                format!("pub {ty}")
            }
        })
        .collect();
    out.line(format_args!(
        "pub struct {}({});",
        def.name,
        elements.join(", ")
    ));
}

fn union_def(out: &mut Out, def: &UnionDef<'_>) {
    doc(out, def.doc);
    match def.tag {
        Some(tag) => out.derives("Debug, Clone, PartialEq", &format!(", tag = {}", lit(tag))),
        None => out.derives("Debug, Clone, PartialEq", ", untagged"),
    }
    allow_shared_affixes(out, def.variants.len());
    out.open(format_args!("pub enum {} {{", def.name));
    for variant in &def.variants {
        if let Some(word) = variant.rename {
            out.line(format_args!("#[serde(rename = {})]", lit(word)));
        }
        if variant.ty.holds_integer() {
            out.line(format_args!(
                "{}(#[serde(deserialize_with = {INTEGRAL:?})] {}),",
                variant.ident, variant.ty
            ));
        } else {
            out.line(format_args!("{}({}),", variant.ident, variant.ty));
        }
    }
    out.close("}");
}

/// A JSON value as `json!` takes it (schemars' `extend` hands each value to `json!`): a string,
/// number, boolean or null as a literal; an array or an object as its JSON text in a string
/// literal, parsed when the schema is derived. `json!` reads arrays and objects one token at a
/// time, recursively, and 126 numbers or 45 keys are past the compiler's recursion limit.
fn json_value(value: &Value) -> String {
    match value {
        Value::Null | Value::Bool(_) => value.to_string(),
        Value::String(s) => lit(s),
        Value::Number(n) => {
            // `json!` types an integer literal without a suffix `i32`.
            let suffix = if n.is_f64() || n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()) {
                ""
            } else if n.is_u64() {
                "u64"
            } else {
                "i64"
            };
            format!("{n}{suffix}")
        }
        Value::Array(_) | Value::Object(_) => format!(
            "{}.parse::<{JSON_VALUE}>().unwrap_or_default()",
            lit(&value.to_string())
        ),
    }
}

fn enum_def(out: &mut Out, def: &EnumDef<'_>) {
    doc(out, def.doc);
    out.derives("Debug, Clone, Copy, PartialEq, Eq, Hash", "");
    allow_shared_affixes(out, def.variants.len());
    out.open(format_args!("pub enum {} {{", def.name));
    for (variant, rename) in &def.variants {
        if let Some(word) = rename {
            out.line(format_args!("#[serde(rename = {})]", lit(word)));
        }
        out.line(format_args!("{variant},"));
    }
    out.close("}");
    out.blank();
    // `as_str` and `Display` give the declared word itself (not the variant's name), the very
    // string serde writes, for messages and lookups without going through JSON.
    out.open(format_args!("impl {} {{", def.name));
    doc(
        out,
        "The declared string of this value, as it is written in JSON.",
    );
    out.open("pub const fn as_str(&self) -> &'static str {");
    out.open("match *self {");
    for (variant, rename) in &def.variants {
        let word = rename.map_or_else(|| variant.trim_start_matches("r#"), |word| word);
        out.line(format_args!("Self::{variant} => {},", lit(word)));
    }
    out.close("}");
    out.close("}");
    out.close("}");
    out.blank();
    out.open(format_args!(
        "impl ::core::fmt::Display for {} {{",
        def.name
    ));
    out.open("fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {");
    out.line("f.pad(self.as_str())");
    out.close("}");
    out.close("}");
}

/// Variants named after declared words often share a prefix or suffix (`PaneNotFound`,
/// `DrawingNotFound`): that is not a naming mistake of the generated code.
fn allow_shared_affixes(out: &mut Out, variants: usize) {
    if variants > 1 {
        out.line("#[allow(clippy::enum_variant_names)]");
    }
}

/// The `Error` enum of the declared codes and its `DeclaredError` impl (its `ERRORS` are
/// `META`'s), a blank line apart.
fn error_enum(out: &mut Out, tool: &str, variants: &[ErrorVariant<'_>]) {
    doc(out, &format!("The codes `{tool}` declares."));
    out.line("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]");
    allow_shared_affixes(out, variants.len());
    if variants.is_empty() {
        out.line("pub enum Error {}");
    } else {
        out.open("pub enum Error {");
        for variant in variants {
            doc(out, variant.message);
            out.line(format_args!("{},", variant.ident));
        }
        out.close("}");
    }
    out.blank();
    out.open("impl ::toolwright_runtime::__private::DeclaredError for Error {");
    // The codes of `META`, declared once.
    out.line("const ERRORS: &'static [::toolwright_runtime::__private::ErrorMeta] = META.errors;");
    out.open("fn code(&self) -> &'static str {");
    if variants.is_empty() {
        out.line("match *self {}");
    } else {
        out.open("match *self {");
        for variant in variants {
            out.line(format_args!(
                "Error::{} => {},",
                variant.ident,
                lit(variant.code)
            ));
        }
        out.close("}");
    }
    out.close("}");
    out.close("}");
    out.blank();
    // `from_code`, and `TryFrom<&str>` for code generic over the tools' `Error`s.
    out.open("impl Error {");
    doc(
        out,
        &format!("The value of a code `{tool}` declares; `None` for any other code."),
    );
    if variants.is_empty() {
        out.open("pub fn from_code(_code: &str) -> Option<Self> {");
        out.line("None");
    } else {
        out.open("pub fn from_code(code: &str) -> Option<Self> {");
        out.open("match code {");
        for variant in variants {
            out.line(format_args!(
                "{} => Some(Error::{}),",
                lit(variant.code),
                variant.ident
            ));
        }
        out.line("_ => None,");
        out.close("}");
    }
    out.close("}");
    out.close("}");
    out.blank();
    out.open("impl<'a> ::core::convert::TryFrom<&'a str> for Error {");
    out.line("type Error = &'a str;");
    out.open("fn try_from(code: &'a str) -> Result<Self, &'a str> {");
    out.line("Self::from_code(code).ok_or(code)");
    out.close("}");
    out.close("}");
}

/// `META`: the frozen `ToolMeta` of a spec, built by its `const` constructor and setters (a
/// setter only for what the spec declares). The schemas are in canonical form (keys sorted, no
/// `$schema`), the examples' inputs with their keys sorted.
fn meta(out: &mut Out, spec: &ToolSpec) {
    doc(out, &format!("The frozen metadata of `{}`.", spec.name));
    out.open(
        "pub static META: ::toolwright_runtime::__private::ToolMeta = ::toolwright_runtime::__private::ToolMeta::new(",
    );
    out.line(format_args!("{},", lit(&spec.name)));
    out.line(format_args!(
        "::toolwright_runtime::__private::Safety::{:?},",
        spec.safety
    ));
    out.line(format_args!(
        "::toolwright_runtime::__private::Mode::{:?},",
        spec.mode
    ));
    out.line(format_args!(
        "::toolwright_runtime::__private::StaticSchema::Json({}),",
        lit(&canonical_text(&spec.input_schema))
    ));
    out.close(")");
    out.line(format_args!(".title({})", lit(&spec.title)));
    out.line(format_args!(".description({})", lit(&spec.description)));
    if let Some(category) = &spec.category {
        out.line(format_args!(".category({})", lit(category)));
    }
    if let Some(schema) = &spec.output_schema {
        out.line(format_args!(
            ".output_schema(::toolwright_runtime::__private::StaticSchema::Json({}))",
            lit(&canonical_text(schema))
        ));
    }
    if !spec.errors.is_empty() {
        out.open(".errors(&[");
        for error in &spec.errors {
            out.line(format_args!(
                "::toolwright_runtime::__private::ErrorMeta::new({}, {}, {}, {}),",
                lit(&error.code),
                lit(&error.message),
                error.retryable,
                lit(&error.recommended_action)
            ));
        }
        out.close("])");
    }
    if !spec.examples.is_empty() {
        out.open(".examples(&[");
        for example in &spec.examples {
            out.line(format_args!(
                "::toolwright_runtime::__private::ExampleMeta::new({}, {}),",
                lit(&example.description),
                lit(&canonical_json(&example.input).to_string())
            ));
        }
        out.close("])");
    }
    if let Some(idempotent) = spec.idempotent {
        out.line(format_args!(".idempotent({idempotent})"));
    }
    if let Some(open_world) = spec.open_world {
        out.line(format_args!(".open_world({open_world})"));
    }
    if !spec.input_examples.is_empty() {
        out.open(".input_examples(&[");
        for example in &spec.input_examples {
            out.line(format_args!(
                "{},",
                lit(&canonical_json(example).to_string())
            ));
        }
        out.close("])");
    }
    if let Some(ms) = spec.timeout_ms {
        out.line(format_args!(".timeout_ms({ms})"));
    }
    if let Some(bytes) = spec.max_output_bytes {
        out.line(format_args!(".max_output_bytes({bytes})"));
    }
    if let Some(version) = &spec.version {
        out.line(format_args!(".version({})", lit(version)));
    }
    if let Some(deprecated) = &spec.deprecated {
        out.open(".deprecated(");
        out.line(format_args!(
            "::toolwright_runtime::__private::DeprecationMeta::new({})",
            lit(&deprecated.since)
        ));
        for (setter, value) in [
            ("sunset", &deprecated.sunset),
            ("replacement", &deprecated.replacement),
            ("note", &deprecated.note),
        ] {
            if let Some(value) = value {
                out.line(format_args!(".{setter}({})", lit(value)));
            }
        }
        out.close(")");
    }
    if spec.defer_loading {
        out.line(".defer_loading()");
    }
    out.line(format_args!(".source({});", lit(&spec.source)));
}

/// `pub static ALL: &[&ToolMeta] = &[&module::META, …];`.
pub(super) fn all_static(out: &mut Out, modules: &[String]) {
    doc(out, "Every tool declared by the manifests, sorted by name.");
    if modules.is_empty() {
        out.line("pub static ALL: &[&::toolwright_runtime::__private::ToolMeta] = &[];");
        return;
    }
    out.open("pub static ALL: &[&::toolwright_runtime::__private::ToolMeta] = &[");
    for module in modules {
        out.line(format_args!("&{module}::META,"));
    }
    out.close("];");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> String {
        let mut out = Out::default();
        doc(&mut out, text);
        out.text
    }

    #[test]
    fn string_literals_hold_any_text() {
        // Every character, with the ones a literal treats specially next to each other.
        let mut every_char: String = (0..=0x10_FFFF).filter_map(char::from_u32).collect();
        every_char.push_str("\"#\"## \\\\\" \r\n \0 7 \u{202e}");
        for text in [every_char.as_str(), "", "\"", "\\", "\u{0}7", "\r"] {
            let parsed: syn::LitStr = syn::parse_str(&lit(text)).expect("a string literal");
            assert_eq!(parsed.value(), text);
        }
        // A quote and 255 hashes need no raw string.
        let hashes = format!("\"{}", "#".repeat(255));
        assert_eq!(lit(&hashes), format!("\"\\\"{}\"", "#".repeat(255)));
    }

    #[test]
    fn json_values_in_attributes_are_literals_or_text() {
        let attr = |value: Value| json_value(&value);
        assert_eq!(attr(serde_json::json!(1)), "1");
        assert_eq!(attr(serde_json::json!(-2)), "-2");
        assert_eq!(attr(serde_json::json!(4_102_444_800_u64)), "4102444800u64");
        assert_eq!(
            attr(serde_json::json!(-5_000_000_000_i64)),
            "-5000000000i64"
        );
        assert_eq!(attr(serde_json::json!(1e300)), "1e+300");
        assert_eq!(attr(serde_json::json!(-1.5)), "-1.5");
        assert_eq!(attr(serde_json::json!(3.0)), "3.0");
        // Every number is a Rust literal (after a `-`) of the same value.
        for n in [
            1e300,
            1.5e-7,
            -0.0,
            3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
        ] {
            let text = attr(serde_json::json!(n));
            let literal: syn::LitFloat = syn::parse_str(text.trim_start_matches('-'))
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            let parsed: f64 = literal.base10_parse().expect("a float");
            assert_eq!(parsed, n.abs(), "{text}");
        }
        assert_eq!(attr(serde_json::json!(null)), "null");
        assert_eq!(attr(serde_json::json!("a\"b")), r#""a\"b""#);
        let numbers: Vec<u32> = (1..=126).collect();
        let text = attr(serde_json::json!(numbers));
        assert!(
            text.starts_with(r#""[1,2,3,"#)
                && text.ends_with(&format!(".parse::<{JSON_VALUE}>().unwrap_or_default()")),
            "{text}"
        );
        assert_eq!(
            attr(serde_json::json!({"b": [], "a": {"c": "\""}})),
            format!(
                r#""{{\"a\":{{\"c\":\"\\\"\"}},\"b\":[]}}".parse::<{JSON_VALUE}>().unwrap_or_default()"#
            )
        );
    }

    #[test]
    fn fences_are_escaped_wherever_they_stand() {
        let text = "Intro.\n\n```\nlet x = 1;\n```\n\n~~~rust\nx\n~~~\n   ```should_panic\n\
            > ```\n> > ~~~\n- ```\n1. ```rust\n10) ~~~\n> - ```\n* + - ```\n\
            Not fences: ``inline``, a ``` in text, -```, 1.```";
        assert_eq!(
            docs(text),
            "/// Intro.\n///\n/// \\```\n/// let x = 1;\n/// \\```\n///\n/// \\~~~rust\n/// x\n\
             /// \\~~~\n///    \\```should_panic\n/// > \\```\n/// > > \\~~~\n/// - \\```\n\
             /// 1. \\```rust\n/// 10) \\~~~\n/// > - \\```\n/// * + - \\```\n\
             /// Not fences: ``inline``, a ``` in text, -```, 1.```\n"
        );
    }

    #[test]
    fn indentation_stops_short_of_a_code_block() {
        let text = "Intro.\n\n    indented\n\ttabbed\n>     quoted\n-     listed\n  -  nested\n\
            >>  \t deep";
        assert_eq!(
            docs(text),
            "/// Intro.\n///\n///    indented\n///    tabbed\n/// >   quoted\n/// -   listed\n\
             ///   -  nested\n/// >>   deep\n"
        );
    }

    #[test]
    fn characters_a_comment_must_not_hold_are_escaped() {
        assert_eq!(
            docs("a\rb\r\nc \u{202e}d\u{2069} bell\u{7} nul\0 é"),
            "/// a\n/// b\n/// c \\u{202e}d\\u{2069} bell\\u{7} nul\\u{0} é\n"
        );
        // A control at the start of a line is text, not indentation.
        assert_eq!(docs("a\n\u{c}    ```"), "/// a\n/// \\u{c}    ```\n");
    }

    #[test]
    fn plain_text_is_written_as_it_is() {
        let text = "Reads bars.\n\n- `interval`: one of `1m`, `1h`.\n  More on it.\n\n> A quote.\n\n\
            # A heading\n1. First";
        let expected: String = text
            .lines()
            .map(|line| {
                if line.is_empty() {
                    "///\n".to_owned()
                } else {
                    format!("/// {line}\n")
                }
            })
            .collect();
        assert_eq!(docs(text), expected);
        assert_eq!(docs("  \n "), "");
    }

    #[test]
    fn types_are_written_with_their_paths() {
        let ty = Ty::Option(Box::new(Ty::Map(Box::new(Ty::Vec(Box::new(Ty::Value))))));
        assert_eq!(
            ty.to_string(),
            format!("Option<::std::collections::BTreeMap<String, Vec<{JSON_VALUE}>>>")
        );
    }
}
