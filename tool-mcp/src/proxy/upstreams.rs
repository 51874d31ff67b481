//! The proxy's context: a connection to each upstream server, the verdict on each pinned tool
//! (is its live definition still the pinned one?), and the handler that forwards a call.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock, Weak};

use serde_json::{Map, Value};
use tokio::sync::{Mutex, watch};
use toolwright_core::{Endpoint, ToolMeta};
use toolwright_manifest::diff::{Definition, compare};
use toolwright_manifest::lock::digest;
use toolwright_runtime::ToolError;
use toolwright_runtime::handler::{BoxFuture, CallResult, ToolOutput};
use toolwright_upstream::Upstream;

use super::pins::{Pinned, shown};
use super::{ProxyError, ProxyOptions};
use crate::Availability;

/// How many of a drift's changes a refusal lists.
const CHANGES_SHOWN: usize = 5;

/// Whether a pinned tool's live definition is its pin.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The server lists the tool as it was pinned (key order and whitespace aside).
    Pinned,
    /// The server lists the tool with these changes since it was pinned.
    Changed(Vec<String>),
    /// The server no longer lists the tool.
    Gone,
}

/// The upstream servers of a proxy: the context its registry calls tools with. Cloning shares
/// the connections.
#[derive(Clone)]
pub struct Upstreams {
    shared: Arc<Shared>,
}

impl fmt::Debug for Upstreams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstreams")
            .field(
                "servers",
                &self.shared.links.iter().map(|l| &l.id).collect::<Vec<_>>(),
            )
            .field("verdicts", &*self.verdicts())
            .finish()
    }
}

struct Shared {
    links: Vec<Link>,
    /// How often each server's tools are listed again without being told.
    relist_every: Option<std::time::Duration>,
    /// Each pinned tool by its name in the registry.
    routes: BTreeMap<&'static str, Route>,
    verdicts: RwLock<BTreeMap<&'static str, Verdict>>,
    /// Counts the changes of any verdict.
    changes: watch::Sender<u64>,
}

/// Where a pinned tool runs, and what it was when pinned.
struct Route {
    link: usize,
    upstream_name: String,
    digest: String,
    pin: Definition,
    /// The pinned definition as the server listed it.
    pin_value: Value,
}

/// One upstream server: where it is and, while connected, the connection.
struct Link {
    id: String,
    endpoint: toolwright_upstream::Endpoint,
    shown: String,
    /// `None` until connected, and after the connection was found closed until a call
    /// reconnects. Held while connecting, so that one connection is made at a time.
    client: Mutex<Option<Arc<Upstream>>>,
}

impl Upstreams {
    /// Reaches every server and judges every pinned tool.
    pub(crate) async fn connect(
        pinned: Pinned,
        mut options: ProxyOptions,
    ) -> Result<Upstreams, ProxyError> {
        let known: Vec<&str> = pinned.servers.iter().map(|s| s.id.as_str()).collect();
        if let Some(unknown) = options
            .headers
            .keys()
            .chain(options.env.keys())
            .find(|id| !known.contains(&id.as_str()))
        {
            return Err(ProxyError::UnknownServer(unknown.clone()));
        }
        let links: Vec<Link> = pinned
            .servers
            .iter()
            .map(|server| Link {
                id: server.id.clone(),
                shown: shown(&server.endpoint),
                endpoint: match &server.endpoint {
                    Endpoint::Command(argv) => toolwright_upstream::Endpoint::Command {
                        program: argv.first().cloned().unwrap_or_default(),
                        args: argv.iter().skip(1).cloned().collect(),
                        env: options.env.remove(&server.id).unwrap_or_default(),
                    },
                    Endpoint::Url(url) => toolwright_upstream::Endpoint::Url {
                        url: url.clone(),
                        headers: options.headers.remove(&server.id).unwrap_or_default(),
                    },
                },
                client: Mutex::new(None),
            })
            .collect();
        let mut routes = BTreeMap::new();
        for tool in pinned.tools {
            let pin = Definition::from_mcp(&tool.pin.definition).map_err(|why| {
                ProxyError::Manifests {
                    dir: tool.meta.source.into(),
                    diagnostics: format!(
                        "{}: the pinned definition cannot be read: {why}",
                        tool.meta.source
                    ),
                }
            })?;
            routes.insert(
                tool.meta.name,
                Route {
                    link: tool.server,
                    upstream_name: tool.pin.tool.clone(),
                    digest: tool.pin.digest.clone(),
                    pin,
                    pin_value: tool.pin.definition.clone(),
                },
            );
        }
        let upstreams = Upstreams {
            shared: Arc::new(Shared {
                links,
                relist_every: options.relist_every,
                routes,
                verdicts: RwLock::default(),
                changes: watch::Sender::new(0),
            }),
        };
        for link in 0..upstreams.shared.links.len() {
            upstreams
                .client(link)
                .await
                .map_err(|why| ProxyError::Unreachable {
                    server: upstreams.shared.links[link].id.clone(),
                    why,
                })?;
        }
        Ok(upstreams)
    }

