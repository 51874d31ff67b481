//! `chart-tools`: the demo chart's tools on the command line.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use chart_tools::chart::Chart;
use chart_tools::session::{Format, SavedState, Session, StateFile};
use clap::{Args, Parser, Subcommand, ValueEnum};
use toolwright_mcp::args::{HttpArgs, ServeError};
use toolwright_runtime::approval::{
    ApprovalStore, Decision, FileApprovalStore, MemoryApprovalStore, RedisApprovalStore,
};
use toolwright_runtime::lines::DEFAULT_MAX_LINE_BYTES;
use toolwright_runtime::provider::Provider;
use toolwright_runtime::settings::ToolSettings;
use toolwright_runtime::{Registry, RunPolicy};
use toolwright_secrets::{Redactor, SecretString};

/// The demo chart's agent tools, enforced by their registry.
#[derive(Debug, Parser)]
#[command(name = "chart-tools", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs tool calls read as JSON Lines on stdin against a fresh demo chart.
    ///
    /// Each input line is one model message: a JSON array of calls
    /// {"id": string, "name": string, "arguments"?: object}. Each message is answered by one line:
    /// a JSON array of {"id", "name", "result"}, one per call and in call order, "result" being
    /// the envelope ({"success": true, "data", "stateChanged"} or {"success": false, "error",
    /// "stateChanged"}). A line that is not such an array is answered by
    /// {"error": {"code": "MESSAGE_INVALID", "message"}} saying where it is wrong (calls are
    /// numbered from 1), and the run goes on; a call whose "arguments" are not an object is
    /// answered with its own TOOL_INPUT_INVALID at "/", the other calls running as usual. Blank
    /// lines are skipped. Every answer is flushed at once. One chart serves the whole run: each
    /// message sees the changes of the ones before. Exits 0 at the end of the input.
    ///
    /// With --approval defer, a message whose writes wait for a person is answered instead by
    /// {"pending": [{"approvalId", "id", "name", "arguments"}], "answered": [{"id", "name",
    /// "result"}]} (the approvals to decide, and the calls that already ran); a later line
    /// {"decisions": {"<approvalId>": {"approve": true} | {"deny": "reason"} | {"edit": {...}}}}
    /// resumes it, and it is then answered by its full answer line (every call, in order), or by
    /// a new pending line when more of its calls wait. --state FILE keeps the pending approvals
    /// across processes, which claim decided approvals in a ledger file next to it (or in the
    /// Redis of --store): each approval runs at most once, whichever process resumes it.
    Run(RunArgs),

    /// Answers model provider responses read as JSON Lines on stdin, against a fresh demo chart.
    ///
    /// Each input line is one response of the --provider (the JSON body the provider's API
    /// returned): OpenAI Chat Completions (choices[].message.tool_calls[]), OpenAI Responses
    /// (output[] items of type function_call), Anthropic Messages (content[] blocks of type
    /// tool_use) or Gemini generateContent (candidates[].content.parts[].functionCall). Its tool
    /// calls run as `run` runs a message, and it is answered by one line: a JSON array of the
    /// provider's result messages (items for openai-responses) to append to the conversation,
    /// always an array, in call order: openai, one {"role": "tool", "tool_call_id", "content"}
    /// per call; openai-responses, one {"type": "function_call_output", "call_id", "output"} per
    /// call; anthropic, one {"role": "user", "content": [{"type": "tool_result", "tool_use_id",
    /// "content", "is_error"}...]} message; gemini, one {"role": "user", "parts":
    /// [{"functionResponse": {"name", "response", "id"?}}...]} message. The content is the
    /// call's envelope (as JSON text; as the object itself for gemini). A response without tool
    /// calls is answered by []. Arguments that are not JSON or not an object are that call's
    /// TOOL_INPUT_INVALID at "/". A line that is not a response of the provider is answered by
    /// {"error": {"code": "RESPONSE_INVALID", "message"}} saying where (a JSON Pointer), and the
    /// host goes on.
    ///
    /// With --approval defer, approvals work as for `run`: a pending line, then a decisions line
    /// that resumes, answered by the provider's result messages for every call of the response.
    Host(HostArgs),

    /// Serves the demo chart's tools over MCP on stdio (newline-delimited JSON-RPC), or over
    /// Streamable HTTP with --http.
    ///
    /// tools/list returns the run's tools with every annotation written explicitly from the
    /// declared safety; tools/call goes through the registry (policy, validation, the tool) and
    /// answers the envelope as structuredContent and as text, with isError when it failed. In a
    /// read-only server a write tool is not listed, and a call to it is answered with the
    /// TOOL_NOT_ALLOWED envelope. With --approval defer, a write is confirmed by the client's
    /// user (an input request, MCP 2026-07-28); an older client is told that the call needs the
    /// user's approval (TOOL_NOT_ALLOWED).
    ///
    /// Over HTTP every client works on the same chart. With --tokens each request needs a bearer
    /// token from the file: a `read` token gets a read-only run whatever the server allows, a
    /// `write` token the server's policy (never more: --read-only wins). Without --tokens the
    /// server serves without authentication, and only on a loopback address unless
    /// --allow-unauthenticated says otherwise.
    Mcp(McpArgs),

    /// Redacts a user prompt read on stdin and writes it to stdout.
    ///
    /// Auth values (`Bearer …`, `Basic …`) and `sk-…` keys become [REDACTED]; home directories
    /// (/home/NAME, /Users/NAME, C:\Users\NAME) become [LOCAL_PATH]; the values of the environment
    /// variables PROVIDER_API_KEY and SEARCH_API_KEY, when set, become [REDACTED] wherever they
    /// appear.
    Redact,
}

