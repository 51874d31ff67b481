//! The `#[tool]` attribute: a tool declared once, as a function.
//!
//! Use it through `tool_runtime`, which re-exports it as `tool_runtime::tool` along with
//! `tool_runtime::tool_def!`. See the `tool_runtime` crate docs for the full guide.
//!
//! - [`macro@tool`] reads the function and its attribute (`attr.rs`, `ast.rs`), checks them
//!   together (`valid.rs`), and emits the function unchanged plus one hidden definition
//!   function (`expand.rs`). Every mistake is reported at once, each on its own tokens; with
//!   mistakes, only the function is emitted, so one mistake gives one message.
//! - [`tool_def!`] turns the path of a `#[tool]` function into its `ToolDef`.

use proc_macro::TokenStream;

mod ast;
mod attr;
mod expand;
mod valid;

/// Declares a tool: `#[tool(safety = "read-only", mode = "parallel")]` on a function.
///
/// Keys: `safety` and `mode` (required for a code-first tool), `name` (default: the function's
/// name), `title` (default: the name, capitalized, `_` as spaces), `category`, and
/// `manifest = path::to::generated::module` for a tool declared in a manifest (then only
/// `safety` and `mode` may be restated, and must agree with the manifest).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// `tool_def!(path::to::tool_fn)`: the `::tool_runtime::ToolDef<C>` of a `#[tool]` function.
#[proc_macro]
pub fn tool_def(input: TokenStream) -> TokenStream {
    expand::tool_def(input.into()).into()
}
