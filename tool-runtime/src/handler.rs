//! The plumbing between the registry and a tool: what a registered tool is ([`ToolDef`]: its
//! frozen metadata and an adapter, [`Handler`]) and what an adapter answers ([`CallResult`]).
//!
//! `#[tool]` writes the adapter of a tool function; a tool can also be registered by hand, with a
//! [`ToolMeta`] and an adapter that receives arguments the registry has already validated against
//! the tool's schema:
//!
//! ```
//! use serde_json::json;
//! use toolwright_runtime::handler::{
//!     BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
//! };
//! use toolwright_runtime::{Registry, RunPolicy};
//!
//! static PANES_LIST: ToolMeta = ToolMeta::new(
//!     "panes_list",
//!     Safety::ReadOnly,
//!     Mode::Parallel,
//!     StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
//! )
//! .title("List panes")
//! .description("Lists the chart's panes.")
//! .source("tools/panes_list.toml");
//!
//! fn panes_list<'a>(panes: &'a Vec<String>, _args: &'a serde_json::Value) -> BoxFuture<'a, CallResult> {
//!     Box::pin(async move { Ok(ToolOutput { data: json!(panes).into(), state_changed: false }) })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::builder()
//!     .tool(ToolDef { meta: &PANES_LIST, handler: Handler::Shared(panes_list) })
//!     .build()?;
//! let result = registry.execute(&RunPolicy::read_only(), &mut vec!["main".into()], "panes_list", &json!({})).await;
//! assert_eq!(serde_json::to_string(&result)?, r#"{"success":true,"data":["main"],"stateChanged":false}"#);
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::envelope::ToolData;
use crate::tool::{Changed, ToolError, Unchanged};

pub use toolwright_core::{
    Deprecation, DeprecationMeta, ErrorMeta, ErrorSpec, ExampleMeta, ExampleSpec, Mode, Safety,
    StaticSchema, ToolMeta, ToolSpec,
};

/// A boxed future that may be sent across threads.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an adapter answers.
pub type CallResult = Result<ToolOutput, ToolError>;

/// An adapter taking the context shared. Any tool may use it.
pub type SharedFn<C> = for<'a> fn(&'a C, &'a Value) -> BoxFuture<'a, CallResult>;

/// An adapter taking the context to itself. Only `sequential` tools may use it.
pub type ExclusiveFn<C> = for<'a> fn(&'a mut C, &'a Value) -> BoxFuture<'a, CallResult>;

/// An adapter serving many tools, told which one is called: the context shared, the called
/// tool's metadata, the arguments. Tools known only when the host runs (a proxy's, whose code
/// runs upstream) share one such adapter, which finds the tool's target by its name.
pub type NamedFn<C> = for<'a> fn(&'a C, &'static ToolMeta, &'a Value) -> BoxFuture<'a, CallResult>;

/// How a tool gets the run's context `C`.
pub enum Handler<C> {
    /// `&C`: calls of one parallel message run side by side and share the context.
    Shared(SharedFn<C>),
    /// `&mut C`: a sequential call has the context to itself.
    Exclusive(ExclusiveFn<C>),
    /// `&C` and the called tool's metadata: one adapter for many tools (see [`NamedFn`]).
    Named(NamedFn<C>),
}

impl<C> Handler<C> {
    /// True when the adapter takes the context shared (`&C`).
    pub fn is_shared(&self) -> bool {
        !matches!(self, Handler::Exclusive(_))
    }
}

impl<C> Clone for Handler<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Handler<C> {}

impl<C> fmt::Debug for Handler<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Handler::Shared(_) => "Handler::Shared(..)",
            Handler::Exclusive(_) => "Handler::Exclusive(..)",
            Handler::Named(_) => "Handler::Named(..)",
        })
    }
}

/// One tool as the registry holds it: frozen metadata plus its adapter.
pub struct ToolDef<C> {
    /// The tool's frozen metadata (from a manifest or from `#[tool]`).
    pub meta: &'static ToolMeta,
    /// The adapter.
    pub handler: Handler<C>,
}

impl<C> Clone for ToolDef<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for ToolDef<C> {}

impl<C> fmt::Debug for ToolDef<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.meta.name)
            .field("safety", &self.meta.safety)
            .field("mode", &self.meta.mode)
            .field("handler", &self.handler)
            .finish()
    }
}

impl<C> ToolDef<C> {
    /// The tool's safety, from its one declaration.
    pub fn safety(&self) -> Safety {
        self.meta.safety
    }

    /// The tool's mode, from its one declaration.
    pub fn mode(&self) -> Mode {
        self.meta.mode
    }
}

/// A successful call: the tool's output and whether it changed state.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The tool's output, serialized.
    pub data: ToolData,
    /// True when a destructive tool reports a change; always false for read-only tools.
    pub state_changed: bool,
}

/// Turns what a tool function returns on success into a [`ToolOutput`].
pub trait IntoToolOutput {
    /// `safety` is the tool's declared safety: read-only tools never report a change.
    ///
    /// # Errors
    /// When the output cannot be serialized to JSON.
    fn into_tool_output(self, safety: Safety) -> Result<ToolOutput, ToolError>;
}

impl<T: serde::Serialize> IntoToolOutput for T {
    fn into_tool_output(self, safety: Safety) -> Result<ToolOutput, ToolError> {
        let data = ToolData::from_serialize(&self).map_err(|e| {
            ToolError::failed(format!("the tool output could not be serialized: {e}"))
        })?;
        Ok(ToolOutput {
            data,
            state_changed: !safety.is_read_only(),
        })
    }
}

impl<T: serde::Serialize> IntoToolOutput for Unchanged<T> {
    fn into_tool_output(self, safety: Safety) -> Result<ToolOutput, ToolError> {
        Changed::new(self.0, false).into_tool_output(safety)
    }
}

impl<T: serde::Serialize> IntoToolOutput for Changed<T> {
    fn into_tool_output(self, safety: Safety) -> Result<ToolOutput, ToolError> {
        let mut output = self.data.into_tool_output(safety)?;
        output.state_changed &= self.changed;
        Ok(output)
    }
}