    /// The verdict on each pinned tool, by name.
    pub fn verdicts(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<&'static str, Verdict>> {
        self.shared
            .verdicts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The pinned tools refused at this moment (their live definitions differ from their
    /// pins), each with the message its calls are refused with.
    pub fn withheld(&self) -> Vec<(String, String)> {
        let refused: Vec<&'static str> = self
            .verdicts()
            .iter()
            .filter(|(_, verdict)| **verdict != Verdict::Pinned)
            .map(|(name, _)| *name)
            .collect();
        refused
            .into_iter()
            .filter_map(|name| Some((name.to_owned(), self.refusal(name)?)))
            .collect()
    }

    /// Why a call to `name` is refused, if it is.
    fn refusal(&self, name: &str) -> Option<String> {
        let verdicts = self.verdicts();
        let route = self.shared.routes.get(name)?;
        let server = &self.shared.links[route.link].id;
        match verdicts.get(name)? {
            Verdict::Pinned => None,
            Verdict::Gone => Some(format!(
                "The tool `{name}` is no longer listed by the upstream server `{server}` as `{}`; it is refused until it is pinned again.",
                route.upstream_name
            )),
            Verdict::Changed(changes) => {
                let mut shown: Vec<&str> = changes
                    .iter()
                    .take(CHANGES_SHOWN)
                    .map(String::as_str)
                    .collect();
                let more = changes.len().saturating_sub(CHANGES_SHOWN);
                let more = format!("and {more} more");
                if changes.len() > CHANGES_SHOWN {
                    shown.push(&more);
                }
                Some(format!(
                    "The tool `{name}` changed on the upstream server `{server}` since it was pinned: {}. It is refused until it is pinned again (review the change with `tool-manifest diff --against-live`, then import the tool again).",
                    shown.join("; ")
                ))
            }
        }
    }

    /// The connection to server `link`: the one open, or a new one (its tools judged again).
    async fn client(&self, link: usize) -> Result<Arc<Upstream>, String> {
        let server = &self.shared.links[link];
        let mut slot = server.client.lock().await;
        if let Some(client) = slot.as_ref()
            && !client.is_closed()
        {
            return Ok(Arc::clone(client));
        }
        *slot = None;
        let client = Upstream::connect(&server.endpoint)
            .await
            .map(Arc::new)
            .map_err(|e| format!("{} ({})", e, server.shown))?;
        let live = client
            .list_tools()
            .await
            .map_err(|e| format!("its tools cannot be listed: {e} ({})", server.shown))?;
        self.shared.judge(link, &live);
        tokio::spawn(watch_list(
            Arc::downgrade(&self.shared),
            link,
            Arc::clone(&client),
            self.shared.relist_every,
        ));
        *slot = Some(Arc::clone(&client));
        Ok(client)
    }

    /// Forwards one validated call to its upstream tool.
    async fn call(&self, meta: &'static ToolMeta, arguments: &Value) -> CallResult {
        let name = meta.name;
        let Some(route) = self.shared.routes.get(name) else {
            return Err(ToolError::Failed(format!(
                "the tool `{name}` is not a pinned tool of this proxy"
            )));
        };
        if let Some(why) = self.refusal(name) {
            return Err(ToolError::NotAllowed(why));
        }
        let server = &self.shared.links[route.link];
        let client = self.client(route.link).await.map_err(|why| {
            ToolError::Failed(format!(
                "the upstream server `{}` cannot be reached: {why}",
                server.id
            ))
        })?;
        // A reconnection judges the tools again.
        if let Some(why) = self.refusal(name) {
            return Err(ToolError::NotAllowed(why));
        }
        // The registry validated the arguments against an object schema.
        let arguments = match arguments {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        let answer = client
            .call_tool(&route.upstream_name, arguments)
            .await
            .map_err(|e| {
                ToolError::Failed(format!(
                    "the upstream server `{}` gave no answer: {e}",
                    server.id
                ))
            })?;
        output(meta, answer)
    }
}

impl Shared {
    /// Judges the pinned tools of server `link` against its live `tools/list`, and counts a
    /// change when a verdict changed.
    fn judge(&self, link: usize, live: &[Value]) {
        let mut changed = false;
        {
            let mut verdicts = self
                .verdicts
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            for (name, route) in self.routes.iter().filter(|(_, r)| r.link == link) {
                let found = live.iter().find(|tool| {
                    tool.get("name").and_then(Value::as_str) == Some(&route.upstream_name)
                });
                let verdict = verdict(route, found);
                if verdicts.insert(name, verdict.clone()) != Some(verdict) {
                    changed = true;
                }
            }
        }
        if changed {
            self.changes.send_modify(|n| *n += 1);
        }
    }
}

/// The verdict on one tool, given its live definition.
fn verdict(route: &Route, live: Option<&Value>) -> Verdict {
    let Some(live) = live else {
        return Verdict::Gone;
    };
    // The digest is of the canonical text: the same definition with its keys in another order
    // or other whitespace between them has the same digest.
    if digest(live) == route.digest {
        return Verdict::Pinned;
    }
    let definition = match Definition::from_mcp(live) {
        Ok(definition) => definition,
        Err(why) => return Verdict::Changed(vec![format!("the definition cannot be read: {why}")]),
    };
    // The lifecycle diff says what changed, in its words; an array reordered where order means
    // nothing (`required`, `enum`) or whitespace inside a text is not a change to it.
    let mut changes: Vec<String> = compare(&route.pin, &definition)
        .into_iter()
        .map(|change| format!("{} at {}", change.message, change.pointer))
        .collect();
    // What the diff does not weigh (a hint MCP ignores beside another, a key it does not read)
    // is still a change to the definition the author reviewed.
    if changes.is_empty()
        && let Some(at) = first_difference(&route.pin_value, live, &mut String::new())
    {
        changes.push(format!("the definition changed at {at}"));
    }
    if changes.is_empty() {
        Verdict::Pinned
    } else {
        Verdict::Changed(changes)
    }
}

/// Where two definitions first differ, other than in key order, in the order of `required` or
/// `enum`, or in whitespace inside a text: the JSON Pointer, or `None` when they do not.
fn first_difference(pinned: &Value, live: &Value, at: &mut String) -> Option<String> {
    match (pinned, live) {
        (Value::String(a), Value::String(b)) => {
            (!a.split_whitespace().eq(b.split_whitespace())).then(|| pointer(at))
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                let found = match b.get(key) {
                    None => Some(pointer(at)),
                    Some(other) if key == "required" || key == "enum" => {
                        (!same_members(value, other)).then(|| pointer(at))
                    }
                    Some(other) => first_difference(value, other, at),
                };
                if found.is_some() {
                    return found;
                }
                at.truncate(len);
            }
            b.keys()
                .find(|key| !a.contains_key(*key))
                .map(|key| format!("{}/{}", at, key.replace('~', "~0").replace('/', "~1")))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                let found = first_difference(x, y, at);
                at.truncate(len);
                found
            })
        }
        (a, b) => (a != b).then(|| pointer(at)),
    }
}

