//! Property test of the compiler: any plan over the F1 ontology compiles to
//! one SELECT that SQLite runs on the F1 data and PostgreSQL's dialect
//! parses, and grouped counts never exceed what the measured table holds.

use cassis_core::engine::compile::{CompiledQuery, compile};
use cassis_core::engine::execute::{all_rows, executed_query, faithful_text, runnable};
use cassis_core::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan,
};
use cassis_core::engine::written_sql;
use cassis_core::ontology::{AttributeRole, Ontology, from_yaml};
use cassis_core::project::Dialect;
use cassis_core::warehouse::Warehouse;
use cassis_core::warehouse::csv_load::{LoadOptions, load_csv_dir};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::Path;

/// Some random plans are heavy queries on the real data (every pit stop of
/// every race, per driver); 128 keep the test to about twenty seconds in debug builds.
const CASES: u32 = 128;

fn f1() -> Ontology {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml"),
    )
    .unwrap();
    from_yaml(&text.replace("table: public.", "table: ")).unwrap()
}

/// Attributes a plan may group or filter by: everything but keys.
fn dimensions(ontology: &Ontology) -> Vec<AttributeRef> {
    ontology
        .objects
        .iter()
        .flat_map(|o| {
            o.attributes
                .iter()
                .filter(|a| a.role != AttributeRole::Identifier)
                .map(move |a| AttributeRef::new(&o.name, &a.name))
        })
        .collect()
}

fn plan_strategy(ontology: &Ontology) -> impl Strategy<Value = SemanticPlan> {
    let metrics: Vec<Measure> = ontology
        .metrics
        .iter()
        .flat_map(|m| {
            let mut readings = vec![Measure::Metric {
                metric: m.name.clone(),
                variant: None,
            }];
            readings.extend(m.variants.iter().map(|v| Measure::Metric {
                metric: m.name.clone(),
                variant: Some(v.name.clone()),
            }));
            readings
        })
        .chain(ontology.objects.iter().map(|o| Measure::CountOf {
            object: o.name.clone(),
        }))
        .collect();
    let dims = dimensions(ontology);
    (
        proptest::option::of(proptest::sample::select(metrics)),
        proptest::collection::vec(proptest::sample::select(dims.clone()), 0..3),
        proptest::option::of((1990i64..2025, 0usize..8)),
        proptest::option::of(proptest::sample::select(vec![
            "Ferrari", "O'Brien", "Italy",
        ])),
        proptest::option::of(proptest::sample::select(dims)),
        proptest::option::of((any::<bool>(), any::<bool>())),
        proptest::option::of(1u32..20),
    )
        .prop_map(
            |(measure, dimensions, year, value, value_attribute, order, limit)| {
                let mut plan = SemanticPlan {
                    measures: measure.into_iter().collect(),
                    dimensions,
                    limit,
                    ..SemanticPlan::default()
                };
                plan.dimensions.dedup();
                if plan.measures.is_empty() && plan.dimensions.is_empty() {
                    plan.dimensions
                        .push(AttributeRef::new("driver", "full_name"));
                }
                if let Some((y, op)) = year {
                    let condition = match op % 4 {
                        0 => Condition::OneOf(vec![Literal::Integer(y), Literal::Integer(y + 1)]),
                        1 => Condition::AtLeast(Literal::Integer(y)),
                        2 => Condition::Before(Literal::Integer(y)),
                        _ => Condition::Between(Literal::Integer(y), Literal::Integer(y + 3)),
                    };
                    // A year on the race's date becomes a range of days,
                    // itself an AND beside the plan's other filters.
                    let attribute = if op < 4 { "year" } else { "race_date" };
                    plan.filters.push(Filter {
                        attribute: AttributeRef::new("race", attribute),
                        condition,
                    });
                }
                if let (Some(value), Some(attribute)) = (value, value_attribute) {
                    // Before or after the time: each side of the AND.
                    let at = if limit.is_some_and(|n| n % 2 == 0) {
                        0
                    } else {
                        plan.filters.len()
                    };
                    plan.filters.insert(
                        at,
                        Filter {
                            attribute,
                            condition: Condition::OneOf(vec![Literal::Text(value.to_owned())]),
                        },
                    );
                }
                if let Some((by_measure, descending)) = order {
                    plan.order = Some(if by_measure && !plan.measures.is_empty() {
                        Order::Measure {
                            index: 0,
                            descending,
                        }
                    } else {
                        Order::Dimension {
                            index: 0,
                            descending,
                        }
                    });
                }
                plan
            },
        )
}

