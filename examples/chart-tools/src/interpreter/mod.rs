//! `code_interpreter`: runs a short Python program through an execution provider.
//!
//! Compiled only with the cargo feature `code-interpreter`. Without it the tool is in no list
//! and a call to it answers `TOOL_NOT_FOUND`.
//!
//! # Wiring it into a host
//!
//! ```no_run
//! use chart_tools::chart::Chart;
//! use chart_tools::interpreter::{self, Interpreter};
//! use toolwright_runtime::{Registry, RunPolicy};
//!
//! # async fn host(allow_unisolated: bool) -> Result<(), toolwright_runtime::RegistryError> {
//! // 1. Register the tool (its manifest declares its time limit, `CALL_TIME_LIMIT`).
//! let registry = interpreter::register(Registry::builder()).build()?;
//! // 2. Give the chart a provider. `Interpreter::local()` probes `unshare -rn` once.
//! //    `allow_unisolated(true)` is the binary's `--allow-unisolated`: dangerous, see below.
//! let mut chart = Chart::demo().with_interpreter(Interpreter::local().allow_unisolated(allow_unisolated));
//! let args = serde_json::json!({"language": "python", "code": "print(6 * 7)"});
//! let result = registry.execute(&RunPolicy::full(), &mut chart, "code_interpreter", &args).await;
//! # let _ = result;
//! # Ok(())
//! # }
//! ```
//!
//! # The policy and who enforces it
//!
//! Every run asks for **no network access**, a fresh working directory and nothing kept between
//! runs. Whether the network part is enforced depends on the [`ExecutionProvider`], which must
//! report it ([`ExecutionProvider::enforces_network_policy`]). The [`LocalProvider`] enforces it
//! on Linux with a fresh unprivileged user + network namespace (`unshare -rn`); elsewhere it
//! isolates nothing and says so.
//!
//! A call through a provider that does not enforce the policy is refused with
//! `TOOL_NOT_ALLOWED` (`stateChanged: false`, nothing runs) unless the host opted in with
//! [`Interpreter::allow_unisolated`]. That opt-in is dangerous: the model writes the code, and
//! whatever steered the model (a web page it read, a document the user pasted) can make it
//! write code that sends the user's data anywhere, or reaches services on the host's own network.
//!
//! # Answers
//!
//! - success (exit code 0): `{"stdout", "stderr", "exit_code", "isolated"}`, outputs capped
//!   (`… (truncated, N bytes not shown)`), `stateChanged: true` (the tool is destructive: the
//!   program could write files the host user may write);
//! - `CODE_EXECUTION_FAILED`: a non-zero exit or the provider's own time limit, with the end of
//!   stderr and the start of stdout in the message;
//! - `SANDBOX_UNAVAILABLE`: no provider installed, or it could not start the program;
//! - `TOOL_NOT_ALLOWED`: the provider does not enforce the policy and the host did not opt in;
//! - `TOOL_TIMEOUT` with `stateChanged: true`: the registry's time limit of the call
//!   ([`CALL_TIME_LIMIT`], declared in the manifest) stopped the program, which is killed.

mod local;
mod provider;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use toolwright_runtime::{Failure, RegistryBuilder, ToolDef, tool, tool_def};

pub use local::{DEFAULT_OUTPUT_LIMIT, DEFAULT_TIME_LIMIT, LocalProvider, SANDBOX_PATH};
pub use provider::{
    CapturedOutput, Execution, ExecutionProvider, ExecutionRequest, ExitStatus, Language,
    ProviderError,
};

use crate::chart::Chart;
use crate::tools::code_interpreter::{self as manifest, Error};

/// The tool's name.
pub const TOOL_NAME: &str = "code_interpreter";

/// The registry's time limit of one `code_interpreter` call: the one its manifest declares
/// (`timeout = "30s"`).
pub const CALL_TIME_LIMIT: Duration = Duration::from_millis(match manifest::META.timeout_ms {
    Some(ms) => ms,
    None => toolwright_runtime::DEFAULT_TIMEOUT.as_millis() as u64,
});

/// How much of stderr (its end) a `CODE_EXECUTION_FAILED` message quotes, in characters.
const STDERR_QUOTE_LIMIT: usize = 4000;

/// How much of stdout (its start) a `CODE_EXECUTION_FAILED` message quotes, in characters.
const STDOUT_QUOTE_LIMIT: usize = 1000;

/// How the chart runs code: a provider, and whether the host allows running through one that
/// does not enforce the network policy.
#[derive(Clone)]
pub struct Interpreter {
    provider: Arc<dyn ExecutionProvider>,
    allow_unisolated: bool,
}