#[derive(Debug, Args)]
struct McpArgs {
    #[command(flatten)]
    policy: PolicyArgs,

    /// What the user answers to every ask_user question (as for `run`).
    #[arg(long, value_name = "TEXT")]
    answer: Option<String>,

    #[command(flatten)]
    trace: TraceArgs,

    /// On stdio: the longest line read, in bytes. A longer line is discarded as it streams in
    /// and answered with the JSON-RPC error -32600 (with the message's `id` when the line's
    /// start gives it); the session goes on. Over HTTP --max-body bounds a request instead.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_LINE_BOUND)]
    max_line_bytes: NonZeroUsize,

    #[command(flatten)]
    http: HttpArgs,
}

/// The default of `--max-line-bytes`.
const DEFAULT_LINE_BOUND: NonZeroUsize = match NonZeroUsize::new(DEFAULT_MAX_LINE_BYTES) {
    Some(bound) => bound,
    None => NonZeroUsize::MIN,
};

/// What a run shows of its tool calls (shared by the commands that run tools).
#[derive(Debug, Args)]
struct TraceArgs {
    /// Writes the spans of the tool calls to stderr: one JSON line per closed span (an
    /// `execute_tool` span per call, an `execute_batch` span per message), with its fields
    /// (`gen_ai.tool.name`, `gen_ai.tool.call.id`, `tool.safety`, `tool.state_changed`,
    /// `error.type`, `tool.refusal`, ...). Nothing is written without it.
    #[arg(long, value_enum, value_name = "FORMAT")]
    trace: Option<TraceFormat>,

    /// With --trace: also records each call's arguments and result on its span, redacted as
    /// `redact` redacts a prompt (auth values, `sk-` keys, home directories, the values of
    /// PROVIDER_API_KEY and SEARCH_API_KEY).
    #[arg(long, requires = "trace")]
    trace_content: bool,
}

/// How spans are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    /// tracing-subscriber's JSON formatter: one JSON object per line.
    Json,
}

/// How a line protocol reads its input (`run`, `host`).
#[derive(Debug, Args)]
struct LineArgs {
    /// The longest input line read, in bytes. A longer line is discarded as it streams in, never
    /// held whole, and answered with MESSAGE_INVALID (RESPONSE_INVALID for `host`); the next
    /// line is read as usual.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_LINE_BOUND)]
    max_line_bytes: NonZeroUsize,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    policy: PolicyArgs,

    /// What the user answers to every ask_user question. Without it, the user picks the first
    /// offered option, and answers "yes" to an open question.
    #[arg(long, value_name = "TEXT")]
    answer: Option<String>,

    #[command(flatten)]
    state: StateArgs,

    #[command(flatten)]
    trace: TraceArgs,

    #[command(flatten)]
    lines: LineArgs,
}

