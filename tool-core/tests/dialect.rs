//! Provider exports of a small fixture set: snapshots, and what holds for every dialect.

use serde_json::{Value, json};
use toolwright_core::dialect::{self, Dialect};
use toolwright_core::{Mode, Safety, ToolSpec};

fn spec(name: &str, safety: Safety, category: Option<&str>, input: Value) -> ToolSpec {
    let mode = if safety.is_read_only() {
        Mode::Parallel
    } else {
        Mode::Sequential
    };
    let mut spec = ToolSpec::new(name, safety, mode, input);
    spec.title = format!("The {name} tool");
    spec.description = format!("Does what {name} says.");
    spec.category = category.map(str::to_owned);
    spec.source = format!("tools/{name}.toml");
    spec
}

/// Four tools covering the manifest subset and a schemars-style code-first schema.
fn fixtures() -> Vec<ToolSpec> {
    let drawing_create = spec(
        "drawing_create",
        Safety::Destructive,
        Some("drawings"),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["pane_id", "kind", "anchors"],
            "properties": {
                "pane_id": {"type": "string", "description": "The pane to draw on.", "minLength": 1},
                "kind": {"type": "string", "enum": ["trend_line", "horizontal_line"], "description": "What to draw."},
                "anchors": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 2,
                    "description": "Where the drawing is anchored.",
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["time", "price"],
                        "properties": {
                            "time": {"type": "integer", "description": "Unix seconds.", "minimum": 0},
                            "price": {"type": "number", "exclusiveMinimum": 0}
                        }
                    }
                },
                "style": {
                    "type": "object",
                    "additionalProperties": false,
                    "description": "How it looks.",
                    "properties": {
                        "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
                        "width": {"type": "integer", "minimum": 1, "maximum": 10},
                        "line_style": {"type": "string", "enum": ["solid", "dashed"]}
                    }
                },
                "label": {"type": "string", "maxLength": 64, "description": "Text shown next to it."},
                "extend": {"type": "boolean", "default": false}
            }
        }),
    );
    let mut panes_list = spec(
        "panes_list",
        Safety::ReadOnly,
        Some("panes"),
        json!({"type": "object", "additionalProperties": false}),
    );
    panes_list.output_schema = Some(json!({
        "type": "object",
        "required": ["panes"],
        "properties": {"panes": {"type": "array", "items": {"type": "string"}}}
    }));
    let settings_update = spec(
        "settings_update",
        Safety::Destructive,
        Some("settings"),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["key", "value", "note"],
            "properties": {
                "key": {"type": "string", "enum": ["theme", "grid", "volume"]},
                "value": {"type": ["string", "number", "boolean"], "description": "The new value."},
                "note": {"type": ["string", "null"], "description": "Why."}
            }
        }),
    );
    let web_search = spec(
        "web_search",
        Safety::ReadOnly,
        Some("web"),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "WebSearchInput",
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "description": "How many results."},
                "since": {"type": "string", "format": "date"},
                "site": {"type": "string", "format": "uri"},
                "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}], "description": "Narrow the results."},
                "kind": {"$ref": "#/$defs/Kind", "description": "Which index."}
            },
            "$defs": {
                "Filter": {
                    "type": "object",
                    "properties": {
                        "language": {"type": "string", "const": "en"},
                        "safe": {"type": "boolean"}
                    },
                    "required": ["safe"]
                },
                "Kind": {
                    "oneOf": [
                        {"type": "string", "const": "news", "description": "Recent news."},
                        {"type": "string", "const": "pages", "description": "Any page."}
                    ]
                }
            }
        }),
    );
    vec![web_search, settings_update, panes_list, drawing_create]
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("json")
}

#[test]
fn mcp_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Mcp, &fixtures()).expect("exports");
    insta::assert_snapshot!("mcp", pretty(&export));
}

#[test]
fn openai_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::OpenAi, &fixtures()).expect("exports");
    insta::assert_snapshot!("openai", pretty(&export));
    // The Responses API gets the same functions, without the `function` wrapper.
    let responses = dialect::export(Dialect::OpenAiResponses, &fixtures()).expect("exports");
    let flattened: Vec<Value> = export
        .as_array()
        .expect("array")
        .iter()
        .map(|tool| {
            let mut function = tool["function"].clone();
            function["type"] = tool["type"].clone();
            function
        })
        .collect();
    assert_eq!(responses, Value::Array(flattened));
}

