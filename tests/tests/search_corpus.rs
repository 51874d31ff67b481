//! Many tools (SPEC section 12) on the real-tools corpus: how well the registry's tool search
//! finds a tool among all 499, and how much of a request stays eager when all but ten are
//! deferred.
//!
//! The corpus is looked up as the corpus test does (`tests/corpus.rs`): at
//! `<workspace>/../shared/corpus/real-tools/raw`, or at the directory named by
//! `REAL_TOOLS_CORPUS`; when it is absent each test says so and passes, except in CI (`CI` set),
//! where it fails. Run `cargo test -p toolwright-tests --test search_corpus -- --nocapture` for
//! the tables.
//!
//! # The index
//!
//! Every corpus tool, imported as `tool-manifest import` reads it (name made valid, BFCL types
//! mapped), in one [`ToolIndex`], in file order (sources by file name). A query is asked for the
//! top 5 with every tool admitted.
//!
//! # The three query sets
//!
//! A query is compared with a tool's name through its **terms**: the words of a text as the index
//! tokenizes them (lower-cased, stop words dropped, Snowball English stems; a name split at `_`,
//! `-`, `.`, `/` and lower-to-upper case changes first, as the index splits it).
//!
//! **Tuning set**, one query per tool, derived from its description by this rule:
//! 1. the description; when it holds `Tool description: ` (the BFCL multi-turn tools open with a
//!    paragraph about their whole suite, the same for every tool of it), only what follows;
//! 2. its first sentence: up to the first `.`, `?` or `!` followed by white space, or the first
//!    line break, whichever comes first;
//! 3. without every white-space-separated word that holds a term of the tool's name;
//! 4. its first 500 characters (the longest query the registry's `tool_search` takes).
//!
//! A tool whose query comes out empty (a description that is only its name) still counts, as a
//! miss. No tuning query holds a term of its tool's name. Changes to the index's weights or text
//! are judged on this set only.
//!
//! Two **held-apart sets** each hold one query for every tool of the same fixed sample (every 5th
//! tool of the corpus sorted by name as published, then source file, then position: 100 tools),
//! written before any search was run and never changed after a result was seen. The test checks
//! that each file holds exactly that sample, in order. They are measured, never tuned on. They
//! differ in the rule their queries were written under:
//!
//! - **Paraphrases, no name words** (`tests/search-queries.json`): a user's request for what the
//!   tool does, in other words than its description, and with no word sharing a stem with the
//!   tool's name ("are the tyres on my car inflated properly" for `check_tire_pressure`). The test
//!   checks that no query holds a term of its tool's name. This is an adversarial rule: it
//!   measures how the index copes with paraphrase, not what a model sends, since a model searching
//!   for a task uses the task's usual words and tool names are often made of them.
//! - **Model's queries** (`tests/search-requests.json`, whose `rule` field the test prints): what
//!   a model sends to `tool_search` as its description asks, "what you need to do, in a few
//!   words", for a concrete task of the tool: 2 to 8 plain words in the vocabulary a capable model
//!   uses for the task, naming the service where a model would ("check car tire pressure", "merge
//!   GitHub pull request", "close the browser"). These queries may, and often do, hold the words
//!   of the tool's name: the domain's usual words are allowed. They never hold the tool's
//!   identifier as written (`check_tire_pressure`, `checkTirePressure`, `ChaFod`, `mkdir`; a name
//!   that is one ordinary English word, such as `subtract`, may appear as that word), never copy
//!   a phrase of 4 or more consecutive words from the tool's description, and say only what a
//!   model could know from the user's task and the service, not from the tool list. The test
//!   checks the word count, that no query holds a compound name (one with `_`, `-`, `.`, `/` or a
//!   case change) as written, and that no 4 consecutive words of a query follow each other in the
//!   tool's title or description (words: lower-cased runs of letters, digits, `-` and `'`).
//!
//! **A hit** is the query's own tool among the first 1 (top-1) or 5 (top-5) results. The corpus
//! has 14 names published twice (BFCL's `add` and the reference server's `add`, the memory
//! suites' `archival_memory_add`, GitHub's and Sentry's `search_issues`, …), but no two tools
//! with the same name and the same description: no tool stands in for another, and a query's
//! hit is its own tool only (the test checks that no two tools share name and description).
//!
//! # Eager payload
//!
//! The corpus in a [`Registry`] (each tool registered as the proxy registers a pinned tool: its
//! metadata leaked once, one `Handler::Named` adapter), a name published twice taking its source
//! as a suffix; a tool whose schema the registry's validator does not compile is left out (2 of
//! 499; at least 99 % must register). For each provider's dialect, the tools the dialect can
//! express are listed ([`Registry::definitions`]) with none deferred, then with
//! `Defer::After(10)`: the provider's own search where it has one, the registry's
//! `tool_search` (`RunPolicy::with_local_search`), and for OpenAI Responses also each tool in
//! its source's category, which puts the deferred tools of one source in one `namespace`. Bytes
//! are those of the compact JSON of the `tools` array:
//!
//! - **request**: the whole array sent;
//! - **context**: what the model reads before any search. With the provider's own search,
//!   Anthropic loads no `defer_loading: true` definition into the context (counted 0 bytes);
//!   OpenAI Responses shows the model each deferred function's name and description (counted as
//!   `{"type":"function","name":…,"description":…}`) and each deferred namespace's name and
//!   description. With the registry's `tool_search` (Chat Completions, Gemini, MCP, or any
//!   provider with `RunPolicy::with_local_search`) only the eager tools and `tool_search` are
//!   sent: context and request are the same bytes.
//!
//! Chat Completions and Responses take at most 128 functions a request: the none-deferred
//! baseline of either is the array the export would send without that rule (the definitions the
//! registry computes for each tool), which OpenAI would refuse.
//!
//! Every form's context must be at most 15 % of the none-deferred payload, except OpenAI
//! Responses' own search over functions outside any namespace: there the model keeps every
//! deferred function's name and description, which the test prints.
//!
//! [`ToolIndex`]: toolwright_runtime::search::ToolIndex
//! [`Registry`]: toolwright_runtime::Registry
//! [`Registry::definitions`]: toolwright_runtime::Registry::definitions

