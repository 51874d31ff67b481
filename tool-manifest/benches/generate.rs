//! `generate` for 100, 1,000 and 10,000 synthetic manifests against parsing the same TOML files
//! alone, in the same run.
//!
//! The manifests are synthesized deterministically into a temporary directory, one per tool, each
//! shaped like a realistic tool (an object input with strings, an enum, bounded integers, an array
//! of objects and a nested object; two declared errors; one example). For each size:
//!
//! - `<n>/toml_parse`: every file read and parsed with `toml::from_str` into a `toml::Table`, the
//!   baseline;
//! - `<n>/generate`: `manifest::load_dir` (parse, check, validate the schemas and the examples),
//!   `outputs::render` (tools index, schemas, every provider export, docs) and
//!   `codegen::generate` (the Rust module): every output `generate` produces, every tool at once,
//!   as the command line does.
//!
//! Ratios: `generate ÷ toml_parse` per size (target ≤ 3× at 1,000), and `generate` at 10,000 ÷ at
//! 1,000 (linear growth: ≤ 11×). `generate_phases/*/1000` splits `generate` at 1,000 into its
//! three steps (at another size with `GENERATE_BENCH_PHASES=10000`). Pick benchmarks by filter
//! (`cargo bench -p toolwright-manifest --bench generate -- /1000$`) and skip the setup of sizes not
//! wanted with `GENERATE_BENCH_SIZES=100,1000`. `GENERATE_BENCH_ROUNDS=<rounds>` adds the ratios
//! of `load_dir` and `render` to `toml_parse` measured side by side in each round (see
//! [`interleaved`]).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolwright_manifest::{codegen, manifest, outputs};

const SIZES: &[usize] = &[100, 1_000, 10_000];

/// The sizes to run: `GENERATE_BENCH_SIZES` (comma-separated, e.g. `100,1000`) or [`SIZES`].
/// Each size's manifests are synthesized and checked before any timing, filtered out or not.
fn sizes() -> Vec<usize> {
    match std::env::var("GENERATE_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .map(|n| {
                n.trim()
                    .parse()
                    .expect("GENERATE_BENCH_SIZES lists numbers")
            })
            .collect(),
        Err(_) => SIZES.to_vec(),
    }
}

/// The manifest of synthetic tool `i`: read-only or destructive, parallel or sequential, a few
/// categories, the same shape for every tool so sizes compare.
fn synthetic_manifest(i: usize) -> String {
    let (safety, mode) = if i.is_multiple_of(3) {
        ("destructive", "sequential")
    } else {
        ("read-only", "parallel")
    };
    let category = ["drawings", "panes", "market", "settings"][i % 4];
    format!(
        r##"name = "tool_{i:05}"
title = "Tool number {i}"
description = "Synthetic tool {i}: reads or changes item {i} of a pane, anchored at bar times and prices. The pane must exist (panes_list lists them)."
safety = "{safety}"
mode = "{mode}"
category = "{category}"

[input]
type = "object"
additionalProperties = false
required = ["pane_id", "kind", "anchors"]

[input.properties.pane_id]
type = "string"
description = "The pane, e.g. `main`."
minLength = 1
maxLength = 64

[input.properties.kind]
type = "string"
description = "What to draw."
enum = ["trend_line", "ray", "horizontal_line", "text"]

[input.properties.anchors]
type = "array"
description = "The points, oldest first."
minItems = 1
maxItems = 2

[input.properties.anchors.items]
type = "object"
description = "A point."
additionalProperties = false
required = ["time", "price"]

[input.properties.anchors.items.properties.time]
type = "integer"
description = "A bar time in unix seconds."
minimum = 0
maximum = 4102444800

[input.properties.anchors.items.properties.price]
type = "number"
description = "The price at that time."

[input.properties.style]
type = "object"
description = "How it looks."
additionalProperties = false

[input.properties.style.properties.color]
type = "string"
description = "Line color as `#rrggbb`."
pattern = "^#[0-9a-fA-F]{{6}}$"

[input.properties.style.properties.width]
type = "integer"
description = "Line width in pixels."
minimum = 1
maximum = 10

[input.properties.limit_{i}]
type = "integer"
description = "A limit only tool {i} has."
minimum = 1
maximum = {max}

[[errors]]
code = "PANE_NOT_FOUND"
message = "The pane does not exist."
retryable = true
recommended_action = "Call panes_list to get the valid pane IDs, then retry with one of them."

[[errors]]
code = "ITEM_{i}_MISSING"
message = "Item {i} does not exist."
retryable = false
recommended_action = "Tell the user that item {i} is gone."

[[examples]]
description = "Draw on the main pane"
input = {{ pane_id = "main", kind = "trend_line", anchors = [{{ time = 1738281600, price = 138.29 }}, {{ time = 1750032000, price = 182.61 }}], style = {{ color = "#26a69a" }} }}
"##,
        max = 100 + i,
    )
}

