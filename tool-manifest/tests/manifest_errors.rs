//! Bad manifests: each mistake is reported with its exact message at `line:col`.

use std::path::Path;

use toolwright_manifest::manifest::{load_dir, parse_manifest};

/// The mistakes of a manifest named `file`, as `line:col: message`.
fn errors_of(file: &str, text: &str) -> Vec<String> {
    parse_manifest(Path::new(file), text)
        .expect_err("the manifest has mistakes")
        .0
        .iter()
        .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
        .collect()
}

/// A valid header: lines 1-5.
const HEADER: &str = r#"name = "probe"
title = "Probe"
description = "Probes the chart."
safety = "read-only"
mode = "parallel"
"#;

/// A valid `[input]`: lines 6-9 after [`HEADER`].
const INPUT: &str = r#"[input]
type = "object"
required = ["id"]
properties.id = { type = "string" }
"#;

fn with(header: &str, rest: &str) -> String {
    format!("{header}{rest}")
}

#[test]
fn the_valid_base_parses() {
    let spec = parse_manifest(Path::new("tools/probe.toml"), &with(HEADER, INPUT)).expect("valid");
    assert_eq!(spec.name, "probe");
}

#[test]
fn unknown_key_is_named_with_the_accepted_keys_and_the_closest() {
    let text = with(HEADER, &format!("saftey = \"read-only\"\n{INPUT}"));
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "6:1: unknown key `saftey`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `idempotent`, `open_world`, `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, `upstream`, `input`, `output`, `input_examples`, `errors`, `examples`; did you mean `safety`?"
        ]
    );
}

#[test]
fn bad_safety_lists_the_accepted_values() {
    let text = with(&HEADER.replace("\"read-only\"", "\"readonly\""), INPUT);
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [r#"4:10: expected `safety` to be "read-only" or "destructive", found "readonly""#]
    );
}

#[test]
fn bad_mode_lists_the_accepted_values() {
    let text = with(&HEADER.replace("\"parallel\"", "\"Parallel\""), INPUT);
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [r#"5:8: expected `mode` to be "parallel" or "sequential", found "Parallel""#]
    );
}

#[test]
fn missing_mode_says_what_to_write() {
    let text = with(&HEADER.replace("mode = \"parallel\"\n", ""), INPUT);
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [r#"1:1: missing key `mode`, expected `mode = "parallel"` or `mode = "sequential"`"#]
    );
}

#[test]
fn wrong_type_names_the_key_and_what_was_found() {
    let text = with(&HEADER.replace("title = \"Probe\"", "title = 3"), INPUT);
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        ["2:9: expected `title` to be a string, found an integer"]
    );
}

#[test]
fn name_must_match_the_file_stem() {
    let text = with(HEADER, INPUT);
    assert_eq!(
        errors_of("tools/probe_v2.toml", &text),
        [
            r#"1:8: tool name `probe` differs from the file stem `probe_v2`, expected `name = "probe_v2"` (or rename the file)"#
        ]
    );
}

#[test]
fn name_must_fit_every_provider() {
    let text = with(&HEADER.replace("\"probe\"", "\"Probe-1\""), INPUT);
    assert_eq!(
        errors_of("tools/Probe-1.toml", &text),
        [
            "1:8: invalid tool name `Probe-1`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{0,63}$`)"
        ]
    );
}

#[test]
fn missing_input_table() {
    assert_eq!(
        errors_of("tools/probe.toml", HEADER),
        [
            r#"1:1: missing table `[input]`, expected the JSON Schema of the arguments (`[input]` with `type = "object"`)"#
        ]
    );
}

/// Every valid JSON Schema is accepted: what the generator once refused (composition, nodes
/// without `type`, mixed enums, `required` names without a schema, a root of another type, a
/// `default` that its schema refuses, which JSON Schema calls an annotation) loads.
#[test]
fn valid_schemas_outside_the_old_subset_are_accepted() {
    for input in [
        "[input]\ntype = \"array\"\nitems = { type = \"string\" }\n".to_owned(),
        format!(
            "{INPUT}\n[input.properties.size]\ntype = \"number\"\nanyOf = [{{ minimum = 0 }}, {{ maximum = -10 }}]\n"
        ),
        "[input]\ntype = \"object\"\nproperties.id = { description = \"any\" }\n".to_owned(),
        "[input]\ntype = \"object\"\nproperties.kind = { type = \"string\", enum = [\"line\", 2] }\n".to_owned(),
        "[input]\ntype = \"object\"\nrequired = [\"id\", \"pane\"]\nproperties.id = { type = \"string\" }\n".to_owned(),
        format!("{INPUT}\n[input.properties.limit]\ntype = \"integer\"\nmaximum = 20\ndefault = 50\n"),
    ] {
        let text = with(HEADER, &input);
        if let Err(e) = parse_manifest(Path::new("tools/probe.toml"), &text) {
            panic!("{input}: {e}");
        }
    }
}

