//! Named filters and fiscal years, compiled by Cassis and run on SQLite and
//! PostgreSQL, against SQL written by hand for each engine: the urgent
//! orders of fiscal 1996 (a July start), revenue by fiscal year, a metric
//! whose filter names the named filter, fiscal year to date by month, and
//! growth of one fiscal year over the one before. PostgreSQL runs when
//! `CASSIS_TEST_PG_URL` names a server Cassis may create a database on;
//! skipped otherwise, unless `CASSIS_TEST_PG_REQUIRED` is set.

mod support;

use cassis_core::engine::compile::compile;
use cassis_core::engine::execute::all_rows;
use cassis_core::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use cassis_core::ontology::{self, Grain, Ontology};
use cassis_core::project::Dialect;
use cassis_core::warehouse::Warehouse;
use serde_json::Value;
use sqlx::{AssertSqlSafe, Connection, PgPool, SqliteConnection};
use std::time::Duration;
use support::assert_problems;

const ONTOLOGY: &str = r#"
fiscal_year_start: july
objects:
  - name: order
    table: orders
    primary_key: [o_orderkey]
    attributes:
      - {name: order_key, column: o_orderkey, type: integer, role: identifier}
      - {name: order_date, column: o_orderdate, type: date, role: time}
      - {name: order_priority, column: o_orderpriority, type: text}
      - {name: total_price, column: o_totalprice, type: decimal, role: measure}
    filters:
      - name: urgent_orders
        expr: o_orderpriority = '1-URGENT'
        label: Urgent orders
metrics:
  - {name: order_count, object: order, aggregate: count}
  - {name: revenue, object: order, aggregate: sum, expr: o_totalprice}
  - {name: urgent_revenue, object: order, aggregate: sum, expr: o_totalprice, filters: [urgent_orders]}
"#;

/// Eight orders either side of the July starts of fiscal 1996 and 1997.
const ROWS: &[(i64, &str, &str, i64)] = &[
    (1, "1995-03-10", "1-URGENT", 100),
    (2, "1995-06-30", "2-HIGH", 200),
    (3, "1995-07-01", "1-URGENT", 300),
    (4, "1995-12-31", "3-MEDIUM", 400),
    (5, "1996-01-15", "1-URGENT", 500),
    (6, "1996-06-30", "1-URGENT", 600),
    (7, "1996-07-01", "2-HIGH", 700),
    (8, "1997-02-20", "1-URGENT", 800),
];

fn inserts() -> Vec<String> {
    ROWS.iter()
        .map(|(key, date, priority, price)| {
            format!("INSERT INTO orders VALUES ({key}, '{date}', '{priority}', {price})")
        })
        .collect()
}

fn metric(name: &str) -> Measure {
    Measure::Metric {
        metric: name.into(),
        variant: None,
    }
}

fn order_date() -> AttributeRef {
    AttributeRef::new("order", "order_date")
}

fn fiscal(year: i64) -> Filter {
    Filter {
        attribute: order_date().by(Grain::FiscalYear),
        condition: Condition::OneOf(vec![Literal::Integer(year)]),
    }
}

