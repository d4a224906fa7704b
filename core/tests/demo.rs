//! The demo warehouse is real TPC-H data, written atomically.

use cassis_core::demo::{self, DemoError};
use cassis_core::ontology;
use cassis_core::project::Dialect;
use sqlx::{AssertSqlSafe, Connection, Row, SqliteConnection};

#[tokio::test]
async fn the_warehouse_holds_every_tpch_table_at_the_requested_scale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w/wholesale.sqlite");
    let mut progress = Vec::new();
    let mut record = |table: &str, rows: u64| progress.push((table.to_owned(), rows));
    demo::generate_warehouse(&path, 0.01, &mut record)
        .await
        .unwrap();

    let tables: Vec<&str> = progress.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        tables,
        [
            "region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"
        ]
    );
    assert!(!path.with_extension("partial").exists());

    let mut conn = SqliteConnection::connect(&demo::warehouse_url(&path))
        .await
        .unwrap();
    for (table, expected) in [
        ("region", 5),
        ("nation", 25),
        ("supplier", 100),
        ("customer", 1_500),
        ("orders", 15_000),
    ] {
        let sql = match table {
            "region" => "SELECT COUNT(*) AS n FROM region",
            "nation" => "SELECT COUNT(*) AS n FROM nation",
            "supplier" => "SELECT COUNT(*) AS n FROM supplier",
            "customer" => "SELECT COUNT(*) AS n FROM customer",
            _ => "SELECT COUNT(*) AS n FROM orders",
        };
        let n: i64 = sqlx::query(sql)
            .fetch_one(&mut conn)
            .await
            .unwrap()
            .get("n");
        assert_eq!(n, expected, "{table}");
        assert!(progress.contains(&(table.to_owned(), expected as u64)));
    }
    // Line items join to orders and carry money and dates a business user expects.
    let row = sqlx::query(
        "SELECT COUNT(*) AS n, MIN(l_shipdate) AS first, SUM(l_extendedprice * (1 - l_discount)) AS revenue \
         FROM lineitem JOIN orders ON o_orderkey = l_orderkey",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(row.get::<i64, _>("n") > 55_000);
    assert!(row.get::<String, _>("first").starts_with("1992-"));
    assert!(row.get::<f64, _>("revenue") > 1.0e8);
    let nation: String = sqlx::query("SELECT n_name FROM nation WHERE n_nationkey = 7")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    assert_eq!(nation, "GERMANY");

    // Every verified question of the demo ontology runs and finds rows.
    let ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    assert_eq!(ontology::validate(&ontology, Dialect::Sqlite), vec![]);
    assert!(ontology.verified_questions.len() >= 4);
    for verified in &ontology.verified_questions {
        let rows = sqlx::query(AssertSqlSafe(verified.sql.clone()))
            .fetch_all(&mut conn)
            .await
            .unwrap();
        assert!(!rows.is_empty(), "{} returned no rows", verified.question);
    }

    // The URL Cassis uses is read-only.
    let write = sqlx::query("DELETE FROM region").execute(&mut conn).await;
    assert!(write.is_err(), "the demo warehouse URL must be read-only");
}

#[tokio::test]
async fn scale_factors_outside_the_supported_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut ignore = |_: &str, _: u64| {};
    for sf in [0.001, 11.0] {
        let err = demo::generate_warehouse(&dir.path().join("w.sqlite"), sf, &mut ignore)
            .await
            .unwrap_err();
        assert!(matches!(err, DemoError::ScaleFactor(_)), "{err}");
    }
    assert!(!dir.path().join("w.sqlite").exists());
}

