//! Approvals: the approver sees only valid destructive calls; it approves, denies with a reason,
//! edits (checked again) or defers; deferred calls pause the batch, which survives a JSON round
//! trip and is resumed with decisions, refusing changed, expired and already decided approvals.

mod home_tools;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use home_tools::{Home, fixture, registry, runtime};
use proptest::prelude::*;
use serde_json::{Value, json};
use toolwright_runtime::approval::{
    ApprovalLedger, ApprovalStore, Decision, Decisions, MemoryApprovalStore,
};
use toolwright_runtime::batch::{BatchOutcome, PausedBatch};
use toolwright_runtime::provider::openai;
use toolwright_runtime::{RunPolicy, ToolCall, ToolResult};

/// A clock the test sets, in seconds since the Unix epoch.
#[derive(Clone, Default)]
struct TestClock(Arc<AtomicU64>);

impl TestClock {
    fn at(seconds: u64) -> Self {
        TestClock(Arc::new(AtomicU64::new(seconds)))
    }

    fn set(&self, seconds: u64) {
        self.0.store(seconds, Ordering::SeqCst);
    }

    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.0.load(Ordering::SeqCst))
    }
}

/// Every call the approver was shown: call id, tool, arguments.
type Shown = Arc<Mutex<Vec<(String, String, Value)>>>;

/// A policy whose approver records what it is shown and decides with `decide`.
fn policy_with(
    clock: &TestClock,
    decide: impl Fn(&str, &str, &Value) -> Decision + Send + Sync + 'static,
) -> (RunPolicy, Shown) {
    let shown: Shown = Arc::default();
    let record = Arc::clone(&shown);
    let time = clock.clone();
    let policy = RunPolicy::full()
        .with_clock(move || time.now())
        .with_approval_ttl(Duration::from_secs(60))
        .with_approval(move |request| {
            record.lock().expect("lock").push((
                request.call_id.to_owned(),
                request.meta.name.to_owned(),
                request.arguments.clone(),
            ));
            decide(request.call_id, request.meta.name, request.arguments)
        });
    (policy, shown)
}

fn defer_all(clock: &TestClock) -> (RunPolicy, Shown) {
    policy_with(clock, |_, _, _| Decision::Defer)
}

fn run(policy: &RunPolicy, home: &mut Home, calls: &[ToolCall]) -> BatchOutcome {
    runtime().block_on(registry().run_batch(policy, home, calls))
}

fn resume(
    policy: &RunPolicy,
    home: &mut Home,
    paused: PausedBatch,
    decisions: &Decisions,
    store: &dyn ApprovalStore,
) -> BatchOutcome {
    runtime().block_on(registry().resume_batch(policy, home, paused, decisions, store))
}

fn paused(outcome: BatchOutcome) -> PausedBatch {
    outcome.paused().expect("the batch waits for a person")
}

fn complete(outcome: BatchOutcome) -> Vec<ToolResult> {
    outcome.complete().expect("every call is answered")
}

/// Saves a paused batch and reads it back, as a host that restarted would.
fn round_trip(paused: &PausedBatch) -> PausedBatch {
    let text = serde_json::to_string(paused).expect("a paused batch serializes");
    serde_json::from_str(&text).expect("and deserializes")
}

fn decide(paused: &PausedBatch, decision: Decision) -> Decisions {
    paused
        .pending()
        .iter()
        .map(|p| (p.approval_id.clone(), decision.clone()))
        .collect()
}

