//! Deferred tools in a request's tool list (SPEC section 12), one arrangement for the
//! generator's exports and the runtime's requests.
//!
//! A deferred tool (`defer_loading = true`, or deferred by a host's rule at run time) is left
//! out of the eager part of a request's tool list and found by a tool search. [`arrange`] lists
//! the eager tools first, byte for byte what they would be without deferral, in name order, and
//! after them, when any tool is deferred:
//!
//! | the request | after the eager tools |
//! |---|---|
//! | [`Dialect::Anthropic`] | Anthropic's BM25 tool search tool ([`ANTHROPIC_TOOL_SEARCH`]), then every deferred tool with `"defer_loading": true` |
//! | [`Dialect::OpenAiResponses`] | `{"type": "tool_search"}`, then every deferred function with `"defer_loading": true`, those of one upstream server or one category in a `namespace` ([`Group`]) |
//! | any other dialect, no dialect (the canonical form), or a host that asks for the local search | the registry's own `tool_search` tool ([`TOOL_SEARCH_META`]) in that form, then the tools its searches found, in the order found |
//!
//! OpenAI documents `tool_search` and namespaces for the Responses API only: a Chat Completions
//! request ([`Dialect::OpenAi`]) gets the registry's search, as Gemini and MCP do, which have no
//! deferral of their own ([`searches_locally`]). A list without deferred tools is the eager part
//! alone. Found tools are appended, never inserted, so the eager part (and a prompt cache over
//! it) stays the same as tools are found.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::{Converted, Dialect, Violation, convert};
use crate::model::{Mode, Safety, StaticSchema, ToolMeta, ToolSpec};

/// The name of the registry's tool search tool; no tool of a set may take it.
pub const TOOL_SEARCH: &str = "tool_search";

/// How many tools a search returns unless the call asks for another number.
pub const DEFAULT_MATCHES: usize = 5;

/// The most tools one search returns.
pub const MAX_MATCHES: usize = 10;

/// Anthropic's BM25 tool search tool, as a request's `tools` entry names it (it needs the beta
/// header `advanced-tool-use-2025-11-20` where the API still asks for it).
pub const ANTHROPIC_TOOL_SEARCH: &str =
    r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#;

/// The `tools` entry that turns on OpenAI's tool search in a Responses request.
pub const OPENAI_TOOL_SEARCH: &str = r#"{"type":"tool_search"}"#;

/// The input of `tool_search`: a query of at most 500 characters, and how many matches
/// (at most [`MAX_MATCHES`], [`DEFAULT_MATCHES`] when absent).
const SEARCH_SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":500,"description":"What you need to do, in a few words: `create an issue`, `current time in a city`."},"limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many tools to return (5 when absent)."}},"required":["query"],"additionalProperties":false}"#;

/// The registry's tool search tool: read-only, answered by the registry itself.
pub static TOOL_SEARCH_META: ToolMeta = ToolMeta::new(
    TOOL_SEARCH,
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(SEARCH_SCHEMA),
)
.title("Search tools")
.description(
    "Finds tools that are not in your tool list yet. Describe what you need to do in a few words; \
     the best matching tools' definitions are returned and you can call them from then on. \
     Search again with other words when none fits.",
)
.idempotent(true)
.source("toolwright-runtime: the registry's tool search");

/// How much of a namespace's generated description is kept, in characters.
const NAMESPACE_DESCRIPTION_LIMIT: usize = 1000;

/// [`TOOL_SEARCH_META`] as a spec, made once. Its schema is a constant a unit test parses;
/// were it ever refused, the tool stands with an empty schema rather than failing a request.
pub fn tool_search_spec() -> &'static ToolSpec {
    static SPEC: OnceLock<ToolSpec> = OnceLock::new();
    SPEC.get_or_init(|| {
        ToolSpec::from_meta(&TOOL_SEARCH_META).unwrap_or_else(|_| {
            ToolSpec::new(TOOL_SEARCH, Safety::ReadOnly, Mode::Parallel, json!({}))
        })
    })
}

