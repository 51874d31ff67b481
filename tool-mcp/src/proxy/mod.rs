//! The pinned proxy: the tools of MCP servers you do not control, served as one MCP server (or
//! called directly as a [`Registry`]) under **your** declarations (SPEC section 10).
//!
//! A folder of pinned manifests (written by `tool-manifest import --from-mcp`, each with an
//! `[upstream]` table and the safety its author declared) is the whole configuration: the
//! proxy starts or reaches each upstream server the tables name, compares every live definition
//! with its pin, and registers each pinned tool with one handler that forwards its calls
//! upstream ([`Handler::Named`]). Everything else is the registry's one call pipeline: the
//! listing's annotations come from the manifests, every call is validated against the pinned
//! schema before it is forwarded, and read-only runs, grants, disabled tools, approvals, time
//! limits and output budgets apply as to local tools.
//!
//! A tool whose live definition differs from its pin in anything at all (its description
//! included; the lifecycle [`diff`] says what changed) is withheld while it differs: not listed,
//! and a call to it is refused (`TOOL_NOT_ALLOWED`, saying what changed) before its arguments are
//! read. Key order, the order of `required` and `enum`, and whitespace are not changes. The definitions are compared
//! again whenever an upstream server says its list changed, and when a server that went away is
//! reached again. An upstream tool that is not pinned is never listed.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolwright_mcp::proxy::{Proxy, ProxyOptions};
//! use toolwright_runtime::RunPolicy;
//!
//! let proxy = Proxy::connect("pinned".as_ref(), ProxyOptions::default()).await?;
//! proxy.server(RunPolicy::read_only())?.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! [`Handler::Named`]: toolwright_runtime::handler::Handler::Named
//! [`diff`]: toolwright_manifest::diff

mod pins;
mod upstreams;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolwright_runtime::handler::{Handler, ToolDef};
use toolwright_runtime::registry::{Registry, RegistryError};
use toolwright_runtime::{RunPolicy, ToolResult};
use toolwright_secrets::SecretString;

use crate::{Availability, McpError, McpServer};

pub use upstreams::{Upstreams, Verdict};

/// Why a proxy cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// The manifests do not load (each mistake with its file and line).
    #[error("the pinned manifests in {} do not load:\n{diagnostics}", dir.display())]
    Manifests {
        /// The folder.
        dir: PathBuf,
        /// Every mistake, one per line.
        diagnostics: String,
    },
    /// A manifest of the folder is not pinned to an upstream tool.
    #[error(
        "{}: the tool `{name}` has no `[upstream]` table: a proxy serves only pinned tools (import them with `tool-manifest import --from-mcp`)",
        source_file.display()
    )]
    NotPinned {
        /// The tool.
        name: String,
        /// Its manifest.
        source_file: PathBuf,
    },
    /// Two manifests name one server with two different commands or URLs.
    #[error(
        "the upstream server `{server}` is reached as {first} by `{first_tool}` and as {second} by `{second_tool}`: one server id, one command or URL"
    )]
    EndpointsDisagree {
        /// The server id.
        server: String,
        /// The first endpoint, with the tool that names it.
        first: String,
        /// The tool that names the first.
        first_tool: String,
        /// The second endpoint.
        second: String,
        /// The tool that names the second.
        second_tool: String,
    },
    /// Options name a server that no manifest names.
    #[error("the options name the upstream server `{0}`, which no pinned manifest names")]
    UnknownServer(String),
    /// An upstream server cannot be reached.
    #[error("the upstream server `{server}` cannot be reached: {why}")]
    Unreachable {
        /// The server id.
        server: String,
        /// Why, with where it was looked for.
        why: String,
    },
    /// The registry of the pinned tools does not build.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The MCP server over it cannot start.
    #[error(transparent)]
    Mcp(#[from] McpError),
}

/// What the manifests cannot say: the secrets a server needs to be reached.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ProxyOptions {
    /// HTTP headers sent to an upstream server reached over Streamable HTTP, by server id
    /// (an `Authorization` header, say: a pinned manifest never holds one).
    pub headers: BTreeMap<String, Vec<(String, SecretString)>>,
    /// Environment variables of an upstream server started as a child process, by server id.
    pub env: BTreeMap<String, Vec<(String, SecretString)>>,
    /// How often every server's tools are listed and judged again, besides at each
    /// `notifications/tools/list_changed` (`None`: only then): a server may change its tools
    /// without saying so.
    pub relist_every: Option<std::time::Duration>,
}

