//! Prompt redaction: the `Redactor` (SIMD literal search, and its Aho-Corasick automaton
//! fallback) against a baseline that applies one `Regex::replace_all` per rule in sequence, and
//! against one combined regex holding every rule and the keys as escaped literals.
//!
//! Run with `cargo bench -p toolwright-secrets --bench redact`. Throughput is reported in bytes/s.

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regex::{Captures, Regex};
use toolwright_secrets::{Redactor, SecretString};

const PROVIDER_KEY: &str = "prov-7Hq2-Xk9w-Lm4p-Zr8t";
const SEARCH_KEY: &str = "tvly-3f9a8b7c6d5e4f3a2b1c";

/// Sentences without secrets, with many near-misses of the anchors (`users/`, `/opt/home/`,
/// `risk-free`, `a basic trend`).
const CLEAN: &[&str] = &[
    "Show me the daily candles for AAPL and MSFT over the last year, with a 20-period moving average. ",
    "Add the RSI indicator on a new pane below the price pane and mark the overbought zone at 70. ",
    "Compare the search results near the users/admins list with the /usr/share/data export. ",
    "Open /opt/home/reports/q3.csv and plot the risk-free rate against the ten-year yield. ",
    "What is the basic trend since March? Draw a trend line from the February low to the April high. ",
    "Déplacez la ligne horizontale à 182,50 € et ajoutez une comparaison avec l'indice 日経平均. ",
    "Remove every drawing on pane_2, then clear the comparisons and reset the settings to defaults. ",
    "Is the volume spike on the 14th unusual for this instrument? Explain it in two sentences. ",
];

/// Sentences that each hold a secret of one of the rules.
const SECRETS: &[&str] = &[
    "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.Sfl-_KxwRJ~+/a=' ",
    "my key is sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678 and it fails. ",
    "{\"headers\": {\"Authorization\": \"Basic dXNlcjpwYXNzd29yZA==\"}} ",
    "the file /Users/jane.doe/Documents/charts/q3.png is empty. ",
    "read \"C:\\Users\\Zoë Müller\\Desktop\\bars.csv\" please. ",
    "anthropic sk-ant-api03-Xy_Z-0123456789abcdefABCDEF-ghijklmnop works. ",
    "see /home/alice-b/data/q3.csv and tell me. ",
    "search key tvly-3f9a8b7c6d5e4f3a2b1c and prov-7Hq2-Xk9w-Lm4p-Zr8t glued:xprov-7Hq2-Xk9w-Lm4p-Zr8ty. ",
];

fn build_prompt(size: usize, dense: bool) -> String {
    let mut text = String::with_capacity(size + 256);
    let mut i = 0;
    while text.len() < size {
        text.push_str(CLEAN[i % CLEAN.len()]);
        if dense {
            text.push_str(SECRETS[i % SECRETS.len()]);
        }
        i += 1;
    }
    let mut cut = size;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

const NAME: &str = r#"[^/\\\s"'`<>|:*?,;()\[\]{}!=]+"#;

/// One `Regex::replace_all` per rule, in sequence.
struct Baseline {
    rules: Vec<(Regex, &'static str)>,
}

impl Baseline {
    fn new(keys: &[&str]) -> Self {
        let keys = keys
            .iter()
            .map(|k| regex::escape(k))
            .collect::<Vec<_>>()
            .join("|");
        let rules = vec![
            (
                r"(?-u:\b)((?i:bearer|basic)[ \t]+)[A-Za-z0-9._~+/-]+=*".to_owned(),
                "${1}[REDACTED]",
            ),
            (
                r"(^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]+".to_owned(),
                "${1}[REDACTED]",
            ),
            (
                format!(r"(^|[^A-Za-z0-9._~$%/\\-]|://)/(?:Users|home)/{NAME}"),
                "${1}[LOCAL_PATH]",
            ),
            (
                format!(r"(^|[^A-Za-z0-9])[A-Za-z]:(?:\\\\?|/)(?i:users)(?:\\\\?|/){NAME}"),
                "${1}[LOCAL_PATH]",
            ),
            (keys, "[REDACTED]"),
        ];
        let rules = rules
            .into_iter()
            .map(|(pattern, with)| (Regex::new(&pattern).expect("baseline regex"), with))
            .collect();
        Self { rules }
    }

    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (regex, with) in &self.rules {
            if let Cow::Owned(changed) = regex.replace_all(&out, *with) {
                out = Cow::Owned(changed);
            }
        }
        out
    }
}

/// All rules and the keys (escaped literals) in one regex.
struct Combined {
    regex: Regex,
}

impl Combined {
    fn new(keys: &[&str]) -> Self {
        let keys = keys
            .iter()
            .map(|k| regex::escape(k))
            .collect::<Vec<_>>()
            .join("|");
        let pattern = format!(
            r"(?P<auth>(?-u:\b)(?i:bearer|basic)[ \t]+)[A-Za-z0-9._~+/-]+=*|(?P<sk>^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]+|(?P<home>^|[^A-Za-z0-9._~$%/\\-]|://)/(?:Users|home)/{NAME}|(?P<win>^|[^A-Za-z0-9])[A-Za-z]:(?:\\\\?|/)(?i:users)(?:\\\\?|/){NAME}|{keys}"
        );
        Self {
            regex: Regex::new(&pattern).expect("combined regex"),
        }
    }

    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.regex.replace_all(text, |caps: &Captures<'_>| {
            let group = |name| caps.name(name).map(|m| m.as_str());
            if let Some(prefix) = group("auth") {
                format!("{prefix}[REDACTED]")
            } else if let Some(prefix) = group("sk") {
                format!("{prefix}[REDACTED]")
            } else if let Some(prefix) = group("home").or_else(|| group("win")) {
                format!("{prefix}[LOCAL_PATH]")
            } else {
                "[REDACTED]".to_owned()
            }
        })
    }
}

