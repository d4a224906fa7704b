//! Semi-additive metrics (account balances read from snapshots), compiled
//! by Cassis and run on SQLite and PostgreSQL, against SQL written by hand
//! for each engine: the closing balance overall, by month and by region
//! (through a join), its growth from one month to the next, the opening and
//! the average balance by month, and the balance per account at each
//! account's own last snapshot. PostgreSQL
//! runs when `CASSIS_TEST_PG_URL` names a server Cassis may create a
//! database on; skipped otherwise, unless `CASSIS_TEST_PG_REQUIRED` is set.

mod support;

use cassis_core::engine::compile::{CompileError, compile};
use cassis_core::engine::execute::all_rows;
use cassis_core::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use cassis_core::ontology::{self, Grain, Ontology};
use cassis_core::project::Dialect;
use cassis_core::warehouse::Warehouse;
use sqlx::{AssertSqlSafe, Connection, PgPool, SqliteConnection};
use std::time::Duration;
use support::assert_problems;

const ONTOLOGY: &str = r#"
objects:
  - name: account
    table: accounts
    primary_key: [account_id]
    attributes:
      - {name: account_id, type: text, role: identifier}
      - {name: region, type: text}
  - name: owner
    table: owners
    attributes:
      - {name: account, column: account_id, type: text}
      - {name: owner_name, column: owner, type: text}
  - name: snapshot
    table: balances
    primary_key: [account_id, snapshot_date]
    attributes:
      - {name: account, column: account_id, type: text}
      - {name: snapshot_date, type: date, role: time}
      - {name: balance, type: decimal, role: measure}
relationships:
  - {name: snapshot_account, from: snapshot, to: account, keys: [{from: account_id, to: account_id}]}
  - {name: owner_account, from: owner, to: account, keys: [{from: account_id, to: account_id}]}
metrics:
  - name: closing_balance
    object: snapshot
    aggregate: sum
    expr: balance
    semi_additive: {time: snapshot_date}
  - name: opening_balance
    object: snapshot
    aggregate: sum
    expr: balance
    semi_additive: {time: snapshot_date, take: first}
  - name: average_balance
    object: snapshot
    aggregate: sum
    expr: balance
    semi_additive: {time: snapshot_date, take: average}
  - name: latest_balance
    object: snapshot
    aggregate: sum
    expr: balance
    semi_additive: {time: snapshot_date, per: [account]}
  - {name: snapshot_count, object: snapshot, aggregate: count}
"#;

/// Three accounts' balances; B's last February snapshot is earlier than
/// the others', C has no snapshot early in January.
const ROWS: &[(&str, &str, i64)] = &[
    ("A", "2024-01-05", 100),
    ("A", "2024-01-31", 150),
    ("A", "2024-02-15", 170),
    ("A", "2024-02-29", 200),
    ("B", "2024-01-05", 50),
    ("B", "2024-01-31", 60),
    ("B", "2024-02-15", 80),
    ("C", "2024-01-31", 500),
    ("C", "2024-02-29", 400),
];

fn inserts() -> Vec<String> {
    let accounts = [("A", "North"), ("B", "North"), ("C", "South")]
        .iter()
        .map(|(id, region)| format!("INSERT INTO accounts VALUES ('{id}', '{region}')"));
    // A has two owners, C one, B none.
    let owners = [("A", "Ann"), ("A", "Bob"), ("C", "Ann")]
        .iter()
        .map(|(id, owner)| format!("INSERT INTO owners VALUES ('{id}', '{owner}')"));
    let balances = ROWS.iter().map(|(account, date, balance)| {
        format!("INSERT INTO balances VALUES ('{account}', '{date}', {balance})")
    });
    accounts.chain(owners).chain(balances).collect()
}

fn metric(name: &str) -> Measure {
    Measure::Metric {
        metric: name.into(),
        variant: None,
    }
}

fn by_month(name: &str) -> SemanticPlan {
    SemanticPlan {
        measures: vec![metric(name)],
        dimensions: vec![AttributeRef::new("snapshot", "snapshot_date").by(Grain::Month)],
        ..SemanticPlan::default()
    }
}

