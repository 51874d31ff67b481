//! The provider adapters: each provider's published example responses through the adapter and
//! the registry, and the results checked against the provider's result shape.

mod home_tools;

use home_tools::{Home, fixture, registry, runtime};
use serde_json::{Value, json};
use toolwright_runtime::provider::Provider;
use toolwright_runtime::provider::{anthropic, gemini, openai, openai_responses};
use toolwright_runtime::{RunPolicy, ToolCall, ToolResult};

/// Runs a response's calls through the registry and returns the calls, their results and the
/// provider's result messages.
fn round_trip(
    provider: Provider,
    response: &Value,
    policy: &RunPolicy,
    home: &mut Home,
) -> (Vec<ToolCall>, Vec<ToolResult>, Vec<Value>) {
    let calls = provider.calls(response).expect("the provider's shape");
    let results = runtime().block_on(registry().execute_batch(policy, home, &calls));
    let messages = provider.results(&calls, &results);
    check_shape(provider, &calls, &results, &messages);
    (calls, results, messages)
}

fn envelope(result: &ToolResult) -> Value {
    serde_json::to_value(result).expect("an envelope serializes")
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn parsed(text: &Value) -> Value {
    serde_json::from_str(text.as_str().unwrap_or_else(|| panic!("a string: {text}")))
        .expect("the content is the envelope as JSON text")
}

/// The messages are exactly the provider's result shape: one answer per call, in call order,
/// each paired with its call and holding its envelope.
fn check_shape(provider: Provider, calls: &[ToolCall], results: &[ToolResult], messages: &[Value]) {
    assert_eq!(calls.len(), results.len());
    match provider {
        Provider::OpenAi => {
            assert_eq!(messages.len(), calls.len(), "one message per call");
            for ((message, call), result) in messages.iter().zip(calls).zip(results) {
                assert_eq!(keys(message), ["content", "role", "tool_call_id"]);
                assert_eq!(message["role"], "tool");
                assert_eq!(message["tool_call_id"], call.id.as_str());
                assert_eq!(parsed(&message["content"]), envelope(result));
            }
        }
        Provider::OpenAiResponses => {
            assert_eq!(messages.len(), calls.len(), "one item per call");
            for ((item, call), result) in messages.iter().zip(calls).zip(results) {
                assert_eq!(keys(item), ["call_id", "output", "type"]);
                assert_eq!(item["type"], "function_call_output");
                assert_eq!(item["call_id"], call.id.as_str());
                assert_eq!(parsed(&item["output"]), envelope(result));
            }
        }
        Provider::Anthropic => {
            if calls.is_empty() {
                assert!(messages.is_empty());
                return;
            }
            let [message] = messages else {
                panic!("one user message: {messages:?}");
            };
            assert_eq!(keys(message), ["content", "role"]);
            assert_eq!(message["role"], "user");
            let blocks = message["content"].as_array().expect("content blocks");
            assert_eq!(blocks.len(), calls.len(), "one block per call");
            for ((block, call), result) in blocks.iter().zip(calls).zip(results) {
                assert_eq!(keys(block), ["content", "is_error", "tool_use_id", "type"]);
                assert_eq!(block["type"], "tool_result");
                assert_eq!(block["tool_use_id"], call.id.as_str());
                assert_eq!(block["is_error"], !result.is_success());
                assert_eq!(parsed(&block["content"]), envelope(result));
            }
        }
        Provider::Gemini => {
            if calls.is_empty() {
                assert!(messages.is_empty());
                return;
            }
            let [message] = messages else {
                panic!("one user message: {messages:?}");
            };
            assert_eq!(keys(message), ["parts", "role"]);
            assert_eq!(message["role"], "user");
            let parts = message["parts"].as_array().expect("parts");
            assert_eq!(parts.len(), calls.len(), "one part per call");
            for ((part, call), result) in parts.iter().zip(calls).zip(results) {
                assert_eq!(keys(part), ["functionResponse"]);
                let response = &part["functionResponse"];
                if call.id.is_empty() {
                    assert_eq!(keys(response), ["name", "response"]);
                } else {
                    assert_eq!(keys(response), ["id", "name", "response"]);
                    assert_eq!(response["id"], call.id.as_str());
                }
                assert_eq!(response["name"], call.name.as_str());
                assert!(response["response"].is_object());
                assert_eq!(response["response"], envelope(result));
            }
        }
    }
}

fn ids(calls: &[ToolCall]) -> Vec<&str> {
    calls.iter().map(|c| c.id.as_str()).collect()
}

fn codes(results: &[ToolResult]) -> Vec<Option<&str>> {
    results.iter().map(ToolResult::code).collect()
}

fn messages_of(results: &[ToolResult]) -> Vec<&str> {
    results
        .iter()
        .map(|r| r.error().map_or("", |e| e.message.as_str()))
        .collect()
}

#[test]
fn single_calls_of_every_provider_run_and_are_answered() {
    for (provider, name, id, tool, arguments) in [
        (
            Provider::OpenAi,
            "openai_chat_single",
            "call_abc123",
            "get_current_weather",
            json!({"location": "Boston, MA"}),
        ),
        (
            Provider::OpenAiResponses,
            "openai_responses_single",
            "call_12345xyz",
            "get_weather",
            json!({"location": "Paris, France"}),
        ),
        (
            Provider::Anthropic,
            "anthropic_single",
            "toolu_01A09q90qw90lq917835lq9",
            "get_weather",
            json!({"location": "San Francisco, CA", "unit": "celsius"}),
        ),
        (
            Provider::Gemini,
            "gemini_single",
            "8f2b1a3c",
            "set_light_values",
            json!({"color_temp": "warm", "brightness": 25}),
        ),
    ] {
        let mut home = Home::default();
        let (calls, results, _) =
            round_trip(provider, &fixture(name), &RunPolicy::full(), &mut home);
        assert_eq!(
            calls,
            [ToolCall::new(id, tool, arguments.clone())],
            "{name}"
        );
        assert!(results[0].is_success(), "{name}: {:?}", results[0]);
        assert_eq!(home.ran(), [(tool.to_owned(), arguments)], "{name}");
    }
}

#[test]
fn parallel_calls_are_answered_one_each_in_call_order() {
    let openai_ids = ["call_12345xyz", "call_67890abc", "call_99999def"];
    let openai_tools = ["get_weather", "get_weather", "send_email"];
    for (provider, name, ids_expected, tools) in [
        (
            Provider::OpenAi,
            "openai_chat_parallel",
            openai_ids.to_vec(),
            openai_tools.to_vec(),
        ),
        (
            Provider::OpenAiResponses,
            "openai_responses_parallel",
            openai_ids.to_vec(),
            openai_tools.to_vec(),
        ),
        (
            Provider::Anthropic,
            "anthropic_parallel",
            vec!["toolu_01", "toolu_02", "toolu_03", "toolu_04"],
            vec!["get_weather", "get_weather", "get_time", "get_time"],
        ),
        (
            Provider::Gemini,
            "gemini_parallel",
            vec!["", "", ""],
            vec!["power_disco_ball", "start_music", "dim_lights"],
        ),
    ] {
        let mut home = Home::default();
        let (calls, results, _) =
            round_trip(provider, &fixture(name), &RunPolicy::full(), &mut home);
        assert_eq!(ids(&calls), ids_expected, "{name}");
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, tools, "{name}");
        assert!(
            results.iter().all(ToolResult::is_success),
            "{name}: {results:?}"
        );
        assert_eq!(home.names(), tools, "{name}: every call ran, in order");
    }
}

