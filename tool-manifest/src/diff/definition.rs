//! One tool's definition as the diff reads it, from a manifest, a lock file or an MCP `Tool`
//! object of any server, and a whole set of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::model::{Deprecation, ErrorSpec, Mode, Safety, ToolSpec};
use crate::schema::{self, Draft};

/// What a tool may do, as a client that grants permissions reads it: MCP's hints after their
/// defaults (`readOnlyHint` false, `destructiveHint` true; `destructiveHint` means nothing when
/// read-only). A manifest's `destructive` is [`Level::Destructive`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Changes nothing: clients auto-approve it.
    ReadOnly,
    /// Writes, but declares it destroys nothing (`destructiveHint: false`).
    Writes,
    /// May destroy.
    Destructive,
}

impl Level {
    /// The level in words (a manifest's two levels in [`Safety`]'s own).
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::ReadOnly => Safety::ReadOnly.as_str(),
            Level::Writes => "writes, non-destructive",
            Level::Destructive => Safety::Destructive.as_str(),
        }
    }
}

/// Where a definition comes from: what it can declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A manifest (or a lock file written from manifests): mode, errors, limits, lifecycle and
    /// deferral are declared.
    Manifest,
    /// An MCP `Tool` object: only what MCP carries.
    Mcp,
}

/// One tool's definition, in the terms the diff compares.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Definition {
    /// The tool's name.
    pub name: String,
    /// What kind of source declared it.
    pub origin: Origin,
    /// The title, where there is one.
    pub title: Option<String>,
    /// Where the title is written in an MCP `Tool` (`/title` or `/annotations/title`).
    pub(crate) title_pointer: &'static str,
    /// The description.
    pub description: Option<String>,
    /// What the tool may do.
    pub level: Level,
    /// Whether a repeated call changes nothing more (MCP's default: false).
    pub idempotent: bool,
    /// Whether the tool reaches outside the application (MCP's default: true).
    pub open_world: bool,
    /// How the tool is scheduled, where declared.
    pub mode: Option<Mode>,
    /// The docs' grouping.
    pub category: Option<String>,
    /// The input schema, in draft 2020-12.
    pub input: Value,
    /// The output schema, in draft 2020-12, when declared.
    pub output: Option<Value>,
    /// The declared errors (manifests only).
    pub errors: Vec<ErrorSpec>,
    /// The time limit of a call, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The output budget, in bytes.
    pub max_output_bytes: Option<u64>,
    /// The declared `version`.
    pub version: Option<String>,
    /// The declared deprecation.
    pub deprecated: Option<Deprecation>,
    /// Declared deferred (`defer_loading = true`): loaded when a tool search finds it.
    pub defer_loading: bool,
    /// The other fields of an MCP `Tool` (`icons`, `_meta`, `execution`, …), by key.
    pub other: BTreeMap<String, Value>,
    /// The digest of the canonical definition and of each provider export, when known (from a
    /// lock file, or computed for manifests compared with one).
    pub(crate) digests: Option<Digests>,
    /// The file that declares it, for locations.
    pub source: Option<PathBuf>,
}

/// The digests a lock file records for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digests {
    pub(crate) definition: String,
    pub(crate) exports: BTreeMap<Dialect, String>,
}

/// The keys of an MCP `Tool` the diff reads itself; the others are compared as they are.
const MCP_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

impl Definition {
    /// The definition a manifest (or a code-first tool) declares.
    pub fn from_spec(spec: &ToolSpec) -> Definition {
        Definition {
            name: spec.name.clone(),
            origin: Origin::Manifest,
            title: Some(spec.title.clone()),
            title_pointer: "/title",
            description: Some(spec.description.clone()),
            level: match spec.safety {
                Safety::ReadOnly => Level::ReadOnly,
                Safety::Destructive => Level::Destructive,
            },
            idempotent: spec.idempotent.unwrap_or(false),
            open_world: spec.open_world.unwrap_or(true),
            mode: Some(spec.mode),
            category: spec.category.clone(),
            input: in_2020_12(&spec.input_schema),
            output: spec.output_schema.as_ref().map(in_2020_12),
            errors: spec.errors.clone(),
            timeout_ms: spec.timeout_ms,
            max_output_bytes: spec.max_output_bytes,
            version: spec.version.clone(),
            deprecated: spec.deprecated.clone(),
            defer_loading: spec.defer_loading,
            other: BTreeMap::new(),
            digests: None,
            source: (!spec.source.is_empty()).then(|| PathBuf::from(&spec.source)),
        }
    }

