//! Redaction of user prompts.
//!
//! Before a user prompt is stored in the session or sent to the model, it goes through a
//! [`Redactor`] ([`redact_string`] for one-off use). Three rules apply:
//!
//! 1. **Credentials.** The value after an HTTP auth scheme `Bearer` or `Basic` and keys in the
//!    `sk-…` style (`sk-…`, `sk-proj-…`, `sk-ant-…`) become `[REDACTED]`.
//! 2. **Home directories.** `/Users/<name>`, `/home/<name>`, `/root` and `C:\Users\<name>`
//!    (any drive, `\`, `\\` or `/` as separator) become `[LOCAL_PATH]`:
//!    `/home/alice/data/q3.csv` → `[LOCAL_PATH]/data/q3.csv`, also when the path only
//!    normalizes to one (`/home//alice`, `/home/./alice`, `/home/../home/alice`).
//! 3. **Configured keys.** Every occurrence of the raw value of a configured key (provider key,
//!    search-service key) becomes `[REDACTED]`, wherever it occurs and whatever it looks like.
//!
//! # Where it runs
//!
//! Redaction applies to **user prompts only**. A run accepts a prompt as a [`RedactedPrompt`],
//! which only [`Redactor::prompt`] can make, so a prompt cannot be recorded or sent unredacted by
//! mistake. Model output, tool results, errors, run events and usage metadata pass through
//! untouched: **a tool must never put a secret into its result**, nothing downstream removes it.
//!
//! # The rules in detail
//!
//! - *Auth values.* The scheme word `Bearer` or `Basic`, in any case whose last three letters
//!   are all lower or all upper case (`Bearer`, `bearer`, `BEARER`), as a whole word, followed by
//!   spaces or tabs (in a URL `+` or `%20`) and a value made of ASCII letters, digits and
//!   `.-_~+/`, then any `=` padding (RFC 6750 `b64token`). The scheme word stays, the value
//!   becomes `[REDACTED]`: `Authorization: Bearer [REDACTED]`. Percent-encoded text is read as
//!   what it encodes: blanks may be `%20` or `%09`, the value may hold escapes of its characters
//!   (`%2B`, `%2F`, any case of hex digit) and end in `%3D` padding, and a percent escape before
//!   the scheme separates it like any other non-word character
//!   (`?h=Authorization%3A%20Bearer%20ab%2Fc%3D` → `…Bearer%20[REDACTED]`). With a capitalised
//!   or upper-case scheme any value is redacted, so prose such as `Bearer token` loses the word
//!   after the scheme. With an all lower-case scheme (`a basic chart`) the value is redacted only when it
//!   looks like a credential: it holds a character other than `a`–`z` (an escape counts as
//!   one), or is 20 characters or longer.
//! - *`sk-` keys.* `sk-` not preceded by an ASCII letter or digit, followed by at least one of
//!   ASCII letters, digits, `_` and `-`; the whole key becomes `[REDACTED]`.
//! - *Home directories.* A prefix counts only at the start of a path: `/home/`, `/Users/` and
//!   `/root` (exact case) must not follow a letter, digit or one of `.-_~$%\/`, except `://`
//!   (`file:///home/alice`), so `/opt/home/x` and `~/home/x` stay; a drive letter must not
//!   follow a letter or digit; `users` is matched in any case on Windows. `/root` is a whole
//!   segment (`/rooted`, `/root.d` stay) and stands for the home directory itself, without a
//!   name after it.
//! - *Normalized paths.* Before the prefix, repeated `/` (`//home/alice`; never the `//` after a
//!   URL scheme: `https://home/x` stays), `.` segments (`/./home/alice`) and `..` segments with
//!   the segments they cancel (`/home/../home/alice`, `/tmp/../Users/bob`) are resolved, and the
//!   marker replaces them too: `/tmp/../home/alice/x` → `[LOCAL_PATH]/x`. They must lead back to
//!   the start of a path (`https://example.com/../home/x` and `tmp/../home/x` stay); a chain
//!   longer than 256 bytes is taken to do so. Between the prefix and the name, repeated
//!   separators and `.` segments are skipped (`/home//alice`, `/home/./alice`,
//!   `C:\Users\.\bob`); `.` and `..` are no user names (`/home/../x` stays). A `..` after the
//!   name is not resolved: `/home/bob/../alice` → `[LOCAL_PATH]/../alice`. The user name ends at
//!   the next `/` or `\`, whitespace, a quote (also `«»“”‘’`), or one of ``<>|:*?,;()[]{}!=``;
//!   an apostrophe followed by a letter does not end it (`/Users/o'brien`); trailing dots are
//!   left out of it (`see /home/alice.` keeps its full stop). When the path follows a quote
//!   (`"`, `'` or a backtick), the name runs to the next separator or the closing quote on the
//!   same line, so it may contain spaces: `"/Users/Jane Doe/x"` → `"[LOCAL_PATH]/x"`. Without a
//!   quote, one or two more words separated by single spaces belong to the name when the last
//!   one is directly followed by a separator: `/Users/Jane Doe/x` → `[LOCAL_PATH]/x`.
//! - *Configured keys.* Matched byte for byte (case-sensitive), any non-empty value, repeated or
//!   glued to other text. A very short key (`a`, `42`) is redacted everywhere it occurs, inside
//!   ordinary words and numbers too, which can make a prompt unreadable: configure real keys. A
//!   key that is a substring of `[REDACTED]` or `[LOCAL_PATH]` shows up again in the output
//!   through the markers themselves.
//! - Where matches of different rules overlap, the outer one wins (a key inside a redacted home
//!   path disappears with it); partially overlapping matches are joined into one `[REDACTED]`.
//!
//! # Speed
//!
//! One pass of a SIMD multi-literal search (Teddy, from the `aho-corasick` crate) finds every
//! position where an anchor of a built-in rule (`sk-`, `rer` of `Bearer`, `sic` of `Basic`,
//! `/home/`, `/Users/`, `/root`, `:\U`, `:/u`, …) or a configured key starts; anchors are chosen
//! so that their first bytes are rare in prose. Each hit is checked in place and the text is
//! copied once, around the replaced spans. Text with no secret is returned as [`Cow::Borrowed`],
//! without allocating. Where the SIMD search is unavailable (a CPU without SSSE3 or NEON, more
//! than about 50 keys, or several one-character keys) an Aho-Corasick automaton finds the same
//! positions. `docs/performance.md` has the numbers.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use aho_corasick::{AhoCorasick, Input, MatchKind, packed};
use serde::Serialize;

