//! The import, one test per source shape, mapping and rule.

use std::path::Path;

use super::{Format, Line, Reading, Review, Tool, read, valid_name, write};
use crate::model::{Mode, Safety};

fn reading(text: &str, format: Format) -> Reading {
    read(text, format).unwrap_or_else(|e| panic!("readable input: {e}"))
}

fn only_tool(text: &str, format: Format) -> Tool {
    let reading = reading(text, format);
    assert_eq!(reading.refused, 0, "{:?}", reading.report);
    assert_eq!(reading.tools.len(), 1, "{:?}", reading.tools);
    reading.tools.into_iter().next().expect("one tool")
}

fn names(reading: &Reading) -> Vec<&str> {
    reading.tools.iter().map(|t| t.name.as_str()).collect()
}

fn notes(reading: &Reading) -> Vec<String> {
    reading.report.iter().map(ToString::to_string).collect()
}

/// `text` pretty-printed by `serde_json`, as the import writes a schema it keeps.
fn pretty(text: &str) -> String {
    let value = super::json::Json::parse(text).expect("json");
    value.pretty().expect("pretty")
}

const GET_ISSUE: &str = r#"{"name":"get_issue","title":"Get issue","description":"Reads one issue.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"},"number":{"type":"integer","minimum":1}},"required":["repo","number"]},"outputSchema":{"type":"object","properties":{"title":{"type":"string"}}},"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}}"#;

#[test]
fn an_mcp_tools_list_result_imports_every_tool() {
    let text = format!(r#"{{"tools":[{GET_ISSUE}],"nextCursor":"abc"}}"#);
    let tool = only_tool(&text, Format::Auto);
    assert_eq!(tool.place, "tools[0]");
    assert_eq!(tool.name, "get_issue");
    assert_eq!(tool.title, "Get issue");
    assert_eq!(tool.description, "Reads one issue.");
    assert_eq!(
        (tool.safety, tool.mode, tool.review),
        (Safety::ReadOnly, Mode::Parallel, None)
    );
    assert_eq!(
        (tool.idempotent, tool.open_world),
        (Some(true), Some(false))
    );
    assert_eq!(
        tool.input,
        pretty(
            r#"{"type":"object","properties":{"repo":{"type":"string"},"number":{"type":"integer","minimum":1}},"required":["repo","number"]}"#
        )
    );
    assert_eq!(
        tool.output.as_deref(),
        Some(pretty(r#"{"type":"object","properties":{"title":{"type":"string"}}}"#).as_str())
    );
    // Nothing was changed, so nothing is reported.
    assert_eq!(
        reading(&text, Format::Mcp).report,
        Vec::<Line>::new(),
        "an explicit --from mcp reads the same"
    );
}

#[test]
fn a_json_rpc_response_is_read_from_its_result() {
    let text = format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"tools":[{GET_ISSUE}]}}}}"#);
    let tool = only_tool(&text, Format::Mcp);
    assert_eq!(tool.place, "result.tools[0]");
    assert_eq!(tool.name, "get_issue");

    let error = read(
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}"#,
        Format::Auto,
    )
    .expect_err("an error response holds no tools");
    assert_eq!(
        error.to_string(),
        r#"the input is a JSON-RPC error response ("Method not found"), not a list of tools"#
    );
}

#[test]
fn an_array_of_tools_ignores_provenance_keys_and_nulls() {
    let text = r#"[
        {"source":"x","repo":"o/r","commit":"abc","name":"a","title":null,"description":"A.","inputSchema":{"type":"object"},"annotations":null},
        {"name":"b","description":"B.","inputSchema":{"type":"object"},"annotations":{"title":"Bee","readOnlyHint":null}}
    ]"#;
    let reading = reading(text, Format::Auto);
    assert_eq!(names(&reading), ["a", "b"]);
    assert_eq!(reading.tools[0].place, "[0]");
    assert_eq!(reading.tools[0].title, "A", "null title: derived");
    assert_eq!(reading.tools[1].title, "Bee", "annotations.title");
    assert_eq!(reading.tools[1].review, Some(Review::NoReadOnlyHint));
    assert_eq!(
        notes(&reading),
        [
            r#"a: no title; "A" is derived from the name"#,
            r#"a: safety "destructive", mode "sequential": the source declares no readOnlyHint; review a.toml"#,
            r#"b: safety "destructive", mode "sequential": the source declares no readOnlyHint; review b.toml"#,
        ]
    );
}

