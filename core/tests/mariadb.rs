//! MySQL/MariaDB as a data source, against a real MariaDB server when
//! `CASSIS_TEST_MARIADB_URL` names one whose user may create databases and
//! users (`scripts/test` starts one with `scripts/start-mariadb`). Each test
//! gets a fresh database. Without the variable the tests are skipped, unless
//! `CASSIS_TEST_MARIADB_REQUIRED` is set.

use cassis_core::engine::compile::CompiledQuery;
use cassis_core::engine::execute::{ExecuteError, all_rows, execute};
use cassis_core::project::Dialect;
use cassis_core::warehouse::{Warehouse, WarehouseError};
use serde_json::json;
use sqlparser::ast::{Expr, SelectItem, SetExpr, Value, visit_expressions_mut};
use sqlx::{AssertSqlSafe, Connection, MySqlConnection};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A fresh database on the test server: its name, the administrator's URL
/// to it, a URL to it for a user who may only SELECT from it (what the
/// README tells data teams to configure), and one for a user who may do
/// anything to it, and see no other database.
struct Fresh {
    name: String,
    admin_url: String,
    reader_url: String,
    writer_url: String,
}

impl Fresh {
    async fn admin(&self) -> MySqlConnection {
        MySqlConnection::connect(&self.admin_url).await.unwrap()
    }

    /// Runs each statement as the administrator.
    async fn run(&self, statements: &[&str]) {
        let mut admin = self.admin().await;
        for sql in statements {
            sqlx::raw_sql(AssertSqlSafe(sql.to_string()))
                .execute(&mut admin)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        admin.close().await.unwrap();
    }
}

async fn fresh() -> Option<Fresh> {
    let Ok(url) = std::env::var("CASSIS_TEST_MARIADB_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_MARIADB_REQUIRED").is_none(),
            "CASSIS_TEST_MARIADB_REQUIRED is set but CASSIS_TEST_MARIADB_URL is not"
        );
        eprintln!("CASSIS_TEST_MARIADB_URL is not set: skipping the MariaDB tests");
        return None;
    };
    let name = format!("cassis_w_{}", &Uuid::new_v4().simple().to_string()[..12]);
    let reader = format!("r_{}", &name[9..]);
    let writer = format!("w_{}", &name[9..]);
    let mut admin = MySqlConnection::connect(&url)
        .await
        .expect("CASSIS_TEST_MARIADB_URL is reachable");
    // Our own names (from a UUID), not input: safe to splice.
    for sql in [
        format!("CREATE DATABASE {name} DEFAULT CHARSET = utf8mb4"),
        format!("CREATE USER '{reader}'@'127.0.0.1' IDENTIFIED BY 'select-only'"),
        format!("GRANT SELECT ON {name}.* TO '{reader}'@'127.0.0.1'"),
        format!("CREATE USER '{writer}'@'127.0.0.1' IDENTIFIED BY 'may-write'"),
        format!("GRANT ALL PRIVILEGES ON {name}.* TO '{writer}'@'127.0.0.1'"),
    ] {
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
    }
    admin.close().await.unwrap();
    let (base, _) = url
        .rsplit_once('/')
        .expect("CASSIS_TEST_MARIADB_URL ends in /DATABASE");
    let port = base.rsplit_once(':').expect("the URL names a port").1;
    Some(Fresh {
        admin_url: format!("{base}/{name}"),
        reader_url: format!("mysql://{reader}:select-only@127.0.0.1:{port}/{name}"),
        writer_url: format!("mysql://{writer}:may-write@127.0.0.1:{port}/{name}"),
        name,
    })
}

/// `numbers(n, label)` with 1..=rows, and `squares(n, square)` whose `n`
/// refers to it.
async fn numbers(fresh: &Fresh, rows: u32) {
    fresh
        .run(&[
            "CREATE TABLE numbers (n BIGINT PRIMARY KEY, label VARCHAR(40) NOT NULL)",
            "CREATE TABLE squares (id BIGINT PRIMARY KEY, n BIGINT NOT NULL, square BIGINT, \
             FOREIGN KEY (n) REFERENCES numbers (n))",
        ])
        .await;
    let mut admin = fresh.admin().await;
    for n in 1..=rows {
        let label = if n % 2 == 0 { "even" } else { "odd" };
        sqlx::query("INSERT INTO numbers (n, label) VALUES (?, ?)")
            .bind(n)
            .bind(label)
            .execute(&mut admin)
            .await
            .unwrap();
    }
    sqlx::query("INSERT INTO squares (id, n, square) SELECT n, n, n * n FROM numbers")
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.unwrap();
}

