//! Hand-written tools for the registry tests: frozen metadata plus adapters that deserialize and
//! call, exactly what `#[tool]` emits. The context counts what tool code actually did.

#![allow(dead_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, IntoToolOutput, Mode, Safety, StaticSchema, ToolDef,
    ToolMeta,
};
use toolwright_runtime::{DeclaredError, Failure, Registry, ToolError, Unchanged};

/// The run's context: an in-memory chart plus counters of what tool code did.
#[derive(Debug, Default)]
pub struct Chart {
    pub panes: Vec<String>,
    pub drawings: Vec<String>,
    /// How many times any tool's code was entered.
    pub entered: AtomicUsize,
    /// How many times destructive tool code was entered.
    pub destructive_entered: AtomicUsize,
    /// The tools whose code ran, in order.
    pub log: Mutex<Vec<String>>,
}

impl Chart {
    pub fn new() -> Self {
        Chart {
            panes: vec!["main".to_owned(), "lower".to_owned()],
            ..Chart::default()
        }
    }

    pub fn entered(&self) -> usize {
        self.entered.load(Ordering::SeqCst)
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("log lock").clone()
    }

    fn enter(&self, name: &str, safety: Safety) {
        self.entered.fetch_add(1, Ordering::SeqCst);
        if !safety.is_read_only() {
            self.destructive_entered.fetch_add(1, Ordering::SeqCst);
        }
        self.log.lock().expect("log lock").push(name.to_owned());
    }
}

/// Frozen metadata of a test tool.
pub const fn meta(
    name: &'static str,
    safety: Safety,
    mode: Mode,
    schema: &'static str,
    errors: &'static [ErrorMeta],
) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(schema))
        .description("A test tool.")
        .errors(errors)
        .source(name)
}

pub const EMPTY_OBJECT: &str = r#"{"type":"object","additionalProperties":false}"#;

pub static PANES_LIST: ToolMeta = meta(
    "panes_list",
    Safety::ReadOnly,
    Mode::Parallel,
    EMPTY_OBJECT,
    &[],
);

fn panes_list<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Input {}
        let Input {} = Input::deserialize(args).map_err(|e| ToolError::Input(e.to_string()))?;
        chart.enter("panes_list", Safety::ReadOnly);
        chart.panes.clone().into_tool_output(Safety::ReadOnly)
    })
}

pub fn panes_list_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &PANES_LIST,
        handler: Handler::Shared(panes_list),
    }
}

pub const DRAWING_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "pane_id": {"type": "string", "minLength": 1},
    "kind": {"enum": ["trend_line", "horizontal_line"]},
    "anchors": {
      "type": "array",
      "maxItems": 10,
      "items": {
        "type": "object",
        "properties": {
          "time": {"type": "integer", "minimum": 0},
          "price": {"type": "number"}
        },
        "required": ["time", "price"],
        "additionalProperties": false
      }
    }
  },
  "required": ["pane_id", "kind", "anchors"],
  "additionalProperties": false
}"#;

pub static DRAWING_ERRORS: &[ErrorMeta] = &[ErrorMeta::new(
    "PANE_NOT_FOUND",
    "Pane not found.",
    true,
    "Call panes_list to get the valid pane IDs, then retry.",
)];

pub static DRAWING_CREATE: ToolMeta = meta(
    "drawing_create",
    Safety::Destructive,
    Mode::Sequential,
    DRAWING_SCHEMA,
    DRAWING_ERRORS,
);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    pub time: u64,
    pub price: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawingInput {
    pub pane_id: String,
    pub kind: String,
    pub anchors: Vec<Anchor>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawingError {
    PaneNotFound,
    /// Not declared in the manifest: the registry must turn it into `TOOL_FAILED`.
    Undeclared,
}

/// Written by hand, and drifting from its declaration on purpose: `Undeclared`'s code is not in
/// `ERRORS`.
impl DeclaredError for DrawingError {
    const ERRORS: &'static [ErrorMeta] = DRAWING_ERRORS;

    fn code(&self) -> &'static str {
        match self {
            DrawingError::PaneNotFound => "PANE_NOT_FOUND",
            DrawingError::Undeclared => "SOMETHING_ELSE",
        }
    }
}

fn drawing_create<'a>(chart: &'a mut Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let input = DrawingInput::deserialize(args).map_err(|e| ToolError::Input(e.to_string()))?;
        chart.enter("drawing_create", Safety::Destructive);
        if input.pane_id == "undeclared" {
            return Err(Failure::new(DrawingError::Undeclared).into());
        }
        if input.pane_id == "broken" {
            chart.drawings.push("half-written".to_owned());
            return Err(ToolError::failed("the chart store went away"));
        }
        if !chart.panes.contains(&input.pane_id) {
            let valid = chart.panes.join(", ");
            return Err(Failure::new(DrawingError::PaneNotFound)
                .detail(format!("Valid pane IDs: {valid}."))
                .into());
        }
        let id = format!("d{}", chart.drawings.len() + 1);
        chart.drawings.push(id.clone());
        json!({"id": id, "anchors": input.anchors.len()}).into_tool_output(Safety::Destructive)
    })
}

pub fn drawing_create_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &DRAWING_CREATE,
        handler: Handler::Exclusive(drawing_create),
    }
}

pub static DRAWINGS_CLEAR: ToolMeta = meta(
    "drawings_clear",
    Safety::Destructive,
    Mode::Sequential,
    EMPTY_OBJECT,
    &[],
);