use crate::secrets::SecretString;

/// The marker that replaces credentials and configured keys.
pub const REDACTED: &str = "[REDACTED]";
/// The marker that replaces a home-directory prefix.
pub const LOCAL_PATH: &str = "[LOCAL_PATH]";

#[derive(Debug, Clone, Copy)]
enum Rule {
    SkKey,
    Bearer,
    Basic,
    Home,
    MacUsers,
    Root,
    WindowsUsers,
}

/// Literal anchors of the built-in rules, chosen so that their first three bytes are rare in
/// prose (`rer` of `Bearer`, `sic` of `Basic`, the colon after a drive letter).
const ANCHORS: [(&str, Rule); 13] = [
    ("sk-", Rule::SkKey),
    ("rer", Rule::Bearer),
    ("RER", Rule::Bearer),
    ("sic", Rule::Basic),
    ("SIC", Rule::Basic),
    ("/home/", Rule::Home),
    ("/Users/", Rule::MacUsers),
    ("/root", Rule::Root),
    (":\\U", Rule::WindowsUsers),
    (":\\u", Rule::WindowsUsers),
    (":/U", Rule::WindowsUsers),
    (":/u", Rule::WindowsUsers),
    (":\\\\", Rule::WindowsUsers),
];

/// Finds the next position where an anchor or a configured key starts.
#[derive(Clone)]
enum Finder {
    /// SIMD (Teddy) search over all literals: the fast path.
    Packed(packed::Searcher),
    /// An Aho-Corasick automaton, where Teddy is unavailable or there are too many keys.
    Automaton(AhoCorasick),
    /// Every position is a candidate (only if no automaton can be built).
    Everywhere,
}

