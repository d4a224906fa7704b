//! The LLM planner end to end: `cassis ask` configured with `--planner
//! anthropic` or `--planner openai` against a local fake that speaks each
//! API's real wire format (an LLM API cannot be reached from here). The fake
//! replies with scripted tool calls, records what Cassis sent, and refuses a
//! conversation the real API would refuse (a tool call left without its
//! result, a result for no call), so these tests check both directions: the
//! requests (headers, tools, ontology, the verified questions retrieved,
//! chat history, tool results) and what Cassis does with each reply
//! (compile a plan, check and run SQL, refuse writes, decide forks, answer
//! value lookups, send a failure back once, retry overloads).

mod common;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use common::{cassis, f1_sqlite_project, stderr, stdout};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake answers to the next request.
enum Scripted {
    Reply {
        status: u16,
        headers: Vec<(&'static str, &'static str)>,
        body: Value,
    },
    /// Answers only after this long, so the client's timeout fires first.
    Stall(Duration),
}

/// A request Cassis sent.
#[derive(Clone, Debug)]
struct Recorded {
    path: String,
    headers: HeaderMap,
    body: Value,
}

#[derive(Default)]
struct FakeState {
    script: VecDeque<Scripted>,
    requests: Vec<Recorded>,
}

/// A model API on a loopback port, running on its own thread.
struct FakeModel {
    url: String,
    state: Arc<Mutex<FakeState>>,
}

impl FakeModel {
    fn start() -> Self {
        let state = Arc::new(Mutex::new(FakeState::default()));
        let shared = state.clone();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let app = Router::new()
                    .route("/v1/messages", post(answer))
                    .route("/v1/chat/completions", post(answer))
                    .with_state(shared);
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        FakeModel { url, state }
    }

    fn script(&self, replies: impl IntoIterator<Item = Scripted>) {
        let mut state = self.state.lock().unwrap();
        state.script = replies.into_iter().collect();
        state.requests.clear();
    }

    fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }
}

async fn answer(
    State(state): State<Arc<Mutex<FakeState>>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let anthropic = uri.path() == "/v1/messages";
    let refused = if anthropic {
        anthropic_protocol_error(&body)
    } else {
        openai_protocol_error(&body)
    };
    let next = {
        let mut state = state.lock().unwrap();
        state.requests.push(Recorded {
            path: uri.path().to_owned(),
            headers,
            body,
        });
        if refused.is_some() {
            None
        } else {
            state.script.pop_front()
        }
    };
    // As the real APIs answer a conversation they cannot continue.
    if let Some(message) = refused {
        let body = if anthropic {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        } else {
            json!({"error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": null}})
        };
        return (
            StatusCode::BAD_REQUEST,
            [("content-type", "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    match next {
        Some(Scripted::Reply {
            status,
            headers,
            body,
        }) => {
            let mut response = (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                body.to_string(),
            )
                .into_response();
            for (name, value) in headers {
                response.headers_mut().insert(name, value.parse().unwrap());
            }
            response
        }
        Some(Scripted::Stall(duration)) => {
            tokio::time::sleep(duration).await;
            (StatusCode::OK, "{}").into_response()
        }
        None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the test scripted no reply",
        )
            .into_response(),
    }
}

/// What the Messages API says of a conversation whose `tool_use` blocks are
/// not answered by `tool_result` blocks right after, or whose results
/// answer no call.
fn anthropic_protocol_error(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let mut open: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        let of_type = |kind: &str, field: &str| -> Vec<String> {
            blocks
                .iter()
                .filter(|b| b["type"] == kind)
                .map(|b| b[field].as_str().unwrap_or_default().to_owned())
                .collect()
        };
        let results = of_type("tool_result", "tool_use_id");
        if !open.is_empty()
            && (message["role"] != "user" || !open.iter().all(|id| results.contains(id)))
        {
            return Some(format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                open.join(", ")
            ));
        }
        if let Some(stray) = results.iter().find(|id| !open.contains(id)) {
            return Some(format!(
                "messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: {stray}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
            ));
        }
        open = if message["role"] == "assistant" {
            of_type("tool_use", "id")
        } else {
            Vec::new()
        };
    }
    (messages.last()?["role"] != "user")
        .then(|| "the final message must be a user message".to_owned())
}

/// What chat completions say of `tool_calls` not followed by a `tool`
/// message for each, or a `tool` message answering no call.
fn openai_protocol_error(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or_default();
            if !open.iter().any(|o| o == id) {
                return Some("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_owned());
            }
            open.retain(|o| o != id);
            continue;
        }
        if !open.is_empty() {
            return Some(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                open.join(", ")
            ));
        }
        open = message["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
    }
    (!open.is_empty()).then(|| "the tool calls have no response messages".to_owned())
}

