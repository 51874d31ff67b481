//! The arguments of `#[tool(...)]`: `key = value` pairs, every mistake collected.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprPath, Ident, Lit, LitStr, Path, Token, token};
use toolwright_core::model::{backticked, quoted_list};
use toolwright_core::suggest::{self, Case};
use toolwright_core::{Mode, Safety};

use crate::ast::Errors;

/// Every key `#[tool]` accepts, in the order the messages list them.
pub(crate) const KEYS: &[&str] = &[
    "name",
    "title",
    "category",
    "safety",
    "mode",
    "idempotent",
    "open_world",
    "timeout",
    "max_output_bytes",
    "version",
    "deprecated",
    "defer_loading",
    "manifest",
];

/// Every key of `deprecated(...)`, in the order the messages list them (a manifest's
/// `deprecated` table has the same).
pub(crate) const DEPRECATED_KEYS: &[&str] = &["since", "sunset", "replacement", "note"];

/// How `deprecated` is written, for messages.
const DEPRECATED_EXAMPLE: &str = "`deprecated(since = \"2.0.0\", sunset = \"2027-06-30\", \
     replacement = \"new_tool\", note = \"...\")` (only `since` is required)";

/// A value together with the tokens it was written as (for spans).
#[derive(Clone, Copy)]
pub(crate) struct Given<T> {
    pub value: T,
    pub span: Span,
}

/// The parsed arguments of one `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct Args {
    pub name: Option<Given<String>>,
    pub title: Option<Given<String>>,
    pub category: Option<Given<String>>,
    pub safety: Option<Given<Safety>>,
    pub mode: Option<Given<Mode>>,
    pub idempotent: Option<Given<bool>>,
    pub open_world: Option<Given<bool>>,
    /// The declared time limit, in milliseconds.
    pub timeout_ms: Option<Given<u64>>,
    pub max_output_bytes: Option<Given<u64>>,
    pub version: Option<Given<String>>,
    /// `deprecated(...)`, when written with a `since`.
    pub deprecated: Option<Deprecated>,
    /// `defer_loading` (alone: `true`) or `defer_loading = true|false`.
    pub defer_loading: Option<Given<bool>>,
    pub manifest: Option<Path>,
    /// The keys that were written (also the ones with bad values), with their spans.
    pub keys: Vec<Ident>,
    /// Known keys that an unknown key was probably meant to be (`saftey` -> `safety`): not
    /// reported missing again.
    pub suggested: Vec<&'static str>,
}

impl Args {
    /// Was `key` written (even with a bad value)?
    pub fn written(&self, key: &str) -> Option<&Ident> {
        self.keys.iter().find(|k| k.unraw() == key)
    }

    /// Was `key` written, or misspelled?
    pub fn mentioned(&self, key: &str) -> bool {
        self.written(key).is_some() || self.suggested.contains(&key)
    }
}

/// The keys of `deprecated(...)`: each a non-blank string literal.
pub(crate) struct Deprecated {
    pub since: Given<String>,
    pub sunset: Option<Given<String>>,
    pub replacement: Option<Given<String>>,
    pub note: Option<Given<String>>,
}

/// One `key`, `key = value` or `key(...)` of an attribute's arguments.
pub(crate) struct RawArg {
    pub key: Ident,
    pub value: Option<Expr>,
    /// The parenthesized arguments of `key(...)`.
    pub list: Option<Group>,
}

/// The `key = value` pairs of an attribute, separated by commas.
pub(crate) fn parse_raw(input: ParseStream) -> syn::Result<Vec<RawArg>> {
    let mut args = Vec::new();
    while !input.is_empty() {
        let key = Ident::parse_any(input)?;
        let (value, list) = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            (Some(input.parse::<Expr>()?), None)
        } else if input.peek(token::Paren) {
            let group = input.step(|cursor| match cursor.token_tree() {
                Some((TokenTree::Group(group), rest)) => Ok((group, rest)),
                _ => Err(cursor.error("expected `(...)`")),
            })?;
            (None, Some(group))
        } else {
            (None, None)
        };
        args.push(RawArg { key, value, list });
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(args)
}

