//! Property tests of prompt redaction.
//!
//! Clean text is drawn from an alphabet without upper-case letters, `-`, `/`, `\` or `b` (so it
//! cannot spell a credential, a home prefix or a scheme word) plus fixed near-misses. Every secret
//! inserted into it carries a `Q` in its sensitive part, so "no secret survives" is checked as "no
//! `Q` in the output".

use std::borrow::Cow;

use proptest::prelude::*;
use toolwright_secrets::{Redactor, SecretString};

fn clean_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9 .,;:!?()\n\"'éü€日経]{1,12}",
        1 => prop::sample::select(vec![
            "/usr/share/data ",
            "/opt/home/reports/q3.csv ",
            "the users/admins list ",
            "a basic chart ",
            "risk-free rate ",
            "http://example.com/home/index.html ",
            "~/home/x ",
            "sk- ",
            "déjà vu ",
            "/rooted/x ",
            "/opt/root/x ",
            "https://home/x ",
            "https://example.com/../home/x ",
            "tmp/../home/x ",
            "a/./home/x ",
            "/home/../x ",
            "the%20bearer%20token ",
        ])
        .prop_map(str::to_owned),
    ]
}

fn clean_text() -> impl Strategy<Value = String> {
    prop::collection::vec(clean_piece(), 0..24).prop_map(|pieces| pieces.concat())
}

fn sk_key() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![" ", "\"", "'", "=", "(", "\n", ": "]),
        prop::sample::select(vec!["sk-", "sk-proj-", "sk-ant-api03-"]),
        "[A-Za-z0-9_-]{0,20}Q[A-Za-z0-9_-]{0,20}",
        prop::sample::select(vec![" ", "\"", ".", ",", "\n", ")"]),
    )
        .prop_map(|(before, prefix, body, after)| format!("{before}{prefix}{body}{after}"))
}

fn auth_value() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            " ", "\"", "'", ": ", "\n", "=", "%3A%20", "%3A", "%22",
        ]),
        prop::sample::select(vec!["Bearer", "Basic", "BEARER", "bearer", "basic"]),
        prop::sample::select(vec![" ", "\t", "  ", "+", "%20", "%09"]),
        "[A-Za-z0-9._~+/-]{0,20}Q[A-Za-z0-9._~+/-]{0,20}={0,2}",
        any::<bool>(),
        prop::sample::select(vec![" ", "\"", "'", ",", "\n", "", "&", "%22"]),
    )
        .prop_map(|(before, scheme, blank, token, encode, after)| {
            // In a URL, the value's `+`, `/` and `=` padding are percent-encoded.
            let token = if encode {
                token
                    .replace('+', "%2B")
                    .replace('/', "%2f")
                    .replace('=', "%3D")
            } else {
                token
            };
            format!("{before}{scheme}{blank}{token}{after}")
        })
}

fn home_path() -> impl Strategy<Value = String> {
    let unquoted = (
        prop::sample::select(vec![" ", "\n", "(", "=", ": ", "file://", "<"]),
        prop::sample::select(vec![
            "/home/",
            "/Users/",
            "C:\\Users\\",
            "C:/Users/",
            "c:\\\\users\\\\",
            "D:\\USERS\\",
            // Prefixes that normalize to a home directory.
            "/home//",
            "/home/./",
            "//Users/",
            "/./home/",
            "/home/../home/",
            "/tmp/../Users/",
            "/root/../home/",
            "C:\\Users\\.\\",
        ]),
        "[a-zé0-9._-]{0,6}Q[a-zé0-9._-]{0,6}",
        prop::sample::select(vec![
            "/data/q3.csv",
            "\\x.csv",
            "",
            " ",
            ".",
            ",",
            ")",
            "\n",
            ":",
        ]),
    )
        .prop_map(|(before, prefix, name, after)| format!("{before}{prefix}{name}{after}"));
    let quoted = (
        prop::sample::select(vec!["\"", "'", "`"]),
        prop::sample::select(vec!["/home/", "/Users/", "C:\\Users\\", "C:/Users/"]),
        "[a-zé]{0,5}Q[a-zé]{0,5} [a-zé]{0,5}Q[a-zé]{0,5}",
        prop::sample::select(vec!["/x", "\\Desktop", ""]),
    )
        .prop_map(|(quote, prefix, name, rest)| format!("{quote}{prefix}{name}{rest}{quote}"));
    prop_oneof![3 => unquoted, 1 => quoted]
}

