//! The cost of the claim of an approval, per approved call, in the same run:
//!
//! - `approved_call/memory`: `Registry::resume_batch` of a paused message of one destructive call,
//!   approved, claimed in a `MemoryApprovalStore`, the call run (the baseline);
//! - `approved_call/file`: the same, claimed in a `FileApprovalStore` (a ledger file: a lock, a
//!   read, a write flushed to the disk, a rename);
//! - `approved_call/redis`: the same, claimed in a `RedisApprovalStore` (one `SET … NX EX`).
//!
//! Then the Redis round trips of one approved call: the commands Redis processed for 1,000
//! approved calls (`INFO` `total_commands_processed` and `commandstats`, before and after),
//! divided by 1,000.
//!
//! The Redis parts need `TOOLWRIGHT_TEST_REDIS` (a `redis://` URL of a Redis no one else uses
//! during the run) and the feature `redis`:
//! `TOOLWRIGHT_TEST_REDIS=redis://127.0.0.1:6390 cargo bench -p toolwright-runtime --features redis --bench approvals`.
//! Without them they are skipped, saying so.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwright_runtime::approval::{
    ApprovalStore, Decision, Decisions, FileApprovalStore, MemoryApprovalStore,
};
use toolwright_runtime::batch::{BatchOutcome, PausedBatch};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall};

static NOTE_WRITE: ToolMeta = ToolMeta::new(
    "note_write",
    Safety::Destructive,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}"#,
    ),
)
.title("Write a note")
.description("Writes a note.")
.source("benches/approvals.rs");

fn note_write<'a>(_: &'a (), arguments: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!({"written": arguments["text"]}).into(),
            state_changed: true,
        })
    })
}

struct Bench {
    registry: Registry<()>,
    policy: RunPolicy,
    runtime: tokio::runtime::Runtime,
}

impl Bench {
    fn new() -> Self {
        let registry = Registry::builder()
            .tool(ToolDef {
                meta: &NOTE_WRITE,
                handler: Handler::Shared(note_write),
            })
            .build()
            .expect("the bench tool builds");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        Bench {
            registry,
            policy: RunPolicy::full().with_approval(|_| Decision::Defer),
            runtime,
        }
    }

    /// A message of one call, paused for a person, and the decision approving it.
    fn paused(&self) -> (PausedBatch, Decisions) {
        let calls = [ToolCall::new("call_1", "note_write", json!({"text": "hi"}))];
        let BatchOutcome::Paused(paused) =
            self.runtime
                .block_on(self.registry.run_batch(&self.policy, &mut (), &calls))
        else {
            panic!("the approver defers every write");
        };
        let decisions = paused
            .pending()
            .iter()
            .map(|p| (p.approval_id.clone(), Decision::Approve))
            .collect();
        (paused, decisions)
    }

    /// Resumes the message, approved, claiming in `store`; checks that the call ran.
    fn approved(&self, store: &dyn ApprovalStore, paused: PausedBatch, decisions: &Decisions) {
        let outcome = self.runtime.block_on(self.registry.resume_batch(
            &self.policy,
            &mut (),
            paused,
            decisions,
            store,
        ));
        let ran = matches!(&outcome, BatchOutcome::Complete(results) if results[0].is_success());
        assert!(ran, "the approved call ran: {outcome:?}");
        black_box(outcome);
    }

    fn measure(&self, c: &mut Criterion, name: &str, store: &dyn ApprovalStore) {
        c.bench_function(&format!("approved_call/{name}"), |b| {
            b.iter_batched(
                || self.paused(),
                |(paused, decisions)| self.approved(store, paused, &decisions),
                BatchSize::SmallInput,
            );
        });
    }
}

fn approvals(c: &mut Criterion) {
    let bench = Bench::new();
    bench.measure(c, "memory", &MemoryApprovalStore::new());
    let folder = tempfile::tempdir().expect("a folder");
    bench.measure(
        c,
        "file",
        &FileApprovalStore::new(folder.path().join("approvals.json")),
    );
    redis::measure(&bench, c);
}

#[cfg(feature = "redis")]
mod redis {
    use std::time::{SystemTime, UNIX_EPOCH};

    use toolwright_runtime::approval::RedisApprovalStore;

    use super::{Bench, Criterion};

    /// Approved calls whose Redis commands are counted.
    const COUNTED: u64 = 1_000;

    pub(super) fn measure(bench: &Bench, c: &mut Criterion) {
        let Ok(url) = std::env::var("TOOLWRIGHT_TEST_REDIS") else {
            eprintln!("approved_call/redis skipped: TOOLWRIGHT_TEST_REDIS is not set");
            return;
        };
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let store = bench
            .runtime
            .block_on(RedisApprovalStore::connect(&url))
            .expect("Redis answers")
            .with_prefix(format!("toolwright-bench:{nanos}:"));
        bench.measure(c, "redis", &store);

        // The commands of `COUNTED` approved calls, from Redis's own counters, read on one
        // connection opened before the count (its own setup commands are counted before it).
        let mut counters = bench
            .runtime
            .block_on(async {
                ::redis::Client::open(url.as_str())?
                    .get_multiplexed_async_connection()
                    .await
            })
            .expect("Redis answers");
        let mut info = || -> (u64, u64) {
            let text: String = bench
                .runtime
                .block_on(::redis::cmd("INFO").arg("all").query_async(&mut counters))
                .expect("INFO answers");
            let field = |prefix: &str, key: &str| -> u64 {
                text.lines()
                    .find_map(|line| line.strip_prefix(prefix))
                    .map(|rest| {
                        rest.split(',')
                            .find_map(|part| part.strip_prefix(key))
                            .unwrap_or(rest)
                    })
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(0)
            };
            (
                field("total_commands_processed:", ""),
                field("cmdstat_set:", "calls="),
            )
        };
        let messages: Vec<_> = (0..COUNTED).map(|_| bench.paused()).collect();
        let (total_before, set_before) = info();
        for (paused, decisions) in messages {
            bench.approved(&store, paused, &decisions);
        }
        let (total_after, set_after) = info();
        // The first `INFO` counts among the commands after it.
        let commands = total_after.saturating_sub(total_before).saturating_sub(1);
        let sets = set_after.saturating_sub(set_before);
        println!(
            "redis round trips per approved call: {:.3} (commands {commands} for {COUNTED} approved calls, of which SET {sets})",
            commands as f64 / COUNTED as f64
        );
    }
}

#[cfg(not(feature = "redis"))]
mod redis {
    use super::{Bench, Criterion};

    pub(super) fn measure(_: &Bench, _: &mut Criterion) {
        eprintln!("approved_call/redis skipped: built without the feature `redis`");
    }
}

criterion_group!(benches, approvals);
criterion_main!(benches);