#[test]
fn an_invalid_schema_is_refused_at_the_offending_value() {
    let text = with(
        HEADER,
        "[input]\ntype = \"object\"\nproperties.kind = { type = \"string\", minLength = -1 }\n",
    );
    let found = errors_of("tools/probe.toml", &text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "8:50: the input schema is not valid JSON Schema (2020-12) at `/properties/kind/minLength`: `minLength` must be at least 0, found -1"
        ),
        "{found:?}"
    );
}

#[test]
fn a_meta_schema_violation_says_what_the_keyword_must_be() {
    let text = with(
        HEADER,
        r#"[input]
type = "object"
required = [1]
properties.a = { type = "int" }
properties.b = { type = ["string", "int"] }
properties.c = { minimum = "3" }
properties.d = { type = [] }
properties.e = 5
"#,
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "8:13: the input schema is not valid JSON Schema (2020-12) at `/required/0`: `required` item 0 must be a string, found a number",
            r#"9:25: the input schema is not valid JSON Schema (2020-12) at `/properties/a/type`: `type` must be one of "array", "boolean", "integer", "null", "number", "object", "string", or a list of them, found "int""#,
            r#"10:36: the input schema is not valid JSON Schema (2020-12) at `/properties/b/type/1`: `type` item 1 must be one of "array", "boolean", "integer", "null", "number", "object", "string", found "int""#,
            "11:28: the input schema is not valid JSON Schema (2020-12) at `/properties/c/minimum`: `minimum` must be a number, found a string",
            "12:25: the input schema is not valid JSON Schema (2020-12) at `/properties/d/type`: `type` must list at least 1 item, found []",
            "13:16: the input schema is not valid JSON Schema (2020-12) at `/properties/e`: `properties/e` must be a boolean or an object, found a number",
        ]
    );
    // Draft-07 writes `items` as a schema or a list of them.
    let text = with(
        HEADER,
        "[input]\n\"$schema\" = \"http://json-schema.org/draft-07/schema#\"\nitems = 5\n",
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "8:9: the input schema is not valid JSON Schema (draft-07) at `/items`: `items` must be a boolean, an object or an array, found a number"
        ]
    );
}

#[test]
fn an_example_the_generated_type_cannot_hold_is_refused_at_the_value() {
    let text = with(
        HEADER,
        r#"input_examples = [{ n = 1e+19, m = 2 }]

[input]
type = "object"
properties.n = { type = "integer", minimum = 0 }
properties.m = { anyOf = [{ type = "integer" }, { type = "string" }] }
properties.big = { type = "integer", minimum = 0, maximum = 1.8e19 }

[[examples]]
description = "Too large"
input = { n = 5, m = -1e+19, big = 1.8e19 }
"#,
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "6:25: input example 1 cannot be held by the generated Rust type at `/n`: expected an integer from -9223372036854775808 to 9223372036854775807 (`i64`), found 1e+19",
            "16:22: example 1 cannot be held by the generated Rust type at `/m`: expected an integer from -9223372036854775808 to 9223372036854775807 (`i64`), found -1e+19",
        ]
    );
}

#[test]
fn error_codes_must_be_screaming_snake_case() {
    let text = with(
        HEADER,
        &format!(
            "{INPUT}\n[[errors]]\ncode = \"paneNotFound\"\nmessage = \"No pane.\"\nretryable = true\nrecommended_action = \"List the panes.\"\n"
        ),
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "12:8: error code `paneNotFound` is not SCREAMING_SNAKE_CASE, expected upper-case words joined by `_`, such as `PANE_NOT_FOUND`"
        ]
    );
}

#[test]
fn error_codes_must_not_repeat() {
    let entry = "[[errors]]\ncode = \"PANE_NOT_FOUND\"\nmessage = \"No pane.\"\nretryable = true\nrecommended_action = \"List the panes.\"\n";
    let text = with(HEADER, &format!("{INPUT}\n{entry}\n{entry}"));
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        ["18:8: duplicate error code `PANE_NOT_FOUND`, first declared at line 12"]
    );
}

