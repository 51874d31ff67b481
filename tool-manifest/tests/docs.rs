//! The Markdown tool reference: a tool page, the index with its safety table, the mdBook summary.

use serde_json::{Value, json};
use toolwright_manifest::ToolSpec;
use toolwright_manifest::docs::{HEADER, render};

fn spec(value: Value) -> ToolSpec {
    serde_json::from_value(value).expect("a valid spec")
}

fn drawing_create() -> ToolSpec {
    spec(json!({
        "name": "drawing_create",
        "title": "Create a drawing",
        "description": "Draws a trend line or a horizontal line on a pane.\n\nThe anchors are bar times and prices.",
        "safety": "destructive",
        "mode": "sequential",
        "category": "drawings",
        "inputSchema": {
            "type": "object",
            "required": ["pane_id", "kind", "anchors"],
            "additionalProperties": false,
            "properties": {
                "pane_id": {"type": "string", "description": "The pane to draw on.", "pattern": "^[a-z]+(_[a-z]+)*$"},
                "kind": {"type": "string", "description": "What to draw.", "enum": ["trend_line", "horizontal_line"]},
                "anchors": {
                    "type": "array",
                    "description": "Where the drawing is attached.",
                    "minItems": 1,
                    "maxItems": 10,
                    "items": {
                        "type": "object",
                        "required": ["time", "price"],
                        "properties": {
                            "time": {"type": "integer", "description": "Bar time in seconds.", "minimum": 0},
                            "price": {"type": "number", "description": "Price level."}
                        }
                    }
                },
                "style": {
                    "type": "object",
                    "description": "How it looks | optional.",
                    "properties": {
                        "width": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1},
                        "label": {"type": ["string", "null"], "maxLength": 40}
                    }
                },
                "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": true}
            }
        },
        "errors": [
            {
                "code": "PANE_NOT_FOUND",
                "message": "The pane does not exist.",
                "retryable": true,
                "recommendedAction": "Use one of the valid pane IDs named in the message."
            },
            {
                "code": "DATE_OUT_OF_RANGE",
                "message": "An anchor lies outside the loaded bars.",
                "retryable": false,
                "recommendedAction": "Load more bars first."
            }
        ],
        "examples": [{
            "description": "A trend line",
            "input": {"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": 2.5}, {"time": 2, "price": 3.5}]}
        }]
    }))
}

fn panes_list() -> ToolSpec {
    spec(json!({
        "name": "panes_list",
        "title": "List panes",
        "description": "Lists the panes.",
        "safety": "read-only",
        "mode": "parallel",
        "category": "panes",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "errors": [],
        "examples": [{"description": "Every pane", "input": {}}]
    }))
}