#[test]
fn malformed_arguments_are_that_calls_input_error_and_the_others_run() {
    let cut_off = "The tool input is invalid: /: Expected object, found a JSON string that does not parse: EOF while parsing";
    for (provider, name, expected, ran) in [
        (
            Provider::OpenAi,
            "openai_chat_malformed",
            vec![
                "",
                cut_off,
                "The tool input is invalid: /: Expected object, found a JSON string that encodes an array",
            ],
            vec!["get_weather"],
        ),
        (
            Provider::OpenAiResponses,
            "openai_responses_malformed",
            vec![
                "",
                cut_off,
                "The tool input is invalid: /: Expected object, found a JSON string that encodes a string",
            ],
            vec!["get_weather"],
        ),
        (
            Provider::Anthropic,
            "anthropic_malformed",
            vec![
                "",
                "The tool input is invalid: /: Expected object, found a string",
                "",
                "The tool input is invalid: /: Expected object, found an array",
            ],
            vec!["get_weather", "get_time"],
        ),
        (
            Provider::Gemini,
            "gemini_malformed",
            vec![
                "",
                "The tool input is invalid: /: Expected object, found an array",
                "The tool input is invalid: /: Expected object, found a string",
            ],
            vec!["power_disco_ball"],
        ),
    ] {
        let mut home = Home::default();
        let (calls, results, _) =
            round_trip(provider, &fixture(name), &RunPolicy::full(), &mut home);
        assert_eq!(calls.len(), expected.len(), "{name}: every call is read");
        for ((message, want), result) in messages_of(&results).iter().zip(&expected).zip(&results) {
            if want.is_empty() {
                assert!(result.is_success(), "{name}: {result:?}");
            } else {
                assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"), "{name}");
                assert!(message.starts_with(want), "{name}: {message}");
                assert!(!result.state_changed());
            }
        }
        assert_eq!(home.names(), ran, "{name}: only the valid calls ran");
    }
}

