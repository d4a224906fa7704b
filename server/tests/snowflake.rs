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

use common::mcp::answers_the_seed_questions;
use common::warehouse::{
    admin_session, create_from_the_form, draft_yaml, first_admin, introspected_project,
    listed_project, test_connection,
};
use common::{ADMIN_EMAIL, Server, cassis, f1_data, ok, publish, stderr};
use reqwest::StatusCode;
use std::collections::HashSet;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The fakesnow program `scripts/test` names; `None` skips the test,
/// unless the run requires fakesnow.
fn fakesnow_program() -> Option<String> {
    let program = std::env::var("CASSIS_TEST_FAKESNOW").ok();
    assert!(
        program.is_some() || std::env::var_os("CASSIS_TEST_FAKESNOW_REQUIRED").is_none(),
        "fakesnow is required"
    );
    program
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
    let Some(program) = fakesnow_program() else {
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
    let key: String = include_str!("../../core/src/warehouse/test_key.p8")
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<String>()
        .replace('+', "-")
        .replace('/', "_");
    let reader_url = fakesnow.url("CASSIS_READER", &key, "&authenticator=snowflake_jwt");

    let data = dir.path().join("data");
    first_admin(&data);
    let (project, bootstrapped) = introspected_project(&data, "F1 on Snowflake", &reader_url);
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
    let draft = draft_yaml(&data, "F1 on Snowflake");
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
    let out = publish(&data, "F1 on Snowflake", &file, &[]);
    assert!(out.contains("published version 1"), "{out}");

    let api_key = common::api_key(cassis(&data), ADMIN_EMAIL, "agent", &[]);
    let server = Server::start(&data, |_| {});

    // The admin app's project form connects to it too, with a password.
    let cookie = admin_session(&server).await;
    let password_url = fakesnow.url("CASSIS_READER", "reader-s3cret", "");
    let (status, report) = test_connection(&server, &cookie, &password_url).await;
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
        let (status, refused) = test_connection(&server, &cookie, &url).await;
        assert_ne!(status, StatusCode::OK, "{refused}");
        assert!(refused.contains(expected), "{refused}");
        assert!(!refused.contains("not-a-key"), "{refused}");
    }
    create_from_the_form(&server, &cookie, &password_url).await;

    let (listed, projects) = listed_project(&server, &api_key, &project).await;
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
    use cassis_core::warehouse::Warehouse;
    use common::warehouse::{answers_at_once, times_out, within_ten_seconds};
    let Some(program) = fakesnow_program() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fakesnow = Fakesnow::start(&program, dir.path());
    let warehouse = Warehouse::connect(&fakesnow.url("CASSIS_READER", "reader-s3cret", ""))
        .await
        .unwrap();
    // About a minute of work for fakesnow's DuckDB.
    let slow = "SELECT SUM(MOD(SEQ8() * 7, 13)) AS s FROM TABLE(GENERATOR(ROWCOUNT => 100000000))";
    times_out(
        &warehouse,
        slow,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .await;
    // Cassis told Snowflake to stop the statement, by its request id.
    let log = dir.path().join("fakesnow.log");
    let log = || std::fs::read_to_string(&log).unwrap();
    within_ten_seconds(
        || log().contains("POST /queries/v1/abort-request"),
        || format!("no abort-request reached fakesnow: {}", log()),
    )
    .await;
    // fakesnow acknowledges the abort but cannot stop DuckDB, whose one
    // connection per session stays busy; Snowflake runs a session's
    // statements side by side. A new session answers at once.
    warehouse.close().await;
    let again = Warehouse::connect(&fakesnow.url("CASSIS_READER", "reader-s3cret", ""))
        .await
        .unwrap();
    answers_at_once(&again).await;
    again.close().await;
}
