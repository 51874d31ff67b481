//! Many instances, one Redis: three `chart-tools mcp --http … --store redis://…` processes
//! sharing one `redis-server` (started by each test on a loopback port of its own, and stopped
//! with it), behind a round-robin client.
//!
//! - 1,000 deferred approvals, 10,000 racing resume attempts spread across the instances, one
//!   instance killed during the run: every approval is claimed once, no call runs twice, each
//!   runs with its approved arguments (counted from the spans every instance writes to its own
//!   log, `--trace json --trace-content`: one span with `tool.state_changed` per call that ran),
//!   and every approval runs but those the killed instance had claimed and not yet run when it
//!   died: at most once means such an approval is used up, never run again elsewhere (their
//!   number is printed; it is at most the attempts in flight when the instance was killed);
//! - a limit of 100 requests a minute per token admits at most 100 plus the burst across the
//!   three instances;
//! - Redis stopped: approvals fail closed (nothing runs), requests get `503` with `Retry-After`
//!   (or this instance's own limit with `--store-outage admit-locally`);
//! - a session opened by one token is refused to another on every instance, and restored for
//!   its own token on another instance;
//! - the Redis commands of one approved call (docs/performance.md).
//!
//! Needs `redis-server` (skipped without it, unless `CI` or `TOOLWRIGHT_TEST_REDIS` is set:
//! then it fails).

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use serde_json::{Value, json};

const TOKEN_A: &str = "fleet-token-a-0123456789abcdef0123456789";
const TOKEN_B: &str = "fleet-token-b-0123456789abcdef0123456789";

/// How long a process may take to start, at most.
const START_LIMIT: Duration = Duration::from_secs(20);

/// A free port on loopback (bound, then released for the process that binds it next).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// One command to the Redis on `port` (RESP), its reply as text: a status, an integer, or a
/// bulk string.
fn redis_command(port: u16, args: &[&str]) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut request = format!("*{}\r\n", args.len());
    for arg in args {
        request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
    }
    stream.write_all(request.as_bytes())?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let line = line.trim_end().to_owned();
    match line.strip_prefix('$') {
        Some(len) => {
            let len: usize = len.parse().unwrap_or(0);
            let mut body = vec![0; len + 2];
            reader.read_exact(&mut body)?;
            body.truncate(len);
            Ok(String::from_utf8_lossy(&body).into_owned())
        }
        None => Ok(line),
    }
}