#[path = "support/real_tools.rs"]
mod real_tools;
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};
use toolwright_manifest::dialect::Dialect;
use toolwright_manifest::import::{self, Format};
use toolwright_manifest::{Mode, Safety, StaticSchema, ToolMeta, ToolSpec};
use toolwright_runtime::handler::{BoxFuture, CallResult, Handler, ToolDef};
use toolwright_runtime::policy::Defer;
use toolwright_runtime::search::{self, ToolIndex};
use toolwright_runtime::validate::InputSchema;
use toolwright_runtime::{Registry, RunPolicy, ToolError};

use real_tools::{Source, corpus_dir, sources};

// Floors a little under what was measured (docs/performance.md, "Tool search"), so that a
// regression fails. SPEC section 12's target, top-5 recall of 90 % on the held-apart set, is met by
// the model's queries (91 %), where the test asserts it, and not by the paraphrases (43 %): the
// test prints both, and asserts the floors.
/// Top-1 recall of the tuning set must stay at least this (measured 0.599).
const TUNING_TOP1_FLOOR: f64 = 0.58;
/// Top-5 recall of the tuning set must stay at least this (measured 0.788).
const TUNING_TOP5_FLOOR: f64 = 0.77;
/// Top-1 recall of the held-apart paraphrases must stay at least this (measured 0.20).
const HELD_APART_TOP1_FLOOR: f64 = 0.18;
/// Top-5 recall of the held-apart paraphrases must stay at least this (measured 0.43).
const HELD_APART_TOP5_FLOOR: f64 = 0.41;
/// Top-1 recall of the held-apart model's queries must stay at least this (measured 0.67).
const REQUESTS_TOP1_FLOOR: f64 = 0.65;
/// Top-5 recall of the held-apart model's queries must stay at least this (measured 0.91).
const REQUESTS_TOP5_FLOOR: f64 = 0.89;
/// SPEC section 12's target for top-5 recall on a held-apart set.
const HELD_APART_TARGET: f64 = 0.90;
/// Whether the model's queries met [`HELD_APART_TARGET`] when measured (they did: 0.91): once
/// met, it is asserted.
const REQUESTS_MEET_TARGET: bool = true;
/// How many results count for top-5 recall.
const TOP: usize = 5;
/// The held-apart sample: every this many tools of the sorted corpus.
const SAMPLE_EVERY: usize = 5;
/// The fewest held-apart queries of a set.
const MIN_HELD_APART: usize = 100;
/// The fewest and the most words of a model's query.
const REQUEST_WORDS: std::ops::RangeInclusive<usize> = 2..=8;
/// How many consecutive words of a tool's description a model's query may not copy.
const COPIED_WORDS: usize = 4;
/// The longest query the registry's `tool_search` takes, in characters.
const MAX_QUERY_CHARS: usize = 500;
/// How many tools stay eager in the payload comparison.
const EAGER_TOOLS: usize = 10;
/// The share of the none-deferred payload the eager context may take (SPEC section 12's target).
const EAGER_TARGET: f64 = 0.15;
/// The held-apart paraphrases, checked in.
const HELD_APART: &str = include_str!("../search-queries.json");
/// The held-apart model's queries and their rule, checked in.
const REQUESTS: &str = include_str!("../search-requests.json");