    /// The definition an MCP `Tool` object holds (from any server's `tools/list`).
    ///
    /// # Errors
    /// When the object has no string `name`, or a field of the wrong type.
    pub fn from_mcp(tool: &Value) -> Result<Definition, String> {
        let Value::Object(fields) = tool else {
            return Err(format!(
                "expected a tool object, found {}",
                crate::model::json_kind(tool)
            ));
        };
        let name = match fields.get("name") {
            Some(Value::String(name)) => name.clone(),
            Some(other) => {
                return Err(format!(
                    "`name`: expected a string, found {}",
                    crate::model::json_kind(other)
                ));
            }
            None => return Err("the tool has no `name`".to_owned()),
        };
        let text = |key: &str, at: &Map<String, Value>| -> Result<Option<String>, String> {
            match at.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "`{name}`: `{key}`: expected a string, found {}",
                    crate::model::json_kind(other)
                )),
            }
        };
        let empty = Map::new();
        let annotations = match fields.get("annotations") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(a)) => a,
            Some(other) => {
                return Err(format!(
                    "`{name}`: `annotations`: expected an object, found {}",
                    crate::model::json_kind(other)
                ));
            }
        };
        let hint = |key: &str, default: bool| -> Result<bool, String> {
            match annotations.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(format!(
                    "`{name}`: `annotations.{key}`: expected a boolean, found {}",
                    crate::model::json_kind(other)
                )),
            }
        };
        let level = if hint("readOnlyHint", false)? {
            Level::ReadOnly
        } else if hint("destructiveHint", true)? {
            Level::Destructive
        } else {
            Level::Writes
        };
        let (title, title_pointer) = match text("title", fields)? {
            Some(title) => (Some(title), "/title"),
            None => (text("title", annotations)?, "/annotations/title"),
        };
        let schema = |key: &str| -> Result<Option<Value>, String> {
            match fields.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value @ (Value::Object(_) | Value::Bool(_))) => Ok(Some(in_2020_12(value))),
                Some(other) => Err(format!(
                    "`{name}`: `{key}`: expected a schema object, found {}",
                    crate::model::json_kind(other)
                )),
            }
        };
        Ok(Definition {
            origin: Origin::Mcp,
            title,
            title_pointer,
            description: text("description", fields)?,
            level,
            idempotent: hint("idempotentHint", false)?,
            open_world: hint("openWorldHint", true)?,
            mode: None,
            category: None,
            input: schema("inputSchema")?.unwrap_or_else(|| serde_json::json!({})),
            output: schema("outputSchema")?,
            errors: Vec::new(),
            timeout_ms: None,
            max_output_bytes: None,
            version: None,
            deprecated: None,
            defer_loading: false,
            other: fields
                .iter()
                .filter(|(key, _)| !MCP_KEYS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
            digests: None,
            source: None,
            name,
        })
    }
}

/// A schema in draft 2020-12, whatever draft its `$schema` names, without `$schema`.
fn in_2020_12(schema: &Value) -> Value {
    match Draft::of(schema) {
        Ok(Draft::Draft202012) | Err(_) => {
            let mut schema = schema.clone();
            if let Value::Object(map) = &mut schema {
                map.remove("$schema");
            }
            schema
        }
        Ok(_) => schema::draft::to_2020_12(schema),
    }
}

/// A whole tool set, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSet {
    /// The definitions, by name.
    pub tools: BTreeMap<String, Definition>,
}

impl ToolSet {
    /// The tools of a set of specs (manifests, or code-first tools' metadata).
    pub fn from_specs(specs: &[ToolSpec]) -> ToolSet {
        ToolSet {
            tools: specs
                .iter()
                .map(|spec| (spec.name.clone(), Definition::from_spec(spec)))
                .collect(),
        }
    }

    /// The tools of MCP `Tool` objects; a name seen twice is a mistake.
    ///
    /// # Errors
    /// The first object that is not a tool, and where it is (`tools[3]`).
    pub fn from_mcp(tools: &[(String, Value)]) -> Result<ToolSet, String> {
        let mut set = ToolSet::default();
        for (place, tool) in tools {
            let definition = Definition::from_mcp(tool).map_err(|e| format!("{place}: {e}"))?;
            if set.tools.contains_key(&definition.name) {
                return Err(format!(
                    "{place}: a second tool named `{}`",
                    definition.name
                ));
            }
            set.tools.insert(definition.name.clone(), definition);
        }
        Ok(set)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when the set has no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Where the tools are declared, relative to the file a path of the set resolves against.
    pub(crate) fn sources_in(mut self, dir: &Path, shown: &Path) -> ToolSet {
        for definition in self.tools.values_mut() {
            if let Some(source) = &definition.source
                && let Ok(rest) = source.strip_prefix(dir)
            {
                definition.source = Some(shown.join(rest));
            }
        }
        self
    }
}
