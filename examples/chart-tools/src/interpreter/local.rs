//! The local provider: `python3` on this machine, in a fresh unprivileged user and network
//! namespace on Linux (`unshare -rn`), with a time limit, an output cap and a clean working
//! directory per run.

use std::ffi::OsString;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::process::{Child, Command};
use toolwright_runtime::handler::BoxFuture;

use super::provider::{
    CapturedOutput, Execution, ExecutionProvider, ExecutionRequest, ExitStatus, Language,
    ProviderError,
};

/// The `PATH` a program sees (and where `unshare` and `python3` are looked up).
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The provider's own time limit of a run unless set: a little longer than the registry's limit
/// of a `code_interpreter` call ([`super::CALL_TIME_LIMIT`]), so that through the registry the
/// registry stops the call first and answers `TOOL_TIMEOUT`. The provider's limit stops a
/// program that runs without a registry around it.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(35);

/// How many bytes of stdout, and of stderr, a run keeps unless set (64 KiB each).
pub const DEFAULT_OUTPUT_LIMIT: usize = 64 * 1024;

/// How a local run is isolated.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Isolation {
    /// `unshare -rn --pid --fork --kill-child`: user, network and PID namespaces. Every process
    /// of the program dies with it.
    Namespaces,
    /// `unshare -rn`: user and network namespaces only (an older `unshare`).
    NetworkOnly,
    /// Nothing is isolated.
    None {
        /// Why (what the probe found).
        reason: String,
    },
}

impl Isolation {
    fn unshare_args(&self) -> Option<&'static [&'static str]> {
        match self {
            Isolation::Namespaces => Some(&["-rn", "--pid", "--fork", "--kill-child"]),
            Isolation::NetworkOnly => Some(&["-rn"]),
            Isolation::None { .. } => None,
        }
    }
}

/// Runs `python3` on this machine.
///
/// [`LocalProvider::probe`] decides once, at start-up, whether programs can run in a fresh
/// unprivileged user + network namespace (`unshare -rn`): then no program reaches any network,
/// loopback included, and [`enforces_network_policy`](ExecutionProvider::enforces_network_policy)
/// is true. Where namespaces are unavailable (macOS, Windows, Linux without user namespaces)
/// the provider isolates nothing and says so.
///
/// The namespaces isolate the **network only**: a program still reads and writes the files the
/// host user may, and uses the host's CPU and memory up to the time limit. Every run gets an
/// empty temporary working directory (also its `HOME` and `TMPDIR`), removed afterwards, a
/// cleared environment (`PATH`, `LANG`, `HOME`, `TMPDIR` only: no secret of the host leaks into
/// the program), no standard input, Python's isolated mode (`-I`), a time limit and an output
/// cap. When the run's future is dropped (the registry's time limit, say) the program is killed.
#[derive(Debug, Clone)]
pub struct LocalProvider {
    isolation: Isolation,
    python: OsString,
    time_limit: Duration,
    output_limit: usize,
}

impl LocalProvider {
    /// Probes once whether namespaces work here (`unshare -rn --pid --fork --kill-child true`,
    /// then `unshare -rn true`) and returns a provider that uses them, or one that says it
    /// isolates nothing and why.
    pub fn probe() -> Self {
        LocalProvider::with_isolation(probe_isolation())
    }

    /// A provider that never isolates, whatever this machine offers. Calls through it are
    /// refused unless the host opts in (see [`super::Interpreter::allow_unisolated`]).
    pub fn unisolated() -> Self {
        LocalProvider::with_isolation(Isolation::None {
            reason: "the provider was built without isolation".to_owned(),
        })
    }

    fn with_isolation(isolation: Isolation) -> Self {
        LocalProvider {
            isolation,
            python: OsString::from("python3"),
            time_limit: DEFAULT_TIME_LIMIT,
            output_limit: DEFAULT_OUTPUT_LIMIT,
        }
    }

    /// The Python interpreter to run (`python3` unless set; a bare name is looked up in
    /// [`SANDBOX_PATH`]).
    #[must_use]
    pub fn python(mut self, program: impl Into<OsString>) -> Self {
        self.python = program.into();
        self
    }

