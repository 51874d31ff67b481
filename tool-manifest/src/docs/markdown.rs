//! Markdown defusing: how manifest text is kept from becoming HTML, scripts or file includes
//! on a page (the rules are listed in [`super`]'s documentation). The pages say what a tool
//! is; this module only decides how its text is written.

use std::fmt::Write as _;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};
use serde_json::Value;
use toolwright_core::text::{is_invisible, visible_with};

use crate::schema::canonical_json;

/// A table cell: one line, `|` escaped.
pub(super) fn cell(text: &str) -> String {
    let paragraphs: Vec<String> = text
        .trim()
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    paragraphs.join("<br><br>").replace('|', "\\|")
}

/// Plain text on one line (a title, a category): shown as written, no Markdown read in it.
pub(super) fn plain(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(line.len());
    for c in visible(&line, false).chars() {
        // The punctuation that starts Markdown inlines, heading attributes (`{…}`), closing
        // `#`s of a heading, entities and mdBook's `{{#…}}`. A backslash before any ASCII
        // punctuation shows it as itself.
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '#' | '!' | '&' | '~' | '{' | '}'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A code span showing `text` exactly: delimited by a backtick run longer than any inside,
/// padded with a space when the text starts or ends with a backtick or a space (CommonMark
/// strips one space from each end of a span's content that has one at both).
pub(super) fn code(text: &str) -> String {
    let text = no_directives(&visible(text, false));
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    if text.is_empty() {
        return "` `".to_owned();
    }
    let pad = text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']);
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Markdown of one line's context (a table cell, a heading): invisible characters and mdBook
/// directives escaped; line breaks are left to [`cell`].
pub(super) fn markdown_inline(text: &str) -> String {
    no_directives(&visible(text.trim(), true))
}

/// Markdown for a heading: one line, without heading attributes or a closing sequence.
pub(super) fn heading(text: &str) -> String {
    let mut line = markdown_inline(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // `### text {#id onclick=…}` sets attributes and `### text #` ends the heading: a last
    // `}` or `#` escaped is text.
    if line.ends_with(['}', '#']) {
        line.insert(line.len() - 1, '\\');
    }
    line
}

/// A description as Markdown blocks: invisible characters and mdBook directives escaped, and a
/// fenced code block it leaves open closed at its end, so that it cannot swallow the sections
/// after it.
pub(super) fn markdown_block(text: &str) -> String {
    let mut text = no_directives(&visible(text.trim(), true));
    if text.is_empty() {
        return text;
    }
    // A line after the description, as the next section starts: inside a code block, the
    // description left it open.
    let probe = format!("{text}\n\nx");
    let end = probe.len() - 1;
    let open_fence = Parser::new_ext(&probe, mdbook_options())
        .into_offset_iter()
        .find_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if range.contains(&end) => {
                Some(range.start)
            }
            _ => None,
        });
    if let Some(start) = open_fence {
        let opener = probe[start..].trim_start_matches(' ');
        let fence_char = if opener.starts_with('~') { '~' } else { '`' };
        let fence: String = opener.chars().take_while(|&c| c == fence_char).collect();
        let _ = write!(text, "\n{fence}");
    }
    text
}

/// Pretty JSON (two-space indent) as `serde_json` writes it (the alternate `Display` of a
/// [`Value`]), with invisible characters as JSON escapes and mdBook directives broken: the
/// same value, shown.
pub(super) fn json_block(value: &Value) -> String {
    let text = format!("{:#}", canonical_json(value));
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Outside strings `serde_json` writes ASCII only (its line breaks are the only control
        // characters): any other is in a string, where `\uXXXX` (a UTF-16 pair beyond the BMP)
        // stands for it.
        if c != '\n' && is_invisible(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    // Two `{` in a row are only ever inside a string: `\u007b` is the same `{`.
    for at in directive_starts(&out).into_iter().rev() {
        out.replace_range(at + 1..at + 2, "\\u007b");
    }
    out
}

/// `text` with every [invisible](is_invisible) character as `\u{202E}`; with `layout`, line
/// breaks (`\r\n` as `\n`) and tabs stay.
pub(super) fn visible(text: &str, layout: bool) -> String {
    visible_with(text, layout, |out, c| {
        let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
    })
}

/// Where mdBook's links preprocessor would read a directive: `{{`, optional whitespace, `#`.
/// It reads `{{#include path}}` (and `{{ #include path }}`) as "put the file here", in code
/// too, before any Markdown is parsed.
pub(super) fn directive_starts(text: &str) -> Vec<usize> {
    text.match_indices("{{")
        .filter(|(at, _)| text[at + 2..].trim_start().starts_with('#'))
        .map(|(at, _)| at)
        .collect()
}

/// Manifest text with every mdBook directive escaped. mdBook's own escape (`\{{#…}}`, shown as
/// `{{#…}}`) covers a directive closed on the same line and written without a space; any other
/// gets a backslash between its braces (`{\{`), which Markdown shows as `{{` outside code.
pub(super) fn no_directives(text: &str) -> String {
    let starts = directive_starts(text);
    let mut out = text.to_owned();
    for at in starts.into_iter().rev() {
        let after = &text[at + 2..];
        let line = after.split('\n').next().unwrap_or_default();
        if after.starts_with('#') && line.contains("}}") {
            out.insert(at, '\\');
        } else {
            out.insert(at + 1, '\\');
        }
    }
    out
}

/// The extensions mdBook turns on (`mdbook-markdown`'s defaults): the parse that decides what
/// a page shows.
pub(super) fn mdbook_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
}

/// The page with every piece of raw HTML shown as text, every link to a script or data
/// address shown as text, and no heading attributes.
///
/// Written by hand because no library does it for Markdown that stays Markdown: the parser
/// says where its HTML, links and attributes are, and a backslash before their first character
/// makes each plain text. Escaping one piece can change how the text after it is read (a
/// backtick inside a tag now opens a code span), so the page is parsed again until nothing is
/// left; every round adds a backslash before a character that had none, so it ends. Pages are
/// parsed with mdBook's extensions and with plain CommonMark tables, as another viewer would.
pub(super) fn defuse(mut page: String) -> String {
    loop {
        let mut spots = hazards(&page, mdbook_options());
        if spots.is_empty() {
            spots = hazards(&page, Options::ENABLE_TABLES);
        }
        if spots.is_empty() {
            return page;
        }
        spots.sort_unstable();
        spots.dedup();
        for at in spots.into_iter().rev() {
            page.insert(at, '\\');
        }
    }
}

/// Where [`defuse`] puts a backslash: before every `<` of raw HTML or of an autolink to an
/// unsafe address, the `[` of a link or image to one, the last `}` of a heading with
/// attributes. The generator's own `<br>` (paragraphs in a table cell) stays.
pub(super) fn hazards(page: &str, options: Options) -> Vec<usize> {
    let mut spots = Vec::new();
    for (event, range) in Parser::new_ext(page, options).into_offset_iter() {
        match event {
            Event::InlineHtml(html) if html.as_ref() == "<br>" => {}
            Event::Html(_) | Event::InlineHtml(_) => spots.extend(
                page[range.clone()]
                    .match_indices('<')
                    .map(|(i, _)| range.start + i),
            ),
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if !safe_address(&dest_url) =>
            {
                // An image starts with `!`, its `[` follows; an autolink is its `<`.
                if let Some(i) = page[range.clone()].find(['[', '<']) {
                    spots.push(range.start + i);
                }
            }
            Event::Start(Tag::Heading {
                id, classes, attrs, ..
            }) if id.is_some() || !classes.is_empty() || !attrs.is_empty() => {
                if let Some(i) = page[range.clone()].rfind('}') {
                    spots.push(range.start + i);
                }
            }
            _ => {}
        }
    }
    spots
}

/// A link address without a scheme (a page, an anchor) or with `http`, `https` or `mailto`.
/// Browsers run `javascript:` and show `data:` addresses: only these few are kept.
pub(super) fn safe_address(url: &str) -> bool {
    let url = url.trim();
    match url.find([':', '/', '?', '#']) {
        Some(i) if url[i..].starts_with(':') => matches!(
            url[..i].to_ascii_lowercase().as_str(),
            "http" | "https" | "mailto"
        ),
        _ => true,
    }
}