#[test]
fn runtime_codes_are_reserved() {
    let text = with(
        HEADER,
        &format!(
            "errors = [{{ code = \"TOOL_TIMEOUT\", message = \"Slow.\", retryable = true, recommended_action = \"Wait.\" }}]\n{INPUT}"
        ),
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "6:20: error code `TOOL_TIMEOUT` is reserved by the runtime, expected a code of the tool's own (the reserved codes are `TOOL_INPUT_INVALID`, `TOOL_NOT_ALLOWED`, `TOOL_NOT_FOUND`, `TOOL_TIMEOUT`, `TOOL_FAILED`)"
        ]
    );
}

#[test]
fn an_error_entry_lists_its_missing_and_unknown_keys_once() {
    // `mesage` is reported as unknown with a suggestion, not also as a missing `message`.
    let text = with(
        HEADER,
        &format!(
            "{INPUT}\n[[errors]]\ncode = \"PANE_NOT_FOUND\"\nmesage = \"No pane.\"\nretryable = \"yes\"\n"
        ),
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "11:1: missing key `recommended_action` in `[[errors]]`",
            "13:1: unknown key `mesage` in `[[errors]]`, expected one of `code`, `message`, `retryable`, `recommended_action`; did you mean `message`?",
            "14:13: expected `retryable` to be `true` or `false`, found a string",
        ]
    );
}

#[test]
fn an_example_that_fails_its_schema_is_reported_at_the_offending_value() {
    let text = with(
        HEADER,
        &format!(
            "{INPUT}\n[[examples]]\ndescription = \"By ID\"\ninput = {{ id = 42 }}\n\n[[examples]]\ndescription = \"Nothing\"\ninput = {{}}\n"
        ),
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            r#"13:16: example 1 fails the input schema at `/id`: 42 is not of type "string""#,
            r#"17:9: example 2 fails the input schema at `/`: "id" is a required property"#,
        ]
    );
}

#[test]
fn a_toml_datetime_has_no_json_form() {
    let text = with(
        HEADER,
        "[input]\ntype = \"object\"\nproperties.since = { type = \"string\", default = 2024-01-31 }\n",
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            r#"8:49: datetime `2024-01-31` has no JSON form, expected a string (write it in quotes: "2024-01-31")"#
        ]
    );
}

#[test]
fn invalid_toml_is_located() {
    let text = with(HEADER, "[input\ntype = \"object\"\n");
    let found = errors_of("tools/probe.toml", &text);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|e| e.starts_with("6:") && e.contains("invalid TOML: ")),
        "{found:?}"
    );
}

#[test]
fn every_mistake_of_a_file_is_reported_in_order() {
    let text = r#"name = "Probe"
title = ""
description = "Probes."
safety = "write"
mode = "parallel"
colour = "red"

[input]
type = "object"
properties.id = { type = "strng" }
"#;
    assert_eq!(
        errors_of("tools/Probe.toml", text),
        [
            "1:8: invalid tool name `Probe`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{0,63}$`)",
            "2:9: expected `title` to be a non-empty string, found an empty one",
            r#"4:10: expected `safety` to be "read-only" or "destructive", found "write""#,
            "6:1: unknown key `colour`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `idempotent`, `open_world`, `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, `upstream`, `input`, `output`, `input_examples`, `errors`, `examples`",
            r#"10:26: the input schema is not valid JSON Schema (2020-12) at `/properties/id/type`: `type` must be one of "array", "boolean", "integer", "null", "number", "object", "string", or a list of them, found "strng""#,
        ]
    );
}

#[test]
fn duplicate_names_across_files_point_at_the_second() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("a_probe.toml"),
        with(&HEADER.replace("\"probe\"", "\"b_probe\""), INPUT),
    )
    .expect("write a");
    std::fs::write(
        dir.path().join("b_probe.toml"),
        with(&HEADER.replace("\"probe\"", "\"b_probe\""), INPUT),
    )
    .expect("write b");
    let diagnostics = load_dir(dir.path()).specs.expect_err("duplicate names");
    let shown: Vec<String> = diagnostics
        .0
        .iter()
        .map(|d| {
            let file = d
                .file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!(
                "{file}:{}:{}: {}",
                d.line,
                d.column,
                d.message.replace(&dir.path().display().to_string(), "DIR")
            )
        })
        .collect();
    let first = Path::new("DIR").join("a_probe.toml");
    assert_eq!(
        shown,
        [
            r#"a_probe.toml:1:8: tool name `b_probe` differs from the file stem `a_probe`, expected `name = "a_probe"` (or rename the file)"#
                .to_owned(),
            format!("b_probe.toml:1:8: duplicate tool name `b_probe`, first declared in `{}` at line 1", first.display()),
        ]
    );
}