    /// The provider's own time limit of one run ([`DEFAULT_TIME_LIMIT`] unless set).
    #[must_use]
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = limit;
        self
    }

    /// How many bytes of stdout, and of stderr, a run keeps ([`DEFAULT_OUTPUT_LIMIT`] unless
    /// set). The rest is read and dropped, and counted.
    #[must_use]
    pub fn output_limit(mut self, bytes: usize) -> Self {
        self.output_limit = bytes;
        self
    }

    /// True when programs run in their own network namespace.
    pub fn is_isolated(&self) -> bool {
        self.isolation.unshare_args().is_some()
    }

    /// Why programs are not isolated, when they are not.
    pub fn unavailable_reason(&self) -> Option<&str> {
        match &self.isolation {
            Isolation::None { reason } => Some(reason),
            Isolation::Namespaces | Isolation::NetworkOnly => None,
        }
    }

    fn command(&self, workdir: &std::path::Path, code: &str) -> Command {
        let mut command = match self.isolation.unshare_args() {
            Some(args) => {
                let mut command = Command::new("unshare");
                command.args(args).arg("--").arg(&self.python);
                command
            }
            None => Command::new(&self.python),
        };
        command
            .arg("-I")
            .arg("-c")
            .arg(code)
            .env_clear()
            .env("PATH", SANDBOX_PATH)
            .env("LANG", "C.UTF-8")
            .env("HOME", workdir)
            .env("TMPDIR", workdir)
            .current_dir(workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        command
    }

    async fn run_python(&self, code: &str) -> Result<Execution, ProviderError> {
        // Inside the namespace `unshare` would start the interpreter and report a missing one as
        // the program's own failure: look for it first.
        if !program_exists(&self.python) {
            return Err(ProviderError::Unavailable(format!(
                "`{}` is not installed (looked in `{SANDBOX_PATH}`)",
                self.python.display()
            )));
        }
        let workdir = tempfile::Builder::new()
            .prefix("code-interpreter-")
            .tempdir()
            .map_err(|e| {
                ProviderError::Unavailable(format!("no working directory could be made: {e}"))
            })?;
        let mut child = self.command(workdir.path(), code).spawn().map_err(|e| {
            let program = match self.isolation.unshare_args() {
                Some(_) => OsString::from("unshare"),
                None => self.python.clone(),
            };
            ProviderError::Unavailable(format!("`{}` did not start: {e}", program.display()))
        })?;
        // Kills whatever the program left behind (its process group) when the run ends or its
        // future is dropped.
        let mut group = ProcessGroup::of(&child);
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(ProviderError::Io(
                "the program's output is not piped".to_owned(),
            ));
        };
        let mut out = Capture::default();
        let mut err = Capture::default();
        let limit = self.output_limit;
        let supervised = async {
            let waited = async {
                let status = child.wait().await;
                // The program is done: whatever it left running goes too (and with it any
                // handle on the output pipes that would keep the reads below waiting).
                group.kill();
                status
            };
            let (read_out, read_err, status) = tokio::join!(
                out.read_all(stdout, limit),
                err.read_all(stderr, limit),
                waited
            );
            read_out.and(read_err).and(status)
        };
        let (status, timed_out) = match tokio::time::timeout(self.time_limit, supervised).await {
            Ok(Ok(status)) => (status, false),
            Ok(Err(e)) => return Err(ProviderError::Io(e.to_string())),
            Err(_elapsed) => {
                // The group first, while the program (its leader) still holds its ID; waiting
                // after the kill reaps the program: no zombie is left.
                group.kill();
                let _ = child.start_kill();
                let status = child
                    .wait()
                    .await
                    .map_err(|e| ProviderError::Io(e.to_string()))?;
                (status, true)
            }
        };
        Ok(Execution {
            stdout: out.finish(limit),
            stderr: err.finish(limit),
            status: exit_status(status),
            timed_out,
            isolated: self.is_isolated(),
        })
    }
}

impl ExecutionProvider for LocalProvider {
    fn describe(&self) -> String {
        let python = self.python.display();
        match &self.isolation {
            Isolation::Namespaces => {
                format!("local {python} in a user, network and PID namespace (unshare -rn)")
            }
            Isolation::NetworkOnly => {
                format!("local {python} in a user and network namespace (unshare -rn)")
            }
            Isolation::None { reason } => format!("local {python} without isolation ({reason})"),
        }
    }

    fn enforces_network_policy(&self) -> bool {
        self.is_isolated()
    }

    fn run<'a>(
        &'a self,
        request: &'a ExecutionRequest,
    ) -> BoxFuture<'a, Result<Execution, ProviderError>> {
        Box::pin(async move {
            match request.language {
                Language::Python => self.run_python(&request.code).await,
            }
        })
    }
}

/// True when `program` (a path, or a bare name looked up in [`SANDBOX_PATH`]) is a file.
fn program_exists(program: &OsString) -> bool {
    let path = std::path::Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    std::env::split_paths(SANDBOX_PATH).any(|dir| dir.join(path).is_file())
}