#[derive(Debug, Args)]
struct HostArgs {
    /// The API the responses come from.
    #[arg(long, value_enum)]
    provider: ProviderArg,

    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct StateArgs {
    /// Keeps the approvals waiting for a decision in this JSON file, which several processes may
    /// share: read at the start (a missing file means none), and after every line merged with
    /// what it holds then, under a lock (FILE.lock), and replaced through a temporary file of a
    /// unique name. Decided approvals are claimed in the ledger FILE.ledger (locked by
    /// FILE.ledger.lock), or in the Redis of --store: an approval runs at most once, whichever
    /// process resumes it, at the same moment or later. An unreadable or corrupt file is an
    /// error (exit status 2), and is left as it is; a damaged ledger fails each resume closed
    /// (TOOL_FAILED, nothing runs).
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,

    /// Claims decided approvals in this Redis (redis://HOST:PORT, or redis://HOST:PORT/DB)
    /// instead of FILE.ledger: every process and machine pointed at it runs each approval at
    /// most once. When Redis does not answer, the approval is not used and nothing runs
    /// (TOOL_FAILED, retryable). Keys: toolwright:approval:ID, kept until the approval expires
    /// plus 5 minutes.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
}

/// The provider APIs `host` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ProviderArg {
    /// OpenAI Chat Completions.
    #[value(name = "openai")]
    OpenAi,
    /// OpenAI Responses.
    #[value(name = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
}

impl ProviderArg {
    fn provider(self) -> Provider {
        match self {
            ProviderArg::OpenAi => Provider::OpenAi,
            ProviderArg::OpenAiResponses => Provider::OpenAiResponses,
            ProviderArg::Anthropic => Provider::Anthropic,
            ProviderArg::Gemini => Provider::Gemini,
        }
    }
}

/// How the person approves the run's writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ApprovalArg {
    /// Every valid write is approved.
    Allow,
    /// Every valid write is denied (TOOL_NOT_ALLOWED, with a fixed reason).
    Deny,
    /// Every valid write waits for a decision line (run, host) or the client's user (mcp).
    Defer,
}

/// The reason every write is denied with under `--approval deny`.
const DENY_REASON: &str = "The user does not allow changes in this run.";

/// What the host allows in a run (shared by the commands that run tools).
#[derive(Debug, Args)]
struct PolicyArgs {
    /// Offers and runs only read-only tools; a call to any other tool is refused with
    /// TOOL_NOT_ALLOWED and changes nothing.
    #[arg(long)]
    read_only: bool,

    /// Asks the person about every valid call to a write (destructive tool), after validation:
    /// allow approves it, deny refuses it (TOOL_NOT_ALLOWED, nothing runs), defer waits for a
    /// decision. Without it every valid call runs.
    #[arg(long, value_enum, value_name = "HOW")]
    approval: Option<ApprovalArg>,

    /// Switches a tool off for this run (repeatable). Its calls are refused with
    /// TOOL_NOT_ALLOWED. Not written to the settings file.
    #[arg(long = "disable", value_name = "NAME")]
    disable: Vec<String>,

    /// Reads the tools the user switched off from this settings file
    /// ({"disabledTools": [...]}); a missing file means every tool is enabled. The file is only
    /// read, never written. An unreadable or corrupt file is an error (exit status 2).
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,

    /// Lets code_interpreter run code where the machine cannot cut it off from the network
    /// (no user+network namespaces). Dangerous: the code can then reach any host, service or
    /// file the user can. Without it, such calls are refused with TOOL_NOT_ALLOWED.
    #[cfg(feature = "code-interpreter")]
    #[arg(long)]
    allow_unisolated: bool,
}

/// A failure of the command itself (not of a tool call, which is answered as data).
struct Fatal {
    message: String,
    status: u8,
}

impl Fatal {
    /// Bad input from the user (arguments, settings file): exit status 2.
    fn usage(message: impl Into<String>) -> Self {
        Fatal {
            message: message.into(),
            status: 2,
        }
    }

    /// Anything else: exit status 1.
    fn other(message: impl Into<String>) -> Self {
        Fatal {
            message: message.into(),
            status: 1,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Run(args) => run(args),
        Command::Host(args) => host(args),
        Command::Mcp(args) => mcp(args),
        Command::Redact => redact(),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(fatal) => {
            eprintln!("error: {}", fatal.message);
            ExitCode::from(fatal.status)
        }
    }
}

/// The demo chart a run works on, with the host's answers and opt-ins.
fn chart(policy: &PolicyArgs, answer: Option<String>) -> Chart {
    let mut chart = Chart::demo();
    chart.set_ask_user(chart_tools::run::answer_user(answer));
    #[cfg(feature = "code-interpreter")]
    {
        let interpreter = chart_tools::interpreter::Interpreter::local()
            .allow_unisolated(policy.allow_unisolated);
        if let Some(refusal) = interpreter.refusal() {
            eprintln!("warning: code_interpreter calls will be refused: {refusal}");
        } else if policy.allow_unisolated && !interpreter.provider().enforces_network_policy() {
            eprintln!(
                "warning: code_interpreter runs code WITHOUT network isolation (--allow-unisolated)"
            );
        }
        chart.set_interpreter(interpreter);
    }
    #[cfg(not(feature = "code-interpreter"))]
    let _ = policy;
    chart
}

fn runtime() -> Result<tokio::runtime::Runtime, Fatal> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal::other(format!("cannot start the runtime: {e}")))
}