/// The registry's tool search tool converted to `dialect` ([`convert`]), once per process.
pub fn tool_search_conversion(dialect: Dialect) -> &'static Result<Converted, Vec<Violation>> {
    static CONVERTED: [OnceLock<Result<Converted, Vec<Violation>>>; Dialect::ALL.len()] =
        [const { OnceLock::new() }; Dialect::ALL.len()];
    CONVERTED[dialect.index()].get_or_init(|| convert(dialect, tool_search_spec()))
}

/// The registry's tool search tool as a request in `dialect` lists it, or in the canonical form
/// (its spec as JSON) without one. Every dialect takes it (a unit test converts it to each);
/// were one ever to refuse it, the canonical form stands in.
pub fn tool_search_definition(dialect: Option<Dialect>) -> &'static Value {
    static CANONICAL: OnceLock<Value> = OnceLock::new();
    let canonical =
        || CANONICAL.get_or_init(|| serde_json::to_value(tool_search_spec()).unwrap_or_default());
    match dialect.map(tool_search_conversion) {
        Some(Ok(converted)) => &converted.definition,
        Some(Err(_)) | None => canonical(),
    }
}

impl Dialect {
    /// True when the provider has a tool search of its own that a request turns on: Anthropic
    /// (its tool search tool) and the OpenAI Responses API (`tool_search`). OpenAI documents
    /// tool search for the Responses API only, so Chat Completions is not one of them.
    pub const fn has_tool_search(self) -> bool {
        matches!(self, Dialect::Anthropic | Dialect::OpenAiResponses)
    }
}

/// True when a request's deferred tools are found by the registry's `tool_search`: the request
/// has no dialect or one without a tool search of its own ([`Dialect::has_tool_search`]), or the
/// host asks for the local search (`local_search`).
pub fn searches_locally(dialect: Option<Dialect>, local_search: bool) -> bool {
    local_search || !dialect.is_some_and(Dialect::has_tool_search)
}