impl fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interpreter")
            .field("provider", &self.provider.describe())
            .field(
                "enforces_network_policy",
                &self.provider.enforces_network_policy(),
            )
            .field("allow_unisolated", &self.allow_unisolated)
            .finish()
    }
}

impl Interpreter {
    /// Runs code through `provider`; refuses if it does not enforce the network policy.
    pub fn new(provider: impl ExecutionProvider + 'static) -> Self {
        Interpreter::from_shared(Arc::new(provider))
    }

    /// Runs code through a shared provider; refuses if it does not enforce the network policy.
    pub fn from_shared(provider: Arc<dyn ExecutionProvider>) -> Self {
        Interpreter {
            provider,
            allow_unisolated: false,
        }
    }

    /// The local provider, probed now ([`LocalProvider::probe`]).
    pub fn local() -> Self {
        Interpreter::new(LocalProvider::probe())
    }

    /// Whether to run code through a provider that does **not** enforce the network policy
    /// (`false` unless set). Only a host that runs no untrusted model and no untrusted input
    /// should set it: the code comes from the model, and the model can be steered by anything it
    /// reads into reaching the network, the host's own services included.
    #[must_use]
    pub fn allow_unisolated(mut self, allow: bool) -> Self {
        self.allow_unisolated = allow;
        self
    }

    /// The provider.
    pub fn provider(&self) -> &Arc<dyn ExecutionProvider> {
        &self.provider
    }

    /// True when the host opted in to running without isolation.
    pub fn allows_unisolated(&self) -> bool {
        self.allow_unisolated
    }

    /// Why a call is refused (`TOOL_NOT_ALLOWED`), if it is: the provider does not enforce the
    /// network policy and the host did not opt in.
    pub fn refusal(&self) -> Option<String> {
        if self.provider.enforces_network_policy() || self.allow_unisolated {
            None
        } else {
            Some(format!(
                "The tool `{TOOL_NAME}` cannot run code here: its execution provider ({}) does not \
                 enforce the no-network policy, and the host did not allow running code without \
                 isolation.",
                self.provider.describe()
            ))
        }
    }
}

impl Chart {
    /// Installs how `code_interpreter` runs code.
    pub fn set_interpreter(&mut self, interpreter: Interpreter) {
        self.interpreter = Some(interpreter);
    }

    /// The chart with `code_interpreter`'s way of running code installed.
    #[must_use]
    pub fn with_interpreter(mut self, interpreter: Interpreter) -> Self {
        self.set_interpreter(interpreter);
        self
    }

    /// How `code_interpreter` runs code, once installed.
    pub fn interpreter(&self) -> Option<&Interpreter> {
        self.interpreter.as_ref()
    }
}

/// What a successful run answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeOutput {
    /// What the program printed, capped.
    pub stdout: String,
    /// What the program wrote to stderr (warnings, say), capped.
    pub stderr: String,
    /// The exit code (0).
    pub exit_code: i32,
    /// True when the program ran without network access, enforced by the provider.
    pub isolated: bool,
}

/// The tool's `ToolDef`, for `Registry::builder().tool(...)`. Prefer [`register`], which also
/// sets the call's time limit.
///
/// The tool takes the chart shared: it reads the installed [`Interpreter`] and changes nothing
/// in the chart.
pub fn tool_def() -> ToolDef<Chart> {
    tool_def!(code_interpreter)
}

/// Registers `code_interpreter` (its time limit, [`CALL_TIME_LIMIT`], is its manifest's).
#[must_use]
pub fn register(builder: RegistryBuilder<Chart>) -> RegistryBuilder<Chart> {
    builder.tool(tool_def())
}

/// Runs the program through the chart's interpreter. Refuses (`TOOL_NOT_ALLOWED`, nothing runs)
/// when the provider does not enforce the network policy and the host did not opt in.
#[tool(
    manifest = crate::tools::code_interpreter,
    safety = "destructive",
    mode = "sequential"
)]
async fn code_interpreter(
    chart: &Chart,
    input: manifest::Input,
) -> Result<CodeOutput, Failure<Error>> {
    let Some(interpreter) = chart.interpreter() else {
        return Err(Failure::new(Error::SandboxUnavailable)
            .detail("The host installed no execution provider."));
    };
    if let Some(reason) = interpreter.refusal() {
        return Err(Failure::NotAllowed(reason));
    }
    if input.code.contains('\0') {
        // Python source cannot hold one, and no process argument can carry one.
        return Err(Failure::new(Error::CodeExecutionFailed)
            .detail("The code contains a NUL character (`\\0`); remove it."));
    }
    let request = ExecutionRequest {
        language: match input.language {
            manifest::Language::Python => Language::Python,
        },
        code: input.code,
    };
    let execution =
        interpreter.provider().run(&request).await.map_err(|e| {
            Failure::new(Error::SandboxUnavailable).detail(capitalized(&e.to_string()))
        })?;
    answer(execution)
}

