//! Attacks on the running server by a signed-in viewer, an API key holder or
//! an anonymous caller, each refused without costing the server its memory,
//! its workers or anything outside the ontology.

mod common;

use common::app::Reach;
use common::session::client;
use common::{ADMIN_EMAIL, ADMIN_PASSWORD, Server, cassis, run_with_stdin, stderr, stdout};
use reqwest::StatusCode;
use reqwest::header::{ORIGIN, RETRY_AFTER};
use std::path::Path;
use std::time::Duration;

const VIEWER: &str = "viewer@example.com";
const PASSWORD: &str = "a long password";

fn create_user(data: &Path, email: &str, role: &str) {
    let mut create = cassis(data);
    create.args(["user", "create", "--email", email, "--role", role]);
    assert!(
        run_with_stdin(create, &format!("{PASSWORD}\n"))
            .status
            .success()
    );
}

fn create_key(data: &Path) -> String {
    create_key_for(data, ADMIN_EMAIL)
}

fn create_key_for(data: &Path, email: &str) -> String {
    common::api_key(cassis(data), email, "hardening", &[])
}

/// The id of the first project the session lists (the demo's Wholesale).
async fn first_project(server: &Server, session: &str) -> String {
    let (status, body) = server.server_fn(session, "list_projects", &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let projects: serde_json::Value = serde_json::from_str(&body).unwrap();
    projects[0]["id"].as_str().unwrap().to_owned()
}

/// A memory figure of the server process from /proc, in kB: `VmHWM` is the
/// most it has ever held.
fn memory_kb(server: &Server, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim_start_matches(':').trim().split(' ').next())
        .and_then(|kb| kb.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc status"))
}

/// A viewer's session and the one project they see, schema-only: a server
/// started with `--no-demo` has no other.
async fn a_viewer_of_a_schema_only_project(server: &Server, data: &Path) -> (String, String) {
    create_user(data, VIEWER, "viewer");
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "Schema"),
                ("source", "schema_only"),
                ("dialect", "postgres"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let viewer = server.sign_in(VIEWER, PASSWORD).await.1.unwrap();
    let project = first_project(server, &viewer).await;
    (viewer, project)
}

#[tokio::test]
async fn yaml_that_expands_into_gigabytes_is_refused_without_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // No demo: generating its warehouse in the background would move the
    // peak memory this test watches.
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let (viewer, project) = a_viewer_of_a_schema_only_project(&server, &data).await;

    // One megabyte anchored once and repeated by 2,000 aliases: 2 GB once read.
    let mut bomb = format!(
        "objects:\n  - name: x\n    description: &big \"{}\"\n    synonyms: [",
        "x".repeat(1_000_000)
    );
    bomb.push_str(&vec!["*big"; 2_000].join(","));
    bomb.push_str("]\n");
    let before = memory_kb(&server, "VmHWM");
    let started = std::time::Instant::now();
    let (status, body) = server
        .server_fn(
            &viewer,
            "check_draft",
            &[("project_id", &project), ("yaml", &bomb)],
        )
        .await;
    let took = started.elapsed();
    let grown = memory_kb(&server, "VmHWM") - before;
    eprintln!("the alias bomb was refused in {took:?}, peak memory +{grown} kB");
    // Refused as it is read, not after 2 GB were built (10 s in a debug
    // build); the bound leaves room for a debug build on a busy machine.
    assert!(took < Duration::from_secs(2), "the refusal took {took:?}");
    assert!(
        grown < 100_000,
        "the server's peak memory grew by {grown} kB"
    );
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("anchors and aliases repeat"), "{body}");

    // The classic nested form is refused too.
    let mut laughs = String::from("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..10 {
        let aliases = vec![format!("*l{}", level - 1); 9].join(", ");
        laughs.push_str(&format!("l{level}: &l{level} [{aliases}]\n"));
    }
    let (status, body) = server
        .server_fn(
            &viewer,
            "check_draft",
            &[("project_id", &project), ("yaml", &laughs)],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Refused by Cassis's own budget, before the YAML library's limit.
    assert!(body.contains("anchors and aliases repeat"), "{body}");
}

