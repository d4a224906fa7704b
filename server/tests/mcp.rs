//! The MCP endpoint against real clients: raw requests for the credential
//! checks (whose log is read) over real HTTP, for revocation and the direct
//! answer on the router in-process; the official Python SDK in both
//! protocol eras, the inspector and the conformance suite over real HTTP.

mod common;

use common::app::{Reach, Response, TestApp};
use common::mcp::python;
use common::{ADMIN_EMAIL, Server, cassis, f1_sqlite_project, stderr, stdout};
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HOST, ORIGIN, WWW_AUTHENTICATE};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

fn create_key(data_dir: &Path, name: &str, extra: &[&str]) -> String {
    common::api_key(cassis(data_dir), ADMIN_EMAIL, name, extra)
}

async fn post(server: &impl Reach, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut request = server
        .post(format!("{}{path}", server.url()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(TOOLS_LIST);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn run_sdk(python: &str, server: &Server, key: &str, mode: &str, script: Value) -> Value {
    common::mcp::run_client(
        python,
        server,
        "sdk_client.py",
        &[key, mode, &script.to_string()],
    )
}

#[tokio::test]
async fn credentials_are_checked_before_any_mcp_processing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data, "matrix", &[]);
    let expired = create_key(&data, "short", &["--expires", "1m"]);
    let revoked = create_key(&data, "revoked", &[]);

    // Expire the short key without waiting a minute: move its end into the past.
    let db = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&db).await.unwrap();
    sqlx::query("UPDATE api_keys SET expires_at = 1 WHERE name = 'short'")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let list = stdout(&cassis(&data).args(["apikey", "list"]).output().unwrap());
    let revoked_id = list
        .lines()
        .find(|line| line.split('\t').nth(2) == Some("revoked"))
        .and_then(|line| line.split_whitespace().next())
        .expect("the list shows the key's id first")
        .to_owned();
    let output = cassis(&data)
        .args(["apikey", "revoke", &revoked_id])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let metadata = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp/\"",
        server.url
    );
    let bearer = |k: &str| format!("Bearer {k}");
    let unknown = format!("sk-k6-{}", "A".repeat(43));
    let cases: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("no header", vec![]),
        (
            "wrong scheme",
            vec![("authorization", format!("Basic {key}"))],
        ),
        (
            "malformed key",
            vec![("authorization", bearer("sk-k6-short"))],
        ),
        ("unknown key", vec![("authorization", bearer(&unknown))]),
        ("expired key", vec![("authorization", bearer(&expired))]),
        ("revoked key", vec![("authorization", bearer(&revoked))]),
    ];
    for path in ["/mcp/", "/mcp"] {
        for (case, headers) in &cases {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let response = post(&server, path, &headers).await;
            assert_eq!(
                response.status(),
                StatusCode::UNAUTHORIZED,
                "{case} on {path}"
            );
            assert_eq!(
                response.headers()[WWW_AUTHENTICATE].to_str().unwrap(),
                metadata,
                "{case}"
            );
            let body = response.text().await.unwrap();
            assert!(
                !body.contains("jsonrpc"),
                "{case}: no MCP answer leaks: {body}"
            );
        }
        let response = post(&server, path, &[(AUTHORIZATION.as_str(), &bearer(&key))]).await;
        assert_eq!(response.status(), StatusCode::OK, "a valid key on {path}");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        let names: Vec<&str> = body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"ping") && names.contains(&"list_projects"),
            "{body}"
        );
    }

    let foreign_origin = post(
        &server,
        "/mcp/",
        &[
            (AUTHORIZATION.as_str(), &bearer(&key)),
            (ORIGIN.as_str(), "https://evil.example"),
        ],
    )
    .await;
    assert_eq!(foreign_origin.status(), StatusCode::FORBIDDEN);
    let foreign_host = post(
        &server,
        "/mcp/",
        &[
            (AUTHORIZATION.as_str(), &bearer(&key)),
            (HOST.as_str(), "rebound.example"),
        ],
    )
    .await;
    assert_eq!(foreign_host.status(), StatusCode::FORBIDDEN);

    let log = server.log_text();
    for secret in [&key, &expired, &revoked] {
        assert!(!log.contains(secret.as_str()), "a key appeared in the log");
    }
}