fn message(result: &ToolResult) -> &str {
    result.error().map_or("", |e| e.message.as_str())
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

fn notify(id: &str, text: &str) -> ToolCall {
    ToolCall::new(id, "send_notification", json!({"text": text}))
}

#[test]
fn a_denial_reaches_the_model_with_its_reason_and_nothing_runs() {
    let clock = TestClock::at(1_000);
    let (policy, shown) = policy_with(&clock, |_, _, _| Decision::deny("Bob is on leave."));
    let mut home = Home::default();
    let results = complete(run(
        &policy,
        &mut home,
        &[email("c1", "Hi bob"), time("c2")],
    ));
    assert_eq!(results[0].code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        message(&results[0]),
        "The call to `send_email` was not approved: Bob is on leave."
    );
    assert!(!results[0].state_changed());
    assert!(results[1].is_success(), "reads are not asked about");
    assert_eq!(home.names(), ["get_time"]);
    assert_eq!(shown.lock().expect("lock").len(), 1);

    let long = "no ".repeat(5_000);
    let (policy, _) = policy_with(&clock, move |_, _, _| Decision::deny(long.clone()));
    let results = complete(run(&policy, &mut home, &[email("c3", "Hi bob")]));
    assert!(message(&results[0]).len() < 400, "{}", message(&results[0]));
    assert!(
        message(&results[0]).ends_with('…'),
        "{}",
        message(&results[0])
    );
}

#[test]
fn an_edit_is_validated_again() {
    let clock = TestClock::at(1_000);
    let (policy, _) = policy_with(&clock, |id, _, _| match id {
        "valid" => Decision::Edit {
            arguments: json!({"to": "alice@email.com", "body": "Hi alice"}),
        },
        _ => Decision::Edit {
            arguments: json!({"to": "alice@email.com", "body": 7}),
        },
    });
    let mut home = Home::default();
    let results = complete(run(
        &policy,
        &mut home,
        &[email("valid", "Hi bob"), email("invalid", "Hi bob")],
    ));
    assert!(results[0].is_success());
    assert_eq!(results[1].code(), Some("TOOL_INPUT_INVALID"));
    assert_eq!(
        message(&results[1]),
        "The tool input is invalid: /body: Expected string"
    );
    assert_eq!(
        home.ran(),
        [(
            "send_email".to_owned(),
            json!({"to": "alice@email.com", "body": "Hi alice"})
        )],
        "the edited arguments ran, the invalid edit did not"
    );
}

#[test]
fn an_invalid_destructive_call_is_never_shown_to_an_approver() {
    let clock = TestClock::at(1_000);
    let (policy, shown) = policy_with(&clock, |_, _, _| Decision::Approve);
    let mut home = Home::default();
    let calls = [
        ToolCall::new("missing", "send_email", json!({"to": "bob@email.com"})),
        ToolCall::new("typed", "send_email", json!({"to": 1, "body": "x"})),
        ToolCall::from_json_text("cut", "send_email", r#"{"to":"bob@"#),
        ToolCall::from_arguments("array", "send_email", json!(["bob@email.com"])),
        ToolCall::new("unknown", "send_mail", json!({})),
        email("valid", "Hi bob"),
    ];
    let results = complete(run(&policy, &mut home, &calls));
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(
        codes,
        [
            Some("TOOL_INPUT_INVALID"),
            Some("TOOL_INPUT_INVALID"),
            Some("TOOL_INPUT_INVALID"),
            Some("TOOL_INPUT_INVALID"),
            Some("TOOL_NOT_FOUND"),
            None
        ]
    );
    let shown: Vec<String> = shown
        .lock()
        .expect("lock")
        .iter()
        .map(|(id, _, _)| id.clone())
        .collect();
    assert_eq!(shown, ["valid"], "only the valid call was shown");
    // The same through `execute`.
    let result = runtime().block_on(registry().execute(
        &policy,
        &mut home,
        "send_email",
        &json!({"to": "bob@email.com"}),
    ));
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
}

#[test]
fn a_deferred_call_survives_a_json_round_trip_and_runs_once_approved() {
    let clock = TestClock::at(1_000);
    let (policy, shown) = defer_all(&clock);
    let mut home = Home::default();
    let calls = openai::calls(&fixture("openai_chat_parallel")).expect("calls");
    let first = paused(run(&policy, &mut home, &calls));
    // The message is sequential (send_email is): the reads before the write ran.
    assert!(first.is_sequential());
    assert_eq!(home.names(), ["get_weather", "get_weather"]);
    let [pending] = first.pending() else {
        panic!("one pending approval: {first:?}");
    };
    assert_eq!(pending.index, 2);
    assert_eq!(pending.call_id, "call_99999def");
    assert_eq!(pending.name, "send_email");
    assert_eq!(
        pending.arguments,
        json!({"to": "bob@email.com", "body": "Hi bob"})
    );
    assert_eq!(pending.expires_at, 1_060);
    assert!(pending.digest.starts_with("sha256:"));
    assert_eq!(first.answered().count(), 2);
    assert_eq!(shown.lock().expect("lock").len(), 1);

    // A new process: the state and the ledger come back from JSON.
    let saved = round_trip(&first);
    let ledger = MemoryApprovalStore::from_ledger(
        serde_json::from_str(&serde_json::to_string(&ApprovalLedger::new()).expect("json"))
            .expect("ledger"),
    );
    let mut restarted = Home::default();
    let results = complete(resume(
        &policy,
        &mut restarted,
        saved.clone(),
        &decide(&saved, Decision::Approve),
        &ledger,
    ));
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(ToolResult::is_success), "{results:?}");
    assert_eq!(
        restarted.ran(),
        [(
            "send_email".to_owned(),
            json!({"to": "bob@email.com", "body": "Hi bob"})
        )],
        "only the approved call ran on resume, with its approved arguments"
    );
    assert!(ledger.ledger().is_decided(&pending.approval_id));
}

#[test]
fn a_sequential_message_waits_behind_a_pending_call() {
    let clock = TestClock::at(1_000);
    let (policy, _) = policy_with(&clock, |id, _, _| {
        if id == "c2" {
            Decision::Defer
        } else {
            Decision::Approve
        }
    });
    let mut home = Home::default();
    let calls = [
        time("c1"),
        email("c2", "Hi bob"),
        ToolCall::new("c3", "get_weather", json!({"location": "Paris"})),
        ToolCall::new(
            "c4",
            "set_light_values",
            json!({"brightness": 20, "color_temp": "warm"}),
        ),
    ];
    let first = paused(run(&policy, &mut home, &calls));
    assert_eq!(
        home.names(),
        ["get_time"],
        "nothing after the pending call ran"
    );
    let states: Vec<bool> = first.results().iter().map(Option::is_some).collect();
    assert_eq!(states, [true, false, false, false]);
    assert_eq!(first.pending()[0].index, 1);

    let ledger = MemoryApprovalStore::new();
    let results = complete(resume(
        &policy,
        &mut home,
        round_trip(&first),
        &decide(&first, Decision::Approve),
        &ledger,
    ));
    assert!(results.iter().all(ToolResult::is_success), "{results:?}");
    assert_eq!(
        home.names(),
        ["get_time", "send_email", "get_weather", "set_light_values"],
        "the waiting calls ran on resume, in order"
    );
}

#[test]
fn a_later_write_of_a_resumed_sequential_message_may_be_deferred_again() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let calls = [email("c1", "one"), time("c2"), email("c3", "two")];
    let first = paused(run(&policy, &mut home, &calls));
    let ledger = MemoryApprovalStore::new();
    let second = paused(resume(
        &policy,
        &mut home,
        first.clone(),
        &decide(&first, Decision::deny("Not now.")),
        &ledger,
    ));
    assert_eq!(second.pending()[0].index, 2);
    assert_eq!(home.names(), ["get_time"], "the denied write did not run");
    let results = complete(resume(
        &policy,
        &mut home,
        round_trip(&second),
        &decide(&second, Decision::Approve),
        &ledger,
    ));
    assert_eq!(
        message(&results[0]),
        "The call to `send_email` was not approved: Not now."
    );
    assert!(results[1].is_success() && results[2].is_success());
    assert_eq!(home.names(), ["get_time", "send_email"]);
    assert_eq!(home.ran()[1].1["body"], "two");
}

