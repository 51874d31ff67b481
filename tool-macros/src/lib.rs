//! The `#[tool]` attribute.

use proc_macro::TokenStream;

/// Declares a tool (filled by the macro work).
#[proc_macro_attribute]
pub fn tool(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
