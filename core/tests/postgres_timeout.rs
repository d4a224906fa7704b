//! A statement past the question timeout is stopped by PostgreSQL itself
//! (`statement_timeout`, set per read-only transaction), not only abandoned
//! by Cassis: the server stops spending time on it at once. Runs when
//! `CASSIS_TEST_PG_URL` names a PostgreSQL server Cassis may create a
//! database on; skipped otherwise, unless `CASSIS_TEST_PG_REQUIRED` is set.

use cassis_core::engine::execute::{ExecuteError, all_rows};
use cassis_core::warehouse::Warehouse;
use sqlx::{AssertSqlSafe, PgPool};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_statement_past_the_question_timeout_is_cancelled_on_postgres() {
    let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "PostgreSQL is required"
        );
        return;
    };
    // A database of its own: the server's default one may hold the store
    // tests' metadata tables, which Cassis refuses to answer from.
    let name = format!("cassis_timeout_{}", std::process::id());
    let admin = PgPool::connect(&admin_url).await.unwrap();
    sqlx::query(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .unwrap();
    let (server, _) = admin_url.rsplit_once('/').unwrap();
    let url = format!("{server}/{name}");
    let warehouse = Warehouse::connect(&url).await.unwrap();

    // Minutes of counting, marked so the server's activity list finds it.
    let slow = "SELECT COUNT(*) AS cassis_runaway FROM generate_series(1, 5000000000) AS g";
    let timeout = Duration::from_secs(1);
    let started = Instant::now();
    let outcome = all_rows(&warehouse, slow, timeout).await;
    assert!(
        matches!(outcome, Err(ExecuteError::Timeout(t)) if t == timeout),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    // No backend still runs it: Cassis may stop waiting a moment before the
    // server's own limit, which ends it at the same deadline.
    let started = Instant::now();
    loop {
        let running: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' \
             AND query LIKE '%cassis_runaway%' AND pid <> pg_backend_pid()",
        )
        .fetch_one(&admin)
        .await
        .unwrap();
        if running == 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the statement still runs on the server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The connection is free for the next question.
    let rows = all_rows(&warehouse, "SELECT 42 AS answer", Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(rows, vec![vec![serde_json::json!(42)]]);
    warehouse.close().await;
    sqlx::query(AssertSqlSafe(format!("DROP DATABASE {name} WITH (FORCE)")))
        .execute(&admin)
        .await
        .unwrap();
}