#[test]
fn a_top_level_title_wins_over_the_annotation_title() {
    let tool = only_tool(
        r#"{"name":"t","title":"Top","description":"d","inputSchema":{},"annotations":{"title":"Annotated"}}"#,
        Format::Mcp,
    );
    assert_eq!(tool.place, "");
    assert_eq!(tool.title, "Top");
}

#[test]
fn schemas_are_kept_exactly_key_order_nulls_and_numbers_included() {
    let schema = r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"z":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null},"a":{"type":"number","default":1.0,"maximum":1e3}},"additionalProperties":false}"#;
    let tool = only_tool(
        &format!(r#"{{"name":"keep","description":"d","inputSchema":{schema}}}"#),
        Format::Auto,
    );
    assert_eq!(
        tool.input,
        "{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n  \"type\": \"object\",\n  \"properties\": {\n    \"z\": {\n      \"anyOf\": [\n        {\n          \"type\": \"string\"\n        },\n        {\n          \"type\": \"null\"\n        }\n      ],\n      \"default\": null\n    },\n    \"a\": {\n      \"type\": \"number\",\n      \"default\": 1.0,\n      \"maximum\": 1e3\n    }\n  },\n  \"additionalProperties\": false\n}\n"
    );
    let written: serde_json::Value = serde_json::from_str(&tool.input).expect("json");
    let source: serde_json::Value = serde_json::from_str(schema).expect("json");
    assert_eq!(written, source, "the same JSON value");
}

#[test]
fn numbers_are_kept_as_written() {
    let schema = r#"{"type":"object","properties":{"a":{"type":"number","minimum":-1.50,"maximum":1E+3,"multipleOf":0.1,"default":2.5e-3},"n":{"type":"integer","maximum":18446744073709551615,"minimum":-9223372036854775808},"z":{"const":-0.0}}}"#;
    let tool = only_tool(
        &format!(r#"{{"name":"keep","description":"d","inputSchema":{schema}}}"#),
        Format::Auto,
    );
    for written in [
        "\"minimum\": -1.50,",
        "\"maximum\": 1E+3,",
        "\"multipleOf\": 0.1,",
        "\"default\": 2.5e-3",
        "\"maximum\": 18446744073709551615,",
        "\"minimum\": -9223372036854775808",
        "\"const\": -0.0",
    ] {
        assert!(tool.input.contains(written), "{written}: {}", tool.input);
    }
    let written: serde_json::Value = serde_json::from_str(&tool.input).expect("json");
    let source: serde_json::Value = serde_json::from_str(schema).expect("json");
    assert_eq!(written, source, "the same JSON value");
}

#[test]
fn a_number_serde_json_cannot_hold_is_refused_at_its_pointer() {
    let text = r#"{"tools":[
        {"name":"big","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}}}},
        {"name":"zero","inputSchema":{"type":"object","properties":{"n":{"type":"integer","default":-0}}}},
        {"name":"digits","inputSchema":{"type":"object","properties":{"x":{"enum":[1, 3.14159265358979323846]}}}},
        {"name":"tiny","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"e":{"minimum":1e-400}}}},
        {"name":"ok","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":9223372036854775807}}}}
    ]}"#;
    let reading = reading(text, Format::Auto);
    assert_eq!(names(&reading), ["ok"]);
    let errors: Vec<String> = reading
        .report
        .iter()
        .filter(|l| matches!(l, Line::Error(_)))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            "error: tools[0].inputSchema: the number 123456789012345678901234567890 at `/properties/n/maximum` cannot be kept exactly: an integer past 64 bits is read as the float 1.2345678901234568e+29; the tool is skipped",
            "error: tools[1].inputSchema: the number -0 at `/properties/n/default` cannot be kept exactly: `-0` is read as the float -0.0 (write 0); the tool is skipped",
            "error: tools[2].inputSchema: the number 3.14159265358979323846 at `/properties/x/enum/1` cannot be kept exactly: no 64-bit float holds it, it is read as 3.141592653589793; the tool is skipped",
            "error: tools[3].outputSchema: the number 1e-400 at `/properties/e/minimum` cannot be kept exactly: no 64-bit float holds it, it is read as 0.0; the tool is skipped",
        ]
    );
}

#[test]
fn openai_chat_completions_tools_are_read_from_their_function() {
    let text = r#"{"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather of a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}}]}"#;
    for format in [Format::Auto, Format::OpenAi] {
        let tool = only_tool(text, format);
        assert_eq!(tool.place, "tools[0].function");
        assert_eq!(tool.name, "get_weather");
        assert_eq!(tool.title, "Get weather");
        assert_eq!(tool.description, "Weather of a city.");
        assert_eq!(tool.safety, Safety::Destructive);
        assert_eq!(tool.review, Some(Review::NoReadOnlyHint));
        assert_eq!(
            tool.input,
            pretty(
                r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}"#
            )
        );
        assert_eq!(tool.output, None);
    }
}

