//! Every mutation of a valid manifest (a character deleted, the text cut short, a character
//! inserted) is either accepted or rejected with located, well-formed diagnostics: never a panic.

use std::path::Path;

use toolwright_manifest::manifest::parse_manifest;

const MANIFEST: &str = include_str!("fixtures/tools/drawing_create.toml");
const PATH: &str = "tools/drawing_create.toml";

/// Checks one mutated text; returns whether it was rejected.
fn check(text: &str, what: &str) -> bool {
    let lines = text.lines().count().max(1) + 1;
    match parse_manifest(Path::new(PATH), text) {
        Ok(spec) => {
            assert_eq!(spec.name, "drawing_create", "{what}");
            false
        }
        Err(diagnostics) => {
            assert!(
                !diagnostics.0.is_empty(),
                "{what}: rejected without a diagnostic"
            );
            for d in &diagnostics.0 {
                assert_eq!(d.file, Path::new(PATH), "{what}");
                assert!(
                    (1..=lines).contains(&d.line),
                    "{what}: line {} of {lines}: {d}",
                    d.line
                );
                assert!(d.column >= 1, "{what}: {d}");
                let first = d.message.chars().next().expect("a message");
                assert!(
                    first.is_lowercase() || first == '`',
                    "{what}: messages start in lower case: {d}"
                );
            }
            true
        }
    }
}

fn boundaries() -> Vec<usize> {
    MANIFEST.char_indices().map(|(i, _)| i).collect()
}

#[test]
fn the_unmutated_manifest_is_valid() {
    assert!(!check(MANIFEST, "original"));
}

#[test]
fn deleting_any_character_never_panics() {
    let mut rejected = 0;
    for i in boundaries() {
        let mut text = MANIFEST.to_owned();
        text.remove(i);
        rejected += usize::from(check(&text, &format!("delete at {i}")));
    }
    assert!(rejected > 0, "some deletions break the manifest");
}

#[test]
fn cutting_the_text_anywhere_never_panics() {
    let mut rejected = 0;
    for i in boundaries() {
        rejected += usize::from(check(&MANIFEST[..i], &format!("cut at {i}")));
    }
    assert!(rejected > 0);
}

#[test]
fn inserting_syntax_characters_never_panics() {
    for i in boundaries().into_iter().step_by(3) {
        for c in ['"', '[', '{', '=', '\n', '-', '9', 'é'] {
            let mut text = MANIFEST.to_owned();
            text.insert(i, c);
            check(&text, &format!("insert {c:?} at {i}"));
        }
    }
}
