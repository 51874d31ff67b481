//! The pinned manifests of a folder, read into registrable tools and the servers they run on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwright_core::{Endpoint, StaticSchema, ToolMeta, ToolSpec, Upstream};

use super::ProxyError;

/// One pinned tool.
#[derive(Debug)]
pub(crate) struct PinnedTool {
    /// The manifest's declaration, frozen.
    pub(crate) meta: &'static ToolMeta,
    /// The index of its server in [`Pinned::servers`].
    pub(crate) server: usize,
    /// The manifest's `[upstream]` table: the tool's name upstream, the digest and the pinned
    /// definition (as the server listed it when it was pinned); what the registry's spec of the
    /// tool carries.
    pub(crate) pin: Upstream,
}

/// One upstream server.
#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) id: String,
    pub(crate) endpoint: Endpoint,
}

/// Every pinned tool of a folder and the servers they name.
#[derive(Debug)]
pub(crate) struct Pinned {
    pub(crate) tools: Vec<PinnedTool>,
    pub(crate) servers: Vec<Server>,
}

/// Reads the pinned manifests of `dir`.
pub(crate) fn load(dir: &Path) -> Result<Pinned, ProxyError> {
    let specs = toolwright_manifest::manifest::load_dir(dir)
        .specs
        .map_err(|diagnostics| ProxyError::Manifests {
            dir: dir.to_path_buf(),
            diagnostics: diagnostics.to_string(),
        })?;
    let mut servers: Vec<Server> = Vec::new();
    // The first tool that named each server, for the message when another disagrees.
    let mut first: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut tools = Vec::with_capacity(specs.len());
    for spec in specs {
        let Some(upstream) = spec.upstream.clone() else {
            return Err(ProxyError::NotPinned {
                source_file: PathBuf::from(&spec.source),
                name: spec.name,
            });
        };
        let server = match first.get(&upstream.server) {
            Some((index, tool)) => {
                let known = &servers[*index].endpoint;
                if *known != upstream.endpoint {
                    return Err(ProxyError::EndpointsDisagree {
                        server: upstream.server,
                        first: shown(known),
                        first_tool: tool.clone(),
                        second: shown(&upstream.endpoint),
                        second_tool: spec.name,
                    });
                }
                *index
            }
            None => {
                servers.push(Server {
                    id: upstream.server.clone(),
                    endpoint: upstream.endpoint.clone(),
                });
                first.insert(
                    upstream.server.clone(),
                    (servers.len() - 1, spec.name.clone()),
                );
                servers.len() - 1
            }
        };
        tools.push(PinnedTool {
            meta: leak(&spec),
            server,
            pin: upstream,
        });
    }
    Ok(Pinned { tools, servers })
}

/// How an endpoint is shown: the command line, or the URL (neither holds a secret: a pinned
/// manifest refuses URLs with credentials).
pub(crate) fn shown(endpoint: &Endpoint) -> String {
    match endpoint {
        Endpoint::Command(argv) => format!("`{}`", argv.join(" ")),
        Endpoint::Url(url) => format!("<{url}>"),
    }
}

/// The frozen metadata of a tool read when the proxy starts. The registry holds `'static`
/// metadata (a generated tool's is a constant); a proxy's tools are read once and live as long
/// as the process, so each is leaked once, when the proxy starts.
fn leak(spec: &ToolSpec) -> &'static ToolMeta {
    let text = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let schema = |v: &Value| StaticSchema::Json(text(&v.to_string()));
    let mut meta = ToolMeta::new(
        text(&spec.name),
        spec.safety,
        spec.mode,
        schema(&spec.input_schema),
    )
    .title(text(&spec.title))
    .description(text(&spec.description))
    .source(text(&spec.source));
    if let Some(category) = &spec.category {
        meta = meta.category(text(category));
    }
    if let Some(output) = &spec.output_schema {
        meta = meta.output_schema(schema(output));
    }
    if let Some(idempotent) = spec.idempotent {
        meta = meta.idempotent(idempotent);
    }
    if let Some(open_world) = spec.open_world {
        meta = meta.open_world(open_world);
    }
    if let Some(ms) = spec.timeout_ms {
        meta = meta.timeout_ms(ms);
    }
    if let Some(bytes) = spec.max_output_bytes {
        meta = meta.max_output_bytes(bytes);
    }
    if let Some(version) = &spec.version {
        meta = meta.version(text(version));
    }
    if spec.defer_loading {
        meta = meta.defer_loading();
    }
    Box::leak(Box::new(meta))
}