/// Each plan with the hand-written SQL for SQLite and for PostgreSQL
/// (`MONTH` stands for each engine's month of `d.snapshot_date`).
fn cases() -> Vec<(&'static str, SemanticPlan, String, String)> {
    let overall = SemanticPlan {
        measures: vec![metric("closing_balance")],
        ..SemanticPlan::default()
    };
    let by_region = SemanticPlan {
        measures: vec![metric("closing_balance")],
        dimensions: vec![AttributeRef::new("account", "region")],
        ..SemanticPlan::default()
    };
    let in_january = SemanticPlan {
        measures: vec![metric("closing_balance")],
        filters: vec![Filter {
            attribute: AttributeRef::new("snapshot", "snapshot_date").by(Grain::Month),
            condition: Condition::OneOf(vec![Literal::Text("2024-01".into())]),
        }],
        ..SemanticPlan::default()
    };
    let in_month = |month: &str| Filter {
        attribute: AttributeRef::new("snapshot", "snapshot_date").by(Grain::Month),
        condition: Condition::OneOf(vec![Literal::Text(month.into())]),
    };
    let growth = SemanticPlan {
        measures: vec![Measure::Growth {
            of: Box::new(metric("closing_balance")),
            period: Grain::Month,
            periods: 1,
        }],
        filters: vec![in_month("2024-02")],
        ..SemanticPlan::default()
    };
    // Through the accounts to their owners, each snapshot row reached once
    // per owner: counted once all the same.
    let owned = SemanticPlan {
        filters: vec![Filter {
            attribute: AttributeRef::new("owner", "owner_name"),
            condition: Condition::OneOf(vec![
                Literal::Text("Ann".into()),
                Literal::Text("Bob".into()),
            ]),
        }],
        ..by_month("closing_balance")
    };
    let both = |sql: &str| {
        [
            ("strftime('%Y-%m', {d})", "SQLITE"),
            ("TO_CHAR({d}, 'YYYY-MM')", "PG"),
        ]
        .map(|(month, _)| {
            let month_of = |alias: &str| month.replace("{d}", &format!("{alias}.snapshot_date"));
            sql.replace("MONTH(d)", &month_of("d"))
                .replace("MONTH(e)", &month_of("e"))
        })
    };
    let case = |what: &'static str, plan: SemanticPlan, sql: &str| {
        let [sqlite, pg] = both(sql);
        (what, plan, sqlite, pg)
    };
    vec![
        case(
            "the closing balance: the balances of the last snapshot date",
            overall,
            "SELECT SUM(balance) FROM balances d \
             WHERE d.snapshot_date = (SELECT MAX(snapshot_date) FROM balances)",
        ),
        case(
            "the closing balance by month",
            by_month("closing_balance"),
            "SELECT MONTH(d) AS m, SUM(d.balance) FROM balances d \
             WHERE d.snapshot_date = (SELECT MAX(e.snapshot_date) FROM balances e WHERE MONTH(e) = MONTH(d)) \
             GROUP BY 1 ORDER BY 1",
        ),
        case(
            "the closing balance in January",
            in_january,
            "SELECT SUM(balance) FROM balances d WHERE d.snapshot_date = \
             (SELECT MAX(e.snapshot_date) FROM balances e WHERE MONTH(e) = '2024-01')",
        ),
        case(
            "the closing balance by region, each region at its own last date",
            by_region,
            "SELECT a.region, SUM(d.balance) AS b FROM balances d JOIN accounts a ON a.account_id = d.account_id \
             WHERE d.snapshot_date = (SELECT MAX(e.snapshot_date) FROM balances e \
             JOIN accounts f ON f.account_id = e.account_id WHERE f.region = a.region) \
             GROUP BY a.region ORDER BY b DESC",
        ),
        case(
            "the closing balance's growth from January to February: each month's last snapshot",
            growth,
            "SELECT n, p, 100.0 * (n - p) / p FROM \
             (SELECT SUM(d.balance) AS n FROM balances d WHERE d.snapshot_date = \
              (SELECT MAX(e.snapshot_date) FROM balances e WHERE MONTH(e) = '2024-02')) AS a, \
             (SELECT SUM(d.balance) AS p FROM balances d WHERE d.snapshot_date = \
              (SELECT MAX(e.snapshot_date) FROM balances e WHERE MONTH(e) = '2024-01')) AS b",
        ),
        case(
            "the closing balance by month of the accounts Ann or Bob own, A counted once",
            owned,
            "SELECT MONTH(d) AS m, SUM(d.balance) FROM balances d \
             WHERE d.account_id IN (SELECT account_id FROM owners WHERE owner IN ('Ann', 'Bob')) \
             AND d.snapshot_date = (SELECT MAX(e.snapshot_date) FROM balances e \
             WHERE e.account_id IN (SELECT account_id FROM owners WHERE owner IN ('Ann', 'Bob')) \
             AND MONTH(e) = MONTH(d)) GROUP BY 1 ORDER BY 1",
        ),
        case(
            "the opening balance by month",
            by_month("opening_balance"),
            "SELECT MONTH(d) AS m, SUM(d.balance) FROM balances d \
             WHERE d.snapshot_date = (SELECT MIN(e.snapshot_date) FROM balances e WHERE MONTH(e) = MONTH(d)) \
             GROUP BY 1 ORDER BY 1",
        ),
        case(
            "the average balance by month: the mean of each snapshot date's total",
            by_month("average_balance"),
            "SELECT m, AVG(total) FROM (SELECT MONTH(d) AS m, d.snapshot_date, SUM(d.balance) AS total \
             FROM balances d GROUP BY 1, 2) AS t GROUP BY m ORDER BY m",
        ),
        case(
            "the balance by month, each account at its own last snapshot of the month",
            by_month("latest_balance"),
            "SELECT MONTH(d) AS m, SUM(d.balance) FROM balances d \
             WHERE d.snapshot_date = (SELECT MAX(e.snapshot_date) FROM balances e \
             WHERE e.account_id = d.account_id AND MONTH(e) = MONTH(d)) \
             GROUP BY 1 ORDER BY 1",
        ),
    ]
}

