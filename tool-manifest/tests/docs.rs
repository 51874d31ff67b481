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
