//! Tables of prompt redaction cases, one per rule of the spec, plus text that must stay as it is.

use std::borrow::Cow;

use toolwright_secrets::{Redactor, SecretString, redact_string};

/// Runs a table with the redactor of `keys` and with [`on_the_fallback`]: each input must become
/// the expected text, borrowed exactly when unchanged.
fn check(keys: &[&str], cases: &[(&str, &str)]) {
    check_with(&with_keys(keys), cases);
    check_with(&on_the_fallback(keys), cases);
}

fn check_with(redactor: &Redactor, cases: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for &(input, expected) in cases {
        let got = redactor.redact(input);
        if got != expected {
            failures.push(format!(
                "{input:?}\n   expected {expected:?}\n   got      {got:?}"
            ));
            continue;
        }
        let borrowed = matches!(got, Cow::Borrowed(_));
        if borrowed != (input == expected) {
            failures.push(format!(
                "{input:?}: borrowed = {borrowed}, but the text {} changed",
                if input == expected { "has not" } else { "has" }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed with {redactor:?}:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

const CREDENTIALS: &[(&str, &str)] = &[
    (
        "Authorization: Bearer abc123",
        "Authorization: Bearer [REDACTED]",
    ),
    (
        "Bearer eyJhbGciOi.eyJzdWIi.SflKx-_~+/=",
        "Bearer [REDACTED]",
    ),
    (
        r#"{"Authorization": "Bearer tok.en-1_2~3+4/5=="}"#,
        r#"{"Authorization": "Bearer [REDACTED]"}"#,
    ),
    (
        "curl -H 'Authorization: Basic dXNlcjpwYXNz' https://x.io",
        "curl -H 'Authorization: Basic [REDACTED]' https://x.io",
    ),
    ("Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Basic [REDACTED]"),
    ("Basic a.b-c_d~e+f/g=", "Basic [REDACTED]"),
    ("BEARER ABCDEF", "BEARER [REDACTED]"),
    ("BASIC ABCDEF==", "BASIC [REDACTED]"),
    ("BeaRER abc", "BeaRER [REDACTED]"),
    ("bearer abc.def", "bearer [REDACTED]"),
    ("basic dXNlcjpwYXNz", "basic [REDACTED]"),
    ("bearer averyveryverylongsecretvalue", "bearer [REDACTED]"),
    ("Bearer\tabc", "Bearer\t[REDACTED]"),
    ("Bearer   abc", "Bearer   [REDACTED]"),
    (
        "Authorization:Bearer abc",
        "Authorization:Bearer [REDACTED]",
    ),
    ("Bearer tokenvalue", "Bearer [REDACTED]"),
    (
        "https://x.io/cb?authorization=Bearer+abc123&x=1",
        "https://x.io/cb?authorization=Bearer+[REDACTED]&x=1",
    ),
    (
        "https://x.io/cb?authorization=Bearer%20abc123",
        "https://x.io/cb?authorization=Bearer%20[REDACTED]",
    ),
    ("Bearer sk-abc", "Bearer [REDACTED]"),
    ("sk-abc123", "[REDACTED]"),
    ("key=sk-proj-AbC_12-xyz", "key=[REDACTED]"),
    ("sk-ant-api03-abcDEF_123-xyz", "[REDACTED]"),
    (r#"{"api_key": "sk-abc"}"#, r#"{"api_key": "[REDACTED]"}"#),
    (
        "https://api.example.com/v1?key=sk-abc123&x=1",
        "https://api.example.com/v1?key=[REDACTED]&x=1",
    ),
    ("(sk-abc)", "([REDACTED])"),
    ("use sk-abc. then", "use [REDACTED]. then"),
    ("x-api-key: sk-ant-api03-AAAA", "x-api-key: [REDACTED]"),
    (
        "multiple: sk-one1 and sk-two2",
        "multiple: [REDACTED] and [REDACTED]",
    ),
    ("OPENAI_API_KEY=sk-proj-1\n", "OPENAI_API_KEY=[REDACTED]\n"),
    ("'sk-abc'", "'[REDACTED]'"),
    ("task-sk-abc", "task-[REDACTED]"),
    ("sk-sk-sk-abc sk-x-sk-y", "[REDACTED] [REDACTED]"),
    (
        "Bearer abc and Basic def",
        "Bearer [REDACTED] and Basic [REDACTED]",
    ),
    ("`Bearer abc`", "`Bearer [REDACTED]`"),
    // Percent-encoded: escapes inside the value and its padding, and an encoded separator
    // before the scheme.
    (
        "https://x.io/cb?authorization=Bearer%20ab%2Bc%2Fd%3D%3D&x=1",
        "https://x.io/cb?authorization=Bearer%20[REDACTED]&x=1",
    ),
    ("Bearer%20abc%3d", "Bearer%20[REDACTED]"),
    ("Basic%20dXNlcjpwYXNz%3D", "Basic%20[REDACTED]"),
    ("Bearer%09abc", "Bearer%09[REDACTED]"),
    (
        "?h=Authorization%3A%20Bearer%20abc.def&y=2",
        "?h=Authorization%3A%20Bearer%20[REDACTED]&y=2",
    ),
    (
        "?h=Authorization%3ABearer%20abc",
        "?h=Authorization%3ABearer%20[REDACTED]",
    ),
    ("%22Bearer%20abc%22", "%22Bearer%20[REDACTED]%22"),
    ("bearer%20tok%2Fen", "bearer%20[REDACTED]"),
    // Not credentials.
    ("a basic chart", "a basic chart"),
    ("the bearer token", "the bearer token"),
    ("Authorization: Bearer", "Authorization: Bearer"),
    ("Bearer ==abc", "Bearer ==abc"),
    ("Basically it works", "Basically it works"),
    ("xBearer abc", "xBearer abc"),
    ("the Bearer", "the Bearer"),
    ("Bearer $TOKEN", "Bearer $TOKEN"),
    ("risk-free rate", "risk-free rate"),
    ("desk-top", "desk-top"),
    ("sk- alone", "sk- alone"),
    ("SK-abc", "SK-abc"),
    ("a wearer of hats", "a wearer of hats"),
    ("the%20bearer%20token", "the%20bearer%20token"),
    ("Bearer%20%3Dabc", "Bearer%20%3Dabc"),
    ("Bearer%2", "Bearer%2"),
    ("Bearer%20abc%2", "Bearer%20[REDACTED]%2"),
    ("Bearer%20abc%20def", "Bearer%20[REDACTED]%20def"),
    ("x%2Bearer abc", "x%2Bearer abc"),
];

const HOME_PATHS: &[(&str, &str)] = &[
    ("/home/alice/data/q3.csv", "[LOCAL_PATH]/data/q3.csv"),
    ("/Users/bob/Desktop", "[LOCAL_PATH]/Desktop"),
    ("C:\\Users\\carol\\x.csv", "[LOCAL_PATH]\\x.csv"),
    ("C:/Users/carol/x.csv", "[LOCAL_PATH]/x.csv"),
    (
        r#"{"path": "C:\\Users\\carol\\x.csv"}"#,
        r#"{"path": "[LOCAL_PATH]\\x.csv"}"#,
    ),
    ("open /home/alice", "open [LOCAL_PATH]"),
    ("/home/jane.doe/x", "[LOCAL_PATH]/x"),
    ("/home/jean-luc/x", "[LOCAL_PATH]/x"),
    ("/Users/José/x", "[LOCAL_PATH]/x"),
    ("ls /home/Ærøskøbing", "ls [LOCAL_PATH]"),
    ("cd /home/ü", "cd [LOCAL_PATH]"),
    (r#""/Users/Jane Doe/x""#, r#""[LOCAL_PATH]/x""#),
    ("'C:\\Users\\Jane Doe'", "'[LOCAL_PATH]'"),
    ("`/Users/Jane Doe`", "`[LOCAL_PATH]`"),
    ("/Users/Jane Doe/Desktop", "[LOCAL_PATH]/Desktop"),
    ("/Users/Jane van Doe/x", "[LOCAL_PATH]/x"),
    ("C:\\Users\\Jane Doe\\x", "[LOCAL_PATH]\\x"),
    ("file:///home/alice/x", "file://[LOCAL_PATH]/x"),
    ("file:///C:/Users/alice/x", "file:///[LOCAL_PATH]/x"),
    ("see /home/alice.", "see [LOCAL_PATH]."),
    ("(/home/alice)", "([LOCAL_PATH])"),
    ("«/home/alice»", "«[LOCAL_PATH]»"),
    ("d:\\users\\dave", "[LOCAL_PATH]"),
    ("C:\\USERS\\DAVE\\x", "[LOCAL_PATH]\\x"),
    ("path=/home/eve/.bashrc", "path=[LOCAL_PATH]/.bashrc"),
    ("/home/alice and /home/bob", "[LOCAL_PATH] and [LOCAL_PATH]"),
    ("/home/alice,/home/bob", "[LOCAL_PATH],[LOCAL_PATH]"),
    ("/Users/alice\n/Users/bob", "[LOCAL_PATH]\n[LOCAL_PATH]"),
    ("\"/home/alice", "\"[LOCAL_PATH]"),
    ("/home/alice/home/bob", "[LOCAL_PATH]/home/bob"),
    ("C:\\Users\\Public\\x", "[LOCAL_PATH]\\x"),
    ("/home/alice:/bin", "[LOCAL_PATH]:/bin"),
    ("/Users/o'brien/x", "[LOCAL_PATH]/x"),
    ("in /home/alice's folder", "in [LOCAL_PATH] folder"),
    ("'/home/alice'", "'[LOCAL_PATH]'"),
    ("'/home/alice' and", "'[LOCAL_PATH]' and"),
    ("C:\\Users\\bob:stream", "[LOCAL_PATH]:stream"),
    ("\\\\?\\C:\\Users\\bob\\x", "\\\\?\\[LOCAL_PATH]\\x"),
    ("/home/bob/../alice", "[LOCAL_PATH]/../alice"),
    (
        "scp me@host:/home/alice/x .",
        "scp me@host:[LOCAL_PATH]/x .",
    ),
    (
        "PATH=/Users/al/bin;C:\\Users\\al\\bin",
        "PATH=[LOCAL_PATH]/bin;[LOCAL_PATH]\\bin",
    ),
    // The home directory of `root`.
    ("/root/.ssh/id_ed25519", "[LOCAL_PATH]/.ssh/id_ed25519"),
    ("cd /root", "cd [LOCAL_PATH]"),
    ("see /root.", "see [LOCAL_PATH]."),
    ("\"/root\"", "\"[LOCAL_PATH]\""),
    ("file:///root/x", "file://[LOCAL_PATH]/x"),
    ("/root\\x", "[LOCAL_PATH]\\x"),
    // Paths that normalize to a home directory: the marker replaces all of the prefix.
    ("/home//alice/x", "[LOCAL_PATH]/x"),
    ("/home/./alice/x", "[LOCAL_PATH]/x"),
    ("/home/.//./alice", "[LOCAL_PATH]"),
    ("/Users//bob/x", "[LOCAL_PATH]/x"),
    ("/Users/./bob/x", "[LOCAL_PATH]/x"),
    ("C:\\Users\\.\\bob\\x", "[LOCAL_PATH]\\x"),
    ("C:/Users//bob/x", "[LOCAL_PATH]/x"),
    ("//home/alice/x", "[LOCAL_PATH]/x"),
    ("cd /./home/alice", "cd [LOCAL_PATH]"),
    ("/home/../home/alice/x", "[LOCAL_PATH]/x"),
    ("/tmp/../home/alice/x", "[LOCAL_PATH]/x"),
    ("/a/b/../../Users/bob/x", "[LOCAL_PATH]/x"),
    ("/../home/alice", "[LOCAL_PATH]"),
    ("/home/../root/x", "[LOCAL_PATH]/x"),
    ("//root/x", "[LOCAL_PATH]/x"),
    ("\"/home/./Jane Doe/x\"", "\"[LOCAL_PATH]/x\""),
    ("file:////home/alice/x", "file://[LOCAL_PATH]/x"),
    // Not home directories.
    ("/home/../x", "/home/../x"),
    ("\"/home/..\"", "\"/home/..\""),
    ("\"/home/.\"", "\"/home/.\""),
    ("/home/./", "/home/./"),
    ("/rooted/x", "/rooted/x"),
    ("/root-ca/x", "/root-ca/x"),
    ("/root.d/x", "/root.d/x"),
    ("/opt/root/x", "/opt/root/x"),
    ("chroot/root", "chroot/root"),
    ("https://example.com/root/x", "https://example.com/root/x"),
    ("https://root/x", "https://root/x"),
    ("https://home/alice", "https://home/alice"),
    (
        "https://example.com/../home/alice",
        "https://example.com/../home/alice",
    ),
    ("a//home/alice", "a//home/alice"),
    ("a/./home/alice", "a/./home/alice"),
    ("./home/alice", "./home/alice"),
    ("tmp/../home/alice", "tmp/../home/alice"),
    ("/.../home/alice", "/.../home/alice"),
    ("/usr/share/x", "/usr/share/x"),
    ("/opt/home/x", "/opt/home/x"),
    ("~/home/x", "~/home/x"),
    ("/home/", "/home/"),
    ("/home", "/home"),
    ("/home/...", "/home/..."),
    ("C:\\Users", "C:\\Users"),
    ("C:Users\\bob", "C:Users\\bob"),
    ("/users/alice", "/users/alice"),
    (
        "https://example.com/home/alice",
        "https://example.com/home/alice",
    ),
    ("ABC:\\Users\\x", "ABC:\\Users\\x"),
    ("the users/admins list", "the users/admins list"),
    ("[LOCAL_PATH]/home/x", "[LOCAL_PATH]/home/x"),
];

const PROVIDER_KEY: &str = "prov-7Hq2Xk9w";
const SEARCH_KEY: &str = "tvly-3f9a8b7c";

const CONFIGURED_KEYS: &[(&str, &str)] = &[
    ("my key is prov-7Hq2Xk9w", "my key is [REDACTED]"),
    ("xxprov-7Hq2Xk9wyy", "xx[REDACTED]yy"),
    ("prov-7Hq2Xk9wprov-7Hq2Xk9w", "[REDACTED][REDACTED]"),
    ("prov-7Hq2Xk9wtvly-3f9a8b7c", "[REDACTED][REDACTED]"),
    (r#"{"k":"tvly-3f9a8b7c"}"#, r#"{"k":"[REDACTED]"}"#),
    (
        "https://api.tavily.com/search?api_key=tvly-3f9a8b7c&q=x",
        "https://api.tavily.com/search?api_key=[REDACTED]&q=x",
    ),
    (
        "a tvly-3f9a8b7c b tvly-3f9a8b7c c tvly-3f9a8b7c",
        "a [REDACTED] b [REDACTED] c [REDACTED]",
    ),
    ("PROV-7HQ2XK9W", "PROV-7HQ2XK9W"),
    ("prov-7Hq2Xk9", "prov-7Hq2Xk9"),
];

fn with_keys(keys: &[&str]) -> Redactor {
    let keys: Vec<SecretString> = keys.iter().map(|k| SecretString::new(*k)).collect();
    let refs: Vec<&SecretString> = keys.iter().collect();
    Redactor::new(&refs)
}

/// The redactor of `keys` and 64 more that no case holds: more literals than the SIMD searcher
/// takes, so it searches with its fallback, an Aho-Corasick automaton.
fn on_the_fallback(keys: &[&str]) -> Redactor {
    let unused: Vec<String> = (0..64).map(|i| format!("\u{1}unused-{i}")).collect();
    let all: Vec<&str> = keys
        .iter()
        .copied()
        .chain(unused.iter().map(String::as_str))
        .collect();
    let redactor = with_keys(&all);
    assert!(
        format!("{redactor:?}").contains("\"automaton\""),
        "{redactor:?}"
    );
    redactor
}

#[test]
fn credentials_and_sk_keys() {
    check(&[], CREDENTIALS);
}

#[test]
fn home_directories() {
    check(&[], HOME_PATHS);
}

#[test]
fn configured_keys() {
    check(&[PROVIDER_KEY, SEARCH_KEY], CONFIGURED_KEYS);
}

#[test]
fn configured_keys_of_any_shape() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "open sesame 42",
            &[("say open sesame 42 now", "say [REDACTED] now")],
        ),
        (
            "a.b*c+(d)",
            &[
                ("x a.b*c+(d) y", "x [REDACTED] y"),
                ("aXb*c+(d)", "aXb*c+(d)"),
            ],
        ),
        (
            "пароль-секрет",
            &[("ключ: пароль-секрет.", "ключ: [REDACTED].")],
        ),
        ("line1\nline2", &[("<line1\nline2>", "<[REDACTED]>")]),
        ("42", &[("a42b 1942", "a[REDACTED]b 19[REDACTED]")]),
        ("ab\"cd'ef", &[("k=ab\"cd'ef;", "k=[REDACTED];")]),
        ("back\\slash", &[("\"back\\slash\"", "\"[REDACTED]\"")]),
        ("🔑key🔑", &[("x🔑key🔑x", "x[REDACTED]x")]),
        ("dGVzdA==", &[("token dGVzdA==", "token [REDACTED]")]),
        ("home/", &[("x home/ y", "x [REDACTED] y")]),
        ("sk-", &[("a sk- b", "a [REDACTED] b")]),
        ("Bearer", &[("Bearer abc", "[REDACTED] [REDACTED]")]),
        ("/home/alice", &[("cat /home/alice", "cat [REDACTED]")]),
        // Inside a home path: the path marker hides it.
        ("alice.k3y", &[("/home/alice.k3y/x", "[LOCAL_PATH]/x")]),
        // Straddling a home path: one joined `[REDACTED]`.
        ("ce/data", &[("/home/alice/data", "[REDACTED]")]),
        // Inside a bearer token.
        (
            "Zq9-secret",
            &[("Bearer abcZq9-secretdef", "Bearer [REDACTED]")],
        ),
    ];
    for &(key, table) in cases {
        check(&[key], table);
    }
}

#[test]
fn overlapping_and_nested_keys() {
    check(
        &["abcdef12", "ef12ghij"],
        &[
            ("abcdef12ghij", "[REDACTED]"),
            ("-abcdef12-", "-[REDACTED]-"),
        ],
    );
    check(
        &["secret-long-key-1", "long-key"],
        &[
            ("secret-long-key-1", "[REDACTED]"),
            ("a long-key", "a [REDACTED]"),
        ],
    );
    let long = "Zx".repeat(300);
    let text = format!("before {long} after {long}");
    check(&[&long], &[(&text, "before [REDACTED] after [REDACTED]")]);
}

/// A key overlapping a quoted home path joins both into one `[REDACTED]` that swallows the `~`
/// which kept `~/home/x` from being a home path: the path after the marker is redacted too, so
/// that redacting the result again changes nothing more.
#[test]
fn a_joined_marker_does_not_uncover_a_path_for_a_second_pass() {
    let cases = [(
        "'C:/Users/Q Q'sk- ~/home/x  sk-Q ",
        "'[REDACTED][LOCAL_PATH]  [REDACTED] ",
    )];
    check(&["Q'sk- ~"], &cases);
    let redactor = with_keys(&["Q'sk- ~"]);
    let once = redactor.redact(cases[0].0).into_owned();
    assert!(
        matches!(redactor.redact(&once), Cow::Borrowed(_)),
        "{once:?}"
    );
}

#[test]
fn empty_and_duplicate_keys_are_ignored() {
    let keys = ["", "dup-key-1", "dup-key-1"];
    assert_eq!(with_keys(&keys).key_count(), 1);
    check(
        &keys,
        &[
            ("nothing here", "nothing here"),
            ("dup-key-1", "[REDACTED]"),
        ],
    );
}

#[test]
fn clean_text_is_borrowed() {
    let redactor = with_keys(&[PROVIDER_KEY, SEARCH_KEY]);
    let clean = [
        "",
        "Show me AAPL daily candles with a 20-period moving average.",
        "Déplacez la ligne à 182,50 € — 日経平均 と比較して",
        "Open /opt/home/reports/q3.csv and /usr/share/data.",
        "the users/admins and a basic trend; risk-free rate",
        "http://example.com/home/index.html?user=alice",
        "C: drive, Users list, sk- prefix, Bearer",
    ];
    for text in clean {
        let got = redactor.redact(text);
        assert!(
            matches!(got, Cow::Borrowed(t) if t == text),
            "{text:?} came back as {got:?}"
        );
    }
}

#[test]
fn mixed_prompt() {
    let key = SecretString::new(SEARCH_KEY);
    let prompt = "Load /Users/jane.doe/q3.csv, auth with Bearer eyJ0.abc and key sk-proj-Q1w2E3, \
                  search with tvly-3f9a8b7c.";
    assert_eq!(
        redact_string(prompt, &[&key]),
        "Load [LOCAL_PATH]/q3.csv, auth with Bearer [REDACTED] and key [REDACTED], \
         search with [REDACTED]."
    );
}

#[test]
fn prompts_are_redacted_values() {
    let key = SecretString::new(PROVIDER_KEY);
    let redactor = Redactor::new(&[&key]);
    let prompt = redactor.prompt("use prov-7Hq2Xk9w in /home/alice/x");
    assert_eq!(prompt.as_str(), "use [REDACTED] in [LOCAL_PATH]/x");
    assert_eq!(
        serde_json::to_string(&prompt).expect("a prompt serializes"),
        "\"use [REDACTED] in [LOCAL_PATH]/x\""
    );
    assert!(!format!("{redactor:?}").contains(PROVIDER_KEY));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_simd_searcher_is_used_where_available() {
    if std::is_x86_feature_detected!("ssse3") {
        let redactor = with_keys(&[PROVIDER_KEY, SEARCH_KEY]);
        assert!(format!("{redactor:?}").contains("\"simd\""), "{redactor:?}");
    }
}

#[test]
fn long_runs_of_anchors() {
    let redactor = Redactor::without_keys();
    let sk = "sk-".repeat(20_000);
    assert_eq!(redactor.redact(&format!("a {sk} b")), "a [REDACTED] b");
    // `/home//home` is the home directory of a user named `home`; no other prefix starts a path.
    let homes = "/home/".repeat(10_000);
    let expected = format!("[LOCAL_PATH]/{}", "/home/".repeat(9_998));
    assert!(
        redactor.redact(&homes) == expected,
        "a long run of `/home/`"
    );
    // Chains of segments that resolve away before a home prefix (`/home/..`, `//`, `/.`, a
    // long segment and its `..`): however long, the name is hidden.
    let long_segment = format!("/{}/..", "a".repeat(1_000));
    for chain in ["/home/..", "/..", "//", "/.", &long_segment] {
        let text = format!("{}/home/alice/x", chain.repeat(100_000 / chain.len()));
        let out = redactor.redact(&text);
        assert!(
            out.ends_with("[LOCAL_PATH]/x") && !out.contains("alice"),
            "a long run of {chain:?}"
        );
    }
    // Each `Bearer` is the value of the one before it.
    let bearers = "Bearer ".repeat(10_000);
    let expected = format!("Bearer {}", "[REDACTED] ".repeat(9_999));
    assert!(
        redactor.redact(&bearers) == expected,
        "a long run of `Bearer`"
    );
}
