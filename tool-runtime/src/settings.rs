//! The tools a user switched off, persisted as `{"disabledTools": [...]}`.
//!
//! - A missing file is first use: every tool is enabled.
//! - A corrupt file is an error naming the file; it is never overwritten or silently reset.
//! - Writes are atomic: a temporary file in the same directory, then a rename.
//! - Writers take an exclusive OS file lock (released when the process exits, even by a crash)
//!   on the file's directory (on Unix; elsewhere on `<file>.lock` next to the file). [`ToolSettings::update`] reads, changes and writes
//!   under that lock, so concurrent updates from several processes each build on the previous
//!   one: none is lost.
//! - Names of tools that no longer exist are kept (the tool may come back).

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::policy::RunPolicy;

/// Why the settings could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The file exists but cannot be read.
    #[error("cannot read the tool settings `{path}`: {source}")]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is not a valid settings file; it is left untouched.
    #[error(
        "the tool settings `{path}` are corrupt at line {line}, column {column}: {message}; fix or remove the file (it was left untouched)"
    )]
    Corrupt {
        /// The settings file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The lock of the file (see the module documentation) cannot be taken.
    #[error("cannot lock the tool settings at `{path}`: {source}")]
    Lock {
        /// What was locked.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file cannot be written.
    #[error("cannot write the tool settings `{path}`: {source}")]
    Write {
        /// The settings file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SettingsFile {
    disabled_tools: BTreeSet<String>,
}

/// The persisted choice of which tools are switched off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSettings {
    path: PathBuf,
    disabled: BTreeSet<String>,
}

impl ToolSettings {
    /// Reads the settings at `path`; a missing file means every tool is enabled.
    ///
    /// # Errors
    /// When the file exists but cannot be read or is corrupt.
    pub fn load(path: impl Into<PathBuf>) -> Result<Self, SettingsError> {
        let path = path.into();
        let disabled = read(&path)?
            .map(|file| file.disabled_tools)
            .unwrap_or_default();
        Ok(ToolSettings { path, disabled })
    }

    /// The settings file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The disabled tools, sorted.
    pub fn disabled(&self) -> &BTreeSet<String> {
        &self.disabled
    }

    /// True unless the user disabled the tool.
    pub fn is_enabled(&self, name: &str) -> bool {
        !self.disabled.contains(name)
    }

    /// Switches a tool on or off (in memory; call [`ToolSettings::save`]). Returns whether
    /// anything changed.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> bool {
        if enabled {
            self.disabled.remove(name)
        } else {
            self.disabled.insert(name.to_owned())
        }
    }

    /// Reads the settings at `path`, applies `change` and writes them back, holding the file's
    /// lock throughout: concurrent updates (from other processes too) are applied one after the
    /// other and none is lost. Returns the settings as written.
    ///
    /// # Errors
    /// When the lock cannot be taken, the existing file is corrupt or unreadable (it is left
    /// untouched), or the new file cannot be written.
    pub fn update(
        path: impl Into<PathBuf>,
        change: impl FnOnce(&mut ToolSettings),
    ) -> Result<ToolSettings, SettingsError> {
        let path = path.into();
        let _lock = lock(&path)?;
        let mut settings = ToolSettings::load(path)?;
        change(&mut settings);
        settings.write()?;
        Ok(settings)
    }

    /// Writes the settings atomically, replacing what is on disk (use [`ToolSettings::update`]
    /// to build on it). Refuses to replace a file that is corrupt.
    ///
    /// # Errors
    /// When the lock cannot be taken, the existing file is corrupt or unreadable, or the new
    /// file cannot be written.
    pub fn save(&self) -> Result<(), SettingsError> {
        let _lock = lock(&self.path)?;
        self.write()
    }

    /// [`ToolSettings::save`] with the lock held.
    fn write(&self) -> Result<(), SettingsError> {
        read(&self.path)?;
        let file = SettingsFile {
            disabled_tools: self.disabled.clone(),
        };
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| SettingsError::Write {
            path: self.path.clone(),
            source: io::Error::other(e),
        })?;
        text.push('\n');
        write_atomically(&self.path, text.as_bytes()).map_err(|source| SettingsError::Write {
            path: self.path.clone(),
            source,
        })
    }

    /// Adds the disabled tools to a run's policy.
    pub fn apply(&self, policy: &mut RunPolicy) {
        *policy = std::mem::take(policy).disable_all(self.disabled.iter().cloned());
    }

    /// A full policy with the disabled tools switched off.
    pub fn to_policy(&self) -> RunPolicy {
        let mut policy = RunPolicy::full();
        self.apply(&mut policy);
        policy
    }
}

/// The exclusive lock of the settings at `path`, held until the returned file is dropped.
///
/// On Unix the lock is taken on the directory holding the file, so that no lock file is left
/// next to it (a lock on the settings file itself would not do: each write replaces it with a
/// new file). Elsewhere, where a directory cannot be opened as a file, it is taken on
/// `<file>.lock`. A directory that cannot be opened is a [`SettingsError::Write`]: nothing can
/// be written there.
fn lock(path: &Path) -> Result<fs::File, SettingsError> {
    let target = lock_target(path);
    let opened = if cfg!(unix) {
        fs::File::open(&target)
    } else {
        fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&target)
    };
    let file = opened.map_err(|source| SettingsError::Write {
        path: path.to_owned(),
        source,
    })?;
    file.lock().map_err(|source| SettingsError::Lock {
        path: target,
        source,
    })?;
    Ok(file)
}

/// What [`lock`] locks: the directory of `path` on Unix, `<file>.lock` elsewhere.
fn lock_target(path: &Path) -> PathBuf {
    if cfg!(unix) {
        match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        }
    } else {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        path.with_file_name(name)
    }
}

/// The parsed file, or `None` when there is none.
fn read(path: &Path) -> Result<Option<SettingsFile>, SettingsError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| SettingsError::Corrupt {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
        })
}

/// `bytes` in a temporary file next to `path`, flushed to disk, then renamed over it.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let stem = path.file_name().unwrap_or_default().to_string_lossy();
    let mut file = tempfile::Builder::new()
        .prefix(&format!(".{stem}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map(drop).map_err(|e| e.error)
}