/// A response of each provider that forges calls to write tools (the run offered none).
fn forged_writes() -> Vec<(Provider, Value)> {
    vec![
        (
            Provider::OpenAi,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"location\":\"Paris\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "send_email", "arguments": "{\"to\":\"bob@email.com\",\"body\":\"Hi bob\"}"}}
            ]}, "finish_reason": "tool_calls"}]}),
        ),
        (
            Provider::OpenAiResponses,
            json!({"object": "response", "output": [
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"location\":\"Paris\"}"},
                {"type": "function_call", "call_id": "call_2", "name": "send_email", "arguments": "{\"to\":\"bob@email.com\",\"body\":\"Hi bob\"}"}
            ]}),
        ),
        (
            Provider::Anthropic,
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "send_email", "input": {"to": "bob@email.com", "body": "Hi bob"}}
            ]}),
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}}},
                {"functionCall": {"name": "send_email", "args": {"to": "bob@email.com", "body": "Hi bob"}}}
            ]}}]}),
        ),
    ]
}

#[test]
fn read_only_runs_refuse_forged_writes_in_every_provider_shape() {
    for (provider, response) in forged_writes() {
        let mut home = Home::default();
        let (_, results, _) = round_trip(provider, &response, &RunPolicy::read_only(), &mut home);
        assert!(results[0].is_success(), "{provider}: the read runs");
        assert_eq!(results[1].code(), Some("TOOL_NOT_ALLOWED"), "{provider}");
        assert_eq!(
            results[1].error().map(|e| e.message.as_str()),
            Some("The tool `send_email` changes state and this run is read-only."),
        );
        assert!(!results[1].state_changed());
        assert_eq!(home.names(), ["get_weather"], "{provider}: no write ran");
    }
    // The published examples too: Gemini's party is all writes.
    let mut home = Home::default();
    let (_, results, _) = round_trip(
        Provider::Gemini,
        &fixture("gemini_parallel"),
        &RunPolicy::read_only(),
        &mut home,
    );
    assert_eq!(codes(&results), [Some("TOOL_NOT_ALLOWED"); 3]);
    assert!(home.ran().is_empty());
}

#[test]
fn a_response_without_tool_calls_yields_no_calls() {
    for (provider, response) in [
        (
            Provider::OpenAi,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello."}, "finish_reason": "stop"}]}),
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi", "tool_calls": null}}]}),
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}]}),
        ),
        (
            Provider::Anthropic,
            json!({"role": "assistant", "content": [{"type": "text", "text": "Hello."}], "stop_reason": "end_turn"}),
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello."}]}, "finishReason": "STOP"}]}),
        ),
        (
            Provider::Gemini,
            json!({"promptFeedback": {"blockReason": "SAFETY"}}),
        ),
    ] {
        let calls = provider.calls(&response).expect("the provider's shape");
        assert!(calls.is_empty(), "{provider}: {response}");
        assert!(provider.results(&calls, &[]).is_empty(), "{provider}");
    }
}

