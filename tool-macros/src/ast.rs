//! The shape of a tool function: its context, its input, its result and its doc comment.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericParam, Ident, ItemFn, Lit, Meta, ReturnType, Type,
    TypeReference,
};

/// Every mistake found, reported together (`syn::Error::combine`).
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    pub fn into_result(self) -> Result<(), syn::Error> {
        self.0.map_or(Ok(()), Err)
    }

    #[cfg(test)]
    pub fn messages(&self) -> Vec<String> {
        self.0
            .iter()
            .flat_map(|e| e.into_iter().map(|e| e.to_string()))
            .collect()
    }
}

/// How the function takes the run's context.
pub(crate) struct Context<'a> {
    /// The whole parameter type, `&C` or `&mut C`.
    pub reference: &'a TypeReference,
}

impl Context<'_> {
    pub fn is_mut(&self) -> bool {
        self.reference.mutability.is_some()
    }

    /// The span of `&mut`.
    pub fn mut_span(&self) -> Span {
        let and = self.reference.and_token.span;
        self.reference
            .mutability
            .as_ref()
            .map_or(and, |m| and.join(m.span).unwrap_or(m.span))
    }
}

/// One parameter, in declaration order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Param {
    Context,
    Input,
}

/// A function `#[tool]` can turn into a tool.
pub(crate) struct ToolFn<'a> {
    pub item: &'a ItemFn,
    pub context: Option<Context<'a>>,
    pub input: Option<&'a Type>,
    /// The parameters in order, to call the function.
    pub params: Vec<Param>,
    /// The declared return type (of the future, for an `async fn`).
    pub output: Option<&'a Type>,
    /// The doc comment, unindented; `None` when there is none.
    pub doc: Option<String>,
}

impl<'a> ToolFn<'a> {
    pub fn ident(&self) -> &'a Ident {
        &self.item.sig.ident
    }

    pub fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }

    /// Reads the function; every shape the registry cannot call goes to `errors`.
    pub fn from_item(item: &'a ItemFn, errors: &mut Errors) -> Self {
        let sig = &item.sig;
        let ident = &sig.ident;
        if let syn::Safety::Unsafe(token) = &sig.safety {
            errors.error(
                token.span,
                format!("tool function `{ident}` cannot be `unsafe`: the registry calls it with no safety contract to uphold"),
            );
        }
        for param in &sig.generics.params {
            if !matches!(param, GenericParam::Lifetime(_)) {
                errors.error(
                    param.span(),
                    format!(
                        "tool function `{ident}` cannot be generic: the registry calls one concrete function; \
                         use concrete types for the input and the context"
                    ),
                );
            }
        }
        if let Some(variadic) = &sig.variadic {
            errors.error(
                variadic.span(),
                format!("tool function `{ident}` cannot be variadic"),
            );
        }

        let mut context: Option<Context<'a>> = None;
        let mut input: Option<&'a Type> = None;
        let mut params = Vec::new();
        for arg in &sig.inputs {
            let typed = match arg {
                FnArg::Receiver(receiver) => {
                    errors.error(
                        receiver.self_token.span,
                        format!(
                            "tool function `{ident}` cannot take `self`: `#[tool]` applies to free functions; \
                             take the state as the context parameter (`&C` or `&mut C`) instead"
                        ),
                    );
                    continue;
                }
                FnArg::Typed(typed) => typed,
            };
            let ty = &*typed.ty;
            if contains_impl_trait(ty) {
                errors.error(
                    ty.span(),
                    format!(
                        "tool function `{ident}` cannot be generic: `impl Trait` in a parameter is a type parameter; \
                         use a concrete type"
                    ),
                );
                continue;
            }
            if let Type::Reference(reference) = ty {
                if let Some(first) = &context {
                    errors.error(
                        ty.span(),
                        format!(
                            "tool function `{ident}` takes two context parameters, `{}` and `{}`: \
                             a tool takes at most one context (`&C` or `&mut C`) and one input",
                            type_text(&Type::Reference(first.reference.clone())),
                            type_text(ty)
                        ),
                    );
                    continue;
                }
                context = Some(Context { reference });
                params.push(Param::Context);
            } else {
                if let Some(first) = input {
                    errors.error(
                        ty.span(),
                        format!(
                            "tool function `{ident}` takes two inputs, `{}` and `{}`: a tool takes one input, \
                             the struct its arguments are deserialized into (put both in one struct); \
                             only a reference parameter (`&C` or `&mut C`) is taken as the context",
                            type_text(first),
                            type_text(ty)
                        ),
                    );
                    continue;
                }
                input = Some(ty);
                params.push(Param::Input);
            }
        }
        if input.is_none() && sig.receiver().is_none() {
            let context_note = context.as_ref().map_or(String::new(), |c| {
                format!(
                    "; `{}` is a reference, so it is taken as the context",
                    type_text(&Type::Reference(c.reference.clone()))
                )
            });
            errors.error(
                sig.paren_token.span.join(),
                format!(
                    "tool function `{ident}` has no input: add a parameter for the tool's arguments, \
                     like `input: Args` where `Args` derives `Deserialize` and `JsonSchema` \
                     (an empty struct for a tool without arguments){context_note}"
                ),
            );
        }

        let output = match &sig.output {
            ReturnType::Type(_, ty) => Some(&**ty),
            ReturnType::Default => {
                errors.error(
                    sig.paren_token.span.close(),
                    format!(
                        "tool function `{ident}` returns nothing: a tool returns `Result<T, E>`, \
                         `T` its output (`Serialize`) and `E` its error"
                    ),
                );
                None
            }
        };

        let doc = doc_comment(
            &item.attrs,
            "the description of a tool",
            "`#[tool]`",
            errors,
        );
        ToolFn {
            item,
            context,
            input,
            params,
            output,
            doc,
        }
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Reference(reference) => contains_impl_trait(&reference.elem),
        Type::Paren(paren) => contains_impl_trait(&paren.elem),
        Type::Group(group) => contains_impl_trait(&group.elem),
        _ => false,
    }
}