impl Finder {
    fn build(patterns: &[&str]) -> Self {
        let searcher = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(patterns)
            .build();
        if let Some(searcher) = searcher {
            return Finder::Packed(searcher);
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns)
            .map_or(Finder::Everywhere, Finder::Automaton)
    }

    /// The first position at or after `at` where a literal starts.
    fn next(&self, text: &str, at: usize) -> Option<usize> {
        match self {
            Finder::Packed(searcher) => searcher
                .find_in(text, aho_corasick::Span::from(at..text.len()))
                .map(|found| found.start()),
            Finder::Automaton(automaton) => automaton
                .try_find(Input::new(text).span(at..text.len()))
                .map_or(Some(at), |found| found.map(|found| found.start())),
            Finder::Everywhere => (at < text.len()).then_some(at),
        }
    }
}

/// Removes credentials, home-directory prefixes and the configured keys from user prompts.
///
/// Build it once per set of configured keys (they change rarely) and reuse it.
///
/// ```
/// use toolwright_secrets::{Redactor, SecretString};
///
/// let key = SecretString::new("my-search-key-42");
/// let redactor = Redactor::new(&[&key]);
/// assert_eq!(
///     redactor.redact("curl -H 'Authorization: Bearer abc.def' /home/alice/q.csv?k=my-search-key-42"),
///     "curl -H 'Authorization: Bearer [REDACTED]' [LOCAL_PATH]/q.csv?k=[REDACTED]",
/// );
/// // Clean text comes back borrowed.
/// assert!(matches!(redactor.redact("show AAPL daily"), std::borrow::Cow::Borrowed(_)));
/// ```
#[derive(Clone)]
pub struct Redactor {
    finder: Finder,
    keys: Vec<SecretString>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The finder holds the keys: never print it.
        let search = match self.finder {
            Finder::Packed(_) => "simd",
            Finder::Automaton(_) => "automaton",
            Finder::Everywhere => "every position",
        };
        f.debug_struct("Redactor")
            .field("search", &search)
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new(&[])
    }
}

impl Redactor {
    /// A redactor for the built-in rules and the given configured keys (empty keys are ignored).
    pub fn new(keys: &[&SecretString]) -> Self {
        let mut values: Vec<&str> = keys
            .iter()
            .map(|key| key.expose_secret())
            .filter(|key| !key.is_empty())
            .collect();
        values.sort_unstable();
        values.dedup();
        let mut patterns: Vec<&str> = ANCHORS.iter().map(|&(anchor, _)| anchor).collect();
        patterns.extend(values.iter().copied());
        Self {
            finder: Finder::build(&patterns),
            keys: values.into_iter().map(SecretString::new).collect(),
        }
    }

    /// A redactor for the built-in rules only.
    pub fn without_keys() -> Self {
        Self::default()
    }

