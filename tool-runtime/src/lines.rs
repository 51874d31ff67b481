//! Newline-delimited input with a bound on the length of a line (feature `lines`; the MCP
//! server of `toolwright-mcp` reads its stdio with it).
//!
//! A front end that reads one message per line (the MCP stdio server, a JSON Lines host) must
//! not buffer a line of any length: [`LineReader`] keeps at most the bound (and one read's worth
//! more) of a line, discards the rest of an over-long line as it streams in, reports it as
//! [`Line::TooLong`] so that the front end can answer it (the start of the line, as far as it
//! was held, stays readable until the next line: [`LineReader::over_long_start`]), and goes on
//! with the next line. The framing is tokio-util's [`AnyDelimiterCodec`], which does exactly that.
//!
//! ```
//! use toolwright_runtime::lines::{Line, LineReader};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let input: &[u8] = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxxxxxx\nlast";
//! let mut lines = LineReader::new(input, 16);
//! assert!(matches!(lines.next_line().await?, Some(Line::Complete(line)) if line == b"{\"a\":1}"[..]));
//! assert!(matches!(lines.next_line().await?, Some(Line::TooLong)));
//! assert!(matches!(lines.next_line().await?, Some(Line::Complete(line)) if line == b"last"[..]));
//! assert!(lines.next_line().await?.is_none());
//! # Ok(())
//! # }
//! ```

use std::io;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, Decoder as _};

/// The default bound on a line: 4 MiB, room for a message of several calls whose arguments
/// each reach [`Limits::max_argument_bytes`](crate::limits::Limits::max_argument_bytes) (1 MiB), and
/// under rmcp's own 16 MiB limit on a message.
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 << 20;

/// How much is read at once.
const READ_SIZE: usize = 16 * 1024;

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line within the bound, without its `\n` (a `\r` before it is kept).
    Complete(Bytes),
    /// A line longer than the bound: it was discarded, up to and including its `\n`.
    TooLong,
}

/// Reads lines of at most a given length from `R`. See the [module documentation](self).
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    buffer: BytesMut,
    codec: AnyDelimiterCodec,
    max_line_bytes: usize,
    eof: bool,
    /// True right after a [`Line::TooLong`]: the buffer then starts with that line.
    over_long: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Reads `input` in lines of at most `max_line_bytes` bytes (the `\n` not counted).
    pub fn new(input: R, max_line_bytes: usize) -> Self {
        LineReader {
            input,
            buffer: BytesMut::with_capacity(READ_SIZE),
            codec: AnyDelimiterCodec::new_with_max_length(
                b"\n".to_vec(),
                Vec::new(),
                max_line_bytes,
            ),
            max_line_bytes,
            eof: false,
            over_long: false,
        }
    }

    /// The bound on a line, in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// The start of the line [`next_line`](Self::next_line) just answered [`Line::TooLong`]:
    /// the bytes of it that were held (the bound's worth), for a front end to read what it needs
    /// to answer the line (a message's `id`). `None` after any other answer. The next call to
    /// `next_line` discards them with the rest of the line.
    pub fn over_long_start(&self) -> Option<&[u8]> {
        self.over_long
            .then(|| &self.buffer[..self.buffer.len().min(self.max_line_bytes)])
    }

    /// The next line; `None` at the end of the input (a last line without `\n` is a line).
    ///
    /// # Errors
    /// When the input cannot be read.
    pub async fn next_line(&mut self) -> io::Result<Option<Line>> {
        self.over_long = false;
        loop {
            let decoded = if self.eof {
                self.codec.decode_eof(&mut self.buffer)
            } else {
                self.codec.decode(&mut self.buffer)
            };
            match decoded {
                Ok(Some(line)) => return Ok(Some(Line::Complete(line))),
                Ok(None) if self.eof => return Ok(None),
                Ok(None) => {}
                Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => {
                    // The codec starts discarding at the next call: until then the buffer
                    // starts with the line, past the bound.
                    self.over_long = true;
                    return Ok(Some(Line::TooLong));
                }
                Err(AnyDelimiterCodecError::Io(error)) => return Err(error),
            }
            self.buffer.reserve(READ_SIZE);
            if self.input.read_buf(&mut self.buffer).await? == 0 {
                self.eof = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = LineReader::new(input, max);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().await.expect("reads") {
            lines.push(line);
        }
        lines
    }

    fn complete(text: &str) -> Line {
        Line::Complete(Bytes::copy_from_slice(text.as_bytes()))
    }

    #[tokio::test]
    async fn over_long_lines_are_discarded_and_reading_goes_on() {
        let long = "x".repeat(100);
        let input = format!("12345678\n123456789\n{long}\nok\r\n\n{long}");
        assert_eq!(
            all(input.as_bytes(), 8).await,
            [
                complete("12345678"),
                Line::TooLong,
                Line::TooLong,
                complete("ok\r"),
                complete(""),
                Line::TooLong,
            ]
        );
        assert_eq!(all(b"", 8).await, []);
        assert_eq!(all(b"a\nb", 8).await, [complete("a"), complete("b")]);
    }

    #[tokio::test]
    async fn the_start_of_an_over_long_line_is_readable_until_the_next_line() {
        let input = format!("short\n{}\n{}\nlast", "a".repeat(40), "b".repeat(9));
        let mut reader = LineReader::new(input.as_bytes(), 8);
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(complete("short"))
        );
        assert_eq!(reader.over_long_start(), None);
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(Line::TooLong)
        );
        assert_eq!(reader.over_long_start(), Some(&b"aaaaaaaa"[..]));
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(Line::TooLong)
        );
        assert_eq!(reader.over_long_start(), Some(&b"bbbbbbbb"[..]));
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(complete("last"))
        );
        assert_eq!(reader.over_long_start(), None);
    }

    #[tokio::test]
    async fn a_huge_line_is_never_held_whole() {
        let huge = vec![b'y'; 8 << 20];
        let mut input = huge.clone();
        input.extend_from_slice(b"\nafter\n");
        let mut reader = LineReader::new(&input[..], 1024);
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(Line::TooLong)
        );
        assert_eq!(
            reader.next_line().await.expect("reads"),
            Some(complete("after"))
        );
        // The 8 MiB went through a buffer of a few reads.
        assert!(
            reader.buffer.capacity() < 256 * 1024,
            "the buffer grew to {} bytes",
            reader.buffer.capacity()
        );
    }
}