/// Writes `n` manifests into `dir/tools` and returns their paths, sorted.
fn synthesize(dir: &Path, n: usize) -> (PathBuf, Vec<PathBuf>) {
    let tools = dir.join("tools");
    std::fs::create_dir_all(&tools).expect("create the manifest directory");
    let files: Vec<PathBuf> = (0..n)
        .map(|i| {
            let path = tools.join(format!("tool_{i:05}.toml"));
            std::fs::write(&path, synthetic_manifest(i)).expect("write a manifest");
            path
        })
        .collect();
    (tools, files)
}

fn toml_parse(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).expect("read a manifest");
            let table: toml::Table = toml::from_str(&text).expect("valid TOML");
            table.len()
        })
        .sum()
}

/// Where `generate` puts the outputs (they are computed in memory only).
fn output_dirs() -> outputs::OutputDirs {
    outputs::OutputDirs {
        out: "generated".into(),
        docs: "docs/tools".into(),
        lock: Some("tools/tools.lock".into()),
    }
}

fn generate(tools: &Path) -> usize {
    let specs = manifest::load_dir(tools).specs.expect("valid manifests");
    let files = outputs::render(&specs, &output_dirs(), &[])
        .expect("exportable tools")
        .files
        .len();
    let code = codegen::generate(&specs).expect("code generates");
    files + code.len()
}

fn bench(c: &mut Criterion) {
    let work = tempfile::tempdir().expect("temporary directory");
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for n in sizes() {
        let (tools, files) = synthesize(&work.path().join(n.to_string()), n);
        // Checked once, outside the timing: every manifest is valid and every output renders.
        assert!(generate(&tools) > n);
        group.bench_with_input(BenchmarkId::new("toml_parse", n), &files, |b, files| {
            b.iter(|| black_box(toml_parse(files)));
        });
        group.bench_with_input(BenchmarkId::new("generate", n), &tools, |b, tools| {
            b.iter(|| black_box(generate(tools)));
        });
    }
    group.finish();

    // Where the time of `generate` goes, at 1,000 tools (or `GENERATE_BENCH_PHASES` tools).
    let n = std::env::var("GENERATE_BENCH_PHASES").map_or(1_000, |n| {
        n.trim().parse().expect("GENERATE_BENCH_PHASES is a number")
    });
    let (tools, _) = synthesize(&work.path().join("phases"), n);
    let specs = manifest::load_dir(&tools).specs.expect("valid manifests");
    let mut group = c.benchmark_group("generate_phases");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.bench_function(BenchmarkId::new("load_dir", n), |b| {
        b.iter(|| {
            black_box(
                manifest::load_dir(&tools)
                    .specs
                    .expect("valid manifests")
                    .len(),
            )
        });
    });
    group.bench_function(BenchmarkId::new("render", n), |b| {
        let dirs = output_dirs();
        b.iter(|| {
            black_box(
                outputs::render(&specs, &dirs, &[])
                    .expect("exportable tools")
                    .files
                    .len(),
            )
        });
    });
    group.bench_function(BenchmarkId::new("codegen", n), |b| {
        b.iter(|| black_box(codegen::generate(&specs).expect("code generates").len()));
    });
    group.finish();

    interleaved(&work.path().join("phases"));
}

/// With `GENERATE_BENCH_ROUNDS=<rounds>`: `toml_parse`, `load_dir`, `render`, `codegen` and the
/// whole `generate` of the phase manifests measured one right after the other in each round, and
/// the median over the rounds of each one's time divided by `toml_parse`'s in the same round. On a shared machine whose
/// load changes within seconds, these ratios move far less than those of benchmarks measured
/// one after the other.
fn interleaved(dir: &Path) {
    let Ok(rounds) = std::env::var("GENERATE_BENCH_ROUNDS") else {
        return;
    };
    let rounds: usize = rounds
        .trim()
        .parse()
        .expect("GENERATE_BENCH_ROUNDS is a number");
    let tools = dir.join("tools");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tools)
        .expect("the phase manifests")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    let specs = manifest::load_dir(&tools).specs.expect("valid manifests");
    let dirs = output_dirs();
    let time = |step: &mut dyn FnMut() -> usize| {
        let start = Instant::now();
        black_box(step());
        start.elapsed().as_secs_f64()
    };
    let (mut load, mut render, mut both) = (Vec::new(), Vec::new(), Vec::new());
    let (mut code, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let parse = time(&mut || toml_parse(&files));
        let l = time(&mut || {
            manifest::load_dir(&tools)
                .specs
                .expect("valid manifests")
                .len()
        });
        let r = time(&mut || {
            outputs::render(&specs, &dirs, &[])
                .expect("exportable tools")
                .files
                .len()
        });
        let c = time(&mut || codegen::generate(&specs).expect("code generates").len());
        let g = time(&mut || generate(&tools));
        load.push(l / parse);
        render.push(r / parse);
        both.push((l + r) / parse);
        code.push(c / parse);
        whole.push(g / parse);
    }
    let median = |ratios: &mut Vec<f64>| {
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    };
    println!(
        "interleaved, {} tools, {rounds} rounds, median ratio to toml_parse in the same round: load_dir {:.2}x, render {:.2}x, load_dir + render {:.2}x, codegen {:.2}x, generate {:.2}x",
        files.len(),
        median(&mut load),
        median(&mut render),
        median(&mut both),
        median(&mut code),
        median(&mut whole),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
