//! MCP as an agent speaks it: one JSON-RPC request per POST with an API key
//! ([`Reach::mcp_tool`]), here the seed questions every warehouse answers.

use super::app::Reach;
use super::{Server, stderr, stdout};
use serde_json::json;

/// The product page's first answer: who won the most races in 2023, with
/// their wins.
pub fn most_wins_in_2023() -> serde_json::Value {
    json!([
        ["Max Verstappen", 19],
        ["Sergio Pérez", 2],
        ["Carlos Sainz", 1]
    ])
}

/// The product page's three examples through `ask_question`, with the
/// page's numbers: a ranking, a fork approved and run, and a follow-up.
/// `tables` are the three tables the ranking reads, as the source names them.
pub async fn answers_the_seed_questions(
    server: &impl Reach,
    key: &str,
    project: &str,
    tables: [&str; 3],
) {
    let ask = |arguments: serde_json::Value| server.call_tool(key, "ask_question", arguments);
    let wins =
        ask(json!({"project_id": project, "question": "Who won the most races in 2023?"})).await;
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert_eq!(wins["results"]["rows"], most_wins_in_2023(), "{wins:#}");
    assert_eq!(wins["objects_used"], json!(tables));

    let plan = ask(json!({
        "project_id": project,
        "question": "Compare total points scored by all drivers in 2022 vs 2023, including sprint results."
    }))
    .await;
    assert_eq!(plan["status"], "needs_execution", "{plan:#}");
    let chat = plan["chat_id"].clone();
    let points =
        ask(json!({"project_id": project, "chat_id": chat, "execute_pending_plan": true})).await;
    assert_eq!(points["status"], "answered", "{points:#}");
    assert_eq!(
        points["results"]["rows"],
        json!([[2022, 2350], [2023, 2458]]),
        "{points:#}"
    );
    let by_team = ask(json!({
        "project_id": project,
        "chat_id": chat,
        "question": "Now break it down by constructor for 2023"
    }))
    .await;
    assert_eq!(by_team["status"], "answered", "{by_team:#}");
    assert_eq!(
        by_team["results"]["rows"][0],
        json!(["Red Bull", 860]),
        "{by_team:#}"
    );
}

/// The Python interpreter with the `mcp` SDK, from `scripts/setup --test`.
/// Without one the SDK tests are skipped, unless the run requires it.
pub fn python() -> Option<String> {
    match std::env::var("CASSIS_TEST_PYTHON") {
        Ok(python) if !python.is_empty() => Some(python),
        _ if std::env::var("CASSIS_TEST_MCP_REQUIRED").is_ok() => {
            panic!("CASSIS_TEST_MCP_REQUIRED is set but CASSIS_TEST_PYTHON is not")
        }
        _ => {
            eprintln!("skipped: set CASSIS_TEST_PYTHON to a Python with the `mcp` SDK");
            None
        }
    }
}

/// Runs the client `script` of `tests/mcp_clients/` with `python` against
/// `server`'s MCP endpoint (its URL the first argument, `args` after it);
/// the JSON report it prints.
pub fn run_client(python: &str, server: &Server, script: &str, args: &[&str]) -> serde_json::Value {
    let script = format!("{}/tests/mcp_clients/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = std::process::Command::new(python)
        .arg(&script)
        .arg(format!("{}/mcp/", server.url))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script} failed:\n{}\nserver log:\n{}",
        stderr(&output),
        server.log_text()
    );
    serde_json::from_str(&stdout(&output)).expect("the client prints JSON")
}

/// The official MCP conformance suite's runner, from `scripts/setup --test`;
/// `None` (the test skipped) when it is not installed, unless the run
/// requires it.
pub fn conformance_bin() -> Option<std::path::PathBuf> {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients");
    let bin = suite.join("conformance/node_modules/.bin");
    if !bin.join("conformance").exists() {
        assert!(
            std::env::var("CASSIS_TEST_MCP_REQUIRED").is_err(),
            "the MCP conformance suite is missing: run scripts/setup --test"
        );
        eprintln!("skipped: the MCP conformance suite is not installed (scripts/setup --test)");
        return None;
    }
    Some(bin)
}
