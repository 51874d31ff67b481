//! A small `tracing` layer that keeps every closed span of the runtime's target: its name, its
//! fields and its parent. The runtime's span tests read it, and so does the MCP span test of the
//! unpublished `tests` crate.

#![allow(dead_code)] // each test crate reads a part of it

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One closed span.
#[derive(Debug, Clone, Default)]
pub struct Closed {
    pub name: String,
    pub fields: BTreeMap<String, Value>,
    pub parent: Option<String>,
    /// The parent's `gen_ai.tool.call.id` or `tool.batch.entry`, to tell parents apart.
    pub parent_fields: BTreeMap<String, Value>,
}

impl Closed {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, Value>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), json!(format!("{value:?}")));
    }
}

/// The fields of an open span, kept in its extensions.
struct Open(BTreeMap<String, Value>);

/// Collects closed spans of the runtime's target.
#[derive(Clone, Default)]
pub struct Collector(Arc<Mutex<Vec<Closed>>>);

impl Collector {
    pub fn spans(&self) -> Vec<Closed> {
        self.0.lock().expect("spans").clone()
    }

    pub fn calls(&self) -> Vec<Closed> {
        self.spans()
            .into_iter()
            .filter(|s| s.name == "execute_tool")
            .collect()
    }

    pub fn only_call(&self) -> Closed {
        let calls = self.calls();
        assert_eq!(calls.len(), 1, "{calls:#?}");
        calls.into_iter().next().expect("one call")
    }
}

impl<S> Layer<S> for Collector
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Open(fields));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            values.record(&mut Fields(&mut open.0));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        if span.metadata().target() != toolwright_runtime::trace::TARGET {
            return;
        }
        let fields = span
            .extensions()
            .get::<Open>()
            .map(|o| o.0.clone())
            .unwrap_or_default();
        let parent = span.parent();
        let parent_fields = parent
            .as_ref()
            .and_then(|p| p.extensions().get::<Open>().map(|o| o.0.clone()))
            .unwrap_or_default();
        self.0.lock().expect("spans").push(Closed {
            name: span.name().to_owned(),
            fields,
            parent: parent.map(|p| p.name().to_owned()),
            parent_fields,
        });
    }
}

/// Runs `f` with the collector as the thread's subscriber, on a current-thread runtime.
pub fn traced<T>(f: impl AsyncFnOnce() -> T) -> (T, Collector) {
    let collector = Collector::default();
    let subscriber = tracing_subscriber::registry().with(collector.clone());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let out = tracing::subscriber::with_default(subscriber, || runtime.block_on(f()));
    (out, collector)
}
