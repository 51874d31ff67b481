//! `#[derive(DeclaredError)]`: the codes a code-first tool fails with, declared on an enum.
//!
//! The same passes as `#[tool]`, in one file since the derive is small: each variant's
//! `#[declared(...)]` and doc comment are read ([`variant`], with the attribute helpers of
//! `attr.rs`), the codes are checked together (the rules of a manifest's `[[errors]]`: one
//! `SCREAMING_SNAKE_CASE` code per variant, unique, none of the runtime's), and the enum gets
//! `impl DeclaredError` with `ERRORS` and `code` written from the one list ([`expand`]). Every
//! mistake is reported at once, on its tokens; with mistakes, the implementation is still
//! emitted, with no codes and a `code` that is `unreachable!()`, so that a tool failing with the
//! enum adds no error of its own. Beside it, the hidden `CodeFirstError`, so that a code-first
//! tool may fail with the enum itself.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Ident, LitStr, Variant};
use toolwright_core::model::{
    RESERVED_CODES, backticked, is_screaming_snake_case, screaming_snake_case,
};

use crate::ast::{Errors, doc_comment};
use crate::attr::{self, Given, RawArg};

/// The keys of `#[declared(...)]`: those of a manifest's `[[errors]]` entry.
const KEYS: &[&str] = &["code", "message", "retryable", "recommended_action"];

/// The helper attribute on each variant.
const ATTRIBUTE: &str = "declared";

/// One checked variant.
struct Declared<'a> {
    ident: &'a Ident,
    code: String,
    message: String,
    retryable: bool,
    recommended_action: String,
}

/// What the keys of one `#[declared(...)]` say.
#[derive(Default)]
struct Keys {
    code: Option<Given<String>>,
    message: Option<Given<String>>,
    retryable: Option<Given<bool>>,
    recommended_action: Option<Given<String>>,
    /// The keys written, with bad values too (not reported missing again).
    written: Vec<String>,
}

/// `#[derive(DeclaredError)]` on `input`.
pub fn derive(input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<DeriveInput>(input) {
        Ok(item) => item,
        Err(error) => return error.into_compile_error(),
    };
    let mut errors = Errors::default();
    for attr in item.attrs.iter().filter(|a| a.path().is_ident(ATTRIBUTE)) {
        errors.error(
            attr.span(),
            format!(
                "`#[{ATTRIBUTE}(...)]` goes on each variant of `{}`: every code declares its own \
                 `retryable` and `recommended_action`",
                item.ident
            ),
        );
    }
    let declared = match &item.data {
        Data::Enum(data) => {
            let declared: Vec<Declared<'_>> = data
                .variants
                .iter()
                .filter_map(|v| variant(&item.ident, v, &mut errors))
                .collect();
            check_codes(&item.ident, &declared, &data.variants, &mut errors);
            declared
        }
        Data::Struct(data) => {
            errors.error(data.struct_token.span, not_an_enum(&item.ident, "a struct"));
            Vec::new()
        }
        Data::Union(data) => {
            errors.error(data.union_token.span, not_an_enum(&item.ident, "a union"));
            Vec::new()
        }
    };
    match errors.into_result() {
        Ok(()) => expand(&item, Some(&declared)),
        Err(error) => {
            let mut out = error.into_compile_error();
            out.extend(expand(&item, None));
            out
        }
    }
}

fn not_an_enum(ident: &Ident, found: &str) -> String {
    format!(
        "`#[derive(DeclaredError)]` applies to an enum, one variant per error code, and `{ident}` is \
         {found}: write the codes the tool may fail with as the variants of an enum"
    )
}