#[test]
fn a_parallel_message_answers_the_other_calls_and_resumes_approvals_one_by_one() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let calls = [time("c1"), notify("c2", "a"), time("c3"), notify("c4", "b")];
    let first = paused(run(&policy, &mut home, &calls));
    assert!(!first.is_sequential());
    assert_eq!(home.names(), ["get_time", "get_time"]);
    let states: Vec<bool> = first.results().iter().map(Option::is_some).collect();
    assert_eq!(states, [true, false, true, false]);
    let ids: Vec<String> = first
        .pending()
        .iter()
        .map(|p| p.approval_id.clone())
        .collect();
    assert_eq!(ids.len(), 2);

    let ledger = MemoryApprovalStore::new();
    let only_b: Decisions = [(ids[1].clone(), Decision::Approve)].into_iter().collect();
    let second = paused(resume(&policy, &mut home, first, &only_b, &ledger));
    assert_eq!(
        second.pending().len(),
        1,
        "the undecided approval still waits"
    );
    assert_eq!(second.pending()[0].approval_id, ids[0]);
    assert_eq!(home.names(), ["get_time", "get_time", "send_notification"]);

    let results = complete(resume(
        &policy,
        &mut home,
        round_trip(&second),
        &decide(
            &second,
            Decision::Edit {
                arguments: json!({"text": "edited"}),
            },
        ),
        &ledger,
    ));
    assert!(results.iter().all(ToolResult::is_success), "{results:?}");
    assert_eq!(
        home.ran()[3],
        ("send_notification".to_owned(), json!({"text": "edited"}))
    );
}

