//! The `tool-manifest` binary: exit codes 0 / 1 / 2, run in a temporary repository.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &str = "tests/fixtures/tools";
const CONFIG: &str = "manifests = \"tools\"\nout = \"generated\"\ndocs = \"docs/tools\"\n";

/// A temporary repository with the fixture manifests in `tools/` and a config file.
fn repository() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = root.path().join("tools");
    std::fs::create_dir(&tools).expect("tools dir");
    for entry in std::fs::read_dir(FIXTURES).expect("fixtures") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), tools.join(entry.file_name())).expect("copy");
    }
    std::fs::write(root.path().join("tool-manifest.toml"), CONFIG).expect("config");
    root
}

fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-manifest"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("run the binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir` with its content, sorted by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let content = std::fs::read_to_string(&path).expect("read");
                files.push((
                    path.strip_prefix(dir).expect("inside").to_path_buf(),
                    content,
                ));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn generate_writes_every_output_then_check_passes() {
    let root = repository();
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let printed = stdout(&output);
    for file in [
        "generated/tools.json",
        "generated/schemas/drawing_create.json",
        "generated/schemas/panes_list.json",
        "generated/schemas/web_search.json",
        "docs/tools/panes_list.md",
    ] {
        assert!(
            printed.contains(&format!("wrote {file}\n")),
            "{file} in:\n{printed}"
        );
        assert!(root.path().join(file).is_file(), "{file} exists");
    }

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("up to date"));
}

#[test]
fn generate_twice_changes_nothing() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    let before = snapshot(root.path());
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).starts_with("up to date"),
        "{}",
        stdout(&output)
    );
    assert!(!stdout(&output).contains("wrote"));
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn check_before_generate_names_every_missing_file() {
    let root = repository();
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    assert!(
        printed.contains("stale: generated/tools.json (missing)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("stale: generated/schemas/web_search.json (missing)\n"),
        "{printed}"
    );
    assert!(
        printed.ends_with("run `cargo tool-manifest generate` to refresh\n"),
        "{printed}"
    );
    assert!(
        !root.path().join("generated").exists(),
        "check writes nothing"
    );
}

#[test]
fn changing_a_safety_makes_check_name_the_stale_file() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    let manifest = root.path().join("tools/web_search.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(
        &manifest,
        text.replace("safety = \"read-only\"", "safety = \"destructive\""),
    )
    .expect("edit");

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    let lines: Vec<&str> = printed.lines().collect();
    // The docs pages may show the safety too: every stale file is named, the index among them,
    // the schemas (which do not hold the safety) are not.
    assert!(
        lines.contains(&"stale: generated/tools.json (out of date)"),
        "{printed}"
    );
    let (last, stale) = lines.split_last().expect("lines");
    assert_eq!(*last, "run `cargo tool-manifest generate` to refresh");
    assert!(
        stale
            .iter()
            .all(|l| l.starts_with("stale: ") && l.contains(" (out of date)")),
        "{printed}"
    );
    // The lock names the tool whose definition changed.
    assert!(
        lines.contains(&"stale: tools/tools.lock (out of date): the definition of `web_search` changed and the lock did not"),
        "{printed}"
    );
    assert!(!printed.contains("schemas/"), "{printed}");

    let output = run(root.path(), &["generate"]);
    let written: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    let expected: Vec<String> = stale
        .iter()
        .map(|l| {
            let file = l.trim_start_matches("stale: ");
            format!(
                "wrote {}",
                file.split(" (out of date)").next().unwrap_or(file)
            )
        })
        .collect();
    assert_eq!(
        written, expected,
        "generate rewrites exactly the stale files"
    );
    assert_eq!(run(root.path(), &["check"]).status.code(), Some(0));
    let index = std::fs::read_to_string(root.path().join("generated/tools.json")).expect("read");
    let index: serde_json::Value = serde_json::from_str(&index).expect("JSON");
    assert_eq!(index[2]["safety"], "destructive");
}

#[test]
fn a_removed_tool_leaves_stale_files_that_generate_removes() {
    let root = repository();
    assert_eq!(run(root.path(), &["generate"]).status.code(), Some(0));
    std::fs::remove_file(root.path().join("tools/web_search.toml")).expect("remove");

    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let printed = stderr(&output);
    assert!(
        printed.contains("stale: docs/tools/web_search.md (no longer generated)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("stale: generated/schemas/web_search.json (no longer generated)\n"),
        "{printed}"
    );

    let output = run(root.path(), &["generate"]);
    assert!(stdout(&output).contains("removed generated/schemas/web_search.json\n"));
    assert!(
        !root
            .path()
            .join("generated/schemas/web_search.json")
            .exists()
    );
    assert_eq!(run(root.path(), &["check"]).status.code(), Some(0));
}

#[test]
fn an_invalid_manifest_exits_2_with_every_located_error() {
    let root = repository();
    let manifest = root.path().join("tools/panes_list.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(
        &manifest,
        text.replace("mode = \"parallel\"", "mode = \"serial\"\nsaftey = 1"),
    )
    .expect("edit");

    for command in ["check", "generate"] {
        let output = run(root.path(), &[command]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        let file = Path::new("tools")
            .join("panes_list.toml")
            .display()
            .to_string();
        assert_eq!(
            stderr(&output),
            format!(
                "error: {file}:5:8: expected `mode` to be \"parallel\" or \"sequential\", found \"serial\"\n\
                 error: {file}:6:1: unknown key `saftey`, expected one of `name`, `title`, `description`, `safety`, `mode`, `category`, `idempotent`, `open_world`, `timeout`, `max_output_bytes`, `version`, `deprecated`, `defer_loading`, `upstream`, `input`, `output`, `input_examples`, `errors`, `examples`; did you mean `safety`?\n\
                 2 errors\n"
            ),
            "{command}"
        );
    }
    assert!(
        !root.path().join("generated").exists(),
        "nothing is written from invalid manifests"
    );
}

#[test]
fn flags_override_the_config_file() {
    let root = repository();
    let output = run(
        root.path(),
        &["generate", "--out", "elsewhere", "--docs", "pages"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(root.path().join("elsewhere/tools.json").is_file());
    assert!(root.path().join("pages/panes_list.md").is_file());
    assert!(!root.path().join("generated").exists());

    let output = run(root.path(), &["check"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the config's directories were not generated"
    );
    let output = run(
        root.path(),
        &["check", "--out", "elsewhere", "--docs", "pages"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn the_refresh_command_repeats_the_flags_given() {
    let root = repository();
    let output = run(root.path(), &["check", "--out", "elsewhere"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .ends_with("run `cargo tool-manifest generate --out elsewhere` to refresh\n")
    );
}

#[test]
fn a_bad_config_file_is_located() {
    let root = repository();
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        "manifests = \"tools\"\noutput = \"generated\"\ndocs = 3\n",
    )
    .expect("config");
    let output = run(root.path(), &["check"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: tool-manifest.toml:2:1: unknown field `output`, expected one of `manifests`, `out`, `docs`, `lock`, `diff`, `required_providers`, `required_strict`\n\
         error: tool-manifest.toml:3:8: `docs`: invalid type: integer `3`, expected a directory path (a non-empty string)\n\
         2 errors\n"
    );
}

#[test]
fn a_bad_provider_or_directory_is_located_where_it_is_written() {
    let root = repository();
    let config = root.path().join("tool-manifest.toml");
    std::fs::write(
        &config,
        "manifests = \"tools\"\nout = \" \"\nrequired_providers = [\"mcp\", \"claude\"]\n",
    )
    .expect("config");
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: tool-manifest.toml:2:7: `out`: expected a directory path (a non-empty string), found an empty string\n\
         error: tool-manifest.toml:3:30: `required_providers`: unknown dialect `claude`, expected one of `mcp`, `openai`, `openai-responses`, `anthropic`, `gemini`\n\
         2 errors\n"
    );
    std::fs::write(
        &config,
        format!("{CONFIG}required_providers = [\"mcp\", 3]\n"),
    )
    .expect("config");
    let output = run(root.path(), &["generate"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: tool-manifest.toml:4:30: `required_providers`: invalid type: integer `3`, expected a provider name\n"
    );
}

#[test]
fn without_a_config_file_the_flags_are_required() {
    let root = repository();
    std::fs::remove_file(root.path().join("tool-manifest.toml")).expect("remove config");
    let output = run(root.path(), &["check", "--manifests", "tools"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: no `tool-manifest.toml` in the current directory, expected it or the flags `--out`, `--docs`\n"
    );
    let output = run(
        root.path(),
        &[
            "generate",
            "--manifests",
            "tools",
            "--out",
            "generated",
            "--docs",
            "docs/tools",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_missing_manifest_directory_exits_2() {
    let root = repository();
    let output = run(root.path(), &["check", "--manifests", "nowhere"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: nowhere: the manifest directory does not exist\n"
    );
}

/// Runs the binary with `stdin` as its standard input.
fn run_with_input(root: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-manifest"))
        .args(args)
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the binary");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

const MCP_TOOLS: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
  {"name":"get-issue!","title":"Get issue","description":"Reads one issue.","inputSchema":{"type":"object","properties":{"number":{"type":"integer"}},"required":["number"]},"annotations":{"readOnlyHint":true,"idempotentHint":true}},
  {"name":"close_issue","description":"Closes an issue.","inputSchema":{"type":"object","properties":{"number":{"type":"integer"},"reason":{"type":["string","null"],"default":null}}}}
]}}"#;

#[test]
fn import_writes_a_manifest_per_tool_and_reports_every_change() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::write(root.path().join("tools.json"), MCP_TOOLS).expect("input");
    let output = run(root.path(), &["import", "tools.json", "--out", "tools"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "renamed \"get-issue!\" -> \"get_issue\"\n\
         close_issue: no title; \"Close issue\" is derived from the name\n\
         close_issue: safety \"destructive\", mode \"sequential\": the source declares no readOnlyHint; review close_issue.toml\n\
         imported 2 tools into tools (1 need review)\n"
    );
    assert_eq!(
        stdout(&output),
        "wrote tools/get_issue.toml\nwrote tools/get_issue.input.json\n\
         wrote tools/close_issue.toml\nwrote tools/close_issue.input.json\n"
    );
    let files = snapshot(&root.path().join("tools"));
    let names: Vec<&Path> = files.iter().map(|(path, _)| path.as_path()).collect();
    assert_eq!(
        names,
        [
            Path::new("close_issue.input.json"),
            Path::new("close_issue.toml"),
            Path::new("get_issue.input.json"),
            Path::new("get_issue.toml"),
        ]
    );
    assert_eq!(
        files[1].1,
        "name = \"close_issue\"\ntitle = \"Close issue\"\ndescription = \"Closes an issue.\"\n\
         # safety: the source declares no readOnlyHint; review: is this tool read-only?\n\
         safety = \"destructive\"\nmode = \"sequential\"\n\
         input = { file = \"close_issue.input.json\" }\n"
    );
    assert_eq!(
        files[0].1,
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"number\": {\n      \"type\": \"integer\"\n    },\n    \"reason\": {\n      \"type\": [\n        \"string\",\n        \"null\"\n      ],\n      \"default\": null\n    }\n  }\n}\n"
    );
}

#[test]
fn import_reads_bfcl_json_lines_from_standard_input() {
    let root = tempfile::tempdir().expect("temp dir");
    let lines = concat!(
        r#"{"name": "add", "description": "Adds.", "parameters": {"type": "dict", "properties": {"a": {"type": "float"}}, "required": ["a"]}}"#,
        "\n",
        r#"{"name": "uber.ride", "description": "Orders a ride.", "parameters": {"type": "dict", "properties": {}}}"#,
        "\n"
    );
    let output = run_with_input(root.path(), &["import", "-", "--out", "bfcl"], lines);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = stderr(&output);
    for line in [
        "add: parameters at /: BFCL type \"dict\" -> \"object\"\n",
        "add: parameters at /properties/a: BFCL type \"float\" -> \"number\"\n",
        "renamed \"uber.ride\" -> \"uber_ride\"\n",
        "imported 2 tools into bfcl (2 need review)\n",
    ] {
        assert!(report.contains(line), "{line:?} in:\n{report}");
    }
    let schema =
        std::fs::read_to_string(root.path().join("bfcl/add.input.json")).expect("schema file");
    assert!(
        schema.contains("\"number\"") && !schema.contains("float"),
        "{schema}"
    );
}

#[test]
fn import_exits_1_when_a_tool_is_skipped_and_keeps_existing_files_unless_forced() {
    let root = tempfile::tempdir().expect("temp dir");
    let input = r#"{"tools":[{"name":"ok","title":"OK","description":"d","inputSchema":{},"annotations":{"readOnlyHint":true}},{"name":"bad","inputSchema":"{}"}]}"#;
    std::fs::write(root.path().join("tools.json"), input).expect("input");

    let output = run(root.path(), &["import", "tools.json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: tools[1].inputSchema: expected an object, found a string; the tool is skipped\n\
         imported 1 tool into . (0 need review)\n\
         skipped 1 tool (see the errors above)\n"
    );
    assert!(root.path().join("ok.toml").is_file());

    let again = run(root.path(), &["import", "tools.json", "--from", "mcp"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains(
            "error: ok: ok.toml, ok.input.json exist in .; pass --force to overwrite; the tool is skipped\n"
        ),
        "{}",
        stderr(&again)
    );
    assert!(stdout(&again).is_empty());

    std::fs::write(
        root.path().join("tools.json"),
        r#"[{"name":"ok","description":"new","inputSchema":{}}]"#,
    )
    .expect("input");
    let forced = run(root.path(), &["import", "--force", "tools.json"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    let manifest = std::fs::read_to_string(root.path().join("ok.toml")).expect("manifest");
    assert!(manifest.contains("description = \"new\""), "{manifest}");
}

#[test]
fn import_exits_2_when_the_input_cannot_be_read() {
    let root = tempfile::tempdir().expect("temp dir");
    let missing = run(root.path(), &["import", "missing.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).starts_with("error: cannot read `missing.json`: "),
        "{}",
        stderr(&missing)
    );

    std::fs::write(
        root.path().join("broken.json"),
        "{\"tools\": [\n  {\"name\": }\n]}",
    )
    .expect("input");
    let broken = run(root.path(), &["import", "broken.json"]);
    assert_eq!(broken.status.code(), Some(2));
    assert!(
        stderr(&broken).starts_with("error: `broken.json`: the input is not JSON: ")
            && stderr(&broken).contains("line 2 column 12"),
        "{}",
        stderr(&broken)
    );
    assert_eq!(std::fs::read_dir(root.path()).expect("dir").count(), 1);

    let unknown = run(root.path(), &["import", "--from", "json", "broken.json"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains(r#"expected the format to be "auto", "mcp", "openai" or "bfcl""#),
        "{}",
        stderr(&unknown)
    );
}

/// A file of `tests/fixtures/import`.
fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What `import` writes and reports for two MCP tools, one needing a new name and a review (the
/// repository's README shows these files).
#[test]
fn import_writes_and_reports_what_the_import_fixtures_hold() {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = r#"{"tools":[
      {"name":"get-issue!","description":"Get details of a specific issue in a GitHub repository.","inputSchema":{"type":"object","properties":{"number":{"type":"integer"}}}},
      {"name":"list_issues","title":"List issues","description":"Lists issues.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}
    ]}"#;
    std::fs::write(root.path().join("tools.json"), tools).expect("input");
    let output = run(root.path(), &["import", "tools.json", "--out", "tools"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), fixture("report.txt"));
    assert_eq!(
        std::fs::read_to_string(root.path().join("tools/get_issue.toml")).expect("manifest"),
        fixture("get_issue.toml")
    );
}

/// A tool with a free-form map, which OpenAI strict mode cannot express.
const MAP_TOOL: &str = "name = \"labels_set\"\ntitle = \"Set labels\"\ndescription = \"Sets labels.\"\nsafety = \"destructive\"\nmode = \"sequential\"\n[input]\ntype = \"object\"\nrequired = [\"labels\"]\nproperties.labels = { type = \"object\", additionalProperties = { type = \"string\" } }\n";

/// A tool whose root is a choice (`anyOf`): MCP takes it, no OpenAI function can.
const CHOICE_TOOL: &str = "name = \"pick_one\"\ntitle = \"Pick one\"\ndescription = \"Takes a or b.\"\nsafety = \"read-only\"\nmode = \"parallel\"\n[input]\ntype = \"object\"\nproperties.a = { type = \"string\" }\nproperties.b = { type = \"string\" }\nanyOf = [{ required = [\"a\"] }, { required = [\"b\"] }]\n";

#[test]
fn a_tool_strict_mode_cannot_express_is_exported_without_it_unless_strict_is_required() {
    let root = repository();
    std::fs::write(root.path().join("tools/labels_set.toml"), MAP_TOOL).expect("manifest");
    let generated = run(root.path(), &["generate"]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let warnings = stderr(&generated);
    assert!(
        warnings.lines().any(|line| line.starts_with("warning: ")
            && line.contains("labels_set.toml: exported to openai with `strict: false`: tool `labels_set` at `/function/parameters/properties/labels`")
            && line.contains("(rule `openai.closed-objects`)")),
        "{warnings}"
    );
    assert!(!warnings.contains("left out of the openai"), "{warnings}");
    for (file, strict) in [
        ("openai.json", "\"strict\": false"),
        ("openai-responses.json", "\"strict\": false"),
    ] {
        let catalog: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.path().join("generated/providers").join(file))
                .expect("a catalog"),
        )
        .expect("JSON");
        let text = catalog.to_string();
        assert!(text.contains("labels_set"), "{file}: {text}");
        assert!(format!("{catalog:#}").contains(strict), "{file}");
    }
    let exported = run(root.path(), &["export", "--dialect", "openai"]);
    assert_eq!(exported.status.code(), Some(0), "{}", stderr(&exported));
    assert!(stdout(&exported).contains("labels_set"));
    assert!(
        stderr(&exported).contains("`strict: false`"),
        "{}",
        stderr(&exported)
    );

    // Where strict mode is required, the same tool is an error for `generate`, and is left
    // out of an export.
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        format!("{CONFIG}required_strict = true\n"),
    )
    .expect("config");
    let refused = run(root.path(), &["generate"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    assert!(
        stderr(&refused).contains("labels_set") && stderr(&refused).contains("required_strict"),
        "{}",
        stderr(&refused)
    );
    let exported = run(root.path(), &["export", "--dialect", "openai-responses"]);
    assert_eq!(exported.status.code(), Some(1), "{}", stderr(&exported));
    assert!(!stdout(&exported).contains("labels_set"));
    assert!(
        stderr(&exported).contains("left out of the openai-responses catalog"),
        "{}",
        stderr(&exported)
    );
    // A setting that is not a boolean names the key.
    std::fs::write(
        root.path().join("tool-manifest.toml"),
        format!("{CONFIG}required_strict = \"yes\"\n"),
    )
    .expect("config");
    let bad = run(root.path(), &["generate"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains(
            "error: tool-manifest.toml:4:19: `required_strict`: invalid type: string \"yes\", expected a boolean\n"
        ),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_tool_a_provider_cannot_express_is_a_warning_unless_the_provider_is_required() {
    let root = repository();
    std::fs::write(root.path().join("tools/pick_one.toml"), CHOICE_TOOL).expect("manifest");
    let generated = run(root.path(), &["generate"]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let warnings = stderr(&generated);
    assert!(
        warnings.contains("warning: ")
            && warnings.contains("pick_one.toml")
            && warnings.contains("left out of the openai catalog")
            && warnings.contains("(rule `openai.object-root`)"),
        "{warnings}"
    );
    // The Responses catalog leaves out the same tools: not reported twice.
    assert!(!warnings.contains("openai-responses"), "{warnings}");
    let openai = std::fs::read_to_string(root.path().join("generated/providers/openai.json"))
        .expect("the openai catalog");
    assert!(!openai.contains("pick_one"), "{openai}");
    let mcp = std::fs::read_to_string(root.path().join("generated/providers/mcp.json"))
        .expect("the mcp catalog");
    assert!(mcp.contains("pick_one"), "{mcp}");

    let exported = run(root.path(), &["export", "--dialect", "openai"]);
    assert_eq!(exported.status.code(), Some(1), "{}", stderr(&exported));
    assert!(!stdout(&exported).contains("pick_one"));
    assert!(
        stderr(&exported).contains("pick_one"),
        "{}",
        stderr(&exported)
    );
    let exported = run(root.path(), &["export", "--dialect", "mcp"]);
    assert_eq!(exported.status.code(), Some(0), "{}", stderr(&exported));

    std::fs::write(
        root.path().join("tool-manifest.toml"),
        format!("{CONFIG}required_providers = [\"openai\"]\n"),
    )
    .expect("config");
    let refused = run(root.path(), &["generate"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    assert!(
        stderr(&refused).contains("pick_one"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn export_needs_only_the_manifests() {
    let root = repository();
    std::fs::remove_file(root.path().join("tool-manifest.toml")).expect("no config");
    let exported = run(
        root.path(),
        &["export", "--dialect", "mcp", "--manifests", "tools"],
    );
    assert_eq!(exported.status.code(), Some(0), "{}", stderr(&exported));
    let definitions: serde_json::Value =
        serde_json::from_str(&stdout(&exported)).expect("the export is JSON");
    assert!(
        definitions
            .as_array()
            .is_some_and(|tools| !tools.is_empty()),
        "{definitions}"
    );

    // Without the flag or a config file, only `--manifests` is asked for.
    let missing = run(root.path(), &["export", "--dialect", "mcp"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert_eq!(
        stderr(&missing),
        "error: no `tool-manifest.toml` in the current directory, expected it or the flag `--manifests`\n"
    );

    // `--out` and `--docs` are not flags of `export`: it writes no file.
    let refused = run(
        root.path(),
        &[
            "export",
            "--dialect",
            "mcp",
            "--manifests",
            "tools",
            "--out",
            "x",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("unexpected argument '--out'"),
        "{}",
        stderr(&refused)
    );
}