fn bench(c: &mut Criterion) {
    let keys = [
        SecretString::new(PROVIDER_KEY),
        SecretString::new(SEARCH_KEY),
    ];
    let redactor = Redactor::new(&[&keys[0], &keys[1]]);
    // 64 more keys that no prompt holds: more literals than the SIMD searcher takes, so this
    // redactor searches with its fallback automaton.
    let unused: Vec<SecretString> = (0..64)
        .map(|i| SecretString::new(format!("\u{1}unused-{i}")))
        .collect();
    let padded: Vec<&SecretString> = keys.iter().chain(&unused).collect();
    let automaton = Redactor::new(&padded);
    assert!(format!("{automaton:?}").contains("\"automaton\""));
    let baseline = Baseline::new(&[PROVIDER_KEY, SEARCH_KEY]);
    let combined = Combined::new(&[PROVIDER_KEY, SEARCH_KEY]);

    for dense in [false, true] {
        let kind = if dense { "secret-dense" } else { "clean" };
        let mut group = c.benchmark_group(format!("redact/{kind}"));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for size in [1024, 8 * 1024, 64 * 1024] {
            let prompt = build_prompt(size, dense);
            let redacted = redactor.redact(&prompt);
            assert_eq!(redacted, automaton.redact(&prompt), "both searchers agree");
            assert_eq!(
                matches!(redacted, Cow::Borrowed(_)),
                !dense,
                "clean prompts come back borrowed, dense ones changed"
            );
            for key in [PROVIDER_KEY, SEARCH_KEY] {
                assert!(!redacted.contains(key), "a configured key survived");
                assert!(!baseline.redact(&prompt).contains(key));
                assert!(!combined.redact(&prompt).contains(key));
            }
            let label = format!("{}KB", size / 1024);
            group.throughput(Throughput::Bytes(prompt.len() as u64));
            group.bench_with_input(BenchmarkId::new("redactor", &label), &prompt, |b, p| {
                b.iter(|| black_box(redactor.redact(black_box(p))))
            });
            group.bench_with_input(
                BenchmarkId::new("redactor-automaton", &label),
                &prompt,
                |b, p| b.iter(|| black_box(automaton.redact(black_box(p)))),
            );
            group.bench_with_input(
                BenchmarkId::new("combined-regex", &label),
                &prompt,
                |b, p| b.iter(|| black_box(combined.redact(black_box(p)))),
            );
            group.bench_with_input(BenchmarkId::new("baseline", &label), &prompt, |b, p| {
                b.iter(|| black_box(baseline.redact(black_box(p))))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
