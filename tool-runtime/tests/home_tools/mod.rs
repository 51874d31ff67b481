//! The tools of the providers' published function-calling examples (weather, time, e-mail,
//! lights, music), over a context that records every call that ran, and the provider fixtures.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Mutex;

use serde_json::{Value, json};
use toolwright_runtime::Registry;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};

/// What ran: each call's tool and the arguments it received, in order.
#[derive(Debug, Default)]
pub struct Home {
    pub ran: Mutex<Vec<(String, Value)>>,
}

impl Home {
    pub fn ran(&self) -> Vec<(String, Value)> {
        self.ran.lock().expect("lock").clone()
    }

    pub fn names(&self) -> Vec<String> {
        self.ran().into_iter().map(|(name, _)| name).collect()
    }

    fn record(&self, name: &str, arguments: &Value) {
        self.ran
            .lock()
            .expect("lock")
            .push((name.to_owned(), arguments.clone()));
    }
}

const fn meta(name: &'static str, safety: Safety, mode: Mode, schema: &'static str) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(schema))
        .title(name)
        .description("A tool of the providers' function calling examples.")
        .source("tests/home_tools/mod.rs")
}

pub static GET_WEATHER: ToolMeta = meta(
    "get_weather",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"location":{"type":"string","minLength":1},"unit":{"enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false}"#,
);

pub static GET_CURRENT_WEATHER: ToolMeta = meta(
    "get_current_weather",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"location":{"type":"string","minLength":1},"unit":{"enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false}"#,
);

pub static GET_TIME: ToolMeta = meta(
    "get_time",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"timezone":{"type":"string","minLength":1}},"required":["timezone"],"additionalProperties":false}"#,
);

pub static SEND_EMAIL: ToolMeta = meta(
    "send_email",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"to":{"type":"string","minLength":3},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","body"],"additionalProperties":false}"#,
);

pub static SET_LIGHT_VALUES: ToolMeta = meta(
    "set_light_values",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"brightness":{"type":"integer","minimum":0,"maximum":100},"color_temp":{"enum":["daylight","cool","warm"]}},"required":["brightness","color_temp"],"additionalProperties":false}"#,
);

pub static POWER_DISCO_BALL: ToolMeta = meta(
    "power_disco_ball",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"power":{"type":"boolean"}},"required":["power"],"additionalProperties":false}"#,
);

pub static START_MUSIC: ToolMeta = meta(
    "start_music",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"energetic":{"type":"boolean"},"loud":{"type":"boolean"}},"required":["energetic","loud"],"additionalProperties":false}"#,
);

pub static DIM_LIGHTS: ToolMeta = meta(
    "dim_lights",
    Safety::Destructive,
    Mode::Sequential,
    r#"{"type":"object","properties":{"brightness":{"type":"number","minimum":0,"maximum":1}},"required":["brightness"],"additionalProperties":false}"#,
);

/// A write that runs side by side with reads (and the context shared).
pub static SEND_NOTIFICATION: ToolMeta = meta(
    "send_notification",
    Safety::Destructive,
    Mode::Parallel,
    r#"{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}"#,
);

/// A read: answers with what it was asked.
fn read<'a>(home: &'a Home, args: &'a Value, name: &'static str) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        home.record(name, args);
        Ok(ToolOutput {
            data: json!({ "tool": name, "asked": args }).into(),
            state_changed: false,
        })
    })
}

/// A write: records it and reports a change.
fn write<'a>(home: &'a mut Home, args: &'a Value, name: &'static str) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        home.record(name, args);
        Ok(ToolOutput {
            data: json!({ "done": name }).into(),
            state_changed: true,
        })
    })
}

fn send_notification<'a>(home: &'a Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        home.record("send_notification", args);
        Ok(ToolOutput {
            data: json!({ "done": "send_notification" }).into(),
            state_changed: true,
        })
    })
}

fn get_weather<'a>(home: &'a Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    read(home, args, "get_weather")
}
fn get_current_weather<'a>(home: &'a Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    read(home, args, "get_current_weather")
}
fn get_time<'a>(home: &'a Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    read(home, args, "get_time")
}
fn send_email<'a>(home: &'a mut Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    write(home, args, "send_email")
}
fn set_light_values<'a>(home: &'a mut Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    write(home, args, "set_light_values")
}
fn power_disco_ball<'a>(home: &'a mut Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    write(home, args, "power_disco_ball")
}
fn start_music<'a>(home: &'a mut Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    write(home, args, "start_music")
}
fn dim_lights<'a>(home: &'a mut Home, args: &'a Value) -> BoxFuture<'a, CallResult> {
    write(home, args, "dim_lights")
}

/// Every tool of the examples.
pub fn registry() -> Registry<Home> {
    Registry::builder()
        .tool(ToolDef {
            meta: &GET_WEATHER,
            handler: Handler::Shared(get_weather),
        })
        .tool(ToolDef {
            meta: &GET_CURRENT_WEATHER,
            handler: Handler::Shared(get_current_weather),
        })
        .tool(ToolDef {
            meta: &GET_TIME,
            handler: Handler::Shared(get_time),
        })
        .tool(ToolDef {
            meta: &SEND_EMAIL,
            handler: Handler::Exclusive(send_email),
        })
        .tool(ToolDef {
            meta: &SET_LIGHT_VALUES,
            handler: Handler::Exclusive(set_light_values),
        })
        .tool(ToolDef {
            meta: &POWER_DISCO_BALL,
            handler: Handler::Exclusive(power_disco_ball),
        })
        .tool(ToolDef {
            meta: &START_MUSIC,
            handler: Handler::Exclusive(start_music),
        })
        .tool(ToolDef {
            meta: &DIM_LIGHTS,
            handler: Handler::Exclusive(dim_lights),
        })
        .tool(ToolDef {
            meta: &SEND_NOTIFICATION,
            handler: Handler::Shared(send_notification),
        })
        .build()
        .expect("the example tools are valid")
}

/// A provider fixture (`tests/fixtures/providers/<name>.jsonc`): JSON after its leading `//`
/// comment lines, which name the page it came from.
pub fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers")
        .join(format!("{name}.jsonc"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: String = text
        .lines()
        .skip_while(|line| line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.lines().next().is_some_and(|l| l.starts_with("// ")) && text.contains("https://"),
        "{}: a fixture starts with a comment naming its page",
        path.display()
    );
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
}
