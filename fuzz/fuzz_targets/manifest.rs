//! Manifest parsing and generation with arbitrary text.
//!
//! Invariants: never a panic; a refused manifest has at least one diagnostic, each located in
//! the file (a line within the text, or the file itself) with a message that starts in lower
//! case and shows no invisible character; an accepted manifest renders every output (schemas,
//! index, provider exports, docs) and its generated Rust, twice identically.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolwright_manifest::manifest::parse_manifest;
use toolwright_manifest::outputs::{self, OutputDirs};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The file is named after the tool it declares (when it declares one plainly), so that
    // valid manifests get through to generation.
    let stem = text
        .lines()
        .find_map(|line| line.strip_prefix("name = \""))
        .and_then(|rest| rest.split('"').next())
        .filter(|name| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .unwrap_or("t");
    let path = format!("tools/{stem}.toml");
    match parse_manifest(Path::new(&path), text) {
        Err(diagnostics) => {
            assert!(!diagnostics.0.is_empty());
            let lines = text.split('\n').count();
            for d in &diagnostics.0 {
                assert!(d.line <= lines, "{d}");
                assert!(d.line == 0 || d.column >= 1, "{d}");
                let first = d.message.chars().next().expect("a message");
                assert!(first.is_lowercase() || first == '`' || first == '…', "{d}");
                assert!(
                    !d.message.chars().any(|c| c.is_control()
                        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
                    "{:?}",
                    d.message
                );
            }
        }
        Ok(spec) => {
            let dirs = OutputDirs {
                out: "generated".into(),
                docs: "docs/tools".into(),
                lock: Some("tools/tools.lock".into()),
            };
            let specs = [spec];
            let first = outputs::render(&specs, &dirs, &[]);
            let second = outputs::render(&specs, &dirs, &[]);
            match (&first, &second) {
                (Ok(a), Ok(b)) => assert_eq!(a.files, b.files, "rendering is deterministic"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("rendering twice disagreed"),
            }
            let code = toolwright_manifest::codegen::generate(&specs);
            let again = toolwright_manifest::codegen::generate(&specs);
            assert_eq!(
                code.as_ref().map_err(ToString::to_string),
                again.as_ref().map_err(ToString::to_string)
            );
        }
    }
});
