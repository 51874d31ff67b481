//! What the guide and the README show besides Rust: the files a new crate holds are the ones
//! this crate compiles, and the sample outputs are what the generator prints. (The Rust
//! snippets themselves are the crate's doctests.)

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use toolwright_manifest::{import, manifest};

/// This crate's directory.
fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn chapter(name: &str) -> String {
    read(&here().join("../../tool-runtime/guide").join(name))
}

fn readme() -> String {
    read(&here().join("../../README.md"))
}

/// The fenced code blocks of a Markdown text: (info string, body).
fn blocks(markdown: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in markdown.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some("")) => found.extend(open.take()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    found
}

/// The one block of `language` that contains `needle`.
fn block_with(markdown: &str, language: &str, needle: &str) -> String {
    let found: Vec<String> = blocks(markdown)
        .into_iter()
        .filter(|(info, body)| info == language && body.contains(needle))
        .map(|(_, body)| body)
        .collect();
    assert_eq!(found.len(), 1, "one `{language}` block with {needle:?}");
    found.into_iter().next().unwrap_or_default()
}

/// Checks every manifest shown (a TOML block starting `name = "…"`) whose tool is in `tools/`
/// against that file; returns the tools checked.
fn check_manifests(markdown: &str) -> Vec<String> {
    let mut checked = Vec::new();
    for (info, body) in blocks(markdown) {
        let Some(name) = body
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
        else {
            continue;
        };
        let file = here().join("tools").join(format!("{name}.toml"));
        if info == "toml" && file.exists() {
            assert_eq!(
                body,
                read(&file),
                "the manifest shown differs from {}",
                file.display()
            );
            checked.push(name.to_owned());
        }
    }
    checked
}

#[test]
fn the_manifests_shown_are_the_ones_this_crate_compiles() {
    assert_eq!(
        check_manifests(&chapter("getting-started.md")),
        ["panes_list", "drawing_create"]
    );
    assert_eq!(check_manifests(&readme()), ["drawing_create"]);
}

#[test]
fn the_build_script_shown_is_the_one_this_crate_runs() {
    let build = read(&here().join("build.rs"));
    for markdown in [chapter("getting-started.md"), readme()] {
        assert_eq!(block_with(&markdown, "rust,no_run", "// build.rs\n"), build);
    }
}

