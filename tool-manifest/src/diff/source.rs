//! The two sides of a diff: a directory of manifests, a lock file, a JSON file of MCP
//! `tools/list` (`{"tools": [...]}`, a JSON-RPC response or a `Tool` array) of any server, or the
//! manifests of a git ref, read without a checkout.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::definition::{Digests, ToolSet};
use crate::diagnostic::Diagnostics;
use crate::lock::Lock;
use crate::manifest;

/// Why a side of a diff cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// Manifests with mistakes (each located).
    #[error("{0}")]
    Manifests(Diagnostics),
    /// Anything else, with the path it concerns.
    #[error("{0}")]
    Other(String),
}

/// A loaded side: its tools, and what they came from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Side {
    /// The tools.
    pub set: ToolSet,
    /// The specs, when the side is manifests (the digests of a lock on the other side are
    /// computed from them).
    specs: Option<Vec<crate::model::ToolSpec>>,
    /// Whether the side is a lock file.
    locked: bool,
}

impl Side {
    /// A side of manifests (or code-first tools' specs).
    pub fn of_specs(specs: Vec<crate::model::ToolSpec>) -> Side {
        Side {
            set: ToolSet::from_specs(&specs),
            specs: Some(specs),
            locked: false,
        }
    }

    /// Fills in the digests a comparison with `other` needs: when one side is a lock and the
    /// other manifests, the manifests' digests are computed (the diff reports an export that
    /// changed by itself only then).
    pub fn pair(mut old: Side, mut new: Side) -> (ToolSet, ToolSet) {
        let (old_locked, new_locked) = (old.locked, new.locked);
        for (this, other_locked) in [(&mut old, new_locked), (&mut new, old_locked)] {
            if let (Some(specs), true) = (&this.specs, other_locked) {
                let lock = Lock::compute(specs);
                set_digests(&mut this.set, &lock);
            }
        }
        (old.set, new.set)
    }
}

fn set_digests(set: &mut ToolSet, lock: &Lock) {
    for (name, definition) in &mut set.tools {
        if let Some((digest, exports)) = lock.digests(name) {
            definition.digests = Some(Digests {
                definition: digest,
                exports,
            });
        }
    }
}

/// Reads one side from a path: a directory of manifests, a lock file or a JSON file of MCP
/// tools (told apart by their content).
///
/// # Errors
/// A path that cannot be read, manifests with mistakes, or a file that is neither a lock nor a
/// list of tools.
pub fn load(path: &Path) -> Result<Side, SourceError> {
    if path.is_dir() {
        let specs = manifest::load_definitions(path)
            .specs
            .map_err(SourceError::Manifests)?;
        return Ok(Side::of_specs(specs));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| SourceError::Other(format!("cannot read `{}`: {e}", path.display())))?;
    let shown = path.display();
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        SourceError::Other(format!(
            "`{shown}` is neither a directory of manifests nor JSON (a lock file or MCP `tools/list`): {e}"
        ))
    })?;
    if value.get("tools").is_some_and(Value::is_object) {
        let lock = Lock::parse(&text).map_err(|e| SourceError::Other(format!("`{shown}`: {e}")))?;
        let specs = lock
            .specs()
            .map_err(|e| SourceError::Other(format!("`{shown}`: {e}")))?;
        let mut set = ToolSet::from_specs(&specs);
        set_digests(&mut set, &lock);
        return Ok(Side {
            set,
            specs: None,
            locked: true,
        });
    }
    let tools = crate::import::mcp_tools(&text)
        .map_err(|e| SourceError::Other(format!("`{shown}`: {e}")))?;
    let set =
        ToolSet::from_mcp(&tools).map_err(|e| SourceError::Other(format!("`{shown}`: {e}")))?;
    Ok(Side {
        set,
        specs: None,
        locked: false,
    })
}

/// The manifests of directory `dir` as they are at git revision `reference` (a branch, a tag, a
/// commit), read from the repository without a checkout; their locations name the files as
/// `dir` holds them now.
///
/// # Errors
/// `git` missing or failing (its message), a directory the revision does not have, or manifests
/// with mistakes.
pub fn load_at_ref(reference: &str, dir: &Path) -> Result<Side, SourceError> {
    let git_dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        SourceError::Other(format!(
            "cannot read `{}` at `{reference}`: {what}: {e}",
            dir.display()
        ))
    };
    // The files under `dir` at the revision, relative to `dir`.
    let listed = git(
        git_dir,
        &["ls-tree", "-r", "-z", "--name-only", reference, "--", "."],
        None,
    )
    .map_err(|e| failed("git ls-tree", &e))?;
    let files: Vec<String> = listed
        .split(|b| *b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect();
    if files.is_empty() {
        return Err(SourceError::Other(format!(
            "`{}` holds no files at `{reference}`",
            dir.display()
        )));
    }
    let temp = tempfile::tempdir().map_err(|e| failed("a temporary directory", &e))?;
    // One `git cat-file` reads every file.
    let mut request = String::new();
    for file in &files {
        request.push_str(&format!("{reference}:./{file}\n"));
    }
    let contents = git(git_dir, &["cat-file", "--batch"], Some(request.as_bytes()))
        .map_err(|e| failed("git cat-file", &e))?;
    let mut rest = &contents[..];
    for file in &files {
        let header_end = rest
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| failed("git cat-file", &"a truncated answer"))?;
        let header = String::from_utf8_lossy(&rest[..header_end]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| failed("git cat-file", &header))?;
        let body = rest
            .get(header_end + 1..header_end + 1 + size)
            .ok_or_else(|| failed("git cat-file", &"a truncated answer"))?;
        let path = temp.path().join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| failed("a temporary directory", &e))?;
        }
        std::fs::write(&path, body).map_err(|e| failed("a temporary file", &e))?;
        rest = rest.get(header_end + 1 + size + 1..).unwrap_or(&[]);
    }
    let loaded = manifest::load_definitions(temp.path());
    let shown = PathBuf::from(format!("{reference}:{}", dir.display()));
    let specs = loaded.specs.map_err(|d| {
        SourceError::Other(format!(
            "the manifests of `{}` at `{reference}` have mistakes:\n{}",
            dir.display(),
            d.to_string().replace(
                &temp.path().display().to_string(),
                &shown.display().to_string()
            )
        ))
    })?;
    let mut side = Side::of_specs(specs);
    side.set = side.set.sources_in(temp.path(), dir);
    Ok(side)
}

/// Runs `git -C dir args…`, writing `input` to it; its standard output, or its message.
fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written from a thread: git answers as it reads, and both pipes have bounded buffers.
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("git failed: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(output.stdout)
}
