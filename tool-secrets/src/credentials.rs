//! Where the provider and search-service keys live.
//!
//! The host chooses a [`CredentialStore`]:
//!
//! - [`FileStore`]: the default settings store, one file per account and workspace under a root
//!   directory the host passes, readable by its owner only (`0600` on unix), replaced atomically
//!   on every change (a temporary file in the same directory, flushed to disk, then renamed). A
//!   corrupt file is an error and is never replaced or silently reset.
//! - [`MemoryStore`]: keys held in memory (tests, short-lived hosts); a desktop host implements
//!   the trait over its OS keychain the same way.
//! - [`HostedStore`]: a hosted provider. The client holds no key at all, only a read-only
//!   [`HostedPlaceholder`]; the host's own HTTP client authenticates the requests.
//!
//! Keys come out as [`SecretString`]s, which never print or serialize their value.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::secrets::{ProviderSettings, SecretString};

/// Which key of an account and workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CredentialKind {
    /// The model provider's API key.
    ProviderKey,
    /// The web search service's API key.
    SearchKey,
}

impl CredentialKind {
    /// Every kind, in declaration order.
    pub const ALL: &'static [CredentialKind] =
        &[CredentialKind::ProviderKey, CredentialKind::SearchKey];

    /// The name used in credential files and messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            CredentialKind::ProviderKey => "provider_key",
            CredentialKind::SearchKey => "search_key",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for CredentialKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The placeholder a client holds when a hosted provider authenticates for it. It is not a
/// secret and cannot be changed through the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostedPlaceholder {
    label: String,
}

impl HostedPlaceholder {
    /// A placeholder with a label a UI may show (`hosted by example.com`).
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
        }
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// What a store holds for one key.
#[derive(Debug, Clone)]
pub enum Credential {
    /// A real key.
    Key(SecretString),
    /// No key on this side: the host authenticates requests itself.
    Hosted(HostedPlaceholder),
}

impl Credential {
    /// The real key, if this is one.
    pub fn key(&self) -> Option<&SecretString> {
        match self {
            Credential::Key(key) => Some(key),
            Credential::Hosted(_) => None,
        }
    }
}

/// The account and workspace a set of keys belongs to.
///
/// Both ids are also directory names of a [`FileStore`], so they are restricted to ASCII
/// letters, digits, `.`, `_` and `-` (1 to 128 characters, not `.` or `..`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CredentialScope {
    account: String,
    workspace: String,
}

impl CredentialScope {
    /// Checks both ids.
    pub fn new(
        account: impl Into<String>,
        workspace: impl Into<String>,
    ) -> Result<Self, CredentialError> {
        let account = account.into();
        let workspace = workspace.into();
        check_id("account", &account)?;
        check_id("workspace", &workspace)?;
        Ok(Self { account, workspace })
    }

    /// The account id.
    pub fn account(&self) -> &str {
        &self.account
    }

    /// The workspace id.
    pub fn workspace(&self) -> &str {
        &self.workspace
    }
}

const MAX_ID_LEN: usize = 128;

fn check_id(what: &'static str, id: &str) -> Result<(), CredentialError> {
    let reason = if id.is_empty() {
        Some("expected 1 to 128 characters, found none")
    } else if id.len() > MAX_ID_LEN {
        Some("expected at most 128 characters")
    } else if id == "." || id == ".." {
        Some("`.` and `..` are not ids")
    } else if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        Some("expected only ASCII letters, digits, `.`, `_` or `-`")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(CredentialError::InvalidScope {
            what,
            value: id.chars().take(MAX_ID_LEN).collect(),
            reason,
        }),
    }
}

/// Why a credential could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialError {
    /// An account or workspace id that cannot be used.
    #[error("invalid {what} id `{value}`: {reason}")]
    InvalidScope {
        /// `account` or `workspace`.
        what: &'static str,
        /// The id given (at most 128 characters of it).
        value: String,
        /// What was expected.
        reason: &'static str,
    },
    /// The store holds a hosted placeholder and cannot be changed.
    #[error(
        "cannot change `{kind}`: the credential store is read-only, the host authenticates requests itself"
    )]
    ReadOnly {
        /// The key that was to be changed.
        kind: CredentialKind,
    },
    /// The file system refused.
    #[error("cannot {action} `{}`: {source}", .path.display())]
    Io {
        /// What was being done (`read`, `write`, `create directory`, …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The credential file exists but cannot be understood. It is left as it is.
    #[error(
        "credential file `{}` is corrupt: {reason}; it was left untouched: repair or remove it",
        .path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong (never any of the file's values).
        reason: String,
    },
}

