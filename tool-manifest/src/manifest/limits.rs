//! How much of a manifest is read, and how much of it a message quotes: bounds against files
//! written to exhaust the loader.

/// The largest manifest or schema file read, in bytes (1 MiB): a tool's declaration is a few
/// kilobytes.
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;

/// The deepest nesting of tables and arrays in `[input]`, `[output]` and an example's `input`
/// (TOML itself stops at a few hundred levels; no tool's arguments need more than a handful).
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// The most diagnostics reported for one file; the rest are counted.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// The longest diagnostic message, in characters (before invisible characters are escaped).
pub(super) const MESSAGE_LIMIT: usize = 1000;

/// The longest excerpt of a user-written value quoted in a message.
pub(super) const QUOTE_LIMIT: usize = 80;
