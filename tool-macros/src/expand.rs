//! What `#[tool]`, `tool_def!` and `tool_defs!` emit.
//!
//! Next to the function, unchanged, `#[tool]` emits a hidden type of the same name (a type and
//! a function do not share a namespace) implementing `::toolwright_runtime::__private::Tool<C>`, whose
//! `def()` holds the tool's frozen metadata `static` and its adapter, and `ToolName`, the tool's
//! name as a constant; `tool_def!(path::to::f)` is `<f as Tool<_>>::def()`, reached through an
//! import that falls back to `NotATool` when `f` is not a tool (see [`import_tool`]). The
//! per-tool code is a few `const`s (where a wrong input or return type is reported, once, on
//! the type) and one call into `::toolwright_runtime::__private`, which does the work. With a mistake
//! in the attribute or the function, the function is emitted with the errors and a fallback
//! definition of the same shape (see [`fallback_definition`]), so that one mistake stays one
//! error even where the tool is used.
//!
//! # Spans
//!
//! Every token of the definition lies, in the source, between the start of the attribute and
//! the end of the function's signature, and carries no macro expansion context (see
//! [`Spans`]). rustc hashes a span inside the item that owns it relative to that item, and any
//! other span by its offset in the file, and it hashes an expansion context with the position
//! of the macro call: the definition of a tool is then the same, for incremental compilation,
//! when an edit before it moves it or an edit of the tool's body changes the body's length, and
//! only the edited function is checked and compiled again.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{GenericParam, Item, ItemFn, Path};
use toolwright_core::{Mode, Safety};

use crate::ast::{Context, Errors, Param, ToolFn, type_text};
use crate::attr;
use crate::valid::{self, CodeFirst, ManifestBound, Tool};

/// `#[tool(...)]` on `item`. On any mistake: the item unchanged, every error, and for a
/// function a fallback definition (see [`fallback_definition`]).
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let parsed = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        Ok(other) => {
            let (found, keyword) = item_kind(&other);
            let error = syn::Error::new(
                keyword,
                format!(
                    "`#[tool]` applies to a free function (`fn` or `async fn`), found {found}: \
                     write the tool as a function taking its input (and optionally `&C` or `&mut C`)"
                ),
            );
            return with_errors(item, error);
        }
        Err(error) => return with_errors(item, error),
    };
    let args = attr::parse(args, &mut errors);
    let function = ToolFn::from_item(&parsed, &mut errors);
    let tool = valid::check(&args, &function, &mut errors);
    if let Err(error) = errors.into_result() {
        let fallback = fallback_definition(&function, Spans::of(&parsed));
        let errors = error.into_compile_error();
        return quote! { #item #errors #fallback };
    }
    match tool {
        Some(tool) => {
            let spans = Spans::of(&parsed);
            let def = definition(&function, &tool, spans);
            quote! { #item #def }
        }
        // Unreachable in practice: every `None` comes with an error.
        None => item,
    }
}

/// `tool_def!(path::to::f)`: the `ToolDef` of the tool function `f`,
/// `{ <imports of f as __Tool> <__Tool as Tool<_>>::def() }` (see [`import_tool`]).
pub fn tool_def(input: TokenStream) -> TokenStream {
    let path = match tool_path(input) {
        Ok(path) => path,
        Err(error) => return error.into_compile_error(),
    };
    let span = path_span(&path);
    let import = import_tool(&path, span);
    // Every token carries the path's span rather than this macro's: the function holding the
    // call is then unchanged, for incremental compilation, when it moves.
    let mut block = Group::new(
        Delimiter::Brace,
        quote_spanned! {span=>
            #import
            <__Tool as ::toolwright_runtime::__private::Tool<_>>::def()
        },
    );
    block.set_span(span);
    TokenStream::from(TokenTree::Group(block))
}

/// The path given to `tool_def!`: a path without generic arguments.
fn tool_path(input: TokenStream) -> syn::Result<Path> {
    let path = syn::parse2::<Path>(input).map_err(|error| {
        syn::Error::new(
            error.span(),
            "expected the path of a `#[tool]` function, like `tool_def!(tools::my_tool)`",
        )
    })?;
    if let Some(segment) = path.segments.iter().find(|s| !s.arguments.is_none()) {
        return Err(syn::Error::new_spanned(
            &segment.arguments,
            "expected the path of a `#[tool]` function, without generic arguments",
        ));
    }
    Ok(path)
}

/// The span of a path's last segment (where its errors point).
fn path_span(path: &Path) -> Span {
    path.segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span())
}

/// `path` imported as `__Tool`, over a glob import whose `__Tool` is `NotATool`.
///
/// A named import shadows a glob one namespace by namespace. `#[tool]` emits, next to the
/// function `f`, a hidden type also named `f`: for a tool, `__Tool` in the type namespace is
/// that type, whose `Tool<C>` implementation holds the definition; for any other function,
/// `path` names nothing in the type namespace, `__Tool` is `NotATool`, and the one error is
/// `Tool`'s "this function is not a tool", on the path.
fn import_tool(path: &Path, span: Span) -> TokenStream {
    quote_spanned! {span=>
        #[allow(unused_imports)]
        use ::toolwright_runtime::__private::not_a_tool::*;
        #[allow(unused_imports)]
        use #path as __Tool;
    }
}

/// `tool_defs![declared, except names; f, g, #[cfg(...)] h]`: the `ToolDef`s of the listed
/// `#[tool]` functions, as an array, and a `const` assertion that every tool of `declared`
/// (a `&[&ToolMeta]`, the generator's `ALL`) but those in `except` (a `&[&str]`) is listed:
/// a declared tool without an implementation is a compile error naming it and its manifest.
/// Without `declared ...;`, only the array.
pub fn tool_defs(input: TokenStream) -> TokenStream {
    match syn::parse::Parser::parse2(ToolList::parse, input) {
        Ok(list) => list.expand(),
        Err(error) => error.into_compile_error(),
    }
}

/// What `tool_defs!` reads.
struct ToolList {
    /// The declared tools and the names excepted from them.
    declared: Option<(syn::Expr, Option<syn::Expr>)>,
    /// Each tool, with its `#[cfg(...)]` attributes.
    tools: Vec<(Vec<syn::Attribute>, Path)>,
}