/// Reads one variant: its `#[declared(...)]` and its doc comment.
fn variant<'a>(
    enum_ident: &Ident,
    variant: &'a Variant,
    errors: &mut Errors,
) -> Option<Declared<'a>> {
    let ident = &variant.ident;
    let name = format!("{enum_ident}::{ident}");
    let attrs: Vec<&Attribute> = variant
        .attrs
        .iter()
        .filter(|a| a.path().is_ident(ATTRIBUTE))
        .collect();
    for extra in attrs.iter().skip(1) {
        errors.error(
            extra.span(),
            format!(
                "`{name}` has more than one `#[{ATTRIBUTE}(...)]`: write its keys in one attribute"
            ),
        );
    }
    let Some(attr) = attrs.first() else {
        errors.error(
            ident.span(),
            format!(
                "`{name}` declares no error: add `#[{ATTRIBUTE}(retryable = ..., recommended_action = \"...\")]` \
                 (whether the same call may succeed when retried, and what the model should do next)"
            ),
        );
        return None;
    };
    let keys = keys(attr, errors);
    let doc = doc_comment(
        &variant.attrs,
        "the message of a declared error",
        "`#[derive(DeclaredError)]`",
        errors,
    );
    let mentioned = |key: &str| keys.written.iter().any(|k| k == key);
    if keys.retryable.is_none() && !mentioned("retryable") {
        errors.error(
            attr.span(),
            format!(
                "`{name}` does not state `retryable`: add `retryable = true` (the same call may \
                 succeed after the recommended action) or `retryable = false`"
            ),
        );
    }
    if keys.recommended_action.is_none() && !mentioned("recommended_action") {
        errors.error(
            attr.span(),
            format!(
                "`{name}` does not state `recommended_action`: add `recommended_action = \"...\"`, \
                 the recovery hint the model gets with the error"
            ),
        );
    }
    if keys.message.is_none() && doc.is_none() && !mentioned("message") {
        errors.error(
            ident.span(),
            format!(
                "`{name}` has no message: add a doc comment (`/// ...`) saying what went wrong, \
                 or `message = \"...\"` in its `#[{ATTRIBUTE}(...)]`"
            ),
        );
    }
    let code = match keys.code {
        Some(code) => {
            check_code(&code.value, code.span, errors);
            code.value
        }
        None => {
            let code = screaming_snake_case(&ident.unraw().to_string());
            if !is_screaming_snake_case(&code) {
                errors.error(
                    ident.span(),
                    format!(
                        "the code of `{name}` cannot be its name in SCREAMING_SNAKE_CASE (`{code}`): \
                         set `code = \"...\"` in its `#[{ATTRIBUTE}(...)]`"
                    ),
                );
            }
            code
        }
    };
    Some(Declared {
        ident,
        code,
        message: keys.message.map(|m| m.value).or(doc)?,
        retryable: keys.retryable?.value,
        recommended_action: keys.recommended_action?.value,
    })
}

/// The keys of one `#[declared(...)]`, every mistake reported.
fn keys(attr: &Attribute, errors: &mut Errors) -> Keys {
    let mut keys = Keys::default();
    let tokens = match attr.meta.require_list() {
        Ok(list) => list.tokens.clone(),
        Err(_) => {
            errors.error(
                attr.span(),
                format!(
                    "expected `#[{ATTRIBUTE}(retryable = ..., recommended_action = \"...\")]`, \
                     with the keys {}",
                    backticked(KEYS)
                ),
            );
            return keys;
        }
    };
    let raw = match attr::parse_raw.parse2(tokens) {
        Ok(raw) => raw,
        Err(error) => {
            errors.push(error);
            return keys;
        }
    };
    for RawArg { key, value, .. } in raw {
        let word = key.unraw().to_string();
        if !KEYS.contains(&word.as_str()) {
            let mut message = format!("unknown key `{word}` in `#[{ATTRIBUTE}]`");
            if let Some(close) = attr::closest(&word, KEYS) {
                message.push_str(&format!(", did you mean `{close}`?"));
                keys.written.push(close.to_owned());
            }
            message.push_str(&format!(" expected one of {}", backticked(KEYS)));
            errors.error(key.span(), message);
            continue;
        }
        if keys.written.contains(&word) {
            errors.error(
                key.span(),
                format!("duplicate key `{word}`: each key of `#[{ATTRIBUTE}]` may be given once"),
            );
            continue;
        }
        keys.written.push(word.clone());
        let Some(value) = value else {
            let example = match word.as_str() {
                "retryable" => "`retryable = true` or `retryable = false`".to_owned(),
                _ => format!("`{word} = \"...\"`"),
            };
            errors.error(
                key.span(),
                format!("expected a value for `{word}`: {example}"),
            );
            continue;
        };
        match word.as_str() {
            "code" => keys.code = attr::string(&word, &value, errors),
            "message" => keys.message = attr::string(&word, &value, errors),
            "retryable" => keys.retryable = attr::boolean(&word, &value, errors),
            _ => keys.recommended_action = attr::string(&word, &value, errors),
        }
    }
    keys
}

/// A code written in `code = "..."`: the rules of a manifest's `[[errors]]`.
fn check_code(code: &str, span: Span, errors: &mut Errors) {
    if !is_screaming_snake_case(code) {
        let suggestion = screaming_snake_case(code);
        let example = if is_screaming_snake_case(&suggestion) && suggestion != code {
            suggestion
        } else {
            "PANE_NOT_FOUND".to_owned()
        };
        errors.error(
            span,
            format!(
                "error code `{code}` is not SCREAMING_SNAKE_CASE, expected upper-case words joined \
                 by `_`, such as `{example}`"
            ),
        );
    }
}