#[test]
fn a_missing_or_empty_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("nowhere");
    let err = load_dir(&missing).specs.expect_err("missing");
    assert_eq!(err.0.len(), 1);
    assert_eq!(err.0[0].file, missing);
    assert_eq!(err.0[0].message, "the manifest directory does not exist");

    std::fs::write(dir.path().join("README.md"), "not a manifest").expect("write");
    std::fs::write(dir.path().join(".#probe.toml"), "an editor's lock file").expect("write");
    std::fs::create_dir(dir.path().join("nested.toml")).expect("a directory is not a manifest");
    let err = load_dir(dir.path()).specs.expect_err("empty");
    assert_eq!(
        err.0[0].message,
        "no manifests in this directory, expected one `<tool name>.toml` file per tool"
    );
}

#[test]
fn errors_of_several_files_are_all_reported_sorted() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("b.toml"),
        with(
            &HEADER
                .replace("\"probe\"", "\"b\"")
                .replace("\"parallel\"", "\"x\""),
            INPUT,
        ),
    )
    .expect("write b");
    std::fs::write(
        dir.path().join("a.toml"),
        with(&HEADER.replace("\"probe\"", "\"a\""), "[input]\ntype = 1\n"),
    )
    .expect("write a");
    std::fs::write(
        dir.path().join("c.toml"),
        with(&HEADER.replace("\"probe\"", "\"c\""), INPUT),
    )
    .expect("write c");
    let err = load_dir(dir.path()).specs.expect_err("two bad files");
    let shown: Vec<String> = err
        .0
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}",
                d.file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                d.line,
                d.column
            )
        })
        .collect();
    assert_eq!(shown, ["a.toml:7:8", "b.toml:5:8"]);
}

#[test]
fn a_manifest_key_written_after_input_gets_a_hint() {
    let text = with(HEADER, &format!("{INPUT}category = \"panes\"\n"));
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "10:1: `category` is a manifest key, not a JSON Schema keyword: keys after `[input]` belong to the input schema, move it above `[input]`"
        ]
    );
}

#[test]
fn a_misspelled_required_key_is_one_mistake_not_two() {
    let text = with(&HEADER.replace("title =", "tilte ="), INPUT);
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "2:1: unknown key `tilte`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `idempotent`, `open_world`, `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, `upstream`, `input`, `output`, `input_examples`, `errors`, `examples`; did you mean `title`?"
        ]
    );
    let text = with(HEADER, &INPUT.replace("[input]", "[inptu]"));
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "6:2: unknown key `inptu`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `idempotent`, `open_world`, `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, `upstream`, `input`, `output`, `input_examples`, `errors`, `examples`; did you mean `input`?"
        ]
    );
}

#[test]
fn an_unexpected_property_in_an_example_points_at_its_key() {
    let text = with(
        HEADER,
        "[input]\ntype = \"object\"\nadditionalProperties = false\nproperties.id = { type = \"string\" }\n\n[[examples]]\ndescription = \"Typo\"\ninput = { id = \"a\", colour = \"red\" }\n",
    );
    assert_eq!(
        errors_of("tools/probe.toml", &text),
        [
            "13:21: example 1 fails the input schema at `/colour`: unexpected property `colour` (the schema does not allow other properties)"
        ]
    );
}

/// A manifest whose input schema is the JSON file `probe.input.json` with `schema`, in a
/// directory of its own; the mistakes of `load_dir` as `file:line:col: message`.
fn with_schema_file(schema: &str) -> Result<toolwright_manifest::ToolSpec, Vec<String>> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("probe.toml"),
        with(HEADER, "input = { file = \"probe.input.json\" }\n"),
    )
    .expect("manifest");
    std::fs::write(dir.path().join("probe.input.json"), schema).expect("schema file");
    match load_dir(dir.path()).specs {
        Ok(mut specs) => Ok(specs.remove(0)),
        Err(diagnostics) => Err(diagnostics
            .0
            .iter()
            .map(|d| {
                let file = d
                    .file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{file}:{}:{}: {}", d.line, d.column, d.message)
            })
            .collect()),
    }
}