/// A fresh id for a scripted tool call, as each real call has its own.
fn call_id(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    format!("{prefix}{:024}", NEXT.fetch_add(1, Ordering::Relaxed))
}

// --- The two wire formats, as the real APIs send them. ---

fn anthropic_tool_use(tool: &str, input: Value) -> Scripted {
    anthropic_tool_uses(&[(tool, input)])
}

/// One reply calling several tools at once, as Claude may.
fn anthropic_tool_uses(calls: &[(&str, Value)]) -> Scripted {
    let mut content = vec![json!({"type": "text", "text": "I'll plan this with the ontology."})];
    content.extend(calls.iter().map(|(tool, input)| {
        json!({"type": "tool_use", "id": call_id("toolu_01"), "name": tool, "input": input})
    }));
    Scripted::Reply {
        status: 200,
        headers: vec![("request-id", "req_011CTest")],
        body: json!({
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {"input_tokens": 2095, "output_tokens": 503}
        }),
    }
}

fn anthropic_overloaded() -> Scripted {
    Scripted::Reply {
        status: 529,
        headers: vec![],
        body: json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    }
}

fn anthropic_rate_limited() -> Scripted {
    Scripted::Reply {
        status: 429,
        headers: vec![("retry-after", "1")],
        body: json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}),
    }
}

fn openai_function_call(tool: &str, arguments: Value) -> Scripted {
    let id = call_id("call_");
    Scripted::Reply {
        status: 200,
        headers: vec![],
        body: json!({
            "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
            "object": "chat.completion",
            "created": 1741569952,
            "model": "gpt-test",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [{
                        "id": id,
                        "type": "function",
                        "function": {"name": tool, "arguments": arguments.to_string()}
                    }],
                    "refusal": null
                },
                "logprobs": null,
                "finish_reason": "tool_calls"
            }],
            "usage": {"prompt_tokens": 2095, "completion_tokens": 77, "total_tokens": 2172}
        }),
    }
}

// --- Plans in the F1 ontology's names. ---

fn wins_by_driver_in(year: i64) -> Value {
    json!({
        "measures": [{"kind": "metric", "metric": "wins"}],
        "dimensions": [{"object": "driver", "attribute": "full_name"}],
        "filters": [{"attribute": {"object": "race", "attribute": "year"}, "condition": {"op": "one_of", "value": [year]}}],
        "order": {"by": "measure", "index": 0, "descending": true},
        "assumptions": [{"text": "A win is a first place in a race", "options": ["a", "b"], "selected": "a"}]
    })
}

fn ask_with(
    data: &Path,
    model: &FakeModel,
    planner: &str,
    args: &[&str],
    configure: impl FnOnce(&mut std::process::Command),
) -> Value {
    let mut command = cassis(data);
    command
        .env("CASSIS_NO_DEMO", "1")
        .env("CASSIS_PLANNER", planner)
        .env("CASSIS_LLM_URL", &model.url)
        .env("CASSIS_LLM_API_KEY", "sk-ant-test-key")
        .args(["ask", "--project", "F1"])
        .args(args);
    configure(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("sk-ant-test-key"),
        "the model's key must not be logged"
    );
    serde_json::from_str(&stdout(&output)).expect("cassis ask prints JSON")
}

fn claude(data: &Path, model: &FakeModel, args: &[&str]) -> Value {
    ask_with(data, model, "anthropic", args, |_| {})
}

fn rows(response: &Value) -> &Value {
    &response["results"]["rows"]
}