/// Parses the attribute's arguments; every mistake goes to `errors`.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut args = Args::default();
    let raw = match parse_raw.parse2(tokens) {
        Ok(raw) => raw,
        Err(error) => {
            errors.push(error);
            return args;
        }
    };
    for RawArg { key, value, list } in raw {
        let word = key.unraw().to_string();
        if !KEYS.contains(&word.as_str()) {
            errors.push(syn::Error::new(key.span(), unknown_key(&word)));
            args.suggested.extend(closest(&word, KEYS));
            continue;
        }
        if args.written(&word).is_some() {
            errors.push(syn::Error::new(
                key.span(),
                format!("duplicate key `{word}`: each key of `#[tool]` may be given once"),
            ));
            continue;
        }
        args.keys.push(key.clone());
        if word == "deprecated" {
            args.deprecated = deprecated(&key, value.as_ref(), list.as_ref(), errors);
            continue;
        }
        if word == "defer_loading" {
            args.defer_loading = flag(&key, value.as_ref(), list.as_ref(), errors);
            continue;
        }
        let Some(value) = value else {
            errors.push(syn::Error::new(
                key.span(),
                format!("expected a value for `{word}`: {}", example(&word)),
            ));
            continue;
        };
        match word.as_str() {
            "name" => args.name = string(&word, &value, errors),
            "title" => args.title = string(&word, &value, errors),
            "category" => args.category = string(&word, &value, errors),
            "safety" => args.safety = word_value(&word, &value, Safety::ACCEPTED, errors),
            "mode" => args.mode = word_value(&word, &value, Mode::ACCEPTED, errors),
            "idempotent" => args.idempotent = boolean(&word, &value, errors),
            "open_world" => args.open_world = boolean(&word, &value, errors),
            "timeout" => args.timeout_ms = timeout(&value, errors),
            "max_output_bytes" => args.max_output_bytes = positive_integer(&word, &value, errors),
            "version" => args.version = version(&value, errors),
            _ => args.manifest = manifest_path(&value, errors),
        }
    }
    args
}

/// How a key is written, for messages.
fn example(key: &str) -> String {
    match key {
        "safety" => accepted_values("safety", Safety::ACCEPTED),
        "mode" => accepted_values("mode", Mode::ACCEPTED),
        "manifest" => {
            "`manifest = crate::tools::my_tool` (the module generated for the tool)".to_owned()
        }
        "idempotent" | "open_world" => format!("`{key} = true` or `{key} = false`"),
        "timeout" => "`timeout = \"30s\"` (or \"500ms\", \"2m\")".to_owned(),
        "max_output_bytes" => "`max_output_bytes = 65536`".to_owned(),
        "version" => "`version = \"2.1.0\"` (a semantic version)".to_owned(),
        "deprecated" => DEPRECATED_EXAMPLE.to_owned(),
        _ => format!("`{key} = \"...\"`"),
    }
}

fn accepted_values(key: &str, accepted: &[&str]) -> String {
    format!("`{key} = ...` with one of {}", quoted_list(accepted))
}

fn unknown_key(word: &str) -> String {
    let mut message = format!("unknown key `{word}` in `#[tool]`");
    if let Some(close) = closest(word, KEYS) {
        message.push_str(&format!(", did you mean `{close}`?"));
    }
    message.push_str(&format!(" expected one of {}", backticked(KEYS)));
    message
}