/// A type as the user wrote it, for messages: `&mut Chart`, `Result<Vec<u8>, Error>`.
pub(crate) fn type_text(ty: &Type) -> String {
    let mut out = String::new();
    write_tokens(&mut out, quote::ToTokens::to_token_stream(ty));
    out
}

fn write_tokens(out: &mut String, tokens: proc_macro2::TokenStream) {
    use proc_macro2::{Delimiter, TokenTree};
    // What came before: `None` at the start, `Some(c)` after a punctuation `c`, `Some(' ')`
    // after a word or a group.
    let mut previous: Option<char> = None;
    for tree in tokens {
        let current = match &tree {
            TokenTree::Punct(punct) => punct.as_char(),
            _ => ' ',
        };
        let glued = matches!(
            (previous, current),
            (None, _)
                | (_, ',' | ';' | '>')
                | (Some('&' | '<' | '\'' | ':'), _)
                | (Some(' ' | '>'), ':')
                | (Some(' '), '<')
        );
        if !glued {
            out.push(' ');
        }
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                if previous == Some(' ') && open == "(" {
                    out.pop();
                }
                out.push_str(open);
                write_tokens(out, group.stream());
                out.push_str(close);
            }
            other => out.push_str(&other.to_string()),
        }
        previous = Some(current);
    }
}

/// The doc comment of an item: one string, common indentation removed, trimmed. `what` is what
/// it is read as and `reader` the macro reading it, for the message when it is not written as
/// doc comments.
pub(crate) fn doc_comment(
    attrs: &[Attribute],
    what: &str,
    reader: &str,
    errors: &mut Errors,
) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs {
        let Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        if !meta.path.is_ident("doc") {
            continue;
        }
        match &meta.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => {
                lines.extend(
                    text.value()
                        .split('\n')
                        .map(|line| line.trim_end_matches('\r').to_owned()),
                );
            }
            other => errors.error(
                other.span(),
                format!(
                    "{what} must be written as doc comments (`/// ...`): \
                     `#[doc = ...]` with a macro cannot be read by {reader}"
                ),
            ),
        }
    }
    let indent = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let text = lines
        .iter()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn messages(item: &ItemFn) -> Vec<String> {
        let mut errors = Errors::default();
        ToolFn::from_item(item, &mut errors);
        errors.messages()
    }

    #[test]
    fn context_and_input_are_told_apart_by_reference() {
        let item: ItemFn = parse_quote! {
            /// Draws.
            ///
            ///   Indented.
            fn draw(input: Args, chart: &mut Chart) -> Result<(), ToolError> { todo!() }
        };
        let mut errors = Errors::default();
        let tool = ToolFn::from_item(&item, &mut errors);
        assert!(errors.messages().is_empty());
        assert!(tool.context.as_ref().is_some_and(Context::is_mut));
        assert_eq!(tool.input.map(type_text).as_deref(), Some("Args"));
        assert!(tool.params == [Param::Input, Param::Context]);
        assert_eq!(tool.doc.as_deref(), Some("Draws.\n\n  Indented."));
    }

    #[test]
    fn shapes_the_registry_cannot_call_are_errors() {
        let item: ItemFn = parse_quote! {
            unsafe fn f<T>(&self, a: A, b: B, c: &C, d: &mut D) {}
        };
        let found = messages(&item);
        assert_eq!(found.len(), 6, "{found:#?}");
        assert!(found[0].contains("cannot be `unsafe`"));
        assert!(found[1].contains("cannot be generic"));
        assert!(found[2].contains("cannot take `self`"));
        assert!(found[3].contains("takes two inputs, `A` and `B`"));
        assert!(found[4].contains("takes two context parameters, `&C` and `&mut D`"));
        assert!(found[5].contains("returns nothing"));
    }

    #[test]
    fn a_function_without_parameters_has_no_input() {
        let item: ItemFn = parse_quote! { fn f() -> Result<(), E> {} };
        assert_eq!(messages(&item).len(), 1);
        assert!(messages(&item)[0].contains("has no input"));
    }

    #[test]
    fn types_print_as_written() {
        let cases: [(Type, &str); 7] = [
            (parse_quote!(&mut Chart), "&mut Chart"),
            (parse_quote!(&'a mut Chart), "&'a mut Chart"),
            (
                parse_quote!(crate::tools::x::Input),
                "crate::tools::x::Input",
            ),
            (
                parse_quote!(Result<Vec<u8>, ::std::io::Error>),
                "Result<Vec<u8>, ::std::io::Error>",
            ),
            (parse_quote!([u8; 4]), "[u8; 4]"),
            (
                parse_quote!(Box<dyn Fn(u8) -> u8 + Send>),
                "Box<dyn Fn(u8) -> u8 + Send>",
            ),
            (parse_quote!(<T as Trait>::Out), "<T as Trait>::Out"),
        ];
        for (ty, text) in cases {
            assert_eq!(type_text(&ty), text);
        }
    }

    #[test]
    fn lifetimes_are_not_generics() {
        let item: ItemFn = parse_quote! { fn f<'a>(c: &'a C, i: I) -> Result<(), E> {} };
        assert!(messages(&item).is_empty());
    }
}
