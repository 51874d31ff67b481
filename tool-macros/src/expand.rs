//! What `#[tool]` and `tool_def!` emit.
//!
//! Next to the function, unchanged, `#[tool]` emits one hidden function
//! `__tool_def_<fn name>() -> ::tool_runtime::ToolDef<C>` holding the tool's frozen metadata
//! `static` and its adapter; `tool_def!(path::to::f)` calls it. The per-tool code is a few
//! `const`s (where a wrong input or return type is reported, once, on the type) and one call
//! into `::tool_runtime::__private`, which does the work. With a mistake in the attribute or
//! the function, the function is emitted with the errors and a fallback definition of the same
//! name and signature (see [`fallback_def_fn`]), so that one mistake stays one error even where
//! the tool is used.
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
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{GenericParam, Item, ItemFn, Path};
use tool_manifest::{Mode, Safety};

use crate::ast::{Context, Errors, Param, ToolFn, type_text};
use crate::attr;
use crate::valid::{self, CodeFirst, ManifestBound, Tool};

/// `#[tool(...)]` on `item`. On any mistake: the item unchanged, every error, and for a
/// function a fallback definition (see [`fallback_def_fn`]).
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
        let fallback = fallback_def_fn(&function, Spans::of(&parsed));
        let errors = error.into_compile_error();
        return quote! { #item #errors #fallback };
    }
    match tool {
        Some(tool) => {
            let spans = Spans::of(&parsed);
            let def = tool_def_fn(&function, &tool, spans);
            quote! { #item #def }
        }
        // Unreachable in practice: every `None` comes with an error.
        None => item,
    }
}

