//! Children that cannot be started or do not speak MCP.

mod support;

use std::time::{Duration, Instant};

use support::{LIMIT, command};
use toolwright_secrets::SecretString;
use toolwright_upstream::{Endpoint, Upstream, UpstreamError};

async fn connect(endpoint: &Endpoint) -> UpstreamError {
    tokio::time::timeout(LIMIT, Upstream::connect(endpoint))
        .await
        .expect("within the time limit")
        .expect_err("the connection fails")
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error_naming_it() {
    let error = connect(&command("no-such-mcp-server-x9", &["--flag"])).await;
    let text = error.to_string();
    match error {
        UpstreamError::Spawn {
            program, command, ..
        } => {
            assert_eq!(program, "no-such-mcp-server-x9");
            assert_eq!(command, "no-such-mcp-server-x9 --flag");
        }
        other => panic!("not a spawn error: {other}"),
    }
    assert!(text.contains("no-such-mcp-server-x9 --flag"), "{text}");
}

#[tokio::test]
async fn a_child_that_exits_at_once_is_a_connect_error() {
    let Some(program) = support::require(support::on_path("false"), "false (coreutils)") else {
        return;
    };
    let started = Instant::now();
    let error = connect(&command(program.display().to_string(), &[])).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(error, UpstreamError::Connect { .. }), "{error}");
    assert!(error.to_string().contains("false"), "{error}");
}

#[tokio::test]
async fn the_childs_stderr_is_in_the_error_without_its_secrets() {
    let Some(shell) = support::require(support::on_path("sh"), "sh") else {
        return;
    };
    let endpoint = Endpoint::Command {
        program: shell.display().to_string(),
        args: vec![
            "-c".into(),
            r#"echo "bad key: $UPSTREAM_KEY" >&2; exit 3"#.into(),
        ],
        env: vec![("UPSTREAM_KEY".into(), SecretString::new("k-s3cret-42"))],
    };
    let error = connect(&endpoint).await;
    let text = error.to_string();
    assert!(matches!(error, UpstreamError::Connect { .. }), "{text}");
    assert!(text.contains("bad key: [REDACTED]"), "{text}");
    assert!(!text.contains("k-s3cret-42"), "{text}");
    assert!(!format!("{error:?}").contains("k-s3cret-42"));
}

#[tokio::test]
async fn a_child_that_never_answers_times_out() {
    let Some(sleep) = support::require(support::on_path("sleep"), "sleep (coreutils)") else {
        return;
    };
    let endpoint = command(sleep.display().to_string(), &["30"]);
    let started = Instant::now();
    let error = tokio::time::timeout(
        LIMIT,
        Upstream::connect_with_timeout(&endpoint, Duration::from_secs(1)),
    )
    .await
    .expect("within the time limit")
    .expect_err("sleep speaks no MCP");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(error, UpstreamError::Connect { .. }), "{error}");
    assert!(error.to_string().contains("initialize"), "{error}");
}
