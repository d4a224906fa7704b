//! The question engine end to end, as `cassis ask` exposes it: the Formula 1
//! data in SQLite, the F1 ontology published, the seed's questions answered
//! with the figures the data holds, follow-ups, approvals, pinned versions
//! and bad input.

mod common;

use common::{ask, cassis, f1_sqlite_project, stderr};
use serde_json::{Value, json};
use std::path::Path;

fn chat_of(response: &Value) -> String {
    response["chat_id"].as_str().unwrap().to_owned()
}

fn file_digest(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn the_seed_questions_get_the_figures_the_data_holds() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);

    // A straight answer.
    let wins = ask(&data, &["Who won the most races in 2023?"]);
    assert_eq!(wins["status"], "answered", "{wins:#}");
    assert!(chat_of(&wins).starts_with("chat_"));
    assert_eq!(wins["results"]["columns"], json!(["full_name", "wins"]));
    assert_eq!(wins["results"]["rows"], common::mcp::most_wins_in_2023());
    assert_eq!(wins["results"]["total_rows"], 3);
    assert_eq!(wins["results"]["truncated"], false);
    assert_eq!(wins["objects_used"], json!(["results", "drivers", "races"]));
    assert_eq!(wins["ontology_version"], 1);
    assert_eq!(wins["plan"], Value::Null);
    assert_eq!(wins["error"], Value::Null);
    let answer = wins["answer"].as_str().unwrap();
    for part in [
        "Max Verstappen",
        "19",
        "Sergio Pérez (2)",
        "Carlos Sainz (1)",
        "2023",
    ] {
        assert!(answer.contains(part), "{answer}");
    }
    let sql = wins["sql"].as_str().unwrap();
    assert!(
        sql.contains("r.year = 2023") && sql.contains("rr.position = 1"),
        "{sql}"
    );

    // A plan first, then its execution.
    let question =
        "Compare total points scored by all drivers in 2022 vs 2023, including sprint results.";
    let plan = ask(&data, &[question]);
    assert_eq!(plan["status"], "needs_execution", "{plan:#}");
    assert_eq!(plan["sql"], Value::Null);
    assert_eq!(plan["results"], Value::Null);
    let intent = plan["plan"]["intent"].as_str().unwrap();
    assert!(
        intent.starts_with("UNION query combining results and sprint_results"),
        "{intent}"
    );
    assert_eq!(
        plan["plan"]["objects"],
        json!(["results", "sprint_results", "races"])
    );
    let assumptions: Vec<&str> = plan["plan"]["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert!(
        assumptions.iter().any(|a| a.contains("sprint points")),
        "{assumptions:?}"
    );
    assert!(
        assumptions.contains(&"Points rolled up across all drivers per season"),
        "{assumptions:?}"
    );
    let chat = chat_of(&plan);
    let executed = ask(&data, &["--chat", &chat, "--execute-pending-plan"]);
    assert_eq!(executed["status"], "answered", "{executed:#}");
    assert_eq!(executed["chat_id"], chat.as_str());
    assert_eq!(
        executed["results"]["rows"],
        json!([[2022, 2350], [2023, 2458]])
    );
    let answer = executed["answer"].as_str().unwrap();
    assert!(
        answer.contains("2,458") && answer.contains("2,350"),
        "{answer}"
    );

    // A follow-up in the same chat keeps the metric and its sprint reading.
    let by_team = ask(
        &data,
        &["--chat", &chat, "Now break it down by constructor for 2023"],
    );
    assert_eq!(by_team["status"], "answered", "{by_team:#}");
    let rows = by_team["results"]["rows"].as_array().unwrap();
    assert_eq!(
        rows[..4],
        [
            json!(["Red Bull", 860]),
            json!(["Mercedes", 409]),
            json!(["Ferrari", 406]),
            json!(["McLaren", 302])
        ]
    );
    let answer = by_team["answer"].as_str().unwrap();
    assert!(
        answer.contains("Red Bull 860, Mercedes 409, Ferrari 406, McLaren 302"),
        "{answer}"
    );

    // More follow-ups: a new year, a limit, a filter.
    let in_2021 = ask(&data, &["--chat", &chat, "and in 2021?"]);
    assert_eq!(
        in_2021["results"]["rows"][0],
        json!(["Mercedes", 613.5]),
        "{in_2021:#}"
    );
    let top = ask(&data, &["--chat", &chat, "top 3 instead"]);
    assert_eq!(
        top["results"]["rows"].as_array().unwrap().len(),
        3,
        "{top:#}"
    );
    assert_eq!(top["results"]["total_rows"], 3);
}

