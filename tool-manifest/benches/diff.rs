//! `diff` of two 1,000-tool sets that differ in 100 tools, against loading the two sets alone,
//! in the same run.
//!
//! The old set is the synthetic manifests of the `generate` bench ([`synthetic`]); the new set is
//! the same 1,000 tools with 100 of them changed, ten of each kind of change (a description
//! reworded, an optional property added, a required property added, an enum value removed, a
//! bound tightened, a type narrowed from `number` to `integer`, the safety flipped, the mode
//! flipped, an error code removed, a property removed), and 10 more that only reorder their keys
//! or reformat their whitespace, which the diff must not report. Both sets are written into a
//! temporary directory and checked before any timing: the new one loads as `generate` loads it
//! (examples checked), and the diff reports exactly the 100 changed tools, each with its change.
//!
//! - `diff/1000/load_both`: `diff::load` of each directory (`manifest::load_definitions`: parse,
//!   check, validate the schemas; examples unchecked), the baseline;
//! - `diff/1000/diff`: what `tool-manifest diff OLD NEW --format json` does: both loads,
//!   `Side::pair`, `diff::diff` with the default policy and the report rendered as JSON.
//!
//! Ratio: `diff ÷ load_both` (target ≤ 1.5×), printed after the run as the median over
//! `DIFF_BENCH_ROUNDS` rounds (10 unless set; 0 skips them) of the ratio of the two measured one
//! right after the other in each round.

use std::collections::{BTreeMap, BTreeSet};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolwright_manifest::diff::{self, Kind, Policy};
use toolwright_manifest::manifest;

mod synthetic;
use synthetic::{synthesize, synthetic_manifest};

/// The tools of each set.
const TOOLS: usize = 1_000;

/// What the new set does to one tool of the old.
#[derive(Debug, Clone, Copy)]
enum Edit {
    /// A change the diff reports with this kind (among others it may find with it).
    Change(Change),
    /// The same definition, written differently.
    Rewrite(Rewrite),
}

#[derive(Debug, Clone, Copy)]
enum Change {
    DescriptionReworded,
    OptionalPropertyAdded,
    RequiredPropertyAdded,
    EnumValueRemoved,
    BoundTightened,
    TypeNarrowed,
    SafetyFlipped,
    ModeFlipped,
    ErrorCodeRemoved,
    PropertyRemoved,
}

const CHANGES: [Change; 10] = [
    Change::DescriptionReworded,
    Change::OptionalPropertyAdded,
    Change::RequiredPropertyAdded,
    Change::EnumValueRemoved,
    Change::BoundTightened,
    Change::TypeNarrowed,
    Change::SafetyFlipped,
    Change::ModeFlipped,
    Change::ErrorCodeRemoved,
    Change::PropertyRemoved,
];

#[derive(Debug, Clone, Copy)]
enum Rewrite {
    /// The top-level keys and two property tables in another order.
    KeysReordered,
    /// Spaces, blank lines, comments and a multi-line array.
    Reformatted,
}

/// What the new set does to tool `i`: every tool whose number ends in 7 changes (100 of 1,000),
/// the kind of change cycling with the tens digit so that each kind falls on read-only and
/// destructive tools alike; every tool whose number ends in 02 is rewritten (10 of 1,000).
fn edit(i: usize) -> Option<Edit> {
    if i % 10 == 7 {
        Some(Edit::Change(CHANGES[(i / 10) % 10]))
    } else if i % 100 == 2 {
        Some(Edit::Rewrite(if (i / 100).is_multiple_of(2) {
            Rewrite::KeysReordered
        } else {
            Rewrite::Reformatted
        }))
    } else {
        None
    }
}

impl Change {
    /// The kind the diff must report for it.
    fn kind(self, i: usize) -> Kind {
        match self {
            Change::DescriptionReworded => Kind::DescriptionChanged,
            Change::OptionalPropertyAdded => Kind::PropertyAdded,
            Change::RequiredPropertyAdded => Kind::RequiredAdded,
            Change::EnumValueRemoved => Kind::EnumValueRemoved,
            Change::BoundTightened => Kind::BoundTightened,
            Change::TypeNarrowed => Kind::TypeNarrowed,
            Change::SafetyFlipped if destructive(i) => Kind::SafetyTightened,
            Change::SafetyFlipped => Kind::SafetyLoosened,
            Change::ModeFlipped if destructive(i) => Kind::ModeSequentialToParallel,
            Change::ModeFlipped => Kind::ModeParallelToSequential,
            Change::ErrorCodeRemoved => Kind::ErrorCodeRemoved,
            Change::PropertyRemoved => Kind::PropertyRemoved,
        }
    }
}

/// The synthetic tools that are destructive and sequential (the others are read-only and
/// parallel).
fn destructive(i: usize) -> bool {
    i.is_multiple_of(3)
}

/// `text` with `from` replaced by `to`, which must be there.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the manifest holds {from:?}");
    text.replacen(from, to, 1)
}