#[test]
fn claude_plans_with_the_ontology_and_cassis_compiles_decides_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    model.script([anthropic_tool_use("submit_plan", wins_by_driver_in(2023))]);
    let wins = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(
        rows(&wins),
        &json!([
            ["Max Verstappen", 19],
            ["Sergio Pérez", 2],
            ["Carlos Sainz", 1]
        ])
    );
    let answer = wins["answer"].as_str().unwrap();
    assert!(
        answer.contains("Max Verstappen") && answer.contains("19"),
        "{answer}"
    );
    assert!(answer.contains("Planned by Claude"), "{answer}");

    // What Claude was sent: the Messages API, the key, the tools, the
    // ontology with its rules, and the question.
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.headers["x-api-key"], "sk-ant-test-key");
    assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    assert_eq!(request.body["model"], "claude-sonnet-4-5");
    assert!(request.body["max_tokens"].as_u64().unwrap() > 0);
    assert_eq!(request.body["tool_choice"], json!({"type": "any"}));
    let tools: Vec<&str> = request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "submit_plan",
            "submit_sql",
            "lookup_values",
            "cannot_answer"
        ]
    );
    let plan_schema = &request.body["tools"][0]["input_schema"];
    assert_eq!(plan_schema["type"], "object");
    assert!(
        plan_schema["properties"]["measures"].is_object(),
        "{plan_schema:#}"
    );
    let system = request.body["system"].as_str().unwrap();
    for part in [
        "race_result",
        "full_name",
        "A win is a race result with position 1",
        "in the sqlite dialect",
    ] {
        assert!(system.contains(part), "the prompt lacks {part}");
    }
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": "Who won the most races in 2023?"}])
    );

    // A follow-up carries the chat so far.
    let chat = wins["chat_id"].as_str().unwrap();
    model.script([anthropic_tool_use("submit_plan", wins_by_driver_in(2021))]);
    let follow_up = claude(&data, &model, &["--chat", chat, "and in 2021?"]);
    assert_eq!(follow_up["status"], "answered", "{follow_up:#}");
    assert_eq!(rows(&follow_up)[0], json!(["Max Verstappen", 10]));
    let messages = model.requests()[0].body["messages"].clone();
    assert_eq!(messages.as_array().unwrap().len(), 3, "{messages:#}");
    assert_eq!(messages[0]["content"], "Who won the most races in 2023?");
    assert_eq!(messages[1]["role"], "assistant");
    let earlier = messages[1]["content"].as_str().unwrap();
    assert!(
        earlier.starts_with("[answered]")
            && earlier.contains("\nPlan: ")
            && earlier.contains("\nSQL: "),
        "{earlier}"
    );
    assert_eq!(messages[2]["content"], "and in 2021?");

    // Cassis, not the model, decides forks: points left without a variant
    // take the ontology's default reading rather than the model's silence.
    model.script([anthropic_tool_use(
        "submit_plan",
        json!({
            "measures": [{"kind": "metric", "metric": "points", "variant": null}],
            "dimensions": [{"object": "driver", "attribute": "full_name"}],
            "filters": [
                {"attribute": {"object": "race", "attribute": "year"}, "condition": {"op": "one_of", "value": [2023]}},
                {"attribute": {"object": "driver", "attribute": "full_name"}, "condition": {"op": "one_of", "value": ["Max Verstappen"]}}
            ]
        }),
    )]);
    // The ontology's default reading settles the variant the model left
    // open: answered at once, with the reading stated.
    let settled = claude(
        &data,
        &model,
        &["How many points did Verstappen score in 2023?"],
    );
    assert_eq!(settled["status"], "answered", "{settled:#}");
    assert_eq!(rows(&settled), &json!([["Max Verstappen", 530]]));
    assert!(
        settled["answer"]
            .as_str()
            .unwrap()
            .contains("the default reading"),
        "{settled:#}"
    );
}

#[test]
fn sql_from_the_model_runs_only_when_it_is_one_select_over_the_ontology() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let warehouse = data.join("warehouses/f1.sqlite");
    let before = std::fs::read(&warehouse).unwrap();
    let model = FakeModel::start();

    model.script([anthropic_tool_use(
        "submit_sql",
        json!({
            "sql": "SELECT c.name AS circuit, COUNT(*) AS races FROM races r JOIN circuits c ON c.circuit_id = r.circuit_id GROUP BY c.name ORDER BY races DESC, circuit LIMIT 3",
            "explanation": "counts the races held on each circuit"
        }),
    )]);
    let busiest = claude(
        &data,
        &model,
        &["Which three circuits hosted the most races?"],
    );
    assert_eq!(busiest["status"], "answered", "{busiest:#}");
    assert_eq!(busiest["results"]["columns"], json!(["circuit", "races"]));
    assert_eq!(
        rows(&busiest)[0],
        json!(["Autodromo Nazionale di Monza", 75])
    );
    assert_eq!(busiest["objects_used"], json!(["races", "circuits"]));
    let answer = busiest["answer"].as_str().unwrap();
    assert!(
        answer.contains("Autodromo Nazionale di Monza (75)"),
        "{answer}"
    );
    assert!(answer.contains("Claude wrote this SQL"), "{answer}");

    for (sql, reason) in [
        ("DELETE FROM results", "read-only SELECT"),
        ("SELECT 1; DROP TABLE results", "exactly one statement"),
        (
            "SELECT name FROM sqlite_master",
            "not the table of any object",
        ),
        ("SELECT year, temperature FROM races", "`temperature`"),
    ] {
        // Sent back once with the reason, and written the same way again.
        model.script([
            anthropic_tool_use("submit_sql", json!({"sql": sql, "explanation": "whatever"})),
            anthropic_tool_use("submit_sql", json!({"sql": sql, "explanation": "whatever"})),
        ]);
        let refused = claude(&data, &model, &["Do something"]);
        assert_eq!(refused["status"], "not_answerable", "{sql}: {refused:#}");
        assert_eq!(model.requests().len(), 2, "one repair round, no more");
        assert_eq!(refused["sql"], Value::Null);
        let error = refused["error"].as_str().unwrap();
        assert!(
            error.contains("Claude answered with SQL that Cassis will not run"),
            "{error}"
        );
        assert!(error.contains(reason), "{sql}: {error}");
    }
    assert_eq!(
        std::fs::read(&warehouse).unwrap(),
        before,
        "the warehouse is unchanged"
    );

    // A query that outlasts the question timeout is cancelled with an error.
    model.script([anthropic_tool_use(
        "submit_sql",
        json!({
            "sql": "SELECT COUNT(*) AS n FROM results a JOIN results b ON a.driver_id = b.driver_id JOIN results c ON c.driver_id = b.driver_id JOIN results d ON d.driver_id = c.driver_id",
            "explanation": "counts combinations of results"
        }),
    )]);
    let started = std::time::Instant::now();
    let slow = ask_with(
        &data,
        &model,
        "anthropic",
        &["Count everything"],
        |command| {
            command.env("CASSIS_QUESTION_TIMEOUT", "1");
        },
    );
    assert_eq!(slow["status"], "error", "{slow:#}");
    assert!(
        slow["error"]
            .as_str()
            .unwrap()
            .starts_with("The question took longer than the limit of 1 second and was cancelled"),
        "{slow:#}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );

    // A concept the ontology lacks, as the model reports it.
    model.script([anthropic_tool_use(
        "cannot_answer",
        json!({"missing": "temperature"}),
    )]);
    let hot = claude(&data, &model, &["What was the hottest race?"]);
    assert_eq!(hot["status"], "not_answerable");
    assert!(
        hot["error"]
            .as_str()
            .unwrap()
            .contains("no concept for \"temperature\""),
        "{hot:#}"
    );
}