/// The accepted word closest to `word`, when it is close enough to be a typo.
pub(crate) fn closest(word: &str, accepted: &[&'static str]) -> Option<&'static str> {
    suggest::closest(word, accepted, Case::Sensitive, |distance, candidate| {
        distance <= (candidate.len().max(word.len()) / 3).max(1)
    })
}

/// A flag: the key alone (`true`) or with a boolean literal.
fn flag(
    key: &Ident,
    value: Option<&Expr>,
    list: Option<&Group>,
    errors: &mut Errors,
) -> Option<Given<bool>> {
    let word = key.unraw();
    match (value, list) {
        (None, None) => Some(Given {
            value: true,
            span: key.span(),
        }),
        (
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(lit),
                attrs,
            })),
            _,
        ) if attrs.is_empty() => Some(Given {
            value: lit.value,
            span: lit.span,
        }),
        (value, list) => {
            let span = value.map_or_else(
                || list.map_or_else(|| key.span(), Group::span),
                Spanned::span,
            );
            errors.push(syn::Error::new(
                span,
                format!(
                    "expected `{word}` to be `true` or `false`: `{word}`, `{word} = true` or `{word} = false`"
                ),
            ));
            None
        }
    }
}

/// `idempotent` and `open_world`: a boolean literal.
pub(crate) fn boolean(key: &str, value: &Expr, errors: &mut Errors) -> Option<Given<bool>> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(lit),
            attrs,
        }) if attrs.is_empty() => Some(Given {
            value: lit.value,
            span: lit.span,
        }),
        _ => {
            errors.push(syn::Error::new_spanned(
                value,
                format!("expected `{key}` to be `true` or `false`"),
            ));
            None
        }
    }
}

fn lit_str(value: &Expr) -> Option<&LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit),
            attrs,
        }) if attrs.is_empty() => Some(lit),
        _ => None,
    }
}

/// A string literal that is not blank.
pub(crate) fn string(key: &str, value: &Expr, errors: &mut Errors) -> Option<Given<String>> {
    let Some(lit) = lit_str(value) else {
        errors.push(syn::Error::new_spanned(
            value,
            format!("expected `{key}` to be a string literal: `{key} = \"...\"`"),
        ));
        return None;
    };
    let text = lit.value();
    if text.trim().is_empty() {
        errors.push(syn::Error::new(
            lit.span(),
            format!("`{key}` must not be empty"),
        ));
        return None;
    }
    Some(Given {
        value: text,
        span: lit.span(),
    })
}

/// `safety` and `mode`: parsed only by their `FromStr`, the one definition of their words.
fn word_value<T: std::str::FromStr>(
    key: &str,
    value: &Expr,
    accepted: &[&str],
    errors: &mut Errors,
) -> Option<Given<T>>
where
    T::Err: std::fmt::Display,
{
    let Some(lit) = lit_str(value) else {
        let message = format!(
            "expected `{key}` to be {} (a string literal)",
            quoted_list(accepted)
        );
        errors.push(syn::Error::new_spanned(value, message));
        return None;
    };
    match lit.value().parse::<T>() {
        Ok(parsed) => Some(Given {
            value: parsed,
            span: lit.span(),
        }),
        Err(error) => {
            errors.push(syn::Error::new(lit.span(), error));
            None
        }
    }
}

/// `timeout`: a string literal read by the one parser of time limits,
/// [`toolwright_core::model::parse_timeout`].
fn timeout(value: &Expr, errors: &mut Errors) -> Option<Given<u64>> {
    let Some(lit) = lit_str(value) else {
        errors.push(syn::Error::new_spanned(
            value,
            "expected `timeout` to be a string literal: `timeout = \"30s\"` (or \"500ms\", \"2m\")",
        ));
        return None;
    };
    match toolwright_core::model::parse_timeout(&lit.value()) {
        Ok(ms) => Some(Given {
            value: ms,
            span: lit.span(),
        }),
        Err(why) => {
            errors.push(syn::Error::new(
                lit.span(),
                format!(
                    "expected `timeout` to be a time limit like \"30s\", \"500ms\" or \"2m\", found {:?}: {why}",
                    lit.value()
                ),
            ));
            None
        }
    }
}

