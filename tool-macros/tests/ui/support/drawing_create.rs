// The module the generator writes for a destructive, sequential `drawing_create` manifest,
// shared by the `manifest_*` cases through `include!` (not itself a case: `tests/ui/*.rs` does
// not reach this directory).

/// A module of the shape the generator writes.
mod tools {
    pub mod drawing_create {
        #[derive(
            Debug,
            ::tool_runtime::__private::serde::Deserialize,
            ::tool_runtime::__private::schemars::JsonSchema,
        )]
        #[serde(crate = "::tool_runtime::__private::serde")]
        #[schemars(crate = "::tool_runtime::__private::schemars")]
        pub struct Input {
            pub pane_id: String,
        }

        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Error {
            PaneNotFound,
        }

        impl ::tool_runtime::DeclaredError for Error {
            fn code(&self) -> &'static str {
                "PANE_NOT_FOUND"
            }
        }

        pub static META: ::tool_runtime::ToolMeta = ::tool_runtime::ToolMeta::new(
            "drawing_create",
            ::tool_runtime::Safety::Destructive,
            ::tool_runtime::Mode::Sequential,
            ::tool_runtime::StaticSchema::Json(r#"{"type":"object"}"#),
        )
        .title("Create a drawing")
        .description("Draws on a pane.")
        .source("tools/drawing_create.toml");
    }
}
