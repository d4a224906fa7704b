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
    use cassis_core::account::Role;
    use cassis_core::engine::{AskRequest, Client, Engine};

    let dir = tempfile::tempdir().unwrap();
    let emails = [
        "user0@example.com",
        "user1@example.com",
        "user2@example.com",
    ];
    let Wholesale {
        store,
        users,
        project,
        now,
        ..
    } = Wholesale::start(dir.path(), &emails, Role::Admin).await;
    let ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    publish_first_version(&store, &project, &ontology, &users[0], now).await;

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

/// Deleting a project takes what the engine kept for it (the version's
/// grounding, the pool, the question slots) with it.
#[tokio::test]
async fn a_deleted_project_leaves_nothing_in_the_engine() {
    use cassis_core::account::Role;
    use cassis_core::engine::{AskRequest, Client, Engine};
    use cassis_core::project::ProjectName;

    let dir = tempfile::tempdir().unwrap();
    let Wholesale {
        store,
        org,
        users,
        project,
        now,
    } = Wholesale::start(dir.path(), &["ada@example.com"], Role::Admin).await;
    let ada = users[0].clone();
    let source = project.data_source.clone();
    let other = store
        .create_project(
            org.id,
            &ProjectName::parse("Other").unwrap(),
            "",
            source,
            now,
        )
        .await
        .unwrap();
    let ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    publish_first_version(&store, &project, &ontology, &ada, now).await;
    publish_first_version(&store, &other, &ontology, &ada, now).await;

    let engine = Engine::new(store.clone(), Default::default());
    let ask = |project: uuid::Uuid| {
        let (engine, ada) = (engine.clone(), ada.clone());
        let request = AskRequest {
            project_id: project.to_string(),
            question: "How many customers are in GERMANY?".to_owned(),
            ..AskRequest::default()
        };
        async move { engine.ask(&ada, Client::Cli, request, now).await }
    };
    let (first, second) = tokio::join!(ask(project.id), ask(other.id));
    for response in [first, second] {
        assert_eq!(response.status.as_str(), "answered", "{}", response.answer);
    }
    assert!(engine.holds_project(project.id) && engine.holds_project(other.id));

    assert!(store.delete_project(org.id, project.id).await.unwrap());
    engine.forget_project(project.id).await;
    assert!(!engine.holds_project(project.id));
    // A question that still names it is refused and keeps nothing either.
    let refused = ask(project.id).await;
    assert_eq!(refused.status.as_str(), "error", "{}", refused.answer);
    assert!(!engine.holds_project(project.id));
    // The other project keeps its grounding and pool.
    assert!(engine.holds_project(other.id));
}