fn drawings_clear<'a>(chart: &'a mut Chart, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        chart.enter("drawings_clear", Safety::Destructive);
        let cleared = chart.drawings.len();
        chart.drawings.clear();
        if cleared == 0 {
            Unchanged(json!({"cleared": 0})).into_tool_output(Safety::Destructive)
        } else {
            json!({"cleared": cleared}).into_tool_output(Safety::Destructive)
        }
    })
}

pub fn drawings_clear_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &DRAWINGS_CLEAR,
        handler: Handler::Exclusive(drawings_clear),
    }
}

/// A read-only tool whose hand-written adapter wrongly claims a change.
pub static SETTINGS_GET: ToolMeta = meta(
    "settings_get",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"key":{"type":"string"}},"additionalProperties":false}"#,
    &[],
);

fn settings_get<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        chart.enter("settings_get", Safety::ReadOnly);
        match args.get("key").and_then(Value::as_str) {
            Some("fail") => Err(ToolError::failed("the settings store is unavailable")),
            _ => Ok(toolwright_runtime::handler::ToolOutput {
                data: json!({"theme": "dark"}).into(),
                state_changed: true,
            }),
        }
    })
}

pub fn settings_get_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &SETTINGS_GET,
        handler: Handler::Shared(settings_get),
    }
}

/// Accepts any object by schema, but its typed input needs `query`: deserialization can fail.
pub static WEB_SEARCH: ToolMeta = meta(
    "web_search",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object"}"#,
    &[],
);

fn web_search<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        #[derive(Deserialize)]
        struct Input {
            query: String,
            #[serde(default)]
            sleep_ms: u64,
        }
        let input = Input::deserialize(args).map_err(|e| ToolError::Input(e.to_string()))?;
        chart.enter("web_search", Safety::ReadOnly);
        if input.sleep_ms > 0 {
            tokio::time::sleep(Duration::from_millis(input.sleep_ms)).await;
        }
        json!({"results": [input.query]}).into_tool_output(Safety::ReadOnly)
    })
}

pub fn web_search_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &WEB_SEARCH,
        handler: Handler::Shared(web_search),
    }
}

/// Panics: `{"when": "call"}` in the adapter itself, `{"when": "poll"}` inside its future.
pub const PANIC_SCHEMA: &str = r#"{"type":"object","properties":{"when":{"enum":["call","poll"]}},"required":["when"],"additionalProperties":false}"#;

pub static READ_PANIC: ToolMeta = meta(
    "read_panic",
    Safety::ReadOnly,
    Mode::Parallel,
    PANIC_SCHEMA,
    &[],
);
pub static WRITE_PANIC: ToolMeta = meta(
    "write_panic",
    Safety::Destructive,
    Mode::Sequential,
    PANIC_SCHEMA,
    &[],
);

fn read_panic<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    chart.enter("read_panic", Safety::ReadOnly);
    if args["when"] == "call" {
        panic!("read_panic panics in its adapter");
    }
    Box::pin(async move {
        tokio::task::yield_now().await;
        panic!("read_panic panics while polled");
    })
}

fn write_panic<'a>(chart: &'a mut Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    chart.enter("write_panic", Safety::Destructive);
    if args["when"] == "call" {
        panic!("write_panic panics in its adapter");
    }
    Box::pin(async move {
        chart.drawings.push("half".to_owned());
        tokio::task::yield_now().await;
        panic!("write_panic panics while polled");
    })
}

pub fn read_panic_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &READ_PANIC,
        handler: Handler::Shared(read_panic),
    }
}

pub fn write_panic_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &WRITE_PANIC,
        handler: Handler::Exclusive(write_panic),
    }
}

/// A destructive tool that never finishes.
pub static WRITE_HANG: ToolMeta = meta(
    "write_hang",
    Safety::Destructive,
    Mode::Sequential,
    EMPTY_OBJECT,
    &[],
);

fn write_hang<'a>(chart: &'a mut Chart, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        chart.enter("write_hang", Safety::Destructive);
        std::future::pending::<()>().await;
        Ok(toolwright_runtime::handler::ToolOutput {
            data: Value::Null.into(),
            state_changed: true,
        })
    })
}

pub fn write_hang_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &WRITE_HANG,
        handler: Handler::Exclusive(write_hang),
    }
}

/// A read-only tool that never finishes.
pub static READ_HANG: ToolMeta = meta(
    "read_hang",
    Safety::ReadOnly,
    Mode::Parallel,
    EMPTY_OBJECT,
    &[],
);

fn read_hang<'a>(chart: &'a Chart, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        chart.enter("read_hang", Safety::ReadOnly);
        std::future::pending::<()>().await;
        Ok(toolwright_runtime::handler::ToolOutput {
            data: Value::Null.into(),
            state_changed: false,
        })
    })
}

pub fn read_hang_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &READ_HANG,
        handler: Handler::Shared(read_hang),
    }
}

/// The chart tool set used by most tests.
pub fn chart_registry() -> Registry<Chart> {
    Registry::builder()
        .tool(panes_list_def())
        .tool(drawing_create_def())
        .tool(drawings_clear_def())
        .tool(settings_get_def())
        .tool(web_search_def())
        .tool(read_panic_def())
        .tool(write_panic_def())
        .tool(write_hang_def())
        .tool(read_hang_def())
        .timeout("write_hang", Duration::from_millis(20))
        .timeout("read_hang", Duration::from_millis(20))
        .build()
        .expect("the chart tools are valid")
}

/// A current-thread runtime with time, as a host would have.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
}