/// The manifest of tool `i` in the new set.
fn new_manifest(i: usize) -> String {
    let old = synthetic_manifest(i);
    let Some(edit) = edit(i) else { return old };
    let (safety, mode) = if destructive(i) {
        ("destructive", "sequential")
    } else {
        ("read-only", "parallel")
    };
    match edit {
        Edit::Change(Change::DescriptionReworded) => replaced(
            &old,
            &format!("description = \"Synthetic tool {i}: reads or changes item {i} of a pane"),
            &format!("description = \"Synthetic tool {i}: reads or edits item {i} of one pane"),
        ),
        Edit::Change(Change::OptionalPropertyAdded) => replaced(
            &old,
            "[input.properties.style]\n",
            "[input.properties.label]\ntype = \"string\"\ndescription = \"A label shown next to the item.\"\nmaxLength = 40\n\n[input.properties.style]\n",
        ),
        Edit::Change(Change::RequiredPropertyAdded) => {
            let text = replaced(
                &old,
                "required = [\"pane_id\", \"kind\", \"anchors\"]",
                "required = [\"pane_id\", \"kind\", \"anchors\", \"layer\"]",
            );
            let text = replaced(
                &text,
                "[input.properties.style]\n",
                "[input.properties.layer]\ntype = \"integer\"\ndescription = \"The layer the item is drawn on.\"\nminimum = 0\nmaximum = 9\n\n[input.properties.style]\n",
            );
            // The example stays valid.
            replaced(
                &text,
                "pane_id = \"main\", kind",
                "pane_id = \"main\", layer = 0, kind",
            )
        }
        Edit::Change(Change::EnumValueRemoved) => replaced(
            &old,
            "enum = [\"trend_line\", \"ray\", \"horizontal_line\", \"text\"]",
            "enum = [\"trend_line\", \"ray\", \"horizontal_line\"]",
        ),
        Edit::Change(Change::BoundTightened) => replaced(&old, "maxLength = 64", "maxLength = 32"),
        Edit::Change(Change::TypeNarrowed) => {
            let text = replaced(
                &old,
                "type = \"number\"\ndescription = \"The price at that time.\"",
                "type = \"integer\"\ndescription = \"The price at that time.\"",
            );
            // The example stays valid.
            replaced(
                &text,
                "price = 138.29 }, { time = 1750032000, price = 182.61",
                "price = 138 }, { time = 1750032000, price = 182",
            )
        }
        Edit::Change(Change::SafetyFlipped) => {
            let flipped = if destructive(i) {
                "read-only"
            } else {
                "destructive"
            };
            replaced(
                &old,
                &format!("safety = \"{safety}\""),
                &format!("safety = \"{flipped}\""),
            )
        }
        Edit::Change(Change::ModeFlipped) => {
            let flipped = if destructive(i) {
                "parallel"
            } else {
                "sequential"
            };
            replaced(
                &old,
                &format!("mode = \"{mode}\""),
                &format!("mode = \"{flipped}\""),
            )
        }
        Edit::Change(Change::ErrorCodeRemoved) => replaced(
            &old,
            &format!(
                "[[errors]]\ncode = \"ITEM_{i}_MISSING\"\nmessage = \"Item {i} does not exist.\"\nretryable = false\nrecommended_action = \"Tell the user that item {i} is gone.\"\n\n"
            ),
            "",
        ),
        Edit::Change(Change::PropertyRemoved) => replaced(
            &old,
            &format!(
                "[input.properties.limit_{i}]\ntype = \"integer\"\ndescription = \"A limit only tool {i} has.\"\nminimum = 1\nmaximum = {}\n\n",
                100 + i
            ),
            "",
        ),
        Edit::Rewrite(Rewrite::KeysReordered) => {
            let pane_id = "[input.properties.pane_id]\ntype = \"string\"\ndescription = \"The pane, e.g. `main`.\"\nminLength = 1\nmaxLength = 64\n\n";
            let kind = "[input.properties.kind]\ntype = \"string\"\ndescription = \"What to draw.\"\nenum = [\"trend_line\", \"ray\", \"horizontal_line\", \"text\"]\n\n";
            let header = old.split("\n[input]\n").next().expect("the top-level keys");
            let mut keys: Vec<&str> = header.lines().collect();
            keys.reverse();
            let text = replaced(&old, header, &keys.join("\n"));
            replaced(
                &replaced(&text, &format!("{pane_id}{kind}"), kind),
                "[input.properties.anchors]\n",
                &format!("{pane_id}[input.properties.anchors]\n"),
            )
        }
        Edit::Rewrite(Rewrite::Reformatted) => {
            let text = replaced(
                &old,
                "required = [\"pane_id\", \"kind\", \"anchors\"]",
                "required = [\n    \"pane_id\",\n    \"kind\",\n    \"anchors\",\n]",
            );
            let text = replaced(
                &text,
                "\n[input]\n",
                "\n\n# What the model sends.\n[ input ]\n",
            );
            text.replace(" = ", "   =   ").replace("\n\n[", "\n\n\n  [")
        }
    }
}