#[test]
fn a_schema_file_holds_what_toml_cannot_and_any_draft() {
    let spec = with_schema_file(
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"a": {"type": ["string", "null"], "default": null}, "t": {"type": "array", "items": [{"type": "integer"}]}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        spec.input_schema["properties"]["a"]["default"],
        serde_json::Value::Null
    );
    assert_eq!(
        spec.input_schema["$schema"], "http://json-schema.org/draft-07/schema#",
        "another draft keeps its `$schema`"
    );
}

#[test]
fn mistakes_in_a_schema_file_are_located_in_it() {
    let found = with_schema_file(
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"string\", \"minLength\": -1}\n  }\n}\n",
    )
    .expect_err("invalid");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "probe.input.json:4:42: the input schema is not valid JSON Schema (2020-12) at `/properties/a/minLength`: `minLength` must be at least 0, found -1"
        ),
        "{found:?}"
    );
    let found = with_schema_file("{\"$schema\": \"http://json-schema.org/draft-04/schema#\"}")
        .expect_err("draft-04");
    assert!(
        found[0].starts_with("probe.input.json:1:2: unsupported `$schema`"),
        "{found:?}"
    );
    let found = with_schema_file("{\"type\": \"object\",}").expect_err("not JSON");
    assert!(
        found[0].starts_with("probe.input.json:1:19: the input schema file is not JSON"),
        "{found:?}"
    );
}

#[test]
fn a_number_a_schema_file_cannot_be_read_with_is_located_in_it() {
    let found = with_schema_file(
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"n\": {\"type\": \"integer\", \"maximum\": 123456789012345678901234567890, \"default\": -0}\n  }\n}\n",
    )
    .expect_err("inexact numbers");
    assert_eq!(
        found,
        [
            "probe.input.json:4:41: the number 123456789012345678901234567890 at `/properties/n/maximum` cannot be read exactly: an integer past 64 bits is read as the float 1.2345678901234568e+29",
            "probe.input.json:4:84: the number -0 at `/properties/n/default` cannot be read exactly: `-0` is read as the float -0.0 (write 0)",
        ]
    );
    let spec = with_schema_file(
        r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 18446744073709551615, "minimum": -1.50e0}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        spec.input_schema["properties"]["n"]["maximum"],
        serde_json::json!(u64::MAX)
    );
}

#[test]
fn a_missing_schema_file_is_reported_at_its_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("probe.toml"),
        with(HEADER, "input = { file = \"nowhere.json\" }\n"),
    )
    .expect("manifest");
    let err = load_dir(dir.path()).specs.expect_err("no such file");
    let d = &err.0[0];
    assert_eq!((d.line, d.column), (6, 18), "{d}");
    assert!(
        d.message.starts_with("cannot read the input schema file"),
        "{d}"
    );
}

/// What a build script watches: every manifest, then the schema files it names, read or not,
/// also when the manifests have mistakes.
#[test]
fn the_files_read_are_listed_with_or_without_mistakes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = |name: &str| dir.path().join(name);
    std::fs::write(
        file("probe.toml"),
        with(
            HEADER,
            "input = { file = \"probe.input.json\" }\noutput = { file = \"probe.output.json\" }\n",
        ),
    )
    .expect("manifest");
    std::fs::write(file("probe.input.json"), r#"{"type": "object"}"#).expect("schema file");
    std::fs::write(file("a.toml"), with(&HEADER.replace("probe", "a"), INPUT)).expect("manifest");
    let loaded = load_dir(dir.path());
    assert_eq!(
        loaded.files,
        [
            file("a.toml"),
            file("probe.toml"),
            file("probe.input.json"),
            file("probe.output.json")
        ]
    );
    let err = loaded.specs.expect_err("the output schema file is missing");
    assert!(
        err.0[0]
            .message
            .starts_with("cannot read the output schema file"),
        "{err}"
    );

    std::fs::write(file("probe.output.json"), r#"{"type": "object"}"#).expect("schema file");
    let loaded = load_dir(dir.path());
    assert_eq!(loaded.files.len(), 4, "{:?}", loaded.files);
    let specs = loaded.specs.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(specs.len(), 2);
}