#[test]
fn anthropic_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Anthropic, &fixtures()).expect("exports");
    insta::assert_snapshot!("anthropic", pretty(&export));
}

#[test]
fn gemini_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Gemini, &fixtures()).expect("exports");
    insta::assert_snapshot!("gemini", pretty(&export));
}

#[test]
fn exports_are_sorted_by_name_and_deterministic() {
    let mut reversed = fixtures();
    reversed.reverse();
    for dialect in Dialect::ALL {
        let a = dialect::export(*dialect, &fixtures()).expect("exports");
        let b = dialect::export(*dialect, &reversed).expect("exports");
        assert_eq!(a, b, "{dialect}: input order must not matter");
        let names: Vec<&str> = a
            .as_array()
            .expect("array")
            .iter()
            .map(|d| {
                d.get("function").unwrap_or(d)["name"]
                    .as_str()
                    .expect("name")
            })
            .collect();
        assert_eq!(
            names,
            [
                "drawing_create",
                "panes_list",
                "settings_update",
                "web_search"
            ]
        );
    }
}

#[test]
fn every_exported_definition_passes_its_checker_again() {
    let specs = fixtures();
    for dialect in Dialect::ALL {
        for spec in &specs {
            let definition = dialect::convert(*dialect, spec)
                .expect("converts")
                .definition;
            let violations = dialect::check(*dialect, &definition, spec);
            assert!(
                violations.is_empty(),
                "{dialect} {}: {violations:?}",
                spec.name
            );
        }
    }
}

#[test]
fn an_export_is_byte_identical_from_run_to_run() {
    for dialect in Dialect::ALL {
        let text =
            || dialect::pretty_line(&dialect::export(*dialect, &fixtures()).expect("exports"));
        assert!(text().ends_with("]\n"), "{dialect}");
        let value: Value = serde_json::from_str(&text()).expect("json");
        assert_eq!(
            value,
            dialect::export(*dialect, &fixtures()).expect("exports")
        );
        assert_eq!(text(), text());
    }
    assert_eq!(Dialect::OpenAi.file_name(), "openai.json");
}

#[test]
fn dialect_names_round_trip_and_unknown_ones_list_the_accepted() {
    for dialect in Dialect::ALL {
        assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(*dialect));
        assert_eq!(dialect.to_string(), dialect.as_str());
    }
    let err = "claude".parse::<Dialect>().expect_err("not a dialect");
    assert_eq!(
        err.to_string(),
        "unknown dialect `claude`, expected one of `mcp`, `openai`, `openai-responses`, `anthropic`, `gemini`"
    );
}

#[test]
fn every_dialect_has_a_table_of_distinct_rules_named_after_it() {
    for dialect in Dialect::ALL {
        let rules = dialect.rules();
        assert!(!rules.is_empty());
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id).collect();
        // Both OpenAI APIs take the same functions: one table.
        let family = if dialect.is_openai() {
            "openai"
        } else {
            dialect.as_str()
        };
        for id in &ids {
            assert!(
                id.starts_with(&format!("{family}.")),
                "{id} belongs to {dialect}"
            );
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), rules.len(), "{dialect}: duplicate rule ids");
        assert!(rules.iter().all(|r| !r.text.is_empty()));
    }
}

#[test]
fn duplicate_names_fail_every_export() {
    let mut specs = fixtures();
    specs.push(specs[0].clone());
    for dialect in Dialect::ALL {
        let err = dialect::export(*dialect, &specs).expect_err("duplicate");
        let unique = dialect
            .rules()
            .iter()
            .find(|r| r.id.ends_with(".unique-name"))
            .expect("a unique-name rule")
            .id;
        let at = if *dialect == Dialect::OpenAi {
            "/function/name"
        } else {
            "/name"
        };
        assert!(
            err.violations
                .iter()
                .any(|v| v.rule == unique && v.tool == "web_search" && v.pointer == at),
            "{dialect}: {err}"
        );
    }
}

#[test]
fn an_export_error_lists_every_violation_one_per_line() {
    let specs = vec![
        spec(
            "bad name!",
            Safety::ReadOnly,
            None,
            json!({"type": "object"}),
        ),
        spec(
            "not_an_object",
            Safety::ReadOnly,
            None,
            json!({"type": "string"}),
        ),
    ];
    let err = dialect::export(Dialect::Anthropic, &specs).expect_err("two bad tools");
    let text = err.to_string();
    assert_eq!(text.lines().count(), err.violations.len(), "{text}");
    assert!(text.contains(
        "anthropic: tool `bad name!` at `/name`: tool name `bad name!` must match `^[a-zA-Z0-9_-]{1,64}$` (rule `anthropic.name`)"
    ), "{text}");
    assert!(
        text.contains("tool `not_an_object` at `/input_schema/type`"),
        "{text}"
    );
}