#[test]
fn openai_responses_api_tools_are_flat() {
    let text = r#"[{"type":"function","name":"search","description":"Searches.","parameters":{"type":"object","properties":{"q":{"type":"string"}}},"strict":false},{"type":"web_search_preview"}]"#;
    let reading = reading(text, Format::OpenAi);
    assert_eq!(names(&reading), ["search"]);
    assert_eq!(reading.tools[0].place, "[0]");
    assert_eq!(reading.refused, 1);
    assert!(
        reading.report.contains(&Line::Error(
            r#"[1].type: only function tools can be imported, found "web_search_preview"; the tool is skipped"#
                .to_owned()
        )),
        "{:?}",
        reading.report
    );
}

#[test]
fn bare_openai_functions_without_parameters_take_no_arguments() {
    let reading = reading(
        r#"{"name":"now","description":"The time."}"#,
        Format::OpenAi,
    );
    let tool = &reading.tools[0];
    assert_eq!(
        tool.input,
        pretty(r#"{"type":"object","properties":{},"additionalProperties":false}"#)
    );
    assert!(
        notes(&reading)
            .contains(&"now: no parameters; the input is an object without properties".to_owned())
    );
}

#[test]
fn the_wrong_explicit_format_is_refused_at_the_place() {
    let mcp = format!("[{GET_ISSUE}]");
    let reading = reading(&mcp, Format::OpenAi);
    assert_eq!(reading.refused, 1);
    assert!(matches!(&reading.report[..], [Line::Error(e)] if e.starts_with("[0]: an MCP tool")));

    let openai = r#"[{"type":"function","function":{"name":"f","parameters":{}}}]"#;
    let reading = super::read(openai, Format::Mcp).expect("readable");
    assert_eq!(
        reading.report,
        [Line::Error(
            "[0].inputSchema: missing: an MCP tool has `name` and `inputSchema`; the tool is skipped"
                .to_owned()
        )]
    );
}

const BFCL_DOC: &str = r#"{"name": "add", "description": "Add two numbers.", "parameters": {"type": "dict", "properties": {"a": {"type": "float", "description": "First."}, "pair": {"type": "tuple", "items": {"type": "integer"}}, "extra": {"type": "any"}, "opts": {"type": "dict", "properties": {"scale": {"type": "float", "default": 1.0}}}}, "required": ["a"]}, "response": {"type": "dict", "properties": {"result": {"type": "float"}}}}"#;

#[test]
fn bfcl_docs_in_a_json_array_are_mapped_to_json_schema() {
    let text = format!("[{BFCL_DOC}]");
    let reading = reading(&text, Format::Auto);
    let tool = &reading.tools[0];
    assert_eq!(tool.place, "[0]");
    assert_eq!(
        tool.input,
        pretty(
            r#"{"type": "object", "properties": {"a": {"type": "number", "description": "First."}, "pair": {"type": "array", "items": {"type": "integer"}}, "extra": {}, "opts": {"type": "object", "properties": {"scale": {"type": "number", "default": 1.0}}}}, "required": ["a"]}"#
        )
    );
    assert_eq!(
        tool.output.as_deref(),
        Some(
            pretty(r#"{"type": "object", "properties": {"result": {"type": "number"}}}"#).as_str()
        )
    );
    let mapped: Vec<String> = notes(&reading)
        .into_iter()
        .filter(|n| n.contains("BFCL"))
        .collect();
    assert_eq!(
        mapped,
        [
            r#"add: parameters at /: BFCL type "dict" -> "object""#,
            r#"add: parameters at /properties/a: BFCL type "float" -> "number""#,
            r#"add: parameters at /properties/pair: BFCL type "tuple" -> "array""#,
            r#"add: parameters at /properties/extra: BFCL type "any" -> no type (any value)"#,
            r#"add: parameters at /properties/opts: BFCL type "dict" -> "object""#,
            r#"add: parameters at /properties/opts/properties/scale: BFCL type "float" -> "number""#,
            r#"add: response at /: BFCL type "dict" -> "object""#,
            r#"add: response at /properties/result: BFCL type "float" -> "number""#,
        ]
    );
    assert_eq!(
        super::read(&text, Format::Bfcl).expect("readable").tools[0],
        *tool,
        "--from bfcl reads the same"
    );
}

#[test]
fn bfcl_json_lines_are_numbered_by_line() {
    let text = format!(
        "{BFCL_DOC}\n\n{}\n{{\"name\": \"bad\", \"parameters\": 3}}\n",
        r#"{"name": "neg", "description": "Negate.", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}}}"#
    );
    let reading = reading(&text, Format::Bfcl);
    assert_eq!(names(&reading), ["add", "neg"]);
    let places: Vec<&str> = reading.tools.iter().map(|t| t.place.as_str()).collect();
    assert_eq!(places, ["line 1", "line 3"]);
    assert_eq!(reading.refused, 1);
    assert!(reading.report.contains(&Line::Error(
        "line 4.parameters: expected an object, found a number; the tool is skipped".to_owned()
    )));
}

#[test]
fn bfcl_test_entries_stand_for_their_functions() {
    let text = format!(
        r#"{{"id": "live_simple_0", "question": [[{{"role": "user", "content": "2+2?"}}]], "function": [{BFCL_DOC}]}}
{{"id": "live_simple_1", "question": [], "function": [{BFCL_DOC}]}}"#
    );
    let reading = reading(&text, Format::Auto);
    assert_eq!(names(&reading), ["add", "add_2"]);
    assert_eq!(reading.tools[1].place, "line 2.function[0]");
}

#[test]
fn mcp_shaped_records_with_bfcl_schemas_are_mapped_unless_read_as_mcp() {
    let text = r#"[{"name":"cat","title":null,"description":"Shows a file.","inputSchema":{"type":"dict","properties":{"file_name":{"type":"string"}},"required":["file_name"]},"annotations":null}]"#;
    let mapped = only_tool(text, Format::Auto);
    assert_eq!(
        mapped.input,
        pretty(
            r#"{"type":"object","properties":{"file_name":{"type":"string"}},"required":["file_name"]}"#
        )
    );
    assert_eq!(only_tool(text, Format::Bfcl), mapped);
    let published = only_tool(text, Format::Mcp);
    assert!(
        published.input.contains("\"dict\""),
        "as published: {}",
        published.input
    );
}

#[test]
fn invalid_names_are_made_valid() {
    assert_eq!(valid_name("get_issue"), "get_issue");
    assert_eq!(valid_name("get-issue!"), "get_issue");
    assert_eq!(valid_name("activateParkingBrake"), "activate_parking_brake");
    assert_eq!(valid_name("uber.eat.order"), "uber_eat_order");
    assert_eq!(valid_name("ThinQ_Connect"), "thin_q_connect");
    assert_eq!(valid_name("1password"), "tool_1password");
    assert_eq!(valid_name("!!!"), "tool");
    assert_eq!(valid_name(&"Ab".repeat(40)), "ab_".repeat(21) + "a");
    for name in ["get-issue!", "1password", "!!!", &"Ab".repeat(40), "ÄÖü"] {
        assert!(
            crate::model::is_valid_tool_name(&valid_name(name)),
            "{name}"
        );
    }
}

#[test]
fn renames_are_reported_and_collisions_get_a_suffix() {
    let long = "a".repeat(64);
    let text = format!(
        r#"[{{"name":"get-issue!","inputSchema":{{}}}},{{"name":"get_issue","inputSchema":{{}}}},{{"name":"Get Issue","inputSchema":{{}}}},{{"name":"{long}","inputSchema":{{}}}},{{"name":"{long}","inputSchema":{{}}}}]"#
    );
    let reading = reading(&text, Format::Mcp);
    let expected_last = format!("{}_2", "a".repeat(62));
    assert_eq!(
        names(&reading),
        [
            "get_issue",
            "get_issue_2",
            "get_issue_3",
            long.as_str(),
            expected_last.as_str()
        ]
    );
    let renames: Vec<String> = notes(&reading)
        .into_iter()
        .filter(|n| n.starts_with("renamed"))
        .collect();
    assert_eq!(
        renames,
        [
            r#"renamed "get-issue!" -> "get_issue""#.to_owned(),
            r#"renamed "get_issue" -> "get_issue_2": the name "get_issue" is taken by an earlier tool"#.to_owned(),
            r#"renamed "Get Issue" -> "get_issue_3": the name "get_issue" is taken by an earlier tool"#.to_owned(),
            format!(
                r#"renamed "{long}" -> "{expected_last}": the name "{long}" is taken by an earlier tool"#
            ),
        ]
    );
    assert_eq!(reading.tools[0].source_name, "get-issue!");
    assert_eq!(
        reading.tools[0].title, "Get issue",
        "derived from the new name"
    );
}

#[test]
fn a_missing_description_is_the_title() {
    let reading = reading(
        r#"[{"name":"a","title":"Alpha","inputSchema":{}},{"name":"b","description":"  ","inputSchema":{}}]"#,
        Format::Mcp,
    );
    assert_eq!(reading.tools[0].description, "Alpha");
    assert_eq!(reading.tools[1].description, "B");
    let notes = notes(&reading);
    assert!(notes.contains(&r#"a: no description; the title "Alpha" is used"#.to_owned()));
    assert!(notes.contains(&r#"b: no description; the title "B" is used"#.to_owned()));
}

#[test]
fn safety_defaults_to_destructive_with_a_review_comment() {
    let reading = reading(
        r#"[{"name":"none","description":"d","inputSchema":{}},
            {"name":"no","description":"d","inputSchema":{},"annotations":{"readOnlyHint":false,"destructiveHint":false}},
            {"name":"yes","description":"d","inputSchema":{},"annotations":{"readOnlyHint":true}}]"#,
        Format::Mcp,
    );
    let [none, no, yes] = &reading.tools[..] else {
        panic!("three tools: {:?}", reading.tools);
    };
    for (tool, review) in [
        (none, Review::NoReadOnlyHint),
        (no, Review::ReadOnlyHintFalse),
    ] {
        assert_eq!(
            (tool.safety, tool.mode, tool.review),
            (Safety::Destructive, Mode::Sequential, Some(review))
        );
        let manifest = tool.manifest().expect("toml");
        assert!(
            manifest.contains(&format!(
                "{}\nsafety = \"destructive\"\nmode = \"sequential\"\n",
                review.comment()
            )),
            "{manifest}"
        );
    }
    assert!(none.manifest().expect("toml").contains(
        "# safety: the source declares no readOnlyHint; review: is this tool read-only?\n"
    ));
    assert_eq!(
        (yes.safety, yes.mode, yes.review),
        (Safety::ReadOnly, Mode::Parallel, None)
    );
    assert!(!yes.manifest().expect("toml").contains('#'));
}

#[test]
fn hints_are_carried_only_when_declared() {
    let reading = reading(
        r#"[{"name":"h","description":"d","inputSchema":{},"annotations":{"readOnlyHint":true,"idempotentHint":false,"openWorldHint":true}},
            {"name":"n","description":"d","inputSchema":{},"annotations":{"readOnlyHint":true}}]"#,
        Format::Mcp,
    );
    let h = reading.tools[0].manifest().expect("toml");
    assert!(
        h.contains("mode = \"parallel\"\nidempotent = false\nopen_world = true\n"),
        "{h}"
    );
    let n = reading.tools[1].manifest().expect("toml");
    assert!(
        !n.contains("idempotent") && !n.contains("open_world"),
        "{n}"
    );
}

#[test]
fn the_manifest_has_the_pinned_format() {
    let text = format!(r#"{{"tools":[{GET_ISSUE}]}}"#);
    let tool = only_tool(&text, Format::Mcp);
    assert_eq!(
        tool.manifest().expect("toml"),
        r#"name = "get_issue"
title = "Get issue"
description = "Reads one issue."
safety = "read-only"
mode = "parallel"
idempotent = true
open_world = false
input = { file = "get_issue.input.json" }
output = { file = "get_issue.output.json" }
"#
    );
    let files: Vec<String> = tool
        .files()
        .expect("toml")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        files,
        [
            "get_issue.toml",
            "get_issue.input.json",
            "get_issue.output.json"
        ]
    );
}

#[test]
fn strings_are_escaped_by_toml_and_read_back_unchanged() {
    let description = "Line one with \"quotes\", a \\ backslash and ''' quotes.\n\tLine two: \u{1F600} \u{7f} \"\"\" end\n";
    let title = "A \"title\" # not a comment";
    let source = serde_json::json!([{
        "name": "esc",
        "title": title,
        "description": description,
        "inputSchema": {},
    }]);
    let tool = only_tool(&source.to_string(), Format::Mcp);
    let manifest = tool.manifest().expect("toml");
    let table: toml::Table = toml::from_str(&manifest).expect("valid TOML");
    assert_eq!(table["title"].as_str(), Some(title));
    assert_eq!(table["description"].as_str(), Some(description));
    assert_eq!(table["name"].as_str(), Some("esc"));
    assert_eq!(
        table["input"].as_table().and_then(|t| t["file"].as_str()),
        Some("esc.input.json")
    );
}

#[test]
fn bad_definitions_are_refused_at_their_place_and_the_others_imported() {
    let text = r#"{"tools":[
        {"name":"ok","description":"d","inputSchema":{}},
        {"name":"x","inputSchema":[1]},
        {"name":5,"inputSchema":{}},
        {"inputSchema":{}},
        {"name":"y","inputSchema":{},"annotations":{"readOnlyHint":"yes"}},
        {"name":"z","inputSchema":{},"annotations":[]},
        {"name":"w","description":7,"inputSchema":{}},
        "tool",
        {"name":"v","inputSchema":{},"outputSchema":true}
    ]}"#;
    let reading = reading(text, Format::Auto);
    assert_eq!(names(&reading), ["ok"]);
    assert_eq!(reading.refused, 8);
    let errors: Vec<String> = reading
        .report
        .iter()
        .filter(|l| matches!(l, Line::Error(_)))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            "error: tools[1].inputSchema: expected an object, found an array; the tool is skipped",
            "error: tools[2].name: expected a string, found a number; the tool is skipped",
            "error: tools[3].name: missing; the tool is skipped",
            "error: tools[4].annotations.readOnlyHint: expected a boolean, found a string; the tool is skipped",
            "error: tools[5].annotations: expected an object, found an array; the tool is skipped",
            "error: tools[6].description: expected a string, found a number; the tool is skipped",
            "error: tools[7]: expected a tool definition (an object), found a string; the tool is skipped",
            "error: tools[8].outputSchema: expected an object, found a boolean; the tool is skipped",
        ]
    );
}

