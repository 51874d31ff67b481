//! What the fuzz targets share: the reference tool set as a registry whose tools only record
//! that they were reached, and a generator of JSON values from fuzz bytes.
//!
//! The tools are built from the checked-in `generated/tools.json` (the reference set's names,
//! safety, mode and input schemas); their code does nothing but answer, so that a target can
//! check what the registry let through against an independent validator.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};
use toolwright_runtime::Registry;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::limits::Limits;

/// The reference tools' index, as the generator wrote it.
const TOOLS_INDEX: &str = include_str!("../../generated/tools.json");

/// One reference tool: its name and an independent validator of its schema.
pub struct Reference {
    /// The tool's name.
    pub name: &'static str,
    /// The schema, compiled by jsonschema directly (not through the registry).
    pub validator: jsonschema::Validator,
}

/// The registry of the reference tools, the tools, and every property name their schemas use.
pub struct ReferenceSet {
    /// Every reference tool, adapters that only answer `true`.
    pub registry: Registry<()>,
    /// The tools, sorted by name.
    pub tools: Vec<Reference>,
    /// Every property name and enum string of every schema: a dictionary for generated values.
    pub words: Vec<&'static str>,
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

fn answer<'a>(_: &'a (), _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async {
        Ok(ToolOutput {
            data: Value::Bool(true).into(),
            state_changed: false,
        })
    })
}

fn collect_words(value: &Value, words: &mut BTreeSet<String>) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    words.extend(properties.keys().cloned());
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            Value::String(s) if s.len() < 40 => {
                words.insert(s.clone());
            }
            _ => {}
        }
    }
}

/// The reference set, built once per process.
pub fn reference() -> &'static ReferenceSet {
    static SET: OnceLock<ReferenceSet> = OnceLock::new();
    SET.get_or_init(|| {
        let index: Vec<Value> =
            serde_json::from_str(TOOLS_INDEX).expect("the checked-in tools index is JSON");
        let mut builder = Registry::builder().limits(Limits::default());
        let mut tools = Vec::new();
        let mut words = BTreeSet::new();
        for tool in &index {
            let text = |key: &str| tool[key].as_str().expect("a string field");
            let schema = &tool["inputSchema"];
            collect_words(schema, &mut words);
            let meta: &'static ToolMeta = Box::leak(Box::new(
                ToolMeta::new(
                    leak(text("name")),
                    text("safety").parse().expect("a safety"),
                    text("mode").parse().expect("a mode"),
                    StaticSchema::Json(leak(&schema.to_string())),
                )
                .title(leak(text("title")))
                .description(leak(text("description")))
                .source("generated/tools.json"),
            ));
            builder = builder.tool(ToolDef {
                meta,
                handler: Handler::Shared(answer),
            });
            tools.push(Reference {
                name: meta.name,
                validator: jsonschema::draft202012::options()
                    .should_validate_formats(false)
                    .build(schema)
                    .expect("a reference schema compiles"),
            });
        }
        tools.sort_by_key(|t| t.name);
        ReferenceSet {
            registry: builder.build().expect("the reference tools register"),
            tools,
            words: words.iter().map(|w| leak(w)).collect(),
        }
    })
}

/// A JSON value from fuzz bytes: object keys and strings often drawn from `words`, so that
/// generated arguments get past the first checks of a schema. Nesting is bounded by
/// `max_depth`; the depth is tracked with an explicit stack of open containers.
pub fn value(u: &mut Unstructured<'_>, words: &[&'static str], max_depth: usize) -> Result<Value> {
    scalar_or_container(u, words, max_depth)
}

fn string(u: &mut Unstructured<'_>, words: &[&'static str]) -> Result<String> {
    if !words.is_empty() && u.ratio(3, 4)? {
        Ok((*u.choose(words)?).to_owned())
    } else {
        Ok(u.arbitrary::<String>()?)
    }
}

fn scalar(u: &mut Unstructured<'_>, words: &[&'static str]) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.int_in_range(-3..=100)?),
        4 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        _ => Value::String(string(u, words)?),
    })
}

enum Open {
    Array(Vec<Value>, usize),
    Object(Map<String, Value>, Vec<String>),
}

fn scalar_or_container(
    u: &mut Unstructured<'_>,
    words: &[&'static str],
    max_depth: usize,
) -> Result<Value> {
    let mut open: Vec<Open> = Vec::new();
    loop {
        // Make the next value: a scalar, or open a container (then fill it first).
        let mut made = if open.len() < max_depth && u.ratio(1, 3)? {
            if u.arbitrary()? {
                let len = u.int_in_range(0..=6)?;
                open.push(Open::Array(Vec::with_capacity(len), len));
            } else {
                let len = u.int_in_range(0..=6)?;
                let mut keys = Vec::with_capacity(len);
                for _ in 0..len {
                    keys.push(string(u, words)?);
                }
                open.push(Open::Object(Map::new(), keys));
            }
            None
        } else {
            Some(scalar(u, words)?)
        };
        // Put finished values into their containers, closing the ones that are full.
        loop {
            let Some(top) = open.last_mut() else {
                if let Some(done) = made {
                    return Ok(done);
                }
                break;
            };
            if let Some(done) = made.take() {
                match top {
                    Open::Array(items, _) => items.push(done),
                    Open::Object(map, keys) => {
                        if let Some(key) = keys.pop() {
                            map.insert(key, done);
                        }
                    }
                }
            }
            let full = match top {
                Open::Array(items, len) => items.len() >= *len,
                Open::Object(_, keys) => keys.is_empty(),
            };
            if !full {
                break;
            }
            made = match open.pop() {
                Some(Open::Array(items, _)) => Some(Value::Array(items)),
                Some(Open::Object(map, _)) => Some(Value::Object(map)),
                None => None,
            };
        }
    }
}
