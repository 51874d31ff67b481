//! The rules that need both the attribute and the function: what a tool is, before any code is
//! emitted.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Ident, Path};
use toolwright_core::model::is_valid_tool_name;
use toolwright_core::model::{Deprecation, Lifecycle, LifecycleKey, default_title};
use toolwright_core::{Mode, Safety};

use crate::ast::{Errors, ToolFn, type_text};
use crate::attr::{Args, Given};

/// A checked tool, ready to expand.
pub(crate) enum Tool<'a> {
    /// Metadata from the attribute and the doc comment; schema from the input type.
    CodeFirst(CodeFirst),
    /// Metadata from the module generated for a manifest.
    Manifest(ManifestBound<'a>),
}

pub(crate) struct CodeFirst {
    pub name: String,
    pub title: String,
    pub description: String,
    pub category: Option<String>,
    pub safety: Safety,
    pub mode: Mode,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub timeout_ms: Option<u64>,
    pub max_output_bytes: Option<u64>,
    pub version: Option<String>,
    pub deprecated: Option<Deprecation>,
    pub defer_loading: bool,
}

pub(crate) struct ManifestBound<'a> {
    /// The path to the generated module, as written (its spans carry "cannot find" errors).
    pub path: &'a Path,
    /// The tool's name: the last segment of the path (module name = tool name = file stem).
    pub name: String,
    /// Restated in the attribute, to be checked against the manifest at compile time.
    pub safety: Option<Given<Safety>>,
    pub mode: Option<Given<Mode>>,
    pub defer_loading: Option<Given<bool>>,
}

/// Checks the attribute against the function. Every mistake goes to `errors`; `None` when the
/// tool cannot be described.
pub(crate) fn check<'a>(
    args: &'a Args,
    tool: &ToolFn<'_>,
    errors: &mut Errors,
) -> Option<Tool<'a>> {
    match &args.manifest {
        Some(path) => check_manifest(args, path, errors).map(Tool::Manifest),
        // `manifest` with a bad value: already reported; the code-first rules do not apply.
        None if args.mentioned("manifest") => None,
        None => check_code_first(args, tool, errors).map(Tool::CodeFirst),
    }
}

fn check_manifest<'a>(
    args: &'a Args,
    path: &'a Path,
    errors: &mut Errors,
) -> Option<ManifestBound<'a>> {
    let name = path.segments.last().map(|s| s.ident.unraw().to_string())?;
    for key in [
        "name",
        "title",
        "category",
        "idempotent",
        "open_world",
        "timeout",
        "max_output_bytes",
        "version",
        "deprecated",
    ] {
        if let Some(written) = args.written(key) {
            errors.error(
                written.span(),
                format!(
                    "`{key}` cannot be set on tool `{name}`: it is bound to a manifest, \
                     and its manifest `{name}.toml` declares the `{key}`"
                ),
            );
        }
    }
    // The `&mut` rule is checked against the manifest at compile time, after what the
    // attribute restates (see `expand::manifest_checks`): a restated value that disagrees with
    // the manifest is the mistake to report, not the reference.
    Some(ManifestBound {
        path,
        name,
        safety: args.safety,
        mode: args.mode,
        defer_loading: args.defer_loading,
    })
}