/// The length of `text` form-encoded, as the browser posts it.
fn form_encoded_len(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '*' | '-' | '.' | '_' | ' ' => 1,
            c => 3 * c.len_utf8(),
        })
        .sum()
}

#[tokio::test]
async fn many_large_drafts_checked_at_once_are_read_a_few_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let key = create_key(&data);
    let (viewer, project) = a_viewer_of_a_schema_only_project(&server, &data).await;
    // As many one-character list items as a 2 MB request holds: read, each
    // is a YAML event with its own allocations, many times the text's size.
    let mut yaml = String::from("objects: [");
    let mut body = 200 + project.len() + form_encoded_len(&yaml);
    while body + form_encoded_len("1,") < 2 * 1024 * 1024 {
        yaml.push_str("1,");
        body += form_encoded_len("1,");
    }
    yaml.push_str("1]");
    let server = std::sync::Arc::new(server);
    let (viewer, project, yaml) = (
        std::sync::Arc::new(viewer),
        std::sync::Arc::new(project),
        std::sync::Arc::new(yaml),
    );
    let check = || {
        let (server, viewer, project, yaml) = (
            server.clone(),
            viewer.clone(),
            project.clone(),
            yaml.clone(),
        );
        async move {
            let (status, body) = server
                .server_fn(
                    &viewer,
                    "check_draft",
                    &[("project_id", &project), ("yaml", &yaml)],
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert!(body.contains("expected struct Object"), "{body}");
        }
    };
    // One alone first: what reading one such document costs at its peak.
    let before = memory_kb(&server, "VmHWM");
    let started = std::time::Instant::now();
    check().await;
    let alone = started.elapsed();
    let one = memory_kb(&server, "VmHWM") - before;
    assert!(
        one > 10_000,
        "one check took only +{one} kB: nothing to bound"
    );

    // Four per core at once: with every one read at the same time, the peak
    // grows by each one's (a blocking thread each, time-sliced); read a core's
    // worth at a time, by at most that many plus the requests' own bodies.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let before = memory_kb(&server, "VmHWM");
    let checks: Vec<_> = (0..4 * cores).map(|_| tokio::spawn(check())).collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut pings = Vec::new();
    for _ in 0..10 {
        let started = std::time::Instant::now();
        let ping = server.mcp_tool(&key, "ping", serde_json::json!({})).await;
        assert_eq!(ping.status(), StatusCode::OK);
        pings.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let still_checking = checks.iter().filter(|c| !c.is_finished()).count();
    for check in checks {
        check.await.unwrap();
    }
    let grown = memory_kb(&server, "VmHWM") - before;
    pings.sort();
    let median = pings[pings.len() / 2];
    eprintln!(
        "one check alone took {alone:?} and +{one} kB at its peak; {} at once +{grown} kB; \
         pings meanwhile {pings:?} with {still_checking} checks still running",
        4 * cores
    );
    assert!(
        grown < one * (cores as u64 + 2),
        "{} checks at once grew the peak by {grown} kB, one alone by {one} kB",
        4 * cores
    );
    assert!(
        median < Duration::from_millis(400),
        "ping took {median:?} (median) during the checks: {pings:?}"
    );
    assert!(
        still_checking > 0,
        "the checks ended before the pings did, so they measured nothing"
    );
}

#[tokio::test]
async fn ontology_documents_beyond_the_size_setting_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.args(["--max-ontology-bytes", "100000"]);
    });
    create_user(&data, VIEWER, "viewer");
    let viewer = server.sign_in(VIEWER, PASSWORD).await.1.unwrap();
    let project = first_project(&server, &viewer).await;
    let large = format!("objects: []\n# {}\n", "x".repeat(150_000));
    let (status, body) = server
        .server_fn(
            &viewer,
            "check_draft",
            &[("project_id", &project), ("yaml", &large)],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        body.contains("the document is 0.2 MB; an ontology may be at most 0.1 MB"),
        "{body}"
    );
}

