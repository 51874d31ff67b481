//! A `chart-tools mcp --http` process on 127.0.0.1, with a token file, for the HTTP tests.

#![allow(dead_code)]

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// A `read` token.
pub const READ: &str = "reader-token-0123456789-abcdefghijklmnopqrstuvwxyz";
/// A `write` token.
pub const WRITE: &str = "writer-token-0123456789-abcdefghijklmnopqrstuvwxyz";
/// A second `write` token (its own rate-limit budget).
pub const WRITE_2: &str = "writer-2-token-0123456789-abcdefghijklmnopqrstuvwx";
/// A `write` token with `web_search` and `drawings_clear` disabled.
pub const NARROW: &str = "narrow-token-0123456789-abcdefghijklmnopqrstuvwxyz";
/// A token the file does not hold.
pub const UNKNOWN: &str = "unknown-token-0123456789-abcdefghijklmnopqrstuvwxy";

/// The token file every test server reads.
pub fn token_file() -> String {
    format!(
        r#"# The test tokens.
[[token]]
name = "reader"
token = "{READ}"
grant = "read"

[[token]]
name = "writer"
token = "{WRITE}"
grant = "write"

[[token]]
name = "writer-2"
token = "{WRITE_2}"
grant = "write"

[[token]]
name = "narrow"
token = "{NARROW}"
grant = "write"
disabled = ["web_search", "drawings_clear"]
"#
    )
}

/// Only keeps a broken server from hanging the test run.
const GIVE_UP: Duration = Duration::from_secs(60);

/// A running server; killed when dropped.
pub struct HttpServer {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl HttpServer {
    /// Starts `chart-tools mcp --http 127.0.0.1:0 --tokens FILE <args>` and waits for its address.
    pub fn start(args: &[&str]) -> HttpServer {
        Self::start_with(true, args)
    }

    /// As [`HttpServer::start`], without `--tokens` when `tokens` is false.
    pub fn start_with(tokens: bool, args: &[&str]) -> HttpServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("tokens.toml");
        std::fs::write(&path, token_file()).expect("the token file is written");
        let mut command = Command::new(env!("CARGO_BIN_EXE_chart-tools"));
        command.args(["mcp", "--http", "127.0.0.1:0"]);
        if tokens {
            command.arg("--tokens").arg(&path);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let url = match lines.recv_timeout(GIVE_UP) {
            Ok(line) => line
                .strip_prefix("listening on ")
                .unwrap_or_else(|| panic!("the first line names the address: {line}"))
                .to_owned(),
            Err(RecvTimeoutError::Timeout) => panic!("the server did not start"),
            Err(RecvTimeoutError::Disconnected) => {
                let status = child.wait().expect("the server ended");
                panic!("the server stopped before listening: {status}")
            }
        };
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        HttpServer {
            child,
            url,
            _dir: dir,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `chart-tools mcp <args>` expecting it to stop before serving; returns its status and
/// stderr.
pub fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
        .arg("mcp")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A temporary file holding `text`.
pub fn temp_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("tokens.toml");
    std::fs::write(&path, text).expect("the file is written");
    (dir, path)
}