async fn check(warehouse: &Warehouse, ontology: &Ontology, dialect: Dialect, postgres: bool) {
    for (what, plan, sqlite, pg) in cases() {
        let hand = if postgres { pg } else { sqlite };
        support::assert_hand_written(warehouse, ontology, dialect, what, &plan, &hand).await;
    }
}

fn ontology() -> Ontology {
    let ontology = ontology::from_yaml(ONTOLOGY).unwrap();
    assert_eq!(ontology::validate(&ontology, Dialect::Sqlite), vec![]);
    ontology
}

async fn figures(warehouse: &Warehouse, plan: &SemanticPlan) -> Vec<Vec<String>> {
    let compiled = compile(&ontology(), plan, Dialect::Sqlite).unwrap();
    support::normal(
        all_rows(warehouse, &compiled.sql, Duration::from_secs(30))
            .await
            .unwrap(),
    )
}

const TABLES: &str = "CREATE TABLE accounts (account_id TEXT PRIMARY KEY, region TEXT); \
     CREATE TABLE owners (account_id TEXT, owner TEXT); \
     CREATE TABLE balances (account_id TEXT, snapshot_date DATE, balance NUMERIC(12, 2))";

#[tokio::test]
async fn semi_additive_metrics_give_the_hand_written_figures_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("cassis-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("balances.sqlite");
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}", path.display());
    let mut conn = SqliteConnection::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap();
    sqlx::raw_sql(TABLES).execute(&mut conn).await.unwrap();
    for insert in inserts() {
        sqlx::raw_sql(AssertSqlSafe(insert))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.unwrap();
    let warehouse = Warehouse::connect(&url).await.unwrap();
    check(&warehouse, &ontology(), Dialect::Sqlite, false).await;
    // The figures themselves, so the hand-written SQL is held to them too:
    // February closes at A 200 + C 400 (B's last snapshot is the 15th),
    // while each account's own last February balance adds B's 80.
    let month = |m: &str, v: &str| vec![m.to_owned(), v.to_owned()];
    assert_eq!(
        figures(&warehouse, &by_month("closing_balance")).await,
        [month("2024-01", "710.0000"), month("2024-02", "600.0000")]
    );
    assert_eq!(
        figures(&warehouse, &by_month("latest_balance")).await,
        [month("2024-01", "710.0000"), month("2024-02", "680.0000")]
    );
    assert_eq!(
        figures(&warehouse, &by_month("average_balance")).await,
        [month("2024-01", "430.0000"), month("2024-02", "425.0000")]
    );
    // Summed over time, the same rows would say 1710 for February.
    assert_eq!(
        figures(&warehouse, &by_month("snapshot_count")).await,
        [month("2024-01", "5.0000"), month("2024-02", "4.0000")]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn semi_additive_metrics_give_the_hand_written_figures_on_postgres() {
    let Some(database) = support::ScratchPostgres::create("cassis_levels").await else {
        return;
    };
    let url = database.url.clone();
    let pool = PgPool::connect(&url).await.unwrap();
    sqlx::raw_sql(TABLES).execute(&pool).await.unwrap();
    for insert in inserts() {
        sqlx::query(AssertSqlSafe(insert))
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;
    let warehouse = Warehouse::connect(&url).await.unwrap();
    check(&warehouse, &ontology(), Dialect::Postgres, true).await;
    drop(warehouse);
    database.remove().await;
}

#[test]
fn a_level_is_read_alone_and_never_added_up_over_time() {
    let ontology = ontology();
    let beside = SemanticPlan {
        measures: vec![metric("closing_balance"), metric("snapshot_count")],
        ..SemanticPlan::default()
    };
    assert_eq!(
        compile(&ontology, &beside, Dialect::Sqlite).unwrap_err(),
        CompileError::SemiAdditiveNotAlone("closing_balance".into())
    );
    let running = SemanticPlan {
        measures: vec![Measure::Cumulative {
            of: Box::new(metric("closing_balance")),
            to_date: None,
            window: None,
        }],
        ..by_month("closing_balance")
    };
    assert_eq!(
        compile(&ontology, &running, Dialect::Sqlite).unwrap_err(),
        CompileError::LevelRunningTotal("closing_balance".into())
    );
    // Every dialect reads the SQL back as written.
    for dialect in Dialect::ALL {
        for name in ["closing_balance", "average_balance", "latest_balance"] {
            let compiled = compile(&ontology, &by_month(name), dialect).unwrap();
            let reparsed = cassis_core::sql::parse_select(dialect, &compiled.sql)
                .unwrap_or_else(|e| panic!("{dialect:?}: {e}: {}", compiled.sql));
            assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
        }
    }
}

#[test]
fn semi_additive_fields_are_validated_by_field() {
    let yaml = r#"
objects:
  - name: snapshot
    table: balances
    attributes:
      - {name: account, type: text}
      - {name: snapshot_date, type: date, role: time}
      - {name: balance, type: decimal, role: measure}
metrics:
  - {name: no_time, object: snapshot, aggregate: sum, expr: balance, semi_additive: {time: ""}}
  - {name: unknown_time, object: snapshot, aggregate: sum, expr: balance, semi_additive: {time: taken_on}}
  - {name: not_time, object: snapshot, aggregate: sum, expr: balance, semi_additive: {time: account}}
  - {name: unknown_per, object: snapshot, aggregate: sum, expr: balance, semi_additive: {time: snapshot_date, per: [branch]}}
  - {name: average_per, object: snapshot, aggregate: avg, expr: balance, semi_additive: {time: snapshot_date, per: [account]}}
  - {name: closing, object: snapshot, aggregate: sum, expr: balance, semi_additive: {time: snapshot_date, take: first}}
  - {name: running, object: snapshot, type: cumulative, of: closing}
  - {name: growth, object: snapshot, type: growth, of: closing, period: month, semi_additive: {time: snapshot_date}}
"#;
    let parsed = ontology::from_yaml(yaml).unwrap();
    assert_problems(
        &parsed,
        &[
            "metrics.no_time.semi_additive.time: a semi-additive metric needs `time`",
            "metrics.unknown_time.semi_additive.time: the object `snapshot` has no attribute `taken_on`",
            "metrics.not_time.semi_additive.time: `account` is not a time attribute of `snapshot`",
            "metrics.unknown_per.semi_additive.per: the object `snapshot` has no attribute `branch`",
            "metrics.average_per.semi_additive: with `per`, each one's value is then added up across them, which `avg` values cannot be",
            "metrics.running.of: `closing` is a level read at one time (semi-additive)",
            "metrics.growth.semi_additive: only a metric that aggregates rows is semi-additive",
        ],
    );
    // Written back as read, `take: last` left out as the default.
    let written = ontology::to_yaml(&parsed);
    assert_eq!(ontology::from_yaml(&written).unwrap(), parsed);
    assert!(written.contains("take: first"), "{written}");
    assert!(!written.contains("take: last"), "{written}");
}