#[test]
fn unanswerable_and_bad_input_get_clear_errors_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let warehouse = data.join("warehouses/f1.sqlite");
    let before = file_digest(&warehouse);

    let temperature = ask(&data, &["What was the track temperature at Monza in 2023?"]);
    assert_eq!(temperature["status"], "not_answerable", "{temperature:#}");
    assert!(
        temperature["error"]
            .as_str()
            .unwrap()
            .contains("temperature")
    );
    assert!(
        temperature["answer"]
            .as_str()
            .unwrap()
            .contains("temperature")
    );
    assert_eq!(temperature["sql"], Value::Null);

    let empty = ask(&data, &["   "]);
    assert_eq!(empty["status"], "error");
    assert!(
        empty["error"].as_str().unwrap().contains("empty"),
        "{empty:#}"
    );

    let long = "how many races ".repeat(7000);
    let long = ask(&data, &[long.as_str()]);
    assert_eq!(long["status"], "error");
    assert!(
        long["error"].as_str().unwrap().contains("too long"),
        "{long:#}"
    );

    for injection in [
        "'; DROP TABLE races; --",
        "how many races in 2023; DELETE FROM results",
        "wins by driver where 1=1 OR name = '' UNION SELECT * FROM sqlite_master --",
    ] {
        let response = ask(&data, &[injection]);
        assert_ne!(response["status"], "answered", "{injection}: {response:#}");
        assert!(response["error"].is_string(), "{response:#}");
    }

    let unknown = ask(
        &data,
        &["--chat", "chat_01NOSUCHCHAT0000000000000", "and in 2021?"],
    );
    assert_eq!(unknown["status"], "error");
    assert!(
        unknown["error"].as_str().unwrap().contains("no chat"),
        "{unknown:#}"
    );

    let answered = ask(&data, &["How many races were held in 2023?"]);
    assert_eq!(answered["results"]["rows"], json!([[22]]), "{answered:#}");
    let nothing_pending = ask(
        &data,
        &["--chat", &chat_of(&answered), "--execute-pending-plan"],
    );
    assert_eq!(nothing_pending["status"], "error");
    assert!(
        nothing_pending["error"]
            .as_str()
            .unwrap()
            .contains("no plan waiting"),
        "{nothing_pending:#}"
    );

    assert!(before == file_digest(&warehouse), "the warehouse changed");
}

#[test]
fn a_chat_stays_on_its_version_after_a_new_one_is_published() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);

    let first = ask(&data, &["Who won the most races in 2023?"]);
    assert_eq!(first["ontology_version"], 1);
    let chat = chat_of(&first);

    // Version 2 drops the wins metric, and the win rate that divides it.
    let v1 = std::fs::read_to_string(dir.path().join("f1-sqlite.yaml")).unwrap();
    let cut = |text: &str, from: &str, to: &str| {
        let start = text.find(from).unwrap();
        let end = text.find(to).unwrap();
        format!("{}{}", &text[..start], &text[end..])
    };
    let without_rate = cut(&v1, "\n  - name: win_rate\n", "\n  - name: poles\n");
    let v2 = cut(&without_rate, "\n  - name: wins\n", "\n  - name: podiums\n")
        .replace(
            "Who won the most races in 2023?",
            "Who was on the podium most in 2023?",
        )
        .replace("rr.position = 1", "rr.position <= 3");
    let file = dir.path().join("v2.yaml");
    std::fs::write(&file, v2).unwrap();
    let output = cassis(&data)
        .env("CASSIS_NO_DEMO", "1")
        .args([
            "ontology",
            "import",
            "--project",
            "F1",
            "--publish",
            "--force",
        ])
        .arg(&file)
        .output()
        .unwrap();
    // Dropping the metric a verified question needs is a regression the
    // publish gate reports; the data team means it here.
    assert!(output.status.success(), "{}", stderr(&output));

    let follow_up = ask(&data, &["--chat", &chat, "and in 2021?"]);
    assert_eq!(follow_up["status"], "answered", "{follow_up:#}");
    assert_eq!(follow_up["ontology_version"], 1);
    assert_eq!(
        follow_up["results"]["rows"][0],
        json!(["Max Verstappen", 10])
    );

    let fresh = ask(&data, &["Who won the most races in 2023?"]);
    assert_eq!(fresh["ontology_version"], 2);
    assert_eq!(fresh["status"], "not_answerable", "{fresh:#}");
}

