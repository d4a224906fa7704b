//! The Formula 1 setup on Snowflake, against fakesnow (a DuckDB-backed
//! emulator of Snowflake's REST protocol): load the CSV exports with `cassis
//! warehouse load-csv`, create a project with `--introspect`, import the F1
//! ontology as it is (its `public.` schema is Snowflake's PUBLIC), and ask
//! the product pages' three example questions through MCP. Runs when
//! `CASSIS_TEST_FAKESNOW` names the `fakesnow` program (`scripts/test` sets
//! it to the test venv's); skipped otherwise, unless
//! `CASSIS_TEST_FAKESNOW_REQUIRED` is set.
//!
//! fakesnow signs anyone in: the sign-in claims (JWT shape, key
//! fingerprint) are unit-tested in core against Snowflake's documented
//! algorithm instead.

mod common;

use common::app::Reach;
use common::mcp::answers_the_seed_questions;
use common::{
    ADMIN_EMAIL, ADMIN_PASSWORD, Server, cassis, f1_data, run_with_stdin, stderr, stdout,
};
use reqwest::StatusCode;
use serde_json::json;
use std::collections::HashSet;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

fn ok(output: std::process::Output) -> (String, String) {
    assert!(output.status.success(), "{}", stderr(&output));
    (stdout(&output), stderr(&output))
}

/// A fakesnow server on a free port, stopped when dropped.
struct Fakesnow {
    child: Child,
    port: u16,
}

impl Fakesnow {
    fn start(program: &str, dir: &Path) -> Fakesnow {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = std::fs::File::create(dir.join("fakesnow.log")).unwrap();
        let child = Command::new(program)
            .args(["-s", "--host", "127.0.0.1", "--port", &port.to_string()])
            .current_dir(dir)
            // Its access log (every request) goes to standard output.
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("CASSIS_TEST_FAKESNOW runs");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "fakesnow did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Fakesnow { child, port }
    }

    /// A URL to database `F1`, schema PUBLIC, signing in as `user` with `secret`.
    fn url(&self, user: &str, secret: &str, extra: &str) -> String {
        format!(
            "snowflake://{user}:{secret}@cassis-test/F1/PUBLIC?warehouse=COMPUTE_WH&role=READER&host=127.0.0.1&port={}&protocol=http{extra}",
            self.port
        )
    }
}

impl Drop for Fakesnow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The F1 tables the seed's questions read, with the results of the 2022
/// and 2023 seasons only: fakesnow parses every INSERT with a Python SQL
/// parser, about two minutes for all 27,178 results. The answers are of
/// those seasons, so they are the full data's.
fn seed_tables(into: &Path) -> (u64, HashSet<String>) {
    let source = f1_data();
    let races = std::fs::read_to_string(source.join("races.csv")).unwrap();
    // raceId,year,...: plain numbers, no quoting.
    let seasons: HashSet<String> = races
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut fields = line.split(',');
            let race = fields.next()?;
            let year = fields.next()?;
            matches!(year, "2022" | "2023").then(|| race.to_owned())
        })
        .collect();
    let mut rows = 0;
    for file in [
        "circuits.csv",
        "constructors.csv",
        "drivers.csv",
        "races.csv",
        "results.csv",
        "sprint_results.csv",
        "status.csv",
    ] {
        let text = std::fs::read_to_string(source.join(file)).unwrap();
        let mut lines = text.lines();
        let mut kept = vec![lines.next().unwrap().to_owned()];
        for line in lines {
            // resultId,raceId,...: the race is the second field.
            let keep = !file.ends_with("results.csv")
                || line.split(',').nth(1).is_some_and(|r| seasons.contains(r));
            if keep {
                kept.push(line.to_owned());
            }
        }
        rows += kept.len() as u64 - 1;
        std::fs::write(into.join(file), kept.join("\n") + "\n").unwrap();
    }
    (rows, seasons)
}

