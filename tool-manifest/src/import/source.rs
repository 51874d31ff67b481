//! The shapes tool definitions come in, read into one [`Found`] per tool with the place of
//! every value in the input (`tools[3].inputSchema`), for messages.

use std::fmt;
use std::str::FromStr;

use super::json::Json;

/// What the input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Each definition by its shape: `inputSchema` is MCP, `type: "function"` OpenAI, `{name,
    /// parameters}` OpenAI or BFCL (BFCL when its schema names a BFCL type).
    #[default]
    Auto,
    /// MCP `Tool` objects; schemas kept as published.
    Mcp,
    /// OpenAI function definitions; schemas kept as published.
    OpenAi,
    /// BFCL function docs (or MCP-shaped records holding BFCL schemas); schemas mapped.
    Bfcl,
}

impl Format {
    /// Every format, in the order they are documented.
    pub const ALL: &'static [Format] = &[Format::Auto, Format::Mcp, Format::OpenAi, Format::Bfcl];

    /// The spelling of `--from`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Mcp => "mcp",
            Format::OpenAi => "openai",
            Format::Bfcl => "bfcl",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that is not a [`Format`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected the format to be {}, found {:?}", accepted(), .0)]
pub struct UnknownFormat(pub String);

/// `"auto", "mcp", "openai" or "bfcl"`.
fn accepted() -> String {
    let words: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    crate::model::quoted_list(&words)
}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// A tool definition as found in the input, before it is turned into a manifest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// Where the definition is: `tools[3]`, `[0].function`, `line 4`.
    pub place: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The input schema with the key it was found under (`inputSchema`, `parameters`); `None`
    /// when an OpenAI function declares no parameters.
    pub input: Option<(&'static str, Json)>,
    /// The output schema with its key (`outputSchema`, BFCL's `response`).
    pub output: Option<(&'static str, Json)>,
    pub read_only: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// Whether the schemas are in the BFCL dialect (always with `--from bfcl`; with `auto`,
    /// when they name a BFCL type).
    pub bfcl: bool,
}

/// A definition that cannot be imported: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", shown(place))]
pub(crate) struct Refused {
    pub place: String,
    pub message: String,
}

impl Refused {
    fn new(place: impl Into<String>, message: impl Into<String>) -> Self {
        Refused {
            place: place.into(),
            message: message.into(),
        }
    }

    /// `expected <what>, found <the kind of value found>`.
    fn expected(place: impl Into<String>, what: &str, found: &Json) -> Self {
        Refused::new(place, format!("expected {what}, found {}", found.kind()))
    }
}

/// The definitions of a parsed input: each value of a JSON Lines input is a definition (`line
/// N`); one JSON value is a `tools/list` result, a JSON-RPC response, an array of definitions or
/// one definition.
///
/// # Errors
/// When the input is none of these shapes (a message for the whole input).
pub(crate) fn definitions(values: Vec<(usize, Json)>) -> Result<Vec<(String, Json)>, String> {
    let mut definitions = Vec::new();
    if values.len() > 1 {
        for (line, value) in values {
            expand(format!("line {line}"), value, &mut definitions);
        }
        return Ok(definitions);
    }
    let Some((_, value)) = values.into_iter().next() else {
        return Err("the input holds no JSON value".to_owned());
    };
    match value {
        Json::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                expand(format!("[{i}]"), item, &mut definitions);
            }
        }
        Json::Object(_) => {
            if let Some(error) = value.field("error")
                && value.get("jsonrpc").is_some()
            {
                let message = error
                    .get("message")
                    .and_then(Json::as_str)
                    .unwrap_or("no message");
                return Err(format!(
                    "the input is a JSON-RPC error response ({message:?}), not a list of tools"
                ));
            }
            let (prefix, list) = if let Some(list) = value.field("tools") {
                ("tools", list)
            } else if let Some(list) = value.field("result").and_then(|r| r.field("tools")) {
                ("result.tools", list)
            } else if let Some(list) = value.field("functions") {
                ("functions", list)
            } else if value.get("name").is_some() || value.get("function").is_some() {
                expand(String::new(), value, &mut definitions);
                return Ok(definitions);
            } else {
                return Err(
                    "expected a `tools/list` result (`{\"tools\": [...]}`), a JSON-RPC response, \
                     an array of tool definitions or JSON Lines of them; found an object without \
                     `tools`, `result.tools` or `name`"
                        .to_owned(),
                );
            };
            let Json::Array(items) = list else {
                return Err(format!(
                    "{prefix}: expected an array, found {}",
                    list.kind()
                ));
            };
            for (i, item) in items.iter().enumerate() {
                expand(format!("{prefix}[{i}]"), item.clone(), &mut definitions);
            }
        }
        other => {
            return Err(format!(
                "expected a `tools/list` result, a JSON-RPC response, an array of tool \
                 definitions or JSON Lines of them; found {}",
                other.kind()
            ));
        }
    }
    Ok(definitions)
}

/// A BFCL test entry (`{"id", "question", "function": [...]}`) stands for its functions; any
/// other value is one definition.
fn expand(place: String, value: Json, out: &mut Vec<(String, Json)>) {
    if let Some(Json::Array(functions)) = value.get("function") {
        for (i, function) in functions.iter().enumerate() {
            out.push((join(&place, &format!("function[{i}]")), function.clone()));
        }
    } else {
        out.push((place, value));
    }
}

/// `tools[3]` + `inputSchema` → `tools[3].inputSchema`; the root place is empty.
pub(crate) fn join(place: &str, key: &str) -> String {
    if place.is_empty() {
        key.to_owned()
    } else if key.starts_with('[') {
        format!("{place}{key}")
    } else {
        format!("{place}.{key}")
    }
}

/// The place as written in messages (the root is `the input`).
pub(crate) fn shown(place: &str) -> &str {
    if place.is_empty() { "the input" } else { place }
}

/// Which shape a definition has.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// An MCP `Tool`: `name`, `inputSchema`, …
    Mcp,
    /// Chat Completions: `{"type": "function", "function": {...}}`.
    Chat,
    /// The Responses API (`{"type": "function", "name", "parameters"}`) or a bare
    /// `{name, description, parameters}` (OpenAI or BFCL).
    Flat,
}

