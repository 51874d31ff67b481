//! Support for code emitted by `#[tool]` and by the generator. Not a public API.

pub use schemars;
pub use serde;
pub use serde_json;
