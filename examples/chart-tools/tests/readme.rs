//! The console examples of the READMEs (this crate's and the repository's) are what
//! `chart-tools run` answers.

mod common;

use std::path::Path;

#[test]
fn the_readme_console_example_is_current() {
    check_console_example(&Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
}

#[test]
fn the_repository_readme_console_example_is_current() {
    check_console_example(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"));
}

fn check_console_example(path: &Path) {
    let readme = std::fs::read_to_string(path).expect("the README");
    let block = readme
        .split("```console\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a console block");
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
        .find_map(|line| line.split("-- run").nth(1))
        .expect("a run command")
        .split_whitespace()
        .collect();
    let shown: Vec<&str> = block.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(inputs.len(), 2, "{block}");
    assert_eq!(shown.len(), inputs.len(), "{block}");
    let mut input = inputs.join("\n");
    input.push('\n');
    let output = common::run_binary(&args, &input);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), shown);
}
