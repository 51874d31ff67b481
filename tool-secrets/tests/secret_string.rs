//! A secret never prints or serializes its value.

use toolwright_secrets::SecretString;

const PROVIDER_KEY: &str = "sk-proj-Zt5Qw8Lm2Np4Rs6Uv";
const SEARCH_KEY: &str = "tvly-9Xa8Yb7Zc6Wd5";

fn assert_no_key(what: &str, text: &str) {
    for key in [PROVIDER_KEY, SEARCH_KEY] {
        assert!(!text.contains(key), "{what} shows a key: {text}");
        // Not even a recognisable part of one.
        assert!(
            !text.contains(&key[5..12]),
            "{what} shows part of a key: {text}"
        );
    }
}

#[test]
fn secret_string_hides_its_value() {
    let key = SecretString::new(PROVIDER_KEY);
    assert_eq!(format!("{key:?}"), "SecretString([REDACTED])");
    assert_eq!(format!("{key:#?}"), "SecretString([REDACTED])");
    assert_eq!(format!("{key}"), "[REDACTED]");
    assert_eq!(key.expose_secret(), PROVIDER_KEY);

    #[derive(Debug)]
    #[allow(dead_code)]
    struct Holder {
        key: SecretString,
        keys: Vec<SecretString>,
    }
    let holder = Holder {
        key: key.clone(),
        keys: vec![key.clone(), SecretString::new(SEARCH_KEY)],
    };
    assert_no_key("a derived Debug", &format!("{holder:?} {holder:#?}"));
}

#[test]
fn secret_string_can_be_read_from_configuration() {
    #[derive(serde::Deserialize)]
    struct Config {
        key: SecretString,
    }
    let config: Config =
        serde_json::from_str(&format!(r#"{{"key": "{PROVIDER_KEY}"}}"#)).expect("valid config");
    assert_eq!(config.key.expose_secret(), PROVIDER_KEY);
    let parsed: SecretString = SEARCH_KEY.parse().expect("any text is a secret");
    assert_eq!(parsed.expose_secret(), SEARCH_KEY);
}

/// Answers whether `T` implements `Serialize`, at compile time: the inherent method exists only
/// when the bound holds, otherwise the trait's default is found.
struct SerializeProbe<T>(std::marker::PhantomData<T>);

trait NotSerialize {
    fn implements_serialize(&self) -> bool {
        false
    }
}

impl<T> NotSerialize for SerializeProbe<T> {}

impl<T: serde::Serialize> SerializeProbe<T> {
    fn implements_serialize(&self) -> bool {
        true
    }
}

#[test]
fn a_secret_cannot_be_serialized_at_all() {
    use std::marker::PhantomData;
    assert!(SerializeProbe::<String>(PhantomData).implements_serialize());
    assert!(!SerializeProbe::<SecretString>(PhantomData).implements_serialize());
    assert!(!SerializeProbe::<Vec<SecretString>>(PhantomData).implements_serialize());
}
