//! A code-first tool's `defer_loading`: frozen in its metadata and deferred by the registry in
//! every run that lists it, as a manifest's `defer_loading = true` is.

use toolwright_runtime::handler::ToolDef;
use toolwright_runtime::{NoArgs, Registry, RunPolicy, ToolError, tool, tool_def};

/// Finds indicators by name.
#[tool(safety = "read-only", mode = "parallel", defer_loading)]
fn indicator_search(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Removes every pane of the chart.
#[tool(safety = "destructive", mode = "sequential", defer_loading = true)]
fn panes_clear(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Lists the panes.
#[tool(safety = "read-only", mode = "parallel", defer_loading = false)]
fn panes_list(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

/// Describes the chart.
#[tool(safety = "read-only", mode = "parallel")]
fn chart_info(_input: NoArgs) -> Result<(), ToolError> {
    Ok(())
}

fn registry() -> Registry<()> {
    Registry::builder()
        .tools([
            tool_def!(indicator_search),
            tool_def!(panes_clear),
            tool_def!(panes_list),
            tool_def!(chart_info),
        ])
        .build()
        .expect("a valid registry")
}

#[test]
fn the_declaration_is_in_the_metadata() {
    let def: ToolDef<()> = tool_def!(indicator_search);
    assert!(def.meta.defer_loading);
    let def: ToolDef<()> = tool_def!(panes_clear);
    assert!(def.meta.defer_loading);
    let def: ToolDef<()> = tool_def!(panes_list);
    assert!(!def.meta.defer_loading);
    let def: ToolDef<()> = tool_def!(chart_info);
    assert!(!def.meta.defer_loading);
}

#[test]
fn a_run_defers_the_declared_tools_and_lists_the_others() {
    let registry = registry();
    let policy = RunPolicy::full();
    assert_eq!(
        registry.deferred(&policy),
        ["indicator_search", "panes_clear"]
    );
    let offered = registry.offered(&policy);
    for eager in ["chart_info", "panes_list"] {
        assert!(offered.contains(&eager), "{offered:?}");
    }
    for deferred in ["indicator_search", "panes_clear"] {
        assert!(!offered.contains(&deferred), "{offered:?}");
    }
    // A read-only run lists no write, deferred or not.
    assert_eq!(
        registry.deferred(&RunPolicy::read_only()),
        ["indicator_search"]
    );
}
