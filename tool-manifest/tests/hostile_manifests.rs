//! Hostile manifests: deep nesting, recursive schemas, huge files, floods of mistakes and odd
//! Unicode. Each is a clear, located error, on an ordinary test thread: never a hang, a panic
//! or a stack overflow.

use std::path::Path;

use toolwright_manifest::diagnostic::{Diagnostic, Diagnostics};
use toolwright_manifest::manifest::{
    MAX_DIAGNOSTICS_PER_FILE, MAX_MANIFEST_BYTES, MAX_SCHEMA_DEPTH, load_dir, parse_manifest,
};

const PATH: &str = "tools/t.toml";

const HEAD: &str = "name = \"t\"\ntitle = \"T\"\ndescription = \"D.\"\nsafety = \"read-only\"\nmode = \"parallel\"\n";

fn errors(text: &str) -> Diagnostics {
    errors_at(PATH, text)
}

fn errors_at(path: &str, text: &str) -> Diagnostics {
    let diagnostics = parse_manifest(Path::new(path), text).expect_err("the manifest is refused");
    assert!(!diagnostics.0.is_empty());
    diagnostics
}

/// The one diagnostic of a refused manifest, which must be located on a line of the text.
fn located(text: &str) -> Diagnostic {
    let diagnostics = errors(text);
    let lines = text.lines().count().max(1);
    for d in &diagnostics.0 {
        assert!(
            (1..=lines).contains(&d.line) && d.column >= 1,
            "located within the text: {d}"
        );
    }
    diagnostics.0[0].clone()
}

#[test]
fn deep_inline_arrays_and_tables_are_located_toml_errors() {
    for n in [100, 10_000, 200_000] {
        let arrays = format!(
            "{HEAD}[input]\ntype = \"object\"\nx = {}1{}\n",
            "[".repeat(n),
            "]".repeat(n)
        );
        let d = located(&arrays);
        assert_eq!(d.line, 8, "{d}");
        assert!(d.message.contains("recursion"), "{d}");

        let tables = format!(
            "{HEAD}[input]\ntype = \"object\"\nx = {}1{}\n",
            "{a=".repeat(n),
            "}".repeat(n)
        );
        let d = located(&tables);
        assert_eq!(d.line, 8, "{d}");
    }
}

#[test]
fn deep_dotted_keys_and_headers_are_located_on_their_line() {
    for n in [100, 10_000] {
        let dotted = format!(
            "{HEAD}[input]\ntype = \"object\"\nx{} = 1\n",
            ".a".repeat(n)
        );
        let d = located(&dotted);
        assert_eq!((d.line, d.column), (8, 1), "{d}");
        assert!(d.message.contains("recursion limit"), "{d}");

        let header = format!(
            "{HEAD}[input]\ntype = \"object\"\n[input{}]\ntype = \"string\"\n",
            ".properties.a".repeat(n)
        );
        let d = located(&header);
        assert_eq!((d.line, d.column), (8, 1), "{d}");
    }
}

/// An `[input]` whose object properties nest `levels` deep (two tables per level), written with
/// a header, dotted keys and inline tables so that no single TOML construct crosses its limit.
fn nested_properties(levels: usize, split: bool) -> String {
    let header = if split { levels / 3 } else { 0 };
    let dotted = if split { levels / 3 } else { 0 };
    let inline = levels - header - dotted;
    let mut text = format!("{HEAD}[input]\ntype = \"object\"\n");
    if header > 0 {
        text.push_str(&format!("[input{}]\n", ".properties.a".repeat(header)));
        text.push_str("type = \"object\"\n");
    }
    text.push_str(&"properties.a.".repeat(dotted));
    text.push_str("properties = ");
    text.push_str(&"{ a = { type = \"object\", properties = ".repeat(inline));
    text.push_str("{}");
    text.push_str(&" } }".repeat(inline));
    text.push('\n');
    text
}

#[test]
fn schemas_nested_past_the_limit_are_refused_where_they_cross_it() {
    let text = nested_properties(60, true);
    let diagnostics = errors(&text);
    let d = &diagnostics.0[0];
    assert_eq!(
        diagnostics.0.len(),
        1,
        "one error, not one per level: {diagnostics}"
    );
    assert!(
        d.message.starts_with(&format!(
            "tables and arrays are nested deeper than {MAX_SCHEMA_DEPTH} levels at `/properties/a/properties/a/"
        )),
        "{d}"
    );
    assert!(d.line >= 8, "{d}");

    // Shallow enough: accepted, nested objects and all.
    let ok = nested_properties(10, false);
    parse_manifest(Path::new(PATH), &ok).expect("ten levels of objects are fine");
}

