//! Approval stores: exactly one claim wins per approval, among many tasks and among several
//! processes (a ledger file, a real Redis); a store that cannot answer fails closed.
//!
//! The Redis tests read `TOOLWRIGHT_TEST_REDIS` (a `redis://` URL of a Redis they may write
//! to; `.ci/run` starts one). Without it they are skipped, saying so, unless `CI` is set: then
//! they fail. The test of a Redis stopped mid-run starts a `redis-server` of its own on a free
//! loopback port.

mod home_tools;

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use home_tools::{Home, registry, runtime};
use serde_json::{Value, json};
use toolwright_runtime::approval::{
    ApprovalStore, Claim, Decision, Decisions, FileApprovalStore, MemoryApprovalStore,
    PendingApproval,
};
use toolwright_runtime::batch::{BatchOutcome, PausedBatch};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError, ToolResult};

/// Tasks that race for each approval, and approvals, in the races within one process.
const TASKS: usize = 64;
const APPROVALS: usize = 200;

/// Processes that race for each approval, and approvals, in the races between processes.
const PROCESSES: usize = 4;
const PROCESS_APPROVALS: usize = 1_000;

/// How long the processes of one race may take, at most.
const PROCESS_DEADLINE: Duration = Duration::from_secs(300);

/// The environment of a child process of a race (see [`claim_child`]).
const CHILD: &str = "TOOLWRIGHT_CLAIM_CHILD";
const CHILD_BATCHES: &str = "TOOLWRIGHT_CLAIM_BATCHES";
const CHILD_LOG: &str = "TOOLWRIGHT_CLAIM_LOG";
const CHILD_STORE: &str = "TOOLWRIGHT_CLAIM_STORE";
const CHILD_ROTATE: &str = "TOOLWRIGHT_CLAIM_ROTATE";

/// One thread, with the time and I/O drivers (a Redis connection needs both).
fn io_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// `count` approvals of distinct calls, valid for an hour.
fn approvals(count: usize) -> Vec<PendingApproval> {
    let expires_at = unix_now() + 3_600;
    (0..count)
        .map(|i| {
            PendingApproval::new(
                0,
                format!("c{i}"),
                "send_email",
                json!({"to": "bob@email.com", "body": format!("message {i}")}),
                expires_at,
            )
        })
        .collect()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Every task claims every approval (each in its own order); the wins of each approval.
async fn race(store: Arc<dyn ApprovalStore>, tasks: usize, count: usize) -> Vec<usize> {
    let approvals = Arc::new(approvals(count));
    let wins: Arc<Vec<AtomicUsize>> = Arc::new((0..count).map(|_| AtomicUsize::new(0)).collect());
    let taken = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(tokio::sync::Barrier::new(tasks));
    let handles: Vec<_> = (0..tasks)
        .map(|task| {
            let (store, approvals, wins, taken, start) = (
                Arc::clone(&store),
                Arc::clone(&approvals),
                Arc::clone(&wins),
                Arc::clone(&taken),
                Arc::clone(&start),
            );
            tokio::spawn(async move {
                start.wait().await;
                let now = SystemTime::now();
                for k in 0..approvals.len() {
                    let i = (k + task * 7) % approvals.len();
                    match store.claim(&approvals[i], now).await {
                        Ok(Claim::Won) => {
                            wins[i].fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(Claim::Taken) => {
                            taken.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(e) => panic!("the store did not answer: {e}"),
                    }
                }
            })
        })
        .collect();
    for handle in handles {
        handle.await.expect("a task ran to its end");
    }
    assert_eq!(
        taken.load(Ordering::SeqCst),
        tasks * count - count,
        "every claim but the first of each approval is refused"
    );
    wins.iter().map(|w| w.load(Ordering::SeqCst)).collect()
}

fn assert_one_winner_each(wins: &[usize]) {
    let wrong: Vec<(usize, usize)> = wins
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, w)| *w != 1)
        .collect();
    assert!(
        wrong.is_empty(),
        "approvals won other than once (index, wins): {wrong:?}"
    );
}

#[test]
fn memory_claims_racing_from_many_tasks_have_one_winner() {
    let store = Arc::new(MemoryApprovalStore::new());
    let wins = multi_thread().block_on(race(store.clone(), TASKS, APPROVALS));
    assert_one_winner_each(&wins);
    assert_eq!(store.len(), APPROVALS);
}

#[test]
fn file_claims_racing_from_many_tasks_have_one_winner() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("approvals.json");
    let store = Arc::new(FileApprovalStore::new(&path));
    let wins = multi_thread().block_on(race(store.clone(), TASKS, APPROVALS));
    assert_one_winner_each(&wins);
    let ledger = runtime()
        .block_on(store.ledger())
        .expect("the ledger reads");
    assert_eq!(ledger.len(), APPROVALS);
    // Only the ledger and its lock are left: every temporary file was renamed.
    let mut names: Vec<String> = std::fs::read_dir(folder.path())
        .expect("the folder lists")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(names, ["approvals.json", "approvals.json.lock"]);
}