fn web_search() -> ToolSpec {
    spec(json!({
        "name": "web_search",
        "title": "Search the web",
        "description": "Searches the web.",
        "safety": "read-only",
        "mode": "parallel",
        "inputSchema": {"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}},
        "errors": [],
        "examples": [],
        "timeoutMs": 10000,
        "maxOutputBytes": 32768
    }))
}

fn all() -> Vec<ToolSpec> {
    vec![web_search(), drawing_create(), panes_list()]
}

/// `drawing_line`, versioned and deprecated for `drawing_create`.
fn drawing_line() -> ToolSpec {
    spec(json!({
        "name": "drawing_line",
        "title": "Draw a line",
        "description": "Draws a trend line on a pane.",
        "safety": "destructive",
        "mode": "sequential",
        "category": "drawings",
        "inputSchema": {"type": "object", "required": ["pane_id"], "properties": {"pane_id": {"type": "string"}}},
        "errors": [],
        "examples": [],
        "version": "2.1.0",
        "deprecated": {
            "since": "2.0.0",
            "sunset": "2027-06-30",
            "replacement": "drawing_create",
            "note": "Use `drawing_create` with `kind = \"trend_line\"`.\n\nIt takes the same anchors."
        }
    }))
}

#[test]
fn deprecated_tool_page() {
    let files = render(&[drawing_line(), drawing_create()]);
    insta::assert_snapshot!(files["drawing_line.md"]);
    let page = html(&files["drawing_line.md"]);
    // The notice comes right after the safety and mode, before anything the author wrote.
    assert!(
        page.contains(
            "<p><strong>destructive</strong> · <strong>sequential</strong></p>\n<blockquote>\n<p><strong>Deprecated</strong> since version 2.0.0; it may be removed after 2027-06-30. Use <a href=\"drawing_create.md\"><code>drawing_create</code></a> instead.</p>\n<p>Use <code>drawing_create</code> with <code>kind = \"trend_line\"</code>.</p>\n<p>It takes the same anchors.</p>\n</blockquote>\n<ul>\n<li><strong>Tool:</strong> <code>drawing_line</code></li>\n<li><strong>Version:</strong> <code>2.1.0</code></li>"
        ),
        "{page}"
    );
    // The replacement's own page says nothing of it, and the index marks only the deprecated.
    assert!(!files["drawing_create.md"].contains("eprecated"));
    let index = &files["README.md"];
    assert!(
        index.contains("| [drawing_line](drawing_line.md) (deprecated) | **destructive** · sequential | Draw a line | drawings |"),
        "{index}"
    );
    assert!(
        index.contains("| [drawing_create](drawing_create.md) | **destructive**"),
        "{index}"
    );
    // A `since` date, no sunset, replacement or note: the one sentence.
    let mut by_date = drawing_line();
    by_date.version = None;
    by_date.deprecated = Some(toolwright_manifest::model::Deprecation::new("2026-01-15"));
    let page = &render(&[by_date])["drawing_line.md"];
    assert!(
        page.contains("**destructive** · **sequential**\n\n> **Deprecated** since 2026-01-15.\n\n- **Tool:** `drawing_line`\n- **Safety:**"),
        "{page}"
    );
}

#[test]
fn a_deferred_tool_says_so_on_its_page_and_in_the_index() {
    let mut deferred = drawing_create();
    deferred.defer_loading = true;
    let files = render(&[deferred, panes_list()]);
    let page = &files["drawing_create.md"];
    assert!(
        page.contains(
            "- **Mode:** `sequential`: its whole message runs one call at a time, in order\n- **Loading:** deferred (found by tool search): left out of a request's eager tool list until a search finds it\n- **Category:** drawings\n"
        ),
        "{page}"
    );
    let index = &files["README.md"];
    assert!(
        index.contains(
            "| [drawing_create](drawing_create.md) (deferred) | **destructive** · sequential |"
        ),
        "{index}"
    );
    // An eager tool says nothing of loading.
    assert!(!files["panes_list.md"].contains("Loading"));
    assert!(
        index.contains("| [panes_list](panes_list.md) | **read-only**"),
        "{index}"
    );
    assert!(!render(&all())["drawing_create.md"].contains("Loading"));
}

#[test]
fn tool_page() {
    let files = render(&all());
    insta::assert_snapshot!(files["drawing_create.md"]);
}

#[test]
fn index_page() {
    let files = render(&all());
    insta::assert_snapshot!(files["README.md"]);
}

#[test]
fn summary_lists_the_index_then_one_part_per_category() {
    let files = render(&all());
    assert_eq!(
        files["SUMMARY.md"],
        format!(
            "{HEADER}\n\n# Summary\n\n[Tool reference](README.md)\n\n\
             # drawings\n\n- [drawing_create](drawing_create.md)\n\n\
             # panes\n\n- [panes_list](panes_list.md)\n\n\
             # Other tools\n\n- [web_search](web_search.md)\n"
        )
    );
}

#[test]
fn one_page_per_tool_plus_index_and_summary() {
    let files = render(&all());
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "README.md",
            "SUMMARY.md",
            "drawing_create.md",
            "panes_list.md",
            "web_search.md"
        ]
    );
    for (name, text) in &files {
        assert!(text.starts_with(HEADER), "{name}");
        assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{name}");
    }
}

