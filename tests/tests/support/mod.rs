//! What the tests that read the project's shared fixtures (`<workspace>/../shared`) have in
//! common: where a fixture is, and what its absence means.

use std::path::PathBuf;

/// The fixture directory named by the environment variable `var`, else `../shared/<parts…>` next
/// to the workspace. `None` when it is absent: the test then says so and passes, except in CI
/// (`CI` set), which has the fixtures, where a missing one fails the test.
pub fn shared_dir(var: &str, parts: &[&str]) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("..")
            .join("shared");
        dir.extend(parts);
        dir
    });
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is not present (set {var} to its directory): CI has it, so the test fails",
        dir.display()
    );
    println!("{} is not present: skipped", dir.display());
    None
}

/// Runs the test `test` of this test binary again, in a child process, with `var` naming a
/// directory that does not exist: with `CI` set it must fail saying the fixture is absent, and
/// without `CI` it must pass (skipped).
pub fn assert_missing_fixture_fails_only_in_ci(var: &str, test: &str) {
    let missing = std::env::temp_dir().join("toolwright-tests-no-such-fixture");
    assert!(!missing.exists(), "{} exists", missing.display());
    let run = |ci: bool| {
        let mut command = std::process::Command::new(
            std::env::current_exe().expect("the test binary's own path"),
        );
        command
            .args([test, "--exact", "--test-threads=1", "--nocapture"])
            .env(var, &missing);
        if ci {
            command.env("CI", "true");
        } else {
            command.env_remove("CI");
        }
        command.output().expect("the test binary runs")
    };
    let in_ci = run(true);
    let text = String::from_utf8_lossy(&in_ci.stdout).into_owned()
        + &String::from_utf8_lossy(&in_ci.stderr);
    assert!(
        !in_ci.status.success(),
        "with CI set, `{test}` passed:\n{text}"
    );
    assert!(text.contains("is not present"), "{text}");
    let outside = run(false);
    let text = String::from_utf8_lossy(&outside.stdout);
    assert!(
        outside.status.success(),
        "without CI, `{test}` failed:\n{text}"
    );
    assert!(text.contains("skipped"), "{text}");
}
