use toolwright_runtime::tool;

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
            ::toolwright_runtime::handler::Safety::ReadOnly,
            ::toolwright_runtime::handler::Mode::Parallel,
            ::toolwright_runtime::handler::StaticSchema::Json(r#"{"type":"object"}"#),
        )
        .title("Create a drawing")
        .description("Draws on a pane.")
        .source("tools/drawing_create.toml");
    }
}

struct Chart;

#[tool(manifest = tools::drawing_create)]
fn drawing_create(
    _chart: &mut Chart,
    _input: tools::drawing_create::Input,
) -> Result<(), tools::drawing_create::Error> {
    Ok(())
}

fn main() {}
