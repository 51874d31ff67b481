//! Text for messages and pages, in one place: bounded quotes, invisible characters shown,
//! articles and lists.
//!
//! Every message of the toolkit that quotes outside text (a value, a name, a `$schema` URI)
//! bounds it and shows its invisible characters here, so that a message never grows without
//! limit nor hides or reverses what it quotes.

use std::fmt::Write as _;

use serde_json::Value;
use unicode_general_category::{GeneralCategory, get_general_category};

/// `text` cut to `limit` characters, with `…` after them when cut.
pub fn bounded(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// [`bounded`] of an owned text, kept as it is (no copy) when it is short enough.
pub fn bounded_owned(text: String, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text,
        Some(_) => bounded(&text, limit),
    }
}

/// Cuts `text` to at most `max` characters (the `…` marking the cut included), showing its
/// invisible characters ([`visible`]).
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().nth(max).is_some() {
        visible(&bounded(text, max.saturating_sub(1)), false)
    } else {
        visible(text, false)
    }
}

/// Cuts `text` to at most `max` bytes at a character boundary, ending in `…` when cut.
pub fn cut_to_bytes(text: &mut String, max: usize) {
    const ELLIPSIS: &str = "…";
    if text.len() <= max {
        return;
    }
    let mut end = max.saturating_sub(ELLIPSIS.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(ELLIPSIS);
}

/// Characters a reader cannot see or that change how the text around them is shown: controls,
/// formats (`Cf`: text direction, zero-width, the byte order mark), line and paragraph
/// separators, private use and unassigned code points.
pub fn is_invisible(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    )
}

/// `text` with every [invisible](is_invisible) character written as Rust writes it escaped
/// (`\u{202e}`); with `layout`, line breaks (`\r\n` as `\n`) and tabs stay.
pub fn visible(text: &str, layout: bool) -> String {
    visible_with(text, layout, |out, c| {
        let _ = write!(out, "{}", c.escape_unicode());
    })
}

/// [`visible`], with each invisible character written by `escape` (a page writes
/// `\u{202E}`).
pub fn visible_with(text: &str, layout: bool, escape: impl Fn(&mut String, char)) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if layout && c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if (layout && matches!(c, '\n' | '\t')) || !is_invisible(c) {
            out.push(c);
        } else {
            escape(&mut out, c);
        }
    }
    out
}

/// `a` or `an`, for the word it stands before in a message.
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// `word` with its article (`an object`, `a string`); `null` stands alone.
pub fn with_article(word: &str) -> String {
    if word == "null" {
        word.to_owned()
    } else {
        format!("{} {word}", article(word))
    }
}

/// The kind of a JSON value, with its article, for messages (`an object`, `a string`, `null`):
/// never the value itself.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `a or b`, `a, b or c`; empty for no words.
pub fn or_list<S: AsRef<str>>(words: &[S]) -> String {
    match words.split_last() {
        Some((last, init)) if !init.is_empty() => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", init.join(", "), last.as_ref())
        }
        Some((last, _)) => last.as_ref().to_owned(),
        None => String::new(),
    }
}

/// `` `a`, `b`, `c` ``.
pub fn backticked<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    let words: Vec<String> = words
        .into_iter()
        .map(|word| format!("`{}`", word.as_ref()))
        .collect();
    words.join(", ")
}

/// `"a" or "b"` / `"a", "b" or "c"`.
pub fn quoted_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("{word:?}")).collect();
    or_list(&quoted)
}

/// `1 item`, `2 items`: `count` and the noun in its number.
pub fn count(count: impl std::fmt::Display, one: &str, many: &str) -> String {
    let text = count.to_string();
    let noun = if text == "1" { one } else { many };
    format!("{text} {noun}")
}
