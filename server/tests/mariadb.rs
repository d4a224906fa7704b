//! The Formula 1 setup on MariaDB, as a data team follows it: load the CSV
//! exports with `cassis warehouse load-csv`, create a project on a user who
//! may only SELECT, import the F1 ontology, and ask the product pages' three
//! example questions through MCP. Runs when `CASSIS_TEST_MARIADB_URL` names a
//! server whose user may create databases and users (`scripts/test` starts
//! one); skipped otherwise, unless `CASSIS_TEST_MARIADB_REQUIRED` is set.

mod common;

use common::mcp::answers_the_seed_questions;
use common::warehouse::{
    admin_session, create_from_the_form, draft_yaml, first_admin, introspected_project,
    listed_project, test_connection,
};
use common::{ADMIN_EMAIL, Server, cassis, f1_data, ok, publish, stderr};
use reqwest::StatusCode;
use sqlx::{AssertSqlSafe, Connection, MySqlConnection};
use std::path::Path;

/// A fresh database and a user who may only read it: the administrator's
/// URL to it (to load it) and the reader's (to connect the project with).
async fn fresh_database(admin_url: &str, name: &str) -> (String, String) {
    let mut admin = MySqlConnection::connect(admin_url)
        .await
        .expect("CASSIS_TEST_MARIADB_URL is reachable");
    // Our own names, not input: safe to splice.
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
        format!("DROP USER IF EXISTS '{name}'@'127.0.0.1'"),
        format!("CREATE USER '{name}'@'127.0.0.1' IDENTIFIED BY 'reader-s3cret'"),
        format!("GRANT SELECT ON {name}.* TO '{name}'@'127.0.0.1'"),
    ] {
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
    }
    admin.close().await.unwrap();
    let (base, _) = admin_url.rsplit_once('/').unwrap();
    let port = base.rsplit_once(':').unwrap().1;
    (
        format!("{base}/{name}"),
        format!("mysql://{name}:reader-s3cret@127.0.0.1:{port}/{name}"),
    )
}

#[tokio::test]
async fn formula_one_on_mariadb_answers_the_seed_questions_over_mcp() {
    let Ok(admin_url) = std::env::var("CASSIS_TEST_MARIADB_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_MARIADB_REQUIRED").is_none(),
            "MariaDB is required"
        );
        return;
    };
    let database = format!("cassis_f1_{}", std::process::id());
    let (loader_url, reader_url) = fresh_database(&admin_url, &database).await;
    let dir = tempfile::tempdir().unwrap();

    let load_csv = || {
        cassis(&dir.path().join("unused"))
            .args(["warehouse", "load-csv", "--warehouse", &loader_url])
            .args(["--snake-case", "--dir"])
            .arg(f1_data())
            .output()
            .unwrap()
    };
    let (out, progress) = ok(load_csv());
    assert_eq!(out, "loaded 13 tables, 114903 rows\n", "{progress}");
    assert!(
        progress.contains(
            "loaded results.csv into results: 27178 rows, 18 columns, primary key result_id"
        ),
        "{progress}"
    );
    assert!(!progress.contains("cassis-test"), "{progress}");
    // Tables hold any name, whatever the server's default character set
    // (latin1 on this one).
    let mut admin = MySqlConnection::connect(&loader_url).await.unwrap();
    let collation: String = sqlx::query_scalar(
        "SELECT table_collation FROM information_schema.tables \
         WHERE table_schema = DATABASE() AND table_name = 'drivers'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    admin.close().await.unwrap();
    assert!(collation.starts_with("utf8mb4"), "{collation}");
    // Loading again without --replace refuses rather than duplicating rows.
    let again = load_csv();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists: pass --replace"),
        "{}",
        stderr(&again)
    );

    let data = dir.path().join("data");
    first_admin(&data);
    let (project, bootstrapped) = introspected_project(&data, "F1 on MariaDB", &reader_url);
    assert_eq!(project.len(), 36);
    assert!(
        bootstrapped.contains("bootstrapped the draft: 13 objects"),
        "{bootstrapped}"
    );
    // The password never comes back: not in logs, not in listings.
    assert!(!bootstrapped.contains("reader-s3cret"), "{bootstrapped}");
    let (listed, _) = ok(cassis(&data).args(["project", "list"]).output().unwrap());
    assert!(listed.contains("mysql (connected)"), "{listed}");
    assert!(!listed.contains("reader-s3cret"), "{listed}");
    let draft = draft_yaml(&data, "F1 on MariaDB");
    assert!(
        draft.contains(&format!("table: {database}.results")),
        "tables are named with their database: {draft}"
    );
    assert!(
        draft.contains("known_values"),
        "low-cardinality text columns are sampled: {draft}"
    );

    // The F1 ontology names PostgreSQL's schema; here the tables are in the
    // fresh database.
    let ontology = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml"),
    )
    .unwrap()
    .replace("table: public.", &format!("table: {database}."));
    let file = dir.path().join("f1-mariadb.yaml");
    std::fs::write(&file, ontology).unwrap();
    let out = publish(&data, "F1 on MariaDB", &file, &[]);
    assert!(out.contains("published version 1"), "{out}");

    let key = common::api_key(cassis(&data), ADMIN_EMAIL, "agent", &[]);
    let server = Server::start(&data, |_| {});

    // The admin app's project form connects to it too.
    let cookie = admin_session(&server).await;
    let (status, report) = test_connection(&server, &cookie, &reader_url).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(
        report.contains("mysql") && report.contains(&format!("{database}.results")),
        "{report}"
    );
    let wrong = reader_url.replace("reader-s3cret", "not-the-password");
    let (status, refused) = test_connection(&server, &cookie, &wrong).await;
    assert_ne!(status, StatusCode::OK);
    assert!(
        refused.contains("cannot connect to the data source"),
        "{refused}"
    );
    assert!(!refused.contains("not-the-password"), "{refused}");
    create_from_the_form(&server, &cookie, &reader_url).await;

    let (listed, projects) = listed_project(&server, &key, &project).await;
    assert_eq!(listed["dialect"], "mysql");
    assert_eq!(listed["data_source_connected"], true);
    assert!(!projects.to_string().contains("reader-s3cret"));

    let tables = ["results", "drivers", "races"].map(|t| format!("{database}.{t}"));
    answers_the_seed_questions(
        &server,
        &key,
        &project,
        tables.each_ref().map(String::as_str),
    )
    .await;
}
