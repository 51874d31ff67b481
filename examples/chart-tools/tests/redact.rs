//! `chart-tools redact` end to end: a prompt on stdin, the redacted prompt on stdout, the keys
//! taken from the child's environment.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// The environment variables whose values are redacted.
const KEY_VARIABLES: [&str; 2] = ["PROVIDER_API_KEY", "SEARCH_API_KEY"];

const PROVIDER_KEY: &str = "prov-Key_123!xyz";
const SEARCH_KEY: &str = "q9#search.key/987";

/// Runs `chart-tools redact` with exactly the key variables of `keys` set and `input` on stdin.
fn redact_bytes(keys: &[(&str, &str)], input: &[u8]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chart-tools"));
    command
        .arg("redact")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in KEY_VARIABLES {
        command.env_remove(name);
    }
    for (name, value) in keys {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input).expect("the binary reads its input");
    drop(stdin);
    child.wait_with_output().expect("the binary exits")
}

/// The redacted prompt, after checking that the command succeeded and said nothing on stderr.
fn redact(keys: &[(&str, &str)], input: &str) -> String {
    let output = redact_bytes(keys, input.as_bytes());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}: {stderr}",
        output.status
    );
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
    String::from_utf8(output.stdout).expect("the prompt comes back as UTF-8")
}

fn both_keys() -> [(&'static str, &'static str); 2] {
    [
        ("PROVIDER_API_KEY", PROVIDER_KEY),
        ("SEARCH_API_KEY", SEARCH_KEY),
    ]
}

#[test]
fn the_configured_keys_are_redacted_wherever_they_appear() {
    let prompt = format!(
        "my key is {PROVIDER_KEY}, again:{PROVIDER_KEY}{PROVIDER_KEY}\nsearch with ?k={SEARCH_KEY}&x=1\n"
    );
    assert_eq!(
        redact(&both_keys(), &prompt),
        "my key is [REDACTED], again:[REDACTED][REDACTED]\nsearch with ?k=[REDACTED]&x=1\n"
    );
    // One key alone is enough; the other variable unset redacts nothing more.
    assert_eq!(
        redact(&[("SEARCH_API_KEY", SEARCH_KEY)], &prompt),
        format!(
            "my key is {PROVIDER_KEY}, again:{PROVIDER_KEY}{PROVIDER_KEY}\nsearch with ?k=[REDACTED]&x=1\n"
        )
    );
    // Without the variables, the same values are ordinary text.
    assert_eq!(redact(&[], &prompt), prompt);
}

#[test]
fn sk_keys_and_auth_values_are_redacted() {
    let cases = [
        (
            "use sk-proj-abcDEF123_-x9 for this",
            "use [REDACTED] for this",
        ),
        ("key=sk-ant-api03-Zz", "key=[REDACTED]"),
        (
            "curl -H 'Authorization: Bearer abc.def-ghi~jk+l/m=='",
            "curl -H 'Authorization: Bearer [REDACTED]'",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA==\n",
            "Authorization: Basic [REDACTED]\n",
        ),
        ("BEARER xyz123", "BEARER [REDACTED]"),
    ];
    for (prompt, expected) in cases {
        assert_eq!(redact(&both_keys(), prompt), expected, "{prompt}");
    }
}

#[test]
fn home_directories_become_local_path() {
    let cases = [
        ("/home/alice/data/q3.csv", "[LOCAL_PATH]/data/q3.csv"),
        (
            "open /Users/bob/Desktop/chart.png now",
            "open [LOCAL_PATH]/Desktop/chart.png now",
        ),
        (
            r"see C:\Users\carol\Documents\a.txt",
            r"see [LOCAL_PATH]\Documents\a.txt",
        ),
        (
            "file:///home/dave/x and /opt/home/x",
            "file://[LOCAL_PATH]/x and /opt/home/x",
        ),
        ("see /home/alice.", "see [LOCAL_PATH]."),
    ];
    for (prompt, expected) in cases {
        assert_eq!(redact(&both_keys(), prompt), expected, "{prompt}");
    }
}

#[test]
fn everything_at_once_and_nothing_of_a_secret_is_left() {
    let prompt = format!(
        "Plot /home/alice/q3.csv with Bearer tok3n.value, key {PROVIDER_KEY} and sk-abc123, \
         search key {SEARCH_KEY}.\r\nThanks — ünïcödé stays 📈\r\n"
    );
    let redacted = redact(&both_keys(), &prompt);
    assert_eq!(
        redacted,
        "Plot [LOCAL_PATH]/q3.csv with Bearer [REDACTED], key [REDACTED] and [REDACTED], \
         search key [REDACTED].\r\nThanks — ünïcödé stays 📈\r\n"
    );
    for secret in [PROVIDER_KEY, SEARCH_KEY, "tok3n", "sk-abc123", "alice"] {
        assert!(!redacted.contains(secret), "`{secret}` is gone: {redacted}");
    }
}

#[test]
fn clean_text_comes_back_byte_for_byte() {
    let cases = [
        String::new(),
        "\n".to_owned(),
        "no newline at the end".to_owned(),
        "Draw a basic chart of AAPL, bearer of good news; a risk-free desk-top; /opt/home/x ~/home/y\n"
            .to_owned(),
        "tabs\tand\r\nCRLF\r\n  trailing spaces  \n\n\n".to_owned(),
        "ünïcödé, 日本語, emoji 📈📉, NUL \u{0} and BOM \u{feff} too".to_owned(),
        "lorem ipsum dolor sit amet\n".repeat(50_000),
    ];
    for prompt in cases {
        assert_eq!(redact(&both_keys(), &prompt), prompt, "{:.80}", prompt);
    }
}

#[test]
fn empty_keys_are_ignored() {
    let prompt = "Bearer abc and plain words\n";
    let empty = [("PROVIDER_API_KEY", ""), ("SEARCH_API_KEY", "")];
    assert_eq!(
        redact(&empty, prompt),
        "Bearer [REDACTED] and plain words\n"
    );
    assert_eq!(redact(&empty, "plain words\n"), "plain words\n");
    // An empty key next to a real one: the real one still counts.
    let mixed = [("PROVIDER_API_KEY", ""), ("SEARCH_API_KEY", SEARCH_KEY)];
    assert_eq!(
        redact(&mixed, &format!("plain {SEARCH_KEY} words")),
        "plain [REDACTED] words"
    );
}

#[test]
fn a_large_prompt_is_redacted_throughout() {
    let chunk = format!("some text {PROVIDER_KEY} /home/erin/f Bearer t0k ");
    let prompt = chunk.repeat(20_000);
    let redacted = redact(&both_keys(), &prompt);
    assert_eq!(
        redacted,
        "some text [REDACTED] [LOCAL_PATH]/f Bearer [REDACTED] ".repeat(20_000)
    );
}

#[test]
fn invalid_utf8_is_a_clear_error() {
    for input in [
        &b"hello \xff world"[..],
        &b"\xc3\x28"[..],
        &b"Bearer abc \xed\xa0\x80"[..],
    ] {
        let output = redact_bytes(&both_keys(), input);
        assert_eq!(output.status.code(), Some(2), "{input:?}");
        assert!(output.stdout.is_empty(), "nothing is written");
        let stderr = String::from_utf8(output.stderr).expect("the error is UTF-8");
        assert!(
            stderr.starts_with("error: cannot read the prompt from stdin (UTF-8 text expected): "),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!stderr.contains(PROVIDER_KEY) && !stderr.contains(SEARCH_KEY));
    }
}
