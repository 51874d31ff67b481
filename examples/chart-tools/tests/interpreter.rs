//! `code_interpreter` end to end: through the registry, with the local provider running
//! `python3`, isolated by `unshare -rn` where this machine allows it.
//!
//! Tests that need isolation say so on stderr and skip where user namespaces are unavailable;
//! the others run everywhere `python3` does.
#![cfg(feature = "code-interpreter")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chart_tools::chart::Chart;
use chart_tools::interpreter::{
    self, CapturedOutput, Execution, ExecutionProvider, ExecutionRequest, ExitStatus, Interpreter,
    LocalProvider, ProviderError, TOOL_NAME,
};
use serde_json::{Value, json};
use toolwright_runtime::handler::BoxFuture;
use toolwright_runtime::{Registry, RunPolicy, ToolResult};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn registry() -> Registry<Chart> {
    interpreter::register(Registry::builder())
        .build()
        .expect("the interpreter registers")
}

fn python(code: &str) -> Value {
    json!({"language": "python", "code": code})
}

fn execute(chart: &mut Chart, code: &str) -> ToolResult {
    runtime().block_on(registry().execute(&RunPolicy::full(), chart, TOOL_NAME, &python(code)))
}

/// The probed local provider, or `None` (and a note on stderr) where it cannot isolate.
fn isolated_provider(test: &str) -> Option<LocalProvider> {
    let provider = LocalProvider::probe();
    if provider.is_isolated() {
        Some(provider)
    } else {
        eprintln!(
            "skipping `{test}`: no user and network namespaces here ({})",
            provider.unavailable_reason().unwrap_or("unknown reason")
        );
        None
    }
}

/// A chart whose interpreter runs locally: isolated where possible, otherwise with the opt-in.
fn local_chart() -> Chart {
    let provider = LocalProvider::probe();
    let isolated = provider.is_isolated();
    Chart::demo().with_interpreter(Interpreter::new(provider).allow_unisolated(!isolated))
}

fn data(result: &ToolResult) -> Value {
    result
        .data()
        .unwrap_or_else(|| panic!("expected a success, got {result:?}"))
        .value()
        .expect("the output parses")
}

#[test]
fn print_six_times_seven_answers_42() {
    let mut chart = local_chart();
    let isolated = LocalProvider::probe().is_isolated();
    let result = execute(&mut chart, "print(6 * 7)");
    assert_eq!(
        serde_json::to_value(&result).expect("json"),
        json!({
            "success": true,
            "data": {"stdout": "42\n", "stderr": "", "exit_code": 0, "isolated": isolated},
            "stateChanged": true
        })
    );
}

#[test]
fn the_manifest_example_runs() {
    let mut chart = local_chart();
    let meta = &chart_tools::tools::code_interpreter::META;
    let example: Value = serde_json::from_str(meta.examples[0].input).expect("the example is JSON");
    let result =
        runtime().block_on(registry().execute(&RunPolicy::full(), &mut chart, TOOL_NAME, &example));
    assert_eq!(data(&result)["stdout"], "42\n");
}

/// A script that connects to `port` on loopback and says so.
fn connect_script(port: u16) -> String {
    format!(
        "import socket\n\
         s = socket.create_connection(('127.0.0.1', {port}), timeout=5)\n\
         print('connected')\n"
    )
}

/// True when the listener has a connection waiting.
fn was_reached(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).expect("non-blocking");
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept failed: {e}"),
    }
}

#[test]
fn loopback_is_unreachable_inside_the_sandbox() {
    let Some(provider) = isolated_provider("loopback_is_unreachable_inside_the_sandbox") else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let port = listener.local_addr().expect("its address").port();
    let mut chart = Chart::demo().with_interpreter(Interpreter::new(provider));
    let result = execute(&mut chart, &connect_script(port));
    let error = result.error().expect("the connection fails");
    assert_eq!(error.code, "CODE_EXECUTION_FAILED", "{error:?}");
    // A fresh network namespace has only a loopback device, and it is down.
    assert!(
        error.message.contains("Network is unreachable"),
        "the message shows the Python error: {}",
        error.message
    );
    assert!(!error.message.contains("connected\n"), "{}", error.message);
    assert!(
        !was_reached(&listener),
        "the sandboxed script reached loopback"
    );
}