#[test]
fn overloads_and_timeouts_are_retried_then_reported_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    // Overloaded, then rate limited with retry-after, then an answer.
    model.script([
        anthropic_overloaded(),
        anthropic_rate_limited(),
        anthropic_tool_use("submit_plan", wins_by_driver_in(2023)),
    ]);
    let wins = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(model.requests().len(), 3);

    // Overloaded every time: the plain message, not the provider's error.
    model.script([
        anthropic_overloaded(),
        anthropic_overloaded(),
        anthropic_overloaded(),
    ]);
    let busy = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(busy["status"], "error");
    assert_eq!(
        busy["answer"],
        "Claude is temporarily overloaded. Please try again in a moment."
    );
    assert_eq!(busy["error"], busy["answer"]);
    assert_eq!(model.requests().len(), 3, "three attempts, then give up");

    // A model that does not answer within the request timeout.
    model.script((0..3).map(|_| Scripted::Stall(Duration::from_secs(4))));
    let slow = ask_with(
        &data,
        &model,
        "anthropic",
        &["Who won the most races in 2023?"],
        |command| {
            command.env("CASSIS_LLM_TIMEOUT", "1");
        },
    );
    assert_eq!(
        slow["answer"],
        "Claude is temporarily overloaded. Please try again in a moment."
    );

    // A wrong key is a configuration problem, said without the provider's words.
    model.script([Scripted::Reply {
        status: 401,
        headers: vec![],
        body: json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    }]);
    let denied = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(denied["status"], "error");
    let message = denied["error"].as_str().unwrap();
    assert!(
        message.contains("how this server is configured"),
        "{message}"
    );
    assert!(!message.contains("x-api-key"), "{message}");
    assert_eq!(model.requests().len(), 1, "a rejected key is not retried");
}

#[test]
fn an_openai_compatible_endpoint_plans_through_function_calling() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();
    let openai = |args: &[&str]| {
        ask_with(&data, &model, "openai", args, |command| {
            command
                .env("CASSIS_LLM_URL", format!("{}/v1", model.url))
                .env("CASSIS_LLM_MODEL", "gpt-test")
                .env("CASSIS_LLM_NAME", "GPT");
        })
    };

    model.script([openai_function_call("submit_plan", wins_by_driver_in(2023))]);
    let wins = openai(&["Who won the most races in 2023?"]);
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(rows(&wins)[0], json!(["Max Verstappen", 19]));
    assert!(wins["answer"].as_str().unwrap().contains("Planned by GPT"));

    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.headers["authorization"], "Bearer sk-ant-test-key");
    assert_eq!(request.body["model"], "gpt-test");
    assert_eq!(request.body["tool_choice"], "required");
    assert_eq!(request.body["messages"][0]["role"], "system");
    assert_eq!(
        request.body["messages"][1]["content"],
        "Who won the most races in 2023?"
    );
    assert_eq!(request.body["tools"][0]["type"], "function");
    assert_eq!(request.body["tools"][0]["function"]["name"], "submit_plan");

    model.script((0..3).map(|_| Scripted::Reply {
        status: 429,
        headers: vec![],
        body: json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
    }));
    let busy = openai(&["Who won the most races in 2023?"]);
    assert_eq!(
        busy["answer"],
        "GPT is temporarily overloaded. Please try again in a moment."
    );
}

