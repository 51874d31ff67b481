"""`toolwright-proxy` over real MCP servers, driven by the official MCP Python SDK as a host would.

Run by `tests/proxy_python.rs`, which pins the tools of the reference servers into one folder of
manifests (declaring each tool's safety), and passes, in the environment: PROXY (the proxy's
command line, a JSON list, without its policy flags), EXPECTED (JSON: each pinned tool's name with
the `readOnlyHint` and `destructiveHint` its manifest declares), FS_ROOT (the folder the filesystem
server may write in), GIT_REPO (a git repository for the git server). Prints one line per check and
exits non-zero on the first failure. Over HTTP: TOKENS (a token file), READ_TOKEN and
WRITE_TOKEN (the second disables `git_commit`).
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
EXPECTED = json.loads(os.environ["EXPECTED"])
FS_ROOT = os.environ["FS_ROOT"]
GIT_REPO = os.environ["GIT_REPO"]
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


def proxy(*flags, mode="legacy", elicitation_callback=None):
    params = StdioServerParameters(command=PROXY[0], args=PROXY[1:] + list(flags))
    return Client(params, mode=mode, elicitation_callback=elicitation_callback)


def envelope(result):
    return result.structured_content or {}


def error_code(result):
    return envelope(result).get("error", {}).get("code")


async def listed(client):
    tools = (await client.list_tools(cache_mode="bypass")).tools
    return {tool.name: tool for tool in tools}


async def full_run():
    async with proxy() as client:
        tools = await listed(client)
        check(sorted(tools) == sorted(EXPECTED), f"the proxy lists exactly the pinned tools ({len(EXPECTED)})")
        for name, hints in EXPECTED.items():
            annotations = tools[name].annotations
            check(
                annotations is not None
                and annotations.read_only_hint == hints["readOnlyHint"]
                and annotations.destructive_hint == hints["destructiveHint"],
                f"{name}: the annotations are the manifest's ({hints})",
            )

        result = await client.call_tool("get_current_time", {"timezone": "UTC"})
        check(envelope(result).get("success") is True, "time: get_current_time runs upstream")
        check("UTC" in json.dumps(envelope(result)["data"]), "time: the answer is the server's")

        result = await client.call_tool("echo", {"message": "through the proxy"})
        check(envelope(result).get("success") is True, "everything: echo runs upstream")
        check("through the proxy" in json.dumps(envelope(result)["data"]), "everything: echo's answer")

        result = await client.call_tool("echo", {"message": 5})
        check(error_code(result) == "TOOL_INPUT_INVALID", "everything: an invalid echo is refused by the proxy")

        result = await client.call_tool("git_status", {"repo_path": GIT_REPO})
        check(envelope(result).get("success") is True, "git: git_status runs upstream")

        target = os.path.join(FS_ROOT, "invalid.txt")
        result = await client.call_tool("write_file", {"path": target})
        check(error_code(result) == "TOOL_INPUT_INVALID", "filesystem: write_file without content is refused")
        check(not os.path.exists(target), "filesystem: the invalid call never reached the server")

        target = os.path.join(FS_ROOT, "allowed.txt")
        result = await client.call_tool("write_file", {"path": target, "content": "written"})
        check(envelope(result).get("success") is True, "filesystem: a valid write runs upstream")
        check(envelope(result).get("stateChanged") is True, "filesystem: a destructive tool's call says the state changed")
        with open(target) as f:
            check(f.read() == "written", "filesystem: the file holds what was written")

        result = await client.call_tool("read_text_file", {"path": os.path.join(FS_ROOT, "missing.txt")})
        check(error_code(result) == "TOOL_FAILED", "filesystem: the server's error is the envelope's TOOL_FAILED")


async def read_only_run():
    target = os.path.join(FS_ROOT, "read-only.txt")
    async with proxy("--read-only") as client:
        tools = await listed(client)
        writes = [name for name, hints in EXPECTED.items() if not hints["readOnlyHint"]]
        check(all(name not in tools for name in writes), "read-only: no write tool is listed")
        check("read_text_file" in tools, "read-only: the read tools are listed")
        result = await client.call_tool("write_file", {"path": target, "content": "no"})
        check(error_code(result) == "TOOL_NOT_ALLOWED", "read-only: write_file is refused")
        check(not os.path.exists(target), "read-only: the write never reached the server")


async def deferred_run():
    asked = []

    async def approve(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async def decline(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    target = os.path.join(FS_ROOT, "approved.txt")
    async with proxy("--approval", "defer", mode="2026-07-28", elicitation_callback=approve) as client:
        result = await client.call_tool("write_file", {"path": target, "content": "approved"})
        check(len(asked) == 1 and "write_file" in asked[0], "approval: the person was asked about write_file")
        check(envelope(result).get("success") is True, "approval: the approved write ran")
        with open(target) as f:
            check(f.read() == "approved", "approval: the file holds the approved content")
        result = await client.call_tool("read_text_file", {"path": target})
        check(len(asked) == 1, "approval: a read is not asked about")

    target = os.path.join(FS_ROOT, "declined.txt")
    async with proxy("--approval", "defer", mode="2026-07-28", elicitation_callback=decline) as client:
        result = await client.call_tool("write_file", {"path": target, "content": "declined"})
        check(error_code(result) == "TOOL_NOT_ALLOWED", "approval: a declined write is refused")
        check(not os.path.exists(target), "approval: the declined write never reached the server")

    async with proxy("--approval", "defer") as client:
        target = os.path.join(FS_ROOT, "legacy.txt")
        result = await client.call_tool("write_file", {"path": target, "content": "x"})
        check(error_code(result) == "TOOL_NOT_ALLOWED", "approval: a client that cannot be asked is refused")
        check(not os.path.exists(target), "approval: and nothing was written")


async def http_run():
    """The proxy over Streamable HTTP: each token's grant picks its policy."""
    process = subprocess.Popen(
        PROXY + ["--http", "127.0.0.1:0", "--tokens", TOKENS],
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

        def client(token):
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            return Client(streamable_http_client(url, http_client=http), mode="legacy")

        target = os.path.join(FS_ROOT, "over-http.txt")
        async with client(READ_TOKEN) as read:
            tools = await listed(read)
            check("write_file" not in tools and "read_text_file" in tools, "http: a read token sees only the read tools")
            result = await read.call_tool("write_file", {"path": target, "content": "no"})
            check(error_code(result) == "TOOL_NOT_ALLOWED", "http: a read token's write is refused")
            check(not os.path.exists(target), "http: and never reached the server")
        async with client(WRITE_TOKEN) as write:
            tools = await listed(write)
            check("write_file" in tools and "git_commit" not in tools, "http: a write token sees the writes but the ones it has disabled")
            result = await write.call_tool("write_file", {"path": target, "content": "yes"})
            check(envelope(result).get("success") is True, "http: a write token's write runs upstream")
            result = await write.call_tool("git_commit", {"repo_path": GIT_REPO, "message": "no"})
            check(error_code(result) == "TOOL_NOT_ALLOWED", "http: a tool the token disables is refused")
    finally:
        process.terminate()
        process.wait(timeout=10)


async def main():
    with anyio.fail_after(240):
        await full_run()
        await read_only_run()
        await deferred_run()
        await http_run()
    print(f"passed {passed} checks", flush=True)


anyio.run(main)