#[test]
fn a_response_of_another_shape_is_an_error_that_says_where() {
    let cases: Vec<(Provider, Value, &str)> = vec![
        (
            Provider::OpenAi,
            json!([1]),
            "/: expected an object, found an array",
        ),
        (
            Provider::OpenAi,
            json!({"output": []}),
            r#"/: missing "choices""#,
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"delta": {}}]}),
            r#"/choices/0: missing "message""#,
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"arguments": "{}"}}
            ]}}]}),
            r#"/choices/0/message/tool_calls/1/function: missing "name""#,
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"id": "a", "type": "function", "function": {"name": "x", "arguments": {}}}]}}]}),
            "/choices/0/message/tool_calls/0/function/arguments: expected a string, found an object",
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"id": "a", "type": "custom", "custom": {"name": "x", "input": ""}}]}}]}),
            r#"/choices/0/message/tool_calls/0/type: expected "function", found "custom""#,
        ),
        (
            Provider::OpenAi,
            json!({"choices": [
                {"message": {"tool_calls": [{"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}},
                {"message": {"tool_calls": [{"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}}
            ]}),
            "/choices: 2 choices hold tool calls; pass the response with the one the conversation keeps",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": {"type": "function_call"}}),
            "/output: expected an array, found an object",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call", "name": "x", "arguments": "{}"}]}),
            r#"/output/0: missing "call_id""#,
        ),
        (
            Provider::Anthropic,
            json!({"role": "assistant"}),
            r#"/: missing "content""#,
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "t", "name": "x"}]}),
            r#"/content/0: missing "input""#,
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": 7, "name": "x", "input": {}}]}),
            "/content/0/id: expected a string, found a number",
        ),
        (Provider::Gemini, json!({}), r#"/: missing "candidates""#),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            r#"/candidates/0/content/parts/0/functionCall: missing "name""#,
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": "x"}}]}),
            "/candidates/0/content/parts: expected an array, found a string",
        ),
    ];
    for (provider, response, expected) in cases {
        let error = provider
            .calls(&response)
            .expect_err("not the provider's shape");
        assert_eq!(error.to_string(), expected, "{provider}: {response}");
    }
}

#[test]
fn gemini_answers_carry_the_id_only_when_the_call_had_one() {
    let response = json!({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "get_time", "args": {"timezone": "UTC"}, "id": "t1"}},
        {"functionCall": {"name": "get_time"}}
    ]}}]});
    let mut home = Home::default();
    let (calls, results, messages) =
        round_trip(Provider::Gemini, &response, &RunPolicy::full(), &mut home);
    assert_eq!(ids(&calls), ["t1", ""]);
    assert!(results[0].is_success());
    assert_eq!(
        messages_of(&results)[1],
        "The tool input is invalid: /timezone: Expected required property",
        "absent args read as {{}}"
    );
    assert_eq!(messages[0]["parts"][0]["functionResponse"]["id"], "t1");
    assert!(
        messages[0]["parts"][1]["functionResponse"]
            .get("id")
            .is_none()
    );
}

#[test]
fn every_call_is_answered_even_without_a_result() {
    let calls = openai::calls(&fixture("openai_chat_parallel")).expect("calls");
    let results = [ToolResult::success(json!(1), false)];
    for messages in [
        openai::results(&calls, &results),
        openai_responses::results(&calls, &results),
    ] {
        assert_eq!(messages.len(), 3);
    }
    let blocks = &anthropic::results(&calls, &results)[0]["content"];
    assert_eq!(blocks.as_array().map(Vec::len), Some(3));
    assert_eq!(blocks[2]["is_error"], true);
    assert_eq!(
        parsed(&blocks[2]["content"])["error"]["code"],
        "TOOL_FAILED"
    );
    let parts = &gemini::results(&calls, &results)[0]["parts"];
    assert_eq!(parts.as_array().map(Vec::len), Some(3));
}

#[test]
fn empty_openai_arguments_read_as_no_arguments() {
    let response = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_time", "arguments": ""}}
    ]}}]});
    let calls = openai::calls(&response).expect("calls");
    assert_eq!(calls, [ToolCall::new("c", "get_time", json!({}))]);
}