#[tokio::test]
async fn thousands_of_problems_are_counted_not_all_located() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    create_user(&data, VIEWER, "viewer");
    let viewer = server.sign_in(VIEWER, PASSWORD).await.1.unwrap();
    let project = first_project(&server, &viewer).await;

    // 20,000 objects that each name a table nobody wrote: one problem each.
    let mut yaml = String::from("objects:\n");
    for n in 0..20_000 {
        yaml.push_str(&format!("- name: o{n}\n  table: ''\n"));
    }
    let (status, body) = server
        .server_fn(
            &viewer,
            "check_draft",
            &[("project_id", &project), ("yaml", &yaml)],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let problems: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(
        problems.len(),
        201,
        "200 located and one that counts the rest"
    );
    assert!(problems[0]["line"].is_u64(), "{:?}", problems[0]);
    let more = problems[200]["message"].as_str().unwrap();
    assert!(
        more.starts_with("and ") && more.ends_with(" more problems"),
        "{more}"
    );
}

/// A login attempt: the status, the `Retry-After` header and the body.
async fn attempt(
    server: &Server,
    email: &str,
    password: &str,
) -> (StatusCode, Option<String>, String) {
    let response = server.login(email, password).await;
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_owned());
    (
        response.status(),
        retry_after,
        response.text().await.unwrap(),
    )
}