/// The codes of the enum together: none of the runtime's, each once.
fn check_codes<'a>(
    enum_ident: &Ident,
    declared: &[Declared<'_>],
    variants: impl IntoIterator<Item = &'a Variant>,
    errors: &mut Errors,
) {
    // Where each code was written: its `code = "..."`, or the variant that implies it.
    let spans: Vec<(&Ident, Span)> = variants
        .into_iter()
        .map(|v| {
            let written = v
                .attrs
                .iter()
                .filter(|a| a.path().is_ident(ATTRIBUTE))
                .find_map(|a| code_literal(a).map(|lit| lit.span()));
            (&v.ident, written.unwrap_or_else(|| v.ident.span()))
        })
        .collect();
    let span_of = |ident: &Ident| {
        spans
            .iter()
            .find(|(i, _)| *i == ident)
            .map_or_else(|| ident.span(), |(_, span)| *span)
    };
    for (index, this) in declared.iter().enumerate() {
        if RESERVED_CODES.contains(&this.code.as_str()) {
            errors.error(
                span_of(this.ident),
                format!(
                    "error code `{}` is reserved by the runtime, expected a code of the tool's own \
                     (the reserved codes are {})",
                    this.code,
                    backticked(RESERVED_CODES)
                ),
            );
        }
        if let Some(first) = declared[..index].iter().find(|d| d.code == this.code) {
            errors.error(
                span_of(this.ident),
                format!(
                    "duplicate error code `{}`: `{enum_ident}::{}` declares it already; each code \
                     is declared once",
                    this.code, first.ident
                ),
            );
        }
    }
}

/// The `code = "..."` literal of a `#[declared(...)]`, if it has one.
fn code_literal(attr: &Attribute) -> Option<LitStr> {
    let list = attr.meta.require_list().ok()?;
    let raw = attr::parse_raw.parse2(list.tokens.clone()).ok()?;
    raw.into_iter().find_map(|arg| match arg.value {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        })) if arg.key == "code" => Some(lit),
        _ => None,
    })
}

