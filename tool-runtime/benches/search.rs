//! The registry's tool search: building its index over 1,000 tools against one query over it,
//! in the same run (SPEC section 12: a query costs at most 1/100 of building the index).
//!
//! The tools are real: the 499 definitions of the corpus `shared/corpus/real-tools` (its `raw/*.json`,
//! sources in file-name order, each source's tools in file order: name, title, description, input
//! schema as published), repeated until there are 1,000, each repetition's names suffixed `_2`,
//! `_3` (so the last 2 tools are the third copy's first two). The corpus is read from
//! `../shared/corpus/real-tools/raw` next to the workspace, or from the directory named by
//! `REAL_TOOLS_CORPUS`; without it the bench says so and measures nothing.
//!
//! - `search/build_index/1000`: `ToolIndex::new` over the 1,000 tools (each tool's text written,
//!   tokenized, stemmed and embedded; the average document length fitted);
//! - `search/query/1000`: one `ToolIndex::search` for the top 5, every tool admitted; each
//!   iteration asks the next of the 100 held-apart requests of the search-quality test
//!   (`tests/search-queries.json`), so the time is the mean over those requests (all but two
//!   match tools);
//! - `search/build_index/499` and `search/query/499`: the same over the corpus once.
//!
//! Compare the medians: `build_index ÷ query` is how many queries cost one build (target ≥ 100).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolwright_runtime::handler::{Mode, Safety, ToolSpec};
use toolwright_runtime::search::ToolIndex;

/// How many tools the large index holds.
const TOOLS: usize = 1000;
/// The requests of the search-quality test, one per sampled corpus tool.
const QUERIES: &str = include_str!("../../tests/search-queries.json");

/// The corpus directory, `None` (said on stdout) when it is absent.
fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("REAL_TOOLS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/real-tools/raw")
        });
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "{} is not present (set REAL_TOOLS_CORPUS to its directory): the search bench is skipped",
            dir.display()
        );
        None
    }
}

/// The corpus tools, as published (the index reads names, titles, descriptions and parameter
/// names; safety and mode do not matter to it).
fn corpus(dir: &std::path::Path) -> Vec<ToolSpec> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    let mut tools = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a source file");
        let records: Vec<Value> = serde_json::from_str(&text).expect("an array of records");
        for record in records {
            let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or_default();
            let mut spec = ToolSpec::new(
                text("name"),
                Safety::ReadOnly,
                Mode::Parallel,
                record.get("inputSchema").cloned().unwrap_or(Value::Null),
            );
            if !text("title").is_empty() {
                spec.title = text("title").to_owned();
            }
            spec.description = text("description").to_owned();
            tools.push(spec);
        }
    }
    tools
}

/// `n` tools: the corpus repeated, each repetition's names suffixed.
fn repeated(corpus: &[ToolSpec], n: usize) -> Vec<ToolSpec> {
    (0..n)
        .map(|i| {
            let mut spec = corpus[i % corpus.len()].clone();
            let copy = i / corpus.len();
            if copy > 0 {
                spec.name = format!("{}_{}", spec.name, copy + 1);
            }
            spec
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let corpus = corpus(&dir);
    assert!(corpus.len() >= 400, "{} corpus tools", corpus.len());
    let queries: Vec<String> = serde_json::from_str::<Vec<Value>>(QUERIES)
        .expect("the query file")
        .iter()
        .map(|q| q["query"].as_str().expect("a query").to_owned())
        .collect();
    assert!(!queries.is_empty());

    let mut group = c.benchmark_group("search");
    for n in [corpus.len(), TOOLS] {
        let tools = repeated(&corpus, n);
        group.bench_function(BenchmarkId::new("build_index", n), |b| {
            b.iter(|| black_box(ToolIndex::new(black_box(&tools))));
        });
        let index = ToolIndex::new(&tools);
        // Nearly every request matches tools: the query time is that of a real ranking.
        let matching = queries
            .iter()
            .filter(|query| !index.search(query, 5, |_| true).is_empty())
            .count();
        assert!(matching * 10 >= queries.len() * 9, "{matching} match");
        let mut next = 0;
        group.bench_function(BenchmarkId::new("query", n), |b| {
            b.iter(|| {
                let query = &queries[next % queries.len()];
                next += 1;
                black_box(index.search(black_box(query), 5, |_| true))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