#[test]
fn deep_example_inputs_are_refused_too() {
    let text = format!(
        "{HEAD}[input]\ntype = \"object\"\n\n[[examples]]\ndescription = \"e\"\ninput = {{ x = {}1{} }}\n",
        "[".repeat(40),
        "]".repeat(40)
    );
    let diagnostics = errors(&text);
    assert!(
        diagnostics
            .0
            .iter()
            .any(|d| d.message.contains("nested deeper than") && d.line == 11),
        "{diagnostics}"
    );
}

#[test]
fn references_and_recursive_schemas_load_and_generate_without_recursing_forever() {
    let cases = [
        // A cycle through `$defs`.
        "properties.a = { \"$ref\" = \"#/$defs/b\" }\n\"$defs\".b = { \"$ref\" = \"#/$defs/c\" }\n\"$defs\".c = { \"$ref\" = \"#/$defs/b\" }\n",
        // The root referring to itself.
        "properties.a = { \"$ref\" = \"#\" }\n",
        // A recursive array type.
        "properties.a = { type = \"array\", items = { \"$ref\" = \"#\" } }\n",
        // A dynamic reference.
        "properties.a = { \"$dynamicRef\" = \"#node\" }\n",
    ];
    for case in cases {
        let text = format!("{HEAD}[input]\ntype = \"object\"\n{case}");
        // Valid schemas load; one `jsonschema` cannot compile is a located error.
        match parse_manifest(Path::new(PATH), &text) {
            Ok(spec) => {
                let code = toolwright_manifest::codegen::generate(&[spec]).expect("generated");
                assert!(code.contains("pub struct Input"), "{case}");
            }
            Err(diagnostics) => {
                assert!(diagnostics.0.iter().all(|d| d.line >= 6), "{diagnostics}");
            }
        }
    }
}

/// A remote reference is never fetched (`jsonschema` is built without its resolvers): the manifest
/// is refused at its `[input]`, saying the schema cannot be compiled.
#[test]
fn a_remote_reference_is_never_fetched_and_is_refused_at_the_schema() {
    let text = format!(
        "{HEAD}[input]\ntype = \"object\"\nproperties.a = {{ \"$ref\" = \"https://example.com/a.json\" }}\n"
    );
    let error = located(&text);
    assert_eq!(error.line, 6, "{error}");
    assert!(
        error
            .message
            .contains("the input schema cannot be compiled"),
        "{error}"
    );
}

#[test]
fn a_huge_manifest_is_refused_where_it_crosses_the_limit() {
    let filler = format!("# {}\n", "x".repeat(1000));
    let text = format!(
        "{HEAD}[input]\ntype = \"object\"\n{}",
        filler.repeat(2 * 1024)
    );
    assert!(text.len() > MAX_MANIFEST_BYTES);
    let diagnostics = errors(&text);
    assert_eq!(diagnostics.0.len(), 1);
    let d = &diagnostics.0[0];
    assert!(
        d.message.starts_with(&format!(
            "the manifest is {} bytes, more than the {MAX_MANIFEST_BYTES}",
            text.len()
        )),
        "{d}"
    );
    let (line, column) = Diagnostic::line_col(&text, MAX_MANIFEST_BYTES);
    assert_eq!((d.line, d.column), (line, column));

    // The limit falls inside a multi-byte character: the location is still a character.
    let wide = format!("{HEAD}# {}\n", "é".repeat(MAX_MANIFEST_BYTES));
    let d = &errors(&wide).0[0];
    assert!(d.line == 6 && d.column > 1, "{d}");
}

#[test]
fn a_huge_file_in_a_directory_is_refused_and_the_others_still_checked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let huge = dir.path().join("huge.toml");
    let file = std::fs::File::create(&huge).expect("create");
    // Sparse: the size is reported without reading the file.
    file.set_len(64 * MAX_MANIFEST_BYTES as u64).expect("size");
    std::fs::write(
        dir.path().join("ok.toml"),
        format!("name = \"wrong\"\n{}", &HEAD[11..]),
    )
    .expect("write");
    let diagnostics = load_dir(dir.path()).specs.expect_err("refused");
    let text = diagnostics.to_string();
    assert!(
        text.contains("huge.toml: the manifest is 67108864 bytes, more than the 1048576"),
        "{text}"
    );
    assert!(
        text.contains("ok.toml:1:8: tool name `wrong` differs from the file stem `ok`"),
        "{text}"
    );
}