    /// How many distinct configured keys it removes.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// Redacts `text`. Returns it borrowed when nothing had to change.
    ///
    /// Redacting its own output changes nothing more: a marker can stand where a character of
    /// the text kept what followed it from matching (the `~` of `~/home/x` swallowed by a
    /// `[REDACTED]` joined from overlapping matches leaves `/home/x` after a `]`), so a text
    /// that changed is redacted again until a pass changes nothing, at most
    /// [`MAX_PASSES`](Self::MAX_PASSES) passes in all. Only text holding a secret pays for the
    /// second pass; clean text is searched once.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Cow::Owned(mut redacted) = self.pass(text) else {
            return Cow::Borrowed(text);
        };
        for _ in 1..Self::MAX_PASSES {
            match self.pass(&redacted) {
                Cow::Borrowed(_) => break,
                Cow::Owned(again) => redacted = again,
            }
        }
        Cow::Owned(redacted)
    }

    /// The most passes [`Redactor::redact`] makes over one text. Each pass after the first only
    /// finds what a marker uncovered; the bound keeps a configured key that the markers
    /// themselves spell (see the module's documentation) from making it loop.
    pub const MAX_PASSES: usize = 4;

    /// One pass of the rules and keys over `text`.
    fn pass<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let bytes = text.as_bytes();
        let mut spans: Vec<Span> = Vec::new();
        let mut at = 0;
        // The end of the last `sk-` key: an `sk-` inside it (`sk-sk-sk-…`) would give a span
        // inside that one, and scanning it again would make such text quadratic.
        let mut sk_end = 0;
        // Every position where some literal starts is visited (the search resumes one byte
        // after each hit), so overlapping anchors and keys are all seen.
        while let Some(start) = self.finder.next(text, at) {
            let rest = &bytes[start..];
            for &(anchor, rule) in &ANCHORS {
                if !rest.starts_with(anchor.as_bytes()) {
                    continue;
                }
                if matches!(rule, Rule::SkKey) && start < sk_end {
                    continue;
                }
                let found = check(text, rule, start);
                if let (Rule::SkKey, Some(span)) = (rule, found) {
                    sk_end = span.end;
                }
                spans.extend(found);
            }
            for key in &self.keys {
                let key = key.expose_secret().as_bytes();
                if rest.starts_with(key) {
                    spans.push(Span::redacted(start, start + key.len()));
                }
            }
            at = start + 1;
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(apply(text, spans))
    }

    /// Redacts a user prompt, making the only value a run accepts as a prompt.
    pub fn prompt(&self, text: &str) -> RedactedPrompt {
        RedactedPrompt(self.redact(text).into_owned())
    }
}

/// Redacts `text` with the built-in rules and `keys`. Builds a [`Redactor`] each time: when many
/// prompts are redacted with the same keys, keep a `Redactor` instead.
pub fn redact_string<'a>(text: &'a str, keys: &[&SecretString]) -> Cow<'a, str> {
    Redactor::new(keys).redact(text)
}

/// A user prompt that went through a [`Redactor`]. It can only be made by [`Redactor::prompt`],
/// so a run that takes a `RedactedPrompt` never records or sends an unredacted one.
///
/// Only user prompts are redacted. Model output, tool results, errors, run events and usage
/// metadata are recorded and sent as they are: a tool must never put a secret into its result.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RedactedPrompt(String);

impl RedactedPrompt {
    /// The redacted text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The redacted text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl Deref for RedactedPrompt {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for RedactedPrompt {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RedactedPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Marker {
    Redacted,
    LocalPath,
}

impl Marker {
    fn text(self) -> &'static str {
        match self {
            Marker::Redacted => REDACTED,
            Marker::LocalPath => LOCAL_PATH,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    marker: Marker,
}

impl Span {
    fn redacted(start: usize, end: usize) -> Self {
        Self {
            start,
            end,
            marker: Marker::Redacted,
        }
    }
}

/// Replaces the spans (any order, possibly overlapping) by their markers.
fn apply(text: &str, mut spans: Vec<Span>) -> String {
    // By start, the longest first, `[REDACTED]` before `[LOCAL_PATH]` for the same text.
    spans.sort_unstable_by(|a, b| {
        (a.start, std::cmp::Reverse(a.end), a.marker).cmp(&(
            b.start,
            std::cmp::Reverse(b.end),
            b.marker,
        ))
    });
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(cur) if span.start < cur.end => {
                if span.end > cur.end {
                    // Partial overlap: one span, and the stronger marker.
                    cur.end = span.end;
                    cur.marker = Marker::Redacted;
                }
            }
            _ => merged.push(span),
        }
    }
    let mut out = String::with_capacity(text.len() + merged.len() * LOCAL_PATH.len());
    let mut copied = 0;
    for span in merged {
        out.push_str(&text[copied..span.start]);
        out.push_str(span.marker.text());
        copied = span.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Checks the rule of an anchor found at `start`; answers the span to replace.
fn check(text: &str, rule: Rule, start: usize) -> Option<Span> {
    match rule {
        Rule::SkKey => sk_key(text, start),
        Rule::Bearer => auth_value(text, start, "bearer"),
        Rule::Basic => auth_value(text, start, "basic"),
        Rule::Home => home(text, start, "/home/"),
        Rule::MacUsers => home(text, start, "/Users/"),
        Rule::Root => root(text, start),
        Rule::WindowsUsers => windows_users(text, start),
    }
}

fn byte_at(text: &str, at: usize) -> Option<u8> {
    text.as_bytes().get(at).copied()
}

/// `sk-` + `[A-Za-z0-9_-]+`, not after an ASCII letter or digit.
fn sk_key(text: &str, start: usize) -> Option<Span> {
    if start > 0 && byte_at(text, start - 1)?.is_ascii_alphanumeric() {
        return None;
    }
    let body = start + "sk-".len();
    let end = run(text, body, |b| {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
    });
    (end > body).then(|| Span::redacted(start, end))
}

/// The end of the run of bytes from `from` that satisfy `accept`.
fn run(text: &str, from: usize, accept: impl Fn(u8) -> bool) -> usize {
    let bytes = text.as_bytes();
    let mut at = from;
    while at < bytes.len() && accept(bytes[at]) {
        at += 1;
    }
    at
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'~' | b'+' | b'/')
}

