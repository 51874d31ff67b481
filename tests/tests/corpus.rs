//! The real-tools acceptance corpus: tool definitions published by real MCP servers and by the
//! Berkeley Function Calling Leaderboard, imported, run through the generator, compiled, and
//! fed valid arguments.
//!
//! The corpus is looked up at `<workspace>/../shared/corpus/real-tools/raw`, or at the directory
//! named by `REAL_TOOLS_CORPUS`; when it is absent each test says so and passes, except in CI (`CI`
//! set), where it fails. Run `cargo test -p toolwright-tests --test corpus -- --nocapture` for the
//! acceptance table and the table of provider exports.

#[path = "support/real_tools.rs"]
mod real_tools;
mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};
use toolwright_manifest::dialect::{self, Dialect, openai};
use toolwright_manifest::import::{self, BFCL_TYPES, Format, Tool};
use toolwright_manifest::outputs::OutputDirs;
use toolwright_manifest::{ToolSpec, codegen, manifest, outputs};

use real_tools::{Source, corpus_dir, sources};

/// The share of the JSON Schema tools (every source but BFCL) the generator must accept as
/// published.
const JSON_SCHEMA_TARGET: f64 = 0.99;
/// The share of the BFCL tools the generator must accept once their types are mapped.
const BFCL_TARGET: f64 = 0.98;
/// The share of accepted tools for which a valid instance must be derived from the schema (so
/// that the deserialization check is not vacuous).
const INSTANCE_COVERAGE: f64 = 0.9;
/// The source whose schemas are in the BFCL dialect.
const BFCL: &str = "bfcl";

impl Source {
    /// The Rust module the source's tools are generated into.
    fn module(&self) -> String {
        self.name.replace(['-', '.'], "_")
    }
}

/// JSON text without the white space between tokens, so that two texts of the same value
/// compare equal exactly when their keys come in the same order. (`serde_json` either sorts
/// keys or keeps raw text; this comparison needs neither.)
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// The raw text of each record's `inputSchema`, in file order.
fn raw_input_schemas(text: &str) -> Vec<String> {
    let records: Vec<BTreeMap<String, Box<serde_json::value::RawValue>>> =
        serde_json::from_str(text).expect("records");
    records
        .iter()
        .map(|record| {
            record
                .get("inputSchema")
                .map(|raw| raw.get().to_owned())
                .expect("every record has an inputSchema")
        })
        .collect()
}