/// A configured key: any characters, with a `Q` somewhere.
fn configured_key() -> impl Strategy<Value = String> {
    ("\\PC{0,12}", "\\PC{0,12}")
        .prop_filter("keys hold no marker text", |(a, b)| {
            !format!("{a}{b}").contains(['[', ']'])
        })
        .prop_map(|(a, b)| format!("{a}Q{b}"))
}

fn secret(keys: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        sk_key(),
        auth_value(),
        home_path(),
        prop::sample::select(keys),
    ]
}

fn redactor(keys: &[String]) -> Redactor {
    let secrets: Vec<SecretString> = keys.iter().map(|k| SecretString::new(k.as_str())).collect();
    Redactor::new(&secrets.iter().collect::<Vec<_>>())
}

fn prompt_with_secrets() -> impl Strategy<Value = (Vec<String>, String)> {
    prop::collection::vec(configured_key(), 1..3).prop_flat_map(|keys| {
        let parts = prop::collection::vec((clean_text(), secret(keys.clone())), 1..8);
        (Just(keys), parts, clean_text()).prop_map(|(keys, parts, tail)| {
            let mut text: String = parts
                .into_iter()
                .map(|(clean, secret)| clean + &secret)
                .collect();
            text.push_str(&tail);
            (keys, text)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_secret_survives((keys, text) in prompt_with_secrets()) {
        let out = redactor(&keys).redact(&text);
        prop_assert!(matches!(out, Cow::Owned(_)));
        prop_assert!(!out.contains('Q'), "a secret survived in {:?}\nfrom {:?}", out, text);
        for key in &keys {
            prop_assert!(!out.contains(key.as_str()));
        }
    }

    #[test]
    fn both_searchers_agree((keys, text) in prompt_with_secrets(), clean in clean_text()) {
        let simd = redactor(&keys);
        // 64 more keys that no text holds: more literals than the SIMD searcher takes, so this
        // one searches with the fallback automaton.
        let mut padded = keys.clone();
        padded.extend((0..64).map(|i| format!("\u{1}unused-{i}")));
        let automaton = redactor(&padded);
        let search = format!("{automaton:?}");
        prop_assert!(search.contains("\"automaton\""), "{}", search);
        prop_assert_eq!(simd.redact(&text), automaton.redact(&text));
        prop_assert_eq!(simd.redact(&clean), automaton.redact(&clean));
    }

    #[test]
    fn redacting_twice_changes_nothing_more((keys, text) in prompt_with_secrets()) {
        let redactor = redactor(&keys);
        let once = redactor.redact(&text).into_owned();
        let twice = redactor.redact(&once);
        prop_assert!(matches!(twice, Cow::Borrowed(_)), "{:?} became {:?}", once, twice);
    }

    #[test]
    fn clean_text_is_returned_borrowed(
        keys in prop::collection::vec(configured_key(), 0..3),
        text in clean_text(),
    ) {
        let out = redactor(&keys).redact(&text);
        prop_assert!(matches!(out, Cow::Borrowed(t) if t == text), "{:?} became {:?}", text, out);
    }

    #[test]
    fn any_text_is_handled_without_panicking(
        text in "[/\\\\:CcUuSsersomhkBbaicEARIK \"'.=+%20é\n-]{0,60}|\\PC{0,60}",
        key in "\\PC{0,6}",
    ) {
        let out = redactor(&[key]).redact(&text);
        // Whatever changed, the result is well-formed text the markers account for.
        if let Cow::Owned(out) = out {
            prop_assert!(out.contains("[REDACTED]") || out.contains("[LOCAL_PATH]"));
        }
    }
}
