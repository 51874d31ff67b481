//! Secrets never print or serialize their value; the settings a UI gets hold no key.

use toolwright_secrets::{
    Credential, HostedPlaceholder, KeyStatus, ProviderSettings, SecretString,
};

const PROVIDER_KEY: &str = "sk-proj-Zt5Qw8Lm2Np4Rs6Uv";
const SEARCH_KEY: &str = "tvly-9Xa8Yb7Zc6Wd5";

fn settings() -> ProviderSettings {
    let mut settings = ProviderSettings::default();
    settings.provider = Some("openai".into());
    settings.model = Some("gpt-test".into());
    settings.search_service = Some("tavily".into());
    settings.provider_key = Some(Credential::Key(SecretString::new(PROVIDER_KEY)));
    settings.search_key = Some(Credential::Key(SecretString::new(SEARCH_KEY)));
    settings
}

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

#[test]
fn serializing_or_printing_settings_never_shows_a_key() {
    let settings = settings();
    let json = serde_json::to_string(&settings).expect("settings serialize");
    assert_no_key("JSON", &json);
    assert_no_key(
        "pretty JSON",
        &serde_json::to_string_pretty(&settings).expect("settings serialize"),
    );
    assert_no_key(
        "a JSON value",
        &serde_json::to_value(&settings)
            .expect("settings serialize")
            .to_string(),
    );
    assert_no_key("Debug", &format!("{settings:?}"));
    assert_no_key("pretty Debug", &format!("{settings:#?}"));
    assert_no_key("view Debug", &format!("{:?}", settings.view()));

    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&json).expect("valid JSON"),
        serde_json::json!({
            "provider": "openai",
            "model": "gpt-test",
            "searchService": "tavily",
            "providerKey": "set",
            "searchKey": "set",
        })
    );
}

#[test]
fn the_view_says_only_whether_a_key_is_set() {
    let mut settings = settings();
    settings.search_key = None;
    let view = settings.view();
    assert_eq!(
        (view.provider.as_deref(), view.model.as_deref()),
        (Some("openai"), Some("gpt-test"))
    );
    assert_eq!(view.search_service.as_deref(), Some("tavily"));
    assert_eq!(
        (view.provider_key, view.search_key),
        (KeyStatus::Set, KeyStatus::Unset)
    );
    settings.provider_key = Some(Credential::Key(SecretString::new("")));
    assert_eq!(settings.view().provider_key, KeyStatus::Unset);
    settings.provider_key = Some(Credential::Hosted(HostedPlaceholder::new("hosted")));
    assert_eq!(settings.view().provider_key, KeyStatus::Hosted);
    assert!(KeyStatus::Hosted.is_available());
    assert!(!KeyStatus::Unset.is_available());
    assert_eq!(
        serde_json::to_value(settings.view()).expect("view serializes")["providerKey"],
        "hosted"
    );
}

#[test]
fn the_settings_redactor_removes_the_configured_keys() {
    let settings = settings();
    assert_eq!(settings.keys().len(), 2);
    let redactor = settings.redactor();
    assert_eq!(redactor.key_count(), 2);
    let prompt = format!("why does {SEARCH_KEY} fail? the other is x{PROVIDER_KEY}y");
    let redacted = redactor.redact(&prompt);
    assert_eq!(
        redacted,
        "why does [REDACTED] fail? the other is x[REDACTED]y"
    );
    assert_no_key("Redactor Debug", &format!("{redactor:?}"));

    let mut hosted = ProviderSettings::default();
    hosted.provider_key = Some(Credential::Hosted(HostedPlaceholder::new("hosted")));
    assert!(hosted.keys().is_empty());
    assert_eq!(hosted.redactor().key_count(), 0);
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
    assert!(SerializeProbe::<ProviderSettings>(PhantomData).implements_serialize());
    assert!(!SerializeProbe::<SecretString>(PhantomData).implements_serialize());
    assert!(!SerializeProbe::<Credential>(PhantomData).implements_serialize());
}