/// The BFCL → JSON Schema mapping, written against `serde_json::Value` as the oracle of the
/// import's own.
fn map_bfcl(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if key == "type" {
                    match value.as_str().and_then(|t| {
                        BFCL_TYPES
                            .iter()
                            .find(|(bfcl, _)| *bfcl == t)
                            .map(|(_, to)| *to)
                    }) {
                        Some(Some(to)) => {
                            out.insert(key.clone(), json!(to));
                        }
                        Some(None) => {}
                        None => {
                            out.insert(key.clone(), value.clone());
                        }
                    }
                } else if key == "properties" {
                    let properties = value
                        .as_object()
                        .map(|p| {
                            p.iter()
                                .map(|(name, s)| (name.clone(), map_bfcl(s)))
                                .collect::<Map<_, _>>()
                        })
                        .map_or_else(|| value.clone(), Value::Object);
                    out.insert(key.clone(), properties);
                } else if key == "items" {
                    out.insert(key.clone(), map_bfcl(value));
                } else {
                    out.insert(key.clone(), value.clone());
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn import_source(source: &Source) -> Vec<Tool> {
    let reading =
        import::read(&source.text, Format::Auto).unwrap_or_else(|e| panic!("{}: {e}", source.name));
    let errors: Vec<String> = reading
        .report
        .iter()
        .filter(|line| matches!(line, import::Line::Error(_)))
        .map(ToString::to_string)
        .collect();
    assert!(errors.is_empty(), "{}: {errors:#?}", source.name);
    assert_eq!(
        reading.tools.len(),
        source.records.len(),
        "{}: one tool per record",
        source.name
    );
    reading.tools
}

#[test]
fn every_corpus_tool_is_imported_with_its_schema_kept() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    for source in sources(&dir) {
        let tools = import_source(&source);
        let raw = raw_input_schemas(&source.text);
        for ((tool, record), raw) in tools.iter().zip(&source.records).zip(&raw) {
            let at = format!("{}: {} ({})", source.name, tool.name, tool.place);
            assert!(
                toolwright_manifest::model::is_valid_tool_name(&tool.name),
                "{at}"
            );
            let written: Value = serde_json::from_str(&tool.input).expect("the schema file");
            if source.name == BFCL {
                assert_eq!(written, map_bfcl(&record["inputSchema"]), "{at}");
            } else {
                assert_eq!(written, record["inputSchema"], "{at}: the same value");
                assert_eq!(
                    compact(&tool.input),
                    compact(raw),
                    "{at}: the same key order"
                );
            }
            let read_only = record["annotations"]["readOnlyHint"] == json!(true);
            assert_eq!(tool.safety.is_read_only(), read_only, "{at}");
            assert_eq!(tool.review.is_some(), !read_only, "{at}");
            if let Some(title) = record["title"].as_str() {
                assert_eq!(tool.title, title, "{at}");
            }
            let manifest = tool.manifest().expect("toml");
            let table: toml::Table = toml::from_str(&manifest).expect("the manifest is TOML");
            assert_eq!(
                table["description"].as_str(),
                record["description"].as_str()
            );
            let hint = |key: &str| record["annotations"][key].as_bool();
            assert_eq!(
                table.get("idempotent").and_then(|v| v.as_bool()),
                hint("idempotentHint"),
                "{at}"
            );
            assert_eq!(
                table.get("open_world").and_then(|v| v.as_bool()),
                hint("openWorldHint"),
                "{at}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Acceptance: the generator, the compiler and the generated inputs.

/// What became of one source.
#[derive(Default)]
struct Row {
    tools: usize,
    accepted: Vec<ToolSpec>,
    /// `(tool, first reason)` of every refused tool.
    refused: Vec<(String, String)>,
    /// Accepted tools with at least one valid instance.
    with_instances: usize,
    instances: usize,
    /// `(tool, instance, error)` of every valid instance the generated `Input` refused.
    instance_failures: Vec<String>,
}

/// Writes a tool's files into `dir`.
fn write_tool(tool: &Tool, dir: &Path) {
    std::fs::create_dir_all(dir).expect("a directory");
    for (file, contents) in tool.files().expect("toml") {
        std::fs::write(dir.join(file), contents).expect("a tool file");
    }
}

/// Runs the generator on one tool as `generate` does: the manifest loaded, the Rust code and
/// every output rendered. The first reason it is refused, if it is.
fn generate_one(tool: &Tool, scratch: &Path) -> Result<ToolSpec, String> {
    let dir = scratch.join(&tool.name);
    write_tool(tool, &dir);
    let specs = manifest::load_dir(&dir).specs.map_err(|diagnostics| {
        diagnostics
            .0
            .first()
            .map_or_else(|| "refused".to_owned(), |d| d.message.clone())
    })?;
    codegen::generate(&specs).map_err(|e| e.to_string())?;
    let dirs = OutputDirs {
        out: scratch.join("out"),
        docs: scratch.join("docs"),
        lock: None,
    };
    outputs::render(&specs, &dirs, &[]).map_err(|e| e.to_string())?;
    specs
        .into_iter()
        .next()
        .ok_or_else(|| "no tool loaded".to_owned())
}

/// How an instance is filled.
#[derive(Clone, Copy, PartialEq)]
enum Fill {
    /// The required properties only.
    Required,
    /// Every declared property.
    All,
}

/// A property no corpus schema declares: an instance carrying it is valid exactly when the
/// schema leaves other properties open.
const UNDECLARED: &str = "undeclared_property";

/// Valid instances of an input schema: the minimal one (built from `required` and the types),
/// the same with every integer written as an integral float (`2.0`: JSON Schema's integers
/// include them), one with every declared property, and the minimal one with a property the
/// schema does not declare (valid when the schema is open). Only the candidates `jsonschema`
/// accepts are kept. (No dependency builds instances from a schema, so this is written here.)
fn instances(schema: &Value) -> Vec<Value> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let mut out: Vec<Value> = Vec::new();
    for (fill, floats) in [
        (Fill::Required, false),
        (Fill::Required, true),
        (Fill::All, false),
    ] {
        if let Some(instance) = build(schema, schema, fill, floats, 0) {
            let mut open = instance.clone();
            if let Value::Object(map) = &mut open
                && fill == Fill::Required
                && !floats
            {
                map.insert(UNDECLARED.to_owned(), json!(1));
            }
            for candidate in [instance, open] {
                if !out.contains(&candidate) && validator.is_valid(&candidate) {
                    out.push(candidate);
                }
            }
        }
    }
    out
}

fn build(node: &Value, root: &Value, fill: Fill, floats: bool, depth: usize) -> Option<Value> {
    if depth > 24 {
        return None;
    }
    let map = match node {
        Value::Object(map) => map,
        Value::Bool(true) => return Some(Value::Null),
        _ => return None,
    };
    if let Some(value) = map.get("const") {
        return Some(value.clone());
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values
            .iter()
            .find(|v| !v.is_null())
            .or(values.first())
            .cloned();
    }
    if let Some(Value::String(reference)) = map.get("$ref") {
        let target = root.pointer(reference.strip_prefix('#')?)?;
        return build(target, root, fill, floats, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let mut ordered: Vec<&Value> =
                branches.iter().filter(|b| b["type"] != "null").collect();
            ordered.extend(branches.iter().filter(|b| b["type"] == "null"));
            return ordered
                .into_iter()
                .find_map(|branch| build(branch, root, fill, floats, depth + 1));
        }
    }
    if let Some(Value::Array(all)) = map.get("allOf")
        && map.get("type").is_none()
        && map.get("properties").is_none()
    {
        return all
            .iter()
            .find_map(|branch| build(branch, root, fill, floats, depth + 1));
    }
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ if map.contains_key("properties") || map.contains_key("required") => "object",
        _ if map.contains_key("items") || map.contains_key("prefixItems") => "array",
        _ => return Some(Value::Null),
    };
    Some(match kind {
        "object" => {
            let properties = map.get("properties").and_then(Value::as_object);
            let mut names: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if fill == Fill::All
                && let Some(properties) = properties
            {
                for name in properties.keys() {
                    if !names.contains(&name.as_str()) {
                        names.push(name);
                    }
                }
            }
            let mut object = Map::new();
            for name in names {
                let schema = properties
                    .and_then(|p| p.get(name))
                    .or_else(|| map.get("additionalProperties").filter(|a| a.is_object()))
                    .unwrap_or(&Value::Bool(true));
                object.insert(
                    name.to_owned(),
                    build(schema, root, fill, floats, depth + 1)?,
                );
            }
            Value::Object(object)
        }
        "array" => {
            let prefix: Vec<Value> = match map.get("prefixItems") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| build(item, root, fill, floats, depth + 1))
                    .collect::<Option<_>>()?,
                _ => Vec::new(),
            };
            let min = map
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(8) as usize;
            let want = if fill == Fill::All { min.max(1) } else { min };
            let mut items = prefix;
            if let Some(item) = map.get("items").filter(|i| i.is_object()) {
                while items.len() < want {
                    items.push(build(item, root, fill, floats, depth + 1)?);
                }
            }
            Value::Array(items)
        }
        "string" => {
            let formatted = match map.get("format").and_then(Value::as_str) {
                Some("date-time") => Some("2024-01-02T03:04:05Z"),
                Some("date") => Some("2024-01-02"),
                Some("time") => Some("03:04:05Z"),
                Some("email") => Some("someone@example.com"),
                Some("uri" | "url" | "uri-reference" | "iri") => Some("https://example.com/"),
                Some("uuid") => Some("00000000-0000-0000-0000-000000000000"),
                Some("ipv4") => Some("127.0.0.1"),
                Some("ipv6") => Some("::1"),
                Some("hostname") => Some("example.com"),
                _ => None,
            };
            match formatted {
                Some(text) => json!(text),
                None => {
                    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(1);
                    let max = map
                        .get("maxLength")
                        .and_then(Value::as_u64)
                        .unwrap_or(u64::MAX);
                    json!("a".repeat(min.max(1).min(max).min(64) as usize))
                }
            }
        }
        "integer" | "number" => {
            let bound = |key: &str| map.get(key).and_then(Value::as_f64);
            let low = bound("minimum")
                .or_else(|| bound("exclusiveMinimum").map(|m| m.floor() + 1.0))
                .unwrap_or(f64::MIN);
            let high = bound("maximum")
                .or_else(|| bound("exclusiveMaximum").map(|m| m.ceil() - 1.0))
                .unwrap_or(f64::MAX);
            let mut value = 1f64.max(low.ceil()).min(high.floor());
            if let Some(step) = bound("multipleOf").filter(|s| *s >= 1.0) {
                value = (value / step).ceil() * step;
            }
            if kind == "integer" && floats {
                json!(value)
            } else {
                // Integral: an `i64` in JSON (a `number` field takes it too).
                json!(value as i64)
            }
        }
        "boolean" => json!(true),
        _ => Value::Null,
    })
}

/// The crate that compiles every source's generated code (one module per source) and
/// deserializes the instances into each tool's generated `Input`, as the registry does.
fn write_check_crate(dir: &Path, rows: &BTreeMap<String, Row>) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace");
    let path = |crate_dir: &str| workspace.join(crate_dir).display().to_string();
    let manifest = format!(
        r#"[package]
name = "corpus-check"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
toolwright-runtime = {{ path = {runtime:?} }}

[build-dependencies]
toolwright-manifest = {{ path = {manifest:?} }}

[workspace]

[profile.dev]
debug = 0
"#,
        runtime = path("tool-runtime"),
        manifest = path("tool-manifest"),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    // The workspace's versions: nothing is resolved anew.
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");

    let modules: Vec<&String> = rows
        .iter()
        .filter(|(_, row)| !row.accepted.is_empty())
        .map(|(module, _)| module)
        .collect();
    let mut build = String::from("fn main() {\n");
    for module in &modules {
        writeln!(
            build,
            "    if let Err(e) = toolwright_manifest::Builder::new().manifest_dir(\"tools/{module}\").out_file(\"{module}.rs\").compile() {{\n        eprintln!(\"{{e}}\");\n        std::process::exit(1);\n    }}"
        )
        .expect("write");
    }
    build.push_str("}\n");
    std::fs::write(dir.join("build.rs"), build).expect("build.rs");

    let mut main = String::from(
        "#![allow(dead_code, unused_imports)]\n\
         use toolwright_runtime::__private::serde::Deserialize;\n\
         use toolwright_runtime::__private::serde::de::DeserializeOwned;\n\
         use toolwright_runtime::__private::serde_json::{self, Value};\n\n",
    );
    for module in &modules {
        writeln!(
            main,
            "pub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));\n}}"
        )
        .expect("write");
    }
    main.push_str(
        "\nfn check<T: DeserializeOwned>(value: &Value) -> Result<(), String> {\n    \
         T::deserialize(value).map(|_| ()).map_err(|e| e.to_string())\n}\n\n\
         fn deserialize(source: &str, tool: &str, value: &Value) -> Option<Result<(), String>> {\n    \
         Some(match (source, tool) {\n",
    );
    for (module, row) in rows {
        for spec in &row.accepted {
            writeln!(
                main,
                "        ({module:?}, {name:?}) => check::<{module}::r#{name}::Input>(value),",
                name = spec.name
            )
            .expect("write");
        }
    }
    main.push_str(
        "        _ => return None,\n    })\n}\n\n\
         fn main() {\n    \
         let path = std::env::args().nth(1).expect(\"the instances file\");\n    \
         let text = std::fs::read_to_string(path).expect(\"the instances file\");\n    \
         let entries: Vec<(String, String, Vec<Value>)> = serde_json::from_str(&text).expect(\"instances\");\n    \
         for (source, tool, instances) in entries {\n        \
         for (i, instance) in instances.iter().enumerate() {\n            \
         match deserialize(&source, &tool, instance) {\n                \
         Some(Ok(())) => println!(\"ok {source} {tool} {i}\"),\n                \
         Some(Err(e)) => println!(\"refused {source} {tool} {i} {e}\"),\n                \
         None => println!(\"missing {source} {tool} {i}\"),\n            \
         }\n        }\n    }\n}\n",
    );
    std::fs::create_dir_all(dir.join("src")).expect("src");
    std::fs::write(dir.join("src/main.rs"), main).expect("main.rs");
}

/// `cargo` with the outer build's variables for the test itself removed.
fn cargo(dir: &Path, target: &Path) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET");
    command
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

#[test]
fn real_tools_are_accepted_compile_and_take_valid_instances() {
    let Some(corpus) = corpus_dir() else {
        return;
    };
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-check");
    let crate_dir = work.join("crate");
    let scratch = work.join("scratch");
    for dir in [crate_dir.join("tools"), scratch.clone()] {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).expect("a clean directory");
        }
    }

    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut entries: Vec<(String, String, Vec<Value>)> = Vec::new();
    for source in sources(&corpus) {
        let module = source.module();
        names.insert(module.clone(), source.name.clone());
        let tools = import_source(&source);
        let mut row = Row {
            tools: tools.len(),
            ..Row::default()
        };
        for tool in &tools {
            match generate_one(tool, &scratch.join(&module)) {
                Ok(spec) => {
                    write_tool(tool, &crate_dir.join("tools").join(&module));
                    row.accepted.push(spec);
                }
                Err(reason) => row.refused.push((tool.name.clone(), reason)),
            }
        }
        if !row.accepted.is_empty() {
            // The accepted tools of a source, together: the whole-set checks, the code and
            // every output.
            let dir = crate_dir.join("tools").join(&module);
            let specs = manifest::load_dir(&dir)
                .specs
                .unwrap_or_else(|d| panic!("{}: the accepted tools together: {d}", source.name));
            codegen::generate(&specs).unwrap_or_else(|e| panic!("{}: {e}", source.name));
            let dirs = OutputDirs {
                out: scratch.join("all").join(&module).join("out"),
                docs: scratch.join("all").join(&module).join("docs"),
                lock: None,
            };
            outputs::render(&specs, &dirs, &[]).unwrap_or_else(|e| panic!("{}: {e}", source.name));
        }
        for spec in &row.accepted {
            let valid = instances(&spec.input_schema);
            if !valid.is_empty() {
                row.with_instances += 1;
            }
            row.instances += valid.len();
            entries.push((module.clone(), spec.name.clone(), valid));
        }
        rows.insert(module, row);
    }

    let accepted: usize = rows.values().map(|r| r.accepted.len()).sum();
    let mut build_failure = None;
    if accepted > 0 {
        std::fs::create_dir_all(&crate_dir).expect("the crate directory");
        write_check_crate(&crate_dir, &rows);
        let instances_file = crate_dir.join("instances.json");
        std::fs::write(
            &instances_file,
            serde_json::to_string(&entries).expect("instances"),
        )
        .expect("instances.json");
        let target = work.join("target");
        let built = cargo(&crate_dir, &target)
            .args(["build", "--quiet"])
            .output()
            .expect("cargo build");
        if built.status.success() {
            let ran = Command::new(target.join("debug").join("corpus-check"))
                .arg(&instances_file)
                .output()
                .expect("the check binary");
            assert!(
                ran.status.success(),
                "{}",
                String::from_utf8_lossy(&ran.stderr)
            );
            for line in String::from_utf8_lossy(&ran.stdout).lines() {
                let mut words = line.splitn(5, ' ');
                let (verdict, module, tool, index) = (
                    words.next().unwrap_or(""),
                    words.next().unwrap_or(""),
                    words.next().unwrap_or(""),
                    words.next().unwrap_or(""),
                );
                if verdict != "ok" {
                    let instance = entries
                        .iter()
                        .find(|(m, t, _)| m == module && t == tool)
                        .and_then(|(_, _, list)| list.get(index.parse::<usize>().ok()?));
                    let failure = format!(
                        "{tool}: {} {verdict}: {}",
                        instance.map_or_else(String::new, Value::to_string),
                        words.next().unwrap_or("")
                    );
                    if let Some(row) = rows.get_mut(module) {
                        row.instance_failures.push(failure);
                    }
                }
            }
        } else {
            let stderr = String::from_utf8_lossy(&built.stderr);
            let lines: Vec<&str> = stderr.lines().collect();
            build_failure = Some(lines[lines.len().saturating_sub(60)..].join("\n"));
        }
    }

    // The table.
    let mut table = String::from(
        "\n| source | tools | accepted | refused | compiled | instances (tools with one) | refused instances |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let (mut json_tools, mut json_accepted, mut bfcl_tools, mut bfcl_accepted) = (0, 0, 0, 0);
    let (mut covered, mut instance_failures) = (0, 0);
    for (module, row) in &rows {
        let name = &names[module];
        let n = row.accepted.len();
        if name == BFCL {
            (bfcl_tools, bfcl_accepted) = (bfcl_tools + row.tools, bfcl_accepted + n);
        } else {
            (json_tools, json_accepted) = (json_tools + row.tools, json_accepted + n);
        }
        covered += row.with_instances;
        instance_failures += row.instance_failures.len();
        let compiled = match (n, &build_failure) {
            (0, _) => "-",
            (_, None) => "yes",
            (_, Some(_)) => "no",
        };
        writeln!(
            table,
            "| {name} | {} | {n} ({:.1}%) | {} | {compiled} | {} ({}) | {} |",
            row.tools,
            percent(n, row.tools),
            row.refused.len(),
            row.instances,
            row.with_instances,
            row.instance_failures.len()
        )
        .expect("write");
    }
    for (module, row) in &rows {
        for (tool, reason) in &row.refused {
            writeln!(table, "refused: {}/{tool}: {reason}", names[module]).expect("write");
        }
        for failure in &row.instance_failures {
            writeln!(table, "instance refused: {}/{failure}", names[module]).expect("write");
        }
    }
    println!("{table}");

    assert!(
        build_failure.is_none(),
        "the generated code of the accepted tools does not compile:\n{}",
        build_failure.unwrap_or_default()
    );
    assert!(
        percent(json_accepted, json_tools) >= JSON_SCHEMA_TARGET * 100.0,
        "{json_accepted} of {json_tools} JSON Schema tools accepted ({:.1}%), the target is {}%",
        percent(json_accepted, json_tools),
        JSON_SCHEMA_TARGET * 100.0
    );
    assert!(
        percent(bfcl_accepted, bfcl_tools) >= BFCL_TARGET * 100.0,
        "{bfcl_accepted} of {bfcl_tools} BFCL tools accepted ({:.1}%), the target is {}%",
        percent(bfcl_accepted, bfcl_tools),
        BFCL_TARGET * 100.0
    );
    assert_eq!(
        instance_failures, 0,
        "valid instances the generated inputs refuse (listed above)"
    );
    assert!(
        percent(covered, accepted) >= INSTANCE_COVERAGE * 100.0,
        "a valid instance was derived for only {covered} of {accepted} accepted tools"
    );
}