#[test]
fn a_changed_saved_state_is_refused_and_nothing_after_it_runs() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let calls = [email("c1", "Hi bob"), time("c2")];
    let first = paused(run(&policy, &mut home, &calls));
    let mut saved = serde_json::to_value(&first).expect("json");
    saved["pending"][0]["arguments"]["to"] = json!("mallory@email.com");
    saved["calls"][0]["arguments"]["to"] = json!("mallory@email.com");
    let edited: PausedBatch = serde_json::from_value(saved).expect("it still holds together");
    let ledger = MemoryApprovalStore::new();
    let results = complete(resume(
        &policy,
        &mut home,
        edited.clone(),
        &decide(&edited, Decision::Approve),
        &ledger,
    ));
    assert_eq!(results[0].code(), Some("TOOL_NOT_ALLOWED"));
    assert!(
        message(&results[0]).contains("does not match its digest (the saved state was changed)"),
        "{}",
        message(&results[0])
    );
    assert_eq!(results[1].code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        message(&results[1]),
        "The call to `get_time` was not run: it waited behind a call to `send_email` whose approval was refused."
    );
    assert!(home.ran().is_empty());
    assert!(ledger.is_empty(), "a forged approval is not recorded");
}

#[test]
fn an_expired_approval_is_refused() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let first = paused(run(&policy, &mut home, &[email("c1", "Hi bob")]));
    assert_eq!(first.pending()[0].expires_at, 1_060);

    clock.set(1_059);
    let ledger = MemoryApprovalStore::new();
    let in_time = complete(resume(
        &policy,
        &mut home,
        first.clone(),
        &decide(&first, Decision::Approve),
        &ledger,
    ));
    assert!(in_time[0].is_success());

    let second = paused(run(&policy, &mut home, &[email("c2", "Hi again")]));
    clock.set(second.pending()[0].expires_at);
    let late = complete(resume(
        &policy,
        &mut home,
        second.clone(),
        &decide(&second, Decision::Approve),
        &ledger,
    ));
    assert_eq!(late[0].code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        message(&late[0]),
        "The approval of the call to `send_email` was refused: it expired at 1119 (seconds since the Unix epoch). The call was not run."
    );
    assert_eq!(
        home.names(),
        ["send_email"],
        "only the approval in time ran"
    );
}