/// One user's slow questions hold at most some of a project's connections:
/// another user's question still gets one, and what cannot get one is told
/// the project is busy rather than failing on the pool's wait. A regression
/// rehearsal counts as a question of its user's, and reuses the grounding of
/// the version it rehearses.
#[tokio::test]
async fn one_users_slow_questions_leave_the_project_to_others() {
    use cassis_core::account::Role;
    use cassis_core::engine::{AskRequest, Client, Engine, EngineSettings};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let emails = ["ada@example.com", "bob@example.com"];
    let Wholesale {
        store,
        users,
        project,
        now,
        ..
    } = Wholesale::start(dir.path(), &emails, Role::Editor).await;
    let (ada, bob) = (users[0].clone(), users[1].clone());
    // A table that never ends: counting it runs until the question's timeout.
    {
        let path = dir.path().join("wholesale.sqlite");
        let mut conn = SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::raw_sql(
            "CREATE VIEW spin AS WITH RECURSIVE r(spin_id) AS \
             (SELECT 1 UNION ALL SELECT spin_id + 1 FROM r) SELECT spin_id FROM r",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    let mut ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    let spin = ontology::from_yaml(
        "objects:\n\
         \x20 - name: spin\n\
         \x20   table: spin\n\
         \x20   label: Spin\n\
         \x20   description: A sequence that never ends.\n\
         \x20   primary_key: [spin_id]\n\
         \x20   attributes:\n\
         \x20     - name: spin_id\n\
         \x20       column: spin_id\n\
         \x20       type: integer\n\
         \x20       role: identifier\n",
    )
    .unwrap();
    ontology.objects.extend(spin.objects);
    publish_first_version(&store, &project, &ontology, &ada, now).await;

    let engine = Engine::new(
        store,
        EngineSettings {
            question_timeout: Duration::from_secs(10),
            ..EngineSettings::default()
        },
    );
    let ask = |user: &cassis_core::account::User, question: &str| {
        let (engine, user) = (engine.clone(), user.clone());
        let request = AskRequest {
            project_id: project.id.to_string(),
            question: question.to_owned(),
            ..AskRequest::default()
        };
        async move { engine.ask(&user, Client::Cli, request, now).await }
    };
    let slow: Vec<_> = (0..4)
        .map(|_| tokio::spawn(ask(&ada, "How many spins are there?")))
        .collect();
    // Wait until her questions hold what they can of the pool.
    let busy = |engine: &Engine| {
        engine
            .warehouse_pools()
            .iter()
            .map(|(_, usage)| usage.open as usize - usage.idle)
            .sum::<usize>()
    };
    let waiting = Instant::now();
    while busy(&engine) < 2 {
        assert!(waiting.elapsed() < Duration::from_secs(20), "never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let asked = Instant::now();
    let other = ask(&bob, "How many customers are in GERMANY?").await;
    let took = asked.elapsed();
    assert!(
        other.status.as_str() == "answered"
            || other.error.as_deref() == Some("The project is busy; try again in a moment."),
        "{other:?}"
    );
    assert!(took < Duration::from_secs(6), "took {took:?}: {other:?}");

    // A rehearsal is one more question of hers: she has none free.
    let customers = vec!["How many customers are in GERMANY?".to_owned()];
    let rehearsed = engine
        .rehearse(&ada, &project, ontology.clone(), &customers, now)
        .await;
    assert_eq!(
        rehearsed[0].error.as_deref(),
        Some("The project is busy; try again in a moment."),
        "{:?}",
        rehearsed[0]
    );
    // His runs, on the version's grounding: nothing is read again.
    let built = engine.groundings_built();
    let rehearsed = engine
        .rehearse(&bob, &project, ontology.clone(), &customers, now)
        .await;
    assert_eq!(
        rehearsed[0].status.as_str(),
        "answered",
        "{:?}",
        rehearsed[0]
    );
    assert_eq!(engine.groundings_built(), built);

    let mut outcomes = Vec::new();
    for question in slow {
        let response = question.await.unwrap();
        assert_eq!(response.status.as_str(), "error", "{response:?}");
        outcomes.push(response.error.unwrap());
    }
    let stopped = outcomes
        .iter()
        .filter(|e| e.contains("took longer than the limit"))
        .count();
    assert_eq!(stopped, 2, "{outcomes:?}");
}

/// A model's plan that does not fit the ontology is refused with every
/// problem it has, each misspelt name with the closest one the ontology
/// has: the model is told them all once (its repair round), and the person
/// asking when it sends the same plan again.
#[tokio::test]
async fn a_plan_that_does_not_fit_is_answered_with_every_problem() {
    use cassis_core::account::Role;
    use cassis_core::engine::llm::{LlmPlanner, LlmProvider, LlmSettings};
    use cassis_core::engine::{AskRequest, AskStatus, Client, Engine, EngineSettings};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let Wholesale {
        store,
        users,
        project,
        now,
        ..
    } = Wholesale::start(dir.path(), &["ada@example.com"], Role::Admin).await;
    let ontology = ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).unwrap();
    publish_first_version(&store, &project, &ontology, &users[0], now).await;
    let plan = serde_json::json!({
        "measures": [{"kind": "metric", "metric": "revnue"}],
        "dimensions": [
            {"object": "customer", "attribute": "customer_nme"},
            {"object": "customer", "attribute": "shoe_size"}
        ],
        "filters": [{"attribute": {"object": "natoin", "attribute": "nation_name"},
                     "condition": {"op": "one_of", "value": ["GERMANY"]}}]
    });
    let model = FakeClaude::start(plan).await;
    let planner = LlmPlanner::new(LlmSettings {
        provider: LlmProvider::Anthropic,
        url: model.url.clone(),
        model: "claude-test".to_owned(),
        api_key: "sk-ant-test-key".to_owned(),
        name: "Claude".to_owned(),
        request_timeout: Duration::from_secs(30),
        attempts: 1,
        backoff: Duration::from_millis(10),
    })
    .unwrap();
    let engine = Engine::new(
        store,
        EngineSettings {
            planner: Some(planner),
            ..EngineSettings::default()
        },
    );
    let request = AskRequest {
        project_id: project.id.to_string(),
        question: "Revenue per customer in Germany".to_owned(),
        ..AskRequest::default()
    };
    let response = engine.ask(&users[0], Client::Cli, request, now).await;

    assert_eq!(
        response.status,
        AskStatus::NotAnswerable,
        "{}",
        response.answer
    );
    let listed = "(1) the ontology has no metric `revnue`; did you mean `revenue`? \
                  (2) the object `customer` has no attribute `customer_nme`; did you mean `customer_name`? \
                  (3) the object `customer` has no attribute `shoe_size`. \
                  (4) the ontology has no object `natoin`; did you mean `nation`?";
    assert_eq!(
        response.error.as_deref(),
        Some(format!("The plan does not fit this ontology version: {listed}").as_str())
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "one repair round");
    let told = requests[1].to_string();
    assert!(
        told.contains(&format!(
            "the plan does not fit this ontology version: {listed}"
        )),
        "{told}"
    );
}

/// An Anthropic Messages endpoint on a local port that answers every
/// request with one `submit_plan` call of the same plan, and keeps the
/// request bodies.
struct FakeClaude {
    url: String,
    bodies: std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
}

impl FakeClaude {
    async fn start(plan: serde_json::Value) -> FakeClaude {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = bodies.clone();
        let reply = serde_json::json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "submit_plan", "input": plan}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}
        })
        .to_string();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut read = Vec::new();
                let mut chunk = [0u8; 8192];
                let (head_end, length) = loop {
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the request ended before its headers");
                    read.extend_from_slice(&chunk[..n]);
                    if let Some(end) = read.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&read[..end]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|line| line.strip_prefix("content-length:"))
                            .map_or(0, |value| value.trim().parse::<usize>().unwrap());
                        break (end + 4, length);
                    }
                };
                while read.len() < head_end + length {
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the request ended before its body");
                    read.extend_from_slice(&chunk[..n]);
                }
                let body = serde_json::from_slice(&read[head_end..head_end + length]).unwrap();
                kept.lock().unwrap().push(body);
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                stream.write_all(response.as_bytes()).await.unwrap();
            }
        });
        FakeClaude { url, bodies }
    }

    fn requests(&self) -> Vec<serde_json::Value> {
        self.bodies.lock().unwrap().clone()
    }
}

