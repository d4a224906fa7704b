//! The Formula 1 setup on BigQuery, against a local fake of BigQuery's REST
//! API and Google's token endpoint (`bigquery_fake.py` beside this file;
//! BigQuery is a paid service tests cannot reach). The fake checks what
//! Cassis sends (a bearer token it issued for a correctly signed
//! service-account assertion; query, useLegacySql=false,
//! maximumBytesBilled, timeoutMs, defaultDataset) and answers in the
//! documented shapes, running the queries on SQLite over the F1 data after
//! translating them with sqlglot. Cassis connects with `--introspect`,
//! imports the F1 ontology as it is (its `public.` is the dataset) and
//! answers the seed's three questions through MCP.
//!
//! Runs when `CASSIS_TEST_PYTHON` names a Python with sqlglot and
//! cryptography (the test venv, where fakesnow brings them); skipped
//! otherwise, unless `CASSIS_TEST_BIGQUERY_REQUIRED` is set.

mod common;

use base64::Engine;
use common::app::Reach;
use common::mcp::answers_the_seed_questions;
use common::warehouse::{
    admin_session, create_from_the_form, draft_yaml, first_admin, introspected_project,
    listed_project, test_connection,
};
use common::{ADMIN_EMAIL, Server, cassis, f1_data, ok, publish, stderr};
use reqwest::StatusCode;
use serde_json::json;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const PROJECT: &str = "cassis-test";
const EMAIL: &str = "cassis-reader@cassis-test.iam.gserviceaccount.com";
const KEY: &str = include_str!("../../core/src/warehouse/test_key.p8");

/// The Python to run the fake with, or `None` to skip.
fn python() -> Option<String> {
    let python = std::env::var("CASSIS_TEST_PYTHON").ok().filter(|python| {
        Command::new(python)
            .args(["-c", "import sqlglot, cryptography"])
            .status()
            .is_ok_and(|s| s.success())
    });
    if python.is_none() {
        assert!(
            std::env::var_os("CASSIS_TEST_BIGQUERY_REQUIRED").is_none(),
            "the BigQuery fake needs CASSIS_TEST_PYTHON with sqlglot and cryptography"
        );
    }
    python
}

/// The fake on a free port, over the tables of `db` as dataset `public`;
/// stopped when dropped.
struct Fake {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Fake {
    fn start(python: &str, dir: &Path, db: &Path) -> Fake {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let key = dir.join("service-account.pem");
        std::fs::write(&key, KEY).unwrap();
        let log = dir.join("bigquery.log");
        let out = std::fs::File::create(&log).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bigquery_fake.py");
        let child = Command::new(python)
            .arg(script)
            .args(["--port", &port.to_string(), "--project", PROJECT])
            .args(["--dataset", "public", "--email", EMAIL, "--db"])
            .arg(db)
            .arg("--public-key")
            .arg(&key)
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("CASSIS_TEST_PYTHON runs");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the BigQuery fake did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Fake { child, port, log }
    }

    /// The service account's key file, in base64, as `credentials=` takes it.
    fn credentials(&self) -> String {
        let file = json!({
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "0123456789abcdef",
            "private_key": KEY,
            "client_email": EMAIL,
            "token_uri": format!("http://127.0.0.1:{}/token", self.port),
        });
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(file.to_string())
    }

