//! Credential stores: scoping, file permissions, atomic replacement, corrupt files.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use toolwright_secrets::{
    Credential, CredentialError, CredentialKind, CredentialScope, CredentialStore, FileStore,
    HostedPlaceholder, HostedStore, KeyStatus, MemoryStore, ProviderSettings, SecretString,
};

const KEY: &str = "sk-proj-Fq3Lz8Wm1Xc5";
const OTHER: &str = "tvly-Hk2Ps7Vn4Rt9";

fn scope(account: &str, workspace: &str) -> CredentialScope {
    CredentialScope::new(account, workspace).expect("valid scope")
}

fn key_of(credential: Option<Credential>) -> Option<String> {
    credential.map(|c| {
        c.key()
            .expect("a real key, not a placeholder")
            .expose_secret()
            .to_owned()
    })
}

fn exercise(store: &dyn CredentialStore) {
    let a = scope("acct-1", "main");
    let b = scope("acct-1", "other.ws");
    let c = scope("acct_2", "main");
    assert!(
        store
            .get(&a, CredentialKind::ProviderKey)
            .expect("get")
            .is_none()
    );

    store
        .set(&a, CredentialKind::ProviderKey, SecretString::new(KEY))
        .expect("set");
    store
        .set(&b, CredentialKind::ProviderKey, SecretString::new(OTHER))
        .expect("set");
    assert_eq!(
        key_of(store.get(&a, CredentialKind::ProviderKey).expect("get")).as_deref(),
        Some(KEY)
    );
    assert_eq!(
        key_of(store.get(&b, CredentialKind::ProviderKey).expect("get")).as_deref(),
        Some(OTHER)
    );
    assert!(
        store
            .get(&c, CredentialKind::ProviderKey)
            .expect("get")
            .is_none()
    );
    assert!(
        store
            .get(&a, CredentialKind::SearchKey)
            .expect("get")
            .is_none()
    );

    store
        .set(&a, CredentialKind::SearchKey, SecretString::new(OTHER))
        .expect("set");
    store
        .set(
            &a,
            CredentialKind::ProviderKey,
            SecretString::new("replaced-key"),
        )
        .expect("set");
    assert_eq!(
        key_of(store.get(&a, CredentialKind::ProviderKey).expect("get")).as_deref(),
        Some("replaced-key")
    );

    let mut settings = ProviderSettings::default();
    store.load_into(&a, &mut settings).expect("load");
    assert_eq!(settings.view().provider_key, KeyStatus::Set);
    assert_eq!(settings.view().search_key, KeyStatus::Set);

    assert!(
        store
            .remove(&a, CredentialKind::ProviderKey)
            .expect("remove")
    );
    assert!(
        !store
            .remove(&a, CredentialKind::ProviderKey)
            .expect("remove")
    );
    assert!(
        store
            .get(&a, CredentialKind::ProviderKey)
            .expect("get")
            .is_none()
    );
    assert_eq!(
        key_of(store.get(&a, CredentialKind::SearchKey).expect("get")).as_deref(),
        Some(OTHER)
    );
    assert!(!store.is_read_only());
}

#[test]
fn memory_store_scopes_keys() {
    exercise(&MemoryStore::new());
}

#[test]
fn file_store_scopes_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path().join("credentials"));
    exercise(&store);
    assert_eq!(
        store.path(&scope("acct-1", "main")),
        dir.path().join("credentials/acct-1/main/credentials.json")
    );
    // A new store over the same root sees the same keys.
    let again = FileStore::new(dir.path().join("credentials"));
    assert_eq!(
        key_of(
            again
                .get(&scope("acct-1", "other.ws"), CredentialKind::ProviderKey)
                .expect("get")
        )
        .as_deref(),
        Some(OTHER)
    );
}

