//! `tools.lock`: one digest per tool over its canonical definition and over each provider's
//! export of it, written by `generate` and checked by `check`, so that a definition cannot
//! change without the lock changing in the same commit.
//!
//! The canonical definition is the tool's entry of `tools.json` (safety, mode, schemas, errors,
//! limits, lifecycle) without its examples; it is written in the lock too, so that
//! `tool-manifest diff` can compare a lock with the manifests of another version. A digest is
//! SHA-256 over the compact JSON text with every object's keys sorted: key order and the layout
//! of the manifests never change it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::dialect::{self, Catalog, Dialect};
use crate::model::ToolSpec;

/// The name of the lock file.
pub const LOCK_FILE: &str = "tools.lock";

/// The format of the lock file this version writes and reads.
const LOCK_FORMAT: u64 = 1;

/// A lock: every tool's digests and canonical definition, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Lock {
    /// What wrote it.
    #[serde(rename = "@generated")]
    generated: String,
    /// The format, `1`.
    format: u64,
    /// The tools, by name.
    pub tools: BTreeMap<String, Locked>,
}

/// One tool of a lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Locked {
    /// `sha256:<hex>` of the canonical definition.
    pub digest: String,
    /// `sha256:<hex>` of each provider's export of the tool (a provider that cannot express the
    /// tool has none).
    pub exports: BTreeMap<String, String>,
    /// The canonical definition.
    pub definition: Value,
}

/// The canonical definition of a tool: its `tools.json` entry without `examples` and
/// `inputExamples` (they are shown, not promised), keys sorted.
pub fn canonical(spec: &ToolSpec) -> Value {
    let mut value = serde_json::to_value(spec).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("examples");
        map.remove("inputExamples");
    }
    crate::schema::canonical_json(&value)
}

