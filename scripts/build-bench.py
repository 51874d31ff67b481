#!/usr/bin/env python3
"""Build-time cost of `#[tool]`: 100 tools written with the attribute vs. two twins.

Generates, in a temporary directory, three crates with the same 100 tools (same input types, same
function bodies):

- `with_macro` declares them with `#[tool]` and registers them with `tool_def!`;
- `by_hand` writes each tool's frozen metadata, schema function and adapter by hand with the
  public `toolwright_runtime` API (the baseline);
- `with_rmcp` declares them as methods of one server with rmcp's `#[tool]`, `#[tool_router]` and
  `#[tool_handler]` (rmcp pinned to `RMCP_VERSION`, `server` + `macros` features only; a tool
  returns its reply as JSON text, so rmcp derives no output schema, like the other two crates).

For each dependency set, the dependencies are built once (a crate with an empty body, so the
dependency set and features are exactly the crate's own; `with_macro` and `by_hand` share
theirs). Then, for each run and crate, a fresh copy of that dependency-only target directory is
taken and:

- cold: `cargo build` of the crate (all 100 tools);
- incremental: one tool's body is edited (tool N/2: a constant changes) and `cargo build` runs
  again.

Layout (`--layout`): by default (`types-first`) every crate declares the 100 input types first and
the tools after them, as rmcp requires (its tools are the methods of one `impl` block). With
`interleaved`, `with_macro` and `by_hand` declare each input type just before its tool (rmcp's
crate cannot, and keeps its layout). The layout matters to the incremental rebuild: rustc
re-checks every item whose source position moved and that depends on a moved span, so with
`interleaved` the derives of the input types after the edited tool (and the tools using those
types) are checked again, in `with_macro` and `by_hand` but not in `with_rmcp`.

Crates are interleaved within a run so that a load change on the machine hits all of them. The
script reports, as Markdown tables, the best (minimum) wall-clock time of each crate with the
ratios of those, the median of the per-run ratios (the steadier figure on a shared machine), and
every time measured. Nothing is asserted.

The workspace reuses the repository's `Cargo.lock`; rmcp and its own dependencies are resolved
(`cargo fetch`) once, unless `--offline` is given (then they must already be in the cargo cache).

With `--time-passes`, every rustc invocation of the measured crates also gets `-Z time-passes`
(through `RUSTC_BOOTSTRAP=1 cargo rustc`), and the script prints the main passes of the cold
build and of the incremental rebuild of each crate, for the last run (the timings include the
cost of the flag itself; compare them with each other, not with the wall-clock times).

Usage: scripts/build-bench.py [--tools N] [--runs R] [--layout L] [--time-passes] [--offline]
                              [--keep]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The rmcp release the comparison is made against (the generated crate pins it).
RMCP_VERSION = "3.11.0"

CRATES = ("with_macro", "by_hand", "with_rmcp")

TYPES = """
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Clone)]
pub struct Chart {
    pub panes: Vec<String>,
}

#[derive(Serialize)]
pub struct Reply {
    pub pane: String,
    pub count: usize,
}
"""

RUNTIME_IMPORTS = """
#[allow(unused_imports)]
use toolwright_runtime::ToolError;
#[allow(unused_imports)]
use toolwright_runtime::handler::ToolDef;
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


def core(i):
    """The body every crate shares: `chart` and `input` in scope, `reply` out."""
    return f"""    let bump = {i}usize;
    let count = chart.panes.len().min(input.limit.unwrap_or(10) as usize) + bump;
    let reply = Reply {{ pane: input.pane_id, count }};
"""


def edit_one_body(source, n):
    """The incremental edit: the constant of tool n/2 changes."""
    i = n // 2
    before = f"    let bump = {i}usize;\n"
    after = f"    let bump = {i}usize + 1;\n"
    if source.count(before) != 1:
        raise ValueError(f"the body of tool {i} is not found exactly once")
    return source.replace(before, after)


def tool_fn(i):
    return (f"pub fn tool_{i}(chart: &Chart, input: Args{i}) -> Result<Reply, ToolError> {{\n"
            + core(i) + "    Ok(reply)\n}\n")


def types_first(n, layout):
    """All the input types, when they come before the tools."""
    return "".join(tool_types(i) for i in range(n)) if layout == "types-first" else ""


def type_here(i, layout):
    """Input type i, when it comes just before its tool."""
    return tool_types(i) if layout == "interleaved" else ""