#[test]
fn scope_ids_cannot_escape_the_root() {
    for (account, workspace, message) in [
        (
            "",
            "main",
            "invalid account id ``: expected 1 to 128 characters, found none",
        ),
        (
            "..",
            "main",
            "invalid account id `..`: `.` and `..` are not ids",
        ),
        (
            "a/b",
            "main",
            "invalid account id `a/b`: expected only ASCII letters, digits, `.`, `_` or `-`",
        ),
        (
            "acct",
            "..\\x",
            "invalid workspace id `..\\x`: expected only ASCII letters, digits, `.`, `_` or `-`",
        ),
        (
            "acct",
            ".",
            "invalid workspace id `.`: `.` and `..` are not ids",
        ),
    ] {
        let err = CredentialScope::new(account, workspace).expect_err("an invalid id");
        assert!(matches!(err, CredentialError::InvalidScope { .. }));
        assert_eq!(err.to_string(), message);
    }
    let long = "x".repeat(129);
    assert!(CredentialScope::new(long.as_str(), "main").is_err());
    assert!(CredentialScope::new("x".repeat(128), "main").is_ok());
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn file_store_writes_owner_only_files() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let s = scope("acct", "ws");
    store
        .set(&s, CredentialKind::ProviderKey, SecretString::new(KEY))
        .expect("set");
    let path = store.path(&s);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().expect("workspace dir")), 0o700);
    assert_eq!(mode(&dir.path().join("acct")), 0o700);

    // A file someone loosened comes back owner-only on the next write.
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
    store
        .set(&s, CredentialKind::SearchKey, SecretString::new(OTHER))
        .expect("set");
    assert_eq!(mode(&path), 0o600);
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn file_store_replaces_the_file_atomically() {
    use std::os::unix::fs::MetadataExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let s = scope("acct", "ws");
    store
        .set(&s, CredentialKind::ProviderKey, SecretString::new(KEY))
        .expect("set");
    let path = store.path(&s);
    let workspace = path.parent().expect("workspace dir").to_owned();
    let first = fs::metadata(&path).expect("metadata").ino();

    // A reader holding the old file keeps the old content: the new one is renamed into place,
    // never written over the old one.
    let old_content = fs::read_to_string(&path).expect("read");
    let held = fs::File::open(&path).expect("open");
    store
        .set(
            &s,
            CredentialKind::ProviderKey,
            SecretString::new("second-key"),
        )
        .expect("set");
    let second = fs::metadata(&path).expect("metadata").ino();
    assert_ne!(first, second, "the file was rewritten in place");
    let mut still = String::new();
    std::io::Read::read_to_string(&mut &held, &mut still).expect("read held file");
    assert_eq!(still, old_content);

    // No temporary file is left behind.
    assert_eq!(entries(&workspace), vec!["credentials.json".to_owned()]);

    // A temporary file left by a writer that crashed is ignored.
    let stale = workspace.join(".credentials.json.999.0.tmp");
    fs::write(
        &stale,
        b"{\"format\": 1, \"keys\": {\"provider_key\": \"half",
    )
    .expect("write");
    assert_eq!(
        key_of(store.get(&s, CredentialKind::ProviderKey).expect("get")).as_deref(),
        Some("second-key")
    );
    store
        .set(&s, CredentialKind::SearchKey, SecretString::new(OTHER))
        .expect("set");
    assert_eq!(
        key_of(store.get(&s, CredentialKind::ProviderKey).expect("get")).as_deref(),
        Some("second-key")
    );
}

