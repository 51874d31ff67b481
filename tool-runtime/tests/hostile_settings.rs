//! Several processes writing the tool settings at once. Each writer is this test binary,
//! started again with `HOSTILE_SETTINGS_FILE` set, running only `child_writer`.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use toolwright_runtime::settings::{SettingsError, ToolSettings};

const FILE_VAR: &str = "HOSTILE_SETTINGS_FILE";
const WRITER_VAR: &str = "HOSTILE_SETTINGS_WRITER";
const MODE_VAR: &str = "HOSTILE_SETTINGS_MODE";

const WRITERS: usize = 4;
const UPDATES: usize = 25;

/// The child's work; does nothing in a normal test run.
#[test]
fn child_writer() {
    let (Ok(file), Ok(writer)) = (std::env::var(FILE_VAR), std::env::var(WRITER_VAR)) else {
        return;
    };
    let mode = std::env::var(MODE_VAR).unwrap_or_default();
    for i in 0..UPDATES {
        let name = format!("w{writer}_{i:02}");
        if mode == "save" {
            // Last writer wins, but every file on disk is one writer's whole content.
            let mut settings = ToolSettings::load(&file).expect("load");
            settings.set_enabled(&format!("only_{writer}"), false);
            for other in 0..WRITERS {
                if other.to_string() != writer {
                    settings.set_enabled(&format!("only_{other}"), true);
                }
            }
            settings.save().expect("save");
        } else {
            ToolSettings::update(&file, |settings| {
                settings.set_enabled(&name, false);
                // The previous writer's work is visible here: toggle it and back.
                let first = settings.disabled().iter().next().cloned();
                if let Some(first) = first {
                    settings.set_enabled(&first, true);
                    settings.set_enabled(&first, false);
                }
            })
            .expect("update");
        }
    }
}

fn spawn_writers(file: &Path, mode: &str) -> Vec<Child> {
    let exe = std::env::current_exe().expect("the test binary");
    (0..WRITERS)
        .map(|writer| {
            Command::new(&exe)
                .args(["--exact", "child_writer", "--test-threads", "1"])
                .env(FILE_VAR, file)
                .env(WRITER_VAR, writer.to_string())
                .env(MODE_VAR, mode)
                .stdout(Stdio::null())
                .spawn()
                .expect("spawn a writer")
        })
        .collect()
}

/// Reads the file while the writers run: it is never missing or half-written.
fn watch_until_done(file: &Path, mut children: Vec<Child>) -> usize {
    let mut reads = 0;
    loop {
        if file.exists() {
            ToolSettings::load(file).expect("the settings file is always whole");
            reads += 1;
        }
        children.retain_mut(|child| match child.try_wait().expect("wait") {
            Some(status) => {
                assert!(status.success(), "a writer failed: {status}");
                false
            }
            None => true,
        });
        if children.is_empty() {
            return reads;
        }
        std::thread::yield_now();
    }
}

#[test]
fn concurrent_updates_from_several_processes_lose_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("tools.json");
    let children = spawn_writers(&file, "update");
    watch_until_done(&file, children);
    let settings = ToolSettings::load(&file).expect("load");
    let expected: Vec<String> = (0..WRITERS)
        .flat_map(|w| (0..UPDATES).map(move |i| format!("w{w}_{i:02}")))
        .collect();
    assert_eq!(
        settings.disabled().iter().cloned().collect::<Vec<_>>(),
        expected,
        "every update of every process is kept"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn concurrent_saves_leave_one_writer_s_whole_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("tools.json");
    let children = spawn_writers(&file, "save");
    watch_until_done(&file, children);
    let settings = ToolSettings::load(&file).expect("load");
    let disabled: Vec<&String> = settings.disabled().iter().collect();
    assert_eq!(disabled.len(), 1, "one writer's content: {disabled:?}");
    assert!(disabled[0].starts_with("only_"));
}

#[test]
fn an_update_never_replaces_a_corrupt_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("tools.json");
    let corrupt = "{\"disabledTools\": [\"a\", \n";
    std::fs::write(&file, corrupt).expect("write");
    let error = ToolSettings::update(&file, |settings| {
        settings.set_enabled("b", false);
    })
    .expect_err("corrupt");
    assert!(
        matches!(error, SettingsError::Corrupt { line: 2, .. }),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), corrupt);
}

#[test]
fn an_update_in_a_missing_directory_is_a_clear_error_and_creates_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("missing").join("tools.json");
    let error = ToolSettings::update(&file, |settings| {
        settings.set_enabled("a", false);
    })
    .expect_err("no directory");
    assert!(matches!(error, SettingsError::Write { .. }), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "cannot write the tool settings `{}`: ",
            file.display()
        )),
        "{error}"
    );
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn saving_leaves_only_the_settings_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("tools.json");
    ToolSettings::update(&file, |settings| {
        settings.set_enabled("a", false);
    })
    .expect("update");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["tools.json"]);
}