/// `cassis eval` of `examples/<set>/questions.yaml` on `project`, which must
/// reach 90%; the printed table.
fn eval(data: &Path, project: &str, set: &str) -> String {
    let questions = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(set)
        .join("questions.yaml");
    let output = cassis(data)
        .env("CASSIS_NO_DEMO", "1")
        .args([
            "eval",
            "--project",
            project,
            "--min-accuracy",
            "0.9",
            "--verbose",
        ])
        .arg(&questions)
        .output()
        .unwrap();
    let table = common::stdout(&output);
    assert!(output.status.success(), "{table}\n{}", stderr(&output));
    table
}

#[test]
fn the_f1_question_set_scores_as_reported() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let table = eval(&data, "F1", "f1");
    // Every category is reported, and the seed examples pass exactly.
    for category in [
        "seed",
        "count",
        "top-n",
        "follow-up",
        "fork",
        "not-answerable",
        "all",
    ] {
        assert!(table.contains(category), "{table}");
    }
    assert!(table.contains("seed                   2/2"), "{table}");
}

#[test]
fn the_wholesale_question_set_runs_on_the_demo_project() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // The first start creates the demo project and publishes its ontology.
    let mut server = common::Server::start(&data, |_| {});
    server.terminate();
    let table = eval(&data, "Wholesale", "wholesale");
    assert!(table.contains("not-answerable         5/5"), "{table}");
}

#[test]
fn a_question_the_planner_cannot_read_follows_a_verified_one_up_to_its_year() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);
    let asked = "How many hat tricks were there in 2019?";
    // The planner alone knows no "hat tricks".
    let before = ask(&data, &[asked]);
    assert_eq!(before["status"], "not_answerable", "{before:#}");

    // The data team verifies the question for 2018.
    let ontology = std::fs::read_to_string(dir.path().join("f1-sqlite.yaml")).unwrap();
    let verified = "verified_questions:\n  - question: How many hat tricks were there in 2018?\n    sql: \
        SELECT COUNT(*) AS hat_tricks FROM results r JOIN races ra ON ra.race_id = r.race_id \
        WHERE ra.year = 2018 AND r.position = 1 AND r.grid = 1 AND r.rank = 1\n";
    let file = dir.path().join("verified.yaml");
    std::fs::write(
        &file,
        ontology.replacen("verified_questions:\n", verified, 1),
    )
    .unwrap();
    let output = cassis(&data)
        .env("CASSIS_NO_DEMO", "1")
        .args(["ontology", "import", "--project", "F1", "--publish"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let after = ask(&data, &[asked]);
    assert_eq!(after["status"], "answered", "{after:#}");
    let sql = after["sql"].as_str().unwrap();
    assert!(
        sql.contains("ra.year = 2019") && !sql.contains("2018"),
        "{sql}"
    );
    let answer = after["answer"].as_str().unwrap();
    assert!(
        answer.contains(
            "verified question \"How many hat tricks were there in 2018?\", with 2019 for 2018"
        ),
        "{answer}"
    );
    // One win from pole with the fastest lap in 2019 in this data; none in
    // 2018, so the figure is 2019's.
    assert_eq!(after["results"]["rows"], json!([[1]]), "{after:#}");
    // Words the exemplar does not have are not guessed into it.
    let other = ask(&data, &["How many hat tricks did Ferrari score in 2019?"]);
    assert_eq!(other["status"], "not_answerable", "{other:#}");
}

#[test]
fn each_seasons_leader_is_found_in_the_data_with_ties_kept() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    f1_sqlite_project(dir.path(), &data);

    let leaders = ask(
        &data,
        &["which driver had the most podiums in each season from 2010 to 2012"],
    );
    assert_eq!(leaders["status"], "answered", "{leaders:#}");
    assert_eq!(
        leaders["results"]["columns"],
        json!(["year", "full_name", "podiums"])
    );
    // 2010 was a three-way tie on ten podiums: all three are kept.
    assert_eq!(
        leaders["results"]["rows"],
        json!([
            [2010, "Fernando Alonso", 10],
            [2010, "Mark Webber", 10],
            [2010, "Sebastian Vettel", 10],
            [2011, "Sebastian Vettel", 17],
            [2012, "Fernando Alonso", 13],
        ])
    );
    let answer = leaders["answer"].as_str().unwrap();
    assert!(
        answer.contains("2010: Fernando Alonso, Mark Webber and Sebastian Vettel tie (10)"),
        "{answer}"
    );
}