#[tokio::test]
async fn introspecting_the_warehouse_bootstraps_a_valid_draft() {
    use cassis_core::ontology::bootstrap::draft_from_catalog;
    use cassis_core::warehouse::Warehouse;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wholesale.sqlite");
    demo::generate_warehouse(&path, 0.01, &mut |_: &str, _: u64| {})
        .await
        .unwrap();
    let warehouse = Warehouse::connect(&demo::warehouse_url(&path))
        .await
        .unwrap();
    let catalog = warehouse.catalog(None).await.unwrap();
    let draft = draft_from_catalog(&catalog, warehouse.dialect());
    assert_eq!(ontology::validate(&draft, Dialect::Sqlite), vec![]);

    let names: Vec<&str> = draft.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"
        ]
    );
    let lineitem = &draft.objects[1];
    assert_eq!(lineitem.primary_key, ["l_orderkey", "l_linenumber"]);
    let joins: Vec<(&str, &str)> = draft
        .relationships
        .iter()
        .map(|r| (r.from.as_str(), r.to.as_str()))
        .collect();
    for join in [
        ("lineitem", "orders"),
        ("orders", "customer"),
        ("nation", "region"),
        ("partsupp", "part"),
    ] {
        assert!(joins.contains(&join), "{join:?} missing from {joins:?}");
    }
    let nation_name = draft.objects[2]
        .attributes
        .iter()
        .find(|a| a.name == "n_name")
        .unwrap();
    assert_eq!(nation_name.known_values.len(), 25);
    assert!(nation_name.known_values.contains(&"GERMANY".to_owned()));
    let comment = lineitem
        .attributes
        .iter()
        .find(|a| a.name == "l_comment")
        .unwrap();
    assert!(
        comment.known_values.is_empty(),
        "high-cardinality text is not sampled"
    );
    warehouse.close().await;
}

/// Simultaneous first questions on a version read its known values once: the
/// rest wait for that reading instead of each scanning the warehouse again.
#[tokio::test]
async fn first_questions_arriving_together_ground_the_version_once() {
    use cassis_core::account::{Email, Role};
    use cassis_core::auth::Password;
    use cassis_core::engine::{AskRequest, Client, Engine};
    use cassis_core::project::{DataSource, ProjectName};
    use cassis_core::store::{NewUser, Store};
    use cassis_core::time::Timestamp;

    let now = Timestamp::from_millis(1_800_000_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wholesale.sqlite");
    demo::generate_warehouse(&path, 0.01, &mut |_: &str, _: u64| {})
        .await
        .unwrap();
    let store = Store::connect(&format!(
        "sqlite://{}",
        dir.path().join("meta.sqlite").display()
    ))
    .await
    .unwrap();
    store.migrate().await.unwrap();
    let org = store.create_organization("Acme", now).await.unwrap();
    let new_user = |email: &str| NewUser {
        organization_id: org.id,
        email: Email::parse(email).unwrap(),
        password_hash: Password::new("a long password").unwrap().hash().unwrap(),
        role: Role::Admin,
    };
    let mut users = Vec::new();
    for n in 0..3 {
        let user = new_user(&format!("user{n}@example.com"));
        users.push(store.create_user(user, now).await.unwrap());
    }
    let project = store
        .create_project(
            org.id,
            &ProjectName::parse("Wholesale").unwrap(),
            "",
            Some(DataSource {
                dialect: Dialect::Sqlite,
                connection_url: Some(demo::warehouse_url(&path)),
            }),
            now,
        )
        .await
        .unwrap();
    let ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    ontology::publishing::publish(&store, &project, &ontology, users[0].id, "v1", now)
        .await
        .unwrap();

    let engine = Engine::new(store, Default::default());
    let asks: Vec<_> = users
        .iter()
        .cycle()
        .take(9)
        .map(|user| {
            let (engine, user) = (engine.clone(), user.clone());
            let request = AskRequest {
                project_id: project.id.to_string(),
                question: "How many customers are in GERMANY?".to_owned(),
                ..AskRequest::default()
            };
            tokio::spawn(async move { engine.ask(&user, Client::Cli, request, now).await })
        })
        .collect();
    for ask in asks {
        let response = ask.await.unwrap();
        assert_eq!(response.status.as_str(), "answered", "{}", response.answer);
    }
    assert_eq!(engine.groundings_built(), 1);
}