def with_macro(n, layout):
    out = [TYPES, types_first(n, layout), RUNTIME_IMPORTS,
           "use toolwright_runtime::{tool, tool_def};\n"]
    for i in range(n):
        out.append(type_here(i, layout))
        out.append(f'/// Tool number {i}.\n#[tool(safety = "read-only", mode = "parallel")]\n')
        out.append(tool_fn(i))
    out.append("\npub fn tools() -> Vec<ToolDef<Chart>> {\n    vec![\n")
    out.extend(f"        tool_def!(tool_{i}),\n" for i in range(n))
    out.append("    ]\n}\n")
    return "".join(out)


def by_hand(n, layout):
    out = [
        TYPES,
        types_first(n, layout),
        RUNTIME_IMPORTS,
        """
use serde_json::Value;
use toolwright_runtime::handler::{
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
        out.append(type_here(i, layout))
        out.append(f"/// Tool number {i}.\n" + tool_fn(i))
        out.append(
            f"""
static META_{i}: ToolMeta = ToolMeta::new(
    "tool_{i}",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Derived(schema_of::<Args{i}>),
)
.title("Tool {i}")
.description("Tool number {i}.")
.source(concat!(module_path!(), "::tool_{i}"));

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


def with_rmcp(n, layout):
    del layout  # the types always come first: the tools are the methods of one impl block
    out = [
        TYPES,
        """
use std::sync::Arc;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

#[derive(Debug, Clone)]
pub struct Server {
    chart: Arc<Chart>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    pub fn new(chart: Chart) -> Self {
        Server { chart: Arc::new(chart), tool_router: Self::tool_router() }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}
""",
    ]
    for i in range(n):
        out.append(tool_types(i))
    out.append("\n#[tool_router(router = tool_router)]\nimpl Server {\n")
    for i in range(n):
        out.append(
            f"    /// Tool number {i}.\n"
            "    #[tool(annotations(read_only_hint = true))]\n"
            f"    pub fn tool_{i}(&self, Parameters(input): Parameters<Args{i}>) "
            "-> Result<String, String> {\n"
            "    let chart = &self.chart;\n"
            + core(i)
            + "    serde_json::to_string(&reply).map_err(|e| e.to_string())\n    }\n"
        )
    out.append("}\n")
    return "".join(out)


SOURCES = {"with_macro": with_macro, "by_hand": by_hand, "with_rmcp": with_rmcp}


def manifest(name, root):
    if name == "with_rmcp":
        framework = (f'rmcp = {{ version = "={RMCP_VERSION}", default-features = false, '
                     'features = ["server", "macros"] }')
    else:
        runtime = os.path.join(root, "tool-runtime")
        framework = f'toolwright-runtime = {{ path = "{runtime}" }}'
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{framework}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def cargo(args, cwd, target, passes=None):
    """Runs cargo; returns the wall-clock time. With `passes` (a dict), the build is a
    `cargo rustc` with `-Z time-passes` and `passes` receives the main passes' times."""
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    if passes is not None:
        args = ["rustc", *args[1:], "--", "-Z", "time-passes"]
    start = time.monotonic()
    done = subprocess.run(["cargo", *args], cwd=cwd, env=env, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - start
    if passes is not None:
        passes.clear()
        passes.update(time_passes(done.stderr.decode(errors="replace")))
    return elapsed


# The passes `--time-passes` reports (`codegen_crate` and `LLVM_passes` overlap).
PASSES = ("macro_expand_crate", "type_check_crate", "MIR_borrow_checking", "codegen_crate",
          "LLVM_passes", "total")


def time_passes(stderr):
    """The top-level passes of rustc's `-Z time-passes` output: `{pass: seconds}`."""
    found = {}
    for line in stderr.splitlines():
        match = re.match(r"time:\s+([0-9.]+);.*\t(\S+)$", line)
        if match and match.group(2) in PASSES:
            found[match.group(2)] = float(match.group(1))
    return found


def version(command):
    try:
        return subprocess.run(command, check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--layout", choices=("types-first", "interleaved"),
                        default="types-first",
                        help="where the input types are declared (see above)")
    parser.add_argument("--time-passes", action="store_true",
                        help="also print rustc's main passes of the last run")
    parser.add_argument("--offline", action="store_true",
                        help="never use the network (rmcp must be in the cargo cache)")
    parser.add_argument("--keep", action="store_true", help="keep the generated workspace")
    options = parser.parse_args()
    offline = ["--offline"] if options.offline else []
    if options.time_passes:
        # Cargo rebuilds what was built with another `RUSTC_BOOTSTRAP`: the dependencies too.
        os.environ["RUSTC_BOOTSTRAP"] = "1"

    work = tempfile.mkdtemp(prefix="tool-build-bench-")
    try:
        members = ", ".join(f'"{name}"' for name in CRATES)
        write(os.path.join(work, "Cargo.toml"),
              f'[workspace]\nresolver = "3"\nmembers = [{members}]\n')
        lock = os.path.join(ROOT, "Cargo.lock")
        if os.path.exists(lock):
            shutil.copy(lock, os.path.join(work, "Cargo.lock"))
        sources = {name: SOURCES[name](options.tools, options.layout) for name in CRATES}
        for name in CRATES:
            write(os.path.join(work, name, "Cargo.toml"), manifest(name, ROOT))
            write(os.path.join(work, name, "src", "lib.rs"), "")
        print(f"resolving the dependencies ({work})", file=sys.stderr)
        subprocess.run(["cargo", "fetch", *offline], cwd=work, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        # Crates with the same dependencies share one dependency-only build.
        deps = {}
        built = {}
        for name in CRATES:
            key = manifest(name, ROOT).split("[dependencies]")[1]
            if key not in built:
                built[key] = os.path.join(work, f"target-deps-{name}")
                print(f"building the dependencies of {name} once", file=sys.stderr)
                cargo(["build", "--offline", "-p", name], work, built[key])
            deps[name] = built[key]
        for name in CRATES:
            write(os.path.join(work, name, "src", "lib.rs"), sources[name])

        cold = {name: [] for name in CRATES}
        incremental = {name: [] for name in CRATES}
        passes = {(name, build): {} if options.time_passes else None
                  for name in CRATES for build in ("cold", "incremental")}
        for run in range(options.runs):
            for name in CRATES:
                lib = os.path.join(work, name, "src", "lib.rs")
                write(lib, sources[name])
                target = os.path.join(work, f"target-{name}-{run}")
                shutil.copytree(deps[name], target, symlinks=True)
                cold[name].append(cargo(["build", "--offline", "-p", name], work, target,
                                        passes[name, "cold"]))
                write(lib, edit_one_body(sources[name], options.tools))
                incremental[name].append(
                    cargo(["build", "--offline", "-p", name], work, target,
                          passes[name, "incremental"]))
                shutil.rmtree(target)
                print(f"run {run + 1}: {name} cold {cold[name][-1]:.2f}s, "
                      f"incremental {incremental[name][-1]:.2f}s", file=sys.stderr)

        best_cold = {name: min(values) for name, values in cold.items()}
        best_incr = {name: min(values) for name, values in incremental.items()}
        print(f"tools: {options.tools}, runs: {options.runs} (best of each), "
              f"layout: {options.layout}, {version(['rustc', '-V'])}, rmcp {RMCP_VERSION}")
        print()
        print("| crate | cold build | ÷ by_hand | ÷ with_rmcp "
              "| incremental rebuild | ÷ by_hand | ÷ with_rmcp |")
        print("|---|---|---|---|---|---|---|")
        for name in CRATES:
            print(f"| `{name}` | {best_cold[name]:.2f} s "
                  f"| {best_cold[name] / best_cold['by_hand']:.2f}× "
                  f"| {best_cold[name] / best_cold['with_rmcp']:.2f}× "
                  f"| {best_incr[name]:.2f} s "
                  f"| {best_incr[name] / best_incr['by_hand']:.2f}× "
                  f"| {best_incr[name] / best_incr['with_rmcp']:.2f}× |")
        print()
        # The load of a shared machine changes between runs more than between the crates of one
        # run: the median of the per-run ratios is the steadier figure.
        print("median of the per-run ratios (runs interleave the crates):")
        print()
        print("| crate | cold ÷ by_hand | cold ÷ with_rmcp | incremental ÷ by_hand "
              "| incremental ÷ with_rmcp |")
        print("|---|---|---|---|---|")
        def ratio(times, name, base):
            return statistics.median(a / b for a, b in zip(times[name], times[base]))

        for name in CRATES:
            print(f"| `{name}` | {ratio(cold, name, 'by_hand'):.2f}× "
                  f"| {ratio(cold, name, 'with_rmcp'):.2f}× "
                  f"| {ratio(incremental, name, 'by_hand'):.2f}× "
                  f"| {ratio(incremental, name, 'with_rmcp'):.2f}× |")
        if options.time_passes:
            print()
            print("rustc passes of the last run, `-Z time-passes` (s):")
            print()
            print("| crate, build | " + " | ".join(f"`{p}`" for p in PASSES) + " |")
            print("|---|" + "---|" * len(PASSES))
            for name in CRATES:
                for build in ("cold", "incremental"):
                    found = passes[name, build]
                    print(f"| `{name}`, {build} | "
                          + " | ".join(f"{found[p]:.3f}" if p in found else "-" for p in PASSES)
                          + " |")
        print()
        print("every run (s): " + "; ".join(
            f"{name} cold {', '.join(f'{t:.2f}' for t in cold[name])}, "
            f"incremental {', '.join(f'{t:.2f}' for t in incremental[name])}"
            for name in CRATES))
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