#[test]
fn a_missing_corpus_fails_in_ci_and_is_skipped_elsewhere() {
    support::assert_missing_fixture_fails_only_in_ci(
        "REAL_TOOLS_CORPUS",
        "every_corpus_tool_is_imported_with_its_schema_kept",
    );
}

// ---------------------------------------------------------------------------------------------
// Provider exports: what each provider is offered, and that it accepts what the schema accepts.

/// The rules of OpenAI that hold for a function without strict mode: only these may leave a
/// tool out of the OpenAI catalogs.
fn refuses_every_function(rule: &str) -> bool {
    rule.starts_with("openai.") && !openai::STRICT_RULES.contains(&rule)
}

/// The input schema of an exported definition, as JSON Schema 2020-12. `None` for a Gemini
/// function without `parameters` (it takes no arguments).
fn exported_schema(dialect: Dialect, definition: &Value) -> Option<Value> {
    match dialect {
        Dialect::Mcp => Some(definition["inputSchema"].clone()),
        Dialect::OpenAi => Some(definition["function"]["parameters"].clone()),
        Dialect::OpenAiResponses => Some(definition["parameters"].clone()),
        Dialect::Anthropic => Some(definition["input_schema"].clone()),
        Dialect::Gemini => definition.get("parameters").map(gemini_as_json_schema),
    }
}