/// A `redis-server` of the test's own, on loopback, without persistence; stopped when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    /// `None` (the test is skipped) when there is no `redis-server`, outside CI.
    fn start(dir: &Path) -> Option<Redis> {
        let present = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !present {
            assert!(
                std::env::var_os("CI").is_none()
                    && std::env::var_os("TOOLWRIGHT_TEST_REDIS").is_none(),
                "redis-server is not installed, and the Redis tests must run here"
            );
            eprintln!("skipped: redis-server is not installed");
            return None;
        }
        let port = free_port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let redis = Redis { child, port };
        let started = Instant::now();
        while redis_command(port, &["PING"]).map_or(true, |r| r != "+PONG") {
            assert!(started.elapsed() < START_LIMIT, "redis-server answers");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(redis)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// How many times Redis ran each command (`INFO commandstats`).
    fn commands(&self) -> BTreeMap<String, u64> {
        let info = redis_command(self.port, &["INFO", "commandstats"]).expect("INFO answers");
        info.lines()
            .filter_map(|line| {
                let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
                let calls = stats.split(',').next()?.strip_prefix("calls=")?;
                Some((name.to_owned(), calls.parse().ok()?))
            })
            .collect()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The files every instance shares: the tokens and the sealing key.
fn shared_files(dir: &Path) {
    let tokens = format!(
        "[[token]]\nname = \"a\"\ntoken = \"{TOKEN_A}\"\ngrant = \"write\"\n\n\
         [[token]]\nname = \"b\"\ntoken = \"{TOKEN_B}\"\ngrant = \"write\"\n"
    );
    std::fs::write(dir.join("tokens.toml"), tokens).expect("the tokens file");
    std::fs::write(
        dir.join("seal.key"),
        "a-sealing-key-of-the-fleet-tests-0123456789abcdef\n",
    )
    .expect("the key file");
}

/// One `chart-tools mcp --http` process, its spans in its own log; killed when dropped.
struct Instance {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Instance {
    fn start(dir: &Path, name: &str, redis: &str, extra: &[&str]) -> Instance {
        let log = dir.join(format!("{name}.log"));
        let stderr = std::fs::File::create(&log).expect("the log file");
        let child = Command::new(env!("CARGO_BIN_EXE_chart-tools"))
            .args(["mcp", "--http", "127.0.0.1:0", "--approval", "defer"])
            .arg("--tokens")
            .arg(dir.join("tokens.toml"))
            .arg("--seal-key-file")
            .arg(dir.join("seal.key"))
            .args(["--store", redis, "--trace", "json", "--trace-content"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("chart-tools starts");
        let mut instance = Instance {
            child,
            url: String::new(),
            log,
        };
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(&instance.log).unwrap_or_default();
            if let Some(url) = text.lines().find_map(|l| l.strip_prefix("listening on ")) {
                instance.url = url.trim().to_owned();
                return instance;
            }
            if let Ok(Some(status)) = instance.child.try_wait() {
                panic!("chart-tools exited ({status}): {text}");
            }
            assert!(started.elapsed() < START_LIMIT, "chart-tools listens");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The arguments of the `drawing_create` call of approval `n`.
fn drawing(n: usize) -> Value {
    json!({
        "pane_id": "main",
        "kind": "horizontal_line",
        "anchors": [{"time": 1735776000, "price": 182.5}],
        "text": format!("approved {n}")
    })
}

/// The calls that ran in `instances`: the arguments of each span of `drawing_create` that
/// changed state, from every log.
fn executed(logs: &[&Path]) -> Vec<Value> {
    let mut calls = Vec::new();
    for log in logs {
        let text = std::fs::read_to_string(log).expect("the log reads");
        for line in text.lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let span = &record["span"];
            let changed = span["tool.state_changed"] == json!(true)
                || span["tool.state_changed"] == json!("true");
            if span["name"] == "execute_tool"
                && span["gen_ai.tool.name"] == "drawing_create"
                && changed
            {
                let arguments = span["gen_ai.tool.call.arguments"]
                    .as_str()
                    .and_then(|a| serde_json::from_str(a).ok())
                    .expect("the span records the arguments");
                calls.push(arguments);
            }
        }
    }
    calls
}

/// A stateless `tools/call` of `drawing_create` by a client that answers elicitations, with
/// `retry`'s fields (`requestState`, `inputResponses`) when it is a retry.
fn call(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    n: usize,
    retry: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut params = json!({
        "name": "drawing_create",
        "arguments": drawing(n),
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        }
    });
    if let Some(state) = retry {
        params["requestState"] = json!(state);
        params["inputResponses"] =
            json!({"approval": {"action": "accept", "content": {"approve": true}}});
    }
    let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params});
    client
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "drawing_create")
        .timeout(Duration::from_secs(30))
        .body(body.to_string())
}

/// A stateless `tools/list`.
fn list(client: &reqwest::Client, url: &str, token: &str) -> reqwest::RequestBuilder {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    client
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .timeout(Duration::from_secs(30))
        .body(body.to_string())
}

async fn result(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    let answer: Value =
        serde_json::from_str(&response.text().await.expect("a body")).expect("a JSON answer");
    answer["result"].clone()
}

/// Asks approval `n` at `url`: its sealed state.
async fn ask(client: &reqwest::Client, url: &str, n: usize) -> String {
    let asked = result(
        call(client, url, TOKEN_A, n, None)
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    asked["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Approvals, and the resume attempts racing for them (ten each).
const APPROVALS: usize = 1_000;
const ATTEMPTS: usize = 10_000;

/// Resume attempts in flight at once.
const IN_FLIGHT: usize = 48;

#[test]
fn racing_resumes_across_three_instances_run_each_approval_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(redis) = Redis::start(dir.path()) else {
        return;
    };
    shared_files(dir.path());
    let high = ["--rate-limit", "100000", "--burst", "100000"];
    let mut instances: Vec<Instance> = (0..3)
        .map(|i| Instance::start(dir.path(), &format!("race-{i}"), &redis.url(), &high))
        .collect();
    let urls: Vec<String> = instances.iter().map(|i| i.url.clone()).collect();
    let logs: Vec<PathBuf> = instances.iter().map(|i| i.log.clone()).collect();
    let logs: Vec<&Path> = logs.iter().map(PathBuf::as_path).collect();
    let runtime = runtime();
    let client = reqwest::Client::new();

    let states: Vec<String> = runtime.block_on(async {
        futures_util::stream::iter(0..APPROVALS)
            .map(|n| {
                let (client, url) = (client.clone(), urls[n % urls.len()].clone());
                async move { ask(&client, &url, n).await }
            })
            .buffered(IN_FLIGHT)
            .collect()
            .await
    });
    assert!(executed(&logs).is_empty(), "asking runs nothing");

    // Ten attempts per approval, in an order that spreads them (a fixed permutation), each to
    // the next instance in turn; an attempt reaching the killed instance goes to the next one.
    let order: Vec<usize> = (0..ATTEMPTS).map(|i| (i * 7_919) % ATTEMPTS).collect();
    let done = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let victim = instances.remove(2);
    let victim = Arc::new(std::sync::Mutex::new(Some(victim)));
    let started = Instant::now();
    runtime.block_on(async {
        futures_util::stream::iter(order.into_iter().enumerate())
            .map(|(turn, attempt)| {
                let n = attempt % APPROVALS;
                let state = states[n].clone();
                let (client, urls) = (client.clone(), urls.clone());
                let (done, ran, victim) =
                    (Arc::clone(&done), Arc::clone(&ran), Arc::clone(&victim));
                async move {
                    if done.load(Ordering::Relaxed) >= ATTEMPTS / 3
                        && let Some(mut instance) = victim.lock().expect("lock").take()
                    {
                        instance.kill();
                    }
                    for hop in 0..urls.len() {
                        let url = &urls[(turn + hop) % urls.len()];
                        let Ok(response) =
                            call(&client, url, TOKEN_A, n, Some(&state)).send().await
                        else {
                            continue;
                        };
                        let Ok(text) = response.text().await else {
                            continue;
                        };
                        let answer: Value = serde_json::from_str(&text).expect("a JSON answer");
                        let envelope = &answer["result"]["structuredContent"];
                        if envelope["success"] == true {
                            ran.fetch_add(1, Ordering::Relaxed);
                        }
                        break;
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect::<Vec<()>>()
            .await;
    });
    let elapsed = started.elapsed();
    assert!(
        victim.lock().expect("lock").is_none(),
        "an instance was killed during the run"
    );
    eprintln!(
        "{ATTEMPTS} resume attempts over {APPROVALS} approvals across 3 instances (one killed): {elapsed:?}"
    );
    let calls = executed(&logs);
    let mut texts: Vec<String> = calls
        .iter()
        .map(|c| c["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), calls.len(), "no approval ran twice");
    // Every approval was claimed, once: one key each in the shared store.
    let claimed = redis_command(
        redis.port,
        &[
            "EVAL",
            "return #redis.call('KEYS', ARGV[1])",
            "0",
            "toolwright:approval:*",
        ],
    )
    .expect("Redis answers");
    assert_eq!(
        claimed,
        format!(":{APPROVALS}"),
        "every approval was claimed"
    );
    // An approval claimed by the killed instance between its claim and its run is used up
    // (at most once): it never runs elsewhere. Only attempts in flight at the kill can be one.
    let lost = APPROVALS - calls.len();
    eprintln!(
        "{} approvals ran; {lost} were claimed by the killed instance and died with it",
        calls.len()
    );
    assert!(lost <= IN_FLIGHT, "{lost} approvals did not run");
    for call in &calls {
        let n: usize = call["text"]
            .as_str()
            .and_then(|t| t.strip_prefix("approved "))
            .and_then(|n| n.parse().ok())
            .expect("an approval's text");
        assert_eq!(call, &drawing(n), "each ran with its approved arguments");
    }
    assert!(ran.load(Ordering::Relaxed) <= APPROVALS);
}

#[test]
fn a_limit_of_100_a_minute_holds_across_three_instances() {
    const BURST: usize = 10;
    const REQUESTS: usize = 300;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(redis) = Redis::start(dir.path()) else {
        return;
    };
    shared_files(dir.path());
    let limit = [
        "--rate-limit",
        "100",
        "--rate-per",
        "minute",
        "--burst",
        "10",
    ];
    let instances: Vec<Instance> = (0..3)
        .map(|i| Instance::start(dir.path(), &format!("limit-{i}"), &redis.url(), &limit))
        .collect();
    let client = reqwest::Client::new();
    let started = Instant::now();
    let statuses: Vec<(u16, Option<String>)> = runtime().block_on(async {
        futures_util::stream::iter(0..REQUESTS)
            .map(|i| {
                let request = list(&client, &instances[i % 3].url, TOKEN_A);
                async move {
                    let response = request.send().await.expect("an answer");
                    let retry = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    (response.status().as_u16(), retry)
                }
            })
            .buffer_unordered(8)
            .collect()
            .await
    });
    let elapsed = started.elapsed().as_secs_f64();
    let admitted = statuses.iter().filter(|(s, _)| *s == 200).count();
    let refused: Vec<_> = statuses.iter().filter(|(s, _)| *s == 429).collect();
    assert_eq!(admitted + refused.len(), REQUESTS, "{statuses:?}");
    assert!(
        refused.iter().all(|(_, retry)| retry.is_some()),
        "429 says when to retry"
    );
    // The budget: the burst, and 100 a minute since the first request (one in flight more).
    let budget = BURST + (elapsed * 100.0 / 60.0).ceil() as usize + 1;
    assert!(
        (BURST..=budget).contains(&admitted),
        "{admitted} admitted in {elapsed:.1}s, at most {budget} allowed"
    );
    // Another token has a budget of its own.
    let other = runtime().block_on(async {
        list(&client, &instances[1].url, TOKEN_B)
            .send()
            .await
            .expect("an answer")
            .status()
    });
    assert_eq!(other, 200);
}

#[test]
fn with_redis_stopped_approvals_fail_closed_and_requests_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(mut redis) = Redis::start(dir.path()) else {
        return;
    };
    shared_files(dir.path());
    let refusing = Instance::start(dir.path(), "outage-refuse", &redis.url(), &[]);
    let admitting = Instance::start(
        dir.path(),
        "outage-admit",
        &redis.url(),
        &["--store-outage", "admit-locally"],
    );
    let client = reqwest::Client::new();
    let runtime = runtime();
    let states: Vec<String> = runtime.block_on(async {
        let mut states = Vec::new();
        for n in 0..4 {
            let url = if n % 2 == 0 {
                &refusing.url
            } else {
                &admitting.url
            };
            states.push(ask(&client, url, n).await);
        }
        states
    });
    redis.stop();

    runtime.block_on(async {
        for (n, state) in states.iter().enumerate() {
            // The default: 503 with Retry-After, before anything is looked at.
            let response = call(&client, &refusing.url, TOKEN_A, n, Some(state))
                .send()
                .await
                .expect("an answer");
            assert_eq!(response.status(), 503);
            assert_eq!(
                response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()),
                Some("1")
            );
            // Admitted on the instance's own limit: the claim cannot be made, nothing runs.
            let answer = result(
                call(&client, &admitting.url, TOKEN_A, n, Some(state))
                    .send()
                    .await
                    .expect("an answer"),
            )
            .await;
            assert_eq!(answer["isError"], true, "{answer}");
            assert_eq!(answer["structuredContent"]["success"], false, "{answer}");
        }
    });
    assert!(
        executed(&[&refusing.log, &admitting.log]).is_empty(),
        "nothing ran while the store was unreachable"
    );
}

/// A request of the 2025-06-18 protocol in `session` (none for `initialize`).
fn in_session(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let request = client
        .post(url)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .timeout(Duration::from_secs(30))
        .body(body.to_string());
    match session {
        Some(id) => request.header("mcp-session-id", id),
        None => request,
    }
}

#[test]
fn a_session_belongs_to_its_token_on_every_instance() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(redis) = Redis::start(dir.path()) else {
        return;
    };
    shared_files(dir.path());
    let instances: Vec<Instance> = (0..3)
        .map(|i| Instance::start(dir.path(), &format!("session-{i}"), &redis.url(), &[]))
        .collect();
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}
        });
        let response = in_session(&client, &instances[0].url, TOKEN_A, None, &initialize)
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), 200);
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = in_session(
            &client,
            &instances[0].url,
            TOKEN_A,
            Some(&session),
            &initialized,
        )
        .send()
        .await
        .expect("an answer");
        assert_eq!(response.status(), 202);

        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        for instance in &instances {
            let stolen = in_session(&client, &instance.url, TOKEN_B, Some(&session), &list)
                .send()
                .await
                .expect("an answer");
            assert_eq!(
                stolen.status(),
                404,
                "another token's session, on {}",
                instance.url
            );
        }
        // Its own token reaches it on another instance: restored there.
        let own = in_session(&client, &instances[2].url, TOKEN_A, Some(&session), &list)
            .send()
            .await
            .expect("an answer");
        assert_eq!(own.status(), 200);
        let text = own.text().await.expect("a body");
        assert!(text.contains("drawing_create"), "{text}");
    });
}

#[test]
fn an_approved_call_costs_two_redis_commands() {
    const CALLS: usize = 50;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(redis) = Redis::start(dir.path()) else {
        return;
    };
    shared_files(dir.path());
    let instance = Instance::start(
        dir.path(),
        "round-trips",
        &redis.url(),
        &["--rate-limit", "1000"],
    );
    let client = reqwest::Client::new();
    let runtime = runtime();
    let states: Vec<String> = runtime.block_on(async {
        let mut states = Vec::new();
        for n in 0..CALLS {
            states.push(ask(&client, &instance.url, n).await);
        }
        states
    });
    let before = redis.commands();
    runtime.block_on(async {
        for (n, state) in states.iter().enumerate() {
            let answer = result(
                call(&client, &instance.url, TOKEN_A, n, Some(state))
                    .send()
                    .await
                    .expect("an answer"),
            )
            .await;
            assert_eq!(answer["structuredContent"]["success"], true, "{answer}");
        }
    });
    let after = redis.commands();
    let spent =
        |name: &str| after.get(name).copied().unwrap_or(0) - before.get(name).copied().unwrap_or(0);
    // `INFO commandstats` counts the commands a script runs too: the admission script runs
    // `TIME` and `GET`, and `SET` once per admitted request (every request here), and `HGET`
    // and `EXPIRE` for a session (none here). What remains are the clients' round trips.
    let scripts = spent("evalsha") + spent("eval");
    let inside = spent("time") + spent("get") + spent("hget") + spent("expire") + scripts;
    let total: u64 = after.keys().map(|name| spent(name)).sum();
    let round_trips = total - inside - spent("info");
    let per_call = round_trips as f64 / CALLS as f64;
    eprintln!(
        "redis round trips per approved call (its retry): {per_call:.2}; commands: {:?}",
        after
            .keys()
            .map(|name| (name.clone(), spent(name)))
            .filter(|(_, n)| *n > 0)
            .collect::<Vec<_>>()
    );
    assert!(per_call <= 2.0, "{per_call} round trips per approved call");
}