    fn url(&self, extra: &str) -> String {
        format!(
            "bigquery://{PROJECT}/public?credentials={}&host=127.0.0.1&port={}&protocol=http{extra}",
            self.credentials(),
            self.port
        )
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The F1 data in a SQLite file in `dir`, as `load-csv --snake-case` loads it.
fn f1_file(dir: &Path) -> PathBuf {
    let db = dir.join("f1-dataset.sqlite");
    let (out, _) = ok(cassis(&dir.join("unused"))
        .args(["warehouse", "load-csv", "--snake-case", "--warehouse"])
        .arg(format!("sqlite://{}", db.display()))
        .arg("--dir")
        .arg(f1_data())
        .output()
        .unwrap());
    assert_eq!(out, "loaded 13 tables, 114903 rows\n");
    db
}

#[tokio::test]
async fn formula_one_on_bigquery_answers_the_seed_questions_over_mcp() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = f1_file(dir.path());
    let fake = Fake::start(&python, dir.path(), &db);
    let url = fake.url("");
    let secret = fake.credentials();

    let data = dir.path().join("data");
    first_admin(&data);
    let (project, bootstrapped) = introspected_project(&data, "F1 on BigQuery", &url);
    assert_eq!(project.len(), 36);
    assert!(
        bootstrapped.contains("bootstrapped the draft: 13 objects"),
        "{bootstrapped}"
    );
    assert!(!bootstrapped.contains(&secret[..40]), "{bootstrapped}");
    let (listed, _) = ok(cassis(&data).args(["project", "list"]).output().unwrap());
    assert!(listed.contains("bigquery (connected)"), "{listed}");
    assert!(!listed.contains(&secret[..40]), "{listed}");
    let draft = draft_yaml(&data, "F1 on BigQuery");
    assert!(draft.contains("table: public.results"), "{draft}");
    assert!(
        draft.contains("table: public.drivers\n  label: Drivers\n  primary_key:\n  - driver_id\n"),
        "declared primary keys are read (INFORMATION_SCHEMA.KEY_COLUMN_USAGE): {draft}"
    );
    assert!(
        draft.contains("name: driver_id\n    type: integer"),
        "INT64 is an integer: {draft}"
    );
    assert!(
        draft.contains("known_values") && draft.contains("- Monaco"),
        "low-cardinality text columns are sampled: {draft}"
    );

    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml");
    let out = publish(&data, "F1 on BigQuery", &file, &[]);
    assert!(out.contains("published version 1"), "{out}");

    // A dry run estimates the bytes a question reads: above the limit, the
    // plan waits for approval, and runs once approved.
    let (out, _) = ok(cassis(&data)
        .args([
            "--max-query-bytes",
            "1000",
            "ask",
            "--project",
            "F1 on BigQuery",
        ])
        .arg("how many races in 2023")
        .output()
        .unwrap());
    let costly: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(costly["status"], "needs_execution", "{costly:#}");
    let texts = costly["plan"]["assumptions"].to_string();
    assert!(
        texts.contains("estimated to be expensive") && texts.contains("KiB to read"),
        "{texts}"
    );
    let (out, _) = ok(cassis(&data)
        .args([
            "--max-query-bytes",
            "1000",
            "ask",
            "--project",
            "F1 on BigQuery",
        ])
        .args([
            "--chat",
            costly["chat_id"].as_str().unwrap(),
            "--execute-pending-plan",
        ])
        .output()
        .unwrap());
    let approved: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(approved["results"]["rows"], json!([[22]]), "{approved:#}");

    // A project whose ceiling on bytes billed a question passes.
    let (capped, _) = ok(cassis(&data)
        .args(["project", "create", "--name", "F1 capped"])
        .args(["--warehouse", &fake.url("&maximum_bytes_billed=1000")])
        .output()
        .unwrap());
    let capped = capped.trim().to_owned();
    // Its verified questions fail on the ceiling: publishing says so, and
    // takes --force.
    let gated = cassis(&data)
        .args(["ontology", "import", "--project", "F1 capped", "--publish"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!gated.status.success());
    assert!(
        stderr(&gated).contains("maximum_bytes_billed in its URL, 1000 bytes"),
        "{}",
        stderr(&gated)
    );
    let out = publish(&data, "F1 capped", &file, &["--force"]);
    assert!(out.contains("published version 1"), "{out}");

    let api_key = common::api_key(cassis(&data), ADMIN_EMAIL, "agent", &[]);
    let server = Server::start(&data, |_| {});

    // The admin app's project form tests and creates it too.
    let cookie = admin_session(&server).await;
    let (status, report) = test_connection(&server, &cookie, &url).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(report.contains("public.results"), "{report}");
    assert!(!report.contains(&secret[..40]), "{report}");
    for (bad, expected) in [
        (
            format!("bigquery://{PROJECT}/public"),
            "no service account key",
        ),
        (
            url.replace(&secret, "bm90LWEta2V5"),
            "not a service account's JSON key file",
        ),
    ] {
        let (status, refused) = test_connection(&server, &cookie, &bad).await;
        assert_ne!(status, StatusCode::OK, "{refused}");
        assert!(refused.contains(expected), "{refused}");
        assert!(!refused.contains("bm90LWEta2V5"), "{refused}");
    }
    create_from_the_form(&server, &cookie, &url).await;

    let (listed, projects) = listed_project(&server, &api_key, &project).await;
    assert_eq!(listed["dialect"], "bigquery");
    assert_eq!(listed["data_source_connected"], true);
    assert!(!projects.to_string().contains(&secret[..40]));

    answers_the_seed_questions(
        &server,
        &api_key,
        &project,
        ["public.results", "public.drivers", "public.races"],
    )
    .await;

    // Past the ceiling on bytes billed, BigQuery refuses the job; the
    // answer says why in plain words.
    let refused = server
        .call_tool(
            &api_key,
            "ask_question",
            json!({"project_id": capped, "question": "how many races in 2023"}),
        )
        .await;
    assert_eq!(refused["status"], "error", "{refused:#}");
    assert!(
        refused.to_string().contains("maximum_bytes_billed"),
        "{refused:#}"
    );

    // The fake saw every query Cassis sent, with a token it issued.
    let log = fake.log_text();
    assert!(log.contains("POST /token"), "{log}");
    assert!(
        log.contains("POST /bigquery/v2/projects/cassis-test/queries"),
        "{log}"
    );
    assert!(
        log.contains("GET /bigquery/v2/projects/cassis-test/queries/job_"),
        "results were paged: {log}"
    );
    let server_log = server.log_text();
    assert!(!server_log.contains(&secret[..40]), "{server_log}");
    assert!(!server_log.contains("PRIVATE KEY"), "{server_log}");
}

#[tokio::test]
async fn keys_are_read_and_a_job_past_the_question_timeout_is_cancelled_on_bigquery() {
    use cassis_core::warehouse::Warehouse;
    use common::warehouse::{answers_at_once, times_out, within_ten_seconds};
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("teams.sqlite");
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}?mode=rwc", db.display()))
        .await
        .unwrap();
    for statement in [
        "CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE players (id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES teams (id))",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    pool.close().await;
    let fake = Fake::start(&python, dir.path(), &db);
    let warehouse = Warehouse::connect(&fake.url("")).await.unwrap();
    // Declared keys come with the catalog: a foreign key to a primary key.
    let catalog = warehouse.catalog(None).await.unwrap();
    let players = catalog.tables.iter().find(|t| t.name == "players").unwrap();
    assert_eq!(players.primary_key, ["id"]);
    assert_eq!(players.foreign_keys.len(), 1, "{players:?}");
    let key = &players.foreign_keys[0];
    assert_eq!(key.columns, ["team_id"]);
    assert_eq!(key.referenced_table, "teams");
    assert_eq!(key.referenced_columns, ["id"]);
    let slow = "WITH RECURSIVE c AS (SELECT 1 AS x UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) \
                SELECT COUNT(*) AS n FROM c";
    times_out(
        &warehouse,
        slow,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .await;
    // Cassis told BigQuery to cancel the job (jobs.cancel).
    within_ten_seconds(
        || fake.log_text().contains("/cancel"),
        || format!("no jobs.cancel reached the fake: {}", fake.log_text()),
    )
    .await;
    assert!(
        fake.log_text().contains("cancelled job job_"),
        "{}",
        fake.log_text()
    );
    // The next query answers at once.
    answers_at_once(&warehouse).await;
    warehouse.close().await;
}