#[test]
fn a_model_planner_needs_its_key_and_model() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let run = |planner: &str, key: Option<&str>| {
        let mut command = cassis(&data);
        command
            .env("CASSIS_NO_DEMO", "1")
            .env("CASSIS_PLANNER", planner)
            .env_remove("CASSIS_LLM_API_KEY")
            .env_remove("CASSIS_LLM_MODEL")
            .args(["ask", "--project", "F1", "anything"]);
        if let Some(key) = key {
            command.env("CASSIS_LLM_API_KEY", key);
        }
        command.output().unwrap()
    };
    let missing_key = run("anthropic", None);
    assert!(!missing_key.status.success());
    assert!(
        stderr(&missing_key)
            .contains("--planner anthropic needs the model's API key in CASSIS_LLM_API_KEY"),
        "{}",
        stderr(&missing_key)
    );
    let shown = cassis(&data)
        .env("CASSIS_PLANNER", "anthropic")
        .env("CASSIS_LLM_API_KEY", "sk-ant-secret-value")
        .arg("check-config")
        .output()
        .unwrap();
    assert!(shown.status.success(), "{}", stderr(&shown));
    let shown = stdout(&shown);
    assert!(shown.contains("planner = \"anthropic\""), "{shown}");
    assert!(shown.contains("model = \"claude-sonnet-4-5\""), "{shown}");
    assert!(!shown.contains("sk-ant-secret-value"), "{shown}");
    let missing_model = run("openai", Some("sk-test"));
    assert!(!missing_model.status.success());
    assert!(stderr(&missing_model).contains("--planner openai needs --llm-model"));
}

/// The messages of a request, as sent.
fn messages_of(request: &Recorded) -> Vec<Value> {
    request.body["messages"].as_array().unwrap().clone()
}

/// The id of each `tool_use` block of an assistant message.
fn tool_use_ids(message: &Value) -> Vec<String> {
    message["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect()
}

fn wins_of(driver: &str, year: i64) -> Value {
    json!({
        "measures": [{"kind": "metric", "metric": "wins"}],
        "dimensions": [{"object": "driver", "attribute": "full_name"}],
        "filters": [
            {"attribute": {"object": "race", "attribute": "year"}, "condition": {"op": "one_of", "value": [year]}},
            {"attribute": {"object": "driver", "attribute": "full_name"}, "condition": {"op": "one_of", "value": [driver]}}
        ]
    })
}

#[test]
fn claude_looks_up_how_the_data_spells_a_name_before_planning() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    // The question misspells the name; the model looks it up (and, in the
    // same reply, an attribute the ontology does not have), then plans
    // with the spelling the data has.
    model.script([
        anthropic_tool_uses(&[
            (
                "lookup_values",
                json!({"attribute": "driver.full_name", "text": "Verstapen"}),
            ),
            (
                "lookup_values",
                json!({"attribute": "driver.shoe_size", "text": "44"}),
            ),
        ]),
        anthropic_tool_use("submit_plan", wins_of("Max Verstappen", 2023)),
    ]);
    let wins = claude(
        &data,
        &model,
        &["How many races did Verstapen win in 2023?"],
    );
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(rows(&wins), &json!([["Max Verstappen", 19]]));

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // The tool is offered, with the attributes it knows values of.
    let lookup = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "lookup_values")
        .expect("lookup_values is offered")
        .clone();
    assert_eq!(
        lookup["input_schema"]["required"],
        json!(["attribute", "text"])
    );
    let system = requests[0].body["system"].as_str().unwrap();
    let known = system
        .lines()
        .find(|l| l.starts_with("Attributes whose values lookup_values knows:"))
        .expect("the prompt lists the attributes with values");
    assert!(known.contains("driver.full_name"), "{known}");
    assert!(known.contains("constructor.constructor_name"), "{known}");

    // The second request continues the conversation: the model's reply as
    // it came, then one user message answering both calls by id.
    let messages = messages_of(&requests[1]);
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[1]["role"], "assistant");
    let ids = tool_use_ids(&messages[1]);
    assert_eq!(ids.len(), 2);
    assert_eq!(messages[2]["role"], "user");
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["type"], "tool_result");
    assert_eq!(results[0]["tool_use_id"], ids[0].as_str());
    assert_eq!(results[0]["is_error"], false);
    let found: Value = serde_json::from_str(results[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(found["attribute"], "driver.full_name");
    assert_eq!(
        found["values"],
        json!(["Jos Verstappen", "Max Verstappen"]),
        "both Verstappens, closest first"
    );
    assert_eq!(results[1]["tool_use_id"], ids[1].as_str());
    assert_eq!(results[1]["is_error"], true);
    assert!(
        results[1]["content"]
            .as_str()
            .unwrap()
            .contains("the ontology has no attribute `driver.shoe_size`"),
        "{:#}",
        results[1]
    );
}

#[test]
fn value_lookups_are_bounded_in_length_and_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    // A model that keeps looking up is stopped after three rounds of
    // lookups, with the plain message; it was told the last one was the last.
    let lookups = |text: &str| {
        anthropic_tool_use(
            "lookup_values",
            json!({"attribute": "driver.full_name", "text": text}),
        )
    };
    let long = "Verstappen ".repeat(30);
    model.script([
        lookups(&long),
        lookups("Hamilton"),
        lookups("Leclerc"),
        lookups("Norris"),
    ]);
    let endless = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(endless["status"], "error", "{endless:#}");
    assert_eq!(
        endless["error"],
        "Claude did not return a usable plan for this question; try rephrasing it."
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 4, "three rounds of lookups, then no more");
    let result =
        |request: usize| messages_of(&requests[request]).last().unwrap()["content"][0].clone();
    // Over-long text is refused, not searched.
    assert_eq!(result(1)["is_error"], true);
    assert!(
        result(1)["content"]
            .as_str()
            .unwrap()
            .contains("`text` is longer than 200 characters"),
        "{:#}",
        result(1)
    );
    let hamilton: Value = serde_json::from_str(
        result(2)["content"]
            .as_str()
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(hamilton["values"][0], "Lewis Hamilton");
    assert!(
        hamilton["values"].as_array().unwrap().len() <= 10,
        "{hamilton:#}"
    );
    assert!(
        result(3)["content"]
            .as_str()
            .unwrap()
            .contains("That was the last lookup for this question"),
        "{:#}",
        result(3)
    );
}

#[test]
fn an_openai_compatible_model_looks_up_values_through_tool_messages() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();
    model.script([
        openai_function_call(
            "lookup_values",
            json!({"attribute": "driver.full_name", "text": "Sergio Perez"}),
        ),
        openai_function_call("submit_plan", wins_of("Sergio Pérez", 2023)),
    ]);
    let wins = ask_with(
        &data,
        &model,
        "openai",
        &["How many races did Sergio Perez win in 2023?"],
        |command| {
            command
                .env("CASSIS_LLM_URL", format!("{}/v1", model.url))
                .env("CASSIS_LLM_MODEL", "gpt-test");
        },
    );
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(rows(&wins), &json!([["Sergio Pérez", 2]]));

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = messages_of(&requests[1]);
    // system, user, the assistant's tool call, the tool's answer.
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(messages[2]["role"], "assistant");
    let call = &messages[2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "lookup_values");
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], call["id"]);
    let found: Value = serde_json::from_str(messages[3]["content"].as_str().unwrap()).unwrap();
    assert_eq!(found["values"][0], "Sergio Pérez", "accents folded");
}

