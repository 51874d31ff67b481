//! `code_interpreter` exists only with the cargo feature `code-interpreter`.
//!
//! The manifest is always there (the docs list the tool), but a build without the feature
//! registers no implementation: the tool is in no list and a call to it answers
//! `TOOL_NOT_FOUND`. With the feature, the same registry lists it and runs it. The registry
//! here registers what this crate provides, the way a host does.

use chart_tools::chart::Chart;
use serde_json::json;
use toolwright_runtime::{Registry, RunPolicy, ToolResult};

const NAME: &str = "code_interpreter";

/// The chart's registry: `code_interpreter` is registered only with the feature.
fn registry() -> Registry<Chart> {
    chart_tools::registry().expect("a valid registry")
}

fn call(registry: &Registry<Chart>) -> ToolResult {
    let mut chart = Chart::demo();
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(registry.execute(
            &RunPolicy::full(),
            &mut chart,
            NAME,
            &json!({"language": "python", "code": "print(6 * 7)"}),
        ))
}

#[test]
fn the_manifest_is_declared_either_way() {
    assert!(
        chart_tools::tools::ALL.iter().any(|meta| meta.name == NAME),
        "the manifest stays, so the docs and exports list the tool"
    );
}

#[cfg(not(feature = "code-interpreter"))]
#[test]
fn without_the_feature_the_tool_is_absent() {
    let registry = registry();
    assert!(registry.get(NAME).is_none());
    assert!(!registry.names().any(|name| name == NAME));
    assert!(
        !registry
            .resolve(&RunPolicy::full())
            .iter()
            .any(|meta| meta.name == NAME)
    );
    let result = call(&registry);
    assert_eq!(result.code(), Some("TOOL_NOT_FOUND"), "{result:?}");
    assert!(!result.state_changed());
}

#[cfg(feature = "code-interpreter")]
#[test]
fn with_the_feature_the_tool_is_listed_and_answers() {
    let registry = registry();
    assert!(registry.get(NAME).is_some());
    assert!(
        registry
            .resolve(&RunPolicy::full())
            .iter()
            .any(|meta| meta.name == NAME)
    );
    // No provider is installed on the chart: the tool itself answers, with its declared code.
    let result = call(&registry);
    assert_eq!(result.code(), Some("SANDBOX_UNAVAILABLE"), "{result:?}");
}
