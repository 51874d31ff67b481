//! The pinned proxy against the server it proxies, in one run (docs/performance.md, the section
//! of that name): `echo` of `@modelcontextprotocol/server-everything` called directly and through
//! `toolwright-proxy`, with the same client (`toolwright_upstream::Upstream`) on both sides.
//!
//! 1. Latency over stdio: 1,000 sequential calls each way, after 50 calls of warm-up, in 10
//!    blocks of 100 whose order turns, so that the machine's noise falls on every series. A
//!    third series, `Proxy::execute` in this process (the proxy's pipeline and its call
//!    upstream, without the client's hop to the proxy), and a fourth, the proxy's MCP server in
//!    this process over an in-memory pipe (its stdio code without the second process), say
//!    where the proxied call's extra time goes.
//! 2. Throughput over Streamable HTTP: 50 clients, each its own session, each sending calls back
//!    to back for a fixed time, against the server directly and through the proxy, alternating.
//!    The proxy is served twice: by the binary, its rate limit raised out of the way (without
//!    tokens one limit applies to all callers together), and by the same library calls in this
//!    process without a rate limit.
//!
//! Only ratios measured in this run are results: the machines are shared. Skipped with a
//! message when `mcp-server-everything` is not installed. Every server binds 127.0.0.1.

#[path = "../tests/pinning/mod.rs"]
mod pinning;

use std::future::Future;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolwright_core::Safety;
use toolwright_manifest::import;
use toolwright_mcp::http::{HttpConfig, HttpServer};
use toolwright_mcp::proxy::{Proxy, ProxyOptions};
use toolwright_runtime::{RunPolicy, ToolResult};
use toolwright_upstream::{Endpoint, Upstream};

const SERVER: &str = "mcp-server-everything";
const PROXY: &str = env!("CARGO_BIN_EXE_toolwright-proxy");

const WARM_UP: usize = 50;
const BLOCKS: usize = 10;
const BLOCK_CALLS: usize = 100;

const CLIENTS: usize = 50;
const HTTP_WARM_UP: Duration = Duration::from_secs(1);
const HTTP_PHASE: Duration = Duration::from_secs(5);
const HTTP_ROUNDS: usize = 2;

/// The whole run stops here whatever happens (a hung server must not hang the bench).
const BUDGET: Duration = Duration::from_secs(170);
/// How long a server may take to start.
const START_LIMIT: Duration = Duration::from_secs(60);

fn main() {
    if pinning::missing(
        SERVER,
        "npm install -g @modelcontextprotocol/server-everything",
    )
    .is_some()
    {
        return;
    }
    // The runtime of the clients (and of the in-process proxy): as many workers as cores, as a
    // host would run.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        tokio::time::timeout(BUDGET, run())
            .await
            .expect("the bench ends within its budget");
    });
}

async fn run() {
    let work = tempfile::tempdir().expect("a temporary directory");
    println!("load average at start: {}", load_average());
    stdio(work.path()).await;
    http(work.path()).await;
    println!("load average at end: {}", load_average());
}

// ---------------------------------------------------------------------------------------------
// Latency over stdio