/// Where a deferred function is listed in an OpenAI Responses request: the tools of one upstream
/// MCP server, or else of one category, share a `namespace` (OpenAI's recommended form: the
/// model sees the namespace's name and description until a search loads its functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group<'a> {
    /// The tools of the upstream MCP server with this id.
    Server(&'a str),
    /// The tools of this category.
    Category(&'a str),
}

impl<'a> Group<'a> {
    /// The group of a tool: its upstream server, else its category; `None` for a tool of
    /// neither.
    pub fn of(spec: &'a ToolSpec) -> Option<Group<'a>> {
        match (&spec.upstream, &spec.category) {
            (Some(upstream), _) => Some(Group::Server(&upstream.server)),
            (None, Some(category)) => Some(Group::Category(category)),
            (None, None) => None,
        }
    }

    /// The namespace's name: lower-case ASCII letters, digits, `_` and `-` (any other character
    /// becomes `_`), at most 64 characters; empty when nothing of the id or category is left
    /// (the tools are then listed on their own).
    pub fn namespace(self) -> String {
        let (Group::Server(group) | Group::Category(group)) = self;
        let name: String = group
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        if name.chars().all(|c| c == '_') {
            String::new()
        } else {
            name
        }
    }

    /// What the namespace's description says it holds.
    fn what(self) -> String {
        match self {
            Group::Server(server) => format!("the MCP server `{server}`"),
            Group::Category(category) => format!("the category `{category}`"),
        }
    }
}

/// One deferred tool of a request, as [`arrange`] reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeferredTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Where an OpenAI Responses request lists it ([`Group::of`]).
    pub group: Option<Group<'a>>,
    /// Its definition in the request's dialect (canonical without one), as it would be without
    /// deferral; `None` when the request cannot list it (the dialect cannot express the tool,
    /// which the caller reports, or the caller did not make a definition the request does not
    /// list).
    pub definition: Option<&'a Value>,
}

impl<'a> DeferredTool<'a> {
    /// The deferred tool `spec`, with its definition.
    pub fn new(spec: &'a ToolSpec, definition: Option<&'a Value>) -> Self {
        DeferredTool {
            name: &spec.name,
            group: Group::of(spec),
            definition,
        }
    }
}

/// A request's tool list in `dialect` (the canonical form without one), as the module docs say:
/// `eager` (the definitions of the tools not deferred, in name order) first and unchanged, then,
/// when `deferred` (every deferred tool, in name order) is not empty, the provider's tool search
/// and every deferred tool flagged, or, when the request searches locally
/// ([`searches_locally`] of `dialect` and `local_search`), the registry's `tool_search` and
/// the deferred tools named in `found` (what its searches found, in the order found; a name
/// that is not deferred, or found twice, is left out).
pub fn arrange(
    dialect: Option<Dialect>,
    local_search: bool,
    mut eager: Vec<Value>,
    deferred: &[DeferredTool<'_>],
    found: &[&str],
) -> Vec<Value> {
    if deferred.is_empty() {
        return eager;
    }
    if searches_locally(dialect, local_search) {
        eager.push(tool_search_definition(dialect).clone());
        if found.is_empty() {
            return eager;
        }
        let by_name: BTreeMap<&str, &DeferredTool<'_>> =
            deferred.iter().map(|tool| (tool.name, tool)).collect();
        let mut listed: Vec<&str> = Vec::with_capacity(found.len());
        for name in found {
            if listed.contains(name) {
                continue;
            }
            if let Some(definition) = by_name.get(name).and_then(|tool| tool.definition) {
                listed.push(name);
                eager.push(definition.clone());
            }
        }
        return eager;
    }
    let flagged = deferred.iter().filter_map(|tool| {
        let mut definition = tool.definition?.clone();
        if let Value::Object(fields) = &mut definition {
            fields.insert("defer_loading".to_owned(), Value::Bool(true));
        }
        Some((tool, definition))
    });
    if dialect == Some(Dialect::Anthropic) {
        eager.push(serde_json::from_str(ANTHROPIC_TOOL_SEARCH).unwrap_or_default());
        eager.extend(flagged.map(|(_, definition)| definition));
    } else {
        eager.push(serde_json::from_str(OPENAI_TOOL_SEARCH).unwrap_or_default());
        eager.extend(namespaces(flagged));
    }
    eager
}

/// The deferred functions of an OpenAI Responses request: those of one [`Group`] in a
/// `namespace`, the others on their own; the ungrouped functions first, then the namespaces in
/// name order, each described by what it holds and the names of its functions.
fn namespaces<'a>(
    flagged: impl Iterator<Item = (&'a DeferredTool<'a>, Value)>,
) -> impl Iterator<Item = Value> {
    let mut alone = Vec::new();
    let mut groups: BTreeMap<String, (Group<'a>, Vec<Value>)> = BTreeMap::new();
    for (tool, definition) in flagged {
        let group = tool
            .group
            .map(|group| (group.namespace(), group))
            .filter(|(name, _)| !name.is_empty());
        match group {
            Some((name, group)) => groups
                .entry(name)
                .or_insert_with(|| (group, Vec::new()))
                .1
                .push(definition),
            None => alone.push(definition),
        }
    }
    let grouped = groups.into_iter().map(|(name, (group, tools))| {
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        let description = crate::text::bounded(
            &format!("Tools of {}: {}.", group.what(), names.join(", ")),
            NAMESPACE_DESCRIPTION_LIMIT,
        );
        let mut namespace = Map::new();
        namespace.insert("type".to_owned(), json!("namespace"));
        namespace.insert("name".to_owned(), json!(name));
        namespace.insert("description".to_owned(), json!(description));
        namespace.insert("tools".to_owned(), Value::Array(tools));
        Value::Object(namespace)
    });
    alone.into_iter().chain(grouped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Upstream;

    fn spec(name: &str, category: Option<&str>) -> ToolSpec {
        let mut spec = ToolSpec::new(
            name,
            Safety::ReadOnly,
            Mode::Parallel,
            json!({"type": "object", "properties": {"target": {"type": "string"}}}),
        );
        spec.description = format!("The tool {name}.");
        spec.category = category.map(str::to_owned);
        spec
    }

    fn upstream(name: &str, server: &str) -> ToolSpec {
        let mut spec = spec(name, Some("ignored for a server's tool"));
        spec.upstream = Some(Upstream::new(
            server,
            crate::model::Endpoint::Command(vec!["server".to_owned()]),
            name,
            format!("sha256:{}", "0".repeat(64)),
        ));
        spec
    }

    fn definition(dialect: Option<Dialect>, spec: &ToolSpec) -> Value {
        match dialect {
            Some(dialect) => convert(dialect, spec).expect("converts").definition,
            None => serde_json::to_value(spec).expect("JSON"),
        }
    }

    /// The list of `eager` and `deferred` (each sorted by name) in `dialect`.
    fn list(
        dialect: Option<Dialect>,
        local: bool,
        eager: &[ToolSpec],
        deferred: &[ToolSpec],
        found: &[&str],
    ) -> Vec<Value> {
        let definitions: Vec<Value> = deferred.iter().map(|s| definition(dialect, s)).collect();
        let tools: Vec<DeferredTool<'_>> = deferred
            .iter()
            .zip(&definitions)
            .map(|(spec, definition)| DeferredTool::new(spec, Some(definition)))
            .collect();
        let eager = eager.iter().map(|s| definition(dialect, s)).collect();
        arrange(dialect, local, eager, &tools, found)
    }

    #[test]
    fn the_search_tool_is_a_valid_read_only_tool_in_every_dialect() {
        let spec = ToolSpec::from_meta(&TOOL_SEARCH_META).expect("its schema is JSON");
        assert_eq!(&spec, tool_search_spec());
        assert!(spec.safety.is_read_only());
        let schema = &spec.input_schema;
        assert_eq!(schema["properties"]["limit"]["maximum"], json!(MAX_MATCHES));
        assert!(
            schema["properties"]["limit"]["description"]
                .as_str()
                .is_some_and(|d| d.contains(&format!("{DEFAULT_MATCHES} when absent")))
        );
        for dialect in Dialect::ALL {
            let converted = tool_search_conversion(*dialect).as_ref().expect("converts");
            assert_eq!(
                tool_search_definition(Some(*dialect)),
                &converted.definition
            );
            assert_ne!(
                tool_search_definition(Some(*dialect)),
                tool_search_definition(None),
                "{dialect}"
            );
        }
        assert_eq!(tool_search_definition(None)["name"], TOOL_SEARCH);
        let anthropic: Value = serde_json::from_str(ANTHROPIC_TOOL_SEARCH).expect("JSON");
        assert_eq!(anthropic["name"], "tool_search_tool_bm25");
        let openai: Value = serde_json::from_str(OPENAI_TOOL_SEARCH).expect("JSON");
        assert_eq!(openai, json!({"type": "tool_search"}));
    }

    #[test]
    fn only_anthropic_and_the_responses_api_search_themselves() {
        let own: Vec<Dialect> = (Dialect::ALL.iter().copied())
            .filter(|d| d.has_tool_search())
            .collect();
        assert_eq!(own, [Dialect::OpenAiResponses, Dialect::Anthropic]);
        assert!(searches_locally(None, false));
        assert!(searches_locally(Some(Dialect::OpenAi), false));
        assert!(!searches_locally(Some(Dialect::Anthropic), false));
        assert!(searches_locally(Some(Dialect::Anthropic), true));
    }

    #[test]
    fn without_deferred_tools_the_list_is_the_eager_one() {
        let eager = [spec("a_tool", None), spec("b_tool", Some("b"))];
        for dialect in Dialect::ALL {
            for local in [false, true] {
                let listed = list(Some(*dialect), local, &eager, &[], &["a_tool"]);
                let expected: Vec<Value> = eager
                    .iter()
                    .map(|s| definition(Some(*dialect), s))
                    .collect();
                assert_eq!(listed, expected, "{dialect}");
            }
        }
    }

    #[test]
    fn anthropic_lists_its_search_tool_and_flags_every_deferred_tool() {
        let eager = [spec("a_tool", None)];
        let deferred = [spec("b_tool", None), spec("c_tool", Some("c"))];
        let listed = list(Some(Dialect::Anthropic), false, &eager, &deferred, &[]);
        assert_eq!(listed[0], definition(Some(Dialect::Anthropic), &eager[0]));
        assert_eq!(
            listed[1],
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        );
        assert_eq!(listed.len(), 4);
        for (listed, spec) in listed[2..].iter().zip(&deferred) {
            let mut expected = definition(Some(Dialect::Anthropic), spec);
            expected["defer_loading"] = json!(true);
            assert_eq!(listed, &expected);
        }
    }

    #[test]
    fn the_responses_api_gets_tool_search_and_namespaces_by_server_then_category() {
        let eager = [spec("a_tool", Some("clock"))];
        let deferred = [
            spec("alone", None),
            spec("clock_now", Some("Clock")),
            upstream("gh_issue", "github"),
            spec("gh_local", Some("github")),
            spec("odd", Some("!!")),
            upstream("zone_list", "clock"),
        ];
        let dialect = Some(Dialect::OpenAiResponses);
        let listed = list(dialect, false, &eager, &deferred, &[]);
        assert_eq!(
            listed[0],
            definition(dialect, &eager[0]),
            "eager, unchanged"
        );
        assert_eq!(listed[1], json!({"type": "tool_search"}));
        let names: Vec<&str> = listed[2..]
            .iter()
            .filter_map(|d| d["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["alone", "odd", "clock", "github"],
            "the ungrouped functions (an empty namespace name among them), then the namespaces"
        );
        for alone in &listed[2..4] {
            assert_eq!(alone["type"], "function");
            assert_eq!(alone["defer_loading"], true);
        }
        let clock = &listed[4];
        assert_eq!(clock["type"], "namespace");
        let inside: Vec<&str> = clock["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            inside,
            ["clock_now", "zone_list"],
            "by category and by server"
        );
        assert_eq!(
            clock["description"],
            "Tools of the category `Clock`: clock_now, zone_list."
        );
        let github = &listed[5];
        assert_eq!(
            github["description"],
            "Tools of the MCP server `github`: gh_issue, gh_local."
        );
        for function in github["tools"].as_array().expect("tools") {
            assert_eq!(function["defer_loading"], true);
            assert_eq!(function["type"], "function");
        }
    }

    #[test]
    fn namespace_names_are_words() {
        assert_eq!(Group::Category("clock").namespace(), "clock");
        assert_eq!(Group::Category("Chart Panes!").namespace(), "chart_panes_");
        assert_eq!(Group::Server("  ").namespace(), "");
        assert_eq!(Group::Server(&"x".repeat(100)).namespace(), "x".repeat(64));
    }

    #[test]
    fn a_long_namespace_description_is_cut() {
        let deferred: Vec<ToolSpec> = (0..200)
            .map(|i| spec(&format!("tool_with_a_long_name_{i:03}"), Some("many")))
            .collect();
        let listed = list(Some(Dialect::OpenAiResponses), false, &[], &deferred, &[]);
        let description = listed[1]["description"].as_str().expect("a description");
        assert_eq!(description.chars().count(), NAMESPACE_DESCRIPTION_LIMIT + 1);
        assert!(description.ends_with('…'));
        assert_eq!(listed[1]["tools"].as_array().map(Vec::len), Some(200));
    }

    #[test]
    fn every_other_request_gets_the_local_search_and_the_tools_found_in_order() {
        let eager = [spec("a_tool", None)];
        let deferred = [spec("b_tool", None), spec("c_tool", Some("c"))];
        let requests = [
            (Some(Dialect::OpenAi), false),
            (Some(Dialect::Gemini), false),
            (Some(Dialect::Mcp), false),
            (None, false),
            (Some(Dialect::Anthropic), true),
            (Some(Dialect::OpenAiResponses), true),
        ];
        for (dialect, local) in requests {
            let found = ["c_tool", "a_tool", "nothing", "b_tool", "c_tool"];
            let listed = list(dialect, local, &eager, &deferred, &found);
            let expected = vec![
                definition(dialect, &eager[0]),
                tool_search_definition(dialect).clone(),
                definition(dialect, &deferred[1]),
                definition(dialect, &deferred[0]),
            ];
            assert_eq!(listed, expected, "{dialect:?}");
            let nothing_found = list(dialect, local, &eager, &deferred, &[]);
            assert_eq!(nothing_found, expected[..2], "{dialect:?}");
        }
    }

    #[test]
    fn exports_and_catalogs_list_deferred_tools_the_same_way() {
        let mut deferred = spec("b_tool", Some("b"));
        deferred.defer_loading = true;
        let plain = [spec("c_tool", None), spec("a_tool", None)];
        let mut with = plain.to_vec();
        with.push(deferred.clone());
        for dialect in Dialect::ALL {
            let one_each = |specs: &[ToolSpec]| {
                let mut sorted = specs.to_vec();
                sorted.sort_by(|a, b| a.name.cmp(&b.name));
                let converted: Vec<Value> = (sorted.iter())
                    .map(|s| definition(Some(*dialect), s))
                    .collect();
                Value::Array(converted)
            };
            // Without a deferred tool, the definitions alone, as before deferral.
            let export = super::super::export(*dialect, &plain).expect("exports");
            assert_eq!(export, one_each(&plain), "{dialect}");
            let catalog = super::super::catalog(*dialect, &plain);
            assert_eq!(catalog.tool_list(), catalog.definitions, "{dialect}");

            let export = super::super::export(*dialect, &with).expect("exports");
            let catalog = super::super::catalog(*dialect, &with);
            assert_eq!(catalog.tool_list(), export, "{dialect}");
            assert_eq!(
                catalog.definitions,
                one_each(&with),
                "one per tool, unflagged"
            );
            let expected = list(
                Some(*dialect),
                false,
                &plain_sorted(&plain),
                &[deferred.clone()],
                &[],
            );
            assert_eq!(export, Value::Array(expected), "{dialect}");
        }
    }

    fn plain_sorted(specs: &[ToolSpec]) -> Vec<ToolSpec> {
        let mut sorted = specs.to_vec();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        sorted
    }

    #[test]
    fn a_deferred_function_strict_mode_refuses_leaves_the_strict_only_list() {
        let mut loose = spec("b_tool", None);
        loose.input_schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
        loose.defer_loading = true;
        let specs = [spec("a_tool", None), loose];
        let catalog = super::super::catalog(Dialect::OpenAiResponses, &specs);
        assert_eq!(catalog.non_strict_tools(), ["b_tool"]);
        let listed = catalog.tool_list();
        assert_eq!(listed.as_array().map(Vec::len), Some(3), "{listed}");
        let strict = catalog.strict_only();
        assert_eq!(
            strict.tool_list(),
            json!([definition(Some(Dialect::OpenAiResponses), &specs[0])]),
            "no deferred tool is left, so no tool search either"
        );
    }

    #[test]
    fn deferred_functions_do_not_count_against_openais_limit_of_one_request() {
        let mut specs: Vec<ToolSpec> = (0..=crate::dialect::openai::MAX_FUNCTIONS)
            .map(|i| spec(&format!("tool_{i:03}"), None))
            .collect();
        for dialect in [Dialect::OpenAi, Dialect::OpenAiResponses] {
            let err = super::super::export(dialect, &specs).expect_err("one too many");
            assert!(
                err.violations
                    .iter()
                    .any(|v| v.rule == "openai.max-functions" && v.tool == "tool_128"),
                "{err}"
            );
        }
        specs[0].defer_loading = true;
        for dialect in [Dialect::OpenAi, Dialect::OpenAiResponses] {
            super::super::export(dialect, &specs).expect("128 listed, one deferred");
        }
    }

    #[test]
    fn a_tool_without_a_definition_is_not_listed() {
        let deferred = [spec("b_tool", None), spec("c_tool", None)];
        let b = definition(Some(Dialect::Anthropic), &deferred[0]);
        let tools = [
            DeferredTool::new(&deferred[0], Some(&b)),
            DeferredTool::new(&deferred[1], None),
        ];
        let listed = arrange(Some(Dialect::Anthropic), false, Vec::new(), &tools, &[]);
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[1]["name"], "b_tool");
        let listed = arrange(
            Some(Dialect::Gemini),
            false,
            Vec::new(),
            &tools,
            &["c_tool"],
        );
        assert_eq!(
            listed,
            [tool_search_definition(Some(Dialect::Gemini)).clone()]
        );
    }
}
