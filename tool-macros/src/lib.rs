//! The `#[tool]` attribute: a tool declared once, as a function.
//!
//! Use it through `toolwright_runtime`, which re-exports it as `toolwright_runtime::tool` along with
//! `toolwright_runtime::tool_def!` and `toolwright_runtime::tool_defs!`. See the `toolwright_runtime` crate docs
//! for the full guide.
//!
//! - [`macro@tool`] reads the function and its attribute (`attr.rs`, `ast.rs`), checks them
//!   together (`valid.rs`), and emits the function unchanged plus a hidden type of the same name
//!   that holds its definition (`expand.rs`). Every mistake is reported at once, each on its own
//!   tokens; with mistakes, the hidden type is still emitted, with a definition whose body is
//!   `unreachable!()`, so that a `tool_def!` of the tool still resolves: one mistake gives one
//!   message.
//! - [`tool_def!`] turns the path of a `#[tool]` function into its `ToolDef`; the path of any
//!   other function is an error saying it is not a tool.
//! - [`tool_defs!`] lists a crate's tools, and checks at compile time that every tool its
//!   manifests declare is in the list.
//! - [`derive@DeclaredError`] declares the error codes of a code-first tool on an enum
//!   (`declared.rs`), with the rules of a manifest's `[[errors]]`.

use proc_macro::TokenStream;

mod ast;
mod attr;
mod declared;
mod expand;
mod valid;

/// Declares a tool: `#[tool(safety = "read-only", mode = "parallel")]` on a function.
///
/// # Code-first tools
///
/// An example is in the docs of the `toolwright_runtime::tool` module, where it runs as a test
/// (the runtime depends on this crate, so this crate's own tests cannot use it).
///
/// - **Keys**: `safety` (`"read-only"` or `"destructive"`) and `mode` (`"parallel"` or
///   `"sequential"`) must both be stated: there is no default. `name` defaults to the
///   function's name, `title` to the name with `_` as spaces and a capital first letter;
///   `category` is optional.
/// - **Lifecycle**: `version = "2.1.0"` and `deprecated(since = "2.0.0", sunset = "2027-06-30",
///   replacement = "new_tool", note = "...")` (only `since` required) follow a manifest's rules,
///   checked by the same functions; that the replacement is a tool of the set is checked when
///   the registry is built.
/// - **Deferral**: `defer_loading` (or `defer_loading = true`) declares the tool deferred, as a
///   manifest's `defer_loading = true` does: left out of a request's eager tool list and loaded
///   when a tool search finds it.
/// - **Description**: the doc comment (common indentation removed, trimmed). A code-first tool
///   without one does not compile: the model reads it to decide when to call the tool.
/// - **Input**: the one by-value parameter. Its type derives `Deserialize` and `JsonSchema`
///   (schemars 1); its schemars schema (draft 2020-12, `$schema` key dropped, everything else
///   kept) is the tool's input schema. The schema's root must be an object, so use a struct; a
///   tool without arguments takes `toolwright_runtime::NoArgs`.
/// - **Context**: the optional reference parameter, `&C` or `&mut C`, in any position. `&mut C`
///   only for a `destructive`, `sequential` tool: reads and parallel calls run side by side
///   sharing the context. A tool without a context works with any `C`.
/// - **Result**: `Result<T, E>` with `T: Serialize` and `E` either `ToolError` or `D` or
///   `Failure<D>` of a [`DeclaredError`](derive@DeclaredError) enum `D`, whose
///   codes are then the tool's declared errors (in its metadata, docs and exports). A
///   destructive tool reports a change
///   (`stateChanged: true`) unless `T` is `Unchanged<T>` (never a change) or `Changed<T>` (a
///   change when its `changed` is true). An `async fn`'s future must be `Send`.
/// - **Shape**: a free, non-generic, safe function (lifetime parameters are fine).
///
/// # Manifest-bound tools
///
/// `#[tool(manifest = crate::tools::drawing_create)]` binds the function to the module the
/// generator wrote for `tools/drawing_create.toml`: the metadata is the manifest's `META`, the
/// input must be that module's `Input`, the error `Error` or `Failure<Error>` (a declared code with guidance, or `TOOL_FAILED` or `TOOL_NOT_ALLOWED`). The attribute
/// may restate `safety`, `mode` and `defer_loading`; they are checked against the manifest at
/// compile time, and a disagreement is one error naming the tool, both values and the manifest
/// file. `name`, `title` and `category` come from the manifest only.
///
/// # What is emitted
///
/// The function, unchanged, and a hidden type of the same name (`struct f {}`: a function is a
/// value and this is a type, so the names do not collide, but no other type, module or import
/// named like the function may sit next to it) implementing the hidden traits that
/// [`tool_def!`] and [`tool_defs!`] call: its frozen metadata `static` and its adapter. With
/// any mistake, the function is emitted with every error, each on the offending tokens, and the
/// same hidden type whose definition's body is `unreachable!()`: a `tool_def!` of the tool
/// resolves and type-checks, so it adds no error of its own (the crate does not compile anyway).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// `tool_def!(path::to::tool_fn)`: the `::toolwright_runtime::__private::ToolDef<C>` of a `#[tool]` function,
/// ready for the registry (`Registry::builder().tool(tool_def!(tools::panes_list))`).
///
/// `C` is the context type the function takes; for a tool without context, any `C`. Any path
/// that names the function works (`crate::`, `super::`, an import, a glob import). A function
/// without `#[tool]` is one error on the path: "this function is not a tool".
#[proc_macro]
pub fn tool_def(input: TokenStream) -> TokenStream {
    expand::tool_def(input.into()).into()
}