async fn stdio(work: &Path) {
    let manifests = work.join("stdio");
    std::fs::create_dir_all(&manifests).expect("the manifests folder");
    let server = command(SERVER, &[]);
    pin(
        &manifests,
        &server,
        toolwright_core::Endpoint::Command(vec![SERVER.to_owned()]),
    )
    .await;

    let direct = connect(&server).await;
    let proxied = connect(&command(
        PROXY,
        &["--manifests", manifests.to_str().expect("a UTF-8 path")],
    ))
    .await;
    let in_process = tokio::time::timeout(
        START_LIMIT,
        Proxy::connect(&manifests, ProxyOptions::default()),
    )
    .await
    .expect("the proxy starts in time")
    .expect("the proxy starts");
    let policy = in_process.policy(RunPolicy::full());
    // The same proxy's MCP server, read and written as `serve_stdio` does, over a pipe in memory.
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_io);
    let mcp = in_process
        .server(RunPolicy::full())
        .expect("the proxy's MCP server");
    let serving = tokio::spawn(mcp.serve_lines(server_in, server_out));
    let in_memory = ().serve(client_io).await.expect("the client connects");
    let arguments = echo_arguments();
    let arguments_value = Value::Object(arguments.clone());

    let call_direct = || echo(&direct, arguments.clone());
    let call_proxied = || echo(&proxied, arguments.clone());
    let call_in_memory = || async {
        let reply = in_memory
            .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.clone()))
            .await
            .expect("echo is answered");
        assert_ne!(reply.is_error, Some(true), "echo failed: {reply:?}");
    };
    let call_in_process = || async {
        match in_process.execute(&policy, "echo", &arguments_value).await {
            ToolResult::Success { .. } => {}
            failure => panic!("the in-process proxy refused echo: {failure:?}"),
        }
    };

    for _ in 0..WARM_UP {
        call_direct().await;
        call_proxied().await;
        call_in_process().await;
        call_in_memory().await;
    }
    let mut series: [Series; 4] = Default::default();
    for block in 0..BLOCKS {
        // Each block runs the series one after the other, in an order that turns with the
        // block, so that none always runs first or last.
        for turn in 0..series.len() {
            let which = (block + turn) % series.len();
            let times = match which {
                0 => timed(BLOCK_CALLS, call_direct).await,
                1 => timed(BLOCK_CALLS, call_proxied).await,
                2 => timed(BLOCK_CALLS, call_in_process).await,
                _ => timed(BLOCK_CALLS, call_in_memory).await,
            };
            series[which].add_block(times);
        }
    }
    direct.close().await;
    proxied.close().await;
    in_memory
        .cancel()
        .await
        .expect("the in-memory session ends");
    serving.abort();
    drop(in_process);

    let [direct, proxied, in_process, in_memory] = series;
    println!();
    println!(
        "latency over stdio, {} sequential echo calls each ({BLOCKS} blocks of {BLOCK_CALLS}, turning order, after {WARM_UP} warm-up calls)",
        BLOCKS * BLOCK_CALLS
    );
    println!("| series | p50 | p90 | p99 | ratio p50 | ratio p90 | median of block p50 ratios |");
    println!("|---|---|---|---|---|---|---|");
    for (name, s) in [
        ("direct", &direct),
        ("through toolwright-proxy", &proxied),
        ("Proxy::execute in process", &in_process),
        (
            "the proxy's MCP server in process, in-memory pipe",
            &in_memory,
        ),
    ] {
        println!(
            "| {name} | {} | {} | {} | {:.2}× | {:.2}× | {:.2}× |",
            micros(s.quantile(0.5)),
            micros(s.quantile(0.9)),
            micros(s.quantile(0.99)),
            s.quantile(0.5).as_secs_f64() / direct.quantile(0.5).as_secs_f64(),
            s.quantile(0.9).as_secs_f64() / direct.quantile(0.9).as_secs_f64(),
            s.median_block_ratio(&direct),
        );
    }
    let proxied_extra = proxied.quantile(0.5).as_secs_f64() - direct.quantile(0.5).as_secs_f64();
    let pipeline_extra =
        in_process.quantile(0.5).as_secs_f64() - direct.quantile(0.5).as_secs_f64();
    let server_extra =
        in_memory.quantile(0.5).as_secs_f64() - in_process.quantile(0.5).as_secs_f64();
    println!(
        "p50 added by the proxy: {:.0} µs = the pipeline and its call upstream {:.0} µs (Proxy::execute − direct) + MCP in and out of the proxy's server {:.0} µs (in-memory pipe − Proxy::execute) + the second process and its stdio {:.0} µs (the rest)",
        proxied_extra * 1e6,
        pipeline_extra * 1e6,
        server_extra * 1e6,
        (proxied_extra - pipeline_extra - server_extra) * 1e6
    );
}

#[derive(Default)]
struct Series {
    all: Vec<Duration>,
    block_p50: Vec<Duration>,
}

impl Series {
    fn add_block(&mut self, mut times: Vec<Duration>) {
        times.sort_unstable();
        self.block_p50.push(quantile(&times, 0.5));
        self.all.extend(times);
        self.all.sort_unstable();
    }

    fn quantile(&self, q: f64) -> Duration {
        quantile(&self.all, q)
    }

    /// The median of this series' block p50 over the same block's p50 of `base`.
    fn median_block_ratio(&self, base: &Series) -> f64 {
        median(
            self.block_p50
                .iter()
                .zip(&base.block_p50)
                .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
                .collect(),
        )
    }
}

async fn timed<F, Fut>(calls: usize, call: F) -> Vec<Duration>
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        call().await;
        times.push(start.elapsed());
    }
    times
}

// ---------------------------------------------------------------------------------------------
// Throughput over Streamable HTTP