/// The same values in any order (`required`, `enum`)?
fn same_members(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().all(|x| b.contains(x)) && b.iter().all(|y| a.contains(y))
        }
        (a, b) => a == b,
    }
}

fn pointer(at: &str) -> String {
    if at.is_empty() {
        "/".to_owned()
    } else {
        at.to_owned()
    }
}

/// Judges server `link`'s tools again at each `notifications/tools/list_changed` (and every
/// `relist_every`, when set), until the connection closes or the proxy is dropped.
async fn watch_list(
    shared: Weak<Shared>,
    link: usize,
    client: Arc<Upstream>,
    relist_every: Option<std::time::Duration>,
) {
    let mut changes = client.list_changed();
    let tick = async |period: Option<std::time::Duration>| match period {
        Some(period) => tokio::time::sleep(period).await,
        None => std::future::pending().await,
    };
    loop {
        tokio::select! {
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = tick(relist_every) => {
                if client.is_closed() {
                    return;
                }
            }
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match client.list_tools().await {
            Ok(live) => shared.judge(link, &live),
            Err(_) => return,
        }
    }
}

/// The envelope's side of an upstream `CallToolResult`: `isError` is a failure with the
/// server's text; otherwise the data is its `structuredContent`, else its text (one block), else
/// its content blocks.
fn output(meta: &ToolMeta, answer: Value) -> CallResult {
    let texts: Vec<&str> = answer
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if answer.get("isError").and_then(Value::as_bool) == Some(true) {
        let message = if texts.is_empty() {
            "the upstream tool failed and said nothing".to_owned()
        } else {
            texts.join("\n")
        };
        return Err(ToolError::Failed(message));
    }
    let blocks = answer
        .get("content")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let data = match answer.get("structuredContent") {
        Some(structured) if !structured.is_null() => structured.clone(),
        _ if blocks == 1 && texts.len() == 1 => Value::String(texts[0].to_owned()),
        _ => answer.get("content").cloned().unwrap_or(Value::Null),
    };
    Ok(ToolOutput {
        data: data.into(),
        // What an upstream tool changed is not known: a destructive tool may have.
        state_changed: !meta.safety.is_read_only(),
    })
}

/// The handler of every pinned tool.
pub(crate) fn forward<'a>(
    upstreams: &'a Upstreams,
    meta: &'static ToolMeta,
    arguments: &'a Value,
) -> BoxFuture<'a, CallResult> {
    Box::pin(upstreams.call(meta, arguments))
}

impl Availability for Upstreams {
    fn withheld(&self) -> Vec<(String, String)> {
        Upstreams::withheld(self)
    }

    fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }
}