#[test]
fn the_same_script_reaches_loopback_without_the_sandbox() {
    // Shows that the sandbox test above can fail: without isolation the script connects.
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let port = listener.local_addr().expect("its address").port();
    let mut chart = Chart::demo()
        .with_interpreter(Interpreter::new(LocalProvider::unisolated()).allow_unisolated(true));
    let result = execute(&mut chart, &connect_script(port));
    assert_eq!(
        data(&result),
        json!({"stdout": "connected\n", "stderr": "", "exit_code": 0, "isolated": false})
    );
    assert!(was_reached(&listener));
}

/// A provider that does not enforce the network policy and counts the programs it ran.
#[derive(Debug, Default)]
struct CountingProvider {
    runs: AtomicUsize,
}

impl ExecutionProvider for CountingProvider {
    fn describe(&self) -> String {
        "a counting provider without isolation".to_owned()
    }

    fn enforces_network_policy(&self) -> bool {
        false
    }

    fn run<'a>(
        &'a self,
        request: &'a ExecutionRequest,
    ) -> BoxFuture<'a, Result<Execution, ProviderError>> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let text = format!("ran {} bytes\n", request.code.len());
        Box::pin(async move {
            Ok(Execution {
                stdout: CapturedOutput::capture(text.as_bytes(), text.len() as u64, 1024),
                stderr: CapturedOutput::default(),
                status: ExitStatus {
                    code: Some(0),
                    signal: None,
                },
                timed_out: false,
                isolated: false,
            })
        })
    }
}

#[test]
fn an_unisolated_provider_is_refused_unless_the_host_opted_in() {
    let provider = Arc::new(CountingProvider::default());
    let mut chart = Chart::demo().with_interpreter(Interpreter::from_shared(provider.clone()));
    let result = execute(&mut chart, "print(1)");
    assert_eq!(
        serde_json::to_value(&result).expect("json"),
        json!({
            "success": false,
            "error": {
                "code": "TOOL_NOT_ALLOWED",
                "message": "The tool `code_interpreter` cannot run code here: its execution provider (a counting provider without isolation) does not enforce the no-network policy, and the host did not allow running code without isolation.",
                "retryable": false,
                "recommendedAction": "Do not retry: the host does not allow this call. Tell the user, or answer without this tool."
            },
            "stateChanged": false
        })
    );
    assert_eq!(provider.runs.load(Ordering::SeqCst), 0, "nothing ran");

    let mut chart = Chart::demo()
        .with_interpreter(Interpreter::from_shared(provider.clone()).allow_unisolated(true));
    let result = execute(&mut chart, "print(1)");
    assert_eq!(
        data(&result),
        json!({"stdout": "ran 8 bytes\n", "stderr": "", "exit_code": 0, "isolated": false})
    );
    assert_eq!(provider.runs.load(Ordering::SeqCst), 1);
}

#[test]
fn code_with_a_nul_character_never_reaches_the_provider() {
    let provider = Arc::new(CountingProvider::default());
    let mut chart = Chart::demo()
        .with_interpreter(Interpreter::from_shared(provider.clone()).allow_unisolated(true));
    let result = execute(&mut chart, "print(1)\0");
    let error = result.error().expect("a NUL is refused");
    assert_eq!(error.code, "CODE_EXECUTION_FAILED");
    assert!(
        error
            .message
            .ends_with("The code contains a NUL character (`\\0`); remove it.")
    );
    assert_eq!(provider.runs.load(Ordering::SeqCst), 0);
}

#[test]
fn the_local_provider_without_namespaces_is_refused_too() {
    let mut chart = Chart::demo().with_interpreter(Interpreter::new(LocalProvider::unisolated()));
    let result = execute(&mut chart, "print(1)");
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert!(!result.state_changed());
}

#[test]
fn a_refusal_comes_after_validation_and_never_for_an_isolating_provider() {
    let Some(provider) = isolated_provider("a_refusal_comes_after_validation") else {
        return;
    };
    let interpreter = Interpreter::new(provider);
    assert_eq!(interpreter.refusal(), None);
    let mut chart = Chart::demo().with_interpreter(interpreter);
    let result = runtime().block_on(registry().execute(
        &RunPolicy::full(),
        &mut chart,
        TOOL_NAME,
        &json!({"language": "ruby", "code": "puts 1"}),
    ));
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
}