/// An integer literal greater than zero.
fn positive_integer(key: &str, value: &Expr, errors: &mut Errors) -> Option<Given<u64>> {
    if let Expr::Lit(ExprLit {
        lit: Lit::Int(lit),
        attrs,
    }) = value
        && attrs.is_empty()
        && let Ok(n) = lit.base10_parse::<u64>()
        && n > 0
    {
        return Some(Given {
            value: n,
            span: lit.span(),
        });
    }
    errors.push(syn::Error::new_spanned(
        value,
        format!("expected `{key}` to be a positive integer literal (bytes): `{key} = 65536`"),
    ));
    None
}

/// `version`: a string literal, whose semantic version is checked with the other lifecycle
/// rules (see `valid.rs`).
fn version(value: &Expr, errors: &mut Errors) -> Option<Given<String>> {
    if lit_str(value).is_none() {
        errors.push(syn::Error::new_spanned(
            value,
            "expected `version` to be a string literal: `version = \"2.1.0\"` (a semantic version)",
        ));
        return None;
    }
    string("version", value, errors)
}

/// `deprecated(since = "...", ...)`: the keys of a manifest's `deprecated` table, each a
/// string; `None` (with the mistakes in `errors`) unless it has a `since`. The rules their
/// values follow are checked with the tool's name and version (see `valid.rs`).
fn deprecated(
    key: &Ident,
    value: Option<&Expr>,
    list: Option<&Group>,
    errors: &mut Errors,
) -> Option<Deprecated> {
    let Some(list) = list else {
        let message = match value {
            Some(_) => format!("expected `deprecated` to be a list of keys: {DEPRECATED_EXAMPLE}"),
            None => format!("expected the keys of `deprecated`: {DEPRECATED_EXAMPLE}"),
        };
        let span = value.map_or_else(|| key.span(), Spanned::span);
        errors.push(syn::Error::new(span, message));
        return None;
    };
    let raw = match parse_raw.parse2(list.stream()) {
        Ok(raw) => raw,
        Err(error) => {
            errors.push(error);
            return None;
        }
    };
    let mut since = None;
    let mut sunset = None;
    let mut replacement = None;
    let mut note = None;
    // The keys written, and those an unknown key was probably meant to be.
    let mut written: Vec<String> = Vec::new();
    for RawArg { key, value, .. } in raw {
        let word = key.unraw().to_string();
        if !DEPRECATED_KEYS.contains(&word.as_str()) {
            let mut message = format!("unknown key `{word}` in `deprecated`");
            if let Some(close) = closest(&word, DEPRECATED_KEYS) {
                message.push_str(&format!(", did you mean `{close}`?"));
                written.push(close.to_owned());
            }
            message.push_str(&format!(" expected one of {}", backticked(DEPRECATED_KEYS)));
            errors.push(syn::Error::new(key.span(), message));
            continue;
        }
        if written.contains(&word) {
            errors.push(syn::Error::new(
                key.span(),
                format!("duplicate key `{word}`: each key of `deprecated` may be given once"),
            ));
            continue;
        }
        written.push(word.clone());
        let Some(value) = value else {
            errors.push(syn::Error::new(
                key.span(),
                format!("expected a value for `{word}` in `deprecated`: `{word} = \"...\"`"),
            ));
            continue;
        };
        let given = string(&word, &value, errors);
        match word.as_str() {
            "since" => since = given,
            "sunset" => sunset = given,
            "replacement" => replacement = given,
            _ => note = given,
        }
    }
    if since.is_none() && !written.iter().any(|w| w == "since") {
        errors.push(syn::Error::new(
            key.span(),
            "missing key `since` in `deprecated`, expected the version (\"2.0.0\") or the date \
             (\"2026-06-30\") since which the tool is deprecated",
        ));
    }
    Some(Deprecated {
        since: since?,
        sunset,
        replacement,
        note,
    })
}

