//! A project that mixes manifest tools and code-first tools gets one reference: the registry's
//! specs go through the same renderer as the manifests (`tools.json`, schemas, provider exports,
//! docs pages).

use std::path::PathBuf;

use generated_check::tools;
use schemars::JsonSchema;
use serde::Deserialize;
use toolwright_manifest::outputs::{self, OutputDirs};
use toolwright_runtime::{Failure, Registry, ToolError, tool, tool_def};

/// The demo context: pane IDs.
struct Panes(Vec<String>);

/// Bound to `tools/panes_list.toml`.
#[tool(manifest = tools::panes_list, safety = "read-only")]
fn panes_list(
    panes: &Panes,
    _input: tools::panes_list::Input,
) -> Result<Vec<String>, Failure<tools::panes_list::Error>> {
    Ok(panes.0.clone())
}

/// The arguments of `pane_rename`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameArgs {
    /// The pane to rename.
    from: String,
    /// Its new ID.
    to: String,
}

/// Renames a pane.
#[tool(safety = "destructive", mode = "sequential", category = "panes")]
fn pane_rename(panes: &mut Panes, input: RenameArgs) -> Result<String, ToolError> {
    let pane = panes
        .0
        .iter_mut()
        .find(|p| **p == input.from)
        .ok_or_else(|| ToolError::failed(format!("no pane `{}`", input.from)))?;
    pane.clone_from(&input.to);
    Ok(input.to)
}

#[test]
fn code_first_and_manifest_tools_render_into_one_reference() {
    let registry: Registry<Panes> = Registry::builder()
        .tool(tool_def!(panes_list))
        .tool(tool_def!(pane_rename))
        .build()
        .expect("valid tools");
    let dirs = OutputDirs {
        out: PathBuf::from("generated"),
        docs: PathBuf::from("docs"),
        lock: None,
    };
    let files = outputs::render(&registry.specs(), &dirs, &[])
        .expect("exportable to every provider")
        .files;

    let index: serde_json::Value =
        serde_json::from_str(&files[&PathBuf::from("generated/tools.json")]).expect("json");
    let names: Vec<&str> = index
        .as_array()
        .expect("an array")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["pane_rename", "panes_list"]);
    let rename = &index[0];
    assert_eq!(rename["safety"], "destructive");
    assert_eq!(rename["mode"], "sequential");
    assert_eq!(rename["description"], "Renames a pane.");
    assert_eq!(
        rename["inputSchema"]["properties"]["to"]["description"],
        "Its new ID."
    );
    assert_eq!(index[1]["safety"], "read-only");

    let page = &files[&PathBuf::from("docs/pane_rename.md")];
    assert!(page.contains("**Safety:** `destructive`"), "{page}");
    assert!(page.contains("| `from` | string | yes |"), "{page}");
    let readme = &files[&PathBuf::from("docs/README.md")];
    assert!(readme.contains("[pane_rename](pane_rename.md)"), "{readme}");
    assert!(files.contains_key(&PathBuf::from("generated/schemas/pane_rename.json")));
    assert!(files.contains_key(&PathBuf::from("generated/providers/mcp.json")));
}
