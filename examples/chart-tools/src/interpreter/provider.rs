//! What an execution provider is: something that runs a program and says whether it enforces the
//! interpreter's network policy.

use std::fmt;

use serde::Serialize;
use toolwright_runtime::handler::BoxFuture;

/// The languages a provider may be asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python 3 (`python3`).
    Python,
}

impl Language {
    /// The language's name as the tool's input spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One program to run. The policy of every run is the same and is not negotiable: **no network
/// access**, a fresh working directory, no state kept between runs. Whether a provider enforces
/// the network part is what [`ExecutionProvider::enforces_network_policy`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionRequest {
    /// The program's language.
    pub language: Language,
    /// The complete program.
    pub code: String,
}

impl ExecutionRequest {
    /// A Python program.
    pub fn python(code: impl Into<String>) -> Self {
        ExecutionRequest {
            language: Language::Python,
            code: code.into(),
        }
    }
}

/// How a program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExitStatus {
    /// The exit code, when the program exited by itself.
    pub code: Option<i32>,
    /// The signal that ended the program, when one did (Unix).
    pub signal: Option<i32>,
}

impl ExitStatus {
    /// True for an exit with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exited with code {code}"),
            (None, Some(signal)) => write!(f, "was killed by signal {signal}"),
            (None, None) => f.write_str("ended with an unknown status"),
        }
    }
}

/// One output stream of a program, cut to the provider's output limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CapturedOutput {
    /// What the program wrote, up to the limit (invalid UTF-8 replaced by `U+FFFD`).
    pub text: String,
    /// How many bytes the program wrote in all.
    pub total_bytes: u64,
    /// How many of those bytes `text` leaves out.
    pub omitted_bytes: u64,
}

impl CapturedOutput {
    /// Keeps at most `limit` bytes of `bytes` (cut on a character boundary), given that the
    /// program wrote `total_bytes` in all.
    pub fn capture(bytes: &[u8], total_bytes: u64, limit: usize) -> Self {
        let mut kept = &bytes[..bytes.len().min(limit)];
        // A character cut by the limit (or by the end of what was kept) is dropped whole.
        if let Err(e) = std::str::from_utf8(kept)
            && e.error_len().is_none()
        {
            kept = &kept[..e.valid_up_to()];
        }
        let text = String::from_utf8_lossy(kept).into_owned();
        let total_bytes = total_bytes.max(kept.len() as u64);
        CapturedOutput {
            text,
            total_bytes,
            omitted_bytes: total_bytes - kept.len() as u64,
        }
    }

    /// True when `text` stops short of everything written.
    pub fn truncated(&self) -> bool {
        self.omitted_bytes > 0
    }

    /// The text as the model reads it: ending in `… (truncated, N bytes not shown)` when cut.
    pub fn to_display(&self) -> String {
        if self.truncated() {
            format!(
                "{}\n… (truncated, {} bytes not shown)",
                self.text, self.omitted_bytes
            )
        } else {
            self.text.clone()
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// The program's standard output.
    pub stdout: CapturedOutput,
    /// The program's standard error.
    pub stderr: CapturedOutput,
    /// How the program ended.
    pub status: ExitStatus,
    /// True when the provider's own time limit stopped the program.
    pub timed_out: bool,
    /// True when the program ran with its network policy enforced.
    pub isolated: bool,
}

/// Why a provider could not run a program at all (the program itself did not run, or could not
/// be watched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// The program could not be started (no interpreter, namespaces refused at run time, …).
    Unavailable(String),
    /// Reading the program's output or waiting for it failed.
    Io(String),
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::Unavailable(why) => write!(f, "the program could not be started: {why}"),
            ProviderError::Io(why) => write!(f, "the program could not be supervised: {why}"),
        }
    }
}

impl std::error::Error for ProviderError {}

/// Runs programs for `code_interpreter`.
///
/// A provider must say truthfully whether it enforces the interpreter's network policy (no
/// network access for the program): the tool refuses to run through one that does not unless
/// the host opted in ([`Interpreter::allow_unisolated`](super::Interpreter::allow_unisolated)).
pub trait ExecutionProvider: Send + Sync {
    /// A short description for messages and logs (`local python3 in a user+network namespace`).
    fn describe(&self) -> String;

    /// True only when a program run by this provider cannot reach any network, loopback included.
    fn enforces_network_policy(&self) -> bool;

    /// Runs one program. Dropping the returned future stops the program.
    fn run<'a>(
        &'a self,
        request: &'a ExecutionRequest,
    ) -> BoxFuture<'a, Result<Execution, ProviderError>>;
}

impl fmt::Debug for dyn ExecutionProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutionProvider")
            .field("describe", &self.describe())
            .field("enforces_network_policy", &self.enforces_network_policy())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_everything_under_the_limit() {
        let captured = CapturedOutput::capture(b"42\n", 3, 10);
        assert_eq!(captured.text, "42\n");
        assert!(!captured.truncated());
        assert_eq!(captured.to_display(), "42\n");
    }

    #[test]
    fn capture_cuts_on_a_character_and_says_how_much_is_missing() {
        // "é" is two bytes: a limit of 3 keeps "a" and "é", not half of the second "é".
        let bytes = "aéé".as_bytes();
        let captured = CapturedOutput::capture(bytes, 1000, 4);
        assert_eq!(captured.text, "aé");
        assert!(captured.truncated());
        assert_eq!(
            captured.to_display(),
            "aé\n… (truncated, 997 bytes not shown)"
        );
    }

    #[test]
    fn capture_replaces_invalid_bytes() {
        let captured = CapturedOutput::capture(&[b'a', 0xff, b'b'], 3, 10);
        assert_eq!(captured.text, "a\u{fffd}b");
        assert!(!captured.truncated());
    }

    #[test]
    fn exit_status_reads_naturally() {
        let exited = ExitStatus {
            code: Some(1),
            signal: None,
        };
        let killed = ExitStatus {
            code: None,
            signal: Some(9),
        };
        assert_eq!(exited.to_string(), "exited with code 1");
        assert!(!exited.success());
        assert_eq!(killed.to_string(), "was killed by signal 9");
    }
}
