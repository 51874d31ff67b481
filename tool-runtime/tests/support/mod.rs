//! What more than one test file of the runtime (and the MCP server's) reads.

pub mod spans;
