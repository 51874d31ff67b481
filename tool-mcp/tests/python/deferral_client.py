"""`toolwright-proxy --defer-upstream` driven by the official MCP Python SDK, as a host would.

Run by `tests/proxy_deferral.rs`, which pins the tools of `upstream_server.py` into a folder of
manifests and passes, in the environment: PROXY (the proxy's command line, a JSON list, without
its policy flags), WRITES (JSON: the names of the tools declared as writes), QUERIES (JSON: for
each pinned tool, a query made of its name and its description), TOKENS (a token file), READ_TOKEN
and WRITE_TOKEN. Prints one line per check and exits non-zero on the first failure.
"""

import json
import os
import subprocess
import sys

import anyio
from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

PROXY = json.loads(os.environ["PROXY"])
WRITES = set(json.loads(os.environ["WRITES"]))
QUERIES = json.loads(os.environ["QUERIES"])
TOKENS = os.environ["TOKENS"]
READ_TOKEN = os.environ["READ_TOKEN"]
WRITE_TOKEN = os.environ["WRITE_TOKEN"]

passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    passed += 1
    print(f"ok: {what}", flush=True)


class Told:
    """Counts the `notifications/tools/list_changed` a client receives."""

    def __init__(self):
        self.count = 0
        self.event = anyio.Event()

    async def __call__(self, message):
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1
            self.event.set()

    async def wait(self):
        with anyio.fail_after(20):
            await self.event.wait()
        self.event = anyio.Event()


def proxy(*flags, told=None):
    params = StdioServerParameters(command=PROXY[0], args=PROXY[1:] + list(flags))
    return Client(params, mode="legacy", message_handler=told)


def envelope(result):
    return result.structured_content or {}


async def listed(client):
    return (await client.list_tools(cache_mode="bypass")).tools


def names(tools):
    return [tool.name for tool in tools]


def dumped(tools):
    return [json.dumps(tool.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True) for tool in tools]


async def search(client, query):
    result = await client.call_tool("tool_search", {"query": query, "limit": 10})
    found = envelope(result)
    check(found.get("success") is True, f"search `{query[:40]}` answers")
    return [tool["name"] for tool in found["data"]["tools"]]


async def deferred_run():
    told = Told()
    async with proxy("--defer-upstream", told=told) as client:
        eager = await listed(client)
        check(names(eager) == ["tool_search"], f"every pinned tool is deferred: only the search is listed ({names(eager)})")
        check(eager[0].annotations.read_only_hint is True, "tool_search is read-only")
        found = await search(client, QUERIES["lookup"])
        check(found[:1] == ["lookup"], f"the search finds lookup first ({found})")
        await told.wait()
        check(told.count >= 1, "the client is told its list changed")
        after = await listed(client)
        check(dumped(after[:1]) == dumped(eager), "the eager part is unchanged, byte for byte")
        check(names(after[1:]) == found, f"the found tools are appended in the order found ({names(after)})")
        result = await client.call_tool("lookup", {"word": "pin", "limit": 1})
        check(envelope(result).get("success") is True, "a found tool runs upstream")


async def read_only_run():
    async with proxy("--defer-upstream", "--read-only") as client:
        for write in sorted(WRITES):
            found = await search(client, QUERIES[write])
            check(not (set(found) & WRITES), f"read-only: a search for `{write}` by its own words returns no write ({found})")
        check(not (set(names(await listed(client))) & WRITES), "read-only: no write is listed")
        result = await client.call_tool("note_write", {"text": "forged"})
        check(envelope(result).get("error", {}).get("code") == "TOOL_NOT_ALLOWED", "read-only: a forged write is refused")


async def defer_after_run():
    async with proxy("--defer-after", "1") as client:
        check(names(await listed(client)) == ["lookup", "tool_search"], "--defer-after 1: the first tool stays eager")


async def http_run():
    process = subprocess.Popen(
        PROXY + ["--defer-upstream", "--http", "127.0.0.1:0", "--tokens", TOKENS],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        for line in process.stderr:
            if line.startswith("listening on "):
                url = line.split("listening on ", 1)[1].strip()
                break
        check(url is not None and url.startswith("http://127.0.0.1:"), "http: the proxy listens on loopback")

        def client(token, told=None):
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            return Client(streamable_http_client(url, http_client=http), mode="legacy", message_handler=told)

        async with client(READ_TOKEN) as read:
            found = await search(read, QUERIES["note_write"])
            check(not (set(found) & WRITES), f"http: a read token's search returns no write ({found})")
            result = await read.call_tool("note_write", {"text": "forged"})
            check(envelope(result).get("error", {}).get("code") == "TOOL_NOT_ALLOWED", "http: a read token's write is refused")
        told = Told()
        async with client(WRITE_TOKEN, told) as write:
            eager = await listed(write)
            found = await search(write, QUERIES["note_write"])
            check(found[:1] == ["note_write"], f"http: a write token finds the write ({found})")
            await told.wait()
            after = await listed(write)
            check(dumped(after[: len(eager)]) == dumped(eager), "http: the eager part is unchanged")
            check(names(after[len(eager):]) == found, "http: the found tools are appended")
    finally:
        process.terminate()
        process.wait(timeout=10)


async def main():
    with anyio.fail_after(120):
        await deferred_run()
        await read_only_run()
        await defer_after_run()
        await http_run()
    print(f"passed {passed} checks", flush=True)


anyio.run(main)