#[test]
fn the_verified_questions_most_like_the_question_are_in_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    model.script([anthropic_tool_use(
        "submit_plan",
        json!({"measures": [{"kind": "count_of", "object": "race"}],
               "filters": [{"attribute": {"object": "race", "attribute": "year"}, "condition": {"op": "one_of", "value": [2021]}}]}),
    )]);
    let races = claude(&data, &model, &["How many races were held in 2021?"]);
    assert_eq!(races["status"], "answered", "{races:#}");
    assert_eq!(rows(&races), &json!([[22]]));
    let system = model.requests()[0].body["system"]
        .as_str()
        .unwrap()
        .to_owned();
    let examples = system
        .split_once("Verified questions like this one")
        .expect("the prompt has a section of verified questions")
        .1;
    let held = examples
        .find("Question: How many races were held in 2023?\nSQL:\nSELECT COUNT(*) AS races FROM public.races WHERE year = 2023")
        .expect("the closest verified question, with its SQL");
    let won = examples
        .find("Question: Who won the most races in 2023?")
        .expect("the next closest");
    assert!(held < won, "the closest first");
    // The ones sharing no word with the question are left out, in the
    // ontology's YAML too.
    for unrelated in [
        "Compare total points scored by all drivers",
        "Points by constructor in 2023",
    ] {
        assert!(!system.contains(unrelated), "{unrelated} is in the prompt");
    }

    // Another question, other examples.
    model.script([anthropic_tool_use(
        "submit_plan",
        json!({"measures": [{"kind": "metric", "metric": "points", "variant": "race_only"}],
               "dimensions": [{"object": "constructor", "attribute": "constructor_name"}],
               "filters": [{"attribute": {"object": "race", "attribute": "year"}, "condition": {"op": "one_of", "value": [2022]}}]}),
    )]);
    claude(&data, &model, &["Points per constructor in 2022"]);
    let system = model.requests()[0].body["system"]
        .as_str()
        .unwrap()
        .to_owned();
    let examples = system
        .split_once("Verified questions like this one")
        .unwrap()
        .1;
    assert!(
        examples.contains("Question: Points by constructor in 2023, including sprints"),
        "{examples}"
    );
    assert!(
        !examples.contains("How many races were held in 2023?"),
        "{examples}"
    );
}

