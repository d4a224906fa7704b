//! The Formula 1 setup a data team follows: load the CSV exports into
//! PostgreSQL, create a project from it, import the F1 ontology. Runs on both
//! metadata backends and checks the ontology's verified questions against the
//! facts the data is known to hold.

mod common;

use common::{cassis, ok, run_with_stdin, stderr};
use sqlx::{AssertSqlSafe, Connection, PgConnection, Row};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

async fn fresh_database(admin_url: &str, name: &str) -> String {
    let mut admin = PgConnection::connect(admin_url).await.unwrap();
    // Our own names, not input: safe to splice.
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
    }
    format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0)
}

#[tokio::test]
async fn formula_one_from_csv_to_a_published_ontology() {
    let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "PostgreSQL is required"
        );
        return;
    };
    let data = repo().join("../shared/data/f1");
    assert!(
        data.join("results.csv").exists(),
        "the F1 data is expected in {}",
        data.display()
    );
    let pid = std::process::id();
    let warehouse = fresh_database(&admin_url, &format!("cassis_f1_{pid}")).await;
    let dir = tempfile::tempdir().unwrap();

    let load_csv = || {
        cassis(&dir.path().join("unused"))
            .args(["warehouse", "load-csv", "--warehouse", &warehouse])
            .args(["--schema", "public", "--snake-case", "--dir"])
            .arg(&data)
            .output()
            .unwrap()
    };
    let (out, progress) = ok(load_csv());
    assert_eq!(out, "loaded 13 tables, 114903 rows\n", "{progress}");
    assert!(
        progress.contains(
            "loaded results.csv into public.results: 27178 rows, 18 columns, primary key result_id"
        ),
        "{progress}"
    );
    // Loading again without --replace refuses rather than duplicating rows.
    let again = load_csv();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists: pass --replace"),
        "{}",
        stderr(&again)
    );

    // The verified questions hold the facts the data is known for.
    let f1 = cassis_core::ontology::from_yaml(
        &std::fs::read_to_string(repo().join("examples/f1/ontology.yaml")).unwrap(),
    )
    .unwrap();
    let mut conn = PgConnection::connect(&warehouse).await.unwrap();
    let answer = |i: usize| AssertSqlSafe(f1.verified_questions[i].sql.clone());
    let wins = sqlx::query(answer(0)).fetch_all(&mut conn).await.unwrap();
    assert_eq!(
        (wins[0].get::<String, _>(0), wins[0].get::<i64, _>(1)),
        ("Max Verstappen".to_owned(), 19)
    );
    assert_eq!(
        (wins[1].get::<String, _>(0), wins[1].get::<i64, _>(1)),
        ("Sergio Pérez".to_owned(), 2)
    );
    let points = sqlx::query(answer(1)).fetch_all(&mut conn).await.unwrap();
    let totals: Vec<(i64, f64)> = points.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(totals, [(2022, 2350.0), (2023, 2458.0)]);
    let races: i64 = sqlx::query(answer(2))
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    assert_eq!(races, 22);
    let teams = sqlx::query(answer(3)).fetch_all(&mut conn).await.unwrap();
    assert_eq!(
        (teams[0].get::<String, _>(0), teams[0].get::<f64, _>(1)),
        ("Red Bull".to_owned(), 860.0)
    );

    let metadata_backends = [
        None,
        Some(fresh_database(&admin_url, &format!("cassis_f1_meta_{pid}")).await),
    ];
    for (i, database_url) in metadata_backends.iter().enumerate() {
        let data_dir = dir.path().join(format!("data{i}"));
        let cli = |args: &[&str]| {
            let mut command = cassis(&data_dir);
            if let Some(url) = database_url {
                command.args(["--database-url", url]);
            }
            command.args(args);
            command
        };
        assert!(
            run_with_stdin(
                cli(&[
                    "user",
                    "create",
                    "--email",
                    "ana@example.com",
                    "--role",
                    "admin"
                ]),
                "ana's password\n"
            )
            .status
            .success()
        );

        let (id, bootstrapped) = ok(cli(&[
            "project",
            "create",
            "--name",
            "Formula 1",
            "--warehouse",
            &warehouse,
            "--introspect",
            "--schema",
            "public",
        ])
        .output()
        .unwrap());
        assert_eq!(id.trim().len(), 36);
        assert!(
            bootstrapped.contains("bootstrapped the draft: 13 objects"),
            "{bootstrapped}"
        );
        let (diff, _) = ok(cli(&["ontology", "diff", "--project", "Formula 1"])
            .output()
            .unwrap());
        assert!(
            diff.contains("+ object results\n") && diff.contains("+ object drivers\n"),
            "{diff}"
        );
        let (draft, _) = ok(
            cli(&["ontology", "export", "--project", "Formula 1", "--draft"])
                .output()
                .unwrap(),
        );
        assert!(
            draft.contains("known_values"),
            "low-cardinality text columns are sampled: {draft}"
        );

        let f1_yaml = repo().join("examples/f1/ontology.yaml");
        let (out, _) = ok(cli(&[
            "ontology",
            "import",
            "--project",
            "Formula 1",
            "--publish",
            "--note",
            "F1 v1",
        ])
        .arg(&f1_yaml)
        .output()
        .unwrap());
        assert!(out.contains("published version 1"), "{out}");
        let (exported, _) = ok(cli(&["ontology", "export", "--project", id.trim()])
            .output()
            .unwrap());
        let round_trip = cassis_core::ontology::from_yaml(&exported).unwrap();
        assert_eq!(
            round_trip, f1,
            "export gives back exactly what was imported"
        );

        // The engine answers on PostgreSQL too, in its dialect and types.
        let ask = |args: &[&str]| -> serde_json::Value {
            let (out, _) = ok(cli(&["ask", "--project", "Formula 1"])
                .args(args)
                .output()
                .unwrap());
            serde_json::from_str(&out).unwrap()
        };
        let wins = ask(&["Who won the most races in 2023?"]);
        assert_eq!(
            wins["results"]["rows"],
            serde_json::json!([
                ["Max Verstappen", 19],
                ["Sergio Pérez", 2],
                ["Carlos Sainz", 1]
            ]),
            "{wins:#}"
        );
        assert_eq!(
            wins["objects_used"],
            serde_json::json!(["public.results", "public.drivers", "public.races"])
        );
        let plan = ask(&[
            "Compare total points scored by all drivers in 2022 vs 2023, including sprint results.",
        ]);
        let chat = plan["chat_id"].as_str().unwrap().to_owned();
        let points = ask(&["--chat", &chat, "--execute-pending-plan"]);
        assert_eq!(
            points["results"]["rows"],
            serde_json::json!([[2022, 2350], [2023, 2458]]),
            "{points:#}"
        );
        let average = ask(&["average pit stop time in 2023"]);
        assert_eq!(average["status"], "answered", "{average:#}");
        assert!(average["results"]["rows"][0][0].is_f64(), "{average:#}");
        // A query PostgreSQL estimates above the limit waits for approval.
        let (out, _) = ok(
            cli(&["--max-query-cost", "1", "ask", "--project", "Formula 1"])
                .arg("how many races in 2023")
                .output()
                .unwrap(),
        );
        let costly: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(costly["status"], "needs_execution", "{costly:#}");
        let texts = costly["plan"]["assumptions"].to_string();
        assert!(texts.contains("estimated to be expensive"), "{texts}");
        let approved = ask(&[
            "--chat",
            costly["chat_id"].as_str().unwrap(),
            "--execute-pending-plan",
        ]);
        assert_eq!(
            approved["results"]["rows"],
            serde_json::json!([[22]]),
            "{approved:#}"
        );
        // A ratio divides wins by starts, each counted first: 11 of 16 in
        // 2020, in percent as the ontology declares it; per driver, every
        // driver who started is listed.
        let rate = ask(&["What was Lewis Hamilton's win rate in 2020?"]);
        assert_eq!(
            rate["results"]["rows"],
            serde_json::json!([[68.75]]),
            "{rate:#}"
        );
        let rates = ask(&["win rate by driver in 2021"]);
        let rows = rates["results"]["rows"].as_array().unwrap();
        assert_eq!(rows[0][0], "Max Verstappen", "{rates:#}");
        assert!(
            // PostgreSQL's NUMERIC arrives with six decimals.
            (rows[0][1].as_f64().unwrap() - 1000.0 / 22.0).abs() < 1e-4,
            "{rates:#}"
        );
        assert_eq!(rows.len(), 21, "{rates:#}");
        // Grains and growth in PostgreSQL's own date functions, against
        // the counts of the CSV: 1, 7, 7 and 7 races in the quarters of
        // 2021; 22 races in 2021 after 17 in 2020 is 29.41% more.
        let quarters = ask(&["number of races by quarter in 2021"]);
        assert_eq!(
            quarters["results"]["rows"],
            serde_json::json!([
                ["2021-Q1", 1],
                ["2021-Q2", 7],
                ["2021-Q3", 7],
                ["2021-Q4", 7]
            ]),
            "{quarters:#}"
        );
        let growth = ask(&["number of races growth in 2021 vs 2020"]);
        let row = growth["results"]["rows"][0].as_array().unwrap().clone();
        assert_eq!(
            row[..2],
            [serde_json::json!(22), serde_json::json!(17)],
            "{growth:#}"
        );
        assert!(
            (row[2].as_f64().unwrap() - 100.0 * 5.0 / 17.0).abs() < 1e-4,
            "{growth:#}"
        );
        assert!(
            growth["answer"]
                .as_str()
                .unwrap()
                .contains("Growth compares 2021 with 2020"),
            "{growth:#}"
        );
        // A running total by a window over the quarters: 1, 8, 15, 22.
        let running = ask(&["running total of races by quarter in 2021"]);
        // PostgreSQL sums counts as NUMERIC.
        let totals: Vec<f64> = running["results"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|row| row[2].as_f64())
            .collect();
        assert_eq!(totals, [1.0, 8.0, 15.0, 22.0], "{running:#}");
        // The rows say whose date it is; the sentence says it once.
        let born = ask(&["When was Fernando Alonso born?"]);
        assert_eq!(
            born["results"]["rows"],
            serde_json::json!([["Fernando Alonso", "1981-07-29"]]),
            "{born:#}"
        );
    }
}