#[tokio::test]
async fn the_python_sdk_calls_the_tools_in_both_protocol_eras() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data, "sdk", &[]);

    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let report = run_sdk(
            &python,
            &server,
            &key,
            mode,
            json!([{"tool": "ping"}, {"tool": "list_projects"}]),
        );
        assert_eq!(report["protocol_version"], version, "{report}");
        assert_eq!(report["server"], "cassis");
        for tool in ["ping", "list_projects"] {
            assert_eq!(report["tools"][tool]["has_output_schema"], true, "{tool}");
            assert_eq!(
                report["tools"][tool]["input_properties"],
                json!([]),
                "{tool}"
            );
        }
        let ping = &report["calls"][0];
        assert_eq!(
            ping["structured"],
            json!({"status": "ok", "server": "cassis"})
        );
        assert_eq!(ping["text_matches_structured"], true);
        let projects = report["calls"][1]["structured"]["projects"]
            .as_array()
            .unwrap();
        assert_eq!(projects.len(), 1, "{report}");
        assert_eq!(projects[0]["name"], "Wholesale");
        assert_eq!(projects[0]["data_source_connected"], true);
        assert_eq!(projects[0]["dialect"], "sqlite");
        assert!(uuid::Uuid::parse_str(projects[0]["id"].as_str().unwrap()).is_ok());
    }

    // Every call is in the audit trail, with the key that made it.
    let db = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&db).await.unwrap();
    // Written in batches off the request path, within moments.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let rows: Vec<(String, String, Option<String>)> = loop {
        let rows: Vec<(String, String, Option<String>)> =
            sqlx::query_as("SELECT tool, status, api_key_id FROM tool_calls ORDER BY created_at")
                .fetch_all(&pool)
                .await
                .unwrap();
        if rows.len() >= 4 || std::time::Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(
        rows.iter()
            .all(|(_, status, key)| status == "ok" && key.is_some())
    );
    assert_eq!(rows.iter().filter(|(tool, ..)| tool == "ping").count(), 2);
}

#[tokio::test]
async fn ask_question_answers_the_seed_questions_over_mcp() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let project = f1_sqlite_project(dir.path(), &data);
    let key = create_key(&data, "sdk", &[]);

    for mode in ["legacy", "auto"] {
        let report = run_sdk(
            &python,
            &server,
            &key,
            mode,
            json!([
                {"tool": "ask_question", "arguments": {
                    "project_id": project, "question": "Who won the most races in 2023?"}},
                {"tool": "ask_question", "arguments": {
                    "project_id": project,
                    "question": "Compare total points scored by all drivers in 2022 vs 2023, including sprint results."}},
                {"tool": "ask_question", "arguments": {
                    "project_id": project, "chat_id": "$chat_id", "execute_pending_plan": true}},
                {"tool": "ask_question", "arguments": {
                    "project_id": project, "chat_id": "$chat_id",
                    "question": "Now break it down by constructor for 2023"}},
                {"tool": "ask_question", "arguments": {
                    "project_id": uuid::Uuid::new_v4().to_string(), "question": "How many races?"}},
            ]),
        );
        let ask = &report["tools"]["ask_question"];
        assert_eq!(ask["has_output_schema"], true);
        assert_eq!(
            ask["input_properties"],
            json!(["chat_id", "execute_pending_plan", "project_id", "question"])
        );
        let calls = report["calls"].as_array().unwrap();
        assert!(
            calls
                .iter()
                .all(|c| c["is_error"] == false && c["text_matches_structured"] == true)
        );

        let wins = &calls[0]["structured"];
        assert_eq!(wins["status"], "answered", "{wins:#}");
        assert_eq!(wins["results"]["rows"], common::mcp::most_wins_in_2023());
        assert_eq!(wins["objects_used"], json!(["results", "drivers", "races"]));

        let plan = &calls[1]["structured"];
        assert_eq!(plan["status"], "needs_execution", "{plan:#}");
        let executed = &calls[2]["structured"];
        assert_eq!(executed["status"], "answered", "{executed:#}");
        assert_eq!(executed["chat_id"], plan["chat_id"]);
        assert_eq!(
            executed["results"]["rows"],
            json!([[2022, 2350], [2023, 2458]])
        );
        let by_team = &calls[3]["structured"];
        assert_eq!(
            by_team["results"]["rows"][0],
            json!(["Red Bull", 860]),
            "{by_team:#}"
        );

        // Another organization's or a made-up project: an error that reveals nothing.
        let foreign = &calls[4]["structured"];
        assert_eq!(foreign["status"], "error");
        assert!(
            foreign["error"]
                .as_str()
                .unwrap()
                .contains("is available to you")
        );
    }
}

/// The MCP Inspector CLI from the repository's npm tools (`scripts/setup`).
fn inspector() -> Option<std::path::PathBuf> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules/.bin/mcp-inspector");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CASSIS_TEST_MCP_REQUIRED").is_err(),
        "the MCP Inspector is missing: run scripts/setup"
    );
    eprintln!("skipped: the MCP Inspector is not installed (run scripts/setup)");
    None
}

#[tokio::test]
async fn the_inspector_cli_calls_each_tool() {
    let Some(inspector) = inspector() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data, "inspector", &[]);
    let call = |args: &[&str]| -> Value {
        // The Inspector finds its own files relative to the working directory.
        let output = Command::new(&inspector)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .args([
                "--cli",
                &format!("{}/mcp/", server.url),
                "--transport",
                "http",
            ])
            .args(["--header", &format!("Authorization: Bearer {key}")])
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}\n{}",
            stdout(&output),
            stderr(&output)
        );
        serde_json::from_str(&stdout(&output)).expect("the inspector prints JSON")
    };

    let tools = call(&["--method", "tools/list"]);
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["ask_question", "list_projects", "ping"]);

    let ping = call(&["--method", "tools/call", "--tool-name", "ping"]);
    assert_eq!(
        ping["structuredContent"],
        json!({"status": "ok", "server": "cassis"})
    );

    let projects = call(&["--method", "tools/call", "--tool-name", "list_projects"]);
    let project = projects["structuredContent"]["projects"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let answer = call(&[
        "--method",
        "tools/call",
        "--tool-name",
        "ask_question",
        "--tool-arg",
        &format!("project_id={project}"),
        "--tool-arg",
        "question=how many customers per market segment",
    ]);
    let response = &answer["structuredContent"];
    assert_eq!(response["status"], "answered", "{answer:#}");
    assert_eq!(
        response["results"]["columns"],
        json!(["market_segment", "customer_count"])
    );
    assert_eq!(response["results"]["total_rows"], 5);
}

