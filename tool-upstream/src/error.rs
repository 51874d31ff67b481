//! What can go wrong with an upstream server.

/// Why an upstream operation failed. Each variant names the endpoint as [`crate::describe`]
/// gives it, and its texts have the endpoint's secret values (environment, headers, URL
/// credentials) replaced by `[REDACTED]`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UpstreamError {
    /// The command could not be started (no such program, not executable, …).
    #[error("cannot start the upstream server `{command}`: {source}")]
    Spawn {
        /// The program that was to be started.
        program: String,
        /// The whole command line, as [`crate::describe`] gives it.
        command: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The endpoint is invalid, cannot be reached, or did not complete the MCP handshake (a child
    /// that exits at once, an HTTP error, no answer in time, …).
    #[error("cannot connect to the upstream server {endpoint}: {why}")]
    Connect {
        /// Where the server is.
        endpoint: String,
        /// What went wrong, with the last lines the child wrote to stderr when there are any.
        why: String,
    },
    /// The connection is closed: the child exited, the HTTP session ended, or
    /// [`crate::Upstream::close`] was called.
    #[error("the connection to the upstream server {endpoint} is closed: {why}")]
    Closed {
        /// Where the server is.
        endpoint: String,
        /// What is known of the reason, with the child's last stderr lines when there are any.
        why: String,
    },
    /// The server answered `tools/call` with a JSON-RPC error (`-32602` for an unknown tool or
    /// invalid arguments, typically). A tool that ran and failed is not this error: it is a
    /// result with `isError: true`.
    #[error("the upstream server {endpoint} refused the call of `{tool}` ({code}): {why}")]
    Call {
        /// Where the server is.
        endpoint: String,
        /// The tool that was called.
        tool: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The error's message, with its `data` when it has some.
        why: String,
    },
    /// The server answered `tools/list` with a JSON-RPC error.
    #[error("the upstream server {endpoint} refused to list its tools ({code}): {why}")]
    List {
        /// Where the server is.
        endpoint: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The error's message, with its `data` when it has some.
        why: String,
    },
    /// A request could not be sent or its answer not received, while the connection may still
    /// be open (an HTTP error status, a refused connection, a timeout).
    #[error("the request to the upstream server {endpoint} failed: {why}")]
    Transport {
        /// Where the server is.
        endpoint: String,
        /// What the transport said.
        why: String,
    },
    /// The server answered with something this client does not handle (a result of the wrong
    /// type, a request for more input, a task).
    #[error("unexpected answer from the upstream server {endpoint}: {why}")]
    Protocol {
        /// Where the server is.
        endpoint: String,
        /// What was unexpected.
        why: String,
    },
}