async fn http(work: &Path) {
    let manifests = work.join("http");
    std::fs::create_dir_all(&manifests).expect("the manifests folder");
    let (_server, url) = everything_over_http(work).await;
    let server = Endpoint::Url {
        url: url.clone(),
        headers: Vec::new(),
    };
    pin(
        &manifests,
        &server,
        toolwright_core::Endpoint::Url(url.clone()),
    )
    .await;

    // The proxy in this process, as the binary builds it, without the rate limit.
    let proxy = tokio::time::timeout(
        START_LIMIT,
        Proxy::connect(&manifests, ProxyOptions::default()),
    )
    .await
    .expect("the proxy starts in time")
    .expect("the proxy starts");
    let mcp = proxy
        .server(RunPolicy::full())
        .expect("the proxy's MCP server");
    let served = HttpServer::bind(
        "127.0.0.1:0".parse().expect("an address"),
        mcp,
        HttpConfig::default().with_rate_limit(None),
    )
    .await
    .expect("the proxy binds");
    let in_process_url = served.url();
    let serving = tokio::spawn(served.serve());

    // The binary as shipped.
    let (_binary, binary_url) = proxy_binary_over_http(&manifests).await;

    let sides = [
        ("direct", url.as_str()),
        ("proxy in process, no rate limit", in_process_url.as_str()),
        (
            "toolwright-proxy --http --rate-limit 1000000",
            binary_url.as_str(),
        ),
    ];
    for (_, url) in &sides[..2] {
        load(url, HTTP_WARM_UP).await;
    }
    let mut rounds: Vec<Vec<Load>> = Vec::new();
    for _ in 0..HTTP_ROUNDS {
        let mut round = Vec::new();
        for (_, url) in &sides {
            round.push(load(url, HTTP_PHASE).await);
        }
        rounds.push(round);
    }
    serving.abort();
    drop(proxy);

    println!();
    println!(
        "throughput over Streamable HTTP, {CLIENTS} clients (one session each) sending echo calls back to back, {} s a phase, {HTTP_ROUNDS} rounds",
        HTTP_PHASE.as_secs()
    );
    println!(
        "| round | side | clients connected | calls/s | ratio to direct | call p50 | call p99 | failed |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (r, round) in rounds.iter().enumerate() {
        for ((name, _), l) in sides.iter().zip(round) {
            println!(
                "| {} | {name} | {} | {:.0} | {:.2}× | {} | {} | {} |",
                r + 1,
                l.connected,
                l.per_second(),
                l.per_second() / round[0].per_second(),
                micros(quantile(&l.times, 0.5)),
                micros(quantile(&l.times, 0.99)),
                l.failed
            );
        }
    }
    for (i, (name, _)) in sides.iter().enumerate().skip(1) {
        let ratios = rounds
            .iter()
            .map(|round| round[i].per_second() / round[0].per_second())
            .collect();
        println!(
            "median of per-round throughput ratios, {name} / direct: {:.2}×",
            median(ratios)
        );
    }
    for (i, (name, _)) in sides.iter().enumerate() {
        if let Some(why) = rounds
            .iter()
            .find_map(|round| round[i].first_error.as_ref())
        {
            println!("first failure, {name}: {why}");
        }
    }
}

#[derive(Default)]
struct Load {
    connected: usize,
    calls: usize,
    failed: usize,
    first_error: Option<String>,
    times: Vec<Duration>,
    elapsed: Duration,
}

impl Load {
    fn per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }
}