/// A query as the engine runs it, from SQL in MySQL's dialect.
fn query(text: &str) -> CompiledQuery {
    let query = cassis_core::sql::parse_select(Dialect::MySql, text).unwrap();
    let columns = match query.body.as_ref() {
        SetExpr::Select(select) => select
            .projection
            .iter()
            .map(|item| match item {
                SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    CompiledQuery {
        sql: query.to_string(),
        query,
        columns,
        objects: vec!["numbers".into()],
    }
}

/// The one row of a count on `warehouse`, as JSON.
async fn counted(warehouse: &Warehouse, sql: &str) -> serde_json::Value {
    json!(
        all_rows(warehouse, sql, Duration::from_secs(10))
            .await
            .unwrap()
    )
}

/// The statements running on the server whose text contains `marker`.
async fn running(fresh: &Fresh, marker: &str) -> i64 {
    let mut admin = fresh.admin().await;
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM information_schema.processlist \
         WHERE info LIKE CONCAT('%', ?, '%') AND info NOT LIKE '%processlist%'",
    )
    .bind(marker)
    .fetch_one(&mut admin)
    .await
    .unwrap();
    admin.close().await.unwrap();
    count
}

/// Waits up to `within` for no statement containing `marker` to run
/// (prepared statements show as `Execute`, with their text).
async fn gone_within(fresh: &Fresh, marker: &str, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if running(fresh, marker).await == 0 {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A query that runs for minutes (a three-way cross join of 2,000 rows),
/// named after the fresh database so it can be told apart on the server.
fn endless(fresh: &Fresh) -> String {
    format!(
        "SELECT COUNT(*) AS endless_{} FROM numbers a, numbers b, numbers c \
         WHERE a.n + b.n + c.n > 0",
        fresh.name
    )
}

#[tokio::test]
async fn a_select_only_user_answers_with_the_caps_and_the_total() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 300).await;
    let warehouse = Warehouse::connect(&fresh.reader_url).await.unwrap();
    assert_eq!(warehouse.dialect(), Dialect::MySql);
    let result = execute(
        &warehouse,
        &query("SELECT n, label, n / 4 AS quarter FROM numbers ORDER BY n"),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    // The row cap with a count of every row, from one statement.
    assert_eq!(result.rows.len(), 100);
    assert_eq!(result.total_rows, 300);
    assert!(result.truncated);
    assert_eq!(json!(result.rows[0]), json!([1, "odd", 0.25]));
    assert_eq!(json!(result.rows[3]), json!([4, "even", 1]));
    let sums = execute(
        &warehouse,
        &query("SELECT label, SUM(n) AS total, COUNT(*) AS count FROM numbers GROUP BY label ORDER BY label"),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(
        json!(sums.rows),
        json!([["even", 22650, 150], ["odd", 22500, 150]])
    );
    assert!(!sums.truncated);
    warehouse.close().await;
}

#[tokio::test]
async fn the_session_refuses_writes_even_for_a_user_who_may_write() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 10).await;
    // The user may write: only the session stops these.
    let warehouse = Warehouse::connect(&fresh.writer_url).await.unwrap();
    for write in [
        "INSERT INTO numbers (n, label) VALUES (1000, 'written')",
        "UPDATE numbers SET label = 'written'",
        "DELETE FROM squares",
        "CREATE TABLE written (n INT)",
        "DROP TABLE squares",
    ] {
        let error = all_rows(&warehouse, write, Duration::from_secs(10))
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("READ ONLY transaction"),
            "{write}: {error}"
        );
    }
    assert_eq!(
        counted(
            &warehouse,
            "SELECT COUNT(*) FROM numbers WHERE label <> 'written'"
        )
        .await,
        json!([[10]])
    );
    assert_eq!(
        counted(&warehouse, "SELECT COUNT(*) FROM squares").await,
        json!([[10]])
    );
    warehouse.close().await;
}

#[tokio::test]
async fn a_query_past_the_question_timeout_is_cancelled_on_the_server() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 2000).await;
    let warehouse = Warehouse::connect(&fresh.reader_url).await.unwrap();
    let started = Instant::now();
    let marker = format!("endless_{}", fresh.name);
    let endless = query(&endless(&fresh));
    let run = execute(&warehouse, &endless, Duration::from_secs(2));
    let (outcome, seen) = tokio::join!(run, async {
        tokio::time::sleep(Duration::from_millis(1000)).await;
        running(&fresh, &marker).await
    });
    // It did run on the server (so its disappearance below means something).
    assert_eq!(seen, 1);
    let error = outcome.unwrap_err();
    assert!(matches!(error, ExecuteError::Timeout(_)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        gone_within(&fresh, &marker, Duration::from_secs(2)).await,
        "the statement still runs on the server"
    );
    // The pool is usable at once.
    assert_eq!(
        counted(&warehouse, "SELECT COUNT(*) FROM numbers").await,
        json!([[2000]])
    );
    warehouse.close().await;
}

#[tokio::test]
async fn a_question_abandoned_before_its_timeout_is_killed_on_the_server() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 2000).await;
    let warehouse = Warehouse::connect(&fresh.reader_url).await.unwrap();
    // The server would let it run for ten minutes; the caller leaves after one
    // second (a client that disconnects, or Cassis's own timer firing first).
    let marker = format!("endless_{}", fresh.name);
    let endless = endless(&fresh);
    let mut run = Box::pin(all_rows(&warehouse, &endless, Duration::from_secs(600)));
    assert!(
        tokio::time::timeout(Duration::from_secs(1), &mut run)
            .await
            .is_err()
    );
    // It does run on the server (so its disappearance below means something).
    assert_eq!(running(&fresh, &marker).await, 1);
    drop(run);
    assert!(
        gone_within(&fresh, &marker, Duration::from_secs(5)).await,
        "the abandoned statement still runs on the server"
    );
    warehouse.close().await;
}

