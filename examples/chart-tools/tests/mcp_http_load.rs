//! Load: 50 concurrent MCP clients against the chart's tools over Streamable HTTP, served by
//! `toolwright_mcp::http` (bearer token per client, rate limit, body limit, Origin checks,
//! the registry's validation and envelope) and, in the same run, by a plain rmcp server: a
//! `ServerHandler` that lists the same tool definitions and calls the chart's functions
//! directly, without authorization, limits or validation, behind rmcp's own
//! `StreamableHttpService`. Both sides are served by axum on 127.0.0.1 in this process, one at
//! a time, and driven by the same rmcp clients.
//!
//! Ignored by default (it measures, it does not check); run it optimized:
//!
//! ```text
//! cargo test -p chart-tools --release --test mcp_http_load -- --ignored --nocapture
//! ```
//!
//! It prints, per lifecycle (sessions of the older protocols, and the stateless requests of
//! 2026-07-28), throughput and p50/p99 latency of `tools/call` and `tools/list` for each side,
//! per round, and their ratios (ours over plain). Each phase is bounded: `CALLS` calls and
//! `LISTS` lists per client, and at most `PHASE_LIMIT` of wall time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chart_tools::chart::Chart;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, ErrorData,
    ListToolsRequest, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, ServerResult, Tool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, RequestContext, RoleClient, RunningService,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use serde::Deserialize as _;
use serde_json::{Value, json};
use tokio::sync::RwLock;
use toolwright_mcp::McpServer;
use toolwright_mcp::auth::FileTokens;
use toolwright_mcp::http::{HttpConfig, HttpServer, RateLimit};
use toolwright_runtime::RunPolicy;

/// Concurrent clients.
const CLIENTS: usize = 50;
/// `tools/call`s per client per phase.
const CALLS: usize = 100;
/// `tools/list`s per client per phase.
const LISTS: usize = 20;
/// Rounds: each runs ours, then plain.
const ROUNDS: usize = 3;
/// No phase runs longer than this.
const PHASE_LIMIT: Duration = Duration::from_secs(60);

/// The plain rmcp server: the same tool definitions, the chart's functions called directly.
#[derive(Clone)]
struct Plain {
    chart: Arc<RwLock<Chart>>,
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let chart = self.chart.read().await;
        let failed = |e: &dyn std::fmt::Debug| ErrorData::internal_error(format!("{e:?}"), None);
        let data = match request.name.as_ref() {
            "drawings_list" => {
                let input = chart_tools::tools::drawings_list::Input::deserialize(&arguments)
                    .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
                serde_json::to_value(
                    chart
                        .drawings_list(input.pane_id.as_deref())
                        .map_err(|e| failed(&e))?,
                )
            }
            "panes_list" => serde_json::to_value(chart.panes_list().map_err(|e| failed(&e))?),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        }
        .map_err(|e| failed(&e))?;
        Ok(CallToolResult::structured(data).into())
    }
}

fn token(client: usize) -> String {
    format!("load-client-{client:03}-0123456789abcdefghijklmnopqrstuvwxyz")
}

async fn ours(tools_server: McpServer<Chart>) -> String {
    let mut file = String::new();
    for client in 0..CLIENTS {
        file.push_str(&format!(
            "[[token]]\nname = \"client-{client}\"\ntoken = \"{}\"\ngrant = \"write\"\n",
            token(client)
        ));
    }
    let tokens = FileTokens::parse(&file, std::path::Path::new("load-tokens.toml"), |_| true)
        .expect("the load tokens are valid");
    let limit = std::num::NonZeroU32::new(1_000_000).expect("not zero");
    let config = HttpConfig::default()
        .with_verifier(Arc::new(tokens))
        .with_rate_limit(Some(RateLimit::new(limit, limit)));
    let http = HttpServer::bind(
        "127.0.0.1:0".parse().expect("an address"),
        tools_server,
        config,
    )
    .await
    .expect("the server binds");
    let url = http.url();
    tokio::spawn(http.serve());
    url
}

