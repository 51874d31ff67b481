#!/usr/bin/env python3
"""Instructions per iteration of criterion benchmarks, counted by callgrind.

Instruction counts do not depend on what else the machine is doing, so they complement the
criterion times (which do) when the machine is shared. For each benchmark, the bench binary runs
under `valgrind --tool=callgrind` in criterion's `--profile-time` mode; the script then reads the
inclusive instruction count of one function that every iteration calls exactly once (by default
`tokio::runtime::runtime::Runtime::block_on`, which wraps each iteration of the `execute` bench)
and divides it by how many times it was called.

    scripts/instructions.py -p chart-tools --bench execute \\
        drawing_create/direct/valid drawing_create/execute/valid

prints one line per benchmark and, for each benchmark after the first, its ratio to the first.
Needs valgrind (callgrind_annotate comes with it).
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def bench_binary(package: str, bench: str) -> str:
    out = subprocess.run(
        ["cargo", "bench", "-p", package, "--bench", bench, "--no-run"],
        check=True, capture_output=True, text=True,
    )
    found = re.findall(r"\((\S+/deps/" + re.escape(bench) + r"-[0-9a-f]+)\)", out.stderr)
    if not found:
        sys.exit(f"no bench binary named `{bench}` in cargo's output:\n{out.stderr}")
    return found[-1]


def per_iteration(binary: str, name: str, function: str, seconds: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", binary,
             "--bench", "--profile-time", str(seconds), f"^{re.escape(name)}$"],
            check=True, capture_output=True,
        )
        tree = subprocess.run(
            ["callgrind_annotate", "--tree=caller", "--inclusive=yes", str(profile)],
            check=True, capture_output=True, text=True,
        ).stdout
    num = r"([0-9,]+)"
    total = calls = None
    for line in tree.splitlines():
        if f"???:{function} " not in line:
            continue
        own = re.match(r"\s*" + num + r" \(.*\)\s+\*\s", line)
        if own:
            total = int(own.group(1).replace(",", ""))
        caller = re.search(r"\(" + num + r"x\)", line)
        if caller and "<" in line:
            calls = max(calls or 0, int(caller.group(1).replace(",", "")))
    if total is None or not calls:
        sys.exit(f"`{function}` was not found in the profile of `{name}`")
    return total / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-p", "--package", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--function", default="tokio::runtime::runtime::Runtime::block_on",
                        help="a function every iteration calls exactly once")
    parser.add_argument("--seconds", type=int, default=1, help="criterion's --profile-time")
    parser.add_argument("benchmarks", nargs="+", help="full benchmark names; the first is the baseline")
    args = parser.parse_args()
    binary = bench_binary(args.package, args.bench)
    baseline = None
    for name in args.benchmarks:
        count = per_iteration(binary, name, args.function, args.seconds)
        ratio = "" if baseline is None else f"  {count / baseline:.2f}x the first"
        baseline = baseline or count
        print(f"{name}: {count:,.0f} instructions per iteration{ratio}")


if __name__ == "__main__":
    main()
