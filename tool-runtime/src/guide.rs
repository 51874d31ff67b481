//! The chapters of the guide, one module each (the files of `guide/` in this crate's package, the
//! same files the guide's mdBook is built from). Only documentation: nothing here is compiled
//! outside rustdoc.

#[doc = concat!(guide_links!(), include_str!("../guide/getting-started.md"))]
pub mod getting_started {}

#[doc = concat!(guide_links!(), include_str!("../guide/manifest.md"))]
pub mod manifests {}

#[doc = concat!(guide_links!(), include_str!("../guide/code-first.md"))]
pub mod code_first {}

#[doc = concat!(guide_links!(), include_str!("../guide/runtime.md"))]
pub mod runtime {}

#[doc = concat!(guide_links!(), include_str!("../guide/providers.md"))]
pub mod providers {}

#[doc = concat!(guide_links!(), include_str!("../guide/cli.md"))]
pub mod command_line {}

#[doc = concat!(guide_links!(), include_str!("../guide/lifecycle.md"))]
pub mod lifecycle {}

#[doc = concat!(guide_links!(), include_str!("../guide/mcp.md"))]
pub mod mcp_servers {}

#[doc = concat!(guide_links!(), include_str!("../guide/pinned.md"))]
pub mod pinned_servers {}

#[doc = concat!(guide_links!(), include_str!("../guide/many-tools.md"))]
pub mod many_tools {}
