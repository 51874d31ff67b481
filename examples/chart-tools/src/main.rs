//! `chart-tools`: the demo chart's tools on the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use chart_tools::chart::Chart;
use clap::{Args, Parser, Subcommand};
use tool_runtime::{Registry, RunPolicy, ToolSettings};

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
    /// numbered from 1), and the run goes on. Blank lines are skipped. Every answer is flushed
    /// at once. One chart serves the whole run: each message sees the changes of the ones before.
    /// Exits 0 at the end of the input.
    Run(RunArgs),
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    policy: PolicyArgs,

    /// What the user answers to every ask_user question. Without it, the user picks the first
    /// offered option, and answers "yes" to an open question.
    #[arg(long, value_name = "TEXT")]
    answer: Option<String>,
}

/// What the host allows in a run (shared by the commands that run tools).
#[derive(Debug, Args)]
struct PolicyArgs {
    /// Offers and runs only read-only tools; a call to any other tool is refused with
    /// TOOL_NOT_ALLOWED and changes nothing.
    #[arg(long)]
    read_only: bool,

    /// Switches a tool off for this run (repeatable). Its calls are refused with
    /// TOOL_NOT_ALLOWED. Not written to the settings file.
    #[arg(long = "disable", value_name = "NAME")]
    disable: Vec<String>,

    /// Reads the tools the user switched off from this settings file
    /// ({"disabledTools": [...]}); a missing file means every tool is enabled. The file is only
    /// read, never written. An unreadable or corrupt file is an error (exit status 2).
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
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
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(fatal) => {
            eprintln!("error: {}", fatal.message);
            ExitCode::from(fatal.status)
        }
    }
}

fn run(args: RunArgs) -> Result<(), Fatal> {
    let registry = chart_tools::registry().map_err(|e| Fatal::other(e.to_string()))?;
    let policy = args.policy.policy(&registry)?;
    let mut chart = Chart::demo();
    chart.set_ask_user(chart_tools::run::answer_user(args.answer));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal::other(format!("cannot start the runtime: {e}")))?;
    runtime
        .block_on(chart_tools::run::run(
            &registry,
            &policy,
            &mut chart,
            tokio::io::BufReader::new(tokio::io::stdin()),
            tokio::io::stdout(),
        ))
        .map_err(|e| Fatal::other(format!("cannot read messages or write answers: {e}")))
}

impl PolicyArgs {
    /// The run's policy: `--read-only`, the settings file's disabled tools, and `--disable`.
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
            policy.disabled.insert(name.clone());
        }
        Ok(policy)
    }
}