/// Gemini's OpenAPI subset read as JSON Schema: type names in lower case, `nullable: true` as
/// `null` among the types (and the values of an `enum`).
fn gemini_as_json_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    let nullable = map.get("nullable") == Some(&json!(true));
    for (key, value) in map {
        let value = match key.as_str() {
            "nullable" => continue,
            "type" => {
                let name = json!(value.as_str().unwrap_or_default().to_ascii_lowercase());
                if nullable {
                    json!([name, "null"])
                } else {
                    name
                }
            }
            "enum" if nullable => {
                let mut values = value.as_array().cloned().unwrap_or_default();
                values.push(Value::Null);
                Value::Array(values)
            }
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, s)| (name.clone(), gemini_as_json_schema(s)))
                    .collect(),
            ),
            "items" => gemini_as_json_schema(value),
            "anyOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(gemini_as_json_schema)
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    if nullable && let Some(Value::Array(branches)) = out.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
    }
    Value::Object(out)
}

/// What a strict-mode model sends for `instance`: every property of every object present,
/// `null` for the ones left out (the export, `schema`, lists every property in `required`).
fn strict_form(schema: &Value, root: &Value, instance: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return instance.clone();
    };
    if depth > 32 {
        return instance.clone();
    }
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p))
    {
        return strict_form(target, root, instance, depth + 1);
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        // The branch of the instance's type (for an object, one declaring all its keys).
        let fits = |branch: &&Value| {
            let branch = match branch.get("$ref").and_then(Value::as_str) {
                Some(r) => r
                    .strip_prefix('#')
                    .and_then(|p| root.pointer(p))
                    .unwrap_or(branch),
                None => branch,
            };
            match (
                instance,
                branch.get("properties").and_then(Value::as_object),
            ) {
                (Value::Object(object), Some(properties)) => {
                    object.keys().all(|k| properties.contains_key(k))
                }
                (Value::Object(_), None) => false,
                (_, Some(_)) => false,
                (_, None) => true,
            }
        };
        return match branches.iter().find(fits) {
            Some(branch) => strict_form(branch, root, instance, depth + 1),
            None => instance.clone(),
        };
    }
    match instance {
        Value::Object(object) => {
            let mut out = object.clone();
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (name, sub) in properties {
                    let value = match object.get(name) {
                        Some(found) => strict_form(sub, root, found, depth + 1),
                        None => Value::Null,
                    };
                    out.insert(name.clone(), value);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => match map.get("items") {
            Some(item) if item.is_object() => Value::Array(
                items
                    .iter()
                    .map(|i| strict_form(item, root, i, depth + 1))
                    .collect(),
            ),
            _ => instance.clone(),
        },
        _ => instance.clone(),
    }
}

/// Every accepted tool of the corpus, exported to every provider. Holds that:
///
/// - no tool is left out of the OpenAI catalogs for a rule of strict mode alone (a tool strict
///   mode cannot express is a function with `"strict": false`);
/// - every export accepts every valid instance of the canonical schema (as tool arguments: an
///   object), except where the provider demands less and the export says so: OpenAI's strict
///   mode (every property present, `null` for the optional ones; no undeclared property) and a
///   Gemini function without `parameters` (no undeclared property);
/// - what strict mode's model sends, once its `null`s are read as absent, is the instance.
#[test]
fn every_export_accepts_what_the_canonical_schema_accepts() {
    let Some(corpus) = corpus_dir() else {
        return;
    };
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-exports");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).expect("a clean directory");
    }
    let mut specs: Vec<(String, ToolSpec)> = Vec::new();
    for source in sources(&corpus) {
        for tool in import_source(&source) {
            if let Ok(spec) = generate_one(&tool, &scratch.join(source.module())) {
                specs.push((source.name.clone(), spec));
            }
        }
    }

    let mut table = String::from(
        "\n| dialect | offered | of which not strict | left out | instances checked |\n|---|---|---|---|---|\n",
    );
    let mut problems: Vec<String> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for dialect in Dialect::ALL {
        let (mut offered, mut not_strict, mut left_out, mut checked) = (0, 0, 0, 0);
        for (source, spec) in &specs {
            let at = format!("{dialect} {source}/{}", spec.name);
            let converted = match dialect::convert(*dialect, spec) {
                Ok(converted) => converted,
                Err(violations) => {
                    left_out += 1;
                    for v in &violations {
                        reasons.push(format!("left out: {at}: {v}"));
                        if dialect.is_openai() && !refuses_every_function(v.rule) {
                            problems.push(format!("{at}: left out for a rule of strict mode: {v}"));
                        }
                    }
                    continue;
                }
            };
            offered += 1;
            not_strict += usize::from(!converted.is_strict());
            let strict = dialect.is_openai() && converted.is_strict();
            let Some(schema) = exported_schema(*dialect, &converted.definition) else {
                // Gemini without `parameters`: the tool declares no property, and takes `{}`.
                let declared = spec
                    .input_schema
                    .get("properties")
                    .and_then(Value::as_object);
                if declared.is_some_and(|p| !p.is_empty()) {
                    problems.push(format!("{at}: its properties are not offered"));
                }
                continue;
            };
            let Ok(export) = jsonschema::draft202012::new(&schema) else {
                problems.push(format!("{at}: the export does not compile: {schema}"));
                continue;
            };
            let canonical = jsonschema::validator_for(&spec.input_schema).expect("compiles");
            for instance in instances(&spec.input_schema) {
                if !instance.is_object() {
                    continue; // tool arguments are always an object
                }
                let undeclared = instance.get(UNDECLARED).is_some();
                if undeclared && strict {
                    continue; // strict mode closes every object, as documented
                }
                checked += 1;
                let sent = if strict {
                    strict_form(&schema, &schema, &instance, 0)
                } else {
                    instance.clone()
                };
                if !export.is_valid(&sent) {
                    problems.push(format!("{at}: the export refuses {sent}"));
                }
                // Read back (its `null`s for absent fields removed), it is valid again (a `null`
                // the canonical schema allows is kept: it is a value there).
                if strict
                    && !canonical.is_valid(&dialect::strip_openai_nulls(&spec.input_schema, &sent))
                {
                    problems.push(format!(
                        "{at}: strict mode's {sent} does not read back as a valid instance"
                    ));
                }
            }
        }
        writeln!(
            table,
            "| {dialect} | {offered} | {not_strict} | {left_out} | {checked} |"
        )
        .expect("write");
    }
    println!("{table}");
    for reason in &reasons {
        println!("{reason}");
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
