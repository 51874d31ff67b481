//! Newline-delimited JSON-RPC (stdio, or any reader and writer) for an [`McpServer`].
//!
//! Lines are read here, not by rmcp's stream transport, so that every line gets what a client
//! can match: a line that is not a client message is answered with the JSON-RPC error carrying
//! its `id` when one can be read ([`protocol::read_message`]), and the lifecycle gate
//! ([`protocol::Gate`]) keeps an early notification from ending the session and answers an early
//! request clearly. Messages go to rmcp already parsed, through a channel transport. A line
//! longer than the server's bound ([`McpServer::with_max_line_bytes`]) is discarded as it streams
//! in and answered with the invalid-request error, carrying the message's `id` when the line's
//! start gives it ([`protocol::leading_id`]: a client waiting on that id gets its answer); the
//! session goes on.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use crate::protocol::{self, Admit, Gate, INVALID_REQUEST, Read};
use crate::{McpError, McpServer};
use toolwright_runtime::lines::{Line, LineReader};

/// How many parsed messages wait for rmcp before reading pauses.
const QUEUE: usize = 64;

/// How much of an over-long line's start is searched for the message's `id`. Clients write
/// `id` before the parameters that make a line long, within its first few hundred bytes; an `id`
/// written after them is past any useful bound, and the answer's `id` is then `null`.
const ID_SEARCH_BYTES: usize = 64 * 1024;

/// The transport rmcp sees: parsed messages in, messages out as lines to the writer.
struct Lines {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
}

impl Transport<RoleServer> for Lines {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move {
            let line = line.map_err(io::Error::other)?;
            outgoing
                .send(line)
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the output is closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// Serves `server` over newline-delimited JSON-RPC on `input`/`output` until the client closes
/// the session or the input ends. Answers and rmcp's messages are written whole lines at a time,
/// never interleaved.
pub(super) async fn serve<C, R, W>(
    server: McpServer<C>,
    input: R,
    output: W,
) -> Result<(), McpError>
where
    C: Send + Sync + 'static,
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    use rmcp::ServerHandler as _;
    use tokio::io::AsyncWriteExt;

    let max_line_bytes = server.max_line_bytes;
    let (to_server, incoming) = mpsc::channel(QUEUE);
    let (lines, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
    let mut gate = Gate::new(server.supported_protocol_versions());
    let transport = Lines {
        incoming,
        outgoing: lines.clone(),
    };

    // When the session ends (the client said goodbye, or the handshake failed), input is no
    // longer read: the command ends with its session, not with its standard input.
    let (session_over, mut session_done) = tokio::sync::oneshot::channel::<()>();
    let serve = async move {
        let served = server.serve(transport).await;
        let _ = session_over.send(());
        served
    };
    let read = async move {
        let copy = async {
            let mut input = LineReader::new(input, max_line_bytes);
            while let Some(line) = input.next_line().await? {
                let line = match line {
                    Line::Complete(line) => line,
                    Line::TooLong => {
                        let id = input
                            .over_long_start()
                            .map_or(serde_json::Value::Null, |start| {
                                protocol::leading_id(&start[..start.len().min(ID_SEARCH_BYTES)])
                            });
                        let mut answer = too_long(max_line_bytes, id).to_string().into_bytes();
                        answer.push(b'\n');
                        let _ = lines.send(answer);
                        continue;
                    }
                };
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let answer = match protocol::read_message(&line) {
                    Read::Message(message) => match gate.admit(message) {
                        Admit::Pass(message) => {
                            if to_server.send(*message).await.is_err() {
                                break;
                            }
                            continue;
                        }
                        Admit::Answer(answer) => answer,
                        Admit::Drop => continue,
                    },
                    Read::Invalid { notification, .. } if notification => continue,
                    Read::Invalid { answer, .. } => answer,
                };
                let mut answer = answer.to_string().into_bytes();
                answer.push(b'\n');
                // The writer only stops once every sender is gone.
                let _ = lines.send(answer);
            }
            // End of input: rmcp sees the end of its stream and closes the session.
            Ok::<(), io::Error>(())
        };
        tokio::select! {
            copied = copy => copied,
            _ = &mut session_done => Ok(()),
        }
    };
    let write = async move {
        let mut output = output;
        while let Some(line) = outgoing.recv().await {
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<(), io::Error>(())
    };
    let (served, read, written) = tokio::join!(serve, read, write);
    served?;
    read?;
    written?;
    Ok(())
}

/// The answer to a line over the bound, with the `id` read from its start (or `null`).
fn too_long(max_line_bytes: usize, id: serde_json::Value) -> serde_json::Value {
    protocol::error_answer(
        id,
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the line is over {max_line_bytes} bytes, the most a message may have; it was discarded"
        ),
    )
}