#[tokio::test]
async fn password_guessing_waits_longer_after_each_failure() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    for _ in 0..5 {
        let (status, _, body) = attempt(&server, ADMIN_EMAIL, "a wrong guess").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    }
    // Now even the right password waits, and the answer says how long.
    let (status, retry_after, body) = attempt(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(retry_after.as_deref(), Some("2"));
    assert_eq!(body, r#"{"TooManyAttempts":{"retry_after_secs":2}}"#);
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let (status, _, body) = attempt(&server, ADMIN_EMAIL, "another wrong guess").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (_, retry_after, _) = attempt(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(retry_after.as_deref(), Some("4"), "the wait doubles");
    tokio::time::sleep(Duration::from_millis(4_100)).await;
    let (status, _, body) = attempt(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn guesses_sent_together_at_one_account_get_only_the_free_failures() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    // 20 guesses at once from one address, well within its burst of 30:
    // before any has failed, none may pass on the strength of the others
    // not having failed yet.
    let server = std::sync::Arc::new(server);
    let guesses: Vec<_> = (0..20)
        .map(|n| {
            let server = server.clone();
            tokio::spawn(async move { attempt(&server, ADMIN_EMAIL, &format!("guess {n}")).await })
        })
        .collect();
    let mut statuses = Vec::new();
    for guess in guesses {
        let (status, retry_after, body) = guess.await.unwrap();
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert!(retry_after.is_some(), "{body}");
        }
        statuses.push(status);
    }
    let checked = statuses
        .iter()
        .filter(|&&s| s == StatusCode::UNAUTHORIZED)
        .count();
    let refused = statuses
        .iter()
        .filter(|&&s| s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert!((1..=4).contains(&checked), "{statuses:?}");
    assert_eq!(checked + refused, 20, "{statuses:?}");
}

#[tokio::test]
async fn a_storm_of_logins_is_cut_off_and_mcp_keeps_answering() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let key = create_key(&data);
    let server = std::sync::Arc::new(server);
    // 32 parallel guesses on 32 accounts from one address: 30 are checked,
    // the rest are refused before any password is.
    let storm: Vec<_> = (0..32)
        .map(|n| {
            let url = server.url.clone();
            tokio::spawn(async move {
                client()
                    .post(format!("{url}/api/login"))
                    .header(ORIGIN, &url)
                    .form(&[
                        ("email", format!("user{n}@example.com").as_str()),
                        ("password", "guess"),
                    ])
                    .send()
                    .await
                    .unwrap()
                    .status()
            })
        })
        .collect();
    // While the verifications run, MCP answers as fast as ever: Argon2 on
    // the executor threads would hold every ping sent meanwhile behind them
    // (0.9 to 1.4 s each with the verification inline, against 30 to 95 ms
    // here, connecting 42 clients at once included, on a busy 2-core machine).
    let pings: Vec<_> = (0..10)
        .map(|_| {
            let (server, key) = (server.clone(), key.clone());
            tokio::spawn(async move {
                let started = std::time::Instant::now();
                let ping = server.mcp_tool(&key, "ping", serde_json::json!({})).await;
                assert_eq!(ping.status(), StatusCode::OK);
                started.elapsed()
            })
        })
        .collect();
    let mut pings: Vec<Duration> = {
        let mut taken = Vec::new();
        for ping in pings {
            taken.push(ping.await.unwrap());
        }
        taken
    };
    let still_checking = storm
        .iter()
        .filter(|request| !request.is_finished())
        .count();
    pings.sort();
    let median = pings[pings.len() / 2];
    eprintln!("pings during the storm: {pings:?}; {still_checking} logins still running");
    assert!(
        median < Duration::from_millis(400),
        "ping took {median:?} (median) during the storm: {pings:?}"
    );
    assert!(
        still_checking > 0,
        "the storm ended before the pings did, so they measured nothing: {pings:?}"
    );
    let mut statuses = Vec::new();
    for request in storm {
        statuses.push(request.await.unwrap());
    }
    let refused = statuses
        .iter()
        .filter(|&&s| s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    let checked = statuses
        .iter()
        .filter(|&&s| s == StatusCode::UNAUTHORIZED)
        .count();
    assert_eq!((checked, refused), (30, 2), "{statuses:?}");
}

#[tokio::test]
async fn a_chat_is_continued_only_by_the_user_who_started_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    create_user(&data, "ada@example.com", "viewer");
    create_user(&data, "bob@example.com", "viewer");
    let ada = create_key_for(&data, "ada@example.com");
    let bob = create_key_for(&data, "bob@example.com");
    let admin = create_key(&data);
    let projects = server
        .call_tool(&ada, "list_projects", serde_json::json!({}))
        .await;
    let project = projects["projects"][0]["id"].as_str().unwrap().to_owned();

    let first = server
        .call_tool(
            &ada,
            "ask_question",
            serde_json::json!({"project_id": project, "question": "How many customers are there?"}),
        )
        .await;
    assert_eq!(first["status"], "answered", "{first}");
    let chat = first["chat_id"].as_str().unwrap();

    // Another viewer, and even an admin, are told there is no such chat.
    for key in [&bob, &admin] {
        let follow_up = server.call_tool(key,
            "ask_question",
            serde_json::json!({"project_id": project, "question": "and in 1995?", "chat_id": chat}),
        )
        .await;
        assert_eq!(follow_up["status"], "error", "{follow_up}");
        assert!(
            follow_up["answer"]
                .as_str()
                .unwrap()
                .contains("There is no chat"),
            "{follow_up}"
        );
        let approve = server.call_tool(key,
            "ask_question",
            serde_json::json!({"project_id": project, "question": "execute_pending_plan", "chat_id": chat}),
        )
        .await;
        assert_eq!(approve["status"], "error", "{approve}");
    }
    // Its owner goes on.
    let own = server.call_tool(&ada,
        "ask_question",
        serde_json::json!({"project_id": project, "question": "How many orders are there?", "chat_id": chat}),
    )
    .await;
    assert_eq!(own["chat_id"], chat, "{own}");
    assert_eq!(own["status"], "answered", "{own}");
}

#[tokio::test]
async fn chats_on_a_project_closed_to_the_user_leave_their_activity() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    create_user(&data, VIEWER, "viewer");
    let key = create_key_for(&data, VIEWER);
    let viewer = server.sign_in(VIEWER, PASSWORD).await.1.unwrap();
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let project = first_project(&server, &viewer).await;
    let answer = server
        .call_tool(
            &key,
            "ask_question",
            serde_json::json!({"project_id": project, "question": "How many customers are there?"}),
        )
        .await;
    let chat = answer["chat_id"].as_str().unwrap().to_owned();
    let (_, listed) = server.server_fn(&viewer, "list_activity", &[]).await;
    assert!(listed.contains(&chat), "{listed}");

    let (status, body) = server
        .server_fn(
            &admin,
            "set_project_access",
            &[("id", &project), ("access", "members")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, listed) = server.server_fn(&viewer, "list_activity", &[]).await;
    assert_eq!(listed, "[]");
    let (status, _) = server
        .server_fn(&viewer, "chat_turns", &[("chat_id", &chat)])
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn viewers_see_no_connection_url() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    create_user(&data, VIEWER, "viewer");
    let viewer = server.sign_in(VIEWER, PASSWORD).await.1.unwrap();
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let project = first_project(&server, &viewer).await;
    for (session, shown) in [(&viewer, false), (&admin, true)] {
        let (_, listed) = server.server_fn(session, "list_projects", &[]).await;
        let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
        assert_eq!(listed[0]["connection"].is_string(), shown, "{listed}");
        let (_, detail) = server
            .server_fn(session, "get_project", &[("id", &project)])
            .await;
        let detail: serde_json::Value = serde_json::from_str(&detail).unwrap();
        assert_eq!(detail["connection"].is_string(), shown, "{detail}");
    }
}

#[tokio::test]
async fn the_audit_trail_keeps_no_text_a_caller_sent_as_a_project_id() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data);
    let junk = "x".repeat(1_000_000);
    let answer = server
        .call_tool(
            &key,
            "ask_question",
            serde_json::json!({"project_id": junk, "question": "How many customers are there?"}),
        )
        .await;
    assert_eq!(answer["status"], "error", "{answer}");

    let db = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&db).await.unwrap();
    // Written in batches off the request path, within moments.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let rows: Vec<(String, Option<String>)> = loop {
        let rows = sqlx::query_as("SELECT tool, project_id FROM tool_calls")
            .fetch_all(&pool)
            .await
            .unwrap();
        if !rows.is_empty() || std::time::Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(rows, [("ask_question".to_owned(), None)]);
}