/// A plan over an attribute the ontology does not have.
fn wins_by_shoe_size() -> Value {
    json!({
        "measures": [{"kind": "metric", "metric": "wins"}],
        "dimensions": [{"object": "driver", "attribute": "shoe_size"}]
    })
}

#[test]
fn a_plan_that_does_not_compile_goes_back_to_the_model_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    model.script([
        anthropic_tool_use("submit_plan", wins_by_shoe_size()),
        anthropic_tool_use("submit_plan", wins_by_driver_in(2023)),
    ]);
    let wins = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(rows(&wins)[0], json!(["Max Verstappen", 19]));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = messages_of(&requests[1]);
    assert_eq!(messages.len(), 3, "{messages:#?}");
    let ids = tool_use_ids(&messages[1]);
    let result = &messages[2]["content"][0];
    assert_eq!(result["tool_use_id"], ids[0].as_str());
    assert_eq!(result["is_error"], true);
    let reason = result["content"].as_str().unwrap();
    assert!(
        reason.contains("the plan does not fit this ontology version")
            && reason.contains("shoe_size"),
        "{reason}"
    );

    // Wrong twice: refused as before the repair round existed.
    model.script([
        anthropic_tool_use("submit_plan", wins_by_shoe_size()),
        anthropic_tool_use("submit_plan", wins_by_shoe_size()),
    ]);
    let refused = claude(&data, &model, &["Who won the most races in 2023?"]);
    assert_eq!(refused["status"], "not_answerable", "{refused:#}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("The plan does not fit this ontology version:"),
        "{refused:#}"
    );
    assert_eq!(model.requests().len(), 2, "one repair round, no more");
}

/// A plan with three misspelt names: a metric, an attribute, an object.
fn misspelt_plan() -> Value {
    json!({
        "measures": [{"kind": "metric", "metric": "wnis"}],
        "dimensions": [{"object": "driver", "attribute": "full_nam"}],
        "filters": [{"attribute": {"object": "racer", "attribute": "year"}, "condition": {"op": "one_of", "value": [2023]}}]
    })
}

/// Through MCP's `ask_question`, a plan that does not compile is answered
/// with every problem it has, each with the name the ontology has close to
/// the missing one: the model is told them all in its repair round, and
/// the caller too when the model fails again.
#[tokio::test]
async fn ask_question_lists_every_problem_of_a_plan_with_its_suggestion() {
    use common::app::Reach;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let project = f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();
    let server = common::Server::start(&data, |command| {
        command
            .env("CASSIS_NO_DEMO", "1")
            .env("CASSIS_PLANNER", "anthropic")
            .env("CASSIS_LLM_URL", &model.url)
            .env("CASSIS_LLM_API_KEY", "sk-ant-test-key");
    });
    let key = common::api_key(cassis(&data), common::ADMIN_EMAIL, "problems", &[]);

    model.script([
        anthropic_tool_use("submit_plan", misspelt_plan()),
        anthropic_tool_use("submit_plan", misspelt_plan()),
    ]);
    let answer = server
        .call_tool(
            &key,
            "ask_question",
            json!({"project_id": project, "question": "Who won the most races in 2023?"}),
        )
        .await;
    assert_eq!(answer["status"], "not_answerable", "{answer:#}");
    let listed = "(1) the ontology has no metric `wnis`; did you mean `wins`? \
                  (2) the object `driver` has no attribute `full_nam`; did you mean `full_name`? \
                  (3) the ontology has no object `racer`; did you mean `race`?";
    assert_eq!(
        answer["error"],
        format!("The plan does not fit this ontology version: {listed}"),
        "{answer:#}"
    );
    assert_eq!(answer["answer"], answer["error"]);

    // The model was told the same problems once, as its tool call's error.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let reason = messages_of(&requests[1])[2]["content"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains(listed), "{reason}");
}

/// SQL that passes Cassis's checks but that SQLite refuses to run.
const FAILING_SQL: &str =
    "SELECT year, COUNT(*) AS races FROM races WHERE COUNT(*) > 20 GROUP BY year ORDER BY year";