#[test]
fn rendering_is_deterministic_and_independent_of_input_order() {
    let mut reversed = all();
    reversed.reverse();
    assert_eq!(render(&all()), render(&reversed));
    assert_eq!(render(&all()), render(&all()));
}

#[test]
fn pages_without_arguments_errors_or_examples_say_so() {
    let files = render(&all());
    let panes = &files["panes_list.md"];
    assert!(panes.contains("- **Safety:** `read-only`"), "{panes}");
    assert!(panes.contains("This tool takes no arguments."), "{panes}");
    assert!(panes.contains("This tool declares no errors."), "{panes}");
    let search = &files["web_search.md"];
    assert!(
        search.contains("| `query` | string | yes |  |  |"),
        "{search}"
    );
    assert!(
        search.contains("This tool declares no examples."),
        "{search}"
    );
    assert!(!panes.contains("Time limit") && !panes.contains("Output budget"));
    assert!(
        search.contains(
            "- **Time limit:** 10s: a call still running then is answered `TOOL_TIMEOUT`\n"
        ),
        "{search}"
    );
    assert!(
        search.contains(
            "- **Output budget:** 32768 bytes of JSON: a larger result is answered `TOOL_FAILED`"
        ),
        "{search}"
    );
    assert!(!search.contains("**Category:**"), "{search}");
}

// Manifest text written to turn a page against its reader: every payload goes into every field
// that reaches the docs, and each page is rendered to HTML by the parser mdBook uses, with
// mdBook's extensions.

/// Text that would become raw HTML, hide sections, fake links or attributes, hide characters or
/// make mdBook read a file of the machine that builds the site.
const PAYLOADS: &[&str] = &[
    "<script>alert(1)</script>",
    "x`<img src=x onerror=alert(1)>`y",
    "<style>h1, p { display: none }</style>",
    "<!-- everything after this is hidden",
    "```\nan open fence",
    "~~~~\nanother open fence",
    "[click](javascript:alert(1)) <javascript:alert(2)> ![i](data:text/html,x)",
    "a title {onclick=alert(1)}",
    "\u{202E}evil\u{2066}\u{200B}\u{FEFF}\u{AD}",
    "{{#include /etc/passwd}} {{ #include /etc/hosts }}",
    "<a href=\"https://example.com\">`</a>`<b>bold</b>",
];

/// The tags the renderer writes for the generator's Markdown: anything else came from a
/// manifest.
const TAGS: &[&str] = &[
    "h1",
    "h2",
    "h3",
    "p",
    "ul",
    "li",
    "strong",
    "code",
    "pre",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "a",
    "br",
    "em",
    "blockquote",
];

/// Every tag of `page` is one of [`TAGS`], its only attributes a link's address (of the page's
/// own or a web one) and a code block's language, and its only comment the generator's.
fn only_generated_markup(page: &str) -> Result<(), String> {
    for (at, _) in page.match_indices('<') {
        let rest = &page[at + 1..];
        if rest.starts_with("!-- @generated") && at == 0 {
            continue;
        }
        let name: String = rest
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if !TAGS.contains(&name.as_str()) {
            return Err(format!("a tag `{}`", &rest[..rest.len().min(40)]));
        }
    }
    // Escaped text holds `&quot;`, never `="`: each one is an attribute the renderer wrote.
    for (at, _) in page.match_indices("=\"") {
        let attribute: String = page[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let value = &page[at + 2..];
        let fine = match attribute.as_str() {
            "href" => {
                value.starts_with("https://")
                    || !value[..value.find('"').unwrap_or(0)].contains(':')
            }
            "class" => value.starts_with("language-"),
            _ => false,
        };
        if !fine {
            return Err(format!(
                "an attribute `{attribute}=\"{}`",
                &value[..value.len().min(40)]
            ));
        }
    }
    Ok(())
}

fn html(markdown: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM;
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(markdown, options));
    out
}