/// Publishes `ontology` as the project's first version: nothing to regress from.
async fn publish_first_version(
    store: &cassis_core::store::Store,
    project: &cassis_core::project::Project,
    ontology: &ontology::Ontology,
    user: &cassis_core::account::User,
    now: cassis_core::time::Timestamp,
) {
    use cassis_core::engine::Engine;
    use cassis_core::service::Services;
    use cassis_core::service::publishing::RegressionPolicy;
    let engine = Engine::new(store.clone(), Default::default());
    Services::new(store.clone(), engine)
        .publish(user, project, ontology, "v1", RegressionPolicy::Force, now)
        .await
        .unwrap();
}

/// The Wholesale project of the tests that ask questions: a metadata store
/// in a folder, the organization Acme, its users, and the project on the
/// demo warehouse at the smallest scale, not yet published.
struct Wholesale {
    store: cassis_core::store::Store,
    org: cassis_core::account::Organization,
    users: Vec<cassis_core::account::User>,
    project: cassis_core::project::Project,
    now: cassis_core::time::Timestamp,
}

impl Wholesale {
    /// In `dir`, with a user of `role` for each of `emails`.
    async fn start(
        dir: &std::path::Path,
        emails: &[&str],
        role: cassis_core::account::Role,
    ) -> Wholesale {
        use cassis_core::account::Email;
        use cassis_core::auth::Password;
        use cassis_core::project::{DataSource, ProjectName};
        use cassis_core::store::{NewUser, Store};
        use cassis_core::time::Timestamp;

        let now = Timestamp::from_millis(1_800_000_000_000);
        let path = dir.join("wholesale.sqlite");
        demo::generate_warehouse(&path, 0.01, &mut |_: &str, _: u64| {})
            .await
            .unwrap();
        let meta = format!("sqlite://{}", dir.join("meta.sqlite").display());
        let store = Store::connect(&meta).await.unwrap();
        store.migrate().await.unwrap();
        let org = store.create_organization("Acme", now).await.unwrap();
        let mut users = Vec::new();
        for email in emails {
            let user = NewUser {
                organization_id: org.id,
                email: Email::parse(email).unwrap(),
                password_hash: Password::new("a long password").unwrap().hash().unwrap(),
                role,
            };
            users.push(store.create_user(user, now).await.unwrap());
        }
        let source = Some(DataSource {
            dialect: Dialect::Sqlite,
            connection_url: Some(demo::warehouse_url(&path)),
        });
        let name = ProjectName::parse("Wholesale").unwrap();
        let project = store
            .create_project(org.id, &name, "", source, now)
            .await
            .unwrap();
        Wholesale {
            store,
            org,
            users,
            project,
            now,
        }
    }
}
