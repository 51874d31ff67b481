//! `toolwright-proxy`: the pinned tools of MCP servers you do not control, served as one MCP
//! server under your declarations (see `toolwright_mcp::proxy`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, ValueEnum};
use toolwright_mcp::args::{HttpArgs, ServeError};
use toolwright_mcp::proxy::{Proxy, ProxyOptions};
use toolwright_runtime::RunPolicy;
use toolwright_runtime::approval::Decision;
use toolwright_runtime::policy::Defer;
use toolwright_secrets::SecretString;

/// Serves the pinned tools of a folder of manifests (written by `tool-manifest import
/// --from-mcp`) as one MCP server: each upstream server named by the manifests' `[upstream]`
/// tables is started (a command) or reached (a URL); only pinned tools are listed, with the
/// annotations of your manifests; every call is validated against the pinned schema before it
/// is forwarded; a tool whose live definition differs from its pin is refused until it is
/// pinned again.
#[derive(Debug, Parser)]
#[command(name = "toolwright-proxy", version)]
struct Args {
    /// The folder of pinned manifests.
    #[arg(long, value_name = "DIR")]
    manifests: PathBuf,

    /// Offers only the tools declared read-only; a call to any other is refused before it
    /// reaches its server.
    #[arg(long)]
    read_only: bool,

    /// Switches a tool off (repeatable).
    #[arg(long, value_name = "TOOL")]
    disable: Vec<String>,

    /// What happens to a valid call of a destructive tool: it runs (`allow`, the default), is
    /// refused (`deny`), or waits for the client's user to confirm it (`defer`: asked through
    /// the client's elicitation, and refused where the client cannot be asked).
    #[arg(long, value_enum, default_value = "allow")]
    approval: Approval,

    /// Defers every pinned tool: `tools/list` offers `tool_search`, and a tool is listed
    /// (appended, with `notifications/tools/list_changed`) once a search of the session finds
    /// it. A search finds only tools the caller's policy allows: never a write in a read-only
    /// run. A manifest's `defer_loading = true` defers its tool without this flag.
    #[arg(long)]
    defer_upstream: bool,

    /// Defers every tool past the first N of the list (in name order, the manifests' deferred
    /// tools apart), as --defer-upstream does every tool.
    #[arg(long, value_name = "N")]
    defer_after: Option<usize>,

    /// Lists every server's tools again every SECONDS and refuses the ones that changed, besides
    /// at each `notifications/tools/list_changed` (a server may change its tools without saying
    /// so). Off unless given.
    #[arg(long, value_name = "SECONDS")]
    relist: Option<std::num::NonZeroU64>,

    /// Sends a header to an upstream server reached over HTTP: `SERVER=NAME:VALUE`
    /// (repeatable). Prefer `--header-env`: a command line is visible to other users.
    #[arg(long, value_name = "SERVER=NAME:VALUE")]
    header: Vec<String>,

    /// Sends a header whose value is read from an environment variable:
    /// `SERVER=NAME:VARIABLE` (repeatable).
    #[arg(long, value_name = "SERVER=NAME:VARIABLE")]
    header_env: Vec<String>,

    #[command(flatten)]
    serve: HttpArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Approval {
    Allow,
    Deny,
    Defer,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fatal { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

struct Fatal {
    message: String,
    code: u8,
}

impl Fatal {
    fn usage(message: impl Into<String>) -> Self {
        Fatal {
            message: message.into(),
            code: 2,
        }
    }

    fn other(message: impl std::fmt::Display) -> Self {
        Fatal {
            message: message.to_string(),
            code: 1,
        }
    }
}

impl From<ServeError> for Fatal {
    fn from(error: ServeError) -> Self {
        match error {
            ServeError::Usage(message) => Fatal::usage(message),
            ServeError::Failed(message) => Fatal::other(message),
        }
    }
}

/// `SERVER=NAME:VALUE`, split.
fn header(arg: &str, flag: &str) -> Result<(String, String, String), Fatal> {
    let invalid = || {
        Fatal::usage(format!(
            "--{flag} takes SERVER=NAME:{}, found {:?}",
            if flag == "header" {
                "VALUE"
            } else {
                "VARIABLE"
            },
            arg.split(':').next().unwrap_or_default()
        ))
    };
    let (server, rest) = arg.split_once('=').ok_or_else(invalid)?;
    let (name, value) = rest.split_once(':').ok_or_else(invalid)?;
    if server.is_empty() || name.trim().is_empty() {
        return Err(invalid());
    }
    Ok((
        server.to_owned(),
        name.trim().to_owned(),
        value.trim().to_owned(),
    ))
}

async fn run(args: Args) -> Result<(), Fatal> {
    let mut options = ProxyOptions::default();
    if let Some(seconds) = args.relist {
        options = options.relist_every(std::time::Duration::from_secs(seconds.get()));
    }
    for arg in &args.header {
        let (server, name, value) = header(arg, "header")?;
        options = options.header(server, name, SecretString::new(value));
    }
    for arg in &args.header_env {
        let (server, name, variable) = header(arg, "header-env")?;
        let value = std::env::var(&variable).map_err(|_| {
            Fatal::usage(format!(
                "--header-env {server}={name}:{variable}: the environment variable `{variable}` is not set"
            ))
        })?;
        options = options.header(server, name, SecretString::new(value));
    }
    let proxy = Proxy::connect(&args.manifests, options)
        .await
        .map_err(Fatal::other)?;
    for name in &args.disable {
        if proxy.registry().get(name).is_none() {
            return Err(Fatal::usage(format!(
                "--disable {name}: no pinned tool of {} is named `{name}`",
                args.manifests.display()
            )));
        }
    }
    let mut policy = if args.read_only {
        RunPolicy::read_only()
    } else {
        RunPolicy::full()
    }
    .disable_all(args.disable.iter().cloned());
    if args.defer_upstream {
        policy = policy.defer(Defer::Upstream);
    }
    if let Some(n) = args.defer_after {
        policy = policy.defer(Defer::After(n));
    }
    policy = match args.approval {
        Approval::Allow => policy,
        Approval::Deny => policy.with_approval(|_| {
            Decision::deny("The proxy's operator denies every call that changes state.")
        }),
        Approval::Defer => policy.with_approval(|_| Decision::Defer),
    };
    let server = proxy.server(policy).map_err(Fatal::other)?;
    let Some(addr) = args.serve.http else {
        let server = args.serve.with_seal_key(server).map_err(Fatal::from)?;
        return server
            .serve_stdio()
            .await
            .map_err(|e| Fatal::other(format!("the MCP server stopped: {e}")));
    };
    let registry = Arc::clone(proxy.registry());
    let http = args
        .serve
        .bind(addr, server, |name| registry.get(name).is_some())
        .await
        .map_err(Fatal::from)?;
    eprintln!("listening on {}", http.url());
    http.serve()
        .await
        .map_err(|e| Fatal::other(format!("the MCP server stopped: {e}")))
}