/// The files the server process has open.
fn open_files(server: &Server) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id()))
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .collect()
}

#[tokio::test]
async fn a_reconnected_or_deleted_project_lets_go_of_its_old_source() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data);
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let project = first_project(&server, &admin).await;
    let original = data
        .join("warehouses/wholesale.sqlite")
        .canonicalize()
        .unwrap();
    let copy = data.join("warehouses/copy.sqlite");
    std::fs::copy(&original, &copy).unwrap();
    let copy = copy.canonicalize().unwrap();
    let ask = || async {
        let answer = server.call_tool(&key,
            "ask_question",
            serde_json::json!({"project_id": project, "question": "How many customers are there?"}),
        )
        .await;
        assert_eq!(answer["status"], "answered", "{answer}");
    };
    ask().await;
    assert!(open_files(&server).contains(&original));

    let (status, body) = server
        .server_fn(
            &admin,
            "update_project",
            &[
                ("id", project.as_str()),
                ("name", "Wholesale"),
                ("connection_url", &format!("sqlite://{}", copy.display())),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    ask().await;
    let open = open_files(&server);
    assert!(open.contains(&copy), "{open:?}");
    assert!(
        !open.contains(&original),
        "the old pool is still open: {open:?}"
    );

    let (status, body) = server
        .server_fn(
            &admin,
            "delete_project",
            &[("id", project.as_str()), ("confirm", "Wholesale")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let open = open_files(&server);
    assert!(
        !open.contains(&copy),
        "the deleted project's pool is still open: {open:?}"
    );
}

/// A question still reading its project's source when the project is
/// deleted must not connect it again afterwards and keep that pool: nothing
/// would ever close it. The first question on a version reads the values of
/// its text columns, here from a million distinct labels, which a debug
/// build's SQLite takes seconds to group; the project is deleted meanwhile.
#[tokio::test]
async fn a_question_in_flight_when_its_project_is_deleted_leaves_no_source_open() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let key = create_key(&data);
    let warehouse = data.join("warehouses/slow.sqlite");
    std::fs::create_dir_all(warehouse.parent().unwrap()).unwrap();
    {
        use sqlx::{ConnectOptions, Connection};
        let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&warehouse)
            .create_if_missing(true)
            .connect()
            .await
            .unwrap();
        for statement in [
            "CREATE TABLE events (id INTEGER PRIMARY KEY, label TEXT NOT NULL)",
            "WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 999999) \
             INSERT INTO events SELECT x, printf('label %07d', (x * 7919) % 1000000) FROM n",
        ] {
            sqlx::query(statement)
                .execute(&mut connection)
                .await
                .unwrap();
        }
        connection.close().await.unwrap();
    }
    let warehouse = warehouse.canonicalize().unwrap();
    let url = format!("sqlite://{}", warehouse.display());
    let output = cassis(&data)
        .args(["project", "create", "--name", "Slow", "--warehouse", &url])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let project = stdout(&output).trim().to_owned();
    let ontology = dir.path().join("slow.yaml");
    std::fs::write(
        &ontology,
        "objects:
  - name: event
    table: events
    label: Event
    primary_key: [id]
    attributes:
      - name: id
        column: id
        type: integer
        role: identifier
      - name: label
        column: label
        type: text
        role: dimension
metrics:
  - name: event_count
    object: event
    aggregate: count
    label: Number of events
",
    )
    .unwrap();
    let output = cassis(&data)
        .args(["ontology", "import", "--project", "Slow", "--publish"])
        .arg(&ontology)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();

    let server = std::sync::Arc::new(server);
    let question = {
        let (server, key, project) = (server.clone(), key.clone(), project.clone());
        tokio::spawn(async move {
            server.call_tool(&key,
                "ask_question",
                serde_json::json!({"project_id": project, "question": "How many events are there?"}),
            )
            .await
        })
    };
    // The question has connected once the file is open.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !open_files(&server).contains(&warehouse) {
        assert!(
            std::time::Instant::now() < deadline,
            "the question never opened its source"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !question.is_finished(),
        "the question ended before its project was deleted: nothing was tested"
    );
    let (status, body) = server
        .server_fn(
            &admin,
            "delete_project",
            &[("id", project.as_str()), ("confirm", "Slow")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = question.await.unwrap();
    eprintln!("the question answered {answer}");
    let open = open_files(&server);
    assert!(
        !open.contains(&warehouse),
        "the deleted project's source is open again after its question: {open:?}"
    );
}

/// Wrong sign-ins from `from` (a local address to connect from) on as many
/// accounts, all at once, each saying it forwards `forwarded(n)`: the statuses.
async fn sign_ins_through(
    server: &Server,
    from: &str,
    count: usize,
    forwarded: impl Fn(usize) -> String,
) -> Vec<StatusCode> {
    let client = reqwest::Client::builder()
        .local_address(from.parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let attempts: Vec<_> = (0..count)
        .map(|n| {
            let request = client
                .post(format!("{}/api/login", server.url))
                .header(ORIGIN, &server.url)
                .header("x-forwarded-for", forwarded(n))
                .form(&[
                    ("email", format!("user{n}@example.com").as_str()),
                    ("password", "guess"),
                ]);
            tokio::spawn(async move { request.send().await.unwrap().status() })
        })
        .collect();
    let mut statuses = Vec::new();
    for attempt in attempts {
        statuses.push(attempt.await.unwrap());
    }
    statuses
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_has_its_own_sign_in_limit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.args(["--no-demo", "--trusted-proxies", "127.0.0.1"]);
    });
    let limited = |statuses: &[StatusCode]| {
        statuses
            .iter()
            .filter(|&&s| s == StatusCode::TOO_MANY_REQUESTS)
            .count()
    };
    // One client behind the proxy guesses until it is held back...
    let guesses = sign_ins_through(&server, "127.0.0.1", 32, |_| {
        "198.51.100.9, 203.0.113.1".to_owned()
    })
    .await;
    assert!(limited(&guesses) > 0, "{guesses:?}");
    // ...while another one behind the same proxy is not: a few attempts at
    // once, where the proxy's one shared bucket would have refilled by one
    // or two while the first client's guesses were checked.
    let others = sign_ins_through(&server, "127.0.0.1", 5, |_| "203.0.113.2".to_owned()).await;
    assert_eq!(limited(&others), 0, "{others:?}");
    let response = client()
        .post(format!("{}/api/login", server.url))
        .header(ORIGIN, &server.url)
        .header("x-forwarded-for", "203.0.113.3")
        .form(&[("email", ADMIN_EMAIL), ("password", ADMIN_PASSWORD)])
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(status.is_success() || status.is_redirection(), "{status}");
    // A client that is not a listed proxy cannot spread its guesses over
    // addresses it makes up: the header is ignored, its own address counts.
    let guesses = sign_ins_through(&server, "127.0.0.2", 32, |n| {
        format!("203.0.113.{}", 100 + n)
    })
    .await;
    assert!(limited(&guesses) > 0, "{guesses:?}");
}

/// The status a server answers to a request that only declares its body's
/// length: it must answer from the head, since a client still writing a
/// body the server refused would get a broken pipe instead of the answer.
async fn status_for_declared_length(server: &Server, path: &str, length: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = server.url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nOrigin: {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n\r\n",
        server.url,
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 1024];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("answered without waiting for the body")
        .unwrap();
    let status_line = String::from_utf8_lossy(&answer[..read]).into_owned();
    status_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned()
}

/// Any ontology within `--max-ontology-bytes` (4 MiB by default) can be
/// saved from the editor, though its form is larger than the 2 MiB other
/// requests may be; those keep their cap, and the editor's has one too.
#[tokio::test]
async fn an_ontology_as_large_as_allowed_saves_and_other_bodies_keep_their_cap() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "Large"),
                ("source", "schema_only"),
                ("dialect", "postgres"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let project = first_project(&server, &admin).await;

    // 3 MiB of YAML: objects with long descriptions, more than 2 MiB as a form.
    let description = "A thing the business counts, described at length. ".repeat(20);
    let mut yaml = String::from("objects:\n");
    let mut n = 0;
    while yaml.len() < 3 * 1024 * 1024 {
        yaml.push_str(&format!(
            "- name: thing_{n}\n  table: public.thing_{n}\n  label: Thing {n}\n  \
             description: {description}\n  primary_key: [id]\n"
        ));
        n += 1;
    }
    assert!(form_encoded_len(&yaml) > 2 * 1024 * 1024);
    let (status, body) = server
        .server_fn(
            &admin,
            "save_draft",
            &[("project_id", &project), ("yaml", &yaml), ("revision", "0")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", &body[..body.len().min(500)]);
    let saved: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(saved["revision"], 1, "{}", &body[..body.len().min(500)]);
    // The check reads it too.
    let (status, body) = server
        .server_fn(
            &admin,
            "check_draft",
            &[("project_id", &project), ("yaml", &yaml)],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", &body[..body.len().min(500)]);

    // 3 MiB to any other route is refused, as sent and as declared.
    let text = "x".repeat(3 * 1024 * 1024);
    let (status, _) = server
        .server_fn(
            &admin,
            "add_rule",
            &[("project_id", &project), ("name", "big"), ("text", &text)],
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        status_for_declared_length(&server, "/api/add_rule", 3 * 1024 * 1024).await,
        "413"
    );
    // The editor's routes stop at three times the largest ontology (its
    // form encoding at worst) and a little more.
    assert_eq!(
        status_for_declared_length(&server, "/api/save_draft", 13 * 1024 * 1024).await,
        "413"
    );
}
