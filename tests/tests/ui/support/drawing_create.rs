// The module the generator writes for a destructive, sequential `drawing_create` manifest,
// shared by the `manifest_*` cases through `include!` (not itself a case: `tests/ui/*.rs` does
// not reach this directory).

/// A module of the shape the generator writes.
mod tools {
    pub mod drawing_create {
        #[derive(
            Debug,
            ::toolwright_runtime::__private::serde::Deserialize,
            ::toolwright_runtime::__private::schemars::JsonSchema,
        )]
        #[serde(crate = "::toolwright_runtime::__private::serde")]
        #[schemars(crate = "::toolwright_runtime::__private::schemars")]
        pub struct Input {
            pub pane_id: String,
        }

        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Error {
            PaneNotFound,
        }

        impl ::toolwright_runtime::DeclaredError for Error {
            const ERRORS: &'static [::toolwright_runtime::handler::ErrorMeta] = META.errors;

            fn code(&self) -> &'static str {
                "PANE_NOT_FOUND"
            }
        }

        pub static META: ::toolwright_runtime::handler::ToolMeta = ::toolwright_runtime::handler::ToolMeta::new(
            "drawing_create",
            ::toolwright_runtime::handler::Safety::Destructive,
            ::toolwright_runtime::handler::Mode::Sequential,
            ::toolwright_runtime::handler::StaticSchema::Json(r#"{"type":"object"}"#),
        )
        .title("Create a drawing")
        .description("Draws on a pane.")
        .source("tools/drawing_create.toml");
    }
}