#[test]
fn without_a_provider_the_sandbox_is_unavailable() {
    let mut chart = Chart::demo();
    let result = execute(&mut chart, "print(1)");
    let error = result.error().expect("no provider");
    assert_eq!(error.code, "SANDBOX_UNAVAILABLE");
    assert_eq!(
        error.message,
        "No isolated environment is available to run code. The host installed no execution provider."
    );
    assert!(!error.retryable);
    assert!(!result.state_changed());
}

#[test]
fn a_missing_interpreter_is_an_unavailable_sandbox() {
    for provider in [LocalProvider::probe(), LocalProvider::unisolated()] {
        let provider = provider.python("python-that-is-not-installed");
        let mut chart =
            Chart::demo().with_interpreter(Interpreter::new(provider).allow_unisolated(true));
        let result = execute(&mut chart, "print(1)");
        let error = result.error().expect("no interpreter");
        assert_eq!(error.code, "SANDBOX_UNAVAILABLE");
        assert_eq!(
            error.message,
            "No isolated environment is available to run code. The program could not be started: \
             `python-that-is-not-installed` is not installed (looked in `/usr/local/bin:/usr/bin:/bin`)"
        );
        assert!(!result.state_changed());
    }
}

#[test]
fn a_read_only_run_never_lists_or_runs_the_interpreter() {
    let provider = Arc::new(CountingProvider::default());
    let mut chart = Chart::demo()
        .with_interpreter(Interpreter::from_shared(provider.clone()).allow_unisolated(true));
    let registry = registry();
    assert!(registry.resolve(&RunPolicy::read_only()).is_empty());
    let result = runtime().block_on(registry.execute(
        &RunPolicy::read_only(),
        &mut chart,
        TOOL_NAME,
        &python("print(1)"),
    ));
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(provider.runs.load(Ordering::SeqCst), 0);
}

#[test]
fn an_error_in_the_code_is_a_declared_failure_with_the_traceback() {
    let mut chart = local_chart();
    let result = execute(&mut chart, "print('before')\n1 / 0\n");
    let error = result.error().expect("the code fails");
    assert_eq!(error.code, "CODE_EXECUTION_FAILED");
    assert!(error.retryable);
    assert!(
        error.message.starts_with(
            "The code raised an error or exited with a non-zero status. The program exited with code 1.\nstderr:\nTraceback"
        ),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("ZeroDivisionError: division by zero\nstdout:\nbefore")
    );
    assert!(
        !result.state_changed(),
        "a declared error reports no change"
    );
}

/// Every process whose command line holds `token` (a zombie's is empty, so it does not count).
fn processes_with(token: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(token)
                .then_some(pid)
        })
        .collect()
}

/// Waits (at most `limit`) until `done` holds; answers whether it did.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Runs an endless program (which also starts a child that sleeps) through a registry whose
/// limit is three seconds: `TOOL_TIMEOUT` with `stateChanged: true`, and no process of the program
/// is left.
fn endless_program_is_stopped(interpreter: Interpreter, token: &str) {
    // The child's command line holds `child-<token>`, which the program's own text does not.
    let code = format!(
        "import subprocess, sys\n\
         tag = 'child' + '-{token}'\n\
         subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)  # ' + tag])\n\
         while True:\n    pass  # {token}\n"
    );
    let child = format!("child-{token}");
    let registry = Arc::new(
        interpreter::register(Registry::builder())
            .timeout(TOOL_NAME, Duration::from_secs(3))
            .build()
            .expect("a registry"),
    );
    let runtime = runtime();
    let call = {
        let registry = Arc::clone(&registry);
        runtime.spawn(async move {
            let mut chart = Chart::demo().with_interpreter(interpreter);
            registry
                .execute(&RunPolicy::full(), &mut chart, TOOL_NAME, &python(&code))
                .await
        })
    };
    // The program started its child before the limit stopped it.
    let started = eventually(Duration::from_secs(10), || {
        !processes_with(&child).is_empty()
    });
    let result = runtime.block_on(call).expect("the call task");
    assert!(started, "the program never started: {result:?}");
    assert_eq!(
        serde_json::to_value(&result).expect("json"),
        json!({
            "success": false,
            "error": {
                "code": "TOOL_TIMEOUT",
                "message": "The tool `code_interpreter` did not finish within 3 s.",
                "retryable": true,
                "recommendedAction": "The tool may have changed state before it was stopped: check the current state, then retry only if needed."
            },
            "stateChanged": true
        })
    );
    assert!(
        eventually(Duration::from_secs(10), || processes_with(token).is_empty()),
        "processes of the program survived the time limit: {:?}",
        processes_with(token)
    );
}

