//! The console examples of the READMEs (this crate's and the repository's) are what
//! `chart-tools run` and `chart-tools host` answer.

mod common;

use std::path::Path;

#[test]
fn the_readme_console_examples_are_current() {
    let checked = check_console_examples(&Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    assert_eq!(checked, ["run", "host"]);
}

#[test]
fn the_repository_readme_console_examples_are_current() {
    let checked =
        check_console_examples(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"));
    assert_eq!(checked, ["run", "host"]);
}

/// Runs every console block of the README and compares what it prints; returns the commands.
fn check_console_examples(path: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(path).expect("the README");
    let mut checked = Vec::new();
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("```").next().expect("a console block");
        let inputs: Vec<String> = block
            .lines()
            .filter_map(|line| line.trim().strip_prefix('\''))
            .map(|line| {
                line.trim_end_matches(" \\")
                    .trim_end_matches('\'')
                    .to_owned()
            })
            .collect();
        let args: Vec<&str> = block
            .lines()
            .find_map(|line| line.split("-p chart-tools -- ").nth(1))
            .expect("a chart-tools command")
            .split_whitespace()
            .collect();
        let shown: Vec<&str> = block.lines().filter(|l| l.starts_with('[')).collect();
        assert!(!inputs.is_empty(), "{block}");
        assert_eq!(shown.len(), inputs.len(), "{block}");
        let mut input = inputs.join("\n");
        input.push('\n');
        let output = common::command(&args, input.as_bytes());
        assert!(output.status.success(), "{block}");
        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
        assert_eq!(stdout.lines().collect::<Vec<_>>(), shown, "{block}");
        checked.push(args[0].to_owned());
    }
    checked
}