impl ToolList {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let has_declared = input.fork().step(|cursor| {
            let mut rest = *cursor;
            while let Some((token, next)) = rest.token_tree() {
                if matches!(&token, TokenTree::Punct(p) if p.as_char() == ';') {
                    return Ok((true, next));
                }
                rest = next;
            }
            Ok((false, rest))
        })?;
        let declared = if has_declared {
            let declared: syn::Expr = input.parse()?;
            let except = if input.parse::<Option<syn::Token![,]>>()?.is_some() {
                let keyword: syn::Ident = input.call(syn::Ident::parse_any)?;
                if keyword != "except" {
                    return Err(syn::Error::new(
                        keyword.span(),
                        "expected `except NAMES` (a `&[&str]` of declared tools this list leaves out) or `;`",
                    ));
                }
                Some(input.parse()?)
            } else {
                None
            };
            input.parse::<syn::Token![;]>()?;
            Some((declared, except))
        } else {
            None
        };
        let mut tools = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            if let Some(attr) = attrs.iter().find(|a| !a.path().is_ident("cfg")) {
                return Err(syn::Error::new_spanned(
                    attr,
                    "only `#[cfg(...)]` may precede a tool in `tool_defs!`",
                ));
            }
            let path = input
                .parse::<Path>()
                .and_then(|path| tool_path(path.to_token_stream()))?;
            tools.push((attrs, path));
            if input.is_empty() {
                break;
            }
            input.parse::<syn::Token![,]>()?;
        }
        Ok(ToolList { declared, tools })
    }

    fn expand(self) -> TokenStream {
        let defs = self.tools.iter().map(|(attrs, path)| {
            let span = path_span(path);
            let import = import_tool(path, span);
            quote_spanned! {span=>
                #(#attrs)* {
                    #import
                    <__Tool as ::toolwright_runtime::__private::Tool<_>>::def()
                }
            }
        });
        let check = self.declared.as_ref().map(|(declared, except)| {
            let span = declared
                .to_token_stream()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |token| token.span());
            let names = self.tools.iter().map(|(attrs, path)| {
                let span = path_span(path);
                let import = import_tool(path, span);
                quote_spanned! {span=>
                    #(#attrs)* {
                        #import
                        <__Tool as ::toolwright_runtime::__private::ToolName>::NAME
                    }
                }
            });
            let except = except
                .as_ref()
                .map_or_else(|| quote_spanned!(span=> &[]), ToTokens::to_token_stream);
            quote_spanned! {span=>
                // Never used: evaluated for its panic.
                #[allow(dead_code)]
                const EVERY_DECLARED_TOOL_IS_LISTED: () = {
                    const __DECLARED: &[&::toolwright_runtime::__private::ToolMeta] = #declared;
                    const __EXCEPT: &[&str] = #except;
                    const __NAMES: &[::core::option::Option<&str>] = &[#(#names),*];
                    const __LEN: usize =
                        ::toolwright_runtime::__private::unimplemented::<0>(__DECLARED, __EXCEPT, __NAMES).len();
                    const __TEXT: ::toolwright_runtime::__private::Text<{ __LEN }> =
                        ::toolwright_runtime::__private::unimplemented(__DECLARED, __EXCEPT, __NAMES);
                    if !__TEXT.is_empty() {
                        ::core::panic!("{}", __TEXT.as_str());
                    }
                };
            }
        });
        quote! {
            {
                #check
                [#(#defs),*]
            }
        }
    }
}

/// The spans of a tool's generated definition.
///
/// `at` is where the attribute is (what `Span::call_site()` points at, so errors in generated
/// code point at `#[tool(...)]` as before) but resolved as the function's own tokens are: the
/// same names are in scope, without the expansion context whose hash moves with the call.
/// Every generated item starts with a token at `at` and ends with one at `end` (the last token
/// of the function's signature), so its span covers the attribute, the signature, and every
/// token in between: the tokens the definition takes from the function are all in there. Not
/// the body: an edit of the body leaves the definition as it was.
#[derive(Clone, Copy)]
pub(crate) struct Spans {
    pub at: Span,
    pub end: Span,
}

impl Spans {
    fn of(item: &ItemFn) -> Self {
        let end =
            item.sig
                .to_token_stream()
                .into_iter()
                .last()
                .map_or(item.sig.fn_token.span, |token| match token {
                    TokenTree::Group(group) => group.span_close(),
                    other => other.span(),
                });
        Spans {
            at: Span::call_site().resolved_at(end),
            end,
        }
    }

    /// `;` at the end of the signature: the last token of a generated item.
    fn semi(self) -> TokenStream {
        quote_spanned!(self.end=> ;)
    }
}

/// `tokens` with every span set to `span` (a visibility, moved to the start of the item).
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), respan(group.stream(), span));
                new.set_span(span);
                TokenTree::Group(new)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