/// The F1 data loaded into a SQLite file in `dir`.
fn f1_warehouse(runtime: &tokio::runtime::Runtime, dir: &Path) -> Warehouse {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/f1");
    assert!(
        data.join("results.csv").exists(),
        "the F1 data is expected in {}",
        data.display()
    );
    let url = format!("sqlite://{}", dir.join("f1.sqlite").display());
    runtime.block_on(async {
        let options = LoadOptions {
            schema: None,
            snake_case: true,
            replace: false,
        };
        load_csv_dir(&url, &data, &options, &mut |_| {})
            .await
            .unwrap();
        Warehouse::connect(&url).await.unwrap()
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Each row as text: its cells, numbers to nine decimals, so a ratio
/// computed two ways compares equal.
fn rows_as_text(rows: &[Vec<serde_json::Value>]) -> Vec<String> {
    let mut rows: Vec<String> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| match cell.as_f64() {
                    Some(n) => format!("{n:.9}"),
                    None => cell.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_ratio_equals_hand_written_sql_on_the_f1_data() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let warehouse = f1_warehouse(&runtime, dir.path());
    let ontology = f1();
    let win_rate = Measure::Metric {
        metric: "win_rate".into(),
        variant: None,
    };
    let in_2021 = Filter {
        attribute: AttributeRef::new("race", "year"),
        condition: Condition::OneOf(vec![Literal::Integer(2021)]),
    };
    let wins_over_starts =
        "100.0 * SUM(CASE WHEN r.position = 1 THEN 1 ELSE 0 END) / COUNT(*) AS win_rate";
    let cases = [
        (
            SemanticPlan {
                measures: vec![win_rate.clone()],
                filters: vec![in_2021.clone()],
                ..SemanticPlan::default()
            },
            format!(
                "SELECT {wins_over_starts} FROM results r \
                 JOIN races ra ON ra.race_id = r.race_id WHERE ra.year = 2021"
            ),
        ),
        // Per driver: wins and starts counted per driver, then divided;
        // drivers without a win are there with 0.
        (
            SemanticPlan {
                measures: vec![win_rate.clone()],
                dimensions: vec![AttributeRef::new("driver", "full_name")],
                filters: vec![in_2021.clone()],
                ..SemanticPlan::default()
            },
            format!(
                "SELECT d.forename || ' ' || d.surname, {wins_over_starts} FROM results r \
                 JOIN races ra ON ra.race_id = r.race_id JOIN drivers d ON d.driver_id = r.driver_id \
                 WHERE ra.year = 2021 GROUP BY d.driver_id"
            ),
        ),
        // Per season over every season: a ratio per year, not an average of
        // the drivers' ratios.
        (
            SemanticPlan {
                measures: vec![win_rate.clone()],
                dimensions: vec![AttributeRef::new("race", "year")],
                ..SemanticPlan::default()
            },
            format!(
                "SELECT ra.year, {wins_over_starts} FROM results r \
                 JOIN races ra ON ra.race_id = r.race_id GROUP BY ra.year"
            ),
        ),
        // Per team and season, best first.
        (
            SemanticPlan {
                measures: vec![win_rate],
                dimensions: vec![
                    AttributeRef::new("constructor", "constructor_name"),
                    AttributeRef::new("race", "year"),
                ],
                filters: vec![Filter {
                    attribute: AttributeRef::new("race", "year"),
                    condition: Condition::Between(Literal::Integer(2010), Literal::Integer(2020)),
                }],
                order: Some(Order::Measure {
                    index: 0,
                    descending: true,
                }),
                ..SemanticPlan::default()
            },
            format!(
                "SELECT c.name, ra.year, {wins_over_starts} FROM results r \
                 JOIN races ra ON ra.race_id = r.race_id \
                 JOIN constructors c ON c.constructor_id = r.constructor_id \
                 WHERE ra.year BETWEEN 2010 AND 2020 GROUP BY c.constructor_id, ra.year"
            ),
        ),
    ];
    let run = |sql: &str| {
        runtime
            .block_on(all_rows(
                &warehouse,
                sql,
                std::time::Duration::from_secs(60),
            ))
            .unwrap_or_else(|e| panic!("{e}: {sql}"))
    };
    for (plan, gold) in cases {
        let compiled = compile(&ontology, &plan, Dialect::Sqlite).unwrap();
        let got = run(&compiled.sql);
        let want = run(&gold);
        assert!(!want.is_empty(), "{gold}");
        if plan.order.is_some() {
            let rates: Vec<f64> = got.iter().filter_map(|r| r.last()?.as_f64()).collect();
            assert!(
                rates.len() == got.len() && rates.is_sorted_by(|a, b| a >= b),
                "{rates:?}"
            );
            // Two cars start each race: Mercedes won 19 of 21 in 2016, 19 of
            // 42 starts; the rate is declared a percent.
            assert!(rates[0] > 45.0 && rates[0] <= 50.0, "{rates:?}");
        }
        assert_eq!(
            rows_as_text(&got),
            rows_as_text(&want),
            "\n{}\nagainst\n{gold}",
            compiled.sql
        );
    }
}

#[test]
fn any_plan_over_f1_compiles_to_sql_both_databases_read() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let warehouse = f1_warehouse(&runtime, dir.path());
    let ontology = f1();
    // Counted across cases; the runner takes an `Fn`.
    let compiled_count = std::cell::Cell::new(0);
    let refused = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        ..Config::default()
    });
    runner
        .run(&plan_strategy(&ontology), |plan| {
            let compiled: CompiledQuery = match compile(&ontology, &plan, Dialect::Sqlite) {
                Ok(compiled) => compiled,
                // Refusing is allowed (an unreachable object, a combination
                // that cannot be summed); producing bad SQL is not.
                Err(_) => {
                    refused.set(refused.get() + 1);
                    return Ok(());
                }
            };
            compiled_count.set(compiled_count.get() + 1);
            let postgres =
                compile(&ontology, &plan, Dialect::Postgres).expect("compiles for PostgreSQL too");
            cassis_core::sql::parse_select(Dialect::Postgres, &postgres.sql)
                .map_err(|e| TestCaseError::fail(format!("{e}: {}", postgres.sql)))?;
            // The compiler's SQL calls only what the execute-time allowlist
            // allows, and reads only what written SQL may read.
            let mysql = compile(&ontology, &plan, Dialect::MySql).expect("compiles for MySQL too");
            for (dialect, query) in [
                (Dialect::Sqlite, &compiled),
                (Dialect::Postgres, &postgres),
                (Dialect::MySql, &mysql),
            ] {
                runnable(&query.query, dialect)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {}", query.sql)))?;
                // What runs reads back as what was checked.
                faithful_text(&executed_query(query), dialect)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {}", query.sql)))?;
                written_sql::check(&ontology, dialect, &query.sql)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {}", query.sql)))?;
            }
            let rows = runtime
                .block_on(all_rows(
                    &warehouse,
                    &compiled.sql,
                    std::time::Duration::from_secs(60),
                ))
                .map_err(|e| TestCaseError::fail(format!("{e}: {}", compiled.sql)))?;
            if let Some(limit) = plan.limit {
                prop_assert!(rows.len() <= limit as usize, "{}", compiled.sql);
            }
            prop_assert!(
                rows.iter().all(|r| r.len() == compiled.columns.len()),
                "{}",
                compiled.sql
            );
            Ok(())
        })
        .unwrap();
    // The generator must mostly produce plans the compiler accepts, or the
    // test would prove little.
    assert!(
        compiled_count.get() > CASES * 2 / 3,
        "only {} of {CASES} plans compiled ({} refused)",
        compiled_count.get(),
        refused.get()
    );
}

#[test]
fn teammates_are_the_other_drivers_of_the_same_car_in_each_race_on_the_f1_data() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let warehouse = f1_warehouse(&runtime, dir.path());
    let ontology = f1();
    let of = |name: &str| Filter {
        attribute: AttributeRef::new("race_result", "teammate"),
        condition: Condition::PeerOf {
            of: vec![Filter {
                attribute: AttributeRef::new("driver", "full_name"),
                condition: Condition::OneOf(vec![Literal::Text(name.into())]),
            }],
        },
    };
    let in_year = |year: i64| Filter {
        attribute: AttributeRef::new("race", "year"),
        condition: Condition::OneOf(vec![Literal::Integer(year)]),
    };
    let run = |sql: &str| {
        runtime
            .block_on(all_rows(
                &warehouse,
                sql,
                std::time::Duration::from_secs(60),
            ))
            .unwrap_or_else(|e| panic!("{e}: {sql}"))
    };
    // Bottas's teammate in 2019 and his points.
    let points = SemanticPlan {
        measures: vec![Measure::Metric {
            metric: "points".into(),
            variant: None,
        }],
        dimensions: vec![AttributeRef::new("driver", "full_name")],
        filters: vec![in_year(2019), of("Valtteri Bottas")],
        ..SemanticPlan::default()
    };
    let compiled = compile(&ontology, &points, Dialect::Sqlite).unwrap();
    assert_eq!(
        rows_as_text(&run(&compiled.sql)),
        ["\"Lewis Hamilton\" | 413.000000000"],
        "{}",
        compiled.sql
    );
    // Alonso's teammates over his whole career, against a self-join
    // written by hand: every driver who shared a car with him in a race.
    let teammates = SemanticPlan {
        dimensions: vec![AttributeRef::new("driver", "full_name")],
        filters: vec![of("Fernando Alonso")],
        ..SemanticPlan::default()
    };
    let compiled = compile(&ontology, &teammates, Dialect::Sqlite).unwrap();
    let gold = "SELECT DISTINCT d.forename || ' ' || d.surname FROM results r \
                JOIN results a ON a.race_id = r.race_id AND a.constructor_id = r.constructor_id \
                JOIN drivers ad ON ad.driver_id = a.driver_id \
                JOIN drivers d ON d.driver_id = r.driver_id \
                WHERE ad.forename = 'Fernando' AND ad.surname = 'Alonso' AND r.driver_id <> a.driver_id";
    let want = run(gold);
    assert!(want.len() > 10, "{want:?}");
    assert_eq!(
        rows_as_text(&run(&compiled.sql)),
        rows_as_text(&want),
        "{}",
        compiled.sql
    );
}