#[test]
fn unreadable_input_is_an_error_for_the_whole_input() {
    let not_json = read("{\"tools\": [", Format::Auto).expect_err("not JSON");
    assert!(
        not_json.to_string().starts_with("the input is not JSON: ")
            && not_json.to_string().contains("line 1 column 11"),
        "{not_json}"
    );
    let broken_line = read("{\"name\":\"a\"}\n{\"name\":", Format::Bfcl).expect_err("not JSON");
    assert!(broken_line.to_string().contains("line 2"), "{broken_line}");
    for (text, found) in [
        ("", "the input holds no JSON value"),
        ("42", "found a number"),
        (r#"{"servers":[]}"#, "found an object without `tools`"),
        (
            r#"{"tools":{}}"#,
            "tools: expected an array, found an object",
        ),
    ] {
        let error = read(text, Format::Auto).expect_err("unreadable");
        assert!(error.to_string().contains(found), "{text}: {error}");
    }
}

#[test]
fn formats_parse_from_their_names() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>(), Ok(*format));
    }
    assert_eq!(
        "json".parse::<Format>().expect_err("unknown").to_string(),
        r#"expected the format to be "auto", "mcp", "openai" or "bfcl", found "json""#
    );
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn write_keeps_existing_files_unless_forced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!(r#"[{GET_ISSUE},{{"name":"other","description":"d","inputSchema":{{}}}}]"#);

    let first = write(reading(&text, Format::Mcp), dir.path(), false);
    assert_eq!(first.imported, ["get_issue", "other"]);
    assert_eq!((first.skipped, first.need_review), (0, 1));
    assert_eq!(first.written.len(), 5);
    assert_eq!(
        files_in(dir.path()),
        [
            "get_issue.input.json",
            "get_issue.output.json",
            "get_issue.toml",
            "other.input.json",
            "other.toml"
        ]
    );
    assert_eq!(
        first.summary(dir.path()),
        format!(
            "imported 2 tools into {} (1 need review)",
            dir.path().display()
        )
    );
    let manifest = dir.path().join("get_issue.toml");
    std::fs::write(&manifest, "edited").expect("edit");

    let again = write(reading(&text, Format::Mcp), dir.path(), false);
    assert!(again.imported.is_empty());
    assert_eq!(again.skipped, 2);
    assert!(again.written.is_empty());
    assert_eq!(
        again
            .report
            .iter()
            .find(|line| matches!(line, Line::Error(_))),
        Some(&Line::Error(format!(
            "get_issue: get_issue.toml, get_issue.input.json, get_issue.output.json exist in {}; pass --force to overwrite; the tool is skipped",
            dir.path().display()
        )))
    );
    assert_eq!(std::fs::read_to_string(&manifest).expect("read"), "edited");

    let forced = write(reading(&text, Format::Mcp), dir.path(), true);
    assert_eq!(forced.imported, ["get_issue", "other"]);
    assert_eq!(forced.skipped, 0);
    assert!(
        std::fs::read_to_string(&manifest)
            .expect("read")
            .starts_with("name = \"get_issue\"\n")
    );
}

