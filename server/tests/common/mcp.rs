//! MCP as an agent speaks it: one JSON-RPC request per POST with an API key
//! ([`Reach::mcp_tool`]), here the seed questions every warehouse answers.

use super::app::Reach;
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
