//! Ranking tools for a query: the index behind the `tool_search` tool.
//!
//! A [`ToolIndex`] holds one BM25 document per tool, built from the tool's name, title,
//! description and parameter names. The text is tokenized in English: lower-cased, stop words
//! removed, words stemmed. Names are split into words first (`get_current_time` is `get current
//! time`, `listIssues` is `list issues`), and so are parameter names.
//!
//! The fields are weighted by repetition in the document text: the name's words three times, the
//! title twice, the description and the parameter names once each. A tool's name and title say
//! what it does in a few words, so a query word found there counts for more than one found in a
//! long description.
//!
//! ```
//! use serde_json::json;
//! use toolwright_core::{Mode, Safety, ToolSpec};
//! use toolwright_runtime::search::ToolIndex;
//!
//! let mut time = ToolSpec::new("get_current_time", Safety::ReadOnly, Mode::Parallel, json!({}));
//! time.description = "Returns the current time in a time zone.".to_owned();
//! let mut issues = ToolSpec::new("listIssues", Safety::ReadOnly, Mode::Parallel, json!({}));
//! issues.description = "Lists the issues of a repository.".to_owned();
//! let tools = [time, issues];
//! let index = ToolIndex::new(&tools);
//! assert_eq!(index.search("which issues are open", 5, |_| true), [1]);
//! assert_eq!(index.search("what time is it", 5, |_| true), [0]);
//! assert!(index.search("", 5, |_| true).is_empty());
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::sync::OnceLock;

use bm25::{DefaultTokenizer, Embedder, EmbedderBuilder, Language, Scorer, Tokenizer as _};
use toolwright_core::ToolSpec;

/// How many times a tool's name words are repeated in its document.
const NAME_WEIGHT: usize = 3;
/// How many times a tool's title is repeated in its document.
const TITLE_WEIGHT: usize = 2;
/// The longest query read, in bytes; the rest is ignored (a query is a short need, and the bound
/// keeps the cost of a search independent of its input).
const MAX_QUERY_BYTES: usize = 4096;

/// A BM25 index over tools' names, titles, descriptions and parameter names.
pub struct ToolIndex {
    /// Tokenizes and embeds documents and queries (its average document length fit to the tools).
    embedder: Embedder<u32>,
    /// The documents' embeddings, keyed by id.
    scorer: Scorer<usize, u32>,
    /// How many documents there are.
    len: usize,
}

impl fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolIndex")
            .field("len", &self.len)
            .field("avgdl", &self.embedder.avgdl())
            .finish_non_exhaustive()
    }
}

impl ToolIndex {
    /// Documents in the order given; a document's id is its position.
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        let documents: Vec<String> = tools.into_iter().map(document).collect();
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder: Embedder<u32> =
            EmbedderBuilder::with_fit_to_corpus(Language::English, &corpus).build();
        let mut scorer = Scorer::new();
        for (id, text) in corpus.iter().enumerate() {
            scorer.upsert(&id, embedder.embed(text));
        }
        Self {
            embedder,
            scorer,
            len: documents.len(),
        }
    }

    /// How many documents the index holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ids of the best `limit` matches among the documents `admit` accepts, best first.
    ///
    /// Only documents that match at least one query term are returned; equal scores are ordered
    /// by id. `admit` is applied before ranking: the result is the top `limit` of the admitted
    /// documents. A query without a word that is not a stop word matches nothing. Only the first
    /// 4096 bytes of a query are read.
    pub fn search(&self, query: &str, limit: usize, admit: impl Fn(usize) -> bool) -> Vec<usize> {
        if limit == 0 || self.len == 0 {
            return Vec::new();
        }
        let query = split_words(truncate(query, MAX_QUERY_BYTES));
        let embedding = self.embedder.embed(&query);
        let mut matches: Vec<(usize, f32)> = self
            .scorer
            .matches(&embedding)
            .into_iter()
            .filter(|scored| scored.score > 0.0 && admit(scored.id))
            .map(|scored| (scored.id, scored.score))
            .collect();
        matches.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(Ordering::Equal)
                .then(a.0.cmp(&b.0))
        });
        matches.truncate(limit);
        matches.into_iter().map(|(id, _)| id).collect()
    }
}

/// The terms the index reads in `text`: split as names are (`listIssues` is `list issues`), then
/// tokenized as every document and query is (lower-cased, stop words removed, stemmed). Two
/// texts match in a search exactly where their terms meet.
///
/// ```
/// use toolwright_runtime::search::terms;
///
/// assert_eq!(terms("listIssues"), ["list", "issu"]);
/// assert_eq!(terms("the issues of a repository"), ["issu", "repositori"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    static TOKENIZER: OnceLock<DefaultTokenizer> = OnceLock::new();
    TOKENIZER
        .get_or_init(|| DefaultTokenizer::new(Language::English))
        .tokenize(&split_words(text))
}

