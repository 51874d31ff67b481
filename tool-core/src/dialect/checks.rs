//! The checks several providers make of a definition: names, the root of a schema, local
//! references, and validity as JSON Schema 2020-12, decided by `jsonschema` once per schema
//! ([`Verdict`]).

use serde_json::{Map, Value};

use super::report::Report;
use crate::schema::walk::{self, unresolved_references};
use crate::schema::{Draft, join};
use crate::text::backticked;

/// Calls `f` on `node` and every subschema below it, read as draft 2020-12 (every export is in
/// it).
pub(crate) fn walk<'a>(node: &'a Value, ptr: &str, f: &mut dyn FnMut(&'a Value, &str)) {
    walk::walk(node, ptr, Draft::Draft202012, f);
}

/// Does a `$schema` URI name draft 2020-12?
pub(crate) fn is_2020_12(uri: &str) -> bool {
    Draft::from_uri(uri) == Some(Draft::Draft202012)
}

/// Compact JSON text of a value (strings quoted).
pub(crate) fn compact(value: &Value) -> String {
    value.to_string()
}

/// What follows `key` in `map`, for messages: `` `a`, `b` ``.
pub(crate) fn siblings(map: &Map<String, Value>, key: &str) -> String {
    backticked(map.keys().filter(|k| *k != key))
}

/// Checks every `$ref` and `$dynamicRef` below `schema`: local and resolvable. Returns whether
/// they all are.
pub(crate) fn check_local_refs(
    schema: &Value,
    base: &str,
    rule: &'static str,
    report: &mut Report,
) -> bool {
    let issues = unresolved_references(schema);
    for issue in &issues {
        report.push(
            &format!("{base}{}", issue.pointer),
            rule,
            issue.message.clone(),
        );
    }
    issues.is_empty()
}

/// Checks a definition's `name`: `^[A-Za-z0-9_-]{1,max}$` plus the `extra` characters; `message`
/// says what is wrong with a name that does not fit.
pub(crate) fn check_name(
    definition: &Value,
    max: usize,
    extra: &[char],
    rule: &'static str,
    message: impl Fn(&str) -> String,
    report: &mut Report,
) {
    let name = definition
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let fits = !name.is_empty()
        && name.chars().count() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c));
    if !fits {
        report.push("/name", rule, message(name));
    }
}

/// Checks the root of an input schema: `type: "object"`.
pub(crate) fn check_object_root(
    schema: Option<&Value>,
    ptr: &str,
    rule: &'static str,
    object: &str,
    report: &mut Report,
) {
    match schema {
        None => report.push(ptr, rule, "the schema is missing"),
        Some(Value::Object(map)) => {
            if map.get("type").and_then(Value::as_str) != Some(object) {
                report.push(
                    &join(ptr, "type"),
                    rule,
                    format!("the root schema must have `type` {object:?}"),
                );
            }
        }
        Some(_) => report.push(ptr, rule, "the schema is not a JSON object"),
    }
}

/// What `jsonschema` says of one schema as draft 2020-12: the meta-schema's errors, or else
/// (when every reference is local and resolves: a remote one is the subject of its own rule)
/// why it does not compile (patterns, references). Each issue is a JSON Pointer below the
/// schema and a message.
///
/// Meta-validating and compiling are most of the cost of an export, so a tool's canonical
/// schema is judged once and every dialect reads the verdict: OpenAI and Gemini check the
/// canonical schema itself, MCP and Anthropic the schema they export, which is the canonical
/// one unless they changed it (then it is judged again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    issues: Vec<(String, String)>,
}

impl Verdict {
    /// Judges `schema`.
    pub(crate) fn of(schema: &Value) -> Verdict {
        Verdict::judge(schema, unresolved_references(schema).is_empty())
    }

    /// Judges `schema`, compiling it only when `compile` is set (its references resolve).
    fn judge(schema: &Value, compile: bool) -> Verdict {
        let meta = jsonschema::draft202012::meta::validator();
        let mut issues: Vec<(String, String)> = meta
            .iter_errors(schema)
            .map(|error| {
                let at = error.instance_path().as_str().to_owned();
                (at, format!("not valid JSON Schema 2020-12: {error}"))
            })
            .collect();
        if issues.is_empty()
            && compile
            && let Err(error) = jsonschema::draft202012::new(schema)
        {
            let at = error.instance_path().as_str().to_owned();
            issues.push((at, format!("the schema does not compile: {error}")));
        }
        Verdict { issues }
    }

    /// Is the schema valid and does it compile?
    pub(crate) fn is_clean(&self) -> bool {
        self.issues.is_empty()
    }

    /// Reports each issue under `rule`, at `base` and its pointer.
    pub(crate) fn report(&self, base: &str, rule: &'static str, report: &mut Report) {
        for (at, message) in &self.issues {
            report.push(&format!("{base}{at}"), rule, message.clone());
        }
    }
}

/// Checks an exported `schema` at `base`: its references (under `refs`), then its validity
/// (under `valid`, compiled when its references resolve). `canonical` is the tool's canonical
/// schema and its verdict: when the export is that very schema and it is clean, nothing is
/// judged again.
pub(crate) fn check_export(
    schema: &Value,
    base: &str,
    (refs, valid): (&'static str, &'static str),
    canonical: Option<(&Value, &Verdict)>,
    report: &mut Report,
) {
    let resolve = check_local_refs(schema, base, refs, report);
    match canonical {
        Some((same, verdict)) if verdict.is_clean() && same == schema => {}
        _ => Verdict::judge(schema, resolve).report(base, valid, report),
    }
}