#[test]
fn two_stores_on_one_file_are_one_ledger() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("approvals.json");
    let (first, second) = (FileApprovalStore::new(&path), FileApprovalStore::new(&path));
    let approval = &approvals(1)[0];
    let now = SystemTime::now();
    let rt = runtime();
    assert_eq!(rt.block_on(first.claim(approval, now)), Ok(Claim::Won));
    assert_eq!(rt.block_on(second.claim(approval, now)), Ok(Claim::Taken));
    assert_eq!(
        rt.block_on(second.is_claimed(&approval.approval_id)),
        Ok(true)
    );
    assert_eq!(rt.block_on(first.is_claimed("0123")), Ok(false));
}

// ---- resumes through the registry ----

fn defer_all() -> RunPolicy {
    RunPolicy::full().with_approval(|_| Decision::Defer)
}

fn email(id: &str, body: &str) -> ToolCall {
    ToolCall::new(
        id,
        "send_email",
        json!({"to": "bob@email.com", "body": body}),
    )
}

fn time(id: &str) -> ToolCall {
    ToolCall::new(id, "get_time", json!({"timezone": "UTC"}))
}

fn paused_message(policy: &RunPolicy, home: &mut Home, calls: &[ToolCall]) -> PausedBatch {
    runtime()
        .block_on(registry().run_batch(policy, home, calls))
        .paused()
        .expect("the batch waits for a person")
}

fn approve_all(paused: &PausedBatch) -> Decisions {
    paused
        .pending()
        .iter()
        .map(|p| (p.approval_id.clone(), Decision::Approve))
        .collect()
}

fn message(result: &ToolResult) -> &str {
    result.error().map_or("", |e| e.message.as_str())
}

#[test]
fn a_damaged_ledger_file_fails_closed_and_is_left_as_it_is() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("approvals.json");
    std::fs::write(&path, "{\"decided\": [").expect("written");
    let store = FileApprovalStore::new(&path);
    let policy = defer_all();
    let mut home = Home::default();
    let paused = paused_message(&policy, &mut home, &[email("c1", "Hi bob"), time("c2")]);
    let decisions = approve_all(&paused);
    let results = runtime()
        .block_on(registry().resume_batch(&policy, &mut home, paused, &decisions, &store))
        .complete()
        .expect("every call is answered");
    let error = results[0].error().expect("the resume failed");
    assert_eq!(error.code, "TOOL_FAILED");
    assert!(error.retryable, "{error:?}");
    assert!(!results[0].state_changed());
    assert!(
        error.message.starts_with(&format!(
            "The approval of the call to `send_email` could not be claimed: the approval ledger `{}` is damaged (",
            path.display()
        )),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .ends_with("The approval was not used and the call was not run; it can be retried."),
        "{}",
        error.message
    );
    assert_eq!(
        message(&results[1]),
        "The call to `get_time` was not run: it waited behind a call to `send_email` whose approval was refused."
    );
    assert!(home.ran().is_empty(), "nothing ran: {:?}", home.ran());
    assert_eq!(
        std::fs::read_to_string(&path).expect("still there"),
        "{\"decided\": [",
        "a damaged ledger is never reset"
    );
}

#[test]
fn a_store_claims_only_what_the_policy_allows() {
    let folder = tempfile::tempdir().expect("a folder");
    let store = FileApprovalStore::new(folder.path().join("approvals.json"));
    let policy = defer_all();
    let mut home = Home::default();
    let paused = paused_message(&policy, &mut home, &[email("c1", "Hi bob")]);
    let decisions = approve_all(&paused);
    let rt = runtime();
    let read_only = rt
        .block_on(registry().resume_batch(
            &RunPolicy::read_only(),
            &mut home,
            paused.clone(),
            &decisions,
            &store,
        ))
        .complete()
        .expect("answered");
    assert_eq!(read_only[0].code(), Some("TOOL_NOT_ALLOWED"));
    let id = paused.pending()[0].approval_id.clone();
    assert_eq!(
        rt.block_on(store.is_claimed(&id)),
        Ok(false),
        "a refused call leaves its approval unused"
    );
    let results = rt
        .block_on(registry().resume_batch(&policy, &mut home, paused, &decisions, &store))
        .complete()
        .expect("answered");
    assert!(results[0].is_success(), "{:?}", results[0]);
    assert_eq!(rt.block_on(store.is_claimed(&id)), Ok(true));
}