/// The text indexed for one tool (see the module's documentation for the weights).
///
/// Parameter descriptions are left out: they describe values (formats, defaults, limits) with
/// words many tools share, which would rank tools by their arguments rather than by what they do.
fn document(tool: &ToolSpec) -> String {
    let name = split_words(&tool.name);
    let mut text = String::new();
    for _ in 0..NAME_WEIGHT {
        text.push_str(&name);
        text.push_str(". ");
    }
    for _ in 0..TITLE_WEIGHT {
        text.push_str(&tool.title);
        text.push_str(". ");
    }
    text.push_str(&tool.description);
    text.push_str(". ");
    if let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(|value| value.as_object())
    {
        for key in properties.keys() {
            text.push_str(&split_words(key));
            text.push(' ');
        }
    }
    text
}

/// `text` with `_`, `-`, `.` and `/` as spaces and a space at every lower-to-upper case change
/// (`get_current_time` → `get current time`, `listIssues` → `list Issues`).
///
/// Written here because the crate's tokenizer segments at Unicode word boundaries, which keep `_`
/// inside a word and do not split at case changes, so `list_issues` would be one token.
fn split_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous_lower = false;
    for c in text.chars() {
        if matches!(c, '_' | '-' | '.' | '/') {
            out.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            out.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// The longest prefix of `text` of at most `max` bytes that ends at a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolwright_core::{Mode, Safety};

    fn tool(name: &str, description: &str, params: &[&str]) -> ToolSpec {
        let properties: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|p| ((*p).to_owned(), json!({"type": "string"})))
            .collect();
        let mut spec = ToolSpec::new(
            name,
            Safety::ReadOnly,
            Mode::Parallel,
            json!({"type": "object", "properties": properties}),
        );
        spec.description = description.to_owned();
        spec
    }

    fn tools() -> Vec<ToolSpec> {
        vec![
            tool("get_current_time", "Returns the time now.", &["timezone"]),
            tool("listIssues", "Lists a repository's issues.", &["repo"]),
            tool("create_issue", "Opens an issue.", &["repoOwner", "title"]),
            tool("send_email", "Sends a message.", &["recipientAddress"]),
        ]
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(split_words("get_current_time"), "get current time");
        assert_eq!(split_words("listIssues"), "list Issues");
        assert_eq!(split_words("a-b.c/d"), "a b c d");
        let tools = tools();
        let index = ToolIndex::new(&tools);
        assert_eq!(index.search("current", 5, |_| true), [0]);
        assert_eq!(index.search("list", 5, |_| true), [1]);
        assert_eq!(index.search("recipient address", 5, |_| true), [3]);
    }

    #[test]
    fn ranking_is_deterministic() {
        let tools = tools();
        let index = ToolIndex::new(&tools);
        let first = index.search("issue repository", 5, |_| true);
        assert_eq!(first.first(), Some(&1));
        for _ in 0..20 {
            assert_eq!(
                ToolIndex::new(&tools).search("issue repository", 5, |_| true),
                first
            );
        }
        // identical documents tie, and ties are ordered by id
        let twins = [tool("a_b", "weather", &[]), tool("a_b", "weather", &[])];
        assert_eq!(
            ToolIndex::new(&twins).search("weather", 5, |_| true),
            [0, 1]
        );
    }

    #[test]
    fn admit_applies_before_ranking() {
        let tools = tools();
        let index = ToolIndex::new(&tools);
        assert_eq!(index.search("issue", 1, |_| true), [1]);
        assert_eq!(index.search("issue", 1, |id| id != 1), [2]);
        assert!(index.search("issue", 5, |_| false).is_empty());
    }

    #[test]
    fn empty_and_unmatched_queries_return_nothing() {
        let tools = tools();
        let index = ToolIndex::new(&tools);
        assert_eq!(index.len(), 4);
        assert!(!index.is_empty());
        assert!(index.search("", 5, |_| true).is_empty());
        assert!(index.search("   ", 5, |_| true).is_empty());
        assert!(index.search("the of and", 5, |_| true).is_empty());
        assert!(index.search("zebra", 5, |_| true).is_empty());
        assert!(index.search("issue", 0, |_| true).is_empty());
        let empty = ToolIndex::new(&[]);
        assert!(empty.is_empty());
        assert!(empty.search("issue", 5, |_| true).is_empty());
    }

    #[test]
    fn any_query_is_fine() {
        let tools = tools();
        let index = ToolIndex::new(&tools);
        let huge = "issué ".repeat(100_000);
        assert_eq!(index.search(&huge, 5, |_| true).first(), Some(&1));
        for query in [
            "\u{0}\u{fffd}\u{feff}",
            "💥💥",
            "_-./",
            "ÄÖÜß İ",
            "\u{202e}issue",
        ] {
            let _ = index.search(query, 5, |_| true);
        }
    }
}