async fn plain(plain: Plain) -> String {
    let service = StreamableHttpService::new(
        move || Ok(plain.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_json_response(true),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("the plain server binds");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Lifecycle {
    Session,
    Stateless,
}

async fn connect(
    url: &str,
    token: Option<String>,
    lifecycle: Lifecycle,
) -> RunningService<RoleClient, ()> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    match lifecycle {
        Lifecycle::Session => ().serve(transport).await.expect("the client connects"),
        Lifecycle::Stateless => ()
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("the client connects"),
    }
}

/// What one phase measured.
struct Phase {
    /// Requests a second over the phase (calls and lists).
    throughput: f64,
    calls: Vec<Duration>,
    lists: Vec<Duration>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

/// 50 clients at once, each `CALLS` calls with a `tools/list` every few calls.
async fn phase(url: &str, authenticated: bool, lifecycle: Lifecycle) -> Phase {
    let clients = futures_util::future::join_all(
        (0..CLIENTS).map(|client| connect(url, authenticated.then(|| token(client)), lifecycle)),
    )
    .await;
    let arguments = json!({"pane_id": "main"});
    let Value::Object(arguments) = arguments else {
        unreachable!("an object")
    };
    let started = Instant::now();
    let runs = clients.iter().map(|client| {
        let arguments = arguments.clone();
        async move {
            let mut calls = Vec::with_capacity(CALLS);
            let mut lists = Vec::with_capacity(LISTS);
            let every = CALLS / LISTS;
            for i in 0..CALLS {
                let at = Instant::now();
                let result = client
                    .call_tool(
                        CallToolRequestParams::new("drawings_list")
                            .with_arguments(arguments.clone()),
                    )
                    .await
                    .expect("tools/call answers");
                assert_eq!(result.is_error, Some(false), "{result:?}");
                calls.push(at.elapsed());
                if i % every == 0 {
                    let at = Instant::now();
                    // Past the client's cache, which would answer from the first list.
                    let listed = client
                        .send_request(ClientRequest::ListToolsRequest(ListToolsRequest {
                            method: Default::default(),
                            params: None,
                            extensions: Default::default(),
                        }))
                        .await
                        .expect("tools/list answers");
                    assert!(matches!(listed, ServerResult::ListToolsResult(ref l) if !l.tools.is_empty()));
                    lists.push(at.elapsed());
                }
            }
            (calls, lists)
        }
    });
    let results = tokio::time::timeout(PHASE_LIMIT, futures_util::future::join_all(runs))
        .await
        .expect("the phase ends in time");
    let elapsed = started.elapsed();
    for client in clients {
        let _ = client.cancel().await;
    }
    let mut calls = Vec::new();
    let mut lists = Vec::new();
    for (c, l) in results {
        calls.extend(c);
        lists.extend(l);
    }
    calls.sort_unstable();
    lists.sort_unstable();
    Phase {
        throughput: (calls.len() + lists.len()) as f64 / elapsed.as_secs_f64(),
        calls,
        lists,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn ratio(a: f64, b: f64) -> String {
    format!("{:.2}×", a / b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
async fn fifty_clients_against_ours_and_plain_rmcp() {
    let registry = Arc::new(chart_tools::registry().expect("the chart's registry builds"));
    let server = McpServer::new(
        registry,
        RunPolicy::full(),
        Chart::demo(),
        "chart-tools",
        "load",
    )
    .expect("every tool has an MCP definition");
    let reference = Plain {
        chart: Arc::new(RwLock::new(Chart::demo())),
        tools: Arc::new(server.tools()),
    };
    let ours_url = ours(server).await;
    let plain_url = plain(reference).await;

    println!(
        "{CLIENTS} clients, {CALLS} tools/call (drawings_list) and {LISTS} tools/list each per phase, {ROUNDS} rounds\n"
    );
    println!(
        "| lifecycle | round | ours req/s | plain req/s | throughput | call p50 ours / plain | call p99 ours / plain | call p50 | call p99 | list p50 | list p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut medians = Vec::new();
    for lifecycle in [Lifecycle::Session, Lifecycle::Stateless] {
        // Warm both sides up (connections, allocator, caches).
        let _ = phase(&ours_url, true, lifecycle).await;
        let _ = phase(&plain_url, false, lifecycle).await;
        let mut ratios: [Vec<f64>; 5] = Default::default();
        for round in 1..=ROUNDS {
            let a = phase(&ours_url, true, lifecycle).await;
            let b = phase(&plain_url, false, lifecycle).await;
            let p = |phase: &Phase, list: bool, q: f64| {
                percentile(if list { &phase.lists } else { &phase.calls }, q).as_secs_f64()
            };
            println!(
                "| {lifecycle:?} | {round} | {:.0} | {:.0} | {} | {} / {} | {} / {} | {} | {} | {} | {} |",
                a.throughput,
                b.throughput,
                ratio(a.throughput, b.throughput),
                ms(percentile(&a.calls, 0.5)),
                ms(percentile(&b.calls, 0.5)),
                ms(percentile(&a.calls, 0.99)),
                ms(percentile(&b.calls, 0.99)),
                ratio(p(&a, false, 0.5), p(&b, false, 0.5)),
                ratio(p(&a, false, 0.99), p(&b, false, 0.99)),
                ratio(p(&a, true, 0.5), p(&b, true, 0.5)),
                ratio(p(&a, true, 0.99), p(&b, true, 0.99)),
            );
            for (all, one) in ratios.iter_mut().zip([
                a.throughput / b.throughput,
                p(&a, false, 0.5) / p(&b, false, 0.5),
                p(&a, false, 0.99) / p(&b, false, 0.99),
                p(&a, true, 0.5) / p(&b, true, 0.5),
                p(&a, true, 0.99) / p(&b, true, 0.99),
            ]) {
                all.push(one);
            }
        }
        medians.push((
            lifecycle,
            ratios.map(|mut r| {
                r.sort_by(f64::total_cmp);
                r.get(r.len() / 2).copied().unwrap_or(f64::NAN)
            }),
        ));
    }
    println!("\nMedians of the per-round ratios (ours / plain):\n");
    println!("| lifecycle | throughput | call p50 | call p99 | list p50 | list p99 |");
    println!("|---|---|---|---|---|---|");
    for (lifecycle, [t, c50, c99, l50, l99]) in medians {
        println!("| {lifecycle:?} | {t:.2}× | {c50:.2}× | {c99:.2}× | {l50:.2}× | {l99:.2}× |");
    }
}