// ---------------------------------------------------------------------------------------------
// The corpus.

/// One corpus tool.
struct CorpusTool {
    /// The source file's stem: `github-mcp-server`.
    source: String,
    /// Its position in the source file.
    index: usize,
    /// The name as published.
    published: String,
    /// The tool as imported (a valid name, BFCL's types mapped).
    spec: ToolSpec,
}

/// Every corpus tool, sources in file-name order, each source's tools in file order (read and
/// imported as `tests/corpus.rs` does).
fn corpus(dir: &Path) -> Vec<CorpusTool> {
    let mut tools = Vec::new();
    for Source {
        name: source,
        text,
        records,
    } in sources(dir)
    {
        let reading = import::read(&text, Format::Auto).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(
            reading.tools.len(),
            records.len(),
            "{source}: one tool per record"
        );
        for (index, (tool, record)) in reading.tools.into_iter().zip(&records).enumerate() {
            let published = record["name"].as_str().expect("a name").to_owned();
            assert_eq!(published, tool.source_name, "{source}[{index}]");
            let input: Value = serde_json::from_str(&tool.input).expect("the schema is JSON");
            let mut spec = ToolSpec::new(tool.name, tool.safety, tool.mode, input);
            spec.title = tool.title;
            spec.description = tool.description;
            spec.idempotent = tool.idempotent;
            spec.open_world = tool.open_world;
            spec.source = format!("shared/corpus/real-tools/raw/{source}.json#{index}");
            tools.push(CorpusTool {
                source: source.clone(),
                index,
                published,
                spec,
            });
        }
    }
    tools
}

// ---------------------------------------------------------------------------------------------
// Terms, and the queries.

/// What the index makes of names and texts ([`search::terms`]).
struct Terms;

impl Terms {
    fn new() -> Self {
        Terms
    }

    /// The terms of a text, as the index reads them.
    fn of(&self, text: &str) -> BTreeSet<String> {
        search::terms(text).into_iter().collect()
    }
}

/// True when `name` is an identifier of several words (`check_tire_pressure`,
/// `checkTirePressure`), which the index splits; a plain word (`subtract`) is not.
fn is_compound(name: &str) -> bool {
    name.contains(['_', '-', '.', '/'])
        || name
            .chars()
            .zip(name.chars().skip(1))
            .any(|(a, b)| (a.is_lowercase() || a.is_ascii_digit()) && b.is_uppercase())
}

fn tuning_query(terms: &Terms, spec: &ToolSpec) -> String {
    let own = spec
        .description
        .split_once("Tool description: ")
        .map_or(spec.description.as_str(), |(_, own)| own);
    let first = first_sentence(own);
    let name = terms.of(&spec.name);
    let kept: Vec<&str> = first
        .split_whitespace()
        .filter(|word| terms.of(word).is_disjoint(&name))
        .collect();
    kept.join(" ").chars().take(MAX_QUERY_CHARS).collect()
}

/// Up to the first `.`, `?` or `!` followed by white space (or ending the text), or the first
/// line break.
fn first_sentence(text: &str) -> &str {
    let text = text.trim_start();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '\n' || c == '\r' {
            return &text[..at];
        }
        if matches!(c, '.' | '?' | '!') && chars.peek().is_none_or(|(_, next)| next.is_whitespace())
        {
            return &text[..at];
        }
    }
    text
}

/// One held-apart query, as `tests/search-queries.json` and `tests/search-requests.json` hold it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeldApart {
    source: String,
    index: usize,
    name: String,
    query: String,
}

/// `tests/search-requests.json`: the rule its queries were written under, and the queries.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Requests {
    rule: String,
    queries: Vec<HeldApart>,
}