/// `tool_defs![tools::ALL; a, b, c]`: the `ToolDef`s of a crate's `#[tool]` functions, as an
/// array for `RegistryBuilder::tools`, checked at compile time against the tools its manifests
/// declare.
///
/// Before the `;`, the declared tools: a `&[&ToolMeta]` constant or static, usually the
/// generator's `tools::ALL`. Every declared tool must be one of the listed functions (a
/// manifest-bound tool, or a code-first tool of the same name); one that is not is a compile
/// error naming the tool and its manifest file:
///
/// ```text
/// error[E0080]: evaluation panicked: tool `drawing_delete` is declared in `tools/drawing_delete.toml` but has no implementation in `tool_defs!`: add its `#[tool]` function to the list, or its name to `except`
/// ```
///
/// - `tool_defs![tools::ALL, except SKIPPED; ...]` leaves out the declared tools named in
///   `SKIPPED` (a `&[&str]` constant: tools this build does not register); a name there that no
///   manifest declares is an error too.
/// - A tool may be preceded by `#[cfg(...)]`: it is then listed (and counted as implemented)
///   exactly when the `cfg` holds.
/// - Code-first tools need no manifest and may be listed too; `tool_defs![a, b]` (no `;`) is
///   the array alone.
///
/// An example is in the docs of the `toolwright_runtime::tool` module.
#[proc_macro]
pub fn tool_defs(input: TokenStream) -> TokenStream {
    expand::tool_defs(input.into()).into()
}

/// `#[derive(DeclaredError)]` on an enum: the error codes of a code-first tool, one per variant.
///
/// Each variant takes `#[declared(...)]` with the keys of a manifest's `[[errors]]` entry:
/// `retryable` (`true` or `false`) and `recommended_action` (the recovery hint) are required;
/// `code` defaults to the variant's name in `SCREAMING_SNAKE_CASE` (`PaneNotFound` →
/// `PANE_NOT_FOUND`), `message` to the variant's doc comment. Variants may hold data.
///
/// The enum gets `toolwright_runtime::DeclaredError`, whose `ERRORS` lists every code with its
/// message, retryable flag and recommended action, and whose `code()` is the variant's code,
/// both written from the one list. A tool returning the enum or `Failure<E>` gets
/// `ERRORS` as its declared errors.
///
/// The rules are a manifest's: codes are `SCREAMING_SNAKE_CASE`, unique within the enum, and
/// none of the runtime's (`TOOL_FAILED`, …); every mistake is one error on its tokens. An example
/// is in the docs of the `toolwright_runtime::tool` module.
#[proc_macro_derive(DeclaredError, attributes(declared))]
pub fn derive_declared_error(input: TokenStream) -> TokenStream {
    declared::derive(input.into()).into()
}