#[tokio::test]
async fn text_values_run_as_checked_or_not_at_all() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 5).await;
    let mut admin = fresh.admin().await;
    for (n, label) in [(100, "O'Brien"), (101, r"back\slash")] {
        sqlx::query("INSERT INTO numbers (n, label) VALUES (?, ?)")
            .bind(n)
            .bind(label)
            .execute(&mut admin)
            .await
            .unwrap();
    }
    admin.close().await.unwrap();
    let warehouse = Warehouse::connect(&fresh.reader_url).await.unwrap();
    // The compiler puts a value a question names into the query's tree as a
    // string literal.
    let matching = |text: &str| {
        let mut compiled = query("SELECT n FROM numbers WHERE label = 'placeholder'");
        let _ = visit_expressions_mut(&mut compiled.query, |expr| {
            if let Expr::Value(value) = expr {
                value.value = Value::SingleQuotedString(text.to_owned());
            }
            ControlFlow::<()>::Continue(())
        });
        compiled.sql = compiled.query.to_string();
        compiled
    };
    let found = execute(&warehouse, &matching("O'Brien"), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(json!(found.rows), json!([[100]]));
    // Values MySQL would read otherwise than they were checked: one whose
    // quote would be taken as escaped (and the rest of the SQL as text), one
    // whose backslash would vanish. Refused, never run as something else.
    for value in [r"x\' OR 1=1 OR label = '", r"back\slash"] {
        let outcome = execute(&warehouse, &matching(value), Duration::from_secs(10)).await;
        assert!(
            matches!(outcome, Err(ExecuteError::Refused(_))),
            "{value}: {outcome:?}"
        );
    }
    warehouse.close().await;
}

#[tokio::test]
async fn the_catalog_has_tables_keys_and_known_values() {
    let Some(fresh) = fresh().await else { return };
    numbers(&fresh, 20).await;
    let catalog = Warehouse::read_catalog(&fresh.reader_url, None)
        .await
        .unwrap();
    let names: Vec<(Option<&str>, &str)> = catalog
        .tables
        .iter()
        .map(|t| (t.schema.as_deref(), t.name.as_str()))
        .collect();
    let schema = Some(fresh.name.as_str());
    assert_eq!(names, [(schema, "numbers"), (schema, "squares")]);
    let numbers = &catalog.tables[0];
    assert_eq!(numbers.primary_key, ["n"]);
    let label = numbers.columns.iter().find(|c| c.name == "label").unwrap();
    assert_eq!(label.sql_type, "varchar");
    assert_eq!(label.sample_values, ["even", "odd"]);
    let squares = &catalog.tables[1];
    assert_eq!(squares.primary_key, ["id"]);
    assert_eq!(squares.foreign_keys.len(), 1);
    let fk = &squares.foreign_keys[0];
    assert_eq!(fk.columns, ["n"]);
    assert_eq!(fk.referenced_table, "numbers");
    assert_eq!(fk.referenced_schema.as_deref(), schema);
    assert_eq!(fk.referenced_columns, ["n"]);
    // One database named: another one's tables stay out.
    let other = Warehouse::read_catalog(&fresh.writer_url, Some("no_such_database"))
        .await
        .unwrap();
    assert!(other.tables.is_empty());
}

#[tokio::test]
async fn a_cassis_metadata_database_is_refused() {
    let Some(fresh) = fresh().await else { return };
    fresh
        .run(&[
            "CREATE TABLE users (id INT)",
            "CREATE TABLE sessions (id INT)",
            "CREATE TABLE api_keys (id INT)",
        ])
        .await;
    let warehouse = Warehouse::connect(&fresh.reader_url).await.unwrap();
    warehouse.close().await;
    fresh
        .run(&["CREATE TABLE oauth_signing_keys (id INT)"])
        .await;
    let outcome = Warehouse::connect(&fresh.reader_url).await;
    assert!(
        matches!(outcome, Err(WarehouseError::MetadataDatabase)),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_url_without_a_user_or_with_a_wrong_password_is_refused() {
    let no_user = Warehouse::connect("mysql://127.0.0.1:1/db").await;
    assert!(
        matches!(no_user, Err(WarehouseError::NoUser(_))),
        "{no_user:?}"
    );
    let Some(fresh) = fresh().await else { return };
    let wrong = fresh.reader_url.replace("select-only", "not-the-password");
    let error = Warehouse::connect(&wrong).await.unwrap_err();
    assert!(matches!(error, WarehouseError::Connect(_)), "{error:?}");
    // The message names the source without its password.
    let message = error.to_string();
    assert!(
        message.starts_with("cannot connect to the data source"),
        "{message}"
    );
    assert!(!message.contains("not-the-password"), "{message}");
}
