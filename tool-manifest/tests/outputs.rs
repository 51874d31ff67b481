//! The outputs of the fixture tool set: `tools.json` (snapshot), the schemas and the file set.

use std::path::{Path, PathBuf};

use toolwright_manifest::manifest::load_dir;
use toolwright_manifest::outputs::{OutputDirs, render};

const FIXTURES: &str = "tests/fixtures/tools";

fn dirs() -> OutputDirs {
    OutputDirs {
        out: PathBuf::from("generated"),
        docs: PathBuf::from("docs/tools"),
        lock: None,
    }
}

fn rendered() -> std::collections::BTreeMap<PathBuf, String> {
    let specs = load_dir(Path::new(FIXTURES))
        .specs
        .unwrap_or_else(|e| panic!("the fixtures are valid:\n{e}"));
    render(&specs, &dirs(), &[])
        .expect("the fixtures export to every dialect")
        .files
}

#[test]
fn tools_json_snapshot() {
    let files = rendered();
    let index = &files[&dirs().tools_index()];
    insta::assert_snapshot!("tools_json", index);
}

#[test]
fn tools_json_has_the_documented_shape() {
    let files = rendered();
    let index: serde_json::Value =
        serde_json::from_str(&files[&dirs().tools_index()]).expect("JSON");
    let tools = index.as_array().expect("an array");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["drawing_create", "panes_list", "web_search"],
        "sorted by name"
    );
    for tool in tools {
        let keys: Vec<&str> = tool
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = vec![
            "category",
            "description",
            "errors",
            "examples",
            "inputSchema",
            "mode",
            "name",
            "safety",
            "title",
        ];
        if tool["name"] == "drawing_create" {
            expected.push("outputSchema");
            expected.sort();
        }
        assert_eq!(keys, expected, "keys of {}", tool["name"]);
    }
    let drawing = &tools[0];
    assert_eq!(drawing["safety"], "destructive");
    assert_eq!(drawing["mode"], "sequential");
    assert_eq!(
        drawing["errors"][0]["recommendedAction"],
        "Call `panes_list` and retry with one of its pane IDs."
    );
    assert_eq!(
        drawing["examples"][1]["input"]["anchors"][1]["price"], 104,
        "integers stay integers"
    );
    assert!(
        drawing["examples"][1]["input"]["anchors"][0]["price"].is_f64(),
        "floats stay floats"
    );
    assert_eq!(tools[2]["category"], serde_json::Value::Null);
}

#[test]
fn tools_json_holds_what_a_tool_declares_of_its_lifecycle() {
    let mut specs = load_dir(Path::new(FIXTURES))
        .specs
        .unwrap_or_else(|e| panic!("the fixtures are valid:\n{e}"));
    let plain = render(&specs, &dirs(), &[]).expect("renders").files;
    let panes = specs
        .iter_mut()
        .find(|s| s.name == "panes_list")
        .expect("a fixture");
    panes.version = Some("1.2.0".to_owned());
    let mut deprecation = toolwright_manifest::Deprecation::new("1.1.0");
    deprecation.replacement = Some("web_search".to_owned());
    panes.deprecated = Some(deprecation);
    let files = render(&specs, &dirs(), &[]).expect("renders").files;
    let index: serde_json::Value =
        serde_json::from_str(&files[&dirs().tools_index()]).expect("JSON");
    assert_eq!(index[1]["name"], "panes_list");
    assert_eq!(index[1]["version"], "1.2.0");
    assert_eq!(
        index[1]["deprecated"],
        serde_json::json!({"since": "1.1.0", "replacement": "web_search"})
    );
    // The tools that declare neither are written as before, byte for byte.
    let before: serde_json::Value =
        serde_json::from_str(&plain[&dirs().tools_index()]).expect("JSON");
    for i in [0, 2] {
        assert_eq!(index[i], before[i]);
    }
    let mcp = &files[&dirs().providers().join("mcp.json")];
    assert!(mcp.contains("\"dev.toolwright/deprecated\""), "{mcp}");
    let page = &files[&dirs().docs.join("panes_list.md")];
    assert!(
        page.contains(
            "> **Deprecated** since version 1.1.0. Use [`web_search`](web_search.md) instead."
        ),
        "{page}"
    );
}