impl ProxyOptions {
    /// Adds a header sent to the server `server`.
    #[must_use]
    pub fn header(
        mut self,
        server: impl Into<String>,
        name: impl Into<String>,
        value: SecretString,
    ) -> Self {
        self.headers
            .entry(server.into())
            .or_default()
            .push((name.into(), value));
        self
    }

    /// Lists and judges every server's tools again every `period`, whether or not the server
    /// says they changed.
    #[must_use]
    pub fn relist_every(mut self, period: std::time::Duration) -> Self {
        self.relist_every = Some(period);
        self
    }

    /// Adds an environment variable of the server `server`'s process.
    #[must_use]
    pub fn env(
        mut self,
        server: impl Into<String>,
        name: impl Into<String>,
        value: SecretString,
    ) -> Self {
        self.env
            .entry(server.into())
            .or_default()
            .push((name.into(), value));
        self
    }
}

/// The pinned tools of one folder, their upstream servers connected and their definitions
/// compared with the pins.
#[derive(Debug)]
pub struct Proxy {
    registry: Arc<Registry<Upstreams>>,
    upstreams: Upstreams,
}

impl Proxy {
    /// Loads the pinned manifests of `dir`, reaches every upstream server they name, and
    /// compares each live definition with its pin.
    ///
    /// # Errors
    /// When the manifests do not load, a manifest is not pinned, two manifests disagree on a
    /// server's endpoint, a server cannot be reached, or the registry does not build.
    pub async fn connect(dir: &Path, options: ProxyOptions) -> Result<Proxy, ProxyError> {
        let pinned = pins::load(dir)?;
        // One handler for every pinned tool: it finds the tool's server by the tool's name.
        let defs: Vec<ToolDef<Upstreams>> = pinned
            .tools
            .iter()
            .map(|t| ToolDef {
                meta: t.meta,
                handler: Handler::Named(upstreams::forward),
            })
            .collect();
        // Each tool's spec carries its pin: `Defer::Upstream` defers it, and an OpenAI
        // Responses request groups it by server.
        let registry = pinned
            .tools
            .iter()
            .fold(Registry::builder().tools(defs), |builder, t| {
                builder.upstream(t.meta.name, t.pin.clone())
            })
            .build()?;
        let upstreams = Upstreams::connect(pinned, options).await?;
        Ok(Proxy {
            registry: Arc::new(registry),
            upstreams,
        })
    }

    /// The registry of the pinned tools (a host may call it directly, with [`Proxy::upstreams`]
    /// as the context).
    pub fn registry(&self) -> &Arc<Registry<Upstreams>> {
        &self.registry
    }

    /// The upstream servers: the registry's context.
    pub fn upstreams(&self) -> &Upstreams {
        &self.upstreams
    }

    /// The policy of a run: `policy` with every tool that differs from its pin at this moment
    /// withheld (not listed; its calls refused, saying what changed, before their arguments are
    /// looked at). A call that reaches a tool which drifted since is refused by its handler.
    pub fn policy(&self, policy: RunPolicy) -> RunPolicy {
        policy.withhold_all(self.upstreams.withheld())
    }

    /// Runs one call under `policy`, the tools that differ from their pins withheld (a host's
    /// direct use; [`Proxy::server`] serves MCP).
    pub async fn execute(
        &self,
        policy: &RunPolicy,
        name: &str,
        arguments: &serde_json::Value,
    ) -> ToolResult {
        let mut context = self.upstreams.clone();
        let policy = self.policy(policy.clone());
        self.registry
            .execute(&policy, &mut context, name, arguments)
            .await
    }

    /// An MCP server of the pinned tools under `policy`: tools that differ from their pins are
    /// not listed while they do, and each session is told when that changes. With
    /// [`Defer::Upstream`](toolwright_runtime::policy::Defer::Upstream) (`toolwright-proxy --defer-upstream`) every pinned tool is deferred:
    /// found through `tool_search`, and listed in a session once a search of it found them.
    ///
    /// # Errors
    /// As [`McpServer::new`].
    pub fn server(&self, policy: RunPolicy) -> Result<McpServer<Upstreams>, ProxyError> {
        let availability: Arc<dyn Availability> = Arc::new(self.upstreams.clone());
        let server = McpServer::new(
            Arc::clone(&self.registry),
            policy,
            self.upstreams.clone(),
            "toolwright-proxy",
            env!("CARGO_PKG_VERSION"),
        )?
        .with_availability(availability);
        Ok(server)
    }
}