/// Each plan with the hand-written SQL for SQLite and for PostgreSQL.
fn cases() -> Vec<(&'static str, SemanticPlan, &'static str, &'static str)> {
    let urgent_in_1996 = SemanticPlan {
        measures: vec![metric("order_count")],
        filters: vec![Filter::named("order", "urgent_orders"), fiscal(1996)],
        ..SemanticPlan::default()
    };
    let not_urgent_in_1996 = SemanticPlan {
        measures: vec![metric("order_count")],
        filters: vec![Filter::not_named("order", "urgent_orders"), fiscal(1996)],
        ..SemanticPlan::default()
    };
    let by_fiscal_year = |m: &str| SemanticPlan {
        measures: vec![metric(m)],
        dimensions: vec![order_date().by(Grain::FiscalYear)],
        ..SemanticPlan::default()
    };
    let year_to_date = SemanticPlan {
        measures: vec![Measure::Cumulative {
            of: Box::new(metric("revenue")),
            to_date: Some(Grain::FiscalYear),
            window: None,
        }],
        dimensions: vec![order_date().by(Grain::Month)],
        filters: vec![fiscal(1996)],
        ..SemanticPlan::default()
    };
    let growth = SemanticPlan {
        measures: vec![Measure::Growth {
            of: Box::new(metric("revenue")),
            period: Grain::FiscalYear,
            periods: 1,
        }],
        filters: vec![fiscal(1997)],
        ..SemanticPlan::default()
    };
    let rolling = SemanticPlan {
        measures: vec![Measure::Cumulative {
            of: Box::new(metric("revenue")),
            to_date: None,
            window: Some(6),
        }],
        dimensions: vec![order_date().by(Grain::Month)],
        filters: vec![Filter {
            attribute: order_date(),
            condition: Condition::OneOf(vec![Literal::Integer(1996)]),
        }],
        ..SemanticPlan::default()
    };
    const SQLITE_FY: &str = "(CAST(strftime('%Y', o_orderdate) AS INTEGER) + (CAST(strftime('%m', o_orderdate) AS INTEGER) >= 7))";
    const PG_FY: &str = "(CAST(EXTRACT(YEAR FROM o_orderdate) AS INTEGER) + CASE WHEN EXTRACT(MONTH FROM o_orderdate) >= 7 THEN 1 ELSE 0 END)";
    // The literal SQL per engine, with the fiscal year spelled out by hand.
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    vec![
        (
            "urgent orders in fiscal 1996",
            urgent_in_1996,
            "SELECT COUNT(*) FROM orders WHERE o_orderpriority = '1-URGENT' \
             AND o_orderdate >= '1995-07-01' AND o_orderdate < '1996-07-01'",
            "SELECT COUNT(*) FROM orders WHERE o_orderpriority = '1-URGENT' \
             AND o_orderdate >= DATE '1995-07-01' AND o_orderdate < DATE '1996-07-01'",
        ),
        (
            "orders that are not urgent in fiscal 1996",
            not_urgent_in_1996,
            "SELECT COUNT(*) FROM orders WHERE o_orderpriority <> '1-URGENT' \
             AND o_orderdate >= '1995-07-01' AND o_orderdate < '1996-07-01'",
            "SELECT COUNT(*) FROM orders WHERE o_orderpriority <> '1-URGENT' \
             AND o_orderdate >= DATE '1995-07-01' AND o_orderdate < DATE '1996-07-01'",
        ),
        (
            "revenue by fiscal year",
            by_fiscal_year("revenue"),
            leak(format!(
                "SELECT {SQLITE_FY} AS fy, SUM(o_totalprice) FROM orders GROUP BY fy ORDER BY fy"
            )),
            leak(format!(
                "SELECT {PG_FY} AS fy, SUM(o_totalprice) FROM orders GROUP BY 1 ORDER BY 1"
            )),
        ),
        (
            "urgent revenue (a metric filtered by the named filter) by fiscal year",
            by_fiscal_year("urgent_revenue"),
            leak(format!(
                "SELECT {SQLITE_FY} AS fy, SUM(CASE WHEN o_orderpriority = '1-URGENT' THEN o_totalprice END) \
                 FROM orders GROUP BY fy ORDER BY fy"
            )),
            leak(format!(
                "SELECT {PG_FY} AS fy, SUM(CASE WHEN o_orderpriority = '1-URGENT' THEN o_totalprice END) \
                 FROM orders GROUP BY 1 ORDER BY 1"
            )),
        ),
        (
            "fiscal year to date revenue by month in fiscal 1996",
            year_to_date,
            "SELECT m, r, SUM(r) OVER (ORDER BY m) FROM (SELECT strftime('%Y-%m', o_orderdate) AS m, \
             SUM(o_totalprice) AS r FROM orders WHERE o_orderdate BETWEEN '1995-07-01' AND '1996-06-30' \
             GROUP BY m) ORDER BY m",
            "SELECT m, r, SUM(r) OVER (ORDER BY m) FROM (SELECT TO_CHAR(o_orderdate, 'YYYY-MM') AS m, \
             SUM(o_totalprice) AS r FROM orders WHERE o_orderdate BETWEEN '1995-07-01' AND '1996-06-30' \
             GROUP BY m) AS t ORDER BY m",
        ),
        (
            "revenue growth in fiscal 1997 over fiscal 1996",
            growth,
            "SELECT n, p, 100.0 * (n - p) / p FROM \
             (SELECT SUM(o_totalprice) AS n FROM orders WHERE o_orderdate BETWEEN '1996-07-01' AND '1997-06-30'), \
             (SELECT SUM(o_totalprice) AS p FROM orders WHERE o_orderdate BETWEEN '1995-07-01' AND '1996-06-30')",
            "SELECT n, p, 100.0 * (n - p) / p FROM \
             (SELECT SUM(o_totalprice) AS n FROM orders WHERE o_orderdate BETWEEN '1996-07-01' AND '1997-06-30') AS a, \
             (SELECT SUM(o_totalprice) AS p FROM orders WHERE o_orderdate BETWEEN '1995-07-01' AND '1996-06-30') AS b",
        ),
        (
            "rolling 6-month revenue by month in 1996, reaching back into 1995",
            rolling,
            "SELECT m, SUM(o_totalprice), (SELECT SUM(b.o_totalprice) FROM orders b \
             WHERE (CAST(strftime('%Y', b.o_orderdate) AS INTEGER) * 12 + CAST(strftime('%m', b.o_orderdate) AS INTEGER)) \
             BETWEEN (CAST(substr(m, 1, 4) AS INTEGER) * 12 + CAST(substr(m, 6, 2) AS INTEGER)) - 5 \
             AND (CAST(substr(m, 1, 4) AS INTEGER) * 12 + CAST(substr(m, 6, 2) AS INTEGER))) \
             FROM (SELECT strftime('%Y-%m', o_orderdate) AS m, o_totalprice FROM orders \
             WHERE o_orderdate >= '1996-01-01' AND o_orderdate < '1997-01-01') GROUP BY m ORDER BY m",
            "SELECT m, SUM(o_totalprice), (SELECT SUM(b.o_totalprice) FROM orders b \
             WHERE (EXTRACT(YEAR FROM b.o_orderdate) * 12 + EXTRACT(MONTH FROM b.o_orderdate)) \
             BETWEEN (CAST(substr(m, 1, 4) AS INTEGER) * 12 + CAST(substr(m, 6, 2) AS INTEGER)) - 5 \
             AND (CAST(substr(m, 1, 4) AS INTEGER) * 12 + CAST(substr(m, 6, 2) AS INTEGER))) \
             FROM (SELECT TO_CHAR(o_orderdate, 'YYYY-MM') AS m, o_totalprice FROM orders \
             WHERE o_orderdate >= '1996-01-01' AND o_orderdate < '1997-01-01') AS t GROUP BY m ORDER BY m",
        ),
    ]
}