#[test]
fn one_canonical_schema_per_tool() {
    let files = rendered();
    let schema_files: Vec<String> = files
        .keys()
        .filter(|p| p.starts_with(dirs().schemas()))
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    assert_eq!(
        schema_files,
        [
            "generated/schemas/drawing_create.json",
            "generated/schemas/panes_list.json",
            "generated/schemas/web_search.json"
        ]
    );
    let panes = &files[&dirs().schemas().join("panes_list.json")];
    assert_eq!(
        panes,
        "{\n  \"additionalProperties\": false,\n  \"type\": \"object\"\n}\n"
    );
    insta::assert_snapshot!(
        "drawing_create_schema",
        &files[&dirs().schemas().join("drawing_create.json")]
    );
}

#[test]
fn rendering_is_deterministic() {
    assert_eq!(rendered(), rendered());
}

#[test]
fn a_large_set_renders_each_tool_as_it_does_alone() {
    let fixtures = load_dir(Path::new(FIXTURES))
        .specs
        .unwrap_or_else(|e| panic!("the fixtures are valid:\n{e}"));
    // Many copies of the fixtures under other names: each keeps the files it has alone.
    let mut specs = Vec::new();
    for copy in 0..(80 / fixtures.len() + 1) {
        for spec in &fixtures {
            let mut spec = spec.clone();
            spec.name = format!("{}_{copy:02}", spec.name);
            specs.push(spec);
        }
    }
    assert!(specs.len() >= 80);
    let all = render(&specs, &dirs(), &[])
        .expect("the copies export to every dialect")
        .files;
    let mut compared = 0;
    for spec in &specs {
        let alone = render(std::slice::from_ref(spec), &dirs(), &[])
            .expect("one tool exports")
            .files;
        for (path, text) in alone {
            // Every file of one tool but the set-wide ones (the index, the catalogs, the docs
            // index and summary) is the same in the large set.
            if path.starts_with("docs/tools")
                && !path.ends_with("README.md")
                && !path.ends_with("SUMMARY.md")
                || path.starts_with("generated/schemas")
            {
                assert_eq!(all.get(&path), Some(&text), "{}", path.display());
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * specs.len(), "a page and a schema per tool");
    specs.reverse();
    assert_eq!(
        render(&specs, &dirs(), &[]).expect("the same set").files,
        all
    );
}

#[test]
fn a_deferral_declared_in_a_manifest_reaches_every_output() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let manifest = std::fs::read_to_string(Path::new(FIXTURES).join("panes_list.toml"))
        .expect("the fixture")
        .replace(
            "category = \"panes\"\n",
            "category = \"panes\"\ndefer_loading = true\n",
        );
    std::fs::write(dir.path().join("panes_list.toml"), manifest).expect("written");
    let specs = load_dir(dir.path())
        .specs
        .unwrap_or_else(|e| panic!("the manifest is valid:\n{e}"));
    assert!(specs[0].defer_loading);
    let files = render(&specs, &dirs(), &[])
        .expect("the manifest exports to every dialect")
        .files;
    let index: serde_json::Value =
        serde_json::from_str(&files[&dirs().tools_index()]).expect("JSON");
    assert_eq!(index[0]["deferLoading"], true, "{index}");
    let page = &files[&dirs().docs.join("panes_list.md")];
    assert!(page.contains("- **Loading:** deferred"), "{page}");
    let code = toolwright_manifest::codegen::generate(&specs).expect("Rust code");
    assert!(code.contains("    .defer_loading()\n"), "{code}");

    // Without the key, none of them says anything of it.
    let specs = load_dir(Path::new(FIXTURES)).specs.expect("the fixtures");
    let files = render(&specs, &dirs(), &[]).expect("exports").files;
    assert!(!files[&dirs().tools_index()].contains("deferLoading"));
    let code = toolwright_manifest::codegen::generate(&specs).expect("Rust code");
    assert!(!code.contains("defer_loading"), "{code}");
}