/// `sha256:<hex>` of a JSON value's canonical text (compact, keys sorted).
pub fn digest(value: &Value) -> String {
    let text = crate::schema::canonical_text(value);
    let hash = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

impl Lock {
    /// The lock of `specs`, with the catalogs of every dialect in [`Dialect::ALL`]'s order
    /// (what [`dialect::catalogs`] returns for it).
    pub fn of(specs: &[&ToolSpec], catalogs: &[Catalog]) -> Lock {
        let mut exports: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
        for (dialect, catalog) in Dialect::ALL.iter().zip(catalogs) {
            for definition in catalog.definitions.as_array().into_iter().flatten() {
                if let Some(name) = dialect::exported_name(*dialect, definition) {
                    exports
                        .entry(name)
                        .or_default()
                        .insert(dialect.as_str().to_owned(), digest(definition));
                }
            }
        }
        let tools = specs
            .iter()
            .map(|spec| {
                let definition = canonical(spec);
                let locked = Locked {
                    digest: digest(&definition),
                    exports: exports.remove(spec.name.as_str()).unwrap_or_default(),
                    definition,
                };
                (spec.name.clone(), locked)
            })
            .collect();
        Lock {
            generated: "by `tool-manifest generate`; do not edit".to_owned(),
            format: LOCK_FORMAT,
            tools,
        }
    }

    /// The lock of `specs`, every export computed.
    pub fn compute(specs: &[ToolSpec]) -> Lock {
        let sorted: Vec<&ToolSpec> = specs.iter().collect();
        Lock::of(&sorted, &dialect::catalogs(Dialect::ALL, specs))
    }

    /// The file's text.
    pub fn text(&self) -> String {
        match serde_json::to_value(self) {
            Ok(value) => dialect::pretty_line(&value),
            Err(_) => String::new(),
        }
    }

    /// Reads a lock file's text.
    ///
    /// # Errors
    /// Text that is not a lock of this format, saying where and why.
    pub fn parse(text: &str) -> Result<Lock, String> {
        let lock: Lock = serde_json::from_str(text).map_err(|e| format!("not a lock file: {e}"))?;
        if lock.format != LOCK_FORMAT {
            return Err(format!(
                "lock format {} is not the one this version reads ({LOCK_FORMAT}): regenerate it with `tool-manifest generate`",
                lock.format
            ));
        }
        Ok(lock)
    }

    /// The tools whose entries differ between `self` and `other`, added and removed ones
    /// included, sorted.
    pub fn changed(&self, other: &Lock) -> Vec<String> {
        let mut names: Vec<String> = self
            .tools
            .keys()
            .chain(other.tools.keys())
            .filter(|name| self.tools.get(*name) != other.tools.get(*name))
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The specs the lock's definitions stand for (without examples).
    ///
    /// # Errors
    /// A definition that is not a tool's, named.
    pub fn specs(&self) -> Result<Vec<ToolSpec>, String> {
        self.tools
            .iter()
            .map(|(name, locked)| {
                let mut definition = locked.definition.clone();
                if let Value::Object(map) = &mut definition {
                    map.entry("examples").or_insert(Value::Array(Vec::new()));
                }
                serde_json::from_value(definition)
                    .map_err(|e| format!("the definition of `{name}` cannot be read: {e}"))
            })
            .collect()
    }

    /// The digests of one tool, with the dialects read back.
    pub(crate) fn digests(&self, name: &str) -> Option<(String, BTreeMap<Dialect, String>)> {
        let locked = self.tools.get(name)?;
        let exports = locked
            .exports
            .iter()
            .filter_map(|(d, digest)| Some((Dialect::from_word(d)?, digest.clone())))
            .collect();
        Some((locked.digest.clone(), exports))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mode, Safety};
    use serde_json::json;

    fn spec() -> ToolSpec {
        let mut spec = ToolSpec::new(
            "panes_list",
            Safety::ReadOnly,
            Mode::Parallel,
            json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}),
        );
        spec.description = "Lists panes.".into();
        spec
    }

    #[test]
    fn key_order_does_not_change_a_digest() {
        let a: Value =
            serde_json::from_str(r#"{"b": 1, "a": {"y": 2, "x": 3}}"#).expect("test setup");
        let b: Value =
            serde_json::from_str(r#"{"a": {"x": 3, "y": 2}, "b": 1}"#).expect("test setup");
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&json!({"a": {"x": 3, "y": 2}, "b": 2})));
        assert_eq!(digest(&a).len(), "sha256:".len() + 64);
    }

    #[test]
    fn a_lock_reads_back_and_names_what_changed() {
        let lock = Lock::compute(&[spec()]);
        let again = Lock::parse(&lock.text()).expect("a lock");
        assert_eq!(again, lock);
        assert_eq!(
            lock.tools["panes_list"].exports.keys().collect::<Vec<_>>(),
            ["anthropic", "gemini", "mcp", "openai", "openai-responses"]
        );
        let mut changed = spec();
        changed.safety = Safety::Destructive;
        changed.mode = Mode::Sequential;
        let other = Lock::compute(&[changed]);
        assert_eq!(lock.changed(&other), ["panes_list"]);
        assert_eq!(lock.specs().expect("specs")[0].name, "panes_list");
        // Examples are shown, not promised.
        let mut shown = spec();
        shown.examples = vec![crate::model::ExampleSpec::new("all", json!({}))];
        assert_eq!(
            Lock::compute(&[shown]).tools["panes_list"].digest,
            lock.tools["panes_list"].digest
        );
    }

    #[test]
    fn a_broken_lock_says_why() {
        assert!(
            Lock::parse("{")
                .expect_err("refused")
                .starts_with("not a lock file")
        );
        let mut value = serde_json::to_value(Lock::compute(&[spec()])).expect("test setup");
        value["format"] = json!(7);
        let error = Lock::parse(&value.to_string()).expect_err("refused");
        assert!(error.contains("lock format 7"), "{error}");
    }
}