/// The byte at `at` and how many bytes of text stand for it: 1, or 3 for a percent escape
/// (`%2F` is `/`). Decoded in place, byte by byte, because the scan needs the positions in the
/// original text, which a decoder of whole strings does not give.
fn decoded_at(text: &str, at: usize) -> Option<(u8, usize)> {
    let bytes = text.as_bytes();
    let b = *bytes.get(at)?;
    if b == b'%' {
        let hex = |i: usize| bytes.get(i).and_then(|&d| char::from(d).to_digit(16));
        if let (Some(high), Some(low)) = (hex(at + 1), hex(at + 2)) {
            // Two hex digits are at most 0xFF.
            return Some((u8::try_from(high * 16 + low).ok()?, 3));
        }
    }
    Some((b, 1))
}

/// The end of the run from `from` of bytes, plain or percent-encoded, that satisfy `accept`.
fn decoded_run(text: &str, from: usize, accept: impl Fn(u8) -> bool) -> usize {
    let mut at = from;
    while let Some((b, width)) = decoded_at(text, at) {
        if !accept(b) {
            break;
        }
        at += width;
    }
    at
}

/// The end of the blanks after an auth scheme: spaces and tabs, also as `%20`, `%09` or (in a
/// URL) `+`.
fn blanks(text: &str, from: usize) -> usize {
    decoded_run(text, from, |b| matches!(b, b' ' | b'\t' | b'+'))
}

/// True when the auth scheme starting at `start` is a whole word: nothing of a word before
/// it, or a percent escape (`Authorization%3ABearer`, `%22Bearer`).
fn scheme_starts_word(text: &str, start: usize) -> bool {
    let Some(before) = start.checked_sub(1).and_then(|at| byte_at(text, at)) else {
        return true;
    };
    !is_word_byte(before)
        || start
            .checked_sub(3)
            .and_then(|at| decoded_at(text, at))
            .is_some_and(|(_, width)| width == 3)
}

/// True when a path may start at `at`: the previous character is not part of a path segment.
fn path_start(text: &str, at: usize) -> bool {
    let before = &text[..at];
    match before.chars().next_back() {
        None => true,
        // Already inside a redacted home directory (redacting twice changes nothing more).
        Some(']') => !before.ends_with(LOCAL_PATH),
        Some('/') => before.ends_with("://"),
        Some(c) if c.is_ascii() => {
            !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '~' | '$' | '%' | '\\'))
        }
        Some(c) => !c.is_alphanumeric(),
    }
}

/// The quote opening a path starting at `at`, if any.
fn opening_quote(text: &str, at: usize) -> Option<u8> {
    let q = byte_at(text, at.checked_sub(1)?)?;
    matches!(q, b'"' | b'\'' | b'`').then_some(q)
}

