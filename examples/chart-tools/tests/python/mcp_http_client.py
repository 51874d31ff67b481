"""`chart-tools mcp --http` driven by the official MCP Python SDK, as a remote MCP host would.

Run by `tests/mcp_http_python.rs`, which starts the servers and passes, in the environment:
MCP_URL (tokens from tests/http_server), MCP_LIMITED_URL (the same tokens, a rate limit of 1
request a second in bursts of 5, and a body limit of 2048 bytes), the tokens, and the tool
names each grant must see (JSON lists). Prints one line per check and exits non-zero on the
first failure.
"""

import json
import os
import sys

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL = os.environ["MCP_URL"]
LIMITED_URL = os.environ["MCP_LIMITED_URL"]
READ = os.environ["MCP_READ_TOKEN"]
WRITE = os.environ["MCP_WRITE_TOKEN"]
WRITE_2 = os.environ["MCP_WRITE_2_TOKEN"]
UNKNOWN = os.environ["MCP_UNKNOWN_TOKEN"]
READ_NAMES = json.loads(os.environ["MCP_READ_NAMES"])
WRITE_NAMES = json.loads(os.environ["MCP_WRITE_NAMES"])
MODES = ["legacy", "2026-07-28"]

HORIZONTAL_LINE = {
    "pane_id": "main",
    "kind": "horizontal_line",
    "anchors": [{"time": 1751241600, "price": 1.0}],
}

passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    passed += 1
    print(f"ok: {what}", flush=True)


def client(url, token, mode):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


async def names(session):
    # Past the client's cache: every listing is asked of the server.
    listed = await session.list_tools(cache_mode="bypass")
    return sorted(tool.name for tool in listed.tools), listed


async def drawings(url):
    """How many drawings the chart holds, asked with the read token in one request."""
    response = await raw_call(url, READ, {}, name="drawings_list")
    check(response.status_code == 200, "drawings_list answers")
    return len(response.json()["result"]["structuredContent"]["data"]["drawings"])


async def raw_call(url, token, arguments, origin=None, name="drawing_create"):
    """A stateless (2026-07-28) tools/call as one raw POST."""
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if origin is not None:
        headers["origin"] = origin
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    async with httpx2.AsyncClient() as http:
        return await http.post(url, headers=headers, content=json.dumps(body))


async def grants():
    before = await drawings(URL)
    for mode in MODES:
        async with client(URL, READ, mode) as session:
            listed, result = await names(session)
            check(listed == READ_NAMES, f"{mode}: a read token lists only the read tools")
            if mode != "legacy":
                check(result.cache_scope == "private", f"{mode}: the list is private to the grant")
            refused = await session.call_tool("drawing_create", HORIZONTAL_LINE)
            check(
                refused.is_error and refused.structured_content["error"]["code"] == "TOOL_NOT_ALLOWED",
                f"{mode}: a forged write with a read token is TOOL_NOT_ALLOWED",
            )
    check(await drawings(URL) == before, "the forged writes drew nothing")
    for mode in MODES:
        async with client(URL, WRITE, mode) as session:
            listed, _ = await names(session)
            check(listed == WRITE_NAMES, f"{mode}: a write token lists every tool")
            drawn = await session.call_tool("drawing_create", HORIZONTAL_LINE)
            check(not drawn.is_error and drawn.structured_content["success"], f"{mode}: a write token writes")
    check(await drawings(URL) == before + 2, "both writes drew")


async def refusals():
    before = await drawings(LIMITED_URL)
    control = await raw_call(LIMITED_URL, WRITE, HORIZONTAL_LINE)
    check(control.status_code == 200, "the control call with the write token runs")
    check(await drawings(LIMITED_URL) == before + 1, "the control call drew")

    missing = await raw_call(LIMITED_URL, None, HORIZONTAL_LINE)
    check(missing.status_code == 401, "no token: 401")
    check(missing.headers.get("www-authenticate") == "Bearer", "no token: WWW-Authenticate: Bearer")
    wrong = await raw_call(LIMITED_URL, UNKNOWN, HORIZONTAL_LINE)
    check(wrong.status_code == 401, "a wrong token: 401")
    check(
        wrong.headers.get("www-authenticate", "").startswith("Bearer"),
        "a wrong token: WWW-Authenticate: Bearer",
    )
    foreign = await raw_call(LIMITED_URL, WRITE, HORIZONTAL_LINE, origin="https://evil.example")
    check(foreign.status_code == 403, "a foreign Origin: 403")
    huge = dict(HORIZONTAL_LINE, text="x" * 4096)
    oversized = await raw_call(LIMITED_URL, WRITE, huge)
    check(oversized.status_code == 413, "an oversized body: 413")
    check(await drawings(LIMITED_URL) == before + 1, "no refused request drew")

    served, limited = 0, 0
    for _ in range(12):
        response = await raw_call(LIMITED_URL, WRITE_2, HORIZONTAL_LINE)
        if response.status_code == 200:
            served += 1
        elif response.status_code == 429:
            limited += 1
            check(int(response.headers["retry-after"]) >= 1, "429 says when to retry")
        else:
            check(False, f"a burst gets 200 or 429, not {response.status_code}")
    check(served >= 5 and limited >= 1, f"a burst past the limit: {served} served, {limited} limited")
    check(await drawings(LIMITED_URL) == before + 1 + served, "only the served calls of the burst drew")


async def mixed():
    before = await drawings(URL)
    outcomes = []

    async def one(index):
        token, expected = (READ, READ_NAMES) if index % 2 == 0 else (WRITE, WRITE_NAMES)
        mode = MODES[(index // 2) % 2]
        async with client(URL, token, mode) as session:
            for _ in range(3):
                listed, _ = await names(session)
                if listed != expected:
                    outcomes.append(f"client {index} ({mode}) listed {listed}")
                    return
                answer = await session.call_tool("drawing_create", HORIZONTAL_LINE)
                wanted = "TOOL_NOT_ALLOWED" if token == READ else None
                got = None if not answer.is_error else answer.structured_content["error"]["code"]
                if got != wanted:
                    outcomes.append(f"client {index} ({mode}) got {got}")
                    return
                outcomes.append("ok")

    async with anyio.create_task_group() as group:
        for index in range(12):
            group.start_soon(one, index)
    check(all(o == "ok" for o in outcomes) and len(outcomes) == 36, f"12 clients, mixed grants: {outcomes[:3]}")
    check(await drawings(URL) == before + 18, "exactly the write clients drew")


async def main():
    with anyio.fail_after(120):
        await grants()
        await refusals()
        await mixed()
    print(f"{passed} passed, 0 failed", flush=True)


anyio.run(main)
