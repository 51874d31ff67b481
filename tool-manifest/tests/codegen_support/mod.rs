//! The check that generated Rust is formatted code: it parses, and printing the parsed file with
//! prettyplease gives the same text back (the blank lines between items aside, which
//! prettyplease does not write).

use tool_manifest::codegen::HEADER;

/// A character a doc comment must not hold: the generator writes its line as `#[doc = "…"]`.
fn is_comment_hostile(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// How much stack the check gets: `syn` and `prettyplease` recurse once per level of a nested
/// type, and an unoptimized build with every feature of `syn` (as the workspace unifies them)
/// needs more than a test thread's 2 MiB for the deepest tool the tests generate.
const CHECK_STACK_BYTES: usize = 64 << 20;

/// Panics unless `code` is the header, then Rust exactly as prettyplease prints it, with one
/// blank line between items and nowhere else (checked on a thread with [`CHECK_STACK_BYTES`]).
pub fn assert_formatted(code: &str) {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(CHECK_STACK_BYTES)
            .spawn_scoped(scope, || check_formatted(code))
            .expect("a thread for the check")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
}

/// [`assert_formatted`] on the calling thread.
fn check_formatted(code: &str) {
    let body = code
        .strip_prefix(HEADER)
        .and_then(|rest| rest.strip_prefix("\n\n"))
        .unwrap_or_else(|| panic!("no header line:\n{code}"));
    let file = syn::parse_file(code).unwrap_or_else(|e| panic!("not Rust ({e}):\n{code}"));

    // prettyplease writes every doc attribute as a `///` comment, even one a comment cannot
    // hold; the generator writes those as attributes.
    let mut expected = String::with_capacity(body.len());
    for line in prettyplease::unparse(&file).lines() {
        let trimmed = line.trim_start();
        match trimmed.strip_prefix("///") {
            Some(value) if value.chars().any(is_comment_hostile) => {
                let indent = &line[..line.len() - trimmed.len()];
                let literal = proc_macro2::Literal::string(value);
                expected.push_str(&format!("{indent}#[doc = {literal}]"));
            }
            _ => expected.push_str(line),
        }
        expected.push('\n');
    }
    let lines: Vec<&str> = body.lines().collect();
    let without_blank: String = lines
        .iter()
        .filter(|line| !line.is_empty())
        .flat_map(|line| [*line, "\n"])
        .collect();
    if without_blank != expected {
        let at = without_blank
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "not formatted as prettyplease formats it, first difference at line {}:\n  generated: {:?}\n  expected:  {:?}\n{code}",
            at + 1,
            without_blank.lines().nth(at),
            expected.lines().nth(at),
        );
    }

    // Blank lines: one, between two items.
    assert!(code.ends_with('\n') && !code.ends_with("\n\n"), "{code}");
    for (i, line) in lines.iter().enumerate() {
        if !line.is_empty() {
            continue;
        }
        let before = i
            .checked_sub(1)
            .and_then(|j| lines.get(j))
            .map(|l| l.trim());
        let after = lines.get(i + 1).map(|l| l.trim_start());
        assert!(
            before.is_some_and(|l| l.ends_with('}') || l.ends_with(';')),
            "a blank line after {before:?} (line {}):\n{code}",
            i + 3
        );
        assert!(
            after.is_some_and(|l| ["///", "#[", "pub ", "impl "]
                .iter()
                .any(|start| l.starts_with(start))),
            "a blank line before {after:?} (line {}):\n{code}",
            i + 3
        );
    }
}