#[test]
fn sql_the_data_source_cannot_run_goes_back_to_the_model_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();

    model.script([
        anthropic_tool_use(
            "submit_sql",
            json!({"sql": FAILING_SQL, "explanation": "seasons of more than 23 races"}),
        ),
        anthropic_tool_use(
            "submit_sql",
            json!({"sql": "SELECT year, COUNT(*) AS races FROM races GROUP BY year HAVING COUNT(*) > 23 ORDER BY year",
                   "explanation": "seasons of more than 23 races"}),
        ),
    ]);
    let busiest = claude(&data, &model, &["Which seasons had more than 23 races?"]);
    assert_eq!(busiest["status"], "answered", "{busiest:#}");
    assert_eq!(rows(&busiest), &json!([[2024, 24], [2025, 24]]));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = messages_of(&requests[1]);
    let result = &messages.last().unwrap()["content"][0];
    assert_eq!(result["is_error"], true);
    let reason = result["content"].as_str().unwrap();
    assert!(
        reason.contains("the data source could not run the query")
            && reason.contains("misuse of aggregate"),
        "{reason}"
    );

    // Failing twice: the data source's error, as before.
    model.script([
        anthropic_tool_use(
            "submit_sql",
            json!({"sql": FAILING_SQL, "explanation": "seasons of more than 23 races"}),
        ),
        anthropic_tool_use(
            "submit_sql",
            json!({"sql": FAILING_SQL, "explanation": "seasons of more than 23 races"}),
        ),
    ]);
    let failed = claude(&data, &model, &["Which seasons had more than 23 races?"]);
    assert_eq!(failed["status"], "error", "{failed:#}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .starts_with("The data source could not run the query"),
        "{failed:#}"
    );
    assert_eq!(model.requests().len(), 2, "one repair round, no more");
}

#[test]
fn an_openai_compatible_model_repairs_through_a_tool_message() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let model = FakeModel::start();
    model.script([
        openai_function_call("submit_plan", wins_by_shoe_size()),
        openai_function_call("submit_plan", wins_by_driver_in(2023)),
    ]);
    let wins = ask_with(
        &data,
        &model,
        "openai",
        &["Who won the most races in 2023?"],
        |command| {
            command
                .env("CASSIS_LLM_URL", format!("{}/v1", model.url))
                .env("CASSIS_LLM_MODEL", "gpt-test");
        },
    );
    assert_eq!(wins["status"], "answered", "{wins:#}");
    let messages = messages_of(&model.requests()[1]);
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(
        messages[3]["tool_call_id"],
        messages[2]["tool_calls"][0]["id"]
    );
    let reason = messages[3]["content"].as_str().unwrap();
    assert!(
        reason.starts_with("Error: Cassis could not use this: the plan does not fit"),
        "{reason}"
    );
}

#[test]
fn a_planned_query_the_data_source_cannot_run_goes_back_to_the_model_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    // The source drifted from the ontology: the column constructor.nationality
    // reads is gone, so a plan that compiles fails where it runs.
    let warehouse = data.join("warehouses/f1.sqlite");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            use sqlx::Connection;
            let url = format!("sqlite://{}", warehouse.display());
            let mut source = sqlx::SqliteConnection::connect(&url).await.unwrap();
            sqlx::query("ALTER TABLE constructors RENAME COLUMN nationality TO nation")
                .execute(&mut source)
                .await
                .unwrap();
            source.close().await.unwrap();
        });
    let model = FakeModel::start();
    let by_nationality = json!({
        "measures": [{"kind": "count_of", "object": "constructor"}],
        "dimensions": [{"object": "constructor", "attribute": "nationality"}]
    });
    let all = json!({"measures": [{"kind": "count_of", "object": "constructor"}]});

    model.script([
        anthropic_tool_use("submit_plan", by_nationality.clone()),
        anthropic_tool_use("submit_plan", all),
    ]);
    let teams = claude(
        &data,
        &model,
        &["How many constructors are there by nationality?"],
    );
    assert_eq!(teams["status"], "answered", "{teams:#}");
    assert_eq!(rows(&teams), &json!([[212]]));
    assert!(
        teams["sql"].as_str().unwrap().contains("COUNT"),
        "the corrected plan's SQL: {teams:#}"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = messages_of(&requests[1]);
    let ids = tool_use_ids(&messages[1]);
    let result = &messages[2]["content"][0];
    assert_eq!(result["tool_use_id"], ids[0].as_str());
    assert_eq!(result["is_error"], true);
    let reason = result["content"].as_str().unwrap();
    assert!(
        reason.contains("the data source could not run the query")
            && reason.contains("nationality"),
        "{reason}"
    );

    // The same plan again: the data source's error, as before.
    model.script([
        anthropic_tool_use("submit_plan", by_nationality.clone()),
        anthropic_tool_use("submit_plan", by_nationality),
    ]);
    let failed = claude(
        &data,
        &model,
        &["How many constructors are there by nationality?"],
    );
    assert_eq!(failed["status"], "error", "{failed:#}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .starts_with("The data source could not run the query"),
        "{failed:#}"
    );
    assert_eq!(model.requests().len(), 2, "one repair round, no more");
}