/// `tool_def!(path::to::f)`: the `ToolDef` of the tool function `f`.
pub fn tool_def(input: TokenStream) -> TokenStream {
    let mut path = match syn::parse2::<Path>(input) {
        Ok(path) => path,
        Err(error) => {
            return syn::Error::new(
                error.span(),
                "expected the path of a `#[tool]` function, like `tool_def!(tools::my_tool)`",
            )
            .into_compile_error();
        }
    };
    let Some(last) = path.segments.last_mut() else {
        return syn::Error::new(
            Span::call_site(),
            "expected the path of a `#[tool]` function",
        )
        .into_compile_error();
    };
    last.ident = def_ident(&last.ident);
    // The call's parentheses carry the path's span rather than this macro's: the function
    // holding the call is then unchanged, for incremental compilation, when it moves.
    let mut call = Group::new(Delimiter::Parenthesis, TokenStream::new());
    call.set_span(last.ident.span());
    quote!(#path #call)
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

/// The hidden function holding a tool's definition: `__tool_def_<fn name>`.
pub(crate) fn def_ident(ident: &syn::Ident) -> syn::Ident {
    format_ident!("__tool_def_{}", ident.unraw(), span = ident.span())
}

/// The hidden definition function of a checked tool.
pub(crate) fn tool_def_fn(function: &ToolFn<'_>, tool: &Tool<'_>, spans: Spans) -> TokenStream {
    let (Some(input), Some(output)) = (function.input, function.output) else {
        return TokenStream::new();
    };
    let Spans { at, .. } = spans;
    let semi = spans.semi();
    let item: &ItemFn = function.item;
    let ident = function.ident();
    let private = quote_spanned!(at=> ::tool_runtime::__private);
    // The checks of the input and return types carry the span of those types, so that their
    // errors point at them.
    let (input_span, output_span) = (input.span(), output.span());

    let (input_fns, return_fns, meta, checks) = match tool {
        Tool::CodeFirst(code_first) => {
            let input_fns = quote_spanned!(input_span=>
                ::tool_runtime::__private::code_first_input::<#input>());
            let return_fns = quote_spanned!(output_span=>
                ::tool_runtime::__private::code_first_return::<#output>());
            let meta = code_first_meta(code_first, ident, spans);
            let input_fns =
                quote_spanned!(at=> const __INPUT: #private::InputFns<#input> = #input_fns #semi);
            (input_fns, return_fns, quote_spanned!(at=> &__META), meta)
        }
        Tool::Manifest(bound) => {
            let input_fns = quote_spanned!(input_span=>
                ::tool_runtime::__private::manifest_input::<#input, __ManifestInput>());
            let return_fns = quote_spanned!(output_span=>
                ::tool_runtime::__private::manifest_return::<#output, __ManifestError>());
            let checks = manifest_checks(function, bound, spans);
            let imports = manifest_imports(bound.path, spans);
            let input_fns = quote_spanned! {at=>
                #imports
                const __INPUT: #private::BoundInputFns<#input> = #input_fns #semi
            };
            (
                input_fns,
                return_fns,
                quote_spanned!(at=> &__MANIFEST_META),
                checks,
            )
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
        |__context, __args| ::tool_runtime::__private::#call(
            #meta, __args, __INPUT.deserialize, __RETURN.finish, #callback,
        )
    );
    let constructor = match &function.context {
        Some(context) if context.is_mut() => quote_spanned!(at=> exclusive),
        _ => quote_spanned!(at=> shared),
    };
    let head = def_head(function, function.context.as_ref(), spans);
    let body = def_body(
        quote_spanned! {at=>
            #input_fns
            const __RETURN: #private::ReturnFns<#output> = #return_fns #semi
            #checks
            #private::#constructor(#meta, #adapter)
        },
        spans,
    );
    quote!(#head #body)
}

/// The definition emitted beside the errors of a tool with a mistake: the same name and
/// signature as the real one, so that `tool_def!(f)` elsewhere still resolves and type-checks
/// instead of adding "cannot find function `__tool_def_f`" to the one error of the mistake.
/// Its body is `unreachable!()`: it is never run, since the crate does not compile.
///
/// A context type that names a type or const parameter of the (then generic, so mistaken)
/// function cannot be named outside it: the fallback is then generic over its context, as the
/// definition of a tool without context is. A method (it takes `self`) gets none: `tool_def!`
/// cannot name it, and in a trait impl an extra function would be an error of its own.
fn fallback_def_fn(function: &ToolFn<'_>, spans: Spans) -> TokenStream {
    if function.item.sig.receiver().is_some() {
        return TokenStream::new();
    }
    let generics = &function.item.sig.generics;
    let context = function
        .context
        .as_ref()
        .filter(|context| !names_any_of(context.reference.elem.to_token_stream(), generics));
    let head = def_head(function, context, spans);
    let body = def_body(quote_spanned!(spans.at=> ::core::unreachable!()), spans);
    quote!(#head #body)
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

/// The definition function up to its body:
/// `fn __tool_def_<fn name><__C>() -> ::tool_runtime::ToolDef<__C>` without a context,
/// `fn __tool_def_<fn name>() -> ::tool_runtime::ToolDef<C>` with `&C` or `&mut C`; with the
/// function's visibility and `cfg`s.
fn def_head(function: &ToolFn<'_>, context: Option<&Context<'_>>, spans: Spans) -> TokenStream {
    let at = spans.at;
    let item: &ItemFn = function.item;
    let vis = respan(item.vis.to_token_stream(), at);
    let def = def_ident(function.ident());
    let (generics, context_ty) = match context {
        None => (quote_spanned!(at=> <__C>), quote_spanned!(at=> __C)),
        Some(context) => {
            let elem = &context.reference.elem;
            (TokenStream::new(), quote!(#elem))
        }
    };
    // The definition exists exactly when the function does.
    let cfgs = item.attrs.iter().filter(|attr| attr.path().is_ident("cfg"));
    quote_spanned! {at=>
        // Unused when the tool is not registered; the function it wraps is then unused too.
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(dead_code)]
        #vis fn #def #generics() -> ::tool_runtime::ToolDef<#context_ty>
    }
}

/// `{ statements }`, ending where the signature does (see [`Spans`]).
fn def_body(statements: TokenStream, spans: Spans) -> Group {
    let mut body = Group::new(Delimiter::Brace, statements);
    body.set_span(spans.end);
    body
}

fn code_first_meta(tool: &CodeFirst, ident: &syn::Ident, spans: Spans) -> TokenStream {
    let CodeFirst {
        name,
        title,
        description,
        category,
        safety,
        mode,
        timeout_ms,
        max_output_bytes,
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
    let [name, title, description] = [name, title, description].map(|text| string(text, at));
    let item = string(&format!("::{}", ident.unraw()), at);
    quote_spanned! {at=>
        static __META: ::tool_runtime::ToolMeta = ::tool_runtime::ToolMeta::new(
            #name,
            ::tool_runtime::Safety::#safety,
            ::tool_runtime::Mode::#mode,
            ::tool_runtime::StaticSchema::Derived(__INPUT.schema),
        )
        .title(#title)
        .description(#description)
        #category
        #timeout_ms
        #max_output_bytes
        .source(::core::concat!(::core::module_path!(), #item)) #semi
    }
}

/// `const` assertions of a manifest-bound tool: what the attribute restates, and the `&mut`
/// rule when the attribute leaves safety or mode to the manifest.
fn manifest_checks(function: &ToolFn<'_>, bound: &ManifestBound<'_>, spans: Spans) -> TokenStream {
    let at = spans.at;
    let meta = quote_spanned!(at=> __MANIFEST_META);
    let name = &bound.name;
    let mut checks = TokenStream::new();
    if let Some(safety) = bound.safety {
        let (test, found) = match safety.value {
            Safety::ReadOnly => (
                quote_spanned!(at=> !#meta.safety.is_read_only()),
                Safety::Destructive,
            ),
            Safety::Destructive => (
                quote_spanned!(at=> #meta.safety.is_read_only()),
                Safety::ReadOnly,
            ),
        };
        let message = disagreement(name, "safety", safety.value.as_str(), found.as_str());
        checks.extend(assertion(safety.span, &[(test, message)], &meta, spans));
    }
    if let Some(mode) = bound.mode {
        let (test, found) = match mode.value {
            Mode::Parallel => (
                quote_spanned!(at=> #meta.mode.is_sequential()),
                Mode::Sequential,
            ),
            Mode::Sequential => (
                quote_spanned!(at=> !#meta.mode.is_sequential()),
                Mode::Parallel,
            ),
        };
        let message = disagreement(name, "mode", mode.value.as_str(), found.as_str());
        checks.extend(assertion(mode.span, &[(test, message)], &meta, spans));
    }
    if let Some(context) = function.context.as_ref().filter(|c| c.is_mut()) {
        // What the attribute restates was checked by the macro; the rest is the manifest's.
        let exclusive = type_text(&syn::Type::Reference(context.reference.clone()));
        let read_only = bound.safety.is_none().then(|| {
            (
                quote_spanned!(at=> #meta.safety.is_read_only()),
                [
                    format!("read-only tool `{name}` cannot take the context as `{exclusive}`: its manifest `"),
                    "` declares `safety = \"read-only\"`; take a shared reference: a read-only tool changes \
                     nothing, and reads run side by side sharing the context"
                        .to_owned(),
                ],
            )
        });
        let parallel = bound.mode.is_none().then(|| {
            (
                quote_spanned!(at=> !#meta.mode.is_sequential()),
                [
                    format!("parallel tool `{name}` cannot take the context as `{exclusive}`: its manifest `"),
                    "` declares `mode = \"parallel\"`; take a shared reference: the calls of a parallel \
                     message run side by side sharing the context, only a sequential tool gets it to itself"
                        .to_owned(),
                ],
            )
        });
        let cases: Vec<_> = read_only.into_iter().chain(parallel).collect();
        checks.extend(assertion(context.mut_span(), &cases, &meta, spans));
    }
    checks
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

/// The message of a disagreement, in two parts around the manifest's file.
fn disagreement(name: &str, key: &str, said: &str, declared: &str) -> [String; 2] {
    [
        format!("tool `{name}`: `#[tool]` says `{key} = \"{said}\"` but its manifest `"),
        format!(
            "` declares `{key} = \"{declared}\"`; make them agree (the manifest is the declaration)"
        ),
    ]
}

/// A string literal at `span`.
fn string(text: &str, span: Span) -> proc_macro2::Literal {
    let mut literal = proc_macro2::Literal::string(text);
    literal.set_span(span);
    literal
}

/// `const _: () = if <test> { panic!(<message naming META.source>) } else if ...;`: one
/// const, so one mistake gives one message.
fn assertion(
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
            ::core::panic!("{}", ::tool_runtime::__private::message_str(
                &::tool_runtime::__private::message::<{ ::tool_runtime::__private::message_len(__PARTS) }>(__PARTS),
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
    quote_spanned!(at=> const _: () = #chain #semi)
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
        assert_eq!(out.items.len(), 2, "the function and its definition");
        let Item::Fn(def) = &out.items[1] else {
            panic!("the definition is a function");
        };
        let mut all = Vec::new();
        ranges(def.to_token_stream(), &mut all);
        for range in &all {
            assert!(
                *range == at || (first <= range.start && range.end <= last),
                "a token at {range:?}, outside the attribute and the signature ({first}..{last})"
            );
        }
        assert_eq!(
            last_range(def.to_token_stream()).end,
            last,
            "the definition's end"
        );
        let mut nested = 0;
        for statement in &def.block.stmts {
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
        assert!(nested >= 3, "the definition holds its consts and statics");
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
    fn tool_def_calls_the_hidden_function() {
        let out = tool_def(quote!(crate::tools::panes_list));
        assert_eq!(
            out.to_string(),
            quote!(crate::tools::__tool_def_panes_list()).to_string()
        );
        let out = tool_def(quote!(r#type));
        assert_eq!(out.to_string(), quote!(__tool_def_type()).to_string());
    }

    #[test]
    fn tool_def_spans_the_call_with_the_path() {
        let path: TokenStream = "\n  tools::panes_list".parse().expect("a path");
        let ident = last_range(path.clone());
        let out = tool_def(path);
        let Some(TokenTree::Group(call)) = out.into_iter().last() else {
            panic!("the call ends with its parentheses");
        };
        assert_eq!(call.span().byte_range(), ident, "the parentheses");
    }

    #[test]
    fn tool_def_rejects_what_is_not_a_path() {
        let out = tool_def(quote!("panes_list")).to_string();
        assert!(
            out.contains("expected the path of a `#[tool]` function"),
            "{out}"
        );
    }

    /// The last item of an expansion, formatted, and how many `compile_error!`s it holds.
    fn last_item_and_errors(tokens: TokenStream) -> (String, usize) {
        let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
        let errors = file
            .items
            .iter()
            .filter(|item| {
                matches!(item, Item::Macro(m)
                    if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error"))
            })
            .count();
        let last = file.items.last().cloned().expect("an item");
        (pretty(quote!(#last)), errors)
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
        let (fallback, errors) = last_item_and_errors(out);
        assert_eq!(errors, 3);
        assert_eq!(
            fallback,
            "#[doc(hidden)]\n\
             #[allow(dead_code)]\n\
             fn __tool_def_panes_list<__C>() -> ::tool_runtime::ToolDef<__C> {\n    \
             ::core::unreachable!()\n}\n"
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
        let (fallback, errors) = last_item_and_errors(out);
        assert_eq!(errors, 1);
        assert_eq!(
            fallback,
            "#[cfg(feature = \"drawings\")]\n\
             #[doc(hidden)]\n\
             #[allow(dead_code)]\n\
             pub(crate) fn __tool_def_drawing_create() -> ::tool_runtime::ToolDef<Chart> {\n    \
             ::core::unreachable!()\n}\n"
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
            let (fallback, errors) = last_item_and_errors(out);
            assert_eq!(errors, 2, "{fallback}");
            let shape = if generic {
                "fn __tool_def_panes_list<__C>() -> ::tool_runtime::ToolDef<__C> {"
            } else {
                "fn __tool_def_panes_list() -> ::tool_runtime::ToolDef<Chart> {"
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
        assert!(!out.contains("__tool_def"), "{out}");
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
        assert!(!out.contains("__tool_def"), "{out}");
    }
}