/// The held-apart sample: positions (into `tools`) of every [`SAMPLE_EVERY`]th tool sorted by
/// published name, source and position.
fn sample(tools: &[CorpusTool]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|a, b| {
        let key = |t: &CorpusTool| (t.published.clone(), t.source.clone(), t.index);
        key(&tools[*a]).cmp(&key(&tools[*b]))
    });
    order.into_iter().step_by(SAMPLE_EVERY).collect()
}

/// A held-apart set's queries, each with the position of its tool, checked against the sample
/// (`file` names the set in a failure) and each by `rule`, which lists what a query breaks.
fn in_sample(
    tools: &[CorpusTool],
    file: &str,
    queries: Vec<HeldApart>,
    rule: impl Fn(&CorpusTool, &str) -> Vec<String>,
) -> Vec<(usize, String)> {
    let expected: Vec<(String, usize, String)> = sample(tools)
        .into_iter()
        .map(|i| {
            let t = &tools[i];
            (t.source.clone(), t.index, t.published.clone())
        })
        .collect();
    let listed: Vec<(String, usize, String)> = queries
        .iter()
        .map(|q| (q.source.clone(), q.index, q.name.clone()))
        .collect();
    assert_eq!(listed, expected, "{file} must hold the sample, in order");
    assert!(queries.len() >= MIN_HELD_APART, "{file}: {}", queries.len());
    let mut problems = Vec::new();
    let found: Vec<(usize, String)> = queries
        .into_iter()
        .map(|q| {
            let at = tools
                .iter()
                .position(|t| t.source == q.source && t.index == q.index)
                .expect("checked above");
            for problem in rule(&tools[at], &q.query) {
                problems.push(format!("{}: {:?} {problem}", q.name, q.query));
            }
            if q.query.trim().is_empty() || q.query.chars().count() > MAX_QUERY_CHARS {
                problems.push(format!("{}: an empty or too long query", q.name));
            }
            (at, q.query)
        })
        .collect();
    assert!(problems.is_empty(), "{file}: {problems:#?}");
    found
}

/// The held-apart paraphrases, each with the position of its tool: the sample, and no query
/// holds a term of its tool's name.
fn held_apart(tools: &[CorpusTool], terms: &Terms) -> Vec<(usize, String)> {
    let queries: Vec<HeldApart> = serde_json::from_str(HELD_APART).expect("the query file");
    in_sample(
        tools,
        "tests/search-queries.json",
        queries,
        |tool, query| {
            let shared: Vec<String> = terms
                .of(query)
                .intersection(&terms.of(&tool.spec.name))
                .cloned()
                .collect();
            if shared.is_empty() {
                Vec::new()
            } else {
                vec![format!("shares {shared:?}")]
            }
        },
    )
}

/// The held-apart model's queries, each with the position of its tool, and their rule: the
/// sample, and each query within what the module's documentation says the test checks of it.
fn requests(tools: &[CorpusTool]) -> (String, Vec<(usize, String)>) {
    let file: Requests = serde_json::from_str(REQUESTS).expect("the request file");
    assert!(
        !file.rule.trim().is_empty(),
        "the request file states its rule"
    );
    let queries = in_sample(
        tools,
        "tests/search-requests.json",
        file.queries,
        |tool, query| {
            let mut problems = Vec::new();
            let count = query.split_whitespace().count();
            if !REQUEST_WORDS.contains(&count) {
                problems.push(format!("has {count} words"));
            }
            let lower = query.to_lowercase();
            for name in [&tool.published, &tool.spec.name] {
                if is_compound(name) && lower.contains(&name.to_lowercase()) {
                    problems.push(format!("holds the identifier {name}"));
                }
            }
            let said = words(&format!("{}\n{}", tool.spec.title, tool.spec.description));
            let said: BTreeSet<&[String]> = said.windows(COPIED_WORDS).collect();
            for run in words(query).windows(COPIED_WORDS) {
                if said.contains(run) {
                    problems.push(format!("copies {run:?} from the description"));
                }
            }
            problems
        },
    );
    (file.rule, queries)
}

/// The words of a text, as the request rule counts copies: lower-cased runs of letters, digits,
/// `-` and `'`, without a `-` or `'` at either end.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|word| word.trim_matches(|c| c == '-' || c == '\''))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Recall.

/// Top-1 and top-5 hits of a query set.
#[derive(Default)]
struct Recall {
    queries: usize,
    top1: usize,
    top5: usize,
    /// `(tool, query, the first result)` of each top-5 miss.
    misses: Vec<(String, String, String)>,
}