/// Reads one definition.
///
/// # Errors
/// When it does not have the shape `format` reads, or a value has the wrong type; the place
/// names the offending value.
pub(crate) fn read(place: &str, value: &Json, format: Format) -> Result<Found, Refused> {
    let Json::Object(_) = value else {
        return Err(Refused::expected(
            shown(place),
            "a tool definition (an object)",
            value,
        ));
    };
    let shape = shape(place, value, format)?;
    let (place, record) = match shape {
        Shape::Chat => {
            let place = join(place, "function");
            match value.get("function") {
                Some(function @ Json::Object(_)) => (place, function),
                Some(other) => {
                    return Err(Refused::expected(place, "an object", other));
                }
                None => return Err(Refused::new(place, "missing")),
            }
        }
        Shape::Mcp | Shape::Flat => (place.to_owned(), value),
    };
    let name = match record.get("name") {
        Some(Json::String(name)) if !name.trim().is_empty() => name.clone(),
        Some(Json::String(_)) => {
            return Err(Refused::new(join(&place, "name"), "empty"));
        }
        Some(other) => {
            return Err(Refused::expected(join(&place, "name"), "a string", other));
        }
        None => return Err(Refused::new(join(&place, "name"), "missing")),
    };
    let annotations = match record.field("annotations") {
        None => None,
        Some(a @ Json::Object(_)) => Some(a),
        Some(other) => {
            return Err(Refused::expected(
                join(&place, "annotations"),
                "an object",
                other,
            ));
        }
    };
    let annotation_place = join(&place, "annotations");
    let hint = |key: &str| -> Result<Option<bool>, Refused> {
        match annotations.and_then(|a| a.field(key)) {
            None => Ok(None),
            Some(Json::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(Refused::expected(
                join(&annotation_place, key),
                "a boolean",
                other,
            )),
        }
    };
    let title = match text(record, &place, "title")? {
        Some(title) => Some(title),
        None => match annotations {
            Some(a) => text(a, &annotation_place, "title")?,
            None => None,
        },
    };
    let description = text(record, &place, "description")?;
    let input_key = match shape {
        Shape::Mcp => "inputSchema",
        Shape::Chat | Shape::Flat => "parameters",
    };
    let input = schema(record, &place, input_key)?;
    if input.is_none() && matches!(shape, Shape::Mcp) {
        return Err(Refused::new(join(&place, input_key), "missing"));
    }
    let mcp_output = match shape {
        Shape::Mcp => schema(record, &place, "outputSchema")?,
        Shape::Chat | Shape::Flat => None,
    };
    let bfcl = match format {
        Format::Bfcl => true,
        Format::Auto => [&input, &mcp_output]
            .into_iter()
            .flatten()
            .any(super::bfcl::uses_bfcl_types),
        Format::Mcp | Format::OpenAi => false,
    };
    // OpenAI functions have no output schema; BFCL's `response` describes the result.
    let output = match shape {
        Shape::Mcp => mcp_output.map(|schema| ("outputSchema", schema)),
        Shape::Flat if bfcl => {
            schema(record, &place, "response")?.map(|schema| ("response", schema))
        }
        Shape::Chat | Shape::Flat => None,
    };
    Ok(Found {
        name,
        title,
        description,
        input: input.map(|schema| (input_key, schema)),
        output,
        read_only: hint("readOnlyHint")?,
        idempotent: hint("idempotentHint")?,
        open_world: hint("openWorldHint")?,
        bfcl,
        place,
    })
}

/// The shape of a definition, as `format` reads it.
fn shape(place: &str, value: &Json, format: Format) -> Result<Shape, Refused> {
    let has = |key: &str| value.get(key).is_some();
    let kind = value.get("type");
    if let Some(kind) = kind
        && kind.as_str() != Some("function")
        && !has("inputSchema")
    {
        return Err(Refused::new(
            join(place, "type"),
            format!(
                "only function tools can be imported, found {}",
                match kind {
                    Json::String(word) => format!("{word:?}"),
                    other => other.kind().to_owned(),
                }
            ),
        ));
    }
    let function_object = matches!(value.get("function"), Some(Json::Object(_)));
    let shape = if has("inputSchema") {
        Shape::Mcp
    } else if function_object {
        Shape::Chat
    } else {
        Shape::Flat
    };
    match (format, &shape) {
        (Format::Auto, _)
        | (Format::Mcp, Shape::Mcp)
        | (Format::OpenAi, Shape::Chat | Shape::Flat)
        | (Format::Bfcl, Shape::Mcp | Shape::Flat) => Ok(shape),
        (Format::Mcp, _) => Err(Refused::new(
            join(place, "inputSchema"),
            "missing: an MCP tool has `name` and `inputSchema`",
        )),
        (Format::OpenAi, Shape::Mcp) => Err(Refused::new(
            shown(place),
            "an MCP tool (it has `inputSchema`), not an OpenAI function definition: import it \
             with `--from mcp` or `--from auto`",
        )),
        (Format::Bfcl, Shape::Chat) => Err(Refused::new(
            shown(place),
            "an OpenAI Chat Completions tool, not a BFCL function doc: import it with \
             `--from openai` or `--from auto`",
        )),
    }
}

/// An optional string field (`null` counts as absent, and so does an empty string).
fn text(record: &Json, place: &str, key: &str) -> Result<Option<String>, Refused> {
    match record.field(key) {
        None => Ok(None),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Refused::expected(join(place, key), "a string", other)),
    }
}

/// An optional schema field (`null` counts as absent); a schema is an object.
fn schema(record: &Json, place: &str, key: &str) -> Result<Option<Json>, Refused> {
    match record.field(key) {
        None => Ok(None),
        Some(schema @ Json::Object(_)) => Ok(Some(schema.clone())),
        Some(other) => Err(Refused::expected(join(place, key), "an object", other)),
    }
}