/// A successful run's output, or `CODE_EXECUTION_FAILED` with what the model needs to fix it.
fn answer(execution: Execution) -> Result<CodeOutput, Failure<Error>> {
    if execution.status.success() && !execution.timed_out {
        return Ok(CodeOutput {
            stdout: execution.stdout.to_display(),
            stderr: execution.stderr.to_display(),
            exit_code: 0,
            isolated: execution.isolated,
        });
    }
    let mut detail = if execution.timed_out {
        format!(
            "The program ran past the provider's time limit and was stopped (it {}).",
            execution.status
        )
    } else {
        format!("The program {}.", execution.status)
    };
    let stderr = tail(&execution.stderr.to_display(), STDERR_QUOTE_LIMIT);
    if !stderr.trim().is_empty() {
        detail.push_str("\nstderr:\n");
        detail.push_str(stderr.trim_end());
    }
    let stdout = head(&execution.stdout.to_display(), STDOUT_QUOTE_LIMIT);
    if !stdout.trim().is_empty() {
        detail.push_str("\nstdout:\n");
        detail.push_str(stdout.trim_end());
    }
    Err(Failure::new(Error::CodeExecutionFailed).detail(detail))
}

/// The last `limit` characters of `text`, after `…` when cut.
fn tail(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return text.to_owned();
    }
    let start = text
        .char_indices()
        .nth(count - limit)
        .map_or(text.len(), |(i, _)| i);
    format!("…{}", &text[start..])
}

/// The first `limit` characters of `text`, then `…` when cut.
fn head(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// `the program …` → `The program …`.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execution(code: Option<i32>, stdout: &str, stderr: &str, timed_out: bool) -> Execution {
        Execution {
            stdout: CapturedOutput::capture(stdout.as_bytes(), stdout.len() as u64, 1 << 16),
            stderr: CapturedOutput::capture(stderr.as_bytes(), stderr.len() as u64, 1 << 16),
            status: ExitStatus {
                code,
                signal: if code.is_none() { Some(9) } else { None },
            },
            timed_out,
            isolated: true,
        }
    }

    #[test]
    fn a_clean_exit_is_the_output() {
        let output = answer(execution(Some(0), "42\n", "", false)).expect("success");
        assert_eq!(
            serde_json::to_value(&output).expect("json"),
            serde_json::json!({"stdout": "42\n", "stderr": "", "exit_code": 0, "isolated": true})
        );
    }

    #[test]
    fn a_failure_quotes_the_end_of_stderr() {
        let stderr = format!(
            "{}ZeroDivisionError: division by zero\n",
            "x".repeat(10_000)
        );
        let failure = answer(execution(Some(1), "partial\n", &stderr, false)).expect_err("fails");
        let Failure::Declared {
            error,
            detail: Some(detail),
        } = failure
        else {
            panic!("a declared error with a detail: {failure:?}");
        };
        assert_eq!(error, Error::CodeExecutionFailed);
        assert!(detail.starts_with("The program exited with code 1.\nstderr:\n…"));
        assert!(detail.contains("ZeroDivisionError: division by zero\nstdout:\npartial"));
        assert!(detail.chars().count() < STDERR_QUOTE_LIMIT + 200);
    }

    #[test]
    fn the_providers_time_limit_is_a_failure_of_the_code() {
        let failure = answer(execution(None, "", "", true)).expect_err("fails");
        let Failure::Declared { detail, .. } = failure else {
            panic!("a declared error: {failure:?}");
        };
        assert_eq!(
            detail.as_deref(),
            Some(
                "The program ran past the provider's time limit and was stopped (it was killed by signal 9)."
            )
        );
    }

    #[test]
    fn head_and_tail_cut_on_characters() {
        assert_eq!(head("ééé", 2), "éé…");
        assert_eq!(tail("ééé", 2), "…éé");
        assert_eq!(tail("ab", 2), "ab");
        assert_eq!(capitalized("the x"), "The x");
    }

    #[test]
    fn the_description_states_the_default_limits() {
        let description = manifest::META.description;
        let output = format!("{} KiB", DEFAULT_OUTPUT_LIMIT / 1024);
        let time = format!("{} seconds", CALL_TIME_LIMIT.as_secs());
        assert!(description.contains(&output), "{description}");
        assert!(description.contains(&time), "{description}");
    }

    #[test]
    fn the_chart_stays_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Chart>();
        shareable::<Interpreter>();
    }

    #[test]
    fn the_tool_is_the_manifest_tool() {
        let def = tool_def();
        assert!(std::ptr::eq(def.meta, &manifest::META));
        assert_eq!(def.meta.name, TOOL_NAME);
    }
}
