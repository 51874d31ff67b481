//! `Registry::execute` with arbitrary arguments against the reference tools.
//!
//! Invariants: every call is answered; a tool is reached only with arguments its schema accepts
//! (checked by an independent validator) and within the registry's bounds; every refusal of
//! valid, bounded arguments is a bug; every error message is within the message bound and an
//! input report lists at most five errors.

#![no_main]

use std::sync::OnceLock;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright_fuzz::{reference, value};
use toolwright_runtime::{RunPolicy, ToolResult};

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    let set = reference();
    let mut u = Unstructured::new(data);
    let Ok(tool) = u.choose(&set.tools) else {
        return;
    };
    // Either raw JSON text (what a provider sends) or a generated value.
    let arguments: Value = match u.arbitrary::<bool>() {
        Ok(true) => match serde_json::from_slice(u.take_rest()) {
            Ok(v) => v,
            Err(_) => return,
        },
        _ => match value(&mut u, &set.words, 80) {
            Ok(v) => v,
            Err(_) => return,
        },
    };
    let limits = *set.registry.limits();
    let result = runtime().block_on(set.registry.execute(
        &RunPolicy::full(),
        &mut (),
        tool.name,
        &arguments,
    ));
    let bounded = limits.check_arguments(&arguments).is_ok();
    let valid = bounded && tool.validator.is_valid(&arguments);
    match &result {
        ToolResult::Success { data, .. } => {
            assert_eq!(data, &Value::Bool(true));
            assert!(
                valid,
                "`{}` was reached with invalid arguments {arguments}",
                tool.name
            );
        }
        ToolResult::Failure { error, .. } => {
            assert!(
                !valid,
                "`{}` refused valid arguments {arguments}: {error:?}",
                tool.name
            );
            assert_eq!(error.code, "TOOL_INPUT_INVALID", "{error:?}");
            assert!(error.message.len() <= limits.error_message_bytes());
            assert!(error.message.starts_with("The tool input is invalid: /"));
        }
    }
});