#[cfg(unix)]
#[test]
fn a_failed_write_leaves_the_old_file() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let s = scope("acct", "ws");
    store
        .set(&s, CredentialKind::ProviderKey, SecretString::new(KEY))
        .expect("set");
    let path = store.path(&s);
    let before = fs::read(&path).expect("read");

    // Where no temporary file can be created, the write fails and the file stays as it was.
    let workspace = path.parent().expect("workspace dir").to_owned();
    fs::set_permissions(&workspace, fs::Permissions::from_mode(0o500)).expect("chmod");
    let probe = workspace.join("probe");
    let privileged = fs::write(&probe, b"").is_ok();
    let _ = fs::remove_file(&probe);
    if !privileged {
        let err = store
            .set(
                &s,
                CredentialKind::ProviderKey,
                SecretString::new("new-key"),
            )
            .expect_err("the directory is read-only");
        assert!(
            matches!(
                err,
                CredentialError::Io {
                    action: "create",
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(fs::read(&path).expect("read"), before);
    }
    fs::set_permissions(&workspace, fs::Permissions::from_mode(0o700)).expect("chmod");

    // A workspace that is a file, not a directory: the write fails with a clear error.
    let blocked = scope("acct", "blocked");
    fs::write(dir.path().join("acct/blocked"), b"not a directory").expect("write");
    let err = store
        .set(
            &blocked,
            CredentialKind::ProviderKey,
            SecretString::new("new-key"),
        )
        .expect_err("the workspace is a file");
    assert!(err.to_string().starts_with("cannot "), "{err}");
    assert_eq!(fs::read(&path).expect("read"), before);
}

#[test]
fn a_corrupt_file_is_an_error_and_is_never_replaced() {
    let cases: &[(&[u8], &str)] = &[
        (b"", "truncated at line 1 column 0"),
        (
            b"{\"format\": 1, \"keys\": {\"provider_key\": \"sk-leak-1",
            "truncated",
        ),
        (b"not json sk-leak-2", "not valid JSON at line 1 column 2"),
        (
            b"{\"format\": \"sk-leak-3\", \"keys\": {}}",
            "not a credential file at line 1",
        ),
        (
            b"{\"format\": 1, \"keys\": {\"provider_key\": [\"sk-leak-4\"]}}",
            "not a credential file",
        ),
        (
            b"{\"format\": 2, \"keys\": {}}",
            "unknown format 2, expected 1",
        ),
        (
            b"{\"format\": 1, \"keys\": {\"provder_key\": \"sk-leak-5\"}}",
            "unknown key `provder_key`, expected one of `provider_key`, `search_key`",
        ),
        (
            b"{\"format\": 1, \"keys\": {}, \"extra\": \"sk-leak-6\"}",
            "not a credential file",
        ),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
    ];
    for &(content, reason) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = FileStore::new(dir.path());
        let s = scope("acct", "ws");
        let path = store.path(&s);
        fs::create_dir_all(path.parent().expect("workspace dir")).expect("mkdir");
        fs::write(&path, content).expect("write");

        let errors = [
            store.get(&s, CredentialKind::ProviderKey).map(drop),
            store
                .set(&s, CredentialKind::ProviderKey, SecretString::new(KEY))
                .map(drop),
            store.remove(&s, CredentialKind::SearchKey).map(drop),
        ];
        for result in errors {
            let err = result.expect_err("a corrupt file is an error");
            assert!(matches!(err, CredentialError::Corrupt { .. }), "{err}");
            let message = err.to_string();
            assert!(
                message.contains(reason),
                "{message:?} should say {reason:?}"
            );
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains("left untouched"), "{message}");
            assert!(
                !message.contains("sk-leak"),
                "the message quotes a value: {message}"
            );
        }
        assert_eq!(
            fs::read(&path).expect("read"),
            content,
            "the corrupt file was changed"
        );
        assert_eq!(
            entries(path.parent().expect("dir")),
            vec!["credentials.json".to_owned()]
        );
    }
}

#[test]
fn concurrent_writes_keep_every_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(FileStore::new(dir.path()));
    let s = scope("acct", "ws");
    let threads: Vec<_> = CredentialKind::ALL
        .iter()
        .map(|&kind| {
            let store = Arc::clone(&store);
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 0..20 {
                    store
                        .set(&s, kind, SecretString::new(format!("{kind}-{i}")))
                        .expect("set");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("writer thread");
    }
    for &kind in CredentialKind::ALL {
        assert_eq!(
            key_of(store.get(&s, kind).expect("get")).as_deref(),
            Some(format!("{kind}-19").as_str())
        );
    }
}

#[test]
fn hosted_store_holds_only_a_read_only_placeholder() {
    let store = HostedStore::new(HostedPlaceholder::new("authenticated by the host"));
    let s = scope("acct", "ws");
    assert!(store.is_read_only());
    for &kind in CredentialKind::ALL {
        match store.get(&s, kind).expect("get") {
            Some(Credential::Hosted(placeholder)) => {
                assert_eq!(placeholder.label(), "authenticated by the host");
            }
            other => panic!("expected the placeholder, got {other:?}"),
        }
        let err = store
            .set(&s, kind, SecretString::new(KEY))
            .expect_err("read-only");
        assert!(matches!(err, CredentialError::ReadOnly { .. }));
        assert_eq!(
            err.to_string(),
            format!(
                "cannot change `{kind}`: the credential store is read-only, the host authenticates requests itself"
            )
        );
        assert!(store.remove(&s, kind).is_err());
    }
    let mut settings = ProviderSettings::default();
    store.load_into(&s, &mut settings).expect("load");
    assert_eq!(settings.view().provider_key, KeyStatus::Hosted);
    assert_eq!(settings.view().search_key, KeyStatus::Hosted);
    assert!(settings.keys().is_empty());
}