#[test]
fn a_flood_of_mistakes_is_cut_to_a_bounded_list() {
    let keys: String = (0..50_000).map(|i| format!("k{i} = 1\n")).collect();
    let text = format!("{keys}{HEAD}[input]\ntype = \"object\"\n");
    assert!(text.len() < MAX_MANIFEST_BYTES);
    let diagnostics = errors(&text);
    assert_eq!(diagnostics.0.len(), MAX_DIAGNOSTICS_PER_FILE + 1);
    let summary = diagnostics
        .0
        .iter()
        .find(|d| d.message.starts_with("too many mistakes"))
        .expect("a summary for the file");
    assert_eq!(
        summary.message,
        format!(
            "too many mistakes: {} more, the first of them here (only the first {MAX_DIAGNOSTICS_PER_FILE} are listed)",
            50_000 - MAX_DIAGNOSTICS_PER_FILE
        )
    );
    // Located at the first mistake not listed: one of the unknown keys.
    let line = text
        .lines()
        .nth(summary.line - 1)
        .expect("a line of the text");
    assert!(line.starts_with('k') && summary.column == 1, "{summary}");
    assert!(
        diagnostics
            .0
            .iter()
            .filter(|d| d.line == summary.line)
            .count()
            == 1,
        "that mistake is not listed: {summary}"
    );
}

/// Mistakes of every kind count toward the bound: invalid TOML, and those of a schema file.
#[test]
fn floods_of_syntax_and_schema_file_mistakes_are_cut_too() {
    let lines: String = (0..1_000).map(|i| format!("k{i} = \n")).collect();
    let diagnostics = errors(&format!("{HEAD}{lines}"));
    assert_eq!(
        diagnostics.0.len(),
        MAX_DIAGNOSTICS_PER_FILE + 1,
        "{diagnostics}"
    );
    assert!(
        diagnostics
            .0
            .iter()
            .any(|d| d.message.starts_with("too many mistakes")),
        "{diagnostics}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let numbers: Vec<String> = (0..1_000).map(|_| "-0".to_owned()).collect();
    std::fs::write(
        dir.path().join("t.input.json"),
        format!("{{\"enum\": [{}]}}", numbers.join(", ")),
    )
    .expect("schema file");
    std::fs::write(
        dir.path().join("t.toml"),
        format!("{HEAD}input = {{ file = \"t.input.json\" }}\n"),
    )
    .expect("manifest");
    let diagnostics = load_dir(dir.path()).specs.expect_err("refused");
    assert_eq!(diagnostics.0.len(), MAX_DIAGNOSTICS_PER_FILE + 1);
    let summary = diagnostics.0.last().expect("a summary");
    assert_eq!(
        (summary.line, summary.column),
        (6, 18),
        "located where the manifest names the file: {summary}"
    );
    assert!(
        summary.message.starts_with(&format!(
            "too many mistakes: {} more",
            1_000 - MAX_DIAGNOSTICS_PER_FILE
        )),
        "{summary}"
    );
}

#[test]
fn a_megabyte_key_is_quoted_by_prefix_and_not_compared() {
    let text = format!(
        "{HEAD}{} = 1\n[input]\ntype = \"object\"\n",
        "k".repeat(MAX_MANIFEST_BYTES - 200)
    );
    let d = located(&text);
    assert!(d.message.starts_with("unknown key `kkkk"), "{d}");
    assert!(!d.message.contains("did you mean"), "{d}");
    assert!(d.message.len() < 400, "{} bytes", d.message.len());
}

/// True when `text` holds a character that hides or reorders what is shown.
fn has_invisible(text: &str) -> bool {
    text.chars().any(|c| {
        c.is_control() && c != '\n' || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    })
}

#[test]
fn odd_unicode_in_names_keys_and_stems_is_shown_escaped() {
    let cases = [
        (
            PATH,
            format!(
                "name = \"t\\u202e\\u0000é\"\n{}[input]\ntype = \"object\"\n",
                &HEAD[11..]
            ),
        ),
        (
            PATH,
            format!("{HEAD}\"\\u202ek\\u200b\" = 1\n[input]\ntype = \"object\"\n"),
        ),
        (
            "tools/t\u{202e}\u{7}é.toml",
            format!("{HEAD}[input]\ntype = \"object\"\n"),
        ),
        (
            PATH,
            format!(
                "{HEAD}[input]\ntype = \"object\"\nproperties.\"a\\u2066\" = {{ type = \"str\\u0007ng\" }}\n"
            ),
        ),
        (
            PATH,
            // A value of the wrong type is not quoted (`found a string`); one that is not an
            // accepted word is, escaped.
            format!("{HEAD}[input]\ntype = \"\\ufeff\\u202e\"\nproperties = \"\\ufeff\\u202e\"\n"),
        ),
    ];
    for (path, text) in cases {
        let diagnostics = errors_at(path, &text);
        for d in &diagnostics.0 {
            assert!(!has_invisible(&d.message), "{:?}", d.message);
            assert!(d.line >= 1, "{d}");
        }
        let all = diagnostics.to_string();
        assert!(all.contains("\\u{"), "escaped: {all:?}");
    }
}