fn manifest_path(value: &Expr, errors: &mut Errors) -> Option<Path> {
    match value {
        Expr::Path(ExprPath {
            attrs,
            qself: None,
            path,
        }) if attrs.is_empty() => Some(path.clone()),
        _ => {
            errors.push(syn::Error::new_spanned(
                value,
                "expected `manifest` to be the path of the module generated for the tool, \
                 like `manifest = crate::tools::my_tool`",
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_suggest_the_closest_key() {
        assert_eq!(closest("saftey", KEYS), Some("safety"));
        assert_eq!(closest("mdoe", KEYS), Some("mode"));
        assert_eq!(closest("titel", KEYS), Some("title"));
        assert_eq!(closest("manfest", KEYS), Some("manifest"));
        assert_eq!(closest("colour", KEYS), None);
    }

    fn errors_of(tokens: TokenStream) -> Vec<String> {
        let mut errors = Errors::default();
        parse(tokens, &mut errors);
        errors.messages()
    }

    #[test]
    fn every_mistake_is_reported() {
        let messages = errors_of(quote::quote!(
            saftey = "read-only",
            mode = "parallel",
            mode = "sequential",
            safety = "readonly",
            title = 3
        ));
        assert_eq!(
            messages,
            vec![
                "unknown key `saftey` in `#[tool]`, did you mean `safety`? expected one of \
                 `name`, `title`, `category`, `safety`, `mode`, `idempotent`, `open_world`, \
                 `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, \
                 `manifest`",
                "duplicate key `mode`: each key of `#[tool]` may be given once",
                r#"expected `safety` to be "read-only" or "destructive", found "readonly""#,
                "expected `title` to be a string literal: `title = \"...\"`",
            ]
        );
    }

    #[test]
    fn declared_limits_are_checked_by_the_one_parser() {
        let mut errors = Errors::default();
        let args = parse(
            quote::quote!(timeout = "1m 30s", max_output_bytes = 65_536),
            &mut errors,
        );
        assert!(errors.messages().is_empty(), "{:?}", errors.messages());
        assert_eq!(args.timeout_ms.map(|t| t.value), Some(90_000));
        assert_eq!(args.max_output_bytes.map(|b| b.value), Some(65_536));
        assert_eq!(
            errors_of(quote::quote!(timeout = "soon", max_output_bytes = 0)),
            vec![
                "expected `timeout` to be a time limit like \"30s\", \"500ms\" or \"2m\", found \"soon\": expected number at 0",
                "expected `max_output_bytes` to be a positive integer literal (bytes): `max_output_bytes = 65536`",
            ]
        );
        assert_eq!(
            errors_of(quote::quote!(timeout = 30, max_output_bytes = "big")),
            vec![
                "expected `timeout` to be a string literal: `timeout = \"30s\"` (or \"500ms\", \"2m\")",
                "expected `max_output_bytes` to be a positive integer literal (bytes): `max_output_bytes = 65536`",
            ]
        );
    }

    #[test]
    fn version_and_deprecated_are_read() {
        let mut errors = Errors::default();
        let args = parse(
            quote::quote!(
                version = "2.1.0",
                deprecated(
                    since = "2.0.0",
                    sunset = "2027-01-31",
                    replacement = "other_tool",
                    note = "Call other_tool."
                )
            ),
            &mut errors,
        );
        assert!(errors.messages().is_empty(), "{:?}", errors.messages());
        assert_eq!(args.version.map(|v| v.value).as_deref(), Some("2.1.0"));
        let deprecated = args.deprecated.expect("a deprecation");
        let value = |given: Option<Given<String>>| given.map(|g| g.value);
        assert_eq!(deprecated.since.value, "2.0.0");
        assert_eq!(value(deprecated.sunset).as_deref(), Some("2027-01-31"));
        assert_eq!(value(deprecated.replacement).as_deref(), Some("other_tool"));
        assert_eq!(value(deprecated.note).as_deref(), Some("Call other_tool."));

        let args = parse(quote::quote!(deprecated(since = "2026-01-15")), &mut errors);
        assert!(errors.messages().is_empty(), "{:?}", errors.messages());
        let deprecated = args.deprecated.expect("a deprecation");
        assert_eq!(deprecated.since.value, "2026-01-15");
        assert!(deprecated.sunset.is_none() && deprecated.replacement.is_none());
    }

    #[test]
    fn mistakes_in_deprecated_say_what_it_takes() {
        assert_eq!(
            errors_of(quote::quote!(deprecated(
                sinse = "2.0.0",
                sunset = "2027-01-31",
                sunset = "2027-02-01",
                until = "2028-01-01",
                note = 3
            ))),
            vec![
                "unknown key `sinse` in `deprecated`, did you mean `since`? expected one of \
                 `since`, `sunset`, `replacement`, `note`",
                "duplicate key `sunset`: each key of `deprecated` may be given once",
                "unknown key `until` in `deprecated` expected one of `since`, `sunset`, \
                 `replacement`, `note`",
                "expected `note` to be a string literal: `note = \"...\"`",
            ]
        );
        assert_eq!(
            errors_of(quote::quote!(deprecated(note = "Gone."))),
            vec![
                "missing key `since` in `deprecated`, expected the version (\"2.0.0\") or the \
                 date (\"2026-06-30\") since which the tool is deprecated"
            ]
        );
        let written = "(only `since` is required)";
        for (tokens, start) in [
            (
                quote::quote!(deprecated = "2.0.0"),
                "expected `deprecated` to be a list of keys: `deprecated(since = ",
            ),
            (
                quote::quote!(deprecated),
                "expected the keys of `deprecated`: `deprecated(since = ",
            ),
        ] {
            let found = errors_of(tokens);
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(
                found[0].starts_with(start) && found[0].ends_with(written),
                "{found:?}"
            );
        }
        assert_eq!(
            errors_of(quote::quote!(version = 2, deprecated(since))),
            vec![
                "expected `version` to be a string literal: `version = \"2.1.0\"` (a semantic version)",
                "expected a value for `since` in `deprecated`: `since = \"...\"`",
            ]
        );
    }

    #[test]
    fn defer_loading_is_a_flag_or_a_boolean() {
        for (tokens, expected) in [
            (quote::quote!(defer_loading), true),
            (quote::quote!(defer_loading = true), true),
            (quote::quote!(defer_loading = false), false),
        ] {
            let mut errors = Errors::default();
            let args = parse(tokens, &mut errors);
            assert!(errors.messages().is_empty(), "{:?}", errors.messages());
            assert_eq!(args.defer_loading.map(|d| d.value), Some(expected));
        }
        let mut errors = Errors::default();
        assert!(
            parse(quote::quote!(safety = "read-only"), &mut errors)
                .defer_loading
                .is_none()
        );
        let wrong = "expected `defer_loading` to be `true` or `false`: `defer_loading`, \
                     `defer_loading = true` or `defer_loading = false`";
        for tokens in [
            quote::quote!(defer_loading = "yes"),
            quote::quote!(defer_loading(true)),
            quote::quote!(defer_loading = 1),
        ] {
            assert_eq!(errors_of(tokens), vec![wrong]);
        }
        assert_eq!(
            errors_of(quote::quote!(defer_loading, defer_loading = false)),
            vec!["duplicate key `defer_loading`: each key of `#[tool]` may be given once"]
        );
    }

    #[test]
    fn a_key_without_value_says_how_to_write_it() {
        assert_eq!(
            errors_of(quote::quote!(safety)),
            vec![
                r#"expected a value for `safety`: `safety = ...` with one of "read-only" or "destructive""#
            ]
        );
    }
}
