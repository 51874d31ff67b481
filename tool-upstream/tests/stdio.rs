//! `@modelcontextprotocol/server-everything` over stdio: list, call, list changes, a refused
//! call, and a child that dies during a call.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{LIMIT, arguments, command, everything, names};
use toolwright_upstream::{Upstream, UpstreamError};

#[tokio::test]
async fn lists_and_calls_echo() {
    let Some(program) = everything() else { return };
    tokio::time::timeout(LIMIT, async {
        let endpoint = command(program.display().to_string(), &["stdio"]);
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        let (name, version) = upstream.server_info();
        assert!(name.contains("everything"), "server name {name}");
        assert!(!version.is_empty());

        let tools = upstream.list_tools().await.expect("lists");
        assert!(names(&tools).contains(&"echo"), "tools {:?}", names(&tools));
        let echo = tools
            .iter()
            .find(|tool| tool["name"] == "echo")
            .expect("echo is listed");
        assert_eq!(echo["inputSchema"]["type"], "object");

        let result = upstream
            .call_tool("echo", arguments(json!({"message": "hi"})))
            .await
            .expect("echo answers");
        let text = result["content"][0]["text"]
            .as_str()
            .expect("a text content");
        assert!(text.contains("hi"), "echo said {text}");
        assert_ne!(result["isError"], true);

        assert!(!upstream.is_closed());
        upstream.close().await;
    })
    .await
    .expect("within the time limit");
}

#[tokio::test]
async fn counts_tool_list_changes() {
    let Some(program) = everything() else { return };
    tokio::time::timeout(LIMIT, async {
        let endpoint = command(program.display().to_string(), &["stdio"]);
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        // The server registers its tools that depend on the client's capabilities once the
        // client is initialized, and says so with `notifications/tools/list_changed`.
        let mut changes = upstream.list_changed();
        tokio::time::timeout(
            Duration::from_secs(20),
            changes.wait_for(|count| *count > 0),
        )
        .await
        .expect("a list change within 20 s")
        .expect("the counter is alive");
        assert!(*upstream.list_changed().borrow() >= 1);
        let tools = upstream.list_tools().await.expect("lists again");
        assert!(names(&tools).contains(&"echo"));
        upstream.close().await;
    })
    .await
    .expect("within the time limit");
}

#[tokio::test]
async fn an_unknown_tool_or_bad_arguments_are_answered() {
    let Some(program) = everything() else { return };
    tokio::time::timeout(LIMIT, async {
        let endpoint = command(program.display().to_string(), &["stdio"]);
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        for (tool, args) in [
            ("no-such-tool", json!({})),
            ("echo", json!({"message": 42})),
        ] {
            match upstream.call_tool(tool, arguments(args)).await {
                // Servers differ: a protocol error, or a result flagged as an error.
                Err(UpstreamError::Call {
                    tool: called,
                    code,
                    why,
                    ..
                }) => {
                    assert_eq!(called, tool);
                    assert!(code < 0, "code {code}: {why}");
                }
                Ok(result) => assert_eq!(result["isError"], true, "{result}"),
                Err(other) => panic!("unexpected error for {tool}: {other}"),
            }
        }
        assert!(!upstream.is_closed());
        upstream.close().await;
    })
    .await
    .expect("within the time limit");
}

#[tokio::test]
async fn a_call_fails_promptly_when_the_child_dies() {
    let Some(program) = everything() else { return };
    let Some(timeout) = support::require(support::on_path("timeout"), "timeout (coreutils)") else {
        return;
    };
    tokio::time::timeout(LIMIT, async {
        // `timeout` ends the real server three seconds in, in the middle of a 30 s operation.
        let program = program.display().to_string();
        let endpoint = command(timeout.display().to_string(), &["3", &program, "stdio"]);
        let upstream = Upstream::connect(&endpoint).await.expect("connects");
        let started = Instant::now();
        let error = upstream
            .call_tool(
                "trigger-long-running-operation",
                arguments(json!({"duration": 30, "steps": 30})),
            )
            .await
            .expect_err("the server died");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "took {:?}",
            started.elapsed()
        );
        assert!(
            matches!(error, UpstreamError::Closed { .. }),
            "unexpected error: {error}"
        );
        assert!(error.to_string().contains(&program), "{error}");
        assert!(upstream.is_closed());
        let again = upstream
            .call_tool("echo", arguments(json!({"message": "hi"})))
            .await
            .expect_err("closed");
        assert!(matches!(again, UpstreamError::Closed { .. }), "{again}");
    })
    .await
    .expect("within the time limit");
}

/// The pid a shell wrote before it became the server (`exec`), once the file has it.
async fn pid_in(file: &std::path::Path) -> u32 {
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// True while `pid` is a process that has not exited (a zombie has exited).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .trim_start()
            .starts_with('Z')
    })
}

async fn exits(pid: u32) -> bool {
    for _ in 0..100 {
        if !running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_child_ends_with_the_last_handle_or_at_close() {
    let Some(program) = everything() else { return };
    let Some(shell) = support::require(support::on_path("sh"), "sh") else {
        return;
    };
    tokio::time::timeout(LIMIT, async {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for (round, closing) in [false, true].into_iter().enumerate() {
            let file = dir.path().join(format!("pid-{round}"));
            let script = format!(
                "echo $$ > '{}'; exec '{}' stdio",
                file.display(),
                program.display()
            );
            let endpoint = command(shell.display().to_string(), &["-c", &script]);
            let upstream = Upstream::connect(&endpoint).await.expect("connects");
            let pid = pid_in(&file).await;
            assert!(running(pid));
            let clone = upstream.clone();
            if closing {
                upstream.close().await;
                assert!(clone.is_closed());
                drop(clone);
            } else {
                drop(upstream);
                assert!(running(pid), "a clone still holds the connection");
                drop(clone);
            }
            assert!(exits(pid).await, "the server {pid} still runs");
        }
    })
    .await
    .expect("within the time limit");
}