#[test]
fn a_file_that_cannot_be_written_skips_its_tool() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing");
    let outcome = write(
        reading(
            r#"{"name":"a","description":"d","inputSchema":{}}"#,
            Format::Mcp,
        ),
        &missing,
        false,
    );
    assert!(outcome.imported.is_empty());
    assert_eq!(outcome.skipped, 1);
    assert!(
        matches!(&outcome.report[..], [.., Line::Error(e)] if e.starts_with("a: cannot write ")),
        "{:?}",
        outcome.report
    );
}

/// The `tools/list` of a server, as received: `echo` with annotations, `get-tiny-image`
/// without any, and a definition that cannot be imported.
fn server_tools() -> Vec<serde_json::Value> {
    vec![
        serde_json::json!({
            "name": "echo",
            "title": "Echo",
            "description": "Echoes back the input",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
            "annotations": {"readOnlyHint": true, "openWorldHint": false, "idempotentHint": true}
        }),
        serde_json::json!({
            "name": "get-tiny-image",
            "description": "Returns a tiny image",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "object", "properties": {"data": {"type": "string"}}}
        }),
        serde_json::json!({"name": "broken"}),
    ]
}

fn everything() -> crate::model::Endpoint {
    crate::model::Endpoint::Command(
        ["npx", "-y", "@modelcontextprotocol/server-everything"]
            .map(str::to_owned)
            .to_vec(),
    )
}

