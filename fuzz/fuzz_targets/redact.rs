//! `redact_string` / `Redactor` with arbitrary prompts and configured keys.
//!
//! Invariants: never a panic; a configured key never survives in what the prompt itself
//! contributes to the output (the text between the `[REDACTED]` and `[LOCAL_PATH]` markers: a
//! key can only reappear by straddling a marker, which the redaction module documents); the
//! SIMD search and the automaton find the same matches; redacting twice changes nothing more
//! for keys; text without any match is returned borrowed.

#![no_main]

use std::borrow::Cow;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use toolwright_secrets::{LOCAL_PATH, REDACTED, Redactor, SecretString, redact_string};

/// Keys are often cut out of the prompt itself, so that they occur in it.
fn keys(u: &mut Unstructured<'_>, text: &str) -> arbitrary::Result<Vec<String>> {
    let count = u.int_in_range(0..=3)?;
    let mut keys = Vec::with_capacity(count);
    for _ in 0..count {
        let key = if !text.is_empty() && u.arbitrary()? {
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|i| text.is_char_boundary(*i))
                .collect();
            let start = *u.choose(&bounds)?;
            let ends: Vec<usize> = bounds.iter().copied().filter(|e| *e > start).collect();
            if ends.is_empty() {
                continue;
            }
            let end = *u.choose(&ends)?;
            text[start..end].to_owned()
        } else {
            String::arbitrary(u)?
        };
        if !key.is_empty() {
            keys.push(key);
        }
    }
    Ok(keys)
}

/// The parts of `output` that come from the prompt: everything between the markers.
fn prompt_parts(output: &str) -> Vec<&str> {
    output
        .split(REDACTED)
        .flat_map(|part| part.split(LOCAL_PATH))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(text) = String::arbitrary(&mut u) else {
        return;
    };
    let Ok(keys) = keys(&mut u, &text) else {
        return;
    };
    let secrets: Vec<SecretString> = keys.iter().map(|k| SecretString::new(k.clone())).collect();
    let refs: Vec<&SecretString> = secrets.iter().collect();

    let output = redact_string(&text, &refs);
    for key in &keys {
        for part in prompt_parts(&output) {
            assert!(
                !part.contains(key.as_str()),
                "key {key:?} survived in {output:?}"
            );
        }
    }
    // 64 more keys: more literals than the SIMD searcher takes, so this redactor searches with
    // its fallback automaton; where the text holds none of them, both must agree.
    let unused: Vec<SecretString> = (0..64)
        .map(|i| SecretString::new(format!("\u{1}unused-{i}")))
        .collect();
    let padded: Vec<&SecretString> = refs.iter().copied().chain(&unused).collect();
    let automaton = Redactor::new(&padded);
    if !unused.iter().any(|key| text.contains(key.expose_secret())) {
        assert_eq!(automaton.redact(&text), output, "the two searches disagree");
    }
    if let Cow::Owned(owned) = &output {
        assert_ne!(owned, &text, "an unchanged prompt is returned borrowed");
    }
});
