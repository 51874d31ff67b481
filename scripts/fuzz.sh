#!/usr/bin/env bash
# Runs every fuzz target for a bounded time and prints what each did.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default: 60 seconds, every target)
#
# Targets: `manifest` (parsing and generation), `execute` (the registry against the reference
# tools), `redact` (prompt redaction).
#
# The targets live in fuzz/ (a cargo-fuzz crate, outside the workspace). They are libFuzzer
# targets (libfuzzer-sys) and build on the stable toolchain:
#
# - with cargo-fuzz installed (`cargo install cargo-fuzz`), through `cargo fuzz run` with
#   `--sanitizer none` (sanitizers need nightly; `RUSTC_BOOTSTRAP=1` lets cargo-fuzz pass its
#   few unstable flags to a stable compiler);
# - without it, the same build by hand: release mode for the host target (so that the flags
#   stay off build scripts), `--cfg fuzzing`, and LLVM's sanitizer coverage passes that
#   libFuzzer reads (all stable `-C` flags), then the target binary itself, which is
#   libFuzzer's driver.
#
# Inputs that fail are written to fuzz/artifacts/<target>/; every one of them becomes a
# regression test next to the code it found wrong. CI never runs this script.
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(manifest execute redact)
fi

# Seeds: the reference manifests for the manifest target.
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target"
done
cp examples/chart-tools/tools/*.toml fuzz/corpus/manifest/ 2>/dev/null || true

export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/fuzz/target}"
host="$(rustc -vV | sed -n 's/^host: //p')"
use_cargo_fuzz=false
if cargo fuzz --version >/dev/null 2>&1; then
    use_cargo_fuzz=true
else
    export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
    # An explicit --target keeps the flags off build scripts and proc macros.
    (cd fuzz && cargo build --release --bins --target "$host" 2>&1 | grep -E '^(error|warning)' -A 5 || true)
fi

status=0
summary=()
for target in "${targets[@]}"; do
    mkdir -p "fuzz/artifacts/$target"
    log="fuzz/artifacts/$target/last-run.log"
    flags=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
        -artifact_prefix="fuzz/artifacts/$target/")
    set +e
    if $use_cargo_fuzz; then
        (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none "$target" \
            "corpus/$target" -- "${flags[@]/fuzz\//}") >"$log" 2>&1
    else
        "$CARGO_TARGET_DIR/$host/release/$target" "${flags[@]}" "fuzz/corpus/$target" >"$log" 2>&1
    fi
    code=$?
    set -e
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
    crashes=$(find "fuzz/artifacts/$target" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l || true)
    summary+=("$target: ${runs:-?} executions in ${seconds} s, exit $code, ${crashes} failing input(s) in fuzz/artifacts/$target/")
    if [ "$code" -ne 0 ]; then
        status=1
        tail -n 30 "$log" >&2
    fi
done
printf '%s\n' "${summary[@]}"
exit "$status"