#[test]
fn rule_ids_of_violations_are_in_the_table() {
    // A schema that breaks many rules at once: every reported rule must exist in the table.
    let bad = spec(
        "bad.name with spaces",
        Safety::ReadOnly,
        None,
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "tree": {"$ref": "#/$defs/Tree"},
                "any": {},
                "remote": {"$ref": "https://example.com/schema.json"}
            },
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
        }),
    );
    for dialect in Dialect::ALL {
        let violations = dialect::convert(*dialect, &bad).expect_err("broken");
        for v in &violations {
            assert!(dialect.rule(v.rule).is_some(), "{dialect}: {v}");
            assert_eq!(v.tool, "bad.name with spaces");
        }
    }
}

#[test]
fn recursive_references_with_sibling_keywords_terminate() {
    let tree = spec(
        "tree_walk",
        Safety::ReadOnly,
        None,
        json!({
            "type": "object",
            "required": ["root"],
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "The root."}},
            "$defs": {"Node": {
                "type": "object",
                "required": ["kids"],
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node", "description": "A child."}}}
            }}
        }),
    );
    let openai = dialect::convert(Dialect::OpenAi, &tree)
        .expect("recursion is fine in strict mode")
        .definition;
    assert_eq!(
        openai["function"]["parameters"]["properties"]["root"]["properties"]["kids"]["items"],
        json!({"$ref": "#/$defs/Node"})
    );
    let gemini = dialect::convert(Dialect::Gemini, &tree).expect_err("cannot inline recursion");
    assert!(
        gemini.iter().all(|v| v.rule == "gemini.no-refs"),
        "{gemini:?}"
    );
    for dialect in [Dialect::Mcp, Dialect::Anthropic] {
        dialect::convert(dialect, &tree).expect("valid 2020-12");
    }
}

/// A small deterministic generator of schemas, good and bad (xorshift, fixed seed).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }

    fn pick<'a>(&mut self, items: &'a [Value]) -> &'a Value {
        &items[self.below(items.len())]
    }

    fn schema(&mut self, depth: usize) -> Value {
        if self.below(12) == 0 {
            return self
                .pick(&[json!(true), json!(3), json!("x"), json!(null)])
                .clone();
        }
        let types = [
            json!("string"),
            json!("integer"),
            json!("number"),
            json!("boolean"),
            json!("null"),
            json!("object"),
            json!("array"),
            json!(["string", "null"]),
            json!(["string", "number", "boolean"]),
            json!("strin"),
        ];
        let mut map = serde_json::Map::new();
        if self.below(5) != 0 {
            map.insert("type".into(), self.pick(&types).clone());
        }
        let extras = [
            ("minLength", json!(1)),
            ("maxLength", json!(-2)),
            ("pattern", json!("^[a-z]+$")),
            ("pattern", json!("(")),
            ("format", json!("uri")),
            ("format", json!("date")),
            ("format", json!("int64")),
            ("enum", json!(["a", "b"])),
            ("enum", json!([1, 2, null])),
            ("const", json!("c")),
            ("const", json!(7)),
            ("minimum", json!(0)),
            ("exclusiveMinimum", json!(0.5)),
            ("default", json!(null)),
            ("examples", json!(["e"])),
            ("description", json!("Text.")),
            ("additionalProperties", json!(false)),
            ("additionalProperties", json!(true)),
            ("uniqueItems", json!(true)),
            ("$ref", json!("#/$defs/A")),
            ("$ref", json!("#/$defs/B")),
            ("$ref", json!("#/$defs/Missing")),
            ("$ref", json!("https://example.com/x.json")),
            ("$schema", json!("http://json-schema.org/draft-07/schema#")),
            ("required", json!(["a", "zz"])),
            ("nullable", json!(true)),
        ];
        for _ in 0..self.below(4) {
            let (key, value) = &extras[self.below(extras.len())];
            map.insert((*key).into(), value.clone());
        }
        if depth > 0 {
            match self.below(9) {
                0 | 1 => {
                    let mut props = serde_json::Map::new();
                    for name in ["a", "b", "c"].iter().take(self.below(4)) {
                        props.insert((*name).into(), self.schema(depth - 1));
                    }
                    map.insert("properties".into(), Value::Object(props));
                }
                2 => {
                    map.insert("items".into(), self.schema(depth - 1));
                }
                3 => {
                    let key = ["anyOf", "oneOf", "allOf", "prefixItems"][self.below(4)];
                    let list: Vec<Value> = (0..=self.below(3))
                        .map(|_| self.schema(depth - 1))
                        .collect();
                    map.insert(key.into(), Value::Array(list));
                }
                4 => {
                    let key =
                        ["not", "if", "then", "additionalProperties", "contains"][self.below(5)];
                    map.insert(key.into(), self.schema(depth - 1));
                }
                _ => {}
            }
        }
        Value::Object(map)
    }

    fn root(&mut self) -> Value {
        let mut root = self.schema(4);
        if let Value::Object(map) = &mut root {
            if self.below(3) != 0 {
                map.insert("type".into(), json!("object"));
            }
            let a = self.schema(2);
            let b = self.schema(2);
            map.insert("$defs".into(), json!({"A": a, "B": b}));
        }
        root
    }

    fn instance(&mut self, depth: usize) -> Value {
        match self.below(if depth == 0 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => json!(self.below(2) == 0),
            2 => json!(self.below(100)),
            3 => json!("s"),
            4 => json!(1.5),
            5 => Value::Array(
                (0..self.below(3))
                    .map(|_| self.instance(depth - 1))
                    .collect(),
            ),
            _ => {
                let mut map = serde_json::Map::new();
                for name in ["a", "b", "c", "d"] {
                    if self.below(2) == 0 {
                        map.insert(name.into(), self.instance(depth - 1));
                    }
                }
                Value::Object(map)
            }
        }
    }
}

