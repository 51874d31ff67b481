//! Existing tool definitions → manifests: the way in for tools written elsewhere.
//!
//! [`read`] takes what other tool libraries publish and [`write`](fn@write) writes one manifest per tool
//! (`<name>.toml`) with its schemas as JSON files next to it (`<name>.input.json`,
//! `<name>.output.json`: TOML has no `null`, and a JSON file keeps the source's key order):
//!
//! - **MCP** tool definitions: a `tools/list` result (`{"tools": [...]}`), a whole JSON-RPC
//!   response (`{"jsonrpc", "id", "result": {"tools": [...]}}`) or an array of `Tool` objects
//!   (`name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`). Keys the
//!   reader does not know are ignored, as MCP clients do.
//! - **OpenAI** function definitions: Chat Completions tools (`{"type": "function", "function":
//!   {...}}`), Responses API tools (`{"type": "function", "name", ...}`) or bare `{name,
//!   description, parameters}`.
//! - **BFCL** function docs (the Berkeley Function Calling Leaderboard): JSON Lines or an array
//!   of `{name, description, parameters, response}`, or test entries holding them in
//!   `function`; the BFCL type names are mapped to JSON Schema 2020-12 (see [`BFCL_TYPES`]).
//!
//! Schemas are kept exactly: the JSON value the source published, key order and the text of
//! every number included (BFCL schemas once their type names are mapped). A schema holding a
//! number `serde_json` would read as another one (an integer past 64 bits, a decimal with more
//! digits than a 64-bit float keeps, `-0`), which the manifest loader refuses, is refused with
//! the number's pointer. What the sources leave out is filled in and
//! reported ([`Line`]): a name that is not a valid tool name is made valid (and made unique
//! with a numeric suffix), a missing title is derived from the name, a missing description is
//! the title, and a tool whose source does not declare `readOnlyHint: true` is `destructive`
//! (`sequential`), with a comment in its manifest asking for a review. `idempotentHint` and
//! `openWorldHint` become `idempotent` and `open_world` when the source declares them.
//!
//! [`pinned`] takes the tools of a live MCP server the user does not control (its `tools/list`,
//! as received) and converts them the same way into *pinned* manifests: each keeps the upstream
//! `Tool` object exactly (`<name>.upstream.json`) and names it in an `[upstream]` table with the
//! server, the tool's name on it and the definition's digest, which a proxy compares with the
//! live definition. The server's annotations are hints nothing checks, so a pinned manifest's
//! `safety` and `mode` are suggested in comments for the author to declare (and `idempotent`
//! and `open_world` are not copied), unless the hints are trusted (`--trust-hints`).

mod bfcl;
mod convert;
mod json;
mod pin;
mod source;
#[cfg(test)]
mod tests;
mod text;
mod upstream;

pub use bfcl::{Mapped, TYPES as BFCL_TYPES};
pub(crate) use convert::mcp_tools;
pub use convert::{InputError, Line, Outcome, Reading, Review, Tool, read, valid_name, write};
pub use pin::pinned;
pub use source::{Format, UnknownFormat};
pub use upstream::Pin;