fn pinned_reading(trust_hints: bool) -> Reading {
    super::pinned(server_tools(), "everything", &everything(), trust_hints)
        .unwrap_or_else(|e| panic!("a valid server: {e}"))
}

#[test]
fn pinned_tools_keep_the_upstream_definition_and_leave_safety_to_the_author() {
    let reading = pinned_reading(false);
    assert_eq!(names(&reading), ["echo", "get_tiny_image"]);
    assert_eq!(reading.refused, 1);
    let echo = &reading.tools[0];
    let digest = crate::lock::digest(&server_tools()[0]);
    assert_eq!(
        echo.manifest().expect("toml"),
        format!(
            r#"name = "echo"
title = "Echo"
description = "Echoes back the input"
# the upstream's hints (not trusted): readOnlyHint true, idempotentHint true, openWorldHint false
# declare what the tool may do, then remove the `#` of both lines:
# safety = "read-only"
# mode = "parallel"
input = {{ file = "echo.input.json" }}

[upstream]
server = "everything"
command = ["npx", "-y", "@modelcontextprotocol/server-everything"]
tool = "echo"
digest = "{digest}"
definition = {{ file = "echo.upstream.json" }}
"#
        )
    );
    // The server's other claims are not copied either.
    assert_eq!((echo.idempotent, echo.open_world), (None, None));
    let files = echo.files().expect("files");
    let listed: Vec<&str> = files.iter().map(|(file, _)| file.as_str()).collect();
    assert_eq!(
        listed,
        ["echo.toml", "echo.input.json", "echo.upstream.json"]
    );
    let definition: serde_json::Value =
        serde_json::from_str(&files[2].1).expect("the definition is JSON");
    assert_eq!(definition, server_tools()[0]);

    // Renamed to a valid name; `tool` keeps the server's.
    let image = &reading.tools[1];
    let manifest = image.manifest().expect("toml");
    assert!(
        manifest.contains("name = \"get_tiny_image\"\n"),
        "{manifest}"
    );
    assert!(
        manifest.contains("tool = \"get-tiny-image\"\n"),
        "{manifest}"
    );
    assert!(
        manifest.contains(
            "# the upstream declares no hints\n# declare what the tool may do, then remove the `#` of both lines:\n# safety = \"destructive\"\n# mode = \"sequential\"\n"
        ),
        "{manifest}"
    );
    assert!(
        manifest.contains("output = { file = \"get_tiny_image.output.json\" }\n"),
        "{manifest}"
    );
    let listed: Vec<String> = image
        .files()
        .expect("files")
        .into_iter()
        .map(|(file, _)| file)
        .collect();
    assert_eq!(
        listed,
        [
            "get_tiny_image.toml",
            "get_tiny_image.input.json",
            "get_tiny_image.output.json",
            "get_tiny_image.upstream.json"
        ]
    );

    assert_eq!(
        notes(&reading),
        [
            "echo: no safety or mode declared: the upstream's hints are not trusted; declare them in echo.toml (suggested: safety \"read-only\", mode \"parallel\")",
            "renamed \"get-tiny-image\" -> \"get_tiny_image\"",
            "get_tiny_image: no title; \"Get tiny image\" is derived from the name",
            "get_tiny_image: no safety or mode declared: the upstream's hints are not trusted; declare them in get_tiny_image.toml (suggested: safety \"destructive\", mode \"sequential\")",
            "error: tools[2].inputSchema: missing: an MCP tool has `name` and `inputSchema`; the tool is skipped",
        ]
    );
}