async fn check(warehouse: &Warehouse, ontology: &Ontology, dialect: Dialect, postgres: bool) {
    for (what, plan, sqlite, pg) in cases() {
        let hand = if postgres { pg } else { sqlite };
        support::assert_hand_written(warehouse, ontology, dialect, what, &plan, hand).await;
    }
}

fn ontology() -> Ontology {
    let ontology = ontology::from_yaml(ONTOLOGY).unwrap();
    assert_eq!(ontology::validate(&ontology, Dialect::Sqlite), vec![]);
    ontology
}

/// A fresh SQLite file of the orders in [`inserts`], connected as a
/// warehouse, and the folder of its own it lies in (`cassis-{name}-PID`),
/// for the test to remove.
async fn orders_on_sqlite(name: &str) -> (Warehouse, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("cassis-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("orders.sqlite");
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}", path.display());
    let mut conn = SqliteConnection::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap();
    sqlx::raw_sql(
        "CREATE TABLE orders (o_orderkey INTEGER PRIMARY KEY, o_orderdate TEXT, \
         o_orderpriority TEXT, o_totalprice REAL)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    for insert in inserts() {
        sqlx::raw_sql(AssertSqlSafe(insert))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.unwrap();
    (Warehouse::connect(&url).await.unwrap(), dir)
}

#[tokio::test]
async fn named_filters_and_fiscal_years_give_the_hand_written_figures_on_sqlite() {
    let (warehouse, dir) = orders_on_sqlite("fiscal").await;
    check(&warehouse, &ontology(), Dialect::Sqlite, false).await;
    // The figures themselves, so both engines are held to the same ones.
    let compiled = compile(&ontology(), &cases()[0].1, Dialect::Sqlite).unwrap();
    let rows = all_rows(&warehouse, &compiled.sql, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(rows, vec![vec![Value::from(3)]]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn named_filters_and_fiscal_years_give_the_hand_written_figures_on_postgres() {
    let Some(database) = support::ScratchPostgres::create("cassis_fiscal").await else {
        return;
    };
    let url = database.url.clone();
    let pool = PgPool::connect(&url).await.unwrap();
    sqlx::query(
        "CREATE TABLE orders (o_orderkey INTEGER PRIMARY KEY, o_orderdate DATE, \
         o_orderpriority TEXT, o_totalprice NUMERIC(12, 2))",
    )
    .execute(&pool)
    .await
    .unwrap();
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
fn named_filters_and_ratio_sides_are_validated_by_field() {
    let yaml = r#"
fiscal_year_start: october
objects:
  - name: sale
    table: sales
    attributes:
      - {name: id, type: integer, role: identifier}
      - {name: amount, type: decimal, role: measure}
      - {name: sold_on, type: date, role: time}
    filters:
      - {name: big, expr: amount > 100}
      - {name: big, expr: amount > 1000}
      - {name: amount, expr: amount > 0}
      - {name: broken, expr: "amount >"}
metrics:
  - {name: revenue, object: sale, aggregate: sum, expr: amount}
  - {name: sales, object: sale, aggregate: count}
  - {name: growth, object: sale, type: growth, of: revenue, period: year}
  - {name: running, object: sale, type: cumulative, of: revenue}
  - {name: net, object: sale, type: derived, expr: revenue - sales}
  - {name: growth_per_sale, object: sale, type: ratio, numerator: growth, denominator: sales}
  - {name: running_per_sale, object: sale, type: ratio, numerator: running, denominator: sales}
  - {name: sales_per_net, object: sale, type: ratio, numerator: sales, denominator: net}
  - {name: rolling, object: sale, type: cumulative, of: revenue, window: 3}
  - {name: bad_window, object: sale, type: cumulative, of: revenue, window: 1, to_date: year}
  - {name: growth_window, object: sale, type: growth, of: revenue, period: year, window: 3}
"#;
    let parsed = ontology::from_yaml(yaml).unwrap();
    assert_problems(
        &parsed,
        &[
            "objects.sale.filters.big: two filters are named `big`",
            "objects.sale.filters.amount.name: `amount` is also a column or attribute of `sale`",
            "objects.sale.filters.broken.expr: the SQL expression `amount >`",
            "metrics.growth_per_sale.numerator: `growth` is computed from other metrics (a growth)",
            "metrics.running_per_sale.numerator: `running` is computed from other metrics (a running total)",
            "metrics.sales_per_net.denominator: `net` is computed from other metrics (a derived metric)",
            "metrics.bad_window.window: a rolling window spans at least 2 periods",
            "metrics.bad_window.window: a running total either rolls over a `window` or starts again at `to_date`",
            "metrics.growth_window.window: a growth takes no `window`",
        ],
    );
    // Written back as read, and the diff names a new fiscal year start.
    assert_eq!(
        ontology::from_yaml(&ontology::to_yaml(&parsed)).unwrap(),
        parsed
    );
    let mut calendar = parsed.clone();
    calendar.fiscal_year_start = None;
    let changes: Vec<String> = ontology::diff(&calendar, &parsed)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(changes, ["+ setting fiscal_year_start"]);
}

#[test]
fn a_plan_naming_a_filter_the_object_lacks_is_refused_with_the_closest() {
    let plan = SemanticPlan {
        measures: vec![metric("order_count")],
        filters: vec![Filter::named("order", "urgent_order")],
        ..SemanticPlan::default()
    };
    let error = compile(&ontology(), &plan, Dialect::Sqlite).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the object `order` has no named filter `urgent_order`"
    );
}

#[test]
fn fiscal_years_read_back_in_every_dialect() {
    for dialect in Dialect::ALL {
        for (_, plan, _, _) in cases() {
            let compiled = compile(&ontology(), &plan, dialect).unwrap();
            let reparsed = cassis_core::sql::parse_select(dialect, &compiled.sql)
                .unwrap_or_else(|e| panic!("{dialect:?}: {e}: {}", compiled.sql));
            assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
        }
    }
    // A July start reads the date six months on, in the dialect's own terms.
    let by_year = &cases()[2].1;
    assert_eq!(
        compile(&ontology(), by_year, Dialect::Sqlite).unwrap().sql,
        "SELECT CAST(strftime('%Y', date(o.o_orderdate, 'start of month', '+6 months')) AS INTEGER) AS order_date_fiscal_year, \
         SUM(o.o_totalprice) AS revenue FROM orders o \
         GROUP BY CAST(strftime('%Y', date(o.o_orderdate, 'start of month', '+6 months')) AS INTEGER) \
         ORDER BY order_date_fiscal_year ASC"
    );
    assert!(
        compile(&ontology(), by_year, Dialect::Postgres)
            .unwrap()
            .sql
            .starts_with("SELECT CAST(EXTRACT(YEAR FROM DATE_TRUNC('month', o.o_orderdate) + INTERVAL '6 months') AS INTEGER) AS order_date_fiscal_year")
    );
}

/// A rolling window counts calendar periods, not rows present: the data's
/// months have gaps (none between July and December 1995).
#[tokio::test]
async fn a_rolling_total_spans_calendar_periods_on_sqlite() {
    let (warehouse, dir) = orders_on_sqlite("rolling").await;
    // Rolling 6 months by month in 1996: January reaches back to August
    // 1995 (December's 400 and January's 500), though 1995 is not asked.
    let (_, plan, ..) = cases()
        .into_iter()
        .find(|(name, ..)| name.starts_with("rolling 6-month revenue by month"))
        .unwrap();
    let compiled = compile(&ontology(), &plan, Dialect::Sqlite).unwrap();
    let got = all_rows(&warehouse, &compiled.sql, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(
        support::normal(got),
        support::normal(vec![
            vec!["1996-01".into(), 500.into(), 900.into()],
            vec!["1996-06".into(), 600.into(), 1100.into()],
            vec!["1996-07".into(), 700.into(), 1300.into()],
        ])
    );
    for dialect in Dialect::ALL {
        let compiled = compile(&ontology(), &plan, dialect).unwrap();
        let reparsed = cassis_core::sql::parse_select(dialect, &compiled.sql)
            .unwrap_or_else(|e| panic!("{dialect:?}: {e}: {}", compiled.sql));
        assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