/// `CLIENTS` clients connected at once to `url`, then each calling `echo` back to back for
/// `duration`. A client stops at its first failure (a refused request may close its session);
/// failures are counted, not retried.
async fn load(url: &str, duration: Duration) -> Load {
    let endpoint = Endpoint::Url {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let mut connecting = Vec::with_capacity(CLIENTS);
    for _ in 0..CLIENTS {
        let endpoint = endpoint.clone();
        connecting.push(tokio::spawn(async move {
            Upstream::connect_with_timeout(&endpoint, START_LIMIT).await
        }));
    }
    let mut result = Load::default();
    let mut clients = Vec::new();
    for task in connecting {
        match task.await.expect("the connecting task ends") {
            Ok(client) => clients.push(client),
            Err(e) => {
                result.failed += 1;
                result.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    result.connected = clients.len();
    let start = Instant::now();
    let deadline = tokio::time::Instant::from_std(start + duration);
    let mut running = Vec::with_capacity(clients.len());
    for client in clients {
        running.push(tokio::spawn(async move {
            let arguments = echo_arguments();
            let mut times = Vec::new();
            let mut error = None;
            while tokio::time::Instant::now() < deadline {
                let begun = Instant::now();
                match client.call_tool("echo", arguments.clone()).await {
                    Ok(reply) if !is_error(&reply) => times.push(begun.elapsed()),
                    Ok(reply) => {
                        error = Some(format!("echo failed: {reply}"));
                        break;
                    }
                    Err(e) => {
                        error = Some(e.to_string());
                        break;
                    }
                }
            }
            client.close().await;
            (times, error)
        }));
    }
    for task in running {
        let (times, error) = task.await.expect("the client task ends");
        result.calls += times.len();
        result.times.extend(times);
        if let Some(e) = error {
            result.failed += 1;
            result.first_error.get_or_insert(e);
        }
    }
    // The phase lasts `duration`, plus the last calls in flight.
    result.elapsed = start.elapsed().min(duration + Duration::from_millis(500));
    result.times.sort_unstable();
    result
}

/// `mcp-server-everything streamableHttp` on a free port of 127.0.0.1. The server listens on
/// every interface and takes only its port from the environment (`PORT`), so a preloaded
/// script (`NODE_OPTIONS=--require`) gives its `listen` the loopback address.
async fn everything_over_http(work: &Path) -> (tokio::process::Child, String) {
    let preload = work.join("loopback.cjs");
    std::fs::write(
        &preload,
        "const net = require('net');\n\
         const listen = net.Server.prototype.listen;\n\
         net.Server.prototype.listen = function (...args) {\n\
         \x20 if (/^[0-9]+$/.test(String(args[0])) && typeof args[1] !== 'string') {\n\
         \x20   args.splice(1, 0, '127.0.0.1');\n\
         \x20 }\n\
         \x20 return listen.apply(this, args);\n\
         };\n",
    )
    .expect("the preload script writes");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut child = tokio::process::Command::new(SERVER)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env(
            "NODE_OPTIONS",
            format!("--require {}", preload.to_str().expect("a UTF-8 path")),
        )
        // It logs a line on stdout for every request: not read, not kept.
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mcp-server-everything starts");
    wait_for_line(&mut child, "listening on port").await;
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// `toolwright-proxy --http 127.0.0.1:0` over the pinned HTTP server, and its URL.
async fn proxy_binary_over_http(manifests: &Path) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(PROXY)
        .arg("--manifests")
        .arg(manifests)
        .args(["--http", "127.0.0.1:0"])
        // The bench's 50 clients share no token: one limit for all of them would measure it.
        .args(["--rate-limit", "1000000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("toolwright-proxy starts");
    let line = wait_for_line(&mut child, "listening on ").await;
    let url = line
        .split_once("listening on ")
        .map(|(_, url)| url.trim().to_owned())
        .expect("the proxy's URL");
    (child, url)
}

/// Reads the child's stderr up to a line holding `needle` and returns it; the rest of stderr is
/// drained in the background so that the child never blocks on a full pipe.
async fn wait_for_line(child: &mut tokio::process::Child, needle: &str) -> String {
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let found = tokio::time::timeout(START_LIMIT, async {
        while let Some(line) = lines.next_line().await.expect("stderr reads") {
            if line.contains(needle) {
                return line;
            }
        }
        panic!("the server exited before saying {needle:?}");
    })
    .await
    .expect("the server starts in time");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    found
}

// ---------------------------------------------------------------------------------------------
// Shared

/// Pins every tool `server` lists into `dir`, `echo` declared read-only and the others
/// destructive (the proxy compares every pinned tool with its live definition, as in use).
async fn pin(dir: &Path, server: &Endpoint, pinned_as: toolwright_core::Endpoint) {
    let upstream = connect(server).await;
    let tools = upstream
        .list_tools()
        .await
        .expect("the server lists its tools");
    upstream.close().await;
    let reading = import::pinned(tools, "everything", &pinned_as, false).expect("a valid pin");
    let names: Vec<(String, String)> = reading
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.source_name.clone()))
        .collect();
    assert!(
        names.iter().any(|(name, _)| name == "echo"),
        "the server has an echo tool"
    );
    let outcome = import::write(reading, dir, false);
    assert_eq!(outcome.skipped, 0, "{:?}", outcome.report);
    for (name, upstream_name) in &names {
        let safety = if upstream_name == "echo" {
            Safety::ReadOnly
        } else {
            Safety::Destructive
        };
        pinning::declare_safety(&dir.join(format!("{name}.toml")), safety);
    }
}

fn command(program: &str, args: &[&str]) -> Endpoint {
    Endpoint::Command {
        program: program.to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: Vec::new(),
    }
}

async fn connect(endpoint: &Endpoint) -> Upstream {
    Upstream::connect_with_timeout(endpoint, START_LIMIT)
        .await
        .expect("the server starts and completes the handshake")
}

fn echo_arguments() -> Map<String, Value> {
    let Value::Object(arguments) =
        json!({"message": "the quick brown fox jumps over the lazy dog"})
    else {
        unreachable!("an object literal")
    };
    arguments
}

async fn echo(client: &Upstream, arguments: Map<String, Value>) {
    let reply = client
        .call_tool("echo", arguments)
        .await
        .expect("echo is answered");
    assert!(!is_error(&reply), "echo failed: {reply}");
}

fn is_error(reply: &Value) -> bool {
    reply.get("isError").and_then(Value::as_bool) == Some(true)
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index]
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn micros(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}