/// Where the keys of an account and workspace are kept.
pub trait CredentialStore: fmt::Debug + Send + Sync {
    /// The credential for `kind`, if any.
    fn get(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<Option<Credential>, CredentialError>;

    /// Stores a key, replacing the previous one.
    fn set(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
        key: SecretString,
    ) -> Result<(), CredentialError>;

    /// Removes a key; answers whether there was one.
    fn remove(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<bool, CredentialError>;

    /// True when [`CredentialStore::set`] and [`CredentialStore::remove`] always fail.
    fn is_read_only(&self) -> bool {
        false
    }

    /// Fills the keys of `settings` from this store.
    fn load_into(
        &self,
        scope: &CredentialScope,
        settings: &mut ProviderSettings,
    ) -> Result<(), CredentialError> {
        settings.provider_key = self.get(scope, CredentialKind::ProviderKey)?;
        settings.search_key = self.get(scope, CredentialKind::SearchKey)?;
        Ok(())
    }
}

/// Keys held in memory, per account and workspace.
#[derive(Debug, Default)]
pub struct MemoryStore {
    keys: Mutex<BTreeMap<(CredentialScope, CredentialKind), SecretString>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl CredentialStore for MemoryStore {
    fn get(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<Option<Credential>, CredentialError> {
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(keys
            .get(&(scope.clone(), kind))
            .map(|key| Credential::Key(key.clone())))
    }

    fn set(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
        key: SecretString,
    ) -> Result<(), CredentialError> {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.insert((scope.clone(), kind), key);
        Ok(())
    }

    fn remove(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<bool, CredentialError> {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(keys.remove(&(scope.clone(), kind)).is_some())
    }
}

/// A hosted provider: every key is a read-only [`HostedPlaceholder`]; nothing can be stored.
#[derive(Debug, Clone)]
pub struct HostedStore {
    placeholder: HostedPlaceholder,
}

impl HostedStore {
    /// A store answering `placeholder` for every key.
    pub fn new(placeholder: HostedPlaceholder) -> Self {
        Self { placeholder }
    }
}

impl CredentialStore for HostedStore {
    fn get(
        &self,
        _scope: &CredentialScope,
        _kind: CredentialKind,
    ) -> Result<Option<Credential>, CredentialError> {
        Ok(Some(Credential::Hosted(self.placeholder.clone())))
    }

    fn set(
        &self,
        _scope: &CredentialScope,
        kind: CredentialKind,
        _key: SecretString,
    ) -> Result<(), CredentialError> {
        Err(CredentialError::ReadOnly { kind })
    }

    fn remove(
        &self,
        _scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<bool, CredentialError> {
        Err(CredentialError::ReadOnly { kind })
    }

    fn is_read_only(&self) -> bool {
        true
    }
}

/// The name of the credential file inside `<root>/<account>/<workspace>/`.
pub const CREDENTIALS_FILE_NAME: &str = "credentials.json";

const FILE_FORMAT: u32 = 1;

/// Keys kept in one file per account and workspace: `<root>/<account>/<workspace>/credentials.json`.
///
/// The root is chosen by the host. Directories are created `0700` and files written `0600` (on
/// unix). Every change writes a temporary file in the same directory, flushes it to disk and
/// renames it over the old file, so a reader sees the old keys or the new ones, never a mix. A
/// file that cannot be parsed is reported as [`CredentialError::Corrupt`] and never overwritten.
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    write_lock: Mutex<()>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialFile {
    format: u32,
    keys: BTreeMap<String, String>,
}

impl FileStore {
    /// A store under `root` (created when the first key is written).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            write_lock: Mutex::new(()),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The credential file of `scope`.
    pub fn path(&self, scope: &CredentialScope) -> PathBuf {
        self.root
            .join(&scope.account)
            .join(&scope.workspace)
            .join(CREDENTIALS_FILE_NAME)
    }

    fn read(&self, path: &Path) -> Result<BTreeMap<CredentialKind, SecretString>, CredentialError> {
        let text = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(source) => {
                return Err(CredentialError::Io {
                    action: "read",
                    path: path.to_owned(),
                    source,
                });
            }
        };
        let corrupt = |reason: String| CredentialError::Corrupt {
            path: path.to_owned(),
            reason,
        };
        let file: CredentialFile = serde_json::from_slice(&text).map_err(|err| {
            // serde_json may quote a value in its message: only its category and place are kept.
            let what = match err.classify() {
                serde_json::error::Category::Io => "unreadable",
                serde_json::error::Category::Syntax => "not valid JSON",
                serde_json::error::Category::Data => "not a credential file",
                serde_json::error::Category::Eof => "truncated",
            };
            corrupt(format!(
                "{what} at line {} column {}",
                err.line(),
                err.column()
            ))
        })?;
        if file.format != FILE_FORMAT {
            return Err(corrupt(format!(
                "unknown format {}, expected {FILE_FORMAT}",
                file.format
            )));
        }
        let mut keys = BTreeMap::new();
        for (name, value) in file.keys {
            let Some(kind) = CredentialKind::from_name(&name) else {
                let name: String = name.chars().take(64).collect();
                return Err(corrupt(format!(
                    "unknown key `{name}`, expected one of `provider_key`, `search_key`"
                )));
            };
            keys.insert(kind, SecretString::new(value));
        }
        Ok(keys)
    }

    fn update(
        &self,
        scope: &CredentialScope,
        change: impl FnOnce(&mut BTreeMap<CredentialKind, SecretString>) -> bool,
    ) -> Result<bool, CredentialError> {
        let _guard = self
            .write_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let path = self.path(scope);
        // A corrupt file stops here: it is never replaced.
        let mut keys = self.read(&path)?;
        if !change(&mut keys) {
            return Ok(false);
        }
        let file = CredentialFile {
            format: FILE_FORMAT,
            keys: keys
                .iter()
                .map(|(kind, key)| (kind.as_str().to_owned(), key.expose_secret().to_owned()))
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&file).map_err(|err| CredentialError::Io {
            action: "encode",
            path: path.clone(),
            source: io::Error::other(err),
        })?;
        bytes.push(b'\n');
        let result = write_atomic(&path, &bytes);
        bytes.fill(0);
        std::hint::black_box(&bytes);
        result.map(|()| true)
    }
}

impl CredentialStore for FileStore {
    fn get(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<Option<Credential>, CredentialError> {
        let mut keys = self.read(&self.path(scope))?;
        Ok(keys.remove(&kind).map(Credential::Key))
    }

    fn set(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
        key: SecretString,
    ) -> Result<(), CredentialError> {
        self.update(scope, |keys| {
            keys.insert(kind, key);
            true
        })
        .map(drop)
    }

    fn remove(
        &self,
        scope: &CredentialScope,
        kind: CredentialKind,
    ) -> Result<bool, CredentialError> {
        self.update(scope, |keys| keys.remove(&kind).is_some())
    }
}

/// Writes `bytes` to `path` atomically: temporary file in the same directory (`0600`), fsync,
/// rename, fsync of the directory.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CredentialError> {
    let io_err = |action: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| CredentialError::Io {
            action,
            path,
            source,
        }
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir).map_err(io_err("create directory", dir))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    // Removed again unless it is renamed over `path`.
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_err("create", dir))?;
    let temp_path = temp.path().to_owned();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The mode given at creation is filtered by the umask; make it exact.
        let private = fs::Permissions::from_mode(0o600);
        temp.as_file()
            .set_permissions(private)
            .map_err(io_err("create", &temp_path))?;
    }
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(io_err("write", &temp_path))?;
    temp.persist(path)
        .map_err(|e| io_err("replace", path)(e.error))?;
    sync_dir(dir).map_err(io_err("flush directory", dir))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}