/// The `&mut` rule of a code-first tool, whose safety and mode the macro knows.
fn check_context(
    tool: &ToolFn<'_>,
    name: &str,
    safety: Option<Safety>,
    mode: Option<Mode>,
    errors: &mut Errors,
) {
    let Some(context) = tool.context.as_ref().filter(|c| c.is_mut()) else {
        return;
    };
    let shared = type_text(&syn::Type::Reference(syn::TypeReference {
        mutability: None,
        ..context.reference.clone()
    }));
    let exclusive = type_text(&syn::Type::Reference(context.reference.clone()));
    let tokens = {
        let and = context.reference.and_token;
        let mutability = context.reference.mutability;
        quote::quote!(#and #mutability)
    };
    if safety == Some(Safety::ReadOnly) {
        errors.push(syn::Error::new_spanned(
            &tokens,
            format!(
                "read-only tool `{name}` cannot take the context as `{exclusive}`: take `{shared}`; \
                 a read-only tool changes nothing, and reads run side by side sharing the context \
                 (only a sequential destructive tool gets it to itself)"
            ),
        ));
    } else if mode == Some(Mode::Parallel) {
        errors.push(syn::Error::new_spanned(
            &tokens,
            format!(
                "parallel tool `{name}` cannot take the context as `{exclusive}`: take `{shared}`, \
                 or declare `mode = \"sequential\"`; the calls of a parallel message run side by side \
                 sharing the context, only a sequential tool gets it to itself"
            ),
        ));
    }
}

/// The tool name written or implied, checked against the rule every provider accepts.
fn tool_name(args: &Args, ident: &Ident, errors: &mut Errors) -> String {
    match &args.name {
        Some(given) => {
            if !is_valid_tool_name(&given.value) {
                errors.error(
                    given.span,
                    format!(
                        "invalid tool name `{}`: expected lowercase letters, digits and `_`, \
                         starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{{0,63}}$`)",
                        given.value
                    ),
                );
            }
            given.value.clone()
        }
        None => {
            let name = ident.unraw().to_string();
            if !is_valid_tool_name(&name) {
                errors.error(
                    ident.span(),
                    format!(
                        "the function name `{name}` is not a valid tool name \
                         (`^[a-z][a-z0-9_]{{0,63}}$`): rename it or set `name = \"...\"`"
                    ),
                );
            }
            name
        }
    }
}

fn check_code_first(args: &Args, tool: &ToolFn<'_>, errors: &mut Errors) -> Option<CodeFirst> {
    let name = tool_name(args, tool.ident(), errors);
    if !args.mentioned("safety") {
        errors.error(
            Span::call_site(),
            format!(
                "tool `{name}` does not state its `safety`: add `safety = \"{}\"` ({}) \
                 or `safety = \"{}\"` ({})",
                Safety::ReadOnly,
                Safety::ReadOnly.meaning(),
                Safety::Destructive,
                Safety::Destructive.meaning(),
            ),
        );
    }
    if !args.mentioned("mode") {
        errors.error(
            Span::call_site(),
            format!(
                "tool `{name}` does not state its `mode`: add `mode = \"{}\"` (may run side by side \
                 with other calls) or `mode = \"{}\"` (runs alone, in order)",
                Mode::Parallel,
                Mode::Sequential,
            ),
        );
    }
    if tool.doc.is_none() {
        errors.error(
            tool.ident().span(),
            format!(
                "tool `{name}` has no description: add a doc comment (`/// ...`) saying what it does; \
                 the model reads it to decide when to call the tool"
            ),
        );
    }
    check_context(
        tool,
        &name,
        args.safety.as_ref().map(|s| s.value),
        args.mode.as_ref().map(|m| m.value),
        errors,
    );
    check_lifecycle(args, &name, errors);
    Some(CodeFirst {
        title: args
            .title
            .as_ref()
            .map_or_else(|| default_title(&name), |t| t.value.clone()),
        description: tool.doc.clone()?,
        category: args.category.as_ref().map(|c| c.value.clone()),
        timeout_ms: args.timeout_ms.map(|t| t.value),
        max_output_bytes: args.max_output_bytes.map(|b| b.value),
        safety: args.safety.as_ref()?.value,
        mode: args.mode.as_ref()?.value,
        idempotent: args.idempotent.map(|i| i.value),
        open_world: args.open_world.map(|o| o.value),
        version: args.version.as_ref().map(|v| v.value.clone()),
        deprecated: args.deprecated.as_ref().map(|d| {
            let text = |given: &Option<Given<String>>| given.as_ref().map(|g| g.value.clone());
            let mut deprecation = Deprecation::new(d.since.value.clone());
            deprecation.sunset = text(&d.sunset);
            deprecation.replacement = text(&d.replacement);
            deprecation.note = text(&d.note);
            deprecation
        }),
        defer_loading: args.defer_loading.is_some_and(|d| d.value),
        name,
    })
}

/// The rules of `version` and `deprecated`, the manifest's own ([`Lifecycle::mistakes`]),
/// each mistake on the value it is about. Whether `replacement` names a tool of the set is
/// checked where the set is known, when the registry is built.
fn check_lifecycle(args: &Args, name: &str, errors: &mut Errors) {
    fn text(given: Option<&Given<String>>) -> Option<&str> {
        given.map(|g| g.value.as_str())
    }
    let deprecated = args.deprecated.as_ref();
    let declared = Lifecycle {
        version: text(args.version.as_ref()),
        since: text(deprecated.map(|d| &d.since)),
        sunset: text(deprecated.and_then(|d| d.sunset.as_ref())),
        replacement: text(deprecated.and_then(|d| d.replacement.as_ref())),
    };
    for mistake in declared.mistakes(name) {
        let given = match mistake.key {
            LifecycleKey::Version => args.version.as_ref(),
            LifecycleKey::Since => deprecated.map(|d| &d.since),
            LifecycleKey::Sunset => deprecated.and_then(|d| d.sunset.as_ref()),
            LifecycleKey::Replacement => deprecated.and_then(|d| d.replacement.as_ref()),
        };
        let span = given.map_or_else(Span::call_site, |g| g.span);
        errors.error(span, mistake.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;
    use syn::{ItemFn, parse_quote};

    fn check_messages(args: proc_macro2::TokenStream, item: &ItemFn) -> Vec<String> {
        let mut errors = Errors::default();
        let args = crate::attr::parse(args, &mut errors);
        let function = ToolFn::from_item(item, &mut errors);
        let _ = check(&args, &function, &mut errors);
        errors.messages()
    }

    #[test]
    fn invalid_names_say_what_a_name_is() {
        let item: ItemFn = parse_quote! {
            /// Searches.
            fn search(input: Args) -> Result<(), ToolError> {}
        };
        let found = check_messages(
            quote!(safety = "read-only", mode = "parallel", name = "web-search"),
            &item,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("invalid tool name `web-search`"),
            "{found:?}"
        );

        let item: ItemFn = parse_quote! {
            /// Searches.
            fn WebSearch(input: Args) -> Result<(), ToolError> {}
        };
        let found = check_messages(quote!(safety = "read-only", mode = "parallel"), &item);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("set `name = \"...\"`"), "{found:?}");
    }

    #[test]
    fn manifest_bound_tools_take_metadata_from_the_manifest() {
        let item: ItemFn = parse_quote! {
            fn drawing_create(chart: &mut Chart, input: tools::drawing_create::Input) -> Result<(), E> {}
        };
        let found = check_messages(
            quote!(
                manifest = tools::drawing_create,
                name = "x",
                category = "y",
                timeout = "1s",
                mode = "parallel"
            ),
            &item,
        );
        // The `&mut` rule is not the macro's: the restated mode may be what disagrees with the
        // manifest, which the compile-time checks report first.
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("`name` cannot be set on tool `drawing_create`"));
        assert!(found[1].starts_with("`category` cannot be set on tool `drawing_create`"));
        assert!(found[2].starts_with("`timeout` cannot be set on tool `drawing_create`"));
    }

    #[test]
    fn lifecycle_rules_are_the_manifests() {
        let item: ItemFn = parse_quote! {
            /// Draws a line.
            fn drawing_line(input: Args) -> Result<(), ToolError> {}
        };
        let base = quote!(safety = "destructive", mode = "sequential");
        let found = check_messages(
            quote!(#base, version = "2.1.0", deprecated(since = "2.0.0", sunset = "2027-01-31", replacement = "drawing_create")),
            &item,
        );
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            check_messages(
                quote!(#base, version = "1.0", deprecated(since = "2.0.0", sunset = "2027-02-29", replacement = "drawing_line")),
                &item,
            ),
            [
                "expected `version` to be a semantic version like \"2.1.0\" (`MAJOR.MINOR.PATCH`, optionally with a `-pre-release` and a `+build`), found \"1.0\": unexpected end of input while parsing minor version number",
                "expected `sunset` to be a date `YYYY-MM-DD` like \"2027-06-30\", found \"2027-02-29\": February 2027 has no day 29",
                "`replacement` names the tool itself, expected the tool to call instead of `drawing_line`",
            ]
        );
        assert_eq!(
            check_messages(
                quote!(#base, version = "1.0.0", deprecated(since = "2.0.0")),
                &item,
            ),
            [
                "expected `since` to be at most the tool's `version` (\"1.0.0\"), found \"2.0.0\": a tool cannot be deprecated since a version after its own",
            ]
        );
        // A manifest-bound tool's lifecycle is its manifest's.
        let found = check_messages(
            quote!(
                manifest = tools::drawing_line,
                version = "2.1.0",
                deprecated(since = "2.0.0")
            ),
            &item,
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("`version` cannot be set on tool `drawing_line`"));
        assert!(found[1].starts_with("`deprecated` cannot be set on tool `drawing_line`"));
    }

    #[test]
    fn a_sequential_destructive_tool_may_take_the_context_to_itself() {
        let item: ItemFn = parse_quote! {
            /// Creates.
            fn pane_create(chart: &mut Chart, input: Args) -> Result<(), ToolError> {}
        };
        let found = check_messages(quote!(safety = "destructive", mode = "sequential"), &item);
        assert!(found.is_empty(), "{found:?}");
    }
}