// ---- several processes: a test binary that runs itself ----

static LOG_APPEND: ToolMeta = ToolMeta::new(
    "log_append",
    Safety::Destructive,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0},"text":{"type":"string"}},"required":["n","text"],"additionalProperties":false}"#,
    ),
)
.title("Append to the log")
.description("Appends its arguments to the log file, one line per call.")
.source("tests/approval_stores.rs");

/// The log every process appends to: the side effect the races count.
struct Log {
    path: PathBuf,
}

fn log_append<'a>(log: &'a Log, arguments: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let line = format!("{arguments}\n");
        // One write of a short line to a file opened for appending: lines never interleave.
        let written = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log.path)
            .and_then(|mut file| file.write_all(line.as_bytes()));
        match written {
            Ok(()) => Ok(ToolOutput {
                data: json!({"logged": arguments["n"]}).into(),
                state_changed: true,
            }),
            Err(e) => Err(ToolError::Failed(format!("cannot append to the log: {e}"))),
        }
    })
}

fn log_registry() -> Registry<Log> {
    Registry::builder()
        .tool(ToolDef {
            meta: &LOG_APPEND,
            handler: Handler::Shared(log_append),
        })
        .build()
        .expect("the log tool builds")
}

/// `count` messages of one call each, paused for a person, written to `path`; the arguments of
/// each approval by its `n`.
fn paused_log_messages(path: &Path, count: usize) -> BTreeMap<u64, Value> {
    let registry = log_registry();
    let policy = defer_all();
    // Nothing runs while the messages pause.
    let mut ctx = Log {
        path: PathBuf::from("unused"),
    };
    let rt = runtime();
    let mut batches = Vec::with_capacity(count);
    let mut approved = BTreeMap::new();
    for n in 0..count {
        let arguments = json!({"n": n, "text": format!("approved {n}")});
        let calls = [ToolCall::new(
            format!("call_{n}"),
            "log_append",
            arguments.clone(),
        )];
        let BatchOutcome::Paused(paused) =
            rt.block_on(registry.run_batch(&policy, &mut ctx, &calls))
        else {
            panic!("message {n} did not pause");
        };
        batches.push(paused);
        approved.insert(n as u64, arguments);
    }
    std::fs::write(path, serde_json::to_vec(&batches).expect("serializes")).expect("written");
    approved
}

/// A process of a race: resumes every saved message (approving each), in its own order,
/// claiming in the store its environment names. Run by the races, never on its own.
#[test]
#[ignore = "a child process of the races between processes: they run it"]
fn claim_child() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: this test is run by the races between processes, with `{CHILD}` set"))
    };
    assert_eq!(var(CHILD), "1");
    let batches: Vec<PausedBatch> =
        serde_json::from_slice(&std::fs::read(var(CHILD_BATCHES)).expect("the batches read"))
            .expect("the batches parse");
    let rotate: usize = var(CHILD_ROTATE).parse().expect("a number");
    let spec = var(CHILD_STORE);
    let registry = log_registry();
    let policy = defer_all();
    let mut log = Log {
        path: PathBuf::from(var(CHILD_LOG)),
    };
    multi_thread().block_on(async {
        let store: Box<dyn ApprovalStore> = match spec.split_once(':') {
            Some(("file", path)) => Box::new(FileApprovalStore::new(path)),
            #[cfg(feature = "redis")]
            Some(("redis", rest)) => {
                let (url, prefix) = rest.split_once(' ').expect("a URL and a prefix");
                Box::new(
                    toolwright_runtime::approval::RedisApprovalStore::connect(url)
                        .await
                        .expect("Redis answers")
                        .with_prefix(prefix),
                )
            }
            _ => panic!("an unknown store: {spec}"),
        };
        let count = batches.len();
        let mut batches: Vec<Option<PausedBatch>> = batches.into_iter().map(Some).collect();
        for k in 0..count {
            let i = (k + rotate * count / PROCESSES) % count;
            let Some(paused) = batches[i].take() else {
                continue;
            };
            let decisions = approve_all(&paused);
            let results = registry
                .resume_batch(&policy, &mut log, paused, &decisions, &*store)
                .await
                .complete()
                .expect("one call, decided");
            let result = &results[0];
            assert!(
                result.is_success() || result.code() == Some("TOOL_NOT_ALLOWED"),
                "run, or refused as already decided: {result:?}"
            );
        }
    });
}