#[test]
fn the_time_limit_kills_an_endless_loop_in_the_sandbox() {
    let Some(provider) = isolated_provider("the_time_limit_kills_an_endless_loop_in_the_sandbox")
    else {
        return;
    };
    endless_program_is_stopped(Interpreter::new(provider), "endless-isolated-7c1e");
}

#[test]
fn the_time_limit_kills_an_endless_loop_without_the_sandbox() {
    endless_program_is_stopped(
        Interpreter::new(LocalProvider::unisolated()).allow_unisolated(true),
        "endless-unisolated-93ab",
    );
}

/// A program that leaves a process behind which holds its stdout open.
fn background_program(token: &str) -> String {
    format!(
        "import subprocess, sys\n\
         subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)  # {token}'])\n\
         print('done')\n"
    )
}

#[test]
fn nothing_the_program_started_outlives_it() {
    for (interpreter, token) in [
        (
            Interpreter::new(LocalProvider::unisolated()).allow_unisolated(true),
            "background-unisolated-51d0",
        ),
        (
            Interpreter::new(LocalProvider::probe()).allow_unisolated(true),
            "background-probed-0f3a",
        ),
    ] {
        let mut chart = Chart::demo().with_interpreter(interpreter);
        // With a registry limit of 30 s: the call answers as soon as the program exits, not
        // when its left-behind child would.
        let result = execute(&mut chart, &background_program(token));
        assert_eq!(data(&result)["stdout"], "done\n", "{token}");
        assert!(
            eventually(Duration::from_secs(10), || processes_with(token).is_empty()),
            "a process of the program survived it: {token}"
        );
    }
}

#[test]
fn the_providers_own_time_limit_stops_a_program_run_directly() {
    let provider = LocalProvider::unisolated().time_limit(Duration::from_secs(2));
    let execution = runtime()
        .block_on(provider.run(&ExecutionRequest::python(
            "print('started', flush=True)\nwhile True:\n    pass\n",
        )))
        .expect("the program starts");
    assert!(execution.timed_out);
    assert_eq!(execution.stdout.text, "started\n");
    assert_eq!(execution.status.code, None, "{:?}", execution.status);
}

#[test]
fn output_is_capped_and_says_how_much_is_missing() {
    let provider = LocalProvider::probe().output_limit(1000);
    let isolated = provider.is_isolated();
    let mut chart =
        Chart::demo().with_interpreter(Interpreter::new(provider).allow_unisolated(!isolated));
    let result = execute(
        &mut chart,
        "import sys\nsys.stdout.write('a' * 200000)\nsys.stderr.write('b' * 5000)\n",
    );
    let data = data(&result);
    assert_eq!(
        data["stdout"],
        format!(
            "{}\n… (truncated, 199000 bytes not shown)",
            "a".repeat(1000)
        )
    );
    assert_eq!(
        data["stderr"],
        format!("{}\n… (truncated, 4000 bytes not shown)", "b".repeat(1000))
    );
}

#[test]
fn the_program_sees_a_clean_directory_and_no_host_environment() {
    let mut chart = local_chart();
    let code = "import os, json\n\
                before = sorted(os.listdir('.'))\n\
                open('left-behind.txt', 'w').write('x')\n\
                print(json.dumps({'files': before, 'env': sorted(os.environ), \
                'home_is_cwd': os.environ['HOME'] == os.getcwd()}))\n";
    for _ in 0..2 {
        let result = execute(&mut chart, code);
        let stdout = data(&result)["stdout"].as_str().expect("stdout").to_owned();
        let seen: Value = serde_json::from_str(&stdout).expect("the program prints JSON");
        assert_eq!(
            seen,
            json!({"files": [], "env": ["HOME", "LANG", "PATH", "TMPDIR"], "home_is_cwd": true}),
            "each run starts in an empty directory with a minimal environment"
        );
    }
}

#[test]
fn the_probe_reports_what_it_found() {
    let provider = LocalProvider::probe();
    assert_eq!(provider.enforces_network_policy(), provider.is_isolated());
    assert_eq!(
        provider.unavailable_reason().is_none(),
        provider.is_isolated()
    );
    let unisolated = LocalProvider::unisolated();
    assert!(!unisolated.enforces_network_policy());
    assert!(unisolated.describe().contains("without isolation"));
}