/// Writes the old set into `dir/old/tools` and the new one into `dir/new/tools`, and returns
/// both directories.
fn write_sets(dir: &Path) -> (PathBuf, PathBuf) {
    let (old, _) = synthesize(&dir.join("old"), TOOLS);
    let new = dir.join("new").join("tools");
    std::fs::create_dir_all(&new).expect("create the manifest directory");
    for i in 0..TOOLS {
        let path = new.join(format!("tool_{i:05}.toml"));
        std::fs::write(&path, new_manifest(i)).expect("write a manifest");
    }
    (old, new)
}

/// Checked once, outside the timing: the new set is valid as `generate` reads it, and the diff
/// reports changes for exactly the 100 changed tools, each with the kind its change has, and
/// none for the rewritten ones.
fn check(old: &Path, new: &Path) {
    let specs = manifest::load_dir(new)
        .specs
        .expect("the new manifests are valid, examples included");
    assert_eq!(specs.len(), TOOLS);
    let report = diff::diff(
        &diff::load(old).expect("the old set loads").set,
        &diff::load(new).expect("the new set loads").set,
        &Policy::default(),
    );
    let mut found: BTreeMap<&str, BTreeSet<Kind>> = BTreeMap::new();
    for change in &report.changes {
        found.entry(&change.tool).or_default().insert(change.kind);
    }
    let expected: BTreeMap<String, Kind> = (0..TOOLS)
        .filter_map(|i| match edit(i) {
            Some(Edit::Change(change)) => Some((format!("tool_{i:05}"), change.kind(i))),
            _ => None,
        })
        .collect();
    assert_eq!(expected.len(), 100);
    assert_eq!(
        found.keys().copied().collect::<Vec<_>>(),
        expected.keys().map(String::as_str).collect::<Vec<_>>(),
        "the diff reports the changed tools and no other"
    );
    for (tool, kind) in &expected {
        assert!(
            found[tool.as_str()].contains(kind),
            "`{tool}`: expected a change of kind {kind}, found {:?}",
            found[tool.as_str()]
        );
    }
    let summary = report.summary();
    assert_eq!(summary.tools, 100);
    println!(
        "the diff of the two sets: {} changes in {} tools ({} errors, {} warnings, {} infos)",
        report.changes.len(),
        summary.tools,
        summary.error,
        summary.warning,
        summary.info,
    );
}

/// What the diff reads, exactly as it reads it.
fn load_both(old: &Path, new: &Path) -> (diff::Side, diff::Side) {
    (
        diff::load(old).expect("the old set loads"),
        diff::load(new).expect("the new set loads"),
    )
}

/// `tool-manifest diff OLD NEW --format json`, without the printing.
fn whole_diff(old: &Path, new: &Path) -> String {
    let (old, new) = load_both(old, new);
    let (old, new) = diff::Side::pair(old, new);
    diff::diff(&old, &new, &Policy::default()).render(diff::Format::Json)
}

fn bench(c: &mut Criterion) {
    let work = tempfile::tempdir().expect("temporary directory");
    let (old, new) = write_sets(work.path());
    check(&old, &new);
    let mut group = c.benchmark_group("diff");
    group.sample_size(10);
    let n = TOOLS.to_string();
    group.bench_function(BenchmarkId::new(&n, "load_both"), |b| {
        b.iter(|| {
            let (old, new) = load_both(&old, &new);
            black_box(old.set.len() + new.set.len())
        });
    });
    group.bench_function(BenchmarkId::new(&n, "diff"), |b| {
        b.iter(|| black_box(whole_diff(&old, &new).len()));
    });
    group.finish();

    interleaved(&old, &new);
}

/// `load_both` and the whole diff measured one right after the other in each of
/// `DIFF_BENCH_ROUNDS` rounds (10 unless set), and the median over the rounds of the diff's time
/// divided by `load_both`'s in the same round. On a shared machine whose load changes within
/// seconds, this ratio moves far less than that of two benchmarks measured one after the other.
fn interleaved(old: &Path, new: &Path) {
    let rounds: usize = std::env::var("DIFF_BENCH_ROUNDS").map_or(10, |rounds| {
        rounds
            .trim()
            .parse()
            .expect("DIFF_BENCH_ROUNDS is a number")
    });
    if rounds == 0 {
        return;
    }
    let time = |step: &mut dyn FnMut() -> usize| {
        let start = Instant::now();
        black_box(step());
        start.elapsed().as_secs_f64()
    };
    let mut ratios = Vec::new();
    for _ in 0..rounds {
        let load = time(&mut || {
            let (old, new) = load_both(old, new);
            old.set.len() + new.set.len()
        });
        let whole = time(&mut || whole_diff(old, new).len());
        ratios.push(whole / load);
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "interleaved, {TOOLS} tools, {} changed, {rounds} rounds, median ratio to load_both in the same round: diff {:.2}x",
        TOOLS / 10,
        ratios[ratios.len() / 2],
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