#[test]
fn a_second_resume_of_the_same_approval_is_refused_even_after_a_restart() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let first = paused(run(
        &policy,
        &mut home,
        &[email("c1", "Hi bob"), time("c2")],
    ));
    let saved = serde_json::to_string(&first).expect("json");
    let approve = decide(&first, Decision::Approve);

    let ledger = MemoryApprovalStore::new();
    let results = complete(resume(&policy, &mut home, first, &approve, &ledger));
    assert!(results.iter().all(ToolResult::is_success));
    let kept = serde_json::to_string(&ledger.ledger()).expect("the ledger serializes");

    // Another process, the same saved state, the persisted ledger.
    let ledger = MemoryApprovalStore::from_ledger(serde_json::from_str(&kept).expect("ledger"));
    let again: PausedBatch = serde_json::from_str(&saved).expect("state");
    let results = complete(resume(&policy, &mut home, again, &approve, &ledger));
    assert_eq!(results[0].code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        message(&results[0]),
        "The approval of the call to `send_email` was refused: it was already decided, and a call runs at most once. The call was not run again."
    );
    assert_eq!(
        results[1].code(),
        Some("TOOL_NOT_ALLOWED"),
        "the waiting read too"
    );
    assert_eq!(
        home.names(),
        ["send_email", "get_time"],
        "nothing ran twice"
    );
}

#[test]
fn a_resume_checks_the_policy_again() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let first = paused(run(&policy, &mut home, &[email("c1", "Hi bob")]));
    let ledger = MemoryApprovalStore::new();
    let results = complete(resume(
        &RunPolicy::read_only().with_clock({
            let clock = clock.clone();
            move || clock.now()
        }),
        &mut home,
        first.clone(),
        &decide(&first, Decision::Approve),
        &ledger,
    ));
    assert_eq!(
        message(&results[0]),
        "The tool `send_email` changes state and this run is read-only."
    );
    assert!(home.ran().is_empty());
    // The policy refused the call before the approval took effect: it is still unused.
    assert!(
        ledger.is_empty(),
        "a call the policy refuses uses no approval"
    );
    let results = complete(resume(
        &policy,
        &mut home,
        first.clone(),
        &decide(&first, Decision::Approve),
        &ledger,
    ));
    assert!(results[0].is_success(), "{:?}", results[0]);
    assert_eq!(home.names(), ["send_email"]);
}

#[test]
fn a_host_that_cannot_wait_refuses_a_deferred_call() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let results = runtime().block_on(registry().execute_batch(
        &policy,
        &mut home,
        &[email("c1", "Hi bob"), time("c2")],
    ));
    assert_eq!(results[0].code(), Some("TOOL_NOT_ALLOWED"));
    assert!(message(&results[0]).contains("waits for a person's approval"));
    assert!(results[1].is_success(), "the rest of the message runs");
    assert_eq!(home.names(), ["get_time"]);
}

#[test]
fn no_decision_leaves_an_approval_pending() {
    let clock = TestClock::at(1_000);
    let (policy, _) = defer_all(&clock);
    let mut home = Home::default();
    let first = paused(run(&policy, &mut home, &[email("c1", "Hi bob")]));
    let ledger = MemoryApprovalStore::new();
    let same = paused(resume(
        &policy,
        &mut home,
        first.clone(),
        &decide(&first, Decision::Defer),
        &ledger,
    ));
    assert_eq!(same, first);
    assert!(ledger.is_empty() && home.ran().is_empty());
}

// ---- the property: no call runs unless approved with exactly its validated arguments ----

/// What the person decides after a deferral.
#[derive(Debug, Clone)]
enum Later {
    Approve,
    Deny,
    Edit(String),
    EditInvalid,
    Tamper,
    Expire,
    Double,
}

/// What the approver answers for one call.
#[derive(Debug, Clone)]
enum Script {
    Approve,
    Deny,
    Edit(String),
    EditInvalid,
    Defer(Later),
}

/// One generated call: which tool, whether its arguments are valid, and the approver's script.
#[derive(Debug, Clone)]
struct Planned {
    tool: u8,
    valid: bool,
    text: String,
    script: Script,
}