/// A destructive tool with `payload` in the field `place`.
fn hostile(place: &str, payload: &str) -> ToolSpec {
    let text = |field: &str, fallback: &str| {
        if field == place {
            payload.to_owned()
        } else {
            fallback.to_owned()
        }
    };
    let name = text("property name", "target");
    let mut property =
        json!({"type": "string", "description": text("property description", "What to hit.")});
    match place {
        "enum value" => property["enum"] = json!(["safe", payload]),
        "pattern" => property["pattern"] = json!(payload),
        "format" => property["format"] = json!(payload),
        "default" => property["default"] = json!(payload),
        _ => {}
    }
    spec(json!({
        "name": "wipe",
        "title": text("title", "Wipe the disk"),
        "description": text("description", "Erases everything."),
        "safety": "destructive",
        "mode": "sequential",
        "category": text("category", "disks"),
        "inputSchema": {"type": "object", "properties": {name: property}},
        "errors": [{
            "code": text("error code", "DISK_BUSY"),
            "message": text("error message", "The disk is busy."),
            "retryable": true,
            "recommendedAction": text("recommended action", "Wait."),
        }],
        "examples": [{
            "description": text("example description", "Wipe it"),
            "input": {"target": text("example input", "sda")},
        }],
        "deprecated": (place == "deprecation note").then(|| json!({
            "since": "2.0.0",
            "replacement": "erase",
            "note": payload,
        })),
    }))
}

const PLACES: &[&str] = &[
    "title",
    "description",
    "category",
    "property name",
    "property description",
    "enum value",
    "pattern",
    "format",
    "default",
    "error code",
    "error message",
    "recommended action",
    "example description",
    "example input",
    "deprecation note",
];

#[test]
fn no_manifest_text_reaches_a_page_as_html_or_hides_a_section() {
    for place in PLACES {
        for payload in PAYLOADS {
            let files = render(&[hostile(place, payload)]);
            let case = format!("{payload:?} as the {place}");
            for (name, markdown) in &files {
                let page = html(markdown);
                if let Err(found) = only_generated_markup(&page) {
                    panic!("{case}: {name} holds {found}:\n{markdown}\n{page}");
                }
                // Invisible characters are shown, not hidden in the text.
                for c in ['\u{202E}', '\u{2066}', '\u{200B}', '\u{FEFF}', '\u{AD}'] {
                    assert!(!page.contains(c), "{case}: {name} holds {c:?}");
                }
                // mdBook reads `{{#…}}` (with or without spaces) before Markdown, in code too,
                // unless the braces are escaped.
                for (at, _) in markdown.match_indices("{{") {
                    let directive = markdown[at + 2..].trim_start().starts_with('#');
                    assert!(
                        !directive || markdown[..at].ends_with('\\'),
                        "{case}: {name} has a directive:\n{markdown}"
                    );
                }
            }
            let page = html(&files["wipe.md"]);
            // The safety and mode come first, right after the title, and every section is there.
            // A deprecation notice, in its quote, comes between them and the list.
            let after_title = page
                .split_once("</h1>\n")
                .and_then(|(_, rest)| {
                    rest.strip_prefix(
                        "<p><strong>destructive</strong> · <strong>sequential</strong></p>\n",
                    )
                })
                .map(|rest| {
                    match rest.strip_prefix("<blockquote>\n<p><strong>Deprecated</strong>") {
                        Some(quoted) => quoted.split_once("</blockquote>\n").map_or("", |(_, r)| r),
                        None => rest,
                    }
                });
            assert!(
                after_title
                    .is_some_and(|rest| rest.starts_with("<ul>\n<li><strong>Tool:</strong>")),
                "{case}:\n{page}"
            );
            assert_eq!(
                page.matches("<blockquote>").count(),
                usize::from(*place == "deprecation note"),
                "{case}: the notice is the one quote\n{page}"
            );
            for section in ["<h2>Input</h2>", "<h2>Errors</h2>", "<h2>Examples</h2>"] {
                assert_eq!(
                    page.matches(section).count(),
                    1,
                    "{case}: {section}\n{page}"
                );
            }
            assert!(page.contains("<table>"), "{case}:\n{page}");
            let index = html(&files["README.md"]);
            let marked = if *place == "deprecation note" {
                " (deprecated)"
            } else {
                ""
            };
            assert!(
                index.contains(&format!(
                    "<td><a href=\"wipe.md\">wipe</a>{marked}</td><td><strong>destructive</strong> · sequential</td>"
                )),
                "{case}:\n{index}"
            );
        }
    }
}