#[test]
fn trusted_hints_are_written_as_keys_and_said_to_be_unchecked() {
    let reading = pinned_reading(true);
    let echo = &reading.tools[0];
    let manifest = echo.manifest().expect("toml");
    assert!(
        manifest.contains(
            "# safety and mode taken from the upstream's hints, which nothing checks: readOnlyHint true, idempotentHint true, openWorldHint false\nsafety = \"read-only\"\nmode = \"parallel\"\nidempotent = true\nopen_world = false\n"
        ),
        "{manifest}"
    );
    assert!(
        manifest.ends_with("definition = { file = \"echo.upstream.json\" }\ntrust_hints = true\n"),
        "{manifest}"
    );
    let image = reading.tools[1].manifest().expect("toml");
    assert!(
        image.contains("it declares none\nsafety = \"destructive\"\nmode = \"sequential\"\n"),
        "{image}"
    );
    let notes = notes(&reading);
    assert_eq!(
        notes[0],
        "echo: safety \"read-only\", mode \"parallel\": safety taken from the upstream's hints, which nothing checks"
    );
}

#[test]
fn a_pinned_manifest_loads_once_its_safety_is_declared() {
    for trust_hints in [false, true] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let outcome = write(pinned_reading(trust_hints), dir.path(), false);
        assert_eq!(outcome.imported, ["echo", "get_tiny_image"]);
        assert_eq!(outcome.skipped, 1);
        // Untrusted, every pinned tool waits for its author; trusted, as any import.
        assert_eq!(outcome.need_review, if trust_hints { 1 } else { 2 });
        let loaded = crate::manifest::load_dir(dir.path());
        if trust_hints {
            let specs = loaded.specs.unwrap_or_else(|e| panic!("{e}"));
            assert!(
                specs
                    .iter()
                    .all(|s| s.upstream.as_ref().is_some_and(|u| u.trust_hints))
            );
            continue;
        }
        let found = loaded.specs.expect_err("no safety declared");
        assert_eq!(found.0.len(), 4, "{found}");
        assert!(
            found.0.iter().any(|d| d.message.starts_with("missing key `safety`, expected `safety = \"read-only\"` or `safety = \"destructive\"`; the upstream's hints are not trusted")),
            "{found}"
        );
        for name in ["echo", "get_tiny_image"] {
            let path = dir.path().join(format!("{name}.toml"));
            let text = std::fs::read_to_string(&path).expect("read");
            let edited = text
                .replace("# safety = ", "safety = ")
                .replace("# mode = ", "mode = ");
            std::fs::write(&path, edited).expect("write");
        }
        let specs = crate::manifest::load_dir(dir.path())
            .specs
            .unwrap_or_else(|e| panic!("{e}"));
        let image = &specs[1];
        assert_eq!(image.name, "get_tiny_image");
        let upstream = image.upstream.as_ref().expect("pinned");
        assert_eq!(upstream.tool, "get-tiny-image");
        assert_eq!(upstream.digest, crate::lock::digest(&server_tools()[1]));
        assert_eq!(upstream.definition, server_tools()[1]);
        assert_eq!(upstream.endpoint, everything());
        assert!(!upstream.trust_hints);
        assert_eq!(
            (specs[0].safety, specs[0].mode),
            (Safety::ReadOnly, Mode::Parallel)
        );
    }
}

#[test]
fn a_server_no_manifest_may_name_is_refused_before_anything_is_read() {
    let url = |url: &str| crate::model::Endpoint::Url(url.to_owned());
    let error = super::pinned(server_tools(), "Everything", &everything(), false)
        .expect_err("an invalid id");
    assert!(
        error.0.starts_with("invalid server id \"Everything\""),
        "{error}"
    );
    let error = super::pinned(
        server_tools(),
        "everything",
        &url("https://u:p@host/mcp"),
        false,
    )
    .expect_err("credentials");
    assert_eq!(
        error.0,
        "an upstream URL may not hold credentials; pass them to the proxy with --header"
    );
    let empty = crate::model::Endpoint::Command(Vec::new());
    assert!(super::pinned(server_tools(), "everything", &empty, false).is_err());
    let reading = super::pinned(
        server_tools(),
        "everything",
        &url("https://host/mcp"),
        false,
    )
    .expect("a valid url");
    let manifest = reading.tools[0].manifest().expect("toml");
    assert!(
        manifest.contains("\nurl = \"https://host/mcp\"\n"),
        "{manifest}"
    );
}