/// `name = "1"` or `name = { version = "1", features = [...] }`: the version and features.
fn dependency(value: &toml::Value) -> (String, Vec<String>) {
    let version = match value {
        toml::Value::String(version) => version.clone(),
        other => other
            .get("version")
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    let features = value
        .get("features")
        .and_then(toml::Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (version, features)
}

fn table(value: &toml::Value, key: &str) -> BTreeMap<String, toml::Value> {
    value
        .get(key)
        .and_then(toml::Value::as_table)
        .map(|t| t.clone().into_iter().collect())
        .unwrap_or_default()
}

/// The Cargo.toml of "Getting started" asks for what this crate compiles the guide with: the
/// same dependencies, versions the workspace's satisfy, and tokio's features.
#[test]
fn the_cargo_toml_shown_matches_what_the_snippets_compile_with() {
    let shown: toml::Value = toml::from_str(&block_with(
        &chapter("getting-started.md"),
        "toml",
        "[package]",
    ))
    .expect("the Cargo.toml shown parses");
    let workspace: toml::Value =
        toml::from_str(&read(&here().join("../../Cargo.toml"))).expect("the workspace manifest");
    let ours: toml::Value =
        toml::from_str(&read(&here().join("Cargo.toml"))).expect("this crate's manifest");
    let pinned = table(&workspace["workspace"], "dependencies");
    let version_of = |name: &str| -> String {
        let (version, _) = dependency(&pinned[name]);
        if version.is_empty() {
            // Path dependencies of the workspace carry the workspace's version.
            workspace["workspace"]["package"]["version"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        } else {
            version
        }
    };

    let mut shown_names = Vec::new();
    for section in ["dependencies", "build-dependencies"] {
        for (name, value) in table(&shown, section) {
            let (version, features) = dependency(&value);
            let ours_version = version_of(&name);
            // "0.1" accepts 0.1.0, "1" accepts 1: the shown requirement is a prefix of ours.
            assert!(
                ours_version == version || ours_version.starts_with(&format!("{version}.")),
                "{name}: the guide asks for {version:?}, the workspace has {ours_version:?}"
            );
            if name == "tokio" {
                let (_, compiled) = dependency(&table(&ours, "dev-dependencies")["tokio"]);
                assert_eq!(features, compiled, "tokio's features");
            }
            shown_names.push(name);
        }
    }
    shown_names.sort();
    assert_eq!(
        shown_names,
        [
            "schemars",
            "serde",
            "serde_json",
            "tokio",
            "toolwright-manifest",
            "toolwright-runtime"
        ]
    );
}

/// The manifest mistakes of the README and of the manifest chapter: this crate's manifests with
/// `saftey` in `panes_list` and `mode = "serial"` in `drawing_create`, as the generator reports
/// them (what `tool-manifest check` and `build.rs` print).
#[test]
fn the_manifest_mistakes_shown_are_what_the_generator_prints() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tools = dir.path().join("tools");
    fs::create_dir(&tools).expect("tools/");
    let panes = read(&here().join("tools/panes_list.toml"));
    let drawing = read(&here().join("tools/drawing_create.toml"));
    assert_eq!(panes.lines().nth(3), Some("safety = \"read-only\""));
    assert_eq!(drawing.lines().nth(4), Some("mode = \"sequential\""));
    fs::write(
        tools.join("panes_list.toml"),
        panes.replacen("safety =", "saftey =", 1),
    )
    .expect("write");
    fs::write(
        tools.join("drawing_create.toml"),
        drawing.replacen("mode = \"sequential\"", "mode = \"serial\"", 1),
    )
    .expect("write");

    let printed = match manifest::load_dir(&tools).specs {
        Ok(_) => panic!("the manifests have mistakes"),
        Err(diagnostics) => format!("{diagnostics}\n"),
    };
    let printed = printed.replace(&format!("{}/", dir.path().display()), "");
    for markdown in [readme(), chapter("manifest.md")] {
        assert_eq!(
            block_with(&markdown, "text", "unknown key `saftey`"),
            printed
        );
    }
}

/// The import example of the command-line chapter: its input, what the import prints and the
/// manifest it writes.
#[test]
fn the_import_shown_is_what_the_import_does() {
    let cli = chapter("cli.md");
    let input = block_with(&cli, "json", "\"tools\"");
    let console = block_with(&cli, "console", "tool-manifest import");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tools");

    let reading = import::read(&input, import::Format::Auto).expect("the input reads");
    fs::create_dir_all(&out).expect("the output directory"); // as the command does
    let outcome = import::write(reading, &out, false);
    assert_eq!(outcome.skipped, 0);
    // What `tool-manifest import tools.json --out tools` prints: the files (stdout), then the
    // report and the summary (stderr).
    let mut printed = vec!["$ tool-manifest import tools.json --out tools".to_owned()];
    printed.extend(
        outcome
            .written
            .iter()
            .map(|p| format!("wrote {}", p.display())),
    );
    printed.extend(outcome.report.iter().map(ToString::to_string));
    printed.push(outcome.summary(&out));
    let printed = printed
        .join("\n")
        .replace(&format!("{}/", dir.path().display()), "");
    assert_eq!(console, format!("{printed}\n"));

    let manifest = block_with(&cli, "toml", "name = \"get_issue\"");
    assert_eq!(manifest, read(&out.join("get_issue.toml")));
}

/// The chapters SUMMARY.md lists, in order.
fn summary_chapters() -> Vec<String> {
    chapter("SUMMARY.md")
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("](")?;
            rest.strip_suffix(')').map(str::to_owned)
        })
        .collect()
}

/// The guide is one set of files for both readers: the mdBook reads the runtime crate's `guide/`
/// (which its package holds), and the crate's docs include every chapter of it, so that docs.rs
/// shows the whole guide. Each link between chapters is a reference that the chapter defines as
/// the mdBook page and the crate defines (first, so that it wins) as the chapter's module.
#[test]
fn every_chapter_is_both_an_mdbook_page_and_a_module_of_the_runtimes_docs() {
    let book: toml::Table = toml::from_str(&read(&here().join("../../docs/guide/book.toml")))
        .expect("book.toml is TOML");
    assert_eq!(
        book["book"]["src"].as_str(),
        Some("../../tool-runtime/guide"),
        "the mdBook is built from the runtime crate's chapters"
    );
    let runtime = here().join("../../tool-runtime/src");
    let lib = read(&runtime.join("lib.rs"));
    let modules = read(&runtime.join("guide.rs"));
    let chapters = summary_chapters();
    assert!(chapters.len() >= 8, "{chapters:?}");
    let mut missing = Vec::new();
    for name in &chapters {
        let include = format!("include_str!(\"../guide/{name}\")");
        if !lib.contains(&include) && !modules.contains(&include) {
            missing.push(format!("{name}: not included by the `guide` module"));
        }
        let text = chapter(name);
        let mut rest = text.as_str();
        while let Some(start) = rest.find("][") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(']') else { break };
            let label = &after[..end];
            rest = &after[end..];
            if !label.contains(".md") {
                continue;
            }
            let page = format!("\n[{label}]: {label}\n");
            if !text.contains(&page) {
                missing.push(format!(
                    "{name}: `[{label}]` is not defined as its mdBook page"
                ));
            }
            let module = format!("[{label}]: crate::guide::");
            if !lib.contains(&module) {
                missing.push(format!("{name}: `[{label}]` has no rustdoc destination"));
            }
            if !chapters
                .iter()
                .any(|c| label.split('#').next() == Some(c.as_str()))
            {
                missing.push(format!("{name}: `[{label}]` is not a chapter"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
