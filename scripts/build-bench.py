#!/usr/bin/env python3
"""Build-time cost of `#[tool]`: 100 tools written with the attribute vs. a hand-written twin.

Generates, in a temporary directory, two crates with the same 100 tools (same input and output
types, same functions): `with_macro` declares them with `#[tool]` and registers them with
`tool_def!`; `by_hand` writes each tool's frozen metadata, schema function and adapter by hand
with the public `tool_runtime` API. The dependencies are built once; then each crate is built
cold (`cargo build`, a fresh copy of the dependency-only target directory) and the wall-clock
times are compared. Nothing is asserted: the script reports.

Usage: scripts/build-bench.py [--tools N] [--runs R] [--keep]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMON = """
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[allow(unused_imports)]
use tool_runtime::{ToolDef, ToolError};

#[derive(Debug, Default)]
pub struct Chart {
    pub panes: Vec<String>,
}

#[derive(Serialize)]
pub struct Reply {
    pub pane: String,
    pub count: usize,
}
"""


def tool_types(i):
    return f"""
/// The arguments of tool {i}.
#[derive(Deserialize, JsonSchema)]
pub struct Args{i} {{
    /// The pane.
    pub pane_id: String,
    pub limit: Option<u32>,
}}
"""


def tool_body(i):
    return f"""(chart: &Chart, input: Args{i}) -> Result<Reply, ToolError> {{
    let count = chart.panes.len().min(input.limit.unwrap_or(10) as usize) + {i};
    Ok(Reply {{ pane: input.pane_id, count }})
}}
"""


def with_macro(n):
    out = [COMMON, "use tool_runtime::{tool, tool_def};\n"]
    for i in range(n):
        out.append(tool_types(i))
        out.append(f'/// Tool number {i}.\n#[tool(safety = "read-only", mode = "parallel")]\n')
        out.append(f"pub fn tool_{i}" + tool_body(i))
    out.append("\npub fn tools() -> Vec<ToolDef<Chart>> {\n    vec![\n")
    out.extend(f"        tool_def!(tool_{i}),\n" for i in range(n))
    out.append("    ]\n}\n")
    return "".join(out)


def by_hand(n):
    out = [
        COMMON,
        """
use serde_json::Value;
use tool_runtime::{
    BoxFuture, CallResult, Handler, IntoToolOutput, Mode, Safety, StaticSchema, ToolMeta,
};

fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>();
    schema.remove("$schema");
    schema.to_value()
}
""",
    ]
    for i in range(n):
        out.append(tool_types(i))
        out.append(f"/// Tool number {i}.\npub fn tool_{i}" + tool_body(i))
        out.append(
            f"""
static META_{i}: ToolMeta = ToolMeta {{
    name: "tool_{i}",
    title: "Tool {i}",
    description: "Tool number {i}.",
    safety: Safety::ReadOnly,
    mode: Mode::Parallel,
    category: None,
    input_schema: StaticSchema::Derived(schema_of::<Args{i}>),
    output_schema: None,
    errors: &[],
    examples: &[],
    source: concat!(module_path!(), "::tool_{i}"),
}};

fn adapter_{i}<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {{
    let result = Args{i}::deserialize(args)
        .map_err(|e| ToolError::Input(e.to_string()))
        .and_then(|input| tool_{i}(chart, input))
        .and_then(|output| output.into_tool_output(META_{i}.safety));
    Box::pin(std::future::ready(result))
}}
"""
        )
    out.append("\npub fn tools() -> Vec<ToolDef<Chart>> {\n    vec![\n")
    out.extend(
        f"        ToolDef {{ meta: &META_{i}, handler: Handler::Shared(adapter_{i}) }},\n"
        for i in range(n)
    )
    out.append("    ]\n}\n")
    return "".join(out)


def manifest(name, root):
    runtime = os.path.join(root, "tool-runtime")
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tool-runtime = {{ path = "{runtime}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def cargo(args, cwd, target):
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    start = time.monotonic()
    subprocess.run(["cargo", *args], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated workspace")
    options = parser.parse_args()

    work = tempfile.mkdtemp(prefix="tool-build-bench-")
    try:
        write(os.path.join(work, "Cargo.toml"),
              '[workspace]\nresolver = "3"\nmembers = ["deps_only", "with_macro", "by_hand"]\n')
        lock = os.path.join(ROOT, "Cargo.lock")
        if os.path.exists(lock):
            shutil.copy(lock, os.path.join(work, "Cargo.lock"))
        write(os.path.join(work, "deps_only", "Cargo.toml"), manifest("deps_only", ROOT))
        write(os.path.join(work, "deps_only", "src", "lib.rs"), "pub use tool_runtime;\n")
        for name, source in (("with_macro", with_macro(options.tools)),
                             ("by_hand", by_hand(options.tools))):
            write(os.path.join(work, name, "Cargo.toml"), manifest(name, ROOT))
            write(os.path.join(work, name, "src", "lib.rs"), source)

        deps = os.path.join(work, "target-deps")
        print(f"building the dependencies once ({work})", file=sys.stderr)
        cargo(["build", "--offline", "-p", "deps_only"], work, deps)

        times = {"with_macro": [], "by_hand": []}
        for run in range(options.runs):
            for name in times:
                target = os.path.join(work, f"target-{name}-{run}")
                shutil.copytree(deps, target, symlinks=True)
                times[name].append(cargo(["build", "--offline", "-p", name], work, target))
                shutil.rmtree(target)
                print(f"run {run + 1}: {name} {times[name][-1]:.2f}s", file=sys.stderr)

        best = {name: min(values) for name, values in times.items()}
        print(f"tools: {options.tools}, runs: {options.runs} (best of each)")
        print(f"#[tool] crate:      {best['with_macro']:.2f}s")
        print(f"hand-written twin:  {best['by_hand']:.2f}s")
        print(f"ratio:              {best['with_macro'] / best['by_hand']:.2f}x")
    except subprocess.CalledProcessError as error:
        print(error.stderr.decode(errors="replace"), file=sys.stderr)
        return 1
    finally:
        if options.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