#[test]
fn providers_are_named_for_the_command_line() {
    for provider in Provider::ALL {
        assert_eq!(provider.as_str().parse::<Provider>(), Ok(*provider));
    }
    let error = "claude".parse::<Provider>().expect_err("unknown");
    assert!(
        error.contains("openai, openai-responses, anthropic, gemini"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// What each provider is offered: the tools of its published request example.

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

fn offered<'a>(
    _: &'a Home,
    _: &'a Value,
) -> toolwright_runtime::handler::BoxFuture<'a, toolwright_runtime::handler::CallResult> {
    Box::pin(async {
        Ok(toolwright_runtime::handler::ToolOutput {
            data: Value::Null.into(),
            state_changed: false,
        })
    })
}

/// A registry declaring the tools of a request example: each one's name, description and
/// schema as the example writes them.
fn declaring(tools: &[(&str, &str, &Value)]) -> toolwright_runtime::Registry<Home> {
    let mut builder = toolwright_runtime::Registry::builder();
    for (name, description, schema) in tools {
        let meta: &'static toolwright_runtime::handler::ToolMeta = Box::leak(Box::new(
            toolwright_runtime::handler::ToolMeta::new(
                leak(name),
                toolwright_runtime::handler::Safety::ReadOnly,
                toolwright_runtime::handler::Mode::Parallel,
                toolwright_runtime::handler::StaticSchema::Json(leak(&schema.to_string())),
            )
            .title(leak(name))
            .description(leak(description))
            .source("tests/fixtures/providers"),
        ));
        builder = builder.tool(toolwright_runtime::handler::ToolDef {
            meta,
            handler: toolwright_runtime::handler::Handler::Shared(offered),
        });
    }
    builder.build().expect("the example's tools are valid")
}

/// `type` names in capitals, as Gemini's API reference spells them.
fn capital_types(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(name) if key == "type" => *name = name.to_ascii_uppercase(),
                    _ => capital_types(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(capital_types),
        _ => {}
    }
}

#[test]
fn each_provider_is_offered_the_tools_in_its_published_request_shape() {
    for (provider, name) in [
        (Provider::OpenAi, "openai_chat_request"),
        (Provider::OpenAiResponses, "openai_responses_request"),
        (Provider::Anthropic, "anthropic_request"),
        (Provider::Gemini, "gemini_request"),
    ] {
        let request = fixture(name);
        // What the request's `tools` field holds (for Gemini, the declarations of its entry).
        let mut expected = match provider {
            Provider::Gemini => request["tools"][0]["functionDeclarations"].clone(),
            _ => request["tools"].clone(),
        };
        let tools: Vec<(&str, &str, &Value)> = expected
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| {
                let function = tool.get("function").unwrap_or(tool);
                let schema = ["parameters", "input_schema"]
                    .iter()
                    .find_map(|key| function.get(*key))
                    .expect("a schema");
                (
                    function["name"].as_str().expect("a name"),
                    function["description"].as_str().expect("a description"),
                    schema,
                )
            })
            .collect();
        let registry = declaring(&tools);
        if provider == Provider::Gemini {
            capital_types(&mut expected);
        }
        let policy = RunPolicy::full().with_dialect(provider.dialect());
        assert_eq!(
            registry.definitions(&policy).expect("the example's tools"),
            expected,
            "{provider}"
        );
        let policy = RunPolicy::full().with_provider(provider);
        assert_eq!(
            registry.definitions(&policy).expect("the example's tools"),
            expected,
            "{provider}"
        );
    }
}

#[test]
fn anthropic_input_null_is_that_calls_input_error_and_the_others_run() {
    let response = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": null},
        {"type": "tool_use", "id": "toolu_3", "name": "get_time", "input": {"timezone": "UTC"}}
    ]});
    let mut home = Home::default();
    let (calls, results, _) = round_trip(
        Provider::Anthropic,
        &response,
        &RunPolicy::full(),
        &mut home,
    );
    assert_eq!(ids(&calls), ["toolu_1", "toolu_2", "toolu_3"]);
    assert_eq!(
        codes(&results),
        [None, Some("TOOL_INPUT_INVALID"), None],
        "{results:?}"
    );
    assert_eq!(
        messages_of(&results)[1],
        "The tool input is invalid: /: Expected object, found null"
    );
    assert!(!results[1].state_changed());
    assert_eq!(home.names(), ["get_weather", "get_time"]);
}