/// Writes spans to stderr when `--trace` asks for it (only the runtime's: its target).
fn install_trace(args: &TraceArgs) {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::fmt::format::FmtSpan;
    use tracing_subscriber::layer::SubscriberExt as _;

    if args.trace != Some(TraceFormat::Json) {
        return;
    }
    let spans = tracing_subscriber::fmt::layer()
        .json()
        .with_span_events(FmtSpan::CLOSE)
        .with_span_list(false)
        .with_writer(std::io::stderr)
        .with_filter(
            Targets::new().with_target(toolwright_runtime::trace::TARGET, tracing::Level::INFO),
        );
    // Only fails when a subscriber is already installed, and none is.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(spans));
}

/// The registry of the run: with `--trace-content`, its spans record arguments and results
/// through the prompt redactor.
fn registry(trace: &TraceArgs) -> Result<Registry<Chart>, Fatal> {
    install_trace(trace);
    let mut builder = chart_tools::registry_builder();
    if trace.trace_content {
        let redactor = prompt_redactor();
        builder = builder.trace_content(move |text: &str| redactor.redact(text).into_owned());
    }
    builder.build().map_err(|e| Fatal::other(e.to_string()))
}

/// The redactor of prompts: the built-in rules and the configured keys of the environment.
fn prompt_redactor() -> Redactor {
    let keys: Vec<SecretString> = ["PROVIDER_API_KEY", "SEARCH_API_KEY"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .filter(|value| !value.is_empty())
        .map(SecretString::from)
        .collect();
    let keys: Vec<&SecretString> = keys.iter().collect();
    Redactor::new(&keys)
}

fn mcp(args: McpArgs) -> Result<(), Fatal> {
    let registry = registry(&args.trace)?;
    let policy = args.policy.policy(&registry)?;
    let chart = chart(&args.policy, args.answer);
    if let Some(addr) = args.http.http {
        return mcp_http(addr, &args.http, registry, policy, chart);
    }
    let server = args
        .http
        .with_seal_key(mcp_server(Arc::new(registry), policy, chart)?)
        .map_err(|e| Fatal::usage(e.to_string()))?
        .with_max_line_bytes(args.max_line_bytes.get());
    runtime()?
        .block_on(server.serve_stdio())
        .map_err(|e| Fatal::other(format!("the MCP server stopped: {e}")))
}

/// The chart's MCP server, over stdio or HTTP.
fn mcp_server(
    registry: Arc<Registry<Chart>>,
    policy: RunPolicy,
    chart: Chart,
) -> Result<toolwright_mcp::McpServer<Chart>, Fatal> {
    toolwright_mcp::McpServer::new(
        registry,
        policy,
        chart,
        "chart-tools",
        env!("CARGO_PKG_VERSION"),
    )
    .map_err(|e| Fatal::other(e.to_string()))
}

/// `mcp --http`: many clients on one chart, on a runtime with a thread per core.
fn mcp_http(
    addr: std::net::SocketAddr,
    args: &HttpArgs,
    registry: Registry<Chart>,
    policy: RunPolicy,
    chart: Chart,
) -> Result<(), Fatal> {
    let registry = Arc::new(registry);
    let server = mcp_server(Arc::clone(&registry), policy, chart)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal::other(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let http = args
            .bind(addr, server, |name| registry.get(name).is_some())
            .await
            .map_err(|e| match e {
                ServeError::Usage(message) => Fatal::usage(message),
                ServeError::Failed(message) => Fatal::other(message),
            })?;
        eprintln!("listening on {}", http.url());
        http.serve()
            .await
            .map_err(|e| Fatal::other(format!("the MCP server stopped: {e}")))
    })
}

