//! The LLM planner end to end: `cassis ask` configured with `--planner
//! anthropic` or `--planner openai` against a local fake that speaks each
//! API's real wire format (an LLM API cannot be reached from here). The fake
//! replies with scripted tool calls and records what Cassis sent, so these
//! tests check both directions: the requests (headers, tools, ontology,
//! chat history) and what Cassis does with each reply (compile a plan, check
//! and run SQL, refuse writes, decide forks, retry overloads).

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
    let next = {
        let mut state = state.lock().unwrap();
        state.requests.push(Recorded {
            path: uri.path().to_owned(),
            headers,
            body: serde_json::from_str(&body).unwrap_or(Value::Null),
        });
        state.script.pop_front()
    };
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

// --- The two wire formats, as the real APIs send them. ---

fn anthropic_tool_use(tool: &str, input: Value) -> Scripted {
    Scripted::Reply {
        status: 200,
        headers: vec![("request-id", "req_011CTest")],
        body: json!({
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "I'll plan this with the ontology."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": tool, "input": input}
            ],
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
                        "id": "call_DdmO9pD3xa9XTPNJ32zg2hcA",
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
    assert_eq!(tools, ["submit_plan", "submit_sql", "cannot_answer"]);
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
        model.script([anthropic_tool_use(
            "submit_sql",
            json!({"sql": sql, "explanation": "whatever"}),
        )]);
        let refused = claude(&data, &model, &["Do something"]);
        assert_eq!(refused["status"], "not_answerable", "{sql}: {refused:#}");
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