/// `Bearer`/`Basic` (found by the anchor `rer`/`sic` at `anchor`), blanks, then a `b64token`.
fn auth_value(text: &str, anchor: usize, scheme: &str) -> Option<Span> {
    let start = (anchor + 3).checked_sub(scheme.len())?;
    let end = start + scheme.len();
    let word = text.get(start..end)?;
    if !word.eq_ignore_ascii_case(scheme) {
        return None;
    }
    if !scheme_starts_word(text, start) {
        return None;
    }
    let value = blanks(text, end);
    if value == end {
        return None;
    }
    let body = decoded_run(text, value, is_token_byte);
    if body == value {
        return None;
    }
    let value_end = decoded_run(text, body, |b| b == b'=');
    if word == scheme {
        // All lower case (`a basic chart`): only values that look like credentials. An
        // escape stands for a character other than `a`–`z`, so an encoded value counts as one.
        let plain_word = text[value..value_end]
            .bytes()
            .all(|b| b.is_ascii_lowercase());
        if plain_word && value_end - value < 20 {
            return None;
        }
    }
    Some(Span::redacted(value, value_end))
}

/// `/home/<name>` or `/Users/<name>` starting at `start`.
fn home(text: &str, start: usize, prefix: &str) -> Option<Span> {
    let path = resolved_path_start(text, start)?;
    local_path(text, path, start + prefix.len())
}

/// `/root`, the home directory of `root`, starting at `start`: the path ends after it, or goes
/// on with a separator.
fn root(text: &str, start: usize) -> Option<Span> {
    let end = start + "/root".len();
    // `see /root.` keeps its full stop, `/root.d` is another directory.
    let dots = run(text, end, |b| b == b'.');
    let ends = match text[dots..].chars().next() {
        None => true,
        Some(c) => ends_unquoted_name(c) && (dots == end || !is_separator_char(c)),
    };
    if !ends {
        return None;
    }
    let path = resolved_path_start(text, start)?;
    Some(Span {
        start: path,
        end,
        marker: Marker::LocalPath,
    })
}

/// How many bytes before a home prefix [`resolved_path_start`] reads at most, so that each
/// anchor costs a bounded amount of work however many `/..` precede it.
const RESOLVE_LIMIT: usize = 256;

/// Where the path whose segment at `slash` starts a home prefix really starts, when the
/// segments before it resolve to the root: empty segments (`//home`), `.` segments
/// (`/./home`) and `..` segments with the segments they cancel (`/home/../home`,
/// `/tmp/../home`) are stepped over. `None` when the path does not start there (`/opt/home`,
/// `https://example.com/../home`, `tmp/../home`). A chain of such segments longer than
/// [`RESOLVE_LIMIT`] bytes is taken to resolve to the root: better one prefix too many than a
/// home directory left in.
fn resolved_path_start(text: &str, slash: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let limit = slash.saturating_sub(RESOLVE_LIMIT);
    let mut at = slash;
    // `..` segments still to cancel.
    let mut up = 0usize;
    loop {
        if at > 0 && at <= limit {
            return Some(at);
        }
        let before = &bytes[..at];
        if before.ends_with(b"/..") {
            up += 1;
            at -= 3;
        } else if before.ends_with(b"/.") {
            at -= 2;
        } else if before.ends_with(b"/") && !before.ends_with(b":/") && !before.ends_with(b"://") {
            // A repeated separator, but never the `//` of a URL (`https://home/x`).
            at -= 1;
        } else if up > 0 {
            let segment = bytes[limit..at]
                .iter()
                .rposition(|&b| !is_segment_byte(b))
                .map_or(limit, |i| limit + i + 1);
            if segment == at {
                // The first segment of the path (`see /../home`): `..` of the root is the root.
                up = 0;
            } else if segment > 0 && bytes[segment - 1] == b'/' {
                up -= 1;
                at = segment - 1;
            } else if segment == limit && limit > 0 {
                // A segment longer than the limit.
                return Some(at);
            } else {
                // A relative path (`tmp/../home`).
                return None;
            }
        } else {
            break;
        }
    }
    path_start(text, at).then_some(at)
}

/// A byte of a path segment: not a separator and not what ends an unquoted user name.
fn is_segment_byte(b: u8) -> bool {
    b >= 0x80 || !ends_unquoted_name(char::from(b))
}

