"""A small upstream MCP server, spoken to over stdio, for the tests of the tool proxy.

The proxy pins the definitions of third-party tools and refuses a tool whose definition
has drifted since it was pinned. This server plays the third party: the tests write the
tools it lists to a file, change that file between two connections or in the middle of
a session, and read a log to see which calls reached the upstream.

Run it as `python3 upstream_server.py`; it serves one client on stdin and stdout and
stops when stdin closes, abandoning any call still in progress.

Environment:

- `UPSTREAM_TOOLS` (required): the path of a JSON file holding a JSON array of MCP Tool
  objects. `tools/list` reads the file again on every request and lists the tools
  exactly as written there, every key and value kept (titles, annotations, `_meta`,
  keys the protocol does not know, `null` values), in the file's order, on one page.
  The objects are not checked against the MCP schema. A missing file, or one that does
  not hold a JSON array of objects, makes `tools/list` fail with a JSON-RPC error.
- `UPSTREAM_LOG` (required): the path of a file to which every `tools/call` received is
  appended, before it is answered, as one JSON line `{"name": ..., "arguments": {...}}`
  (arguments `{}` when the call carried none). Each line is flushed at once.
- `UPSTREAM_POLL_MS` (optional, default 100): how often, in milliseconds, the tools file
  is read to see whether it changed.
- `UPSTREAM_SILENT` (optional): when `1`, changes are never announced, as a server that
  changes its tools behind its clients' backs would do.

The server declares the tools capability with `listChanged: true`. Once the client has
finished the handshake, whenever the bytes of the tools file change (or the file appears
or disappears) the server sends `notifications/tools/list_changed`; the next `tools/list`
shows the new tools. Changes made before the handshake are not announced: the client's
first listing reads the file as it then is.

`tools/call` answers according to the tool's name. A name that is not in the tools file
is refused with a JSON-RPC error, code -32602 (invalid params), message
`Unknown tool: <name>`, after the call has been logged. For a listed tool:

- `fail`: a result with `isError: true` and one text content, `upstream failure`.
- `crash`: the process exits at once with status 3, without answering.
- `slow`: sleeps `arguments["seconds"]` seconds (a number, 0 when absent), then answers
  as any other tool does.
- any other name: one text content holding the compact JSON text of
  `{"tool": <name>, "arguments": <arguments>}`, and, when the listed tool has an
  `outputSchema`, the same object as `structuredContent`. The arguments are not checked
  against the tool's input schema.
"""

import contextvars
import json
import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

TOOLS_PATH = os.environ["UPSTREAM_TOOLS"]
LOG_PATH = os.environ["UPSTREAM_LOG"]
POLL_SECONDS = int(os.environ.get("UPSTREAM_POLL_MS", "100")) / 1000
SILENT = os.environ.get("UPSTREAM_SILENT") == "1"

# The tools of the listing being answered, as read from the file, for the middleware
# that puts them on the wire unchanged.
listed_tools: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("listed_tools", default=None)

# The session of the connected client, known once the handshake is over; the file
# watcher sends its notifications through it.
client_session: ServerSession | None = None


def read_file_bytes() -> bytes | None:
    """The bytes of the tools file, or None when it cannot be read."""
    try:
        with open(TOOLS_PATH, "rb") as file:
            return file.read()
    except OSError:
        return None


def read_tools() -> list[Any]:
    """The tools file's array, as written."""
    try:
        with open(TOOLS_PATH, encoding="utf-8") as file:
            tools = json.load(file)
    except (OSError, ValueError) as error:
        raise MCPError(code=types.INTERNAL_ERROR, message=f"cannot read the tools file: {error}") from None
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise MCPError(code=types.INTERNAL_ERROR, message="the tools file does not hold an array of objects")
    return tools


def log_call(name: str, arguments: dict[str, Any]) -> None:
    with open(LOG_PATH, "a", encoding="utf-8") as log:
        log.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
        log.flush()


async def list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    listed_tools.set(read_tools())
    # The middleware below puts the file's objects in place of this empty list: the
    # SDK's models would drop the keys they do not know and refuse what they reject.
    return types.ListToolsResult(tools=[])


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    name = params.name
    arguments = params.arguments or {}
    log_call(name, arguments)

    tool = next((tool for tool in read_tools() if tool.get("name") == name), None)
    if tool is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")

    if name == "fail":
        return types.CallToolResult(content=[types.TextContent(type="text", text="upstream failure")], is_error=True)
    if name == "crash":
        os._exit(3)
    if name == "slow":
        await anyio.sleep(float(arguments.get("seconds", 0)))

    echo = {"tool": name, "arguments": arguments}
    text = types.TextContent(type="text", text=json.dumps(echo, separators=(",", ":")))
    if "outputSchema" in tool:
        return types.CallToolResult(content=[text], structured_content=echo)
    return types.CallToolResult(content=[text])


async def verbatim_tools(ctx, call_next):
    """Put the tools file's objects on the wire as `tools/list`'s tools, and note the
    client's session once the handshake is over."""
    global client_session
    token = listed_tools.set(None)
    try:
        result = await call_next(ctx)
        if ctx.method == "tools/list" and isinstance(result, dict):
            tools = listed_tools.get()
            if tools is not None:
                result["tools"] = tools
    finally:
        listed_tools.reset(token)
    if client_session is None and (ctx.method == "notifications/initialized" or ctx.method.startswith("tools/")):
        client_session = ctx.session
    return result


async def watch_tools_file() -> None:
    """Announce every change of the tools file to the client."""
    seen = read_file_bytes()
    while True:
        await anyio.sleep(POLL_SECONDS)
        current = read_file_bytes()
        if current == seen:
            continue
        seen = current
        if client_session is not None and not SILENT:
            await client_session.send_tool_list_changed()


server = Server("upstream", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
server.middleware.append(verbatim_tools)


async def main() -> None:
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch_tools_file)
            await server.run(read_stream, write_stream, options)
            tasks.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
