//! What several test files of core share.

use cassis_core::engine::compile::compile;
use cassis_core::engine::execute::all_rows;
use cassis_core::engine::plan::SemanticPlan;
use cassis_core::ontology::{self, Ontology};
use cassis_core::project::Dialect;
use cassis_core::warehouse::Warehouse;
use serde_json::Value;
use sqlx::{AssertSqlSafe, PgPool};
use std::time::Duration;

/// Asserts that validating `ontology` (for PostgreSQL) reports exactly the
/// `expected` problems: each begins one reported problem, and none is left
/// over. A problem is matched by its start, so a test names the path and
/// the gist without repeating every word of the message.
#[allow(dead_code)] // not every test file validates
pub fn assert_problems(ontology: &Ontology, expected: &[&str]) {
    let problems: Vec<String> = ontology::validate(ontology, Dialect::Postgres)
        .iter()
        .map(ToString::to_string)
        .collect();
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "missing `{want}` in:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expected.len(), "{}", problems.join("\n"));
}

/// A new, empty PostgreSQL database for one test, on the server
/// `CASSIS_TEST_PG_URL` names. A database of its own: the server's default
/// one may hold the store tests' metadata tables, which Cassis refuses to
/// answer from.
#[allow(dead_code)] // not every test file needs PostgreSQL
pub struct ScratchPostgres {
    pub url: String,
    name: String,
    admin: PgPool,
}

#[allow(dead_code)]
impl ScratchPostgres {
    /// Named `prefix` plus this process's id; `None` when no server is
    /// named (a failure instead when `CASSIS_TEST_PG_REQUIRED` is set).
    pub async fn create(prefix: &str) -> Option<Self> {
        let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
            assert!(
                std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
                "PostgreSQL is required"
            );
            return None;
        };
        let name = format!("{prefix}_{}", std::process::id());
        let admin = PgPool::connect(&admin_url).await.unwrap();
        for statement in [
            format!("DROP DATABASE IF EXISTS {name}"),
            format!("CREATE DATABASE {name}"),
        ] {
            sqlx::query(AssertSqlSafe(statement))
                .execute(&admin)
                .await
                .unwrap();
        }
        let (server, _) = admin_url.rsplit_once('/').unwrap();
        Some(Self {
            url: format!("{server}/{name}"),
            name,
            admin,
        })
    }

    /// Drops the database, whoever is still connected.
    pub async fn remove(self) {
        let _ = sqlx::query(AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&self.admin)
        .await;
    }
}

/// Rows as text, numbers to four decimals (a number held as text too, but
/// not a date), so an engine's integer, float and NUMERIC read alike.
#[allow(dead_code)] // not every test file compares rows
pub fn normal(rows: Vec<Vec<Value>>) -> Vec<Vec<String>> {
    rows.into_iter()
        .map(|row| {
            row.into_iter()
                .map(|v| match v {
                    Value::Number(n) => format!("{:.4}", n.as_f64().unwrap()),
                    Value::String(s) => match s.parse::<f64>() {
                        Ok(x) if !s.contains('-') || s.starts_with('-') => format!("{x:.4}"),
                        _ => s,
                    },
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

/// Asserts that `plan`, compiled for `dialect` and run on `warehouse`,
/// gives the rows of the SQL written by hand (`what` names the case), and
/// that there are some.
#[allow(dead_code)] // not every test file runs plans
pub async fn assert_hand_written(
    warehouse: &Warehouse,
    ontology: &Ontology,
    dialect: Dialect,
    what: &str,
    plan: &SemanticPlan,
    hand: &str,
) {
    let timeout = Duration::from_secs(30);
    let compiled = compile(ontology, plan, dialect).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = all_rows(warehouse, &compiled.sql, timeout)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}\n{}", compiled.sql));
    let want = all_rows(warehouse, hand, timeout)
        .await
        .unwrap_or_else(|e| panic!("{what} (by hand): {e}\n{hand}"));
    assert!(!want.is_empty(), "{what}");
    assert_eq!(
        normal(got),
        normal(want),
        "{what} on {dialect:?}:\n{}",
        compiled.sql
    );
}