fn later() -> impl Strategy<Value = Later> {
    prop_oneof![
        Just(Later::Approve),
        Just(Later::Deny),
        "[a-z]{1,6}".prop_map(Later::Edit),
        Just(Later::EditInvalid),
        Just(Later::Tamper),
        Just(Later::Expire),
        Just(Later::Double),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    prop_oneof![
        Just(Script::Approve),
        Just(Script::Deny),
        "[a-z]{1,6}".prop_map(Script::Edit),
        Just(Script::EditInvalid),
        later().prop_map(Script::Defer),
    ]
}

fn planned() -> impl Strategy<Value = Planned> {
    (0u8..3, any::<bool>(), "[a-z]{1,6}", script()).prop_map(|(tool, valid, text, script)| {
        Planned {
            tool,
            valid,
            text,
            script,
        }
    })
}

/// The call, and the arguments a valid edit gives it.
fn call_of(index: usize, plan: &Planned) -> ToolCall {
    let id = format!("c{index}");
    match (plan.tool, plan.valid) {
        (0, true) => email(&id, &plan.text),
        (0, false) => ToolCall::new(id, "send_email", json!({"to": "bob@email.com"})),
        (1, true) => notify(&id, &plan.text),
        (1, false) => ToolCall::from_json_text(id, "send_notification", "{\"text\":"),
        (_, true) => time(&id),
        (_, false) => ToolCall::new(id, "get_time", json!({"timezone": 3})),
    }
}

fn edited(name: &str, text: &str) -> Value {
    if name == "send_email" {
        json!({"to": "alice@email.com", "body": text})
    } else {
        json!({"text": text})
    }
}

fn decision_of(later: &Later, name: &str) -> Decision {
    match later {
        Later::Deny => Decision::deny("no"),
        Later::Edit(text) => Decision::Edit {
            arguments: edited(name, text),
        },
        Later::EditInvalid => Decision::Edit {
            arguments: json!({"text": ""}),
        },
        Later::Approve | Later::Tamper | Later::Expire | Later::Double => Decision::Approve,
    }
}

/// Runs the planned calls through `run_batch` and as many resumes as they take, and checks that
/// every write that ran was approved with exactly those arguments, once.
fn check_plans(plans: &[Planned]) -> Result<(), TestCaseError> {
    let clock = TestClock::at(10_000);
    let scripts: Vec<Script> = plans.iter().map(|p| p.script.clone()).collect();
    let (policy, shown) = policy_with(&clock, move |id, name, _| {
        let index: usize = id.trim_start_matches('c').parse().unwrap_or(usize::MAX);
        match scripts.get(index) {
            Some(Script::Approve) => Decision::Approve,
            Some(Script::Deny) | None => Decision::deny("no"),
            Some(Script::Edit(text)) => Decision::Edit {
                arguments: edited(name, text),
            },
            Some(Script::EditInvalid) => Decision::Edit {
                arguments: json!({"to": 1}),
            },
            Some(Script::Defer(_)) => Decision::Defer,
        }
    });
    let calls: Vec<ToolCall> = plans
        .iter()
        .enumerate()
        .map(|(i, p)| call_of(i, p))
        .collect();
    let mut home = Home::default();
    let ledger = MemoryApprovalStore::new();
    // What may run: each approved write with the arguments it was approved with.
    let mut allowed: Vec<(String, Value)> = Vec::new();
    // In a sequential message (any call to send_email), the calls behind a call whose
    // approval is refused (changed or expired) are refused too.
    let sequential = plans.iter().any(|p| p.tool == 0);
    let mut blocked = false;
    for (index, plan) in plans.iter().enumerate() {
        let call = &calls[index];
        if blocked || !plan.valid || plan.tool == 2 {
            continue;
        }
        if sequential && matches!(plan.script, Script::Defer(Later::Tamper | Later::Expire)) {
            blocked = true;
        }
        match &plan.script {
            Script::Approve => allowed.push((call.name.clone(), call.arguments.clone())),
            Script::Edit(text) => allowed.push((call.name.clone(), edited(&call.name, text))),
            Script::Defer(later) => match later {
                Later::Approve | Later::Double => {
                    allowed.push((call.name.clone(), call.arguments.clone()));
                }
                Later::Edit(text) => allowed.push((call.name.clone(), edited(&call.name, text))),
                _ => {}
            },
            Script::Deny | Script::EditInvalid => {}
        }
    }

    let mut outcome = run(&policy, &mut home, &calls);
    let mut rounds = 0;
    while let BatchOutcome::Paused(paused) = outcome {
        rounds += 1;
        prop_assert!(rounds <= plans.len(), "every round decides an approval");
        let saved = serde_json::to_value(&paused).expect("json");
        let mut decisions = Decisions::new();
        // The saved state with the arguments of every tampered approval of this round changed.
        let mut tampered: Option<Value> = None;
        let mut again = None;
        let later_of = |index: usize| match plans.get(index).map(|p| &p.script) {
            Some(Script::Defer(later)) => Some(later.clone()),
            _ => None,
        };
        // The clock moves for the whole resume: a round that lets approvals expire decides
        // only those; the others wait for the next round.
        let expiring = paused
            .pending()
            .iter()
            .any(|p| matches!(later_of(p.index), Some(Later::Expire)));
        for (at, pending) in paused.pending().iter().enumerate() {
            let Some(later) = later_of(pending.index) else {
                prop_assert!(false, "only deferred calls wait: {pending:?}");
                unreachable!();
            };
            if expiring && !matches!(later, Later::Expire) {
                continue;
            }
            let later = &later;
            decisions.insert(
                pending.approval_id.clone(),
                decision_of(later, &pending.name),
            );
            match later {
                Later::Tamper => {
                    let changed = tampered.get_or_insert_with(|| saved.clone());
                    changed["pending"][at]["arguments"] = edited(&pending.name, "tampered");
                }
                Later::Expire => clock.set(pending.expires_at),
                Later::Double => {
                    let again = again.get_or_insert_with(|| (saved.clone(), Decisions::new()));
                    again
                        .1
                        .insert(pending.approval_id.clone(), Decision::Approve);
                }
                _ => {}
            }
        }
        let state = match tampered {
            Some(changed) => serde_json::from_value(changed).expect("still holds together"),
            None => paused.clone(),
        };
        outcome = resume(&policy, &mut home, state, &decisions, &ledger);
        // The same saved state resumed again, with the same decisions for its doubled
        // approvals (the others are not decided in it).
        if let Some((saved, doubled)) = again {
            let old: PausedBatch = serde_json::from_value(saved).expect("json");
            let second = resume(&policy, &mut home, old, &doubled, &ledger);
            if let BatchOutcome::Complete(results) = &second {
                prop_assert!(results.iter().all(|r| r.is_success()
                    || r.code() == Some("TOOL_NOT_ALLOWED")
                    || r.code() == Some("TOOL_INPUT_INVALID")));
            }
        }
        clock.set(10_000);
    }
    let results = complete(outcome);
    prop_assert_eq!(results.len(), calls.len(), "one result per call");

    // Every write that ran was approved with exactly those arguments, once.
    let mut ran: Vec<(String, Value)> = home
        .ran()
        .into_iter()
        .filter(|(name, _)| name != "get_time")
        .collect();
    let key = |entry: &(String, Value)| format!("{}{}", entry.0, entry.1);
    ran.sort_by_key(key);
    allowed.sort_by_key(key);
    prop_assert_eq!(ran, allowed);

    // The approver saw only valid calls to writes, with their arguments as sent.
    for (id, name, arguments) in shown.lock().expect("lock").iter() {
        let index: usize = id.trim_start_matches('c').parse().expect("an id");
        prop_assert!(plans[index].valid, "{id} was shown but is invalid");
        prop_assert_ne!(name.as_str(), "get_time");
        prop_assert_eq!(arguments, &calls[index].arguments);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_call_runs_unless_approved_with_exactly_its_validated_arguments(
        plans in proptest::collection::vec(planned(), 1..6)
    ) {
        check_plans(&plans)?;
    }
}

/// Two approvals of one parallel message, both changed in the same saved state: neither runs.
#[test]
fn two_changed_approvals_of_one_saved_state_are_both_refused() {
    let tampered = |text: &str| Planned {
        tool: 1,
        valid: true,
        text: text.to_owned(),
        script: Script::Defer(Later::Tamper),
    };
    if let Err(failure) = check_plans(&[tampered("a"), tampered("b")]) {
        panic!("{failure}");
    }
}