fn with_errors(item: TokenStream, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    quote! { #item #errors }
}

/// What an item that is not a function is, and the span of its keyword (where the error points).
fn item_kind(item: &Item) -> (&'static str, Span) {
    match item {
        Item::Struct(s) => ("a struct", s.struct_token.span),
        Item::Enum(e) => ("an enum", e.enum_token.span),
        Item::Union(_) => ("a union", item.span()),
        Item::Trait(t) => ("a trait", t.trait_token.span),
        Item::Impl(i) => ("an impl block", i.impl_token.span),
        Item::Mod(m) => ("a module", m.mod_token.span),
        Item::Const(c) => ("a const", c.const_token.span),
        Item::Static(s) => ("a static", s.static_token.span),
        Item::Type(t) => ("a type alias", t.type_token.span),
        Item::Use(_) => ("a use declaration", item.span()),
        Item::Macro(_) => ("a macro", item.span()),
        _ => ("an item that is not a function", item.span()),
    }
}

/// The hidden type and implementations of a checked tool (see [`marker`]).
pub(crate) fn definition(function: &ToolFn<'_>, tool: &Tool<'_>, spans: Spans) -> TokenStream {
    let (Some(input), Some(output)) = (function.input, function.output) else {
        return TokenStream::new();
    };
    let Spans { at, .. } = spans;
    let semi = spans.semi();
    let item: &ItemFn = function.item;
    let ident = function.ident();
    let private = quote_spanned!(at=> ::toolwright_runtime::__private);
    // The checks of the input and return types carry the span of those types, so that their
    // errors point at them.
    let (input_span, output_span) = (input.span(), output.span());

    // The metadata the adapter reads, and the one the definition holds (for a code-first tool,
    // the same with its `source`, see `code_first_meta`).
    let (input_fns, return_fns, meta, def_meta, statics) = match tool {
        Tool::CodeFirst(code_first) => {
            let input_fns = quote_spanned!(input_span=>
                ::toolwright_runtime::__private::code_first_input::<#input>());
            let return_fns = quote_spanned!(output_span=>
                ::toolwright_runtime::__private::code_first_return::<#output>());
            let meta = code_first_meta(code_first, spans);
            let input_fns =
                quote_spanned!(at=> const __INPUT: #private::InputFns<#input> = #input_fns #semi);
            let located = quote_spanned!(at=> #private::located::<#ident>(&__LOCATED, &__META));
            (
                input_fns,
                return_fns,
                quote_spanned!(at=> &__META),
                located,
                meta,
            )
        }
        Tool::Manifest(_) => {
            let input_fns = quote_spanned!(input_span=>
                ::toolwright_runtime::__private::manifest_input::<#input, __ManifestInput>());
            let return_fns = quote_spanned!(output_span=>
                ::toolwright_runtime::__private::manifest_return::<#output, __ManifestError>());
            let input_fns = quote_spanned! {at=>
                const __INPUT: #private::BoundInputFns<#input> = #input_fns #semi
            };
            let meta = quote_spanned!(at=> &__MANIFEST_META);
            (
                input_fns,
                return_fns,
                meta.clone(),
                meta,
                TokenStream::new(),
            )
        }
    };
    // Beside the implementations: the manifest's items, and the checks against the manifest.
    let (beside, name) = match tool {
        Tool::CodeFirst(code_first) => (
            TokenStream::new(),
            string(&code_first.name, at).into_token_stream(),
        ),
        Tool::Manifest(bound) => {
            let mut beside = manifest_imports(bound.path, spans);
            beside.extend(manifest_checks(function, bound, spans));
            (beside, quote_spanned!(at=> __MANIFEST_META.name))
        }
    };

    // A future that is not `Send` is reported on `async`.
    let call_span = item.sig.asyncness.map_or(ident.span(), |a| a.span);
    let args: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| match param {
            Param::Context => quote_spanned!(call_span=> __context),
            Param::Input => quote_spanned!(call_span=> __input),
        })
        .collect();
    let call = if function.is_async() {
        quote_spanned!(call_span=> call_async)
    } else {
        quote_spanned!(call_span=> call_sync)
    };
    // Without a context, the function itself is the callback.
    let callback = if function.context.is_none() {
        quote!(#ident)
    } else {
        quote_spanned!(call_span=> |__input| #ident(#(#args),*))
    };
    let adapter = quote_spanned!(call_span=>
        |__context, __args| ::toolwright_runtime::__private::#call(
            #meta, __args, __INPUT.deserialize, __RETURN.finish, #callback,
        )
    );
    let constructor = match &function.context {
        Some(context) if context.is_mut() => quote_spanned!(at=> exclusive),
        _ => quote_spanned!(at=> shared),
    };
    let body = braces(
        quote_spanned! {at=>
            #input_fns
            const __RETURN: #private::ReturnFns<#output> = #return_fns #semi
            #statics
            #private::#constructor(#def_meta, #adapter)
        },
        spans,
    );
    let name = quote_spanned!(at=> ::core::option::Option::Some(#name));
    marker(
        function,
        function.context.as_ref(),
        spans,
        &beside,
        &name,
        body,
    )
}

/// The definition emitted beside the errors of a tool with a mistake: the same hidden type and
/// implementations as a real one, so that `tool_def!(f)` elsewhere still resolves and
/// type-checks instead of adding "this function is not a tool" to the one error of the mistake.
/// `def` is `unreachable!()`: it is never run, since the crate does not compile. The name is
/// `None`, so that `tool_defs!` adds nothing either.
///
/// A context type that names a type or const parameter of the (then generic, so mistaken)
/// function cannot be named outside it: the fallback is then generic over its context, as the
/// definition of a tool without context is. A method (it takes `self`) gets none: `tool_def!`
/// cannot name it, and in a trait impl an extra item would be an error of its own.
fn fallback_definition(function: &ToolFn<'_>, spans: Spans) -> TokenStream {
    if function.item.sig.receiver().is_some() {
        return TokenStream::new();
    }
    let generics = &function.item.sig.generics;
    let context = function
        .context
        .as_ref()
        .filter(|context| !names_any_of(context.reference.elem.to_token_stream(), generics));
    let body = braces(quote_spanned!(spans.at=> ::core::unreachable!()), spans);
    let name = quote_spanned!(spans.at=> ::core::option::Option::None);
    marker(function, context, spans, &TokenStream::new(), &name, body)
}

/// Whether `tokens` name one of the type or const parameters of `generics`.
fn names_any_of(tokens: TokenStream, generics: &syn::Generics) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => generics.params.iter().any(|param| match param {
            GenericParam::Type(ty) => ty.ident == ident,
            GenericParam::Const(constant) => constant.ident == ident,
            GenericParam::Lifetime(_) => false,
        }),
        TokenTree::Group(group) => names_any_of(group.stream(), generics),
        TokenTree::Punct(_) | TokenTree::Literal(_) => false,
    })
}

/// A tool's hidden type, named like the function (functions are values, this type is a type:
/// the two names do not collide), and in one anonymous `const`, `beside` (the manifest's items,
/// which both implementations use, and the checks against the manifest) and its
/// implementations of `ToolName` (`name`) and `Tool<C>` (`def`), `C` being the context type, or
/// any `C` for a tool without context. With the function's visibility and `cfg`s:
///
/// ```text
/// #[doc(hidden)] #vis struct f {}
/// const _: () = {
///     #beside
///     impl ToolName for f { const NAME: Option<&'static str> = #name; }
///     impl<__C> Tool<__C> for f { fn def() -> ToolDef<__C> #def }
/// };
/// ```
fn marker(
    function: &ToolFn<'_>,
    context: Option<&Context<'_>>,
    spans: Spans,
    beside: &TokenStream,
    name: &TokenStream,
    def: Group,
) -> TokenStream {
    let at = spans.at;
    let semi = spans.semi();
    let item: &ItemFn = function.item;
    let vis = respan(item.vis.to_token_stream(), at);
    let ident = function.ident();
    let (generics, context_ty) = match context {
        None => (quote_spanned!(at=> <__C>), quote_spanned!(at=> __C)),
        Some(context) => {
            let elem = &context.reference.elem;
            (TokenStream::new(), quote!(#elem))
        }
    };
    let private = quote_spanned!(at=> ::toolwright_runtime::__private);
    let name_impl = braces(
        quote_spanned!(at=> const NAME: ::core::option::Option<&'static str> = #name #semi),
        spans,
    );
    let def_impl = braces(
        quote_spanned!(at=> fn def() -> ::toolwright_runtime::__private::ToolDef<#context_ty> #def),
        spans,
    );
    // The other tools' implementations are no hint for a function that is not a tool.
    let block = braces(
        quote_spanned! {at=>
            #beside
            #[diagnostic::do_not_recommend]
            impl #private::ToolName for #ident #name_impl
            #[diagnostic::do_not_recommend]
            impl #generics #private::Tool<#context_ty> for #ident #def_impl
        },
        spans,
    );
    let fields = braces(TokenStream::new(), spans);
    // Both exist exactly when the function does.
    let cfgs: Vec<_> = item
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect();
    quote_spanned! {at=>
        // Named like the function; never constructed (and unused when the tool is not
        // registered, as the function is then).
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(
            non_camel_case_types,
            dead_code,
            missing_debug_implementations,
            clippy::empty_structs_with_brackets
        )]
        #vis struct #ident #fields
        #(#cfgs)*
        const _: () = #block #semi
    }
}

/// `{ tokens }`, ending where the signature does (see [`Spans`]).
fn braces(tokens: TokenStream, spans: Spans) -> Group {
    let mut group = Group::new(Delimiter::Brace, tokens);
    group.set_span(spans.end);
    group
}

/// The frozen metadata of a code-first tool, `__META`, and `__LOCATED`, where the same with its
/// `source` (the function's path, `crate::module::f`) is written once, when the definition is
/// first taken: the path is the `type_name` of the hidden type named like the function. Not a
/// `concat!(module_path!(), …)` in `__META`: rustc hashes a built-in macro's expansion with the
/// position of its call, so after an edit that moves the tools below it, every one of them
/// would be checked again.
fn code_first_meta(tool: &CodeFirst, spans: Spans) -> TokenStream {
    let CodeFirst {
        name,
        title,
        description,
        category,
        safety,
        mode,
        idempotent,
        open_world,
        timeout_ms,
        max_output_bytes,
        version,
        deprecated,
        defer_loading,
    } = tool;
    let at = spans.at;
    let semi = spans.semi();
    // The variants' names, as their `Debug` writes them.
    let safety = syn::Ident::new(&format!("{safety:?}"), at);
    let mode = syn::Ident::new(&format!("{mode:?}"), at);
    let category = category.as_ref().map(|category| {
        let category = string(category, at);
        quote_spanned!(at=> .category(#category))
    });
    let idempotent = idempotent.map(|value| quote_spanned!(at=> .idempotent(#value)));
    let open_world = open_world.map(|value| quote_spanned!(at=> .open_world(#value)));
    let timeout_ms = timeout_ms.map(|ms| {
        let mut ms = proc_macro2::Literal::u64_unsuffixed(ms);
        ms.set_span(at);
        quote_spanned!(at=> .timeout_ms(#ms))
    });
    let max_output_bytes = max_output_bytes.map(|bytes| {
        let mut bytes = proc_macro2::Literal::u64_unsuffixed(bytes);
        bytes.set_span(at);
        quote_spanned!(at=> .max_output_bytes(#bytes))
    });
    let version = version.as_ref().map(|version| {
        let version = string(version, at);
        quote_spanned!(at=> .version(#version))
    });
    let deprecated = deprecated.as_ref().map(|deprecated| {
        let since = string(&deprecated.since, at);
        let optional = |method: &str, value: &Option<String>| {
            value.as_ref().map(|value| {
                let method = syn::Ident::new(method, at);
                let value = string(value, at);
                quote_spanned!(at=> .#method(#value))
            })
        };
        let sunset = optional("sunset", &deprecated.sunset);
        let replacement = optional("replacement", &deprecated.replacement);
        let note = optional("note", &deprecated.note);
        quote_spanned! {at=>
            .deprecated(
                ::toolwright_runtime::__private::DeprecationMeta::new(#since)
                #sunset
                #replacement
                #note
            )
        }
    });
    let defer_loading = defer_loading.then(|| quote_spanned!(at=> .defer_loading()));
    let [name, title, description] = [name, title, description].map(|text| string(text, at));
    let private = quote_spanned!(at=> ::toolwright_runtime::__private);
    quote_spanned! {at=>
        static __META: ::toolwright_runtime::__private::ToolMeta = ::toolwright_runtime::__private::ToolMeta::new(
            #name,
            ::toolwright_runtime::__private::Safety::#safety,
            ::toolwright_runtime::__private::Mode::#mode,
            ::toolwright_runtime::__private::StaticSchema::Derived(__INPUT.schema),
        )
        .title(#title)
        .description(#description)
        #category
        #idempotent
        #open_world
        #timeout_ms
        #max_output_bytes
        #version
        #deprecated
        #defer_loading
        .errors(__RETURN.errors) #semi
        static __LOCATED: #private::OnceLock<#private::ToolMeta> = #private::OnceLock::new() #semi
    }
}

/// `const` assertions of a manifest-bound tool: what the attribute restates, and the `&mut`
/// rule from what the manifest declares.
///
/// A restated value that disagrees with the manifest is the one error: the `&mut` rule is
/// checked only where every restated value agrees (the attribute may be the part to fix, and
/// "take `&C`" would then be the wrong fix). Since the macro knows the restated values, each
/// case's test is written with only what is still open: a restated `safety = "destructive"`
/// leaves no read-only case, a restated `mode = "sequential"` no parallel one.
fn manifest_checks(function: &ToolFn<'_>, bound: &ManifestBound<'_>, spans: Spans) -> TokenStream {
    let at = spans.at;
    let meta = quote_spanned!(at=> __MANIFEST_META);
    let name = &bound.name;
    let read_only = quote_spanned!(at=> #meta.safety.is_read_only());
    let sequential = quote_spanned!(at=> #meta.mode.is_sequential());
    let mut checks = TokenStream::new();
    if let Some(safety) = bound.safety {
        let (test, found) = match safety.value {
            Safety::ReadOnly => (quote_spanned!(at=> !#read_only), Safety::Destructive),
            Safety::Destructive => (read_only.clone(), Safety::ReadOnly),
        };
        let message = disagreement(
            name,
            "safety",
            &quoted(safety.value.as_str()),
            &quoted(found.as_str()),
        );
        checks.extend(assertion(
            "SAFETY_AGREES_WITH_THE_MANIFEST",
            safety.span,
            &[(test, message)],
            &meta,
            spans,
        ));
    }
    if let Some(mode) = bound.mode {
        let (test, found) = match mode.value {
            Mode::Parallel => (sequential.clone(), Mode::Sequential),
            Mode::Sequential => (quote_spanned!(at=> !#sequential), Mode::Parallel),
        };
        let message = disagreement(
            name,
            "mode",
            &quoted(mode.value.as_str()),
            &quoted(found.as_str()),
        );
        checks.extend(assertion(
            "MODE_AGREES_WITH_THE_MANIFEST",
            mode.span,
            &[(test, message)],
            &meta,
            spans,
        ));
    }
    if let Some(defer_loading) = bound.defer_loading {
        let deferred = quote_spanned!(at=> #meta.defer_loading);
        let test = if defer_loading.value {
            quote_spanned!(at=> !#deferred)
        } else {
            deferred
        };
        let said = defer_loading.value.to_string();
        let declared = (!defer_loading.value).to_string();
        let message = disagreement(name, "defer_loading", &said, &declared);
        checks.extend(assertion(
            "DEFER_LOADING_AGREES_WITH_THE_MANIFEST",
            defer_loading.span,
            &[(test, message)],
            &meta,
            spans,
        ));
    }
    if let Some(context) = function.context.as_ref().filter(|c| c.is_mut()) {
        let exclusive = type_text(&syn::Type::Reference(context.reference.clone()));
        let restated_safety = bound.safety.map(|s| s.value);
        let restated_mode = bound.mode.map(|m| m.value);
        // Where the restated values agree: the manifest's safety is the restated one.
        let safety_agrees = restated_safety.map(|safety| match safety {
            Safety::ReadOnly => read_only.clone(),
            Safety::Destructive => quote_spanned!(at=> !#read_only),
        });
        let mode_agrees = restated_mode.map(|mode| match mode {
            Mode::Parallel => quote_spanned!(at=> !#sequential),
            Mode::Sequential => sequential.clone(),
        });
        let read_only_case = (restated_safety != Some(Safety::Destructive)).then(|| {
            (
                // `safety_agrees`, when there is one, is the same test.
                and(read_only.clone(), mode_agrees.clone(), at),
                [
                    format!("read-only tool `{name}` cannot take the context as `{exclusive}`: its manifest `"),
                    "` declares `safety = \"read-only\"`; take a shared reference: a read-only tool changes \
                     nothing, and reads run side by side sharing the context"
                        .to_owned(),
                ],
            )
        });
        let parallel_case = (restated_mode != Some(Mode::Sequential)).then(|| {
            (
                and(quote_spanned!(at=> !#sequential), safety_agrees.clone(), at),
                [
                    format!("parallel tool `{name}` cannot take the context as `{exclusive}`: its manifest `"),
                    "` declares `mode = \"parallel\"`; take a shared reference: the calls of a parallel \
                     message run side by side sharing the context, only a sequential tool gets it to itself"
                        .to_owned(),
                ],
            )
        });
        let cases: Vec<_> = read_only_case.into_iter().chain(parallel_case).collect();
        checks.extend(assertion(
            "CONTEXT_FITS_THE_MANIFEST",
            context.mut_span(),
            &cases,
            &meta,
            spans,
        ));
    }
    checks
}

/// `test && also`, or `test` alone.
fn and(test: TokenStream, also: Option<TokenStream>, at: Span) -> TokenStream {
    match also {
        Some(also) => quote_spanned!(at=> #test && #also),
        None => test,
    }
}

/// One `use` of the generated module's three items. When the path is not a generated tool
/// module, rustc reports that in one "unresolved import" error on the path in the attribute.
fn manifest_imports(path: &Path, spans: Spans) -> TokenStream {
    let span = path.segments.last().map_or(spans.at, |s| s.ident.span());
    let [input, error, meta] = ["Input", "Error", "META"].map(|name| syn::Ident::new(name, span));
    let semi = spans.semi();
    // `use` at the attribute, so that the item's span covers the path in it.
    let use_token = quote_spanned!(spans.at=> use);
    quote_spanned! {span=>
        #use_token #path::{#input as __ManifestInput, #error as __ManifestError, #meta as __MANIFEST_META} #semi
    }
}

/// The message of a disagreement, in two parts around the manifest's file; the values as a
/// manifest writes them (`"read-only"`, `true`).
fn disagreement(name: &str, key: &str, said: &str, declared: &str) -> [String; 2] {
    [
        format!("tool `{name}`: `#[tool]` says `{key} = {said}` but its manifest `"),
        format!(
            "` declares `{key} = {declared}`; make them agree (the manifest is the declaration)"
        ),
    ]
}

/// A word as a TOML string.
fn quoted(word: &str) -> String {
    format!("\"{word}\"")
}

/// A string literal at `span`.
fn string(text: &str, span: Span) -> proc_macro2::Literal {
    let mut literal = proc_macro2::Literal::string(text);
    literal.set_span(span);
    literal
}

/// `const NAME: () = if <test> { panic!(<message naming META.source>) } else if ...;`: one
/// const, so one mistake gives one message. The name is what rustc's error says was being
/// evaluated ("evaluation of `_::SAFETY_AGREES_WITH_THE_MANIFEST` failed here").
fn assertion(
    name: &str,
    span: Span,
    cases: &[(TokenStream, [String; 2])],
    meta: &TokenStream,
    spans: Spans,
) -> TokenStream {
    let at = spans.at;
    let semi = spans.semi();
    // No empty `else` at the end: the tokens are the function's, so lints read them as code.
    let mut chain = TokenStream::new();
    for (test, [before, after]) in cases.iter().rev() {
        let panic = quote_spanned!(span=>
            ::core::panic!("{}", ::toolwright_runtime::__private::message_str(
                &::toolwright_runtime::__private::message::<{ ::toolwright_runtime::__private::message_len(__PARTS) }>(__PARTS),
            ))
        );
        let (before, after) = (string(before, at), string(after, at));
        let otherwise = (!chain.is_empty()).then(|| quote_spanned!(at=> else #chain));
        chain = quote_spanned! {at=>
            if #test {
                const __PARTS: &[&str] = &[#before, #meta.source, #after] #semi
                #panic
            } #otherwise
        };
    }
    if cases.is_empty() {
        return TokenStream::new();
    }
    let name = syn::Ident::new(name, at);
    quote_spanned! {at=>
        // Never used: evaluated for its panic.
        #[allow(dead_code)]
        const #name: () = #chain #semi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansion, formatted as a reader would see it.
    fn pretty(tokens: TokenStream) -> String {
        let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
        prettyplease::unparse(&file)
    }

    #[test]
    fn expansion_of_a_code_first_tool() {
        let out = tool(
            quote!(
                safety = "destructive",
                mode = "sequential",
                category = "panes"
            ),
            quote! {
                /// Creates a pane.
                ///
                /// Creating a pane that exists changes nothing.
                pub async fn pane_create(chart: &mut Chart, input: PaneArgs) -> Result<bool, ToolError> {
                    chart.create(input).await
                }
            },
        );
        insta::assert_snapshot!(pretty(out));
    }

    #[test]
    fn expansion_of_a_context_free_tool() {
        let out = tool(
            quote!(
                safety = "read-only",
                mode = "parallel",
                name = "web_search",
                title = "Search the web"
            ),
            quote! {
                /// Searches the web.
                fn search(input: SearchArgs) -> Result<Vec<Hit>, ToolError> {
                    web::search(&input.query)
                }
            },
        );
        insta::assert_snapshot!(pretty(out));
    }

    #[test]
    fn expansion_of_a_versioned_deprecated_tool() {
        let out = tool(
            quote!(
                safety = "read-only",
                mode = "parallel",
                version = "2.1.0",
                deprecated(
                    since = "2.0.0",
                    sunset = "2027-01-31",
                    replacement = "web_search",
                    note = "Same arguments."
                )
            ),
            quote! {
                /// Searches the web.
                fn search_old(input: SearchArgs) -> Result<Vec<Hit>, ToolError> {
                    web::search(&input.query)
                }
            },
        );
        insta::assert_snapshot!(pretty(out));
    }

    #[test]
    fn expansion_of_a_manifest_bound_tool() {
        let out = tool(
            quote!(
                manifest = crate::tools::drawing_create,
                safety = "destructive"
            ),
            quote! {
                pub(crate) fn drawing_create(
                    input: crate::tools::drawing_create::Input,
                    chart: &mut Chart,
                ) -> Result<Drawing, Failure<crate::tools::drawing_create::Error>> {
                    chart.draw(input)
                }
            },
        );
        insta::assert_snapshot!(pretty(out));
    }

    #[test]
    fn a_declared_deferral_is_frozen_or_checked_against_the_manifest() {
        let function = quote! {
            /// Searches the web.
            fn search(input: SearchArgs) -> Result<Vec<Hit>, ToolError> {
                web::search(&input.query)
            }
        };
        let deferred = |args: TokenStream| pretty(tool(args, function.clone()));
        let code = deferred(quote!(
            safety = "read-only",
            mode = "parallel",
            defer_loading
        ));
        assert!(code.contains(".defer_loading()"), "{code}");
        assert_eq!(
            code,
            deferred(quote!(
                safety = "read-only",
                mode = "parallel",
                defer_loading = true
            ))
        );
        for eager in [
            quote!(
                safety = "read-only",
                mode = "parallel",
                defer_loading = false
            ),
            quote!(safety = "read-only", mode = "parallel"),
        ] {
            let code = deferred(eager);
            assert!(!code.contains("defer_loading"), "{code}");
        }

        let bound = |args: TokenStream| {
            pretty(tool(
                args,
                quote! {
                    fn drawing_create(
                        input: crate::tools::drawing_create::Input,
                    ) -> Result<Drawing, crate::tools::drawing_create::Error> {
                        draw(input)
                    }
                },
            ))
        };
        let code = bound(quote!(
            manifest = crate::tools::drawing_create,
            defer_loading
        ));
        assert!(
            code.contains("const DEFER_LOADING_AGREES_WITH_THE_MANIFEST: () = if !__MANIFEST_META.defer_loading"),
            "{code}"
        );
        assert!(
            code.contains("\"tool `drawing_create`: `#[tool]` says `defer_loading = true` but its manifest `\""),
            "{code}"
        );
        let code = bound(quote!(
            manifest = crate::tools::drawing_create,
            defer_loading = false
        ));
        assert!(
            code.contains("const DEFER_LOADING_AGREES_WITH_THE_MANIFEST: () = if __MANIFEST_META.defer_loading"),
            "{code}"
        );
        assert!(
            code.contains("\"` declares `defer_loading = true`; make them agree (the manifest is the declaration)\""),
            "{code}"
        );
        let code = bound(quote!(manifest = crate::tools::drawing_create));
        assert!(!code.contains("DEFER_LOADING"), "{code}");
    }

    /// Every token of `tokens`, group delimiters included, as byte ranges in the source.
    fn ranges(tokens: TokenStream, out: &mut Vec<std::ops::Range<usize>>) {
        for token in tokens {
            if let TokenTree::Group(group) = &token {
                out.push(group.span_open().byte_range());
                ranges(group.stream(), out);
                out.push(group.span_close().byte_range());
            } else {
                out.push(token.span().byte_range());
            }
        }
    }

    /// The last token of `tokens` (a closing delimiter for a group).
    fn last_range(tokens: TokenStream) -> std::ops::Range<usize> {
        let mut all = Vec::new();
        ranges(tokens, &mut all);
        all.pop().expect("tokens")
    }

    /// What keeps the definition of a tool unchanged, for incremental compilation, when an
    /// edit before it moves it or an edit of its body changes the body's length: each generated
    /// item ends at the signature's last token (so the item's span covers the attribute and the
    /// signature), and no generated token lies elsewhere than in the attribute or the signature.
    fn assert_spans_within_the_tool(function: &str) {
        let source = format!("const BEFORE: u8 = 0;\n{function}\nconst AFTER: u8 = 0;");
        let file: TokenStream = source.parse().expect("the source parses");
        let file: syn::File = syn::parse2(file).expect("a file");
        let Item::Fn(mut item) = file.items[1].clone() else {
            panic!("the second item is the tool");
        };
        let attr = item
            .attrs
            .pop()
            .expect("the last attribute is `#[tool(...)]`");
        let args = attr
            .meta
            .require_list()
            .expect("`#[tool(...)]`")
            .tokens
            .clone();
        let mut all = Vec::new();
        ranges(attr.to_token_stream(), &mut all);
        let first = all[0].start;
        let last = last_range(item.sig.to_token_stream()).end;
        // Outside a compiler, the call site has no position.
        let at = Span::call_site().byte_range();

        let out = tool(args, item.to_token_stream());
        let out: syn::File = syn::parse2(out).expect("the expansion parses");
        assert_eq!(
            out.items.len(),
            3,
            "the function, its type and their `const`"
        );
        let (Item::Struct(marker), Item::Const(block)) = (&out.items[1], &out.items[2]) else {
            panic!("the function's hidden type, then the `const` of its implementations");
        };
        for generated in [marker.to_token_stream(), block.to_token_stream()] {
            let mut all = Vec::new();
            ranges(generated.clone(), &mut all);
            for range in &all {
                assert!(
                    *range == at || (first <= range.start && range.end <= last),
                    "a token at {range:?}, outside the attribute and the signature ({first}..{last})"
                );
            }
            assert_eq!(last_range(generated).end, last, "the item's end");
        }
        let syn::Expr::Block(block) = &*block.expr else {
            panic!("the `const` is a block");
        };
        let mut nested = 0;
        let mut def = None;
        for statement in &block.block.stmts {
            let syn::Stmt::Item(item) = statement else {
                continue;
            };
            let tokens = item.to_token_stream();
            assert_eq!(
                last_range(tokens.clone()).end,
                last,
                "the end of `{tokens}`"
            );
            nested += 1;
            if let Item::Impl(implementation) = item
                && let Some(syn::ImplItem::Fn(function)) = implementation.items.first()
            {
                def = Some(function.block.clone());
            }
        }
        let def = def.expect("the implementation of `Tool<C>`");
        for statement in &def.stmts {
            if let syn::Stmt::Item(item) = statement {
                let tokens = item.to_token_stream();
                assert_eq!(
                    last_range(tokens.clone()).end,
                    last,
                    "the end of `{tokens}`"
                );
                nested += 1;
            }
        }
        assert!(
            nested >= 5,
            "the implementations, imports and checks, and the definition's consts and statics"
        );
    }

    #[test]
    fn generated_items_end_where_the_signature_does() {
        assert_spans_within_the_tool(
            "/// Lists the panes.\n\
             #[tool(safety = \"read-only\", mode = \"parallel\", category = \"panes\")]\n\
             pub fn panes_list(chart: &Chart, input: Args) -> Result<Vec<String>, ToolError> {\n\
                 Ok(chart.panes(input))\n\
             }",
        );
        assert_spans_within_the_tool(
            "/// Searches.\n#[tool(safety = \"read-only\", mode = \"parallel\")]\n\
             async fn search(input: Args) -> Result<u8, ToolError> { todo!() }",
        );
        assert_spans_within_the_tool(
            "#[tool(manifest = crate::tools::drawing_create, safety = \"destructive\")]\n\
             pub(in crate::tools) fn drawing_create(\n\
                 input: crate::tools::drawing_create::Input,\n\
                 chart: &mut Chart,\n\
             ) -> Result<Drawing, Failure<crate::tools::drawing_create::Error>> {\n\
                 chart.draw(input)\n\
             }",
        );
    }

    #[test]
    fn tool_def_imports_the_path_over_the_fallback() {
        let out = tool_def(quote!(crate::tools::panes_list));
        assert_eq!(
            out.to_string(),
            "{ # [allow (unused_imports)] use :: toolwright_runtime :: __private :: not_a_tool :: * ; \
             # [allow (unused_imports)] use crate :: tools :: panes_list as __Tool ; \
             < __Tool as :: toolwright_runtime :: __private :: Tool < _ >> :: def () }"
        );
        let out = tool_def(quote!(r#type)).to_string();
        assert!(out.contains("use r#type as __Tool"), "{out}");
    }

    #[test]
    fn tool_def_spans_every_token_with_the_path() {
        let path: TokenStream = "\n  tools::panes_list".parse().expect("a path");
        let ident = last_range(path.clone());
        let out = tool_def(path);
        let mut all = Vec::new();
        ranges(out, &mut all);
        for range in all {
            assert!(
                range == ident || (range.start >= 1 && range.end <= ident.end),
                "a token at {range:?}, not on the path ({ident:?})"
            );
        }
    }

    #[test]
    fn tool_def_rejects_generic_arguments() {
        let out = tool_def(quote!(tools::panes_list::<u8>)).to_string();
        assert!(out.contains("without generic arguments"), "{out}");
    }

    #[test]
    fn tool_defs_lists_the_tools_and_checks_the_declared_ones() {
        let out = tool_defs(quote!(tools::ALL, except SKIPPED; a::x, #[cfg(test)] y)).to_string();
        for part in [
            "const __DECLARED : & [& :: toolwright_runtime :: __private :: ToolMeta] = tools :: ALL ;",
            "const __EXCEPT : & [& str] = SKIPPED ;",
            "use a :: x as __Tool ;",
            "# [cfg (test)] { # [allow (unused_imports)]",
            "< __Tool as :: toolwright_runtime :: __private :: ToolName > :: NAME",
            "< __Tool as :: toolwright_runtime :: __private :: Tool < _ >> :: def ()",
        ] {
            assert!(out.contains(part), "`{part}` in {out}");
        }
        assert_eq!(
            out.matches("use y as __Tool").count(),
            2,
            "a name and a def"
        );

        let out = tool_defs(quote!(tools::ALL; a)).to_string();
        assert!(out.contains("const __EXCEPT : & [& str] = & [] ;"), "{out}");

        // Without the declared tools: the array alone.
        let out = tool_defs(quote!(a, b,)).to_string();
        assert!(!out.contains("__DECLARED"), "{out}");
        assert_eq!(out.matches("Tool < _ >> :: def ()").count(), 2, "{out}");
    }

    #[test]
    fn tool_defs_says_what_it_expects() {
        for (input, expected) in [
            (
                quote!(tools::ALL, but SKIPPED; a),
                "expected `except NAMES`",
            ),
            (
                quote!(tools::ALL; #[doc = "x"] a),
                "only `#[cfg(...)]` may precede a tool",
            ),
            (quote!(tools::ALL; a::<u8>), "without generic arguments"),
            (quote!(tools::ALL; a b), "expected `,`"),
        ] {
            let out = tool_defs(input.clone()).to_string();
            assert!(out.contains(expected), "{input}: {out}");
        }
    }

    #[test]
    fn tool_def_rejects_what_is_not_a_path() {
        let out = tool_def(quote!("panes_list")).to_string();
        assert!(
            out.contains("expected the path of a `#[tool]` function"),
            "{out}"
        );
    }

    /// The items after the function and the errors of an expansion, formatted, and how many
    /// `compile_error!`s it holds.
    fn fallback_and_errors(tokens: TokenStream) -> (String, usize) {
        let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
        let is_error = |item: &Item| {
            matches!(item, Item::Macro(m)
                if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error"))
        };
        let errors = file.items.iter().filter(|item| is_error(item)).count();
        let fallback: Vec<Item> = file
            .items
            .into_iter()
            .skip(1)
            .filter(|item| !is_error(item))
            .collect();
        (pretty(quote!(#(#fallback)*)), errors)
    }

    #[test]
    fn the_item_is_emitted_unchanged_next_to_the_errors_and_a_fallback_definition() {
        let item = quote! {
            fn panes_list(input: Args) -> Result<(), ToolError> { todo!() }
        };
        let out = tool(quote!(saftey = "read-only"), item.clone());
        let text = out.to_string();
        assert!(text.starts_with(&item.to_string()), "{text}");
        assert!(text.contains("did you mean `safety`"), "{text}");
        assert!(text.contains("does not state its `mode`"), "{text}");
        assert!(text.contains("has no description"), "{text}");
        let (fallback, errors) = fallback_and_errors(out);
        assert_eq!(errors, 3);
        assert_eq!(
            fallback,
            "#[doc(hidden)]\n\
             #[allow(\n    \
                 non_camel_case_types,\n    \
                 dead_code,\n    \
                 missing_debug_implementations,\n    \
                 clippy::empty_structs_with_brackets\n\
             )]\n\
             struct panes_list {}\n\
             const _: () = {\n    \
                 #[diagnostic::do_not_recommend]\n    \
                 impl ::toolwright_runtime::__private::ToolName for panes_list {\n        \
                     const NAME: ::core::option::Option<&'static str> = ::core::option::Option::None;\n    \
                 }\n    \
                 #[diagnostic::do_not_recommend]\n    \
                 impl<__C> ::toolwright_runtime::__private::Tool<__C> for panes_list {\n        \
                     fn def() -> ::toolwright_runtime::__private::ToolDef<__C> {\n            \
                         ::core::unreachable!()\n        \
                     }\n    \
                 }\n\
             };\n"
        );
    }

    #[test]
    fn the_fallback_definition_has_the_context_visibility_and_cfgs_of_the_real_one() {
        let out = tool(
            quote!(safety = "destructive", mode = "parallel"),
            quote! {
                /// Creates a drawing.
                #[cfg(feature = "drawings")]
                pub(crate) fn drawing_create(chart: &mut Chart, input: Args) -> Result<(), ToolError> {
                    chart.draw(input)
                }
            },
        );
        let (fallback, errors) = fallback_and_errors(out);
        assert_eq!(errors, 1);
        assert!(
            fallback.starts_with(
                "#[cfg(feature = \"drawings\")]\n\
                 #[doc(hidden)]\n\
                 #[allow(\n    \
                     non_camel_case_types,\n    \
                     dead_code,\n    \
                     missing_debug_implementations,\n    \
                     clippy::empty_structs_with_brackets\n\
                 )]\n\
                 pub(crate) struct drawing_create {}\n\
                 #[cfg(feature = \"drawings\")]\n\
                 const _: () = {\n"
            ),
            "{fallback}"
        );
        assert!(
            fallback.contains(
                "impl ::toolwright_runtime::__private::Tool<Chart> for drawing_create {\n        \
                 fn def() -> ::toolwright_runtime::__private::ToolDef<Chart> {\n            \
                 ::core::unreachable!()"
            ),
            "{fallback}"
        );
    }

    #[test]
    fn a_fallback_definition_never_names_a_parameter_of_the_function() {
        for (context, generic) in [
            (quote!(&Vec<T>), true),
            (quote!(&[u8; N]), true),
            (quote!(&'a Chart), false),
        ] {
            let out = tool(
                quote!(safety = "read-only", mode = "parallel"),
                quote! {
                    /// Lists the panes.
                    fn panes_list<'a, T, const N: usize>(chart: #context, input: Args) -> Result<(), ToolError> {
                        Ok(())
                    }
                },
            );
            let (fallback, errors) = fallback_and_errors(out);
            assert_eq!(errors, 2, "{fallback}");
            let shape = if generic {
                "impl<__C> ::toolwright_runtime::__private::Tool<__C> for panes_list {"
            } else {
                "impl ::toolwright_runtime::__private::Tool<Chart> for panes_list {"
            };
            assert!(fallback.contains(shape), "{context}: {fallback}");
        }
    }

    #[test]
    fn an_item_that_is_not_a_function_gets_no_definition() {
        let out = tool(
            quote!(safety = "read-only"),
            quote!(
                struct Chart;
            ),
        )
        .to_string();
        assert!(out.contains("applies to a free function"), "{out}");
        assert!(!out.contains("__private"), "{out}");
    }

    #[test]
    fn a_method_gets_no_fallback_definition() {
        let out = tool(
            quote!(safety = "read-only", mode = "parallel"),
            quote! {
                /// Lists the panes.
                fn panes_list(&self, input: Args) -> Result<(), ToolError> { Ok(()) }
            },
        )
        .to_string();
        assert!(out.contains("cannot take `self`"), "{out}");
        assert!(!out.contains("__private"), "{out}");
    }
}