/// The official conformance suite, run for both protocol eras against a test
/// instance without authentication (the suite sends no credentials); every
/// scenario passes except those in the era's expected-failures file.
#[test]
fn the_official_conformance_suite_passes_but_for_the_baseline() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients");
    let Some(bin) = common::mcp::conformance_bin() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |command| {
        command.arg("--insecure-mcp-without-auth");
    });
    // Node 22 from the suite's folder comes first on the PATH.
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (era, args) in [
        ("2025-11-25", vec![]),
        ("2026-07-28", vec!["--requirements", "2026-07-28"]),
    ] {
        let output = Command::new(bin.join("conformance"))
            .env("PATH", &path)
            .args(["server", "--url", &format!("{}/mcp/", server.url)])
            .args(&args)
            .arg("--expected-failures")
            .arg(suite.join(format!("conformance-{era}.yml")))
            .output()
            .unwrap();
        let report = stdout(&output);
        let summary = report
            .split("=== SUMMARY ===")
            .nth(1)
            .unwrap_or(&report)
            .to_owned();
        assert!(
            output.status.success(),
            "conformance for {era} failed:\n{summary}\n{}",
            stderr(&output)
        );
        assert!(summary.contains("✓ tools-list"), "{summary}");
        assert!(summary.contains("✓ dns-rebinding-protection"), "{summary}");
    }
}

#[test]
fn mcp_without_auth_is_refused_off_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let output = cassis(&dir.path().join("data"))
        .args([
            "serve",
            "--addr",
            "0.0.0.0:0",
            "--insecure-mcp-without-auth",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("only allowed on a loopback address"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn a_revoked_key_stops_working_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &[]).await;
    let key = create_key(&data, "soon revoked", &[]);
    let bearer = format!("Bearer {key}");
    let headers = [(AUTHORIZATION.as_str(), bearer.as_str())];
    // Used once, so the server has it in its cache of verified keys.
    assert_eq!(
        post(&server, "/mcp/", &headers).await.status(),
        StatusCode::OK
    );

    let list = stdout(&cassis(&data).args(["apikey", "list"]).output().unwrap());
    let id = list.split_whitespace().next().unwrap().to_owned();
    let output = cassis(&data)
        .args(["apikey", "revoke", &id])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let status = post(&server, "/mcp/", &headers).await.status();
        if status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert_eq!(status, StatusCode::OK);
        assert!(
            std::time::Instant::now() < deadline,
            "the revoked key still works after 15 seconds"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// Plain `ping` and `list_projects` calls are answered before rmcp; the same
/// calls with `_meta` go through rmcp. Both must give the same bytes and the
/// same audit records, with numeric and string ids.
#[tokio::test]
async fn the_direct_answer_for_plain_tool_calls_matches_rmcps() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = &TestApp::start(&data, &[]).await;
    let key = create_key(&data, "paths", &[]);
    let call = |body: String| {
        let url = format!("{}/mcp/", server.url);
        let key = key.clone();
        async move {
            let response = server
                .post(url)
                .bearer_auth(key)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(response.headers()["content-type"], "application/json");
            response.text().await.unwrap()
        }
    };
    for (tool, id) in [("ping", "7"), ("list_projects", "\"req-1\"")] {
        let direct = call(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
        ))
        .await;
        let through_rmcp = call(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"progressToken":1}}}}}}"#
        ))
        .await;
        assert_eq!(direct, through_rmcp, "{tool}");
        let parsed: Value = serde_json::from_str(&direct).unwrap();
        assert_eq!(parsed["result"]["isError"], false);
        assert_eq!(parsed["id"].to_string(), id);
    }
    // The direct answer keeps rmcp's DNS-rebinding defence: a foreign Host
    // is refused before any tool runs.
    let rebound = server
        .post(format!("{}/mcp/", server.url))
        .bearer_auth(&key)
        .header(HOST, "evil.example.com")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);

    // An unknown tool still gets rmcp's error.
    let unknown = call(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#
            .to_owned(),
    )
    .await;
    assert!(unknown.contains("\"error\""), "{unknown}");

    // Every call was recorded, whichever path answered it.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let database = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&database).await.unwrap();
    let recorded: Vec<(String, i64)> =
        sqlx::query_as("SELECT tool, COUNT(*) FROM tool_calls GROUP BY tool ORDER BY tool")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        recorded,
        [("list_projects".to_owned(), 2), ("ping".to_owned(), 2)]
    );
}