impl Recall {
    fn measure(index: &ToolIndex, tools: &[CorpusTool], set: &[(usize, String)]) -> Recall {
        let mut recall = Recall::default();
        for (target, query) in set {
            recall.queries += 1;
            let found = index.search(query, TOP, |_| true);
            recall.top1 += usize::from(found.first() == Some(target));
            if found.contains(target) {
                recall.top5 += 1;
            } else {
                let first = found
                    .first()
                    .map_or_else(|| "nothing".to_owned(), |i| tools[*i].spec.name.clone());
                recall
                    .misses
                    .push((tools[*target].spec.name.clone(), query.clone(), first));
            }
        }
        recall
    }

    fn share(hits: usize, of: usize) -> f64 {
        if of == 0 {
            return 0.0;
        }
        #[expect(clippy::cast_precision_loss, reason = "counts of a few hundred")]
        let share = hits as f64 / of as f64;
        share
    }

    fn top1(&self) -> f64 {
        Self::share(self.top1, self.queries)
    }

    fn top5(&self) -> f64 {
        Self::share(self.top5, self.queries)
    }
}

#[test]
fn search_finds_corpus_tools_from_their_descriptions_and_from_requests() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let tools = corpus(&dir);
    let terms = Terms::new();

    // No two tools share name and description: a hit is the query's own tool only.
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (i, t) in tools.iter().enumerate() {
        if let Some(first) = seen.insert((&t.published, &t.spec.description), i) {
            panic!(
                "{}[{}] and {}[{}] are the same tool: count either as a hit",
                tools[first].source, tools[first].index, t.source, t.index
            );
        }
    }

    let specs: Vec<ToolSpec> = tools.iter().map(|t| t.spec.clone()).collect();
    let index = ToolIndex::new(&specs);
    assert_eq!(index.len(), tools.len());

    let tuning: Vec<(usize, String)> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| (i, tuning_query(&terms, &t.spec)))
        .collect();
    for (i, query) in &tuning {
        let shared: BTreeSet<String> = terms
            .of(query)
            .intersection(&terms.of(&tools[*i].spec.name))
            .cloned()
            .collect();
        assert!(shared.is_empty(), "{query:?} names its tool: {shared:?}");
    }
    let held = held_apart(&tools, &terms);
    let (rule, asked) = requests(&tools);

    let tuning_recall = Recall::measure(&index, &tools, &tuning);
    let held_recall = Recall::measure(&index, &tools, &held);
    let asked_recall = Recall::measure(&index, &tools, &asked);
    let sets = [
        ("tuning (from descriptions)", &tuning_recall),
        ("held apart (paraphrases, no name words)", &held_recall),
        ("held apart (model's queries)", &asked_recall),
    ];
    println!(
        "\n{} tools in one index\n\n| query set | queries | top-1 recall | top-5 recall |\n|---|---|---|---|",
        index.len()
    );
    for (set, recall) in sets {
        println!(
            "| {set} | {} | {:.1} % ({}) | {:.1} % ({}) |",
            recall.queries,
            recall.top1() * 100.0,
            recall.top1,
            recall.top5() * 100.0,
            recall.top5
        );
    }
    println!("\nthe model's queries were written under this rule: {rule}\n");
    for (set, recall) in &sets[1..] {
        println!(
            "{set}: top-5 target {:.0} % {}",
            HELD_APART_TARGET * 100.0,
            if recall.top5() >= HELD_APART_TARGET {
                "met"
            } else {
                "not met"
            }
        );
    }
    for (set, recall) in sets {
        println!("\n{set}: {} top-5 misses", recall.misses.len());
        for (tool, query, first) in &recall.misses {
            println!("  {tool}: {query:?} (first: {first})");
        }
    }

    assert_eq!(tuning_recall.queries, tools.len());
    assert!(
        tuning_recall.top1() >= TUNING_TOP1_FLOOR,
        "tuning top-1 {:.3}",
        tuning_recall.top1()
    );
    assert!(
        tuning_recall.top5() >= TUNING_TOP5_FLOOR,
        "tuning top-5 {:.3}",
        tuning_recall.top5()
    );
    assert!(
        held_recall.top1() >= HELD_APART_TOP1_FLOOR,
        "held-apart paraphrases top-1 {:.3}",
        held_recall.top1()
    );
    assert!(
        held_recall.top5() >= HELD_APART_TOP5_FLOOR,
        "held-apart paraphrases top-5 {:.3}",
        held_recall.top5()
    );
    assert!(
        asked_recall.top1() >= REQUESTS_TOP1_FLOOR,
        "held-apart model's queries top-1 {:.3}",
        asked_recall.top1()
    );
    assert!(
        asked_recall.top5() >= REQUESTS_TOP5_FLOOR,
        "held-apart model's queries top-5 {:.3}",
        asked_recall.top5()
    );
    if REQUESTS_MEET_TARGET {
        assert!(
            asked_recall.top5() >= HELD_APART_TARGET,
            "held-apart model's queries top-5 {:.3}, under the target",
            asked_recall.top5()
        );
    }
}

