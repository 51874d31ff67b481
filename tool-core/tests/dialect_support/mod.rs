//! What the per-dialect rule tests share: minimal tool specs and the violation assertion.

#![allow(dead_code)]

use serde_json::Value;
use toolwright_core::dialect::Violation;
use toolwright_core::{Mode, Safety, ToolSpec};

/// A parallel tool of the given safety.
pub fn spec_with(name: &str, safety: Safety, input: Value) -> ToolSpec {
    let mut spec = ToolSpec::new(name, safety, Mode::Parallel, input);
    spec.title = "A tool".to_owned();
    spec.description = "Does a thing.".to_owned();
    spec
}

/// A read-only, parallel tool.
pub fn spec(name: &str, input: Value) -> ToolSpec {
    spec_with(name, Safety::ReadOnly, input)
}

/// `a_tool`, read-only and parallel.
pub fn tool(input: Value) -> ToolSpec {
    spec("a_tool", input)
}

/// `violations` name `rule` at `pointer`.
pub fn assert_has(violations: &[Violation], rule: &str, pointer: &str) {
    assert!(
        violations
            .iter()
            .any(|v| v.rule == rule && v.pointer == pointer),
        "expected `{rule}` at `{pointer}` in {violations:#?}"
    );
}
