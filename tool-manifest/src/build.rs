//! The builder API a build.rs calls (filled by the generator work).

/// Generates Rust code for a directory of manifests.
#[derive(Debug, Default)]
pub struct Builder {}