#[test]
fn a_missing_corpus_fails_in_ci_and_is_skipped_elsewhere() {
    support::assert_missing_fixture_fails_only_in_ci(
        "REAL_TOOLS_CORPUS",
        "search_finds_corpus_tools_from_their_descriptions_and_from_requests",
    );
}

#[test]
fn the_tuning_rule_keeps_the_first_sentence_without_the_name() {
    let terms = Terms::new();
    let mut spec = ToolSpec::new(
        "get_weather",
        Safety::ReadOnly,
        Mode::Parallel,
        json!({"type": "object"}),
    );
    spec.description = "This tool belongs to the travel suite. Tool description: Gets the weather \
                        for a city. Use it before a trip."
        .to_owned();
    assert_eq!(tuning_query(&terms, &spec), "the for a city");
    spec.description = "Returns the weather of v1.2 today\nand more".to_owned();
    assert_eq!(tuning_query(&terms, &spec), "Returns the of v1.2 today");
    spec.description = "Weather!".to_owned();
    assert_eq!(tuning_query(&terms, &spec), "");
    assert_eq!(first_sentence("  A b. C"), "A b");
    assert_eq!(first_sentence("e.g. x"), "e.g");
    assert_eq!(first_sentence("no end"), "no end");
}

// ---------------------------------------------------------------------------------------------
// Eager payload.

/// No corpus tool runs here: the payload is what is offered.
fn not_run<'a>(_: &'a (), meta: &'static ToolMeta, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Err(ToolError::failed(format!(
            "{} is a corpus definition, not run here",
            meta.name
        )))
    })
}

/// A tool's metadata for the registry, leaked once (as the proxy does with a pinned tool's).
fn leak(spec: &ToolSpec) -> &'static ToolMeta {
    let text = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let mut meta = ToolMeta::new(
        text(&spec.name),
        spec.safety,
        spec.mode,
        StaticSchema::Json(text(&spec.input_schema.to_string())),
    )
    .title(text(&spec.title))
    .description(text(&spec.description))
    .source(text(&spec.source));
    if let Some(idempotent) = spec.idempotent {
        meta = meta.idempotent(idempotent);
    }
    if let Some(open_world) = spec.open_world {
        meta = meta.open_world(open_world);
    }
    if let Some(category) = &spec.category {
        meta = meta.category(text(category));
    }
    Box::leak(Box::new(meta))
}

/// The corpus in a registry: every tool whose schema compiles, a name published twice taking
/// its source as a suffix; with `grouped`, each tool's category is its source (the server or
/// data set it comes from). The names refused, with why.
fn registry(tools: &[CorpusTool], grouped: bool) -> (Registry<()>, Vec<String>) {
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut defs = Vec::new();
    let mut refused = Vec::new();
    for tool in tools {
        let mut spec = tool.spec.clone();
        if names.contains(&spec.name) {
            let suffixed = format!("{}_{}", spec.name, tool.source.replace('-', "_"));
            spec.name = suffixed.chars().take(64).collect();
        }
        assert!(names.insert(spec.name.clone()), "{}", spec.name);
        if grouped {
            spec.category = Some(tool.source.clone());
        }
        if let Err(e) = InputSchema::compile(&spec.input_schema) {
            refused.push(format!("{}: {}", spec.name, e.message));
            continue;
        }
        defs.push(ToolDef {
            meta: leak(&spec),
            handler: Handler::Named(not_run),
        });
    }
    let registry = Registry::builder()
        .tools(defs)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    (registry, refused)
}

/// Bytes of a value's compact JSON.
fn bytes(value: &Value) -> usize {
    serde_json::to_vec(value).expect("JSON").len()
}