#[tokio::test]
async fn formula_one_on_snowflake_answers_the_seed_questions_over_mcp() {
    let Ok(program) = std::env::var("CASSIS_TEST_FAKESNOW") else {
        assert!(
            std::env::var_os("CASSIS_TEST_FAKESNOW_REQUIRED").is_none(),
            "fakesnow is required"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fakesnow = Fakesnow::start(&program, dir.path());
    let csv_dir = dir.path().join("csv");
    std::fs::create_dir(&csv_dir).unwrap();
    let (rows, seasons) = seed_tables(&csv_dir);
    assert_eq!(seasons.len(), 22 + 22, "two seasons of 22 races");

    let loader_url = fakesnow.url("LOADER", "loader-s3cret", "");
    let load_csv = || {
        cassis(&dir.path().join("unused"))
            .args(["warehouse", "load-csv", "--warehouse", &loader_url])
            .args(["--snake-case", "--dir"])
            .arg(&csv_dir)
            .output()
            .unwrap()
    };
    let (out, progress) = ok(load_csv());
    assert_eq!(out, format!("loaded 7 tables, {rows} rows\n"), "{progress}");
    assert!(
        progress.contains(
            "loaded drivers.csv into drivers: 864 rows, 9 columns, primary key driver_id"
        ),
        "{progress}"
    );
    assert!(!progress.contains("loader-s3cret"), "{progress}");
    // Loading again without --replace refuses rather than duplicating rows.
    let again = load_csv();
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already exists: pass --replace"),
        "{}",
        stderr(&again)
    );

    // Key-pair sign-in, with the key's base64 body as the URL's password
    // (URL-safe alphabet).
    let key: String = include_str!("../../core/src/warehouse/snowflake/test_key.p8")
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<String>()
        .replace('+', "-")
        .replace('/', "_");
    let reader_url = fakesnow.url("CASSIS_READER", &key, "&authenticator=snowflake_jwt");

    let data = dir.path().join("data");
    let mut create = cassis(&data);
    create.args(["user", "create", "--email", ADMIN_EMAIL, "--role", "admin"]);
    ok(run_with_stdin(create, &format!("{ADMIN_PASSWORD}\n")));
    let (id, bootstrapped) = ok(cassis(&data)
        .args(["project", "create", "--name", "F1 on Snowflake"])
        .args(["--warehouse", &reader_url, "--introspect"])
        .output()
        .unwrap());
    let project = id.trim().to_owned();
    assert_eq!(project.len(), 36);
    assert!(
        bootstrapped.contains("bootstrapped the draft: 7 objects"),
        "{bootstrapped}"
    );
    // The key never comes back: not in logs, not in listings.
    assert!(!bootstrapped.contains(&key[..40]), "{bootstrapped}");
    let (listed, _) = ok(cassis(&data).args(["project", "list"]).output().unwrap());
    assert!(listed.contains("snowflake (connected)"), "{listed}");
    assert!(!listed.contains(&key[..40]), "{listed}");
    let (draft, _) = ok(cassis(&data)
        .args([
            "ontology",
            "export",
            "--project",
            "F1 on Snowflake",
            "--draft",
        ])
        .output()
        .unwrap());
    assert!(
        draft.contains("table: public.results"),
        "names Snowflake folded to upper case read in lower case: {draft}"
    );
    assert!(
        draft.contains("table: public.drivers\n  label: Drivers\n  primary_key:\n  - driver_id\n"),
        "declared primary keys are read (SHOW PRIMARY KEYS): {draft}"
    );
    assert!(
        draft.contains("name: driver_id\n    type: integer"),
        "NUMBER(38, 0) is an integer: {draft}"
    );
    assert!(
        draft.contains("known_values") && draft.contains("- Monaco"),
        "low-cardinality text columns are sampled: {draft}"
    );

    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml");
    let (out, _) = ok(cassis(&data)
        .args([
            "ontology",
            "import",
            "--project",
            "F1 on Snowflake",
            "--publish",
        ])
        .arg(&file)
        .output()
        .unwrap());
    assert!(out.contains("published version 1"), "{out}");

    let (key_id, _) = ok(cassis(&data)
        .args(["apikey", "create", "--user", ADMIN_EMAIL, "--name", "agent"])
        .output()
        .unwrap());
    let api_key = key_id.trim().to_owned();
    let server = Server::start(&data, |_| {});

    // The admin app's project form connects to it too, with a password.
    let (status, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(status, StatusCode::OK);
    let cookie = cookie.expect("signed in");
    let password_url = fakesnow.url("CASSIS_READER", "reader-s3cret", "");
    let (status, report) = server
        .server_fn(
            &cookie,
            "test_connection",
            &[("connection_url", password_url.as_str())],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(
        report.contains("snowflake") && report.contains("public.results"),
        "{report}"
    );
    assert!(!report.contains("reader-s3cret"), "{report}");
    // A URL without its secret says so, and a token that is no key is
    // refused before anything is sent, without echoing it.
    for (url, expected) in [
        (
            password_url.replace(":reader-s3cret@", "@"),
            "no password, token or key",
        ),
        (
            fakesnow.url("CASSIS_READER", "not-a-key", "&authenticator=snowflake_jwt"),
            "private key",
        ),
    ] {
        let (status, refused) = server
            .server_fn(
                &cookie,
                "test_connection",
                &[("connection_url", url.as_str())],
            )
            .await;
        assert_ne!(status, StatusCode::OK, "{refused}");
        assert!(refused.contains(expected), "{refused}");
        assert!(!refused.contains("not-a-key"), "{refused}");
    }
    let (status, created) = server
        .server_fn(
            &cookie,
            "create_project",
            &[
                ("name", "F1 from the form"),
                ("source", "connect"),
                ("connection_url", password_url.as_str()),
                ("bootstrap", "source"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{created}");

    let projects = server.call_tool(&api_key, "list_projects", json!({})).await;
    let listed = projects["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == project.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{projects:#}"));
    assert_eq!(listed["dialect"], "snowflake");
    assert_eq!(listed["data_source_connected"], true);
    assert!(!projects.to_string().contains("reader-s3cret"));
    assert!(!projects.to_string().contains(&key[..40]));

    answers_the_seed_questions(
        &server,
        &api_key,
        &project,
        ["public.results", "public.drivers", "public.races"],
    )
    .await;
    // Nothing the server logged holds a secret.
    let log = server.log_text();
    assert!(!log.contains("reader-s3cret"), "{log}");
    assert!(!log.contains(&key[..40]), "{log}");
}

#[tokio::test]
async fn a_statement_past_the_question_timeout_is_aborted_on_snowflake() {
    use cassis_core::engine::execute::{ExecuteError, all_rows};
    use cassis_core::warehouse::Warehouse;
    let Ok(program) = std::env::var("CASSIS_TEST_FAKESNOW") else {
        assert!(
            std::env::var_os("CASSIS_TEST_FAKESNOW_REQUIRED").is_none(),
            "fakesnow is required"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fakesnow = Fakesnow::start(&program, dir.path());
    let warehouse = Warehouse::connect(&fakesnow.url("CASSIS_READER", "reader-s3cret", ""))
        .await
        .unwrap();
    // About a minute of work for fakesnow's DuckDB.
    let slow = "SELECT SUM(MOD(SEQ8() * 7, 13)) AS s FROM TABLE(GENERATOR(ROWCOUNT => 100000000))";
    let timeout = Duration::from_secs(2);
    let started = Instant::now();
    let outcome = all_rows(&warehouse, slow, timeout).await;
    assert!(
        matches!(outcome, Err(ExecuteError::Timeout(t)) if t == timeout),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Cassis told Snowflake to stop the statement, by its request id.
    let log = dir.path().join("fakesnow.log");
    let aborted = |text: &str| text.contains("POST /queries/v1/abort-request");
    let started = Instant::now();
    while !aborted(&std::fs::read_to_string(&log).unwrap()) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no abort-request reached fakesnow: {}",
            std::fs::read_to_string(&log).unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // fakesnow acknowledges the abort but cannot stop DuckDB, whose one
    // connection per session stays busy; Snowflake runs a session's
    // statements side by side. A new session answers at once.
    warehouse.close().await;
    let again = Warehouse::connect(&fakesnow.url("CASSIS_READER", "reader-s3cret", ""))
        .await
        .unwrap();
    let rows = all_rows(&again, "SELECT 42 AS answer", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(rows, vec![vec![json!(42)]]);
    again.close().await;
}
