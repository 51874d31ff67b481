//! The client side of an MCP proxy: a connection to a third-party MCP server.
//!
//! [`Upstream::connect`] starts a command that speaks MCP on stdio, or opens a Streamable HTTP
//! session, and completes the handshake. The server's tools are then listed and called as raw
//! JSON ([`Upstream::list_tools`], [`Upstream::call_tool`]): the proxy forwards what the server
//! sent, without reading it into types of its own. [`Upstream::list_changed`] counts the
//! server's `notifications/tools/list_changed`, so the proxy knows when to list again.
//!
//! Secrets of an [`Endpoint`] (environment values, header values, a URL's userinfo and query
//! string) never appear in `Debug`, in [`describe`] or in an [`UpstreamError`].
//!
//! ```no_run
//! use toolwright_upstream::{Endpoint, Upstream};
//!
//! # async fn run() -> Result<(), toolwright_upstream::UpstreamError> {
//! let endpoint = Endpoint::Command {
//!     program: "mcp-server-everything".into(),
//!     args: Vec::new(),
//!     env: Vec::new(),
//! };
//! let upstream = Upstream::connect(&endpoint).await?;
//! let tools = upstream.list_tools().await?;
//! let mut arguments = serde_json::Map::new();
//! arguments.insert("message".into(), "hi".into());
//! let result = upstream.call_tool("echo", arguments).await?;
//! println!("{} tools; echo said {}", tools.len(), result["content"][0]["text"]);
//! upstream.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! Over HTTP, only `http://` URLs are reached for now (no TLS stack is built in): put a TLS
//! terminating proxy of your own in front of an `https://` server, or run it on loopback.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod endpoint;
mod error;
mod upstream;

pub use endpoint::{Endpoint, describe};
pub use error::UpstreamError;
pub use upstream::{CONNECT_TIMEOUT, Upstream};