/// Kills a child process when dropped (a race that panics leaves none behind).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Races `PROCESSES` processes over `PROCESS_APPROVALS` approvals in the store `spec`, and
/// checks the log: each approved call ran exactly once, with its approved arguments.
fn race_processes(spec: &str) {
    let folder = tempfile::tempdir().expect("a folder");
    let batches = folder.path().join("batches.json");
    let log = folder.path().join("calls.log");
    let approved = paused_log_messages(&batches, PROCESS_APPROVALS);
    let me = std::env::current_exe().expect("the test binary");
    let mut children: Vec<Reaped> = (0..PROCESSES)
        .map(|rotate| {
            Reaped(
                Command::new(&me)
                    .args([
                        "--ignored",
                        "--exact",
                        "claim_child",
                        "--nocapture",
                        "--test-threads=1",
                    ])
                    .env(CHILD, "1")
                    .env(CHILD_BATCHES, &batches)
                    .env(CHILD_LOG, &log)
                    .env(CHILD_STORE, spec)
                    .env(CHILD_ROTATE, rotate.to_string())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("the test binary starts"),
            )
        })
        .collect();
    let deadline = Instant::now() + PROCESS_DEADLINE;
    for child in &mut children {
        let status = loop {
            if let Some(status) = child.0.try_wait().expect("the child is there") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the processes did not finish in {PROCESS_DEADLINE:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        if let Some(mut pipe) = child.0.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        assert!(status.success(), "a process failed: {status}\n{stderr}");
    }
    let text = std::fs::read_to_string(&log).expect("the log was written");
    let mut ran: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for line in text.lines() {
        let arguments: Value = serde_json::from_str(line).expect("a logged call");
        let n = arguments["n"].as_u64().expect("its n");
        ran.entry(n).or_default().push(arguments);
    }
    let twice: Vec<&u64> = ran
        .iter()
        .filter(|(_, runs)| runs.len() != 1)
        .map(|(n, _)| n)
        .collect();
    assert!(twice.is_empty(), "calls that ran more than once: {twice:?}");
    assert_eq!(
        text.lines().count(),
        PROCESS_APPROVALS,
        "each approved call ran once"
    );
    for (n, arguments) in &approved {
        assert_eq!(
            ran.get(n).map(|runs| &runs[0]),
            Some(arguments),
            "call {n} ran with its approved arguments"
        );
    }
}

#[test]
fn processes_racing_on_one_ledger_file_run_each_approval_once() {
    let folder = tempfile::tempdir().expect("a folder");
    let ledger = folder.path().join("approvals.json");
    race_processes(&format!("file:{}", ledger.display()));
}

#[cfg(feature = "redis")]
mod redis {
    use std::net::{TcpListener, TcpStream};

    use toolwright_runtime::approval::RedisApprovalStore;

    use super::*;

    /// The Redis of the tests, or `None` (the test is skipped) when there is none outside CI.
    fn redis_url() -> Option<String> {
        match std::env::var("TOOLWRIGHT_TEST_REDIS") {
            Ok(url) if !url.is_empty() => Some(url),
            _ => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "TOOLWRIGHT_TEST_REDIS is not set, and CI is: the Redis tests must run in CI (.ci/run starts a redis-server)"
                );
                eprintln!(
                    "skipped: TOOLWRIGHT_TEST_REDIS is not set (the redis:// URL of a Redis the tests may write to)"
                );
                None
            }
        }
    }

    /// A key prefix no other run uses.
    fn fresh_prefix() -> String {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!("toolwright-test:{}:{nanos}:", std::process::id())
    }

    #[test]
    fn redis_claims_racing_from_many_tasks_have_one_winner() {
        let Some(url) = redis_url() else { return };
        let rt = multi_thread();
        let store = rt
            .block_on(RedisApprovalStore::connect(&url))
            .expect("Redis answers")
            .with_prefix(fresh_prefix());
        let wins = rt.block_on(race(Arc::new(store), TASKS, APPROVALS));
        assert_one_winner_each(&wins);
    }

    #[test]
    fn redis_keys_live_until_the_approval_expires_and_a_margin() {
        let Some(url) = redis_url() else { return };
        let rt = io_runtime();
        let prefix = fresh_prefix();
        let store = rt
            .block_on(RedisApprovalStore::connect(&url))
            .expect("Redis answers")
            .with_prefix(prefix.clone())
            .with_clock_skew(Duration::from_secs(10));
        // An approval of a policy whose clock is far in the past: the key's time to live is
        // counted from that clock, never from the Redis server's.
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let approval = PendingApproval::new(0, "c1", "send_email", json!({}), 1_060);
        assert_eq!(rt.block_on(store.claim(&approval, now)), Ok(Claim::Won));
        assert_eq!(rt.block_on(store.claim(&approval, now)), Ok(Claim::Taken));
        let key = store.key(&approval.approval_id);
        assert!(key.starts_with(&prefix), "{key}");
        let ttl: i64 = rt
            .block_on(async {
                let client = ::redis::Client::open(url.as_str())?;
                let mut connection = client.get_multiplexed_async_connection().await?;
                ::redis::cmd("TTL")
                    .arg(&key)
                    .query_async(&mut connection)
                    .await
            })
            .expect("TTL answers");
        assert!(
            (60..=70).contains(&ttl),
            "60 s left and 10 s of margin: {ttl}"
        );
    }

    #[test]
    fn processes_racing_on_one_redis_run_each_approval_once() {
        let Some(url) = redis_url() else { return };
        race_processes(&format!("redis:{url} {}", fresh_prefix()));
    }

    /// A `redis-server` of the test's own on a free loopback port.
    fn own_redis() -> Option<(Reaped, u16)> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_err()
        {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server is not installed, and CI is set (.ci/run installs it)"
            );
            eprintln!("skipped: redis-server is not installed");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        let server = Reaped(
            Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts"),
        );
        for _ in 0..200 {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some((server, port));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis-server did not listen on port {port} within 5 s");
    }

    #[test]
    fn a_redis_stopped_mid_run_fails_claims_closed() {
        let Some((mut server, port)) = own_redis() else {
            return;
        };
        let rt = io_runtime();
        let store = rt
            .block_on(RedisApprovalStore::connect_with_timeout(
                &format!("redis://127.0.0.1:{port}"),
                Duration::from_millis(500),
            ))
            .expect("Redis answers");
        let policy = defer_all();
        let mut home = Home::default();
        let first = paused_message(&policy, &mut home, &[email("c1", "before")]);
        let second = paused_message(&policy, &mut home, &[email("c2", "after"), time("c3")]);
        let ran = rt
            .block_on(registry().resume_batch(
                &policy,
                &mut home,
                first.clone(),
                &approve_all(&first),
                &store,
            ))
            .complete()
            .expect("answered");
        assert!(ran[0].is_success(), "{:?}", ran[0]);

        // Redis stops.
        server.0.kill().expect("redis-server stops");
        server.0.wait().expect("and exits");
        let results = rt
            .block_on(registry().resume_batch(
                &policy,
                &mut home,
                second.clone(),
                &approve_all(&second),
                &store,
            ))
            .complete()
            .expect("answered");
        let error = results[0].error().expect("the claim failed");
        assert_eq!(error.code, "TOOL_FAILED");
        assert!(error.retryable);
        assert!(!results[0].state_changed());
        assert!(
            error.message.starts_with(
                "The approval of the call to `send_email` could not be claimed: the approval store did not answer: "
            ),
            "{}",
            error.message
        );
        assert!(
            error.message.ends_with(
                "The approval was not used and the call was not run; it can be retried."
            ),
            "{}",
            error.message
        );
        assert_eq!(results[1].code(), Some("TOOL_NOT_ALLOWED"));
        assert_eq!(
            home.ran(),
            [(
                "send_email".to_owned(),
                json!({"to": "bob@email.com", "body": "before"})
            )],
            "nothing ran once Redis stopped"
        );
        // The same approval again, Redis still down: still nothing.
        let again = rt
            .block_on(registry().resume_batch(
                &policy,
                &mut home,
                second.clone(),
                &approve_all(&second),
                &store,
            ))
            .complete()
            .expect("answered");
        assert_eq!(again[0].code(), Some("TOOL_FAILED"));
        assert_eq!(home.ran().len(), 1);
    }
}
