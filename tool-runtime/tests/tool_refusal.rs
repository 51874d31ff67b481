//! A tool may refuse a call for the host's policy (`ToolError::NotAllowed`): the registry answers
//! `TOOL_NOT_ALLOWED` with `stateChanged: false`, even for a destructive tool.

use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy, ToolError};

static RUN_CODE: ToolMeta = ToolMeta::new(
    "run_code",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"code":{"type":"string"}},"required":["code"],"additionalProperties":false}"#,
    ),
)
.title("Run code")
.description("Runs code where the host allows it.")
.source("tests/tool_refusal.rs");

/// The context: whether the host allows running code, and how many programs ran.
struct Host {
    allowed: bool,
    ran: usize,
}

fn run_code<'a>(host: &'a mut Host, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        if !host.allowed {
            return Err(ToolError::not_allowed(
                "The tool `run_code` needs an isolated environment and none is available.",
            ));
        }
        host.ran += 1;
        Ok(ToolOutput {
            data: json!({"ran": host.ran}).into(),
            state_changed: true,
        })
    })
}

fn registry() -> Registry<Host> {
    Registry::builder()
        .tool(ToolDef {
            meta: &RUN_CODE,
            handler: Handler::Exclusive(run_code),
        })
        .build()
        .expect("a valid registry")
}

fn execute(host: &mut Host) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let result = runtime.block_on(registry().execute(
        &RunPolicy::full(),
        host,
        "run_code",
        &json!({"code": "print(1)"}),
    ));
    serde_json::to_value(&result).expect("an envelope serializes")
}

#[test]
fn a_refusing_tool_answers_not_allowed_without_a_change() {
    let mut host = Host {
        allowed: false,
        ran: 0,
    };
    assert_eq!(
        execute(&mut host),
        json!({
            "success": false,
            "error": {
                "code": "TOOL_NOT_ALLOWED",
                "message": "The tool `run_code` needs an isolated environment and none is available.",
                "retryable": false,
                "recommendedAction": "Do not retry: the host does not allow this call. Tell the user, or answer without this tool."
            },
            "stateChanged": false
        })
    );
    assert_eq!(host.ran, 0);
}

#[test]
fn the_same_tool_runs_when_the_host_allows_it() {
    let mut host = Host {
        allowed: true,
        ran: 0,
    };
    assert_eq!(
        execute(&mut host),
        json!({"success": true, "data": {"ran": 1}, "stateChanged": true})
    );
}

#[test]
fn a_refusal_message_is_bounded() {
    let error = ToolError::not_allowed("x".repeat(10_000));
    assert_eq!(
        error.to_string().len(),
        10_000,
        "the error keeps its message"
    );
    fn long_refusal<'a>(_host: &'a mut Host, _args: &'a Value) -> BoxFuture<'a, CallResult> {
        Box::pin(async { Err(ToolError::not_allowed("y".repeat(10_000))) })
    }
    let registry = Registry::builder()
        .tool(ToolDef {
            meta: &RUN_CODE,
            handler: Handler::Exclusive(long_refusal),
        })
        .build()
        .expect("a valid registry");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut host = Host {
        allowed: false,
        ran: 0,
    };
    let result = runtime.block_on(registry.execute(
        &RunPolicy::full(),
        &mut host,
        "run_code",
        &json!({"code": ""}),
    ));
    let message = &result.error().expect("a failure").message;
    assert!(message.chars().count() <= 301, "{}", message.len());
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert!(!result.state_changed());
}