#[test]
fn arbitrary_schemas_are_converted_or_refused_never_a_panic() {
    let mut rng = Gen(0x9E37_79B9_7F4A_7C15);
    let mut accepted = vec![0usize; Dialect::ALL.len()];
    for i in 0..400 {
        let schema = rng.root();
        let tool = spec(
            &format!("tool_{i}"),
            Safety::Destructive,
            None,
            schema.clone(),
        );
        for (d, dialect) in Dialect::ALL.iter().enumerate() {
            match dialect::convert(*dialect, &tool) {
                Ok(converted) => {
                    let definition = converted.definition;
                    accepted[d] += 1;
                    let again = dialect::check(*dialect, &definition, &tool);
                    assert!(again.is_empty(), "{dialect} {schema}: {again:?}");
                }
                Err(violations) => {
                    assert!(!violations.is_empty());
                    for v in &violations {
                        assert!(dialect.rule(v.rule).is_some(), "{dialect}: {v}");
                        assert!(v.pointer.is_empty() || v.pointer.starts_with('/'), "{v}");
                    }
                }
            }
        }
        for pointer in dialect::openai_nullable_pointers(&schema) {
            assert!(schema.pointer(&pointer).is_some(), "{pointer} in {schema}");
        }
        let arguments = rng.instance(3);
        let stripped = dialect::strip_openai_nulls(&schema, &arguments);
        if !arguments.to_string().contains("null") {
            assert!(
                matches!(stripped, std::borrow::Cow::Borrowed(same) if same == &arguments),
                "nothing to strip in {arguments}: borrowed"
            );
        }
    }
    println!("accepted per dialect: {accepted:?}");
    // The generator must produce both kinds, or the test proves little.
    for (d, count) in accepted.iter().enumerate() {
        assert!(
            *count > 10 && *count < 400,
            "{}: {count} accepted",
            Dialect::ALL[d]
        );
    }
}

#[test]
fn export_errors_name_the_tool_the_pointer_and_the_rule() {
    let broken = spec(
        "scores_set",
        Safety::Destructive,
        Some("settings"),
        json!({
            "type": "object",
            "required": ["scores"],
            "properties": {
                "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
                "tree": {"$ref": "#/$defs/Tree"},
                "anything": {"description": "Any value."}
            },
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
        }),
    );
    let mut text = String::new();
    for dialect in Dialect::ALL {
        match dialect::export(*dialect, std::slice::from_ref(&broken)) {
            Ok(_) => text.push_str(&format!("{dialect}: exported\n")),
            Err(err) => text.push_str(&format!("{err}\n")),
        }
    }
    insta::assert_snapshot!("export_errors", text);
}