/// What the model reads of a request's tools before any search (see the module's docs): the
/// bytes of the array of what it sees of each entry.
fn context_bytes(dialect: Dialect, local: bool, tools: &[Value]) -> usize {
    let seen: Vec<Value> = tools
        .iter()
        .filter_map(|tool| {
            if local {
                return Some(tool.clone());
            }
            let deferred = tool.get("defer_loading") == Some(&Value::Bool(true));
            match dialect {
                Dialect::Anthropic if deferred => None,
                Dialect::OpenAiResponses if deferred => Some(json!({
                    "type": tool["type"],
                    "name": tool["name"],
                    "description": tool.get("description").cloned().unwrap_or_default(),
                })),
                Dialect::OpenAiResponses if tool["type"] == "namespace" => Some(json!({
                    "type": "namespace",
                    "name": tool["name"],
                    "description": tool["description"],
                })),
                _ => Some(tool.clone()),
            }
        })
        .collect();
    bytes(&Value::Array(seen))
}

/// How a run's tools are arranged for the payload comparison.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    /// As the corpus declares them, with the provider's own search where it has one.
    AsDeclared,
    /// Each tool in its source's category: OpenAI Responses puts each in a namespace.
    Namespaces,
    /// With the registry's `tool_search` (`RunPolicy::with_local_search`).
    LocalSearch,
}

/// One row of the payload table.
struct Payload {
    form: String,
    /// OpenAI Responses shows each deferred function outside a namespace by name and
    /// description: its context keeps every description (the target is not for that form).
    names_in_context: bool,
    offered: usize,
    none_deferred: usize,
    request: usize,
    context: usize,
}

impl Payload {
    fn share(&self, part: usize) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "byte counts under 2^52")]
        let share = part as f64 / self.none_deferred as f64;
        share
    }
}

#[test]
fn all_but_ten_deferred_the_eager_context_is_a_small_share_of_the_payload() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let tools = corpus(&dir);
    let (grouped, _) = registry(&tools, true);
    let (registry, refused) = registry(&tools, false);
    let registered = tools.len() - refused.len();
    let mut rows: Vec<Payload> = Vec::new();
    for dialect in Dialect::ALL {
        let dialect = *dialect;
        // The tools this dialect cannot express are left out of its runs.
        let all = registry.offered(&RunPolicy::full());
        let inexpressible: Vec<&str> = all
            .iter()
            .copied()
            .filter(|name| matches!(registry.definition(name, dialect), Some(Err(_))))
            .collect();
        let base = RunPolicy::full()
            .with_dialect(dialect)
            .disable_all(inexpressible.iter().copied());
        let listed = registry.offered(&base);
        let everything: Vec<Value> = listed
            .iter()
            .map(|name| {
                registry
                    .definition(name, dialect)
                    .expect("registered")
                    .expect("expressible")
                    .clone()
            })
            .collect();
        let none_deferred = Value::Array(everything.clone());
        match registry.definitions(&base) {
            Ok(offered) => assert_eq!(offered, none_deferred, "{dialect}"),
            // Only OpenAI's limit of functions per request refuses the whole list.
            Err(e) => assert!(dialect.is_openai() && listed.len() > 128, "{dialect}: {e}"),
        }
        let mut forms = vec![(Form::AsDeclared, &registry, base.clone())];
        if dialect == Dialect::OpenAiResponses {
            forms.push((Form::Namespaces, &grouped, base.clone()));
        }
        if !base.searches_locally() {
            forms.push((
                Form::LocalSearch,
                &registry,
                base.clone().with_local_search(),
            ));
        }
        for (form, registry, policy) in forms {
            let policy = policy.defer(Defer::After(EAGER_TOOLS));
            let local = policy.searches_locally();
            let offered = registry
                .definitions(&policy)
                .unwrap_or_else(|e| panic!("{dialect}: {e}"));
            let offered = offered.as_array().expect("an array");
            // The eager part is byte for byte the first tools of the none-deferred list.
            assert_eq!(
                offered[..EAGER_TOOLS],
                everything[..EAGER_TOOLS],
                "{dialect}"
            );
            assert_eq!(registry.deferred(&policy).len(), listed.len() - EAGER_TOOLS);
            let request = bytes(&Value::Array(offered.clone()));
            let context = context_bytes(dialect, local, offered);
            if local {
                assert_eq!(
                    offered.len(),
                    EAGER_TOOLS + 1,
                    "{dialect}: eager + tool_search"
                );
                assert_eq!(request, context);
            }
            let name = match (local, form) {
                (true, Form::LocalSearch) => format!("{dialect}, the registry's `tool_search`"),
                (true, _) => format!("{dialect} (the registry's `tool_search`)"),
                (false, Form::Namespaces) => {
                    format!("{dialect}, its own tool search, one namespace per source")
                }
                (false, _) => format!("{dialect}, its own tool search"),
            };
            rows.push(Payload {
                form: name,
                names_in_context: dialect == Dialect::OpenAiResponses && form == Form::AsDeclared,
                offered: listed.len(),
                none_deferred: bytes(&none_deferred),
                request,
                context,
            });
        }
    }

    let mut table = format!(
        "\n{registered} of {} corpus tools registered ({} refused: {refused:?}); {EAGER_TOOLS} eager, the rest deferred\n\n\
         | provider and search | tools offered | none deferred (bytes) | request (bytes, share) | context (bytes, share) |\n|---|---|---|---|---|\n",
        tools.len(),
        refused.len(),
    );
    for row in &rows {
        writeln!(
            table,
            "| {} | {} | {} | {} ({:.1} %) | {} ({:.1} %) |",
            row.form,
            row.offered,
            row.none_deferred,
            row.request,
            row.share(row.request) * 100.0,
            row.context,
            row.share(row.context) * 100.0,
        )
        .expect("write");
    }
    println!("{table}");

    assert!(
        registered * 100 >= tools.len() * 99,
        "only {registered} tools registered"
    );
    for row in &rows {
        assert!(row.context < row.none_deferred, "{}", row.form);
    }
    let over: Vec<String> = rows
        .iter()
        .filter(|row| !row.names_in_context && row.share(row.context) > EAGER_TARGET)
        .map(|row| format!("{}: {:.1} %", row.form, row.share(row.context) * 100.0))
        .collect();
    assert!(
        over.is_empty(),
        "the eager context is over {EAGER_TARGET}: {over:?}"
    );
}