/// After `C:` (the colon at `colon`): one separator (`\`, `\\` or `/`), `Users` in any case,
/// one separator, the name.
fn windows_users(text: &str, colon: usize) -> Option<Span> {
    let drive = colon.checked_sub(1)?;
    if !byte_at(text, drive)?.is_ascii_alphabetic() {
        return None;
    }
    if text[..drive]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
    {
        return None;
    }
    let users = separator_end(text, colon + 1)?;
    let after = text.get(users..users + "users".len())?;
    if !after.eq_ignore_ascii_case("users") {
        return None;
    }
    let name = separator_end(text, users + "users".len())?;
    local_path(text, drive, name)
}

/// The end of one path separator (`/`, `\`, or `\\` as written in JSON) at `at`.
fn separator_end(text: &str, at: usize) -> Option<usize> {
    match byte_at(text, at)? {
        b'/' => Some(at + 1),
        b'\\' if byte_at(text, at + 1) == Some(b'\\') => Some(at + 2),
        b'\\' => Some(at + 1),
        _ => None,
    }
}

/// The span of a home prefix starting at `path` whose user name follows the separators at
/// `name`. Empty and `.` segments before the name are stepped over (`/home//alice`,
/// `/home/./alice`); `.` and `..` are no names.
fn local_path(text: &str, path: usize, name: usize) -> Option<Span> {
    let name = past_empty_segments(text, name);
    let end = name_end(text, name, opening_quote(text, path))?;
    if matches!(&text[name..end], "." | "..") {
        return None;
    }
    Some(Span {
        start: path,
        end,
        marker: Marker::LocalPath,
    })
}

fn is_separator(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

fn is_separator_char(c: char) -> bool {
    c == '/' || c == '\\'
}

/// Past the separators and `.` segments at `at`: where the next segment starts.
fn past_empty_segments(text: &str, mut at: usize) -> usize {
    loop {
        match byte_at(text, at) {
            Some(b) if is_separator(b) => at += 1,
            Some(b'.') if byte_at(text, at + 1).is_some_and(is_separator) => at += 2,
            _ => return at,
        }
    }
}

fn ends_unquoted_name(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '/' | '\\'
                | '"'
                | '\''
                | '`'
                | '<'
                | '>'
                | '|'
                | ':'
                | '*'
                | '?'
                | ','
                | ';'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '!'
                | '='
                | '«'
                | '»'
                | '“'
                | '”'
                | '‘'
                | '’'
        )
}

/// The end of the unquoted word starting at `from`.
/// An apostrophe followed by a letter belongs to the name (`/Users/o'brien`, `alice's`).
fn word_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    rest.char_indices()
        .find(|&(i, c)| {
            let apostrophe = matches!(c, '\'' | '’')
                && rest[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphabetic);
            !apostrophe && ends_unquoted_name(c)
        })
        .map_or(text.len(), |(i, _)| from + i)
}

/// Where the user name starting at `name` ends; `None` when there is no name.
fn name_end(text: &str, name: usize, quote: Option<u8>) -> Option<usize> {
    let bytes = text.as_bytes();
    if let Some(q) = quote {
        let mut at = name;
        while at < bytes.len() {
            let b = bytes[at];
            if is_separator(b) || b == q {
                return (at > name).then_some(at);
            }
            if b == b'\n' || b == b'\r' {
                break;
            }
            at += 1;
        }
        // No closing quote on this line: read the name as if unquoted.
    }
    let mut end = word_end(text, name);
    if end == name {
        return None;
    }
    if end < bytes.len() && is_separator(bytes[end]) {
        return Some(end);
    }
    // `/Users/Jane Doe/x`: up to two more words when the last one reaches a separator.
    let mut at = end;
    for _ in 0..2 {
        if byte_at(text, at) != Some(b' ') {
            break;
        }
        let word = word_end(text, at + 1);
        if word == at + 1 {
            break;
        }
        if byte_at(text, word).is_some_and(is_separator) {
            return Some(word);
        }
        at = word;
    }
    // A sentence's full stop is not part of the name.
    while end > name && bytes[end - 1] == b'.' {
        end -= 1;
    }
    (end > name).then_some(end)
}