fn redact() -> Result<(), Fatal> {
    use std::io::{Read, Write};
    let mut prompt = String::new();
    std::io::stdin().read_to_string(&mut prompt).map_err(|e| {
        Fatal::usage(format!(
            "cannot read the prompt from stdin (UTF-8 text expected): {e}"
        ))
    })?;
    let redactor = prompt_redactor();
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(redactor.redact(&prompt).as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Fatal::other(format!("cannot write the prompt: {e}")))
}

fn run(args: RunArgs) -> Result<(), Fatal> {
    serve_lines(Format::Calls, args)
}

fn host(args: HostArgs) -> Result<(), Fatal> {
    serve_lines(Format::Provider(args.provider.provider()), args.run)
}

/// `run` and `host`: lines in, answers out, approvals kept in the state file.
fn serve_lines(format: Format, args: RunArgs) -> Result<(), Fatal> {
    let RunArgs {
        policy: policy_args,
        answer,
        state,
        trace,
        lines,
    } = args;
    let registry = registry(&trace)?;
    let mut policy = policy_args.policy(&registry)?;
    if let Format::Provider(provider) = format {
        // The provider was offered the tools in its own shape (OpenAI strict mode's nulls).
        policy = policy.with_provider(provider);
    }
    let state_file = state.state.as_deref().map(StateFile::new);
    let saved = match &state_file {
        Some(file) => file.load().map_err(|e| Fatal::usage(e.to_string()))?,
        None => SavedState::default(),
    };
    let mut chart = chart(&policy_args, answer);
    let runtime = runtime()?;
    let store = runtime.block_on(approval_store(&state, state_file.as_ref()))?;
    let mut session = Session::resume(&registry, &policy, format, saved)
        .with_store(store)
        .with_max_line_bytes(lines.max_line_bytes.get());
    runtime
        .block_on(session.serve(
            &mut chart,
            tokio::io::stdin(),
            tokio::io::stdout(),
            state_file.as_ref(),
        ))
        .map_err(|e| Fatal::other(format!("cannot read messages or write answers: {e}")))?;
    warn_unsaved(session.state(), state.state.as_deref());
    Ok(())
}

/// Where decided approvals are claimed: the Redis of `--store`, the ledger next to the state
/// file, or (one process) memory.
async fn approval_store(
    args: &StateArgs,
    state_file: Option<&StateFile>,
) -> Result<Arc<dyn ApprovalStore>, Fatal> {
    if let Some(url) = &args.store {
        if !url.starts_with("redis://") {
            return Err(Fatal::usage(format!(
                "`--store {url}` is not a Redis URL: expected redis://HOST:PORT"
            )));
        }
        let store = RedisApprovalStore::connect(url)
            .await
            .map_err(|e| Fatal::other(e.to_string()))?;
        return Ok(Arc::new(store));
    }
    Ok(match state_file {
        Some(file) => Arc::new(FileApprovalStore::new(file.ledger_path())),
        None => Arc::new(MemoryApprovalStore::new()),
    })
}

/// Says on stderr how many approvals still wait when nothing keeps them.
fn warn_unsaved(state: &SavedState, file: Option<&Path>) {
    let pending = state.pending();
    if pending > 0 && file.is_none() {
        eprintln!(
            "warning: {pending} approval(s) still pending are dropped: keep them with --state FILE"
        );
    }
}

impl PolicyArgs {
    /// The run's policy: `--read-only`, the settings file's disabled tools, `--disable` and
    /// `--approval`.
    fn policy(&self, registry: &Registry<Chart>) -> Result<RunPolicy, Fatal> {
        let mut policy = if self.read_only {
            RunPolicy::read_only()
        } else {
            RunPolicy::full()
        };
        if let Some(path) = &self.settings {
            let settings = ToolSettings::load(path).map_err(|e| Fatal::usage(e.to_string()))?;
            settings.apply(&mut policy);
        }
        for name in &self.disable {
            if registry.get(name).is_none() {
                let names: Vec<String> = registry.names().map(|n| format!("`{n}`")).collect();
                return Err(Fatal::usage(format!(
                    "unknown tool `{name}` in `--disable`, expected one of {}",
                    names.join(", ")
                )));
            }
            policy = policy.disable(name.clone());
        }
        policy = match self.approval {
            None => policy,
            Some(ApprovalArg::Allow) => policy.with_approval(|_| Decision::Approve),
            Some(ApprovalArg::Deny) => policy.with_approval(|_| Decision::deny(DENY_REASON)),
            Some(ApprovalArg::Defer) => policy.with_approval(|_| Decision::Defer),
        };
        Ok(policy)
    }
}