/// What the probe finds: namespaces with a PID namespace, network only, or nothing and why.
fn probe_isolation() -> Isolation {
    if !cfg!(target_os = "linux") {
        return Isolation::None {
            reason: "user and network namespaces exist only on Linux".to_owned(),
        };
    }
    let full = probe_unshare("unshare", &["-rn", "--pid", "--fork", "--kill-child"]);
    if full.is_ok() {
        return Isolation::Namespaces;
    }
    match probe_unshare("unshare", &["-rn"]) {
        Ok(()) => Isolation::NetworkOnly,
        Err(reason) => Isolation::None { reason },
    }
}

/// Runs `UNSHARE ARGS -- true`; an error says why it failed.
fn probe_unshare(unshare: &str, args: &[&str]) -> Result<(), String> {
    let output = std::process::Command::new(unshare)
        .args(args)
        .args(["--", "true"])
        .env_clear()
        .env("PATH", SANDBOX_PATH)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("`{unshare}` could not be started: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        Err(if stderr.is_empty() {
            format!("`{unshare} {}` failed", args.join(" "))
        } else {
            format!("`{unshare} {}` failed: {stderr}", args.join(" "))
        })
    }
}

/// One output stream as it is read: the first `limit` bytes and the total count.
#[derive(Debug, Default)]
struct Capture {
    kept: Vec<u8>,
    total: u64,
}

impl Capture {
    /// Reads until the end, keeping the first `limit` bytes and counting the rest, so the
    /// program never blocks on a full pipe.
    async fn read_all(
        &mut self,
        mut stream: impl AsyncRead + Unpin,
        limit: usize,
    ) -> std::io::Result<()> {
        let mut buffer = [0u8; 8192];
        loop {
            let n = stream.read(&mut buffer).await?;
            if n == 0 {
                return Ok(());
            }
            self.total += n as u64;
            let room = limit.saturating_sub(self.kept.len());
            self.kept.extend_from_slice(&buffer[..n.min(room)]);
        }
    }

    fn finish(&self, limit: usize) -> CapturedOutput {
        CapturedOutput::capture(&self.kept, self.total, limit)
    }
}

fn exit_status(status: std::process::ExitStatus) -> ExitStatus {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    ExitStatus {
        code: status.code(),
        signal,
    }
}

/// The program's process group (the program was started as its leader): killed as a whole when
/// this is dropped, so nothing the program started outlives the run.
#[derive(Debug)]
struct ProcessGroup {
    id: Option<u32>,
}

impl ProcessGroup {
    fn of(child: &Child) -> Self {
        ProcessGroup { id: child.id() }
    }

    /// `kill -s KILL -- -PGID`, once: no process of the group may survive the run. Fails
    /// quietly when the group is already gone.
    fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self.id.take() {
            let _ = std::process::Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{id}")])
                .env_clear()
                .env("PATH", SANDBOX_PATH)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        #[cfg(not(unix))]
        let _ = self.id.take();
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_unshare_is_a_reason_not_a_panic() {
        let reason =
            probe_unshare("unshare-that-is-not-installed", &["-rn"]).expect_err("no such program");
        assert!(
            reason.starts_with("`unshare-that-is-not-installed` could not be started: "),
            "{reason}"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_failing_unshare_says_what_it_printed() {
        if !program_exists(&OsString::from("unshare")) {
            eprintln!("skipping: `unshare` is not installed here");
            return;
        }
        let reason =
            probe_unshare("unshare", &["--no-such-option"]).expect_err("an unknown option");
        assert!(
            reason.starts_with("`unshare --no-such-option` failed: "),
            "{reason}"
        );
    }

    #[test]
    fn an_unisolated_provider_says_why() {
        let provider = LocalProvider::unisolated();
        assert!(!provider.is_isolated());
        assert_eq!(
            provider.unavailable_reason(),
            Some("the provider was built without isolation")
        );
        assert_eq!(
            provider.describe(),
            "local python3 without isolation (the provider was built without isolation)"
        );
    }

    #[test]
    fn programs_are_looked_up_in_the_sandbox_path() {
        assert!(!program_exists(&OsString::from(
            "python-that-is-not-installed"
        )));
        assert!(!program_exists(&OsString::from("/no/such/python3")));
        if cfg!(unix) {
            assert!(program_exists(&OsString::from("sh")), "every Unix has `sh`");
            assert!(program_exists(&OsString::from("/bin/sh")));
        }
    }
}