#[test]
fn hostile_text_is_shown_as_written() {
    let page = html(&render(&[hostile("title", "<script>alert(1)</script> {x}")])["wipe.md"]);
    assert!(
        page.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt; {x}</h1>"),
        "{page}"
    );
    let page = html(&render(&[hostile("property name", "a`<b>`")])["wipe.md"]);
    assert!(
        page.contains("<td><code>a`&lt;b&gt;`</code></td>"),
        "{page}"
    );
    let page = html(&render(&[hostile("enum value", "x\u{202E}y")])["wipe.md"]);
    assert!(page.contains("<code>\"x\\u{202E}y\"</code>"), "{page}");
    let page = html(&render(&[hostile("example input", "x\u{202E}{{#include a}}")])["wipe.md"]);
    assert!(page.contains("\"x\\u202e{\\u007b#include a}}\""), "{page}");
    // Markdown of a description is kept: code keeps its `<`, lists and links stay.
    let markdown = render(&[hostile(
        "description",
        "Use `a<b>` here.\n\n- one\n- [two](https://example.com/x)\n\n<b>no</b>",
    )])["wipe.md"]
        .clone();
    let page = html(&markdown);
    assert!(
        page.contains("<p>Use <code>a&lt;b&gt;</code> here.</p>"),
        "{page}"
    );
    assert!(
        page.contains("<li><a href=\"https://example.com/x\">two</a></li>"),
        "{page}"
    );
    assert!(page.contains("<p>&lt;b&gt;no&lt;/b&gt;</p>"), "{page}");
    // An open fence is closed at the end of the description.
    let page = html(&render(&[hostile("description", "````\n<b>code</b>")])["wipe.md"]);
    assert!(
        page.contains("<pre><code>&lt;b&gt;code&lt;/b&gt;\n</code></pre>\n<h2>Input</h2>"),
        "{page}"
    );
}

#[test]
fn long_types_and_constraints_are_listed_below_the_table() {
    let words: Vec<String> = (0..12).map(|i| format!("value_{i}")).collect();
    let tool = spec(json!({
        "name": "pick",
        "title": "Pick",
        "description": "Picks.",
        "safety": "read-only",
        "mode": "parallel",
        "inputSchema": {"type": "object", "properties": {
            "choice": {"type": "string", "enum": words},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}-[a-z]{2}(-[A-Za-z0-9]{1,8})*(\\.[a-z]{2,})?$"},
            "short": {"type": "string", "enum": ["a", "b"]}
        }},
        "errors": [],
        "examples": []
    }));
    let page = &render(&[tool])["pick.md"];
    assert!(
        page.contains("| `choice` | see below | no |  |  |"),
        "{page}"
    );
    assert!(
        page.contains("| `code` | string | no | see below |  |"),
        "{page}"
    );
    assert!(
        page.contains("| `short` | `\"a\"` \\| `\"b\"` | no |  |  |"),
        "{page}"
    );
    assert!(
        page.contains("\n- `choice`: `\"value_0\"` \\| `\"value_1\"`"),
        "{page}"
    );
    assert!(
        page.contains("\n- `code`: pattern `^[A-Z]{3}-[0-9]{4}-[a-z]{2}(-[A-Za-z0-9]{1,8})*(\\.[a-z]{2,})?$`\n"),
        "{page}"
    );
}