/// `impl DeclaredError`: `ERRORS` and `code` from the checked variants; with `None` (there were
/// mistakes), no codes and a `code` that never runs. And `impl CodeFirstError`, from those.
fn expand(item: &DeriveInput, declared: Option<&[Declared<'_>]>) -> TokenStream {
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let span = Span::call_site();
    let runtime = quote_spanned!(span=> ::toolwright_runtime::__private);
    let (errors, code) = match declared {
        Some(declared) => {
            let metas = declared.iter().map(|d| {
                let Declared {
                    code,
                    message,
                    retryable,
                    recommended_action,
                    ..
                } = d;
                quote_spanned! {span=>
                    #runtime::ErrorMeta::new(#code, #message, #retryable, #recommended_action)
                }
            });
            let arms = declared.iter().map(|d| {
                let (variant, code) = (d.ident, &d.code);
                quote_spanned!(span=> Self::#variant { .. } => #code,)
            });
            let body = if declared.is_empty() {
                quote_spanned!(span=> match *self {})
            } else {
                quote_spanned!(span=> match self { #(#arms)* })
            };
            (quote_spanned!(span=> &[#(#metas),*]), body)
        }
        None => (
            quote_spanned!(span=> &[]),
            quote_spanned!(span=> ::core::unreachable!()),
        ),
    };
    // The second implementation lets a code-first tool fail with the enum itself, as with
    // `Failure<E>`.
    quote! {
        #[automatically_derived]
        impl #impl_generics #runtime::DeclaredError for #ident #ty_generics #where_clause {
            const ERRORS: &'static [#runtime::ErrorMeta] = #errors;

            fn code(&self) -> &'static str {
                #code
            }
        }

        #[automatically_derived]
        impl #impl_generics #runtime::CodeFirstError for #ident #ty_generics #where_clause {
            const ERRORS: &'static [#runtime::ErrorMeta] =
                <Self as #runtime::DeclaredError>::ERRORS;

            fn into_tool_error(self) -> #runtime::ToolError {
                ::core::convert::Into::into(#runtime::Failure::new(self))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn messages(input: TokenStream) -> Vec<String> {
        let item: DeriveInput = syn::parse2(input).expect("an item");
        let mut errors = Errors::default();
        if let Data::Enum(data) = &item.data {
            let declared: Vec<Declared<'_>> = data
                .variants
                .iter()
                .filter_map(|v| variant(&item.ident, v, &mut errors))
                .collect();
            check_codes(&item.ident, &declared, &data.variants, &mut errors);
        }
        errors.messages()
    }

    #[test]
    fn codes_come_from_the_variant_names_and_messages_from_the_doc_comments() {
        let out = derive(quote! {
            enum SearchError<T> {
                /// The search service
                ///   did not answer.
                #[declared(retryable = true, recommended_action = "Retry in a minute.")]
                Unavailable,
                #[declared(code = "QUERY_TOO_LONG", message = "Too long.", retryable = false, recommended_action = "Shorten it.")]
                TooLong(T),
            }
        });
        let file: syn::File = syn::parse2(out).expect("an impl");
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains(
                "ErrorMeta::new(\n            \"UNAVAILABLE\",\n            \"The search service\\n  did not answer.\",\n            true,\n            \"Retry in a minute.\",\n        )"
            ),
            "{text}"
        );
        assert!(
            text.contains("Self::TooLong { .. } => \"QUERY_TOO_LONG\","),
            "{text}"
        );
        assert!(
            text.contains(
                "impl<T> ::toolwright_runtime::__private::DeclaredError for SearchError<T> {"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_enum_without_variants_declares_nothing() {
        let text = derive(quote!(
            enum Never {}
        ))
        .to_string();
        assert!(
            text.contains("const ERRORS : & 'static [:: toolwright_runtime :: __private :: ErrorMeta] = & [] ;"),
            "{text}"
        );
        assert!(text.contains("match * self { }"), "{text}");
    }

    #[test]
    fn every_mistake_is_reported_on_its_variant() {
        let found = messages(quote! {
            enum E {
                #[declared(retryable = true, recommended_action = "Retry.")]
                NoMessage,
                /// Missing keys.
                #[declared(retriable = true)]
                MissingKeys,
                /// Undeclared.
                Plain,
                /// A bad code.
                #[declared(code = "paneNotFound", retryable = false, recommended_action = "x", retryable = true)]
                BadCode,
                /// Reserved.
                #[declared(code = "TOOL_FAILED", retryable = false, recommended_action = "x")]
                Reserved,
                /// Twice.
                #[declared(code = "NO_MESSAGE", retryable = false, recommended_action = "x")]
                Again,
            }
        });
        assert_eq!(
            found,
            [
                "`E::NoMessage` has no message: add a doc comment (`/// ...`) saying what went wrong, or `message = \"...\"` in its `#[declared(...)]`",
                "unknown key `retriable` in `#[declared]`, did you mean `retryable`? expected one of `code`, `message`, `retryable`, `recommended_action`",
                "`E::MissingKeys` does not state `recommended_action`: add `recommended_action = \"...\"`, the recovery hint the model gets with the error",
                "`E::Plain` declares no error: add `#[declared(retryable = ..., recommended_action = \"...\")]` (whether the same call may succeed when retried, and what the model should do next)",
                "duplicate key `retryable`: each key of `#[declared]` may be given once",
                "error code `paneNotFound` is not SCREAMING_SNAKE_CASE, expected upper-case words joined by `_`, such as `PANE_NOT_FOUND`",
                "error code `TOOL_FAILED` is reserved by the runtime, expected a code of the tool's own (the reserved codes are `TOOL_INPUT_INVALID`, `TOOL_NOT_ALLOWED`, `TOOL_NOT_FOUND`, `TOOL_TIMEOUT`, `TOOL_FAILED`)",
            ],
        );
        // `NoMessage` had a mistake, so `Again` duplicates nothing checked; with a message it does.
        let found = messages(quote! {
            enum E {
                /// One.
                #[declared(retryable = true, recommended_action = "Retry.")]
                NoMessage,
                /// Two.
                #[declared(code = "NO_MESSAGE", retryable = false, recommended_action = "x")]
                Again,
            }
        });
        assert_eq!(
            found,
            [
                "duplicate error code `NO_MESSAGE`: `E::NoMessage` declares it already; each code is declared once"
            ]
        );
    }

    #[test]
    fn a_struct_is_no_set_of_codes_and_still_gets_an_implementation() {
        let out = derive(quote!(
            struct E;
        ))
        .to_string();
        assert!(out.contains("applies to an enum"), "{out}");
        assert!(out.contains("DeclaredError for E"), "{out}");
        assert!(out.contains(":: core :: unreachable ! ()"), "{out}");
    }
}