#[test]
fn a_read_only_run_never_finds_a_write_among_the_corpus_tools() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let tools = corpus(&dir);
    let terms = Terms::new();
    let (registry, _) = registry(&tools, false);
    let writes: BTreeSet<&str> = registry
        .offered(&RunPolicy::full())
        .into_iter()
        .filter(|name| !registry.offered(&RunPolicy::read_only()).contains(name))
        .collect();
    assert!(writes.len() > 100, "{} writes", writes.len());
    let mut queries: Vec<String> = tools
        .iter()
        .map(|t| tuning_query(&terms, &t.spec))
        .filter(|q| !q.trim().is_empty())
        .collect();
    queries.extend(held_apart(&tools, &terms).into_iter().map(|(_, q)| q));
    queries.extend(requests(&tools).1.into_iter().map(|(_, q)| q));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let (mut found, mut write_queries) = (0, 0);
    // The search is the same in every dialect; these two put the name in each shape it takes.
    for dialect in [Dialect::Mcp, Dialect::OpenAi] {
        let policy = RunPolicy::read_only()
            .with_dialect(dialect)
            .with_local_search()
            .defer(Defer::After(EAGER_TOOLS));
        let full = RunPolicy::full()
            .with_dialect(dialect)
            .with_local_search()
            .defer(Defer::After(EAGER_TOOLS));
        for query in &queries {
            let arguments = json!({"query": query, "limit": 10});
            for (policy, read_only) in [(&policy, true), (&full, false)] {
                let answer =
                    runtime.block_on(registry.execute(policy, &mut (), "tool_search", &arguments));
                let answer = serde_json::to_value(&answer).expect("JSON");
                assert_eq!(answer["success"], true, "{dialect} {query:?}: {answer}");
                let names: Vec<&str> = answer["data"]["tools"]
                    .as_array()
                    .expect("tools")
                    .iter()
                    .map(|d| {
                        d.get("name")
                            .or_else(|| d.pointer("/function/name"))
                            .and_then(Value::as_str)
                            .expect("a name")
                    })
                    .collect();
                let surfaced = names.iter().filter(|n| writes.contains(*n)).count();
                if read_only {
                    found += names.len();
                    assert_eq!(surfaced, 0, "{dialect} {query:?}: {names:?}");
                } else {
                    write_queries += usize::from(surfaced > 0);
                }
            }
        }
    }
    println!(
        "{} queries, 2 dialects: {found} tools found in read-only runs, no write; {write_queries} \
         of the same searches surfaced a write in a full run",
        queries.len()
    );
    // The same searches find writes when the run allows them: the filter is what keeps them out.
    assert!(write_queries > queries.len(), "{write_queries}");
    assert!(found > queries.len());
}
