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

mod synthetic;
use synthetic::synthesize;

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
