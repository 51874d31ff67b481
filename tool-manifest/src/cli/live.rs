//! What `import --from-mcp`, `--from-mcp-url` and `diff --against-live` ask of live MCP servers.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use toolwright_manifest::diff::ToolSet;
use toolwright_manifest::import::Reading;
use toolwright_manifest::model::{Endpoint, ToolSpec};
use toolwright_secrets::SecretString;
use toolwright_upstream::{Endpoint as Reach, Upstream};

/// How long a server has to start, answer `initialize` and list its tools.
const LIST_TIMEOUT: Duration = Duration::from_secs(120);

/// A server's tools, as it listed them.
pub struct Listed {
    /// The name the server gives itself.
    pub server_name: String,
    /// Its `tools/list`, every page.
    pub tools: Vec<Value>,
}

/// The server started by `argv`: how to reach it, and what a manifest records.
pub fn command(argv: &[String]) -> Result<(Reach, Endpoint), String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("--from-mcp needs the server's command after `--`".into());
    };
    Ok((
        Reach::Command {
            program: program.clone(),
            args: args.to_vec(),
            env: Vec::new(),
        },
        Endpoint::Command(argv.to_vec()),
    ))
}

/// The server at `url`, with `headers` sent and never recorded.
pub fn url(url: &str, headers: Vec<(String, String)>) -> Result<(Reach, Endpoint), String> {
    if let Some(why) = toolwright_manifest::manifest::url_mistake(url) {
        return Err(format!("--from-mcp-url: {why}"));
    }
    let headers = headers
        .into_iter()
        .map(|(name, value)| (name, SecretString::new(value)))
        .collect();
    Ok((
        Reach::Url {
            url: url.to_owned(),
            headers,
        },
        Endpoint::Url(url.to_owned()),
    ))
}

/// Connects to the server, lists its tools and closes the connection.
pub fn list(endpoint: &Reach) -> Result<Listed, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let shown = toolwright_upstream::describe(endpoint);
    runtime.block_on(async {
        let listing = async {
            let upstream = Upstream::connect(endpoint)
                .await
                .map_err(|e| e.to_string())?;
            let tools = upstream
                .list_tools()
                .await
                .map_err(|e| format!("{shown}: its tools cannot be listed: {e}"))?;
            let (server_name, _) = upstream.server_info();
            upstream.close().await;
            Ok(Listed { server_name, tools })
        };
        tokio::time::timeout(LIST_TIMEOUT, listing)
            .await
            .map_err(|_| {
                format!(
                    "{shown}: no tools listed within {} s",
                    LIST_TIMEOUT.as_secs()
                )
            })?
    })
}

/// A server id from the name a server gives itself: its last `/`-separated part, lowercased,
/// other characters than letters, digits, `_` and `-` made `-`.
pub fn server_id(name: &str) -> String {
    let last = name.rsplit('/').next().unwrap_or(name);
    let id: String = last
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '_' | '-') => c,
            _ => '-',
        })
        .collect();
    let id = id.trim_matches('-').to_owned();
    if id.starts_with(|c: char| c.is_ascii_lowercase()) {
        id
    } else {
        format!("server-{id}")
    }
}

/// Prefixes with `<server>_` the name of each tool whose manifest exists in `out` pinned to
/// another server: two servers' tools of one name are served side by side.
pub fn prefix_taken(reading: &mut Reading, out: &Path, server: &str) {
    let prefix: String = server
        .chars()
        .map(|c| if c == '-' { '_' } else { c })
        .collect();
    for tool in &mut reading.tools {
        let Ok(text) = std::fs::read_to_string(out.join(tool.manifest_file())) else {
            continue;
        };
        let other = text.parse::<toml::Table>().ok().and_then(|table| {
            table
                .get("upstream")?
                .get("server")?
                .as_str()
                .map(str::to_owned)
        });
        if other.as_deref().is_some_and(|other| other != server) {
            let renamed = format!("{prefix}_{}", tool.name);
            if toolwright_manifest::model::is_valid_tool_name(&renamed) {
                tool.name = renamed;
            }
        }
    }
}

/// The pinned definitions of `specs` against what their servers list now, each named as its
/// manifest names it (an upstream tool nobody pinned keeps its upstream name).
pub fn against_live(specs: &[ToolSpec]) -> Result<(ToolSet, ToolSet), String> {
    let mut servers: BTreeMap<&str, (&Endpoint, Vec<&ToolSpec>)> = BTreeMap::new();
    for spec in specs {
        let Some(upstream) = &spec.upstream else {
            continue;
        };
        servers
            .entry(upstream.server.as_str())
            .or_insert((&upstream.endpoint, Vec::new()))
            .1
            .push(spec);
    }
    if servers.is_empty() {
        return Err("--against-live: no manifest has an `[upstream]` table".into());
    }
    let mut old = Vec::new();
    let mut new = Vec::new();
    for (server, (endpoint, pinned)) in servers {
        let reach = match endpoint {
            Endpoint::Command(argv) => command(argv)?.0,
            Endpoint::Url(url) => url_of(url),
        };
        let listed = list(&reach).map_err(|e| format!("the server `{server}`: {e}"))?;
        let mut live: BTreeMap<String, Value> = listed
            .tools
            .into_iter()
            .filter_map(|tool| Some((tool.get("name")?.as_str()?.to_owned(), tool)))
            .collect();
        for spec in pinned {
            let Some(upstream) = &spec.upstream else {
                continue;
            };
            old.push((
                spec.source.clone(),
                renamed(&upstream.definition, &spec.name),
            ));
            if let Some(tool) = live.remove(&upstream.tool) {
                new.push((
                    format!("{server}: {}", upstream.tool),
                    renamed(&tool, &spec.name),
                ));
            }
        }
        for (name, tool) in live {
            new.push((format!("{server}: {name}"), tool));
        }
    }
    let old = ToolSet::from_mcp(&old)?;
    let new = ToolSet::from_mcp(&new)?;
    Ok((old, new))
}

/// A URL endpoint with no headers (`diff --against-live` reaches public servers only).
fn url_of(url: &str) -> Reach {
    Reach::Url {
        url: url.to_owned(),
        headers: Vec::new(),
    }
}

/// `tool` named `name`.
fn renamed(tool: &Value, name: &str) -> Value {
    let mut tool = tool.clone();
    if let Value::Object(map) = &mut tool {
        map.insert("name".into(), Value::String(name.to_owned()));
    }
    tool
}
