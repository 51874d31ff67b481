//! Writing the generated items as Rust text, formatted as prettyplease formats them, with one
//! blank line between items.
//!
//! The items are described by small values ([`StructDef`], [`EnumDef`], [`Ty`], [`Expr`]) and
//! printed line by line; what may need a line break (types, attributes, expressions) goes
//! through the [`Printer`]'s line breaking.

use serde_json::Value;

use super::pretty::{Break, INDENT, Printer};

/// The lints the generated module allows: docs come from manifests, written for people and
/// models, not for rustdoc.
const MODULE_ALLOW: &[&str] = &[
    "missing_docs",
    "clippy::doc_lazy_continuation",
    "clippy::doc_overindented_list_items",
    "clippy::type_complexity",
    "rustdoc::bare_urls",
    "rustdoc::broken_intra_doc_links",
    "rustdoc::invalid_html_tags",
];

const SERDE_CRATE: &str = "::tool_runtime::__private::serde";
const SCHEMARS_CRATE: &str = "::tool_runtime::__private::schemars";
const SERIALIZE: &str = "::tool_runtime::__private::serde::Serialize";
const DESERIALIZE: &str = "::tool_runtime::__private::serde::Deserialize";
const JSON_SCHEMA: &str = "::tool_runtime::__private::schemars::JsonSchema";
const JSON_VALUE: &str = "::tool_runtime::__private::serde_json::Value";

/// A Rust type of the generated code.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ty {
    String,
    I64,
    F64,
    Bool,
    /// Any JSON value.
    Value,
    /// A type declared in the tool's module.
    Named(String),
    Vec(Box<Ty>),
    Option(Box<Ty>),
    /// `BTreeMap<String, T>`.
    Map(Box<Ty>),
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
}

/// One variant of a tool's `Error`.
#[derive(Debug)]
pub(super) struct ErrorVariant<'a> {
    pub ident: String,
    pub code: &'a str,
    pub message: &'a str,
}

/// An expression of the frozen metadata.
#[derive(Debug)]
pub(super) enum Expr<'a> {
    /// A string literal.
    Str(&'a str),
    /// A string literal holding JSON text (written by [`canonical_json`], which scanned it),
    /// raw when it can be.
    Json(&'a str, JsonScan),
    Bool(bool),
    Path(&'static str),
    Call(&'static str, Box<Expr<'a>>),
    /// `&[…]`.
    Slice(Vec<Expr<'a>>),
    Struct(&'static str, Vec<(&'static str, Expr<'a>)>),
}

// ---------------------------------------------------------------------------------------------
// Items

/// `/// doc` lines, one per line of `text`.
///
/// Code fences without a language become `text` fences and indented code blocks are
/// un-indented, so that rustdoc does not compile descriptions as doctests. A line holding a
/// character a comment must not hold (a control or a text-direction character) is written as
/// a `#[doc = "…"]` attribute with the character escaped.
pub(super) fn doc(p: &mut Printer, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    // One line of printable ASCII without a fence: as it is.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'`' && b != b'~')
    {
        p.line_parts(&["/// ", text]);
        return;
    }
    let mut in_fence = false;
    let mut previous_blank = true;
    let mut in_indented = false;
    let mut expanded;
    for line in text.lines().flat_map(|line| line.split('\r')) {
        let mut line = line.trim_end();
        if line.contains('\t') {
            expanded = line.replace('\t', "    ");
            line = &expanded;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let mut out = line;
        let mut fence_text = None;
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if !in_fence {
                let info = trimmed.trim_start_matches(['`', '~']).trim();
                if info.is_empty() || info == "rust" || info.starts_with("rust,") {
                    let fence = trimmed[..trimmed.len() - info.len()].trim_end();
                    fence_text = Some(format!("{fence}text"));
                }
            }
            in_fence = !in_fence;
        } else if !in_fence {
            if trimmed.is_empty() {
                // a blank line neither starts nor ends an indented block
            } else if indent >= 4 && (previous_blank || in_indented) {
                in_indented = true;
                out = trimmed;
            } else {
                in_indented = false;
            }
        }
        previous_blank = trimmed.is_empty();
        let out = fence_text.as_deref().unwrap_or(out);
        doc_line(p, out);
    }
}

fn doc_line(p: &mut Printer, line: &str) {
    if line.is_empty() {
        p.line("///");
    } else if !line.bytes().all(|b| (0x20..0x7f).contains(&b))
        && line.chars().any(is_comment_hostile)
    {
        let mut value = String::with_capacity(line.len() + 16);
        value.push_str("#[doc = \" ");
        escape_str(line, &mut value);
        value.push_str("\"]");
        p.line(&value);
    } else {
        p.line_parts(&["/// ", line]);
    }
}

/// A character rustc refuses in a comment, or lints against (`text_direction_codepoint_in_…`).
fn is_comment_hostile(c: char) -> bool {
    (c.is_control() && c != '\t') || is_text_direction(c)
}

fn is_text_direction(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `pub mod name { … }` with its items, each after a blank line but the first.
pub(super) fn module(
    p: &mut Printer,
    doc_text: &str,
    name: &str,
    items: impl FnOnce(&mut Printer),
) {
    doc(p, doc_text);
    fixed_attr(p, Fixed::ModuleAllow, "allow", |a| a.words(MODULE_ALLOW));
    p.line_parts(&["pub mod ", name, " {"]);
    p.indent(INDENT);
    items(p);
    p.indent(-INDENT);
    p.line("}");
}

pub(super) fn type_def(p: &mut Printer, def: &TypeDef<'_>) {
    match def {
        TypeDef::Struct(def) => struct_def(p, def),
        TypeDef::Enum(def) => enum_def(p, def),
    }
}

fn struct_def(p: &mut Printer, def: &StructDef<'_>) {
    doc(p, &def.doc);
    let derive = if def.default {
        Fixed::DeriveStructDefault
    } else {
        Fixed::DeriveStruct
    };
    fixed_attr(p, derive, "derive", |a| {
        let derives: &[&str] = if def.default {
            &[
                "Debug",
                "Clone",
                "PartialEq",
                "Default",
                SERIALIZE,
                DESERIALIZE,
                JSON_SCHEMA,
            ]
        } else {
            &[
                "Debug",
                "Clone",
                "PartialEq",
                SERIALIZE,
                DESERIALIZE,
                JSON_SCHEMA,
            ]
        };
        a.words(derives);
    });
    let serde = if def.deny_unknown_fields {
        Fixed::SerdeCrateDeny
    } else {
        Fixed::SerdeCrate
    };
    fixed_attr(p, serde, "serde", |a| {
        a.name_value("crate", SERDE_CRATE);
        if def.deny_unknown_fields {
            a.punct(',');
            a.ident("deny_unknown_fields");
        }
    });
    fixed_attr(p, Fixed::SchemarsCrate, "schemars", |a| {
        a.name_value("crate", SCHEMARS_CRATE);
    });
    if def.fields.is_empty() {
        p.line_parts(&["pub struct ", &def.name, " {}"]);
        return;
    }
    p.line_parts(&["pub struct ", &def.name, " {"]);
    p.indent(INDENT);
    for field in &def.fields {
        field_def(p, field);
    }
    p.indent(-INDENT);
    p.line("}");
}

fn field_def(p: &mut Printer, field: &FieldDef<'_>) {
    doc(p, field.doc);
    if let Some(property) = field.rename {
        attr(p, "serde", |a| a.name_value("rename", property));
    }
    match field.presence {
        Presence::Required => {}
        Presence::RequiredNullable => {
            fixed_attr(p, Fixed::SchemarsRequired, "schemars", |a| {
                a.ident("required")
            });
        }
        Presence::Optional => fixed_attr(p, Fixed::SerdeOptional, "serde", |a| {
            a.ident("default");
            a.punct(',');
            a.name_value("skip_serializing_if", "Option::is_none");
        }),
    }
    if !field.extend.is_empty() {
        attr(p, "schemars", |a| {
            a.ident("extend");
            a.open(Delim::Paren);
            for (i, (keyword, value)) in field.extend.iter().enumerate() {
                if i > 0 {
                    a.punct(',');
                }
                a.str_lit(keyword);
                a.punct('=');
                a.json(value);
            }
            a.close(Delim::Paren);
        });
    }
    p.flow_with(|p| {
        p.word("pub ");
        p.word(&field.ident);
        p.word(": ");
        ty(p, &field.ty);
        p.word(",");
    });
}

fn enum_def(p: &mut Printer, def: &EnumDef<'_>) {
    doc(p, def.doc);
    fixed_attr(p, Fixed::DeriveEnum, "derive", |a| {
        a.words(&[
            "Debug",
            "Clone",
            "Copy",
            "PartialEq",
            "Eq",
            "Hash",
            SERIALIZE,
            DESERIALIZE,
            JSON_SCHEMA,
        ]);
    });
    fixed_attr(p, Fixed::SerdeCrate, "serde", |a| {
        a.name_value("crate", SERDE_CRATE);
    });
    fixed_attr(p, Fixed::SchemarsCrate, "schemars", |a| {
        a.name_value("crate", SCHEMARS_CRATE);
    });
    allow_shared_affixes(p, def.variants.len());
    p.line_parts(&["pub enum ", &def.name, " {"]);
    p.indent(INDENT);
    for (variant, rename) in &def.variants {
        if let Some(word) = rename {
            attr(p, "serde", |a| a.name_value("rename", word));
        }
        p.line_parts(&[variant, ","]);
    }
    p.indent(-INDENT);
    p.line("}");
}

/// Variants named after declared words often share a prefix or suffix (`PaneNotFound`,
/// `DrawingNotFound`): that is not a naming mistake of the generated code.
fn allow_shared_affixes(p: &mut Printer, variants: usize) {
    if variants > 1 {
        fixed_attr(p, Fixed::AllowVariantNames, "allow", |a| {
            a.words(&["clippy::enum_variant_names"]);
        });
    }
}

/// The `Error` enum of the declared codes and its `DeclaredError` impl, a blank line apart.
pub(super) fn error_enum(p: &mut Printer, tool: &str, variants: &[ErrorVariant<'_>]) {
    doc(p, &format!("The codes `{tool}` declares."));
    fixed_attr(p, Fixed::DeriveError, "derive", |a| {
        a.words(&["Debug", "Clone", "Copy", "PartialEq", "Eq", "Hash"]);
    });
    allow_shared_affixes(p, variants.len());
    if variants.is_empty() {
        p.line("pub enum Error {}");
    } else {
        p.line("pub enum Error {");
        p.indent(INDENT);
        for variant in variants {
            doc(p, variant.message);
            p.line_parts(&[&variant.ident, ","]);
        }
        p.indent(-INDENT);
        p.line("}");
    }
    p.blank_line();
    p.line("impl ::tool_runtime::DeclaredError for Error {");
    p.indent(INDENT);
    p.line("fn code(&self) -> &'static str {");
    p.indent(INDENT);
    if variants.is_empty() {
        p.line("match *self {}");
    } else {
        p.line("match *self {");
        p.indent(INDENT);
        for variant in variants {
            // `Error::Variant => "CODE",`, or the code in a block on its own line.
            p.flow_with(|p| {
                p.ibox(0);
                p.word("Error::");
                p.word(&variant.ident);
                p.word(" => ");
                p.neverbreak();
                p.cbox(INDENT);
                p.scan_break(Break {
                    pre_break: Some('{'),
                    ..Break::default()
                });
                p.word_with(variant.code.len() + 2, |out| str_lit(variant.code, out));
                p.scan_break(Break {
                    offset: -INDENT,
                    post_break: "}",
                    no_break: Some(','),
                    ..Break::default()
                });
                p.end();
                p.end();
            });
        }
        p.indent(-INDENT);
        p.line("}");
    }
    p.indent(-INDENT);
    p.line("}");
    p.indent(-INDENT);
    p.line("}");
}

/// `pub static NAME: TYPE = EXPR;` with its doc.
pub(super) fn static_item(p: &mut Printer, doc_text: &str, head: &str, value: &Expr<'_>) {
    doc(p, doc_text);
    if let Expr::Struct(path, fields) = value
        && breaks_into_lines(path, fields)
    {
        struct_lines(p, head, path, fields, "};");
        return;
    }
    p.flow();
    p.cbox(0);
    p.word(head);
    p.neverbreak();
    expr(p, value);
    p.word(";");
    p.end();
    p.finish();
}

/// A word: an expression that never breaks.
fn is_word(e: &Expr<'_>) -> bool {
    matches!(
        e,
        Expr::Str(_) | Expr::Json(..) | Expr::Path(_) | Expr::Bool(_)
    )
}

/// Whether a struct expression is printed a field a line: its least width (path, ` {`, a
/// space, `first: ""`) is more than the 34 columns a struct expression may take on one line,
/// and its last field, printed here with its trailing comma, is a word.
fn breaks_into_lines(path: &str, fields: &[(&str, Expr<'_>)]) -> bool {
    fields
        .first()
        .is_some_and(|(first, _)| path.len() + first.len() + 7 > 34)
        && fields.last().is_some_and(|(_, last)| is_word(last))
}

/// `{head}{path} {`, a field a line, `closer`.
fn struct_lines(
    p: &mut Printer,
    head: &str,
    path: &str,
    fields: &[(&str, Expr<'_>)],
    closer: &str,
) {
    p.line_parts(&[head, path, " {"]);
    p.indent(INDENT);
    for (member, value) in fields {
        field_line(p, member, value);
    }
    p.indent(-INDENT);
    p.line(closer);
}

/// `member: value,` in a struct expression printed a field a line.
fn field_line(p: &mut Printer, member: &str, value: &Expr<'_>) {
    match value {
        // A slice of structs that break: the slice breaks too, an element a line.
        Expr::Slice(elems)
            if !elems.is_empty()
                && elems.iter().all(
                    |e| matches!(e, Expr::Struct(path, fields) if breaks_into_lines(path, fields)),
                ) =>
        {
            p.line_parts(&[member, ": &["]);
            p.indent(INDENT);
            for elem in elems {
                if let Expr::Struct(path, fields) = elem {
                    struct_lines(p, "", path, fields, "},");
                }
            }
            p.indent(-INDENT);
            p.line("],");
        }
        // A call of one word that does not fit: the word goes on a line of its own.
        Expr::Call(func, arg) if is_word(arg) => {
            let fits = p.try_one_line(|p| {
                p.word(member);
                p.word(": ");
                p.ibox(0);
                expr(p, value);
                p.end();
                p.word(",");
            });
            if !fits {
                p.line_parts(&[member, ": ", func, "("]);
                p.indent(INDENT);
                p.line_with(|out| {
                    word_text(arg, out);
                    out.push(',');
                });
                p.indent(-INDENT);
                p.line("),");
            }
        }
        _ => p.flow_with(|p| {
            p.word(member);
            p.word(": ");
            p.ibox(0);
            expr(p, value);
            p.end();
            p.word(",");
        }),
    }
}

/// The text of a word.
fn word_text(e: &Expr<'_>, out: &mut String) {
    match e {
        Expr::Str(s) => str_lit(s, out),
        Expr::Json(text, scan) => json_lit_scanned(text, *scan, out),
        Expr::Path(path) => out.push_str(path),
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Call(..) | Expr::Slice(_) | Expr::Struct(..) => {}
    }
}

/// `pub static ALL: &[&ToolMeta] = &[&module::META, …];`.
pub(super) fn all_static(p: &mut Printer, doc_text: &str, modules: &[String]) {
    doc(p, doc_text);
    p.flow();
    p.cbox(0);
    p.word("pub static ALL: &[&::tool_runtime::ToolMeta] = ");
    p.neverbreak();
    p.word("&");
    if modules.is_empty() {
        p.word("[]");
    } else {
        p.word("[");
        p.cbox(INDENT);
        p.zerobreak();
        for (i, module) in modules.iter().enumerate() {
            p.word("&");
            p.word(module);
            p.word("::META");
            p.trailing_comma(i + 1 == modules.len());
        }
        p.offset(-INDENT);
        p.end();
        p.word("]");
    }
    p.word(";");
    p.end();
    p.finish();
}

// ---------------------------------------------------------------------------------------------
// Types and expressions (prettyplease's `ty.rs`, `path.rs`, `expr.rs`)

fn ty(p: &mut Printer, ty_: &Ty) {
    match ty_ {
        Ty::String => p.word("String"),
        Ty::I64 => p.word("i64"),
        Ty::F64 => p.word("f64"),
        Ty::Bool => p.word("bool"),
        Ty::Value => p.word(JSON_VALUE),
        Ty::Named(name) => p.word(name),
        Ty::Vec(item) => {
            p.word("Vec");
            generic_args(p, &[item]);
        }
        Ty::Option(inner) => {
            p.word("Option");
            generic_args(p, &[inner]);
        }
        Ty::Map(value) => {
            p.word("::std::collections::BTreeMap");
            generic_args(p, &[&Ty::String, value]);
        }
    }
}

fn generic_args(p: &mut Printer, args: &[&Ty]) {
    p.word("<");
    p.cbox(INDENT);
    p.zerobreak();
    for (i, arg) in args.iter().enumerate() {
        ty(p, arg);
        p.trailing_comma(i + 1 == args.len());
    }
    p.offset(-INDENT);
    p.end();
    p.word(">");
}

fn expr(p: &mut Printer, e: &Expr<'_>) {
    match e {
        Expr::Str(s) => p.word_with(s.len() + 2, |out| str_lit(s, out)),
        Expr::Json(text, scan) => {
            p.word_with(text.len() + 2, |out| json_lit_scanned(text, *scan, out));
        }
        Expr::Bool(b) => p.word(if *b { "true" } else { "false" }),
        Expr::Path(path) => p.word(path),
        Expr::Call(func, arg) => {
            p.word(func);
            p.word("(");
            p.cbox(INDENT);
            p.zerobreak();
            expr(p, arg);
            p.trailing_comma(true);
            p.offset(-INDENT);
            p.end();
            p.word(")");
        }
        Expr::Slice(elems) => {
            p.word("&");
            if elems.is_empty() {
                p.word("[]");
                return;
            }
            p.word("[");
            p.cbox(INDENT);
            p.zerobreak();
            for (i, elem) in elems.iter().enumerate() {
                expr(p, elem);
                p.trailing_comma(i + 1 == elems.len());
            }
            p.offset(-INDENT);
            p.end();
            p.word("]");
        }
        Expr::Struct(path, fields) => {
            // `path { first: ""` is wider than a struct expression may be on one line.
            if fields
                .first()
                .is_some_and(|(first, _)| path.len() + first.len() + 9 > 34)
            {
                p.will_break();
            }
            p.cbox(INDENT);
            p.ibox(-INDENT);
            p.word(path);
            p.end();
            p.word(" {");
            p.space_if_nonempty();
            for (i, (member, value)) in fields.iter().enumerate() {
                p.word(member);
                p.word(": ");
                p.ibox(0);
                expr(p, value);
                p.end();
                p.trailing_comma_or_space(i + 1 == fields.len());
            }
            p.offset(-INDENT);
            p.end_with_max_width(34);
            p.word("}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Attributes (prettyplease's `attr_tokens`)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delim {
    Paren,
    Brace,
    Bracket,
}

/// The attributes that are always the same (at an indentation).
#[derive(Debug, Clone, Copy)]
enum Fixed {
    ModuleAllow,
    DeriveStruct,
    DeriveStructDefault,
    DeriveEnum,
    DeriveError,
    SerdeCrate,
    SerdeCrateDeny,
    SchemarsCrate,
    AllowVariantNames,
    SchemarsRequired,
    SerdeOptional,
}

/// A fixed attribute, laid out once per indentation.
fn fixed_attr(p: &mut Printer, key: Fixed, name: &str, args: impl Fn(&mut AttrArgs<'_>)) {
    p.cached(key as u8, |p| attr(p, name, args));
}

/// `#[name(…)]` on a line of its own; `args` writes the tokens between the parentheses.
fn attr(p: &mut Printer, name: &str, args: impl Fn(&mut AttrArgs<'_>)) {
    p.flow_with(|p| {
        p.word("#[");
        p.word(name);
        let mut a = AttrArgs {
            p,
            after_word: false,
        };
        a.open(Delim::Paren);
        args(&mut a);
        a.close(Delim::Paren);
        a.p.word("]");
    });
}

/// The tokens of an attribute, spaced and broken as prettyplease prints them: a space (a
/// possible line break) between two words and after a comma, ` = ` around an equals sign, a
/// box in every pair of parentheses.
struct AttrArgs<'p> {
    p: &'p mut Printer,
    /// The last token was an identifier or a literal.
    after_word: bool,
}

impl AttrArgs<'_> {
    fn ident(&mut self, ident: &str) {
        if self.after_word {
            self.p.space();
        }
        self.p.word(ident);
        self.after_word = true;
    }

    /// A path (`a::b::C`) or an identifier.
    fn path(&mut self, path: &str) {
        self.ident(path);
    }

    fn str_lit(&mut self, value: &str) {
        if self.after_word {
            self.p.space();
        }
        self.p.word_with(value.len() + 2, |out| str_lit(value, out));
        self.after_word = true;
    }

    /// A number literal: `value`'s `Display`, then `suffix`; `.0` after a float without a
    /// point (as `proc_macro2::Literal::f64_unsuffixed` writes it).
    fn number(&mut self, value: impl std::fmt::Display, suffix: &str, float: bool) {
        use std::fmt::Write as _;
        if self.after_word {
            self.p.space();
        }
        self.p.word_with(1, |out| {
            let start = out.len();
            let _ = write!(out, "{value}");
            if float && !out.get(start..).is_some_and(|text| text.contains('.')) {
                out.push_str(".0");
            }
            out.push_str(suffix);
        });
        self.after_word = true;
    }

    fn punct(&mut self, ch: char) {
        if self.after_word && ch == '=' {
            self.p.nbsp();
        }
        self.p.word(ch.encode_utf8(&mut [0; 4]));
        match ch {
            '=' => self.p.nbsp(),
            ',' => self.p.space(),
            _ => {}
        }
        self.after_word = false;
    }

    fn open(&mut self, delim: Delim) {
        match delim {
            Delim::Paren => {
                self.p.word("(");
                self.p.cbox(INDENT);
                self.p.zerobreak();
            }
            Delim::Brace => self.p.word("{"),
            Delim::Bracket => self.p.word("["),
        }
        self.after_word = false;
    }

    fn close(&mut self, delim: Delim) {
        match delim {
            Delim::Paren => {
                self.p.zerobreak();
                self.p.offset(-INDENT);
                self.p.end();
                self.p.word(")");
            }
            Delim::Brace => self.p.word("}"),
            Delim::Bracket => self.p.word("]"),
        }
        self.after_word = false;
    }

    /// Paths separated by commas.
    fn words(&mut self, words: &[&str]) {
        for (i, word) in words.iter().enumerate() {
            if i > 0 {
                self.punct(',');
            }
            self.path(word);
        }
    }

    /// `name = "value"`.
    fn name_value(&mut self, name: &str, value: &str) {
        self.ident(name);
        self.punct('=');
        self.str_lit(value);
    }

    /// A JSON value in the syntax of `serde_json::json!`.
    fn json(&mut self, value: &Value) {
        match value {
            Value::Null => self.ident("null"),
            Value::Bool(b) => self.ident(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                // `json!` gives unsuffixed integers the type `i32`: larger ones need a suffix.
                let small = n.as_i64().is_some_and(|i| i32::try_from(i).is_ok());
                if let Some(i) = n.as_u64() {
                    self.number(i, if small { "" } else { "u64" }, false);
                } else if let Some(i) = n.as_i64() {
                    if small {
                        self.punct('-');
                        self.number(i.unsigned_abs(), "", false);
                    } else {
                        self.number(i, "i64", false);
                    }
                } else {
                    let f = n.as_f64().unwrap_or_default();
                    if f.is_sign_negative() {
                        self.punct('-');
                    }
                    self.number(f.abs(), "", true);
                }
            }
            Value::String(s) => self.str_lit(s),
            Value::Array(items) => {
                self.open(Delim::Bracket);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.punct(',');
                    }
                    self.json(item);
                }
                self.close(Delim::Bracket);
            }
            Value::Object(map) => {
                self.open(Delim::Brace);
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        self.punct(',');
                    }
                    self.str_lit(key);
                    self.punct(':');
                    self.json(item);
                }
                self.close(Delim::Brace);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Literals

/// A string literal, escaped as `proc_macro2::Literal::string` escapes it.
pub(super) fn str_lit(value: &str, out: &mut String) {
    out.reserve(value.len() + 2);
    out.push('"');
    escape_str(value, out);
    out.push('"');
}

/// The bytes a Rust string literal holds as they are: printable ASCII but `"` and `\`.
const RUST_PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = b' ';
    while b <= b'~' {
        table[b as usize] = b != b'"' && b != b'\\';
        b += 1;
    }
    table
};

fn escape_str(value: &str, out: &mut String) {
    let mut rest = value;
    loop {
        // Printable ASCII stands as it is, but `"` and `\`.
        let plain = rest
            .bytes()
            .position(|b| !RUST_PLAIN[usize::from(b)])
            .unwrap_or(rest.len());
        let (head, tail) = rest.split_at(plain);
        out.push_str(head);
        let mut chars = tail.chars();
        let Some(ch) = chars.next() else {
            return;
        };
        if ch == '\0' {
            let octal_next = chars
                .as_str()
                .starts_with(|next| ('0'..='7').contains(&next));
            out.push_str(if octal_next { r"\x00" } else { r"\0" });
        } else {
            out.extend(ch.escape_debug());
        }
        rest = chars.as_str();
    }
}

/// The canonical JSON text of a value (compact, object keys sorted), as
/// `crate::schema::canonical_text` writes it, without building the sorted copy first; `$schema`
/// is left out of the root object when `drop_schema_key` is set.
pub(super) fn canonical_json(
    value: &Value,
    drop_schema_key: bool,
    out: &mut String,
    scan: &mut JsonScan,
) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{n}");
        }
        Value::String(s) => json_string(s, out, scan),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, false, out, scan);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut first = true;
            let mut entry = |key: &str, item: &Value, out: &mut String| {
                if drop_schema_key && key == "$schema" {
                    return;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                json_string(key, out, scan);
                out.push(':');
                canonical_json(item, false, out, scan);
            };
            if map.keys().is_sorted() {
                for (key, item) in map {
                    entry(key, item, out);
                }
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (key, item) in entries {
                    entry(key, item, out);
                }
            }
            out.push('}');
        }
    }
}

/// What writing JSON text as a raw string literal needs to know of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct JsonScan {
    /// The longest run of `#` right after a `"`.
    pub hashes_after_quote: usize,
    /// A 0xE2 byte: the text may hold a text-direction character.
    pub maybe_text_direction: bool,
}

impl JsonScan {
    fn hashes_at(&mut self, text: &str) {
        let run = text.bytes().take_while(|&b| b == b'#').count();
        self.hashes_after_quote = self.hashes_after_quote.max(run);
    }
}

/// The bytes [`json_string`] looks at: what JSON escapes, and 0xE2.
const JSON_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[0xE2] = true;
    table
};

/// A JSON string, escaped as `serde_json` escapes it.
fn json_string(value: &str, out: &mut String, scan: &mut JsonScan) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    scan.hashes_at(value);
    let mut rest = value;
    loop {
        let plain = rest
            .bytes()
            .position(|b| JSON_SPECIAL[usize::from(b)])
            .unwrap_or(rest.len());
        let (head, tail) = rest.split_at(plain);
        out.push_str(head);
        let Some(&b) = tail.as_bytes().first() else {
            break;
        };
        if b == 0xE2 {
            // The first byte of U+2000–U+2FFF: the character as it is.
            scan.maybe_text_direction = true;
            let mut chars = tail.chars();
            if let Some(c) = chars.next() {
                out.push(c);
            }
            rest = chars.as_str();
            continue;
        }
        match b {
            b'"' => {
                out.push_str("\\\"");
                scan.hashes_at(tail.get(1..).unwrap_or_default());
            }
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        rest = tail.get(1..).unwrap_or_default();
    }
    out.push('"');
}

/// JSON text scanned by hand, for the tests of [`json_lit_scanned`].
#[cfg(test)]
fn json_lit(text: &str, out: &mut String) {
    let mut scan = JsonScan {
        maybe_text_direction: text.bytes().any(|b| b == b'\r' || b == 0xE2),
        ..JsonScan::default()
    };
    for (i, _) in text.match_indices('"') {
        scan.hashes_at(text.get(i + 1..).unwrap_or_default());
    }
    json_lit_scanned(text, scan, out);
}

/// JSON text as a raw string literal (`r#"…"#`, with as many `#` as it takes), readable in
/// the generated file; as an escaped literal when it holds a character a raw string must not
/// (a carriage return, a text-direction character). `scan` is what [`canonical_json`] found
/// while writing the text.
fn json_lit_scanned(text: &str, scan: JsonScan, out: &mut String) {
    if scan.maybe_text_direction && text.chars().any(|c| c == '\r' || is_text_direction(c)) {
        str_lit(text, out);
        return;
    }
    let longest = scan.hashes_after_quote;
    let hashes = longest + 1;
    out.reserve(text.len() + 3 + 2 * hashes);
    out.push('r');
    out.extend(std::iter::repeat_n('#', hashes));
    out.push('"');
    out.push_str(text);
    out.push('"');
    out.extend(std::iter::repeat_n('#', hashes));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(write: impl FnOnce(&mut Printer)) -> String {
        let mut p = Printer::with_capacity(0);
        write(&mut p);
        p.into_string()
    }

    #[test]
    fn json_literals_are_raw_strings_that_survive_quotes_and_hashes() {
        let text = r##"{"a":"\"#"}"##;
        let mut lit = String::new();
        json_lit(text, &mut lit);
        assert!(lit.starts_with("r##\""), "{lit}");
        let parsed: syn::LitStr = syn::parse_str(&lit).expect("a string literal");
        assert_eq!(parsed.value(), text);

        // A carriage return or a text-direction character cannot stand in a raw string.
        for text in ["{\"a\":\"\r\"}", "{\"a\":\"\u{202e}\"}"] {
            let mut lit = String::new();
            json_lit(text, &mut lit);
            assert!(lit.starts_with('"') && lit.is_ascii(), "{lit}");
            let parsed: syn::LitStr = syn::parse_str(&lit).expect("a string literal");
            assert_eq!(parsed.value(), text);
        }
    }

    #[test]
    fn canonical_json_is_the_text_of_the_schema_module() {
        let mut every_char = String::new();
        for c in (0u32..0x300).chain([0x2028, 0x202e, 0x1f600]) {
            every_char.extend(char::from_u32(c));
        }
        let value = serde_json::json!({
            "$schema": "x",
            "b": [1, -2, 0.5, 1e300, -0.0, 18446744073709551615_u64, null, true, false],
            "a": {"z": every_char, "y": {"$schema": "kept below the root"}, "": []},
            every_char.clone(): {}
        });
        let mut text = String::new();
        let mut scan = JsonScan::default();
        canonical_json(&value, true, &mut text, &mut scan);
        assert_eq!(text, crate::schema::canonical_text(&value));
        text.clear();
        let mut second = JsonScan::default();
        canonical_json(&value, false, &mut text, &mut second);
        assert_eq!(text, crate::schema::canonical_json(&value).to_string());
        assert!(scan.maybe_text_direction);

        // The scan made while writing is the scan of the text.
        for value in [
            serde_json::json!({"#a": "##b", "c": "x\"###y", "d": ["\u{202e}"]}),
            serde_json::json!({"a": "#", "b": "\u{2028}"}),
            serde_json::json!(["plain", 1]),
        ] {
            let mut text = String::new();
            let mut scan = JsonScan::default();
            canonical_json(&value, false, &mut text, &mut scan);
            let (mut written, mut scanned) = (String::new(), String::new());
            json_lit_scanned(&text, scan, &mut written);
            json_lit(&text, &mut scanned);
            assert_eq!(written, scanned, "{text}");
            let parsed: syn::LitStr = syn::parse_str(&written).expect("a string literal");
            assert_eq!(parsed.value(), text);
        }
    }

    #[test]
    fn string_literals_are_escaped_as_proc_macro2_escapes_them() {
        for text in [
            "",
            "plain",
            "q\"uote",
            "back\\slash",
            "it's",
            "nul\0",
            "nul\u{0}7",
            "tab\t",
            "new\nline",
            "é ü 漢字",
            "\u{202e}",
            "\u{7f}",
            "\u{301}",
        ] {
            let mut lit = String::new();
            str_lit(text, &mut lit);
            assert_eq!(
                lit,
                proc_macro2::Literal::string(text).to_string(),
                "{text:?}"
            );
            let parsed: syn::LitStr = syn::parse_str(&lit).expect("a string literal");
            assert_eq!(parsed.value(), text);
        }
    }

    #[test]
    fn json_numbers_outside_i32_carry_a_suffix() {
        let value = serde_json::json!([1, -2, 4102444800_u64, -5000000000_i64, 0.5, -1.0]);
        let text = printed(|p| attr(p, "a", |a| a.json(&value)));
        assert_eq!(
            text,
            "#[a([1, -2, 4102444800u64, -5000000000i64, 0.5, -1.0])]\n"
        );
    }

    #[test]
    fn doc_comments_do_not_become_doctests() {
        let text = printed(|p| {
            doc(
                p,
                "Intro.\n\n```\nlet x = 1;\n```\n\n    indented code\n    more",
            );
        });
        assert_eq!(
            text,
            "/// Intro.\n///\n/// ```text\n/// let x = 1;\n/// ```\n///\n/// indented code\n/// more\n"
        );
    }

    #[test]
    fn doc_lines_with_characters_a_comment_must_not_hold_are_attributes() {
        let text = printed(|p| doc(p, "a\rb \u{202e}c\u{7}"));
        assert_eq!(text, "/// a\n#[doc = \" b \\u{202e}c\\u{7}\"]\n");
    }
}
