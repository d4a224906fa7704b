//! The server over HTTP: health, first start, sign-in, CSRF, roles, the
//! admin app's server functions, graceful shutdown. What needs the process
//! (signals, what it prints, a raw socket, the CLI beside it) runs the real
//! binary; the rest runs the router in-process ([`common::app::TestApp`]).

mod common;

use common::app::{Reach, TestApp};
use common::session::{client, cookie_pair};
use common::{ADMIN_EMAIL, ADMIN_PASSWORD, Metadata, Server, cassis, stdout};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, ORIGIN, SET_COOKIE};

#[tokio::test]
async fn first_start_serves_health_login_and_the_demo_project() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |_| {});
    let http = client();

    let live = http
        .get(format!("{}/healthz", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), StatusCode::OK);
    let ready = http
        .get(format!("{}/readyz", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.text().await.unwrap(), r#"{"status":"ready"}"#);

    // Pages need a session; the login page does not.
    let home = http
        .get(format!("{}/projects", server.url))
        .send()
        .await
        .unwrap();
    assert!(home.status().is_redirection());
    assert_eq!(home.headers()[LOCATION], "/login");
    let login = http
        .get(format!("{}/login", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::OK);
    let html = login.text().await.unwrap();
    assert!(html.contains("Sign in to Cassis"));
    assert!(html.contains("/pkg/cassis.css"), "the stylesheet is linked");

    let (_, rejected) = server.sign_in(ADMIN_EMAIL, "wrong password").await;
    assert!(rejected.is_none(), "a wrong password gets no session");

    let (status, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert!(status.is_success() || status.is_redirection(), "{status}");
    let cookie = cookie.expect("a session cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );

    let projects = http
        .get(format!("{}/projects", server.url))
        .header(COOKIE, cookie_pair(&cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(projects.status(), StatusCode::OK);
    let html = projects.text().await.unwrap();
    assert!(html.contains("Wholesale"), "the demo project is listed");
    assert!(html.contains(ADMIN_EMAIL));

    let (status, listed) = server.server_fn(&cookie, "list_projects", &[]).await;
    assert_eq!(status, StatusCode::OK);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["name"], "Wholesale");
    assert_eq!(listed[0]["executable"], true);

    // Signing out ends the session on the server, not just in the browser.
    let (status, _) = server.server_fn(&cookie, "logout", &[]).await;
    assert!(status.is_success() || status.is_redirection(), "{status}");
    let after = http
        .get(format!("{}/projects", server.url))
        .header(COOKIE, cookie_pair(&cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(after.headers()[LOCATION], "/login");

    assert!(
        server.terminate().success(),
        "SIGTERM stops the server cleanly"
    );
    let log = server.log_text();
    assert!(
        log.contains("shutdown requested") && log.contains("stopped"),
        "{log}"
    );
    assert!(
        log.contains("method=GET") && log.contains("path=/readyz") && log.contains("status=200"),
        "{log}"
    );
    assert!(
        log.contains("demo warehouse: table written") && log.contains("table=\"lineitem\""),
        "{log}"
    );
    assert!(
        !log.contains(ADMIN_PASSWORD),
        "the password is never logged"
    );

    // The demo data is real and queryable, and the CLI sees the project.
    let warehouse = data.join("warehouses/wholesale.sqlite");
    assert!(warehouse.metadata().unwrap().len() > 100_000);
    let output = cassis(&data)
        .args(["project", "list", "--json"])
        .output()
        .unwrap();
    let projects: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(projects[0]["name"], "Wholesale");
    assert_eq!(projects[0]["connected"], true);
}

#[tokio::test]
async fn cross_site_writes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestApp::start(&dir.path().join("data"), &["--no-demo"]).await;
    let response = server
        .post(format!("{}/api/login", server.url))
        .header(ORIGIN, "https://evil.example")
        .form(&[("email", ADMIN_EMAIL), ("password", ADMIN_PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.headers().get(SET_COOKIE).is_none());
}

#[tokio::test]
async fn a_generated_admin_password_is_printed_once_and_works() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |c| {
        c.env_remove("CASSIS_ADMIN_PASSWORD").arg("--no-demo");
    });
    server.terminate();
    let printed = std::fs::read_to_string(data.with_extension("stdout")).unwrap();
    let password = printed
        .lines()
        .find_map(|line| line.trim().strip_prefix("password: "))
        .expect("the generated password is printed")
        .to_owned();
    assert!(password.len() >= 20);
    assert!(
        !server.log_text().contains(&password),
        "the password is not in the log"
    );

    // A second start neither prints nor changes it.
    let server = Server::start(&data, |c| {
        c.env_remove("CASSIS_ADMIN_PASSWORD").arg("--no-demo");
    });
    let (_, cookie) = server.sign_in(ADMIN_EMAIL, &password).await;
    assert!(cookie.is_some(), "the printed password signs in");
    drop(server);
    let printed_again = std::fs::read_to_string(data.with_extension("stdout")).unwrap();
    assert!(!printed_again.contains("password:"), "{printed_again}");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), |c| {
        c.arg("--no-demo");
    });
    // Only the head is sent: the server answers from the declared length and
    // may close the connection, so a client still writing 3 MB would get a
    // broken pipe instead of the answer.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = server.url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
    let head = format!(
        "POST /api/login HTTP/1.1\r\nHost: {authority}\r\nOrigin: {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        server.url,
        3 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 1024];
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("answered without waiting for the body")
        .unwrap();
    let status_line = String::from_utf8_lossy(&answer[..read]);
    let status = status_line.split_whitespace().nth(1).unwrap_or_default();
    assert_eq!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE.as_str(),
        "{status_line}"
    );
}

#[tokio::test]
async fn the_same_server_runs_on_postgresql() {
    let Some(Metadata::Postgres(url)) = Metadata::postgres("http").await else {
        return;
    };

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |c| {
        c.args(["--database-url", &url]);
    });
    let (_, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let cookie = cookie.expect("signed in against PostgreSQL");
    let (_, settings) = server.server_fn(&cookie, "instance_info", &[]).await;
    assert!(settings.contains("PostgreSQL"), "{settings}");
    let (_, projects) = server.server_fn(&cookie, "list_projects", &[]).await;
    assert!(projects.contains("Wholesale"), "{projects}");
    assert!(server.terminate().success());
    assert!(
        !data.join("cassis.sqlite").exists(),
        "no SQLite metadata when PostgreSQL is configured"
    );
}

#[tokio::test]
async fn roles_and_sessions_are_enforced_by_the_server_not_the_page() {
    roles_and_sessions(Metadata::Sqlite).await;
}

/// Users, their roles and their sessions are the store's: the same on
/// PostgreSQL.
#[tokio::test]
async fn roles_and_sessions_are_enforced_on_postgresql() {
    if let Some(metadata) = Metadata::postgres("roles").await {
        roles_and_sessions(metadata).await;
    }
}

async fn roles_and_sessions(metadata: Metadata) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &metadata.args(&["--no-demo"])).await;
    common::create_user(
        metadata.cassis(&data),
        "viewer@example.com",
        "viewer",
        "viewer password",
    );

    let (status, body) = server
        .server_fn("cassis_session=forged", "list_projects", &[])
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("Unauthenticated"), "{body}");

    let (_, viewer) = server
        .sign_in("viewer@example.com", "viewer password")
        .await;
    let viewer = viewer.expect("the viewer signs in");
    let (status, body) = server.server_fn(&viewer, "list_users", &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, _) = server.server_fn(&viewer, "list_projects", &[]).await;
    assert_eq!(status, StatusCode::OK, "viewers may see projects");

    let (_, admin) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, body) = server.server_fn(&admin.unwrap(), "list_users", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        body.contains("viewer@example.com") && body.contains(ADMIN_EMAIL),
        "{body}"
    );
    metadata.assert_used(&data);
}

/// Calls a server function with form fields, as an `ActionForm` posts them.
#[tokio::test]
async fn admins_manage_projects_editors_shape_ontologies_viewers_read() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &["--no-demo"]).await;
    for (email, role) in [
        ("viewer@example.com", "viewer"),
        ("editor@example.com", "editor"),
    ] {
        common::create_user(cassis(&data), email, role, "a long password");
    }
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let editor = server
        .sign_in("editor@example.com", "a long password")
        .await
        .1
        .unwrap();
    let viewer = server
        .sign_in("viewer@example.com", "a long password")
        .await
        .1
        .unwrap();

    let ddl = "CREATE TABLE drivers (driver_id INTEGER PRIMARY KEY, name TEXT);\n\
               CREATE TABLE results (result_id INTEGER PRIMARY KEY, driver_id INTEGER REFERENCES drivers (driver_id), points REAL);";
    let new_project = [
        ("name", "F1 schema"),
        ("source", "schema_only"),
        ("dialect", "postgres"),
        ("bootstrap", "ddl"),
        ("ddl", ddl),
    ];
    let (status, _) = server
        .server_fn(&editor, "create_project", &new_project)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only admins create projects");

    // Bad input is refused with a message the form shows, and creates nothing.
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "X"),
                ("dialect", "databricks"),
                ("connection_url", "databricks://host/x"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains("Cassis cannot connect to databricks yet"),
        "{body}"
    );
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "X"),
                (
                    "connection_url",
                    &format!(
                        "sqlite://{}",
                        data.join("warehouses/missing.sqlite").display()
                    ),
                ),
                ("bootstrap", "source"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("cannot connect to the data source"), "{body}");
    // A file outside the warehouse folder (here the server's own database)
    // is refused before Cassis opens it.
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "X"),
                (
                    "connection_url",
                    &format!("sqlite://{}", data.join("cassis.sqlite").display()),
                ),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("is outside the warehouse folder"), "{body}");
    // So is one reached by a percent-encoded `../`, which sqlx decodes
    // before it opens the file: here a file that is no metadata database,
    // so nothing after the folder check would stop it.
    let secret = data.join("secret.sqlite");
    {
        let url = format!("sqlite://{}?mode=rwc", secret.display());
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        sqlx::query("CREATE TABLE secrets (name TEXT, value TEXT)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    for encoded in ["..%2fsecret.sqlite", "%2e%2e%2fsecret.sqlite"] {
        let (status, body) = server
            .server_fn(
                &admin,
                "create_project",
                &[
                    ("name", "X"),
                    (
                        "connection_url",
                        &format!("sqlite://{}/{encoded}", data.join("warehouses").display()),
                    ),
                    ("bootstrap", "source"),
                ],
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{encoded}: {body}");
        assert!(body.contains("is outside the warehouse folder"), "{body}");
    }
    let (_, projects) = server.server_fn(&admin, "list_projects", &[]).await;
    assert_eq!(projects, "[]");

    let (status, body) = server
        .server_fn(&admin, "create_project", &new_project)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id: String = serde_json::from_str(&body).unwrap();

    // Everyone reads the bootstrapped draft; only editors and admins change it.
    let (status, body) = server
        .server_fn(&viewer, "get_draft", &[("project_id", &id)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let draft: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(draft["ontology"]["objects"].as_array().unwrap().len(), 2);
    assert_eq!(draft["can_edit"], false);
    let yaml = draft["yaml"].as_str().unwrap().to_owned();
    for function in ["save_draft", "publish_draft", "check_regressions"] {
        let (status, body) = server
            .server_fn(&viewer, function, &[("project_id", &id), ("yaml", &yaml)])
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{function}: {body}");
        assert!(body.contains("EditorsOnly"), "{body}");
    }
    let (status, body) = server
        .server_fn(
            &editor,
            "save_draft",
            &[("project_id", &id), ("yaml", "objects: [")],
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("Nothing was saved: line"), "{body}");
    let (status, body) = server
        .server_fn(
            &editor,
            "save_draft",
            &[
                ("project_id", &id),
                ("yaml", &yaml.replace("name: drivers\n", "name: Drivers\n")),
                ("revision", "1"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "a draft may keep problems: {body}");
    assert!(body.contains("objects.Drivers.name"), "{body}");
    let (status, body) = server
        .server_fn(&editor, "publish_draft", &[("project_id", &id)])
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("Nothing was published"), "{body}");
    let (status, _) = server
        .server_fn(
            &editor,
            "save_draft",
            &[("project_id", &id), ("yaml", &yaml), ("revision", "2")],
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = server
        .server_fn(
            &editor,
            "publish_draft",
            &[("project_id", &id), ("note", "first")],
        )
        .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "1"));

    // The YAML export needs a session of the project's organization.
    let export = format!("{}/projects/{id}/ontology.yaml", server.url);
    let response = server.get(&export).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let response = server
        .get(format!("{export}?version=1"))
        .header(COOKIE, cookie_pair(&viewer))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"f1-schema-v1.yaml\""
    );
    assert_eq!(response.text().await.unwrap(), yaml);
    let response = server
        .get(format!("{export}?version=7"))
        .header(COOKIE, cookie_pair(&viewer))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    // Deleting needs an admin and the name typed again.
    let (status, _) = server
        .server_fn(
            &editor,
            "delete_project",
            &[("id", &id), ("confirm", "F1 schema")],
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = server
        .server_fn(&admin, "delete_project", &[("id", &id), ("confirm", "F1")])
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body.contains("Type the project's name, F1 schema, to confirm."),
        "{body}"
    );
    let (status, _) = server
        .server_fn(
            &admin,
            "delete_project",
            &[("id", &id), ("confirm", "F1 schema")],
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = server
        .server_fn(&admin, "get_draft", &[("project_id", &id)])
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

/// The draft as two editors share it: a save over a draft someone else saved
/// since is refused with who and when, overwriting is deliberate, and every
/// replaced draft (by a save, a bootstrap, a roll back) can be restored.
#[tokio::test]
async fn a_stale_save_is_refused_and_replaced_drafts_can_be_restored() {
    stale_saves_and_restores(Metadata::Sqlite).await;
}

/// Drafts, their history and the versions published from them are the
/// store's: the same on PostgreSQL.
#[tokio::test]
async fn drafts_and_versions_behave_the_same_on_postgresql() {
    if let Some(metadata) = Metadata::postgres("drafts").await {
        stale_saves_and_restores(metadata).await;
    }
}

async fn stale_saves_and_restores(metadata: Metadata) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &metadata.args(&["--no-demo"])).await;
    for (email, role) in [
        ("ada@example.com", "editor"),
        ("bob@example.com", "editor"),
        ("viewer@example.com", "viewer"),
    ] {
        common::create_user(metadata.cassis(&data), email, role, "a long password");
    }
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let session = |email: &'static str| {
        let server = &server;
        async move { server.sign_in(email, "a long password").await.1.unwrap() }
    };
    let (ada, bob, viewer) = (
        session("ada@example.com").await,
        session("bob@example.com").await,
        session("viewer@example.com").await,
    );
    let ddl = "CREATE TABLE drivers (driver_id INTEGER PRIMARY KEY, name TEXT);\n\
               CREATE TABLE results (result_id INTEGER PRIMARY KEY, driver_id INTEGER REFERENCES drivers (driver_id), points REAL);";
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "F1"),
                ("source", "schema_only"),
                ("dialect", "postgres"),
                ("bootstrap", "ddl"),
                ("ddl", ddl),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id: String = serde_json::from_str(&body).unwrap();
    let draft = |who: &String| {
        let (server, id, who) = (&server, id.clone(), who.clone());
        async move {
            let (status, body) = server
                .server_fn(&who, "get_draft", &[("project_id", &id)])
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            serde_json::from_str::<serde_json::Value>(&body).unwrap()
        }
    };
    let restore = |who: &String, revision: &str| {
        let (server, id, who, revision) = (&server, id.clone(), who.clone(), revision.to_owned());
        async move {
            server
                .server_fn(
                    &who,
                    "restore_draft",
                    &[("project_id", &id), ("revision", &revision)],
                )
                .await
        }
    };

    // Both open revision 1, the draft the project was created with.
    let (for_ada, for_bob) = (draft(&ada).await, draft(&bob).await);
    assert_eq!(
        (&for_ada["revision"], &for_bob["revision"]),
        (&1.into(), &1.into())
    );
    let yaml = for_ada["yaml"].as_str().unwrap().to_owned();
    let adas = yaml.replace("name: drivers\n", "name: Drivers\n");
    let bobs = yaml.replace("name: results\n", "name: Results\n");
    assert!(adas != yaml && bobs != yaml);
    let save = |who: &String, yaml: &str, revision: &str, overwrite: bool| {
        let (server, id, who) = (&server, id.clone(), who.clone());
        let (yaml, revision) = (yaml.to_owned(), revision.to_owned());
        async move {
            let overwrite = overwrite.to_string();
            server
                .server_fn(
                    &who,
                    "save_draft",
                    &[
                        ("project_id", id.as_str()),
                        ("yaml", &yaml),
                        ("revision", &revision),
                        ("overwrite", &overwrite),
                    ],
                )
                .await
        }
    };
    let (status, body) = save(&ada, &adas, "1", false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["revision"],
        2
    );

    // Bob's save over revision 1 is refused, naming Ada; her work stays.
    let (status, body) = save(&bob, &bobs, "1", false).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body.contains("DraftChanged") && body.contains("ada@example.com"),
        "{body}"
    );
    let now = draft(&bob).await;
    assert_eq!(now["revision"], 2);
    assert!(now["yaml"].as_str().unwrap().contains("name: Drivers\n"));

    // Saving again with overwrite replaces it deliberately.
    let (status, body) = save(&bob, &bobs, "1", true).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = draft(&bob).await;
    assert_eq!(now["revision"], 3);
    assert_eq!(now["yaml"].as_str().unwrap(), bobs);

    // Viewers read the history but cannot restore; editors restore Ada's save.
    let (status, body) = server
        .server_fn(&viewer, "draft_history", &[("project_id", &id)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let history: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(history[0]["revision"], 2);
    assert_eq!(history[0]["saved_by"], "ada@example.com");
    assert_eq!(history[0]["reason"], "saved in the editor");
    assert_eq!(
        history[1]["reason"],
        "bootstrapped when the project was created"
    );
    let (status, body) = restore(&viewer, "2").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = restore(&bob, "2").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "4"));
    assert_eq!(draft(&bob).await["yaml"].as_str().unwrap(), adas);
    let (status, _) = restore(&bob, "99").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Bootstrapping replaces the draft outright; restore brings it back.
    let (status, body) = server
        .server_fn(
            &bob,
            "bootstrap_draft",
            &[("project_id", &id), ("from", "ddl"), ("ddl", ddl)],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(draft(&bob).await["yaml"].as_str().unwrap(), yaml);
    let (status, body) = restore(&bob, "4").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "6"));
    assert_eq!(draft(&bob).await["yaml"].as_str().unwrap(), adas);

    // So does rolling back to a published version.
    let (status, body) = restore(&bob, "1").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "7"));
    let (status, body) = server
        .server_fn(&bob, "publish_draft", &[("project_id", &id)])
        .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "1"), "{body}");
    let (status, body) = save(&ada, &adas, "7", false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = server
        .server_fn(&ada, "roll_back", &[("project_id", &id), ("to", "1")])
        .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "2"), "{body}");
    let now = draft(&ada).await;
    assert_eq!(
        (&now["revision"], now["yaml"].as_str().unwrap()),
        (&9.into(), yaml.as_str())
    );
    let (_, body) = server
        .server_fn(&ada, "draft_history", &[("project_id", &id)])
        .await;
    let history: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(history[0]["revision"], 8);
    let (status, body) = restore(&ada, "8").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "10"));
    assert_eq!(draft(&ada).await["yaml"].as_str().unwrap(), adas);
    metadata.assert_used(&data);
}

#[tokio::test]
async fn a_members_only_project_is_invisible_to_others_in_the_app_and_over_mcp() {
    members_only(Metadata::Sqlite).await;
}

/// API keys, project members and the chats asked over MCP are the store's:
/// the same on PostgreSQL.
#[tokio::test]
async fn a_members_only_project_is_invisible_on_postgresql() {
    if let Some(metadata) = Metadata::postgres("members").await {
        members_only(metadata).await;
    }
}

async fn members_only(metadata: Metadata) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &metadata.args(&[])).await;
    common::create_user(
        metadata.cassis(&data),
        "viewer@example.com",
        "viewer",
        "a long password",
    );
    let key = |email: &str| common::api_key(metadata.cassis(&data), email, "test", &[]);
    let (viewer_key, admin_key) = (key("viewer@example.com"), key(ADMIN_EMAIL));
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let viewer = server
        .sign_in("viewer@example.com", "a long password")
        .await
        .1
        .unwrap();

    let listed = server
        .call_tool(&viewer_key, "list_projects", serde_json::json!({}))
        .await;
    let wholesale = listed["projects"][0]["id"].as_str().unwrap().to_owned();
    let ask = serde_json::json!({"project_id": wholesale, "question": "how many customers?"});
    assert_eq!(
        server
            .call_tool(&viewer_key, "ask_question", ask.clone())
            .await["status"],
        "answered"
    );

    // The admin limits the project to its members, and lists none.
    let (status, body) = server
        .server_fn(
            &admin,
            "set_project_access",
            &[("id", &wholesale), ("access", "members")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, body) = server
        .server_fn(&admin, "get_project_access", &[("id", &wholesale)])
        .await;
    assert!(
        body.contains(r#""access":"members""#) && body.contains("viewer@example.com"),
        "{body}"
    );

    assert_eq!(
        server
            .call_tool(&viewer_key, "list_projects", serde_json::json!({}))
            .await["projects"],
        serde_json::json!([])
    );
    let refused = server
        .call_tool(&viewer_key, "ask_question", ask.clone())
        .await;
    let made_up = server.call_tool(&viewer_key,
        "ask_question",
        serde_json::json!({"project_id": "00000000-0000-4000-8000-000000000000", "question": "how many customers?"}),
    )
    .await;
    assert_eq!(refused["status"], "error");
    // The same words as for a project that does not exist, id aside.
    assert_eq!(
        refused["error"].as_str().unwrap().replace(&wholesale, "ID"),
        made_up["error"]
            .as_str()
            .unwrap()
            .replace("00000000-0000-4000-8000-000000000000", "ID")
    );
    let (_, projects) = server.server_fn(&viewer, "list_projects", &[]).await;
    assert_eq!(projects, "[]");
    let (status, _) = server
        .server_fn(&viewer, "get_draft", &[("project_id", &wholesale)])
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        server
            .call_tool(&admin_key, "ask_question", ask.clone())
            .await["status"],
        "answered"
    );

    // Listed as a member, the viewer is back.
    let viewer_id = {
        let (_, body) = server
            .server_fn(&admin, "get_project_access", &[("id", &wholesale)])
            .await;
        let view: serde_json::Value = serde_json::from_str(&body).unwrap();
        view["users"][0]["id"].as_str().unwrap().to_owned()
    };
    let (status, _) = server
        .server_fn(
            &admin,
            "set_project_access",
            &[
                ("id", &wholesale),
                ("access", "members"),
                ("members[0]", &viewer_id),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        server.call_tool(&viewer_key, "ask_question", ask).await["status"],
        "answered"
    );
    let (status, body) = server
        .server_fn(
            &viewer,
            "set_project_access",
            &[("id", &wholesale), ("access", "organization")],
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "only admins change access: {body}"
    );
    metadata.assert_used(&data);
}

/// Pages cannot be framed (clickjacking), carry a foreign `<base>` or
/// plugin, post forms off-site, leak their URLs to other sites, or be
/// sniffed into another content type.
#[tokio::test]
async fn pages_send_security_headers() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestApp::start(&dir.path().join("data"), &["--no-demo"]).await;
    let (_, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let cookie = cookie.expect("a session cookie");
    for (path, cookie) in [("/login", None), ("/projects", Some(cookie_pair(&cookie)))] {
        let mut request = server.get(format!("{}{path}", server.url));
        if let Some(cookie) = cookie {
            request = request.header(COOKIE, cookie);
        }
        let page = request.send().await.unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{path}");
        page.assert_page_headers("form-action 'self'");
    }
}

/// `next` after signing in stays on this server, whatever a browser would
/// make of it: tabs it drops, backslashes it reads as slashes, encodings of
/// either.
#[tokio::test]
async fn sign_in_never_redirects_to_another_site() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestApp::start(&dir.path().join("data"), &["--no-demo"]).await;
    let (_, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let cookie = cookie.expect("a session cookie");
    let bypasses = [
        "/\t/evil.example",
        "/%09/evil.example",
        "/%5Cevil.example",
        "/\\evil.example",
        "//evil.example",
        "https://evil.example",
        "/%2F%2Fevil.example",
        " /evil",
    ];
    let good = "/oauth/authorize?client_id=cassis-1&redirect_uri=https%3A%2F%2Fclient.example%2Fcb";
    // Signed in already, the login page sends the browser on.
    for (next, expected) in bypasses
        .iter()
        .map(|next| (*next, "/projects"))
        .chain([(good, good)])
    {
        let response = server
            .get(format!("{}/login", server.url))
            .query(&[("next", next)])
            .header(COOKIE, cookie_pair(&cookie))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_redirection(), "{next:?}");
        assert_eq!(response.headers()[LOCATION], expected, "{next:?}");
    }
    // Signing in with the plain login form.
    for (next, expected) in bypasses
        .iter()
        .map(|next| (*next, "/projects"))
        .chain([(good, good)])
    {
        let response = server
            .post(format!("{}/api/login", server.url))
            .header(ORIGIN, &server.url)
            .header("accept", "text/html")
            .form(&[
                ("email", ADMIN_EMAIL),
                ("password", ADMIN_PASSWORD),
                ("next", next),
            ])
            .send()
            .await
            .unwrap();
        assert!(response.status().is_redirection(), "{next:?}");
        assert_eq!(response.headers()[LOCATION], expected, "{next:?}");
    }
}

/// The project form and `cassis project create` read a data source by one
/// rule: each input below is refused by both, with the same message, and
/// neither creates a project.
#[tokio::test]
async fn the_app_and_the_cli_refuse_the_same_data_sources() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let outside = dir.path().join("elsewhere.sqlite");
    let outside = format!("sqlite://{}", outside.display());
    let cases: [(&str, &str, &str); 4] = [
        (
            "mysql",
            "postgres://cassis:s3cret@db.example.com/f1",
            "`postgres://cassis:***@db.example.com/f1` is a postgres URL, but the dialect chosen is mysql.",
        ),
        (
            "databricks",
            "databricks://host/x",
            "Cassis cannot connect to databricks yet; choose a schema-only source",
        ),
        (
            "",
            "oracle://host/x",
            "Cassis connects to sqlite://, postgres://, mysql://, snowflake:// and bigquery:// URLs, not `oracle://host/x`.",
        ),
        (
            "sqlite",
            &outside,
            "SQLite sources must be files in it (the server's --warehouse-dir).",
        ),
    ];
    for (dialect, url, message) in cases {
        let form = [
            ("name", "Refused"),
            ("dialect", dialect),
            ("connection_url", url),
        ];
        let (status, body) = server.server_fn(&admin, "create_project", &form).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains(message), "the app: {body}");

        let mut command = cassis(&data);
        command.args(["project", "create", "--name", "Refused", "--warehouse", url]);
        if !dialect.is_empty() {
            command.args(["--dialect", dialect]);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains(message), "the command line: {err}");
        assert!(!err.contains("s3cret") && !body.contains("s3cret"));
    }
    let listed = cassis(&data)
        .args(["project", "list", "--json"])
        .output()
        .unwrap();
    let projects: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = projects
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(!names.contains(&"Refused"), "{names:?}");
}

#[tokio::test]
async fn the_metric_form_adds_a_ratio_and_names_its_problems_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestApp::start(&data, &["--no-demo"]).await;
    let admin = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();
    let ddl =
        "CREATE TABLE results (result_id INTEGER PRIMARY KEY, position INTEGER, points REAL);";
    let (status, body) = server
        .server_fn(
            &admin,
            "create_project",
            &[
                ("name", "Ratios"),
                ("source", "schema_only"),
                ("dialect", "postgres"),
                ("bootstrap", "ddl"),
                ("ddl", ddl),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id: String = serde_json::from_str(&body).unwrap();
    let add = |fields: [(&'static str, &'static str); 7]| {
        let mut form = vec![
            ("project_id", id.as_str()),
            ("metric[label]", ""),
            ("metric[object]", "results"),
            ("metric[description]", ""),
            ("metric[synonyms]", ""),
        ];
        form.extend(fields);
        let (server, admin) = (&server, &admin);
        async move { server.server_fn(admin, "add_metric", &form).await }
    };
    let simple = |name, aggregate, expr, filters| {
        [
            ("metric[name]", name),
            ("metric[kind]", "simple"),
            ("metric[aggregate]", aggregate),
            ("metric[expr]", expr),
            ("metric[filters]", filters),
            ("metric[numerator]", ""),
            ("metric[denominator]", ""),
        ]
    };
    for metric in [
        simple("wins", "count", "", "position = 1"),
        simple("starts", "count", "", ""),
    ] {
        let (status, body) = add(metric).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "[]"));
    }
    // The aggregate a simple metric would take is sent along, as the form
    // sends every field, and left out of the ratio.
    let (status, body) = add([
        ("metric[name]", "win_rate"),
        ("metric[kind]", "ratio"),
        ("metric[aggregate]", "count"),
        ("metric[expr]", ""),
        ("metric[filters]", ""),
        ("metric[numerator]", "wins"),
        ("metric[denominator]", "starts"),
    ])
    .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "[]"));
    // A ratio without a numerator, of itself a ratio: each problem next to
    // its field, and nothing saved. Conditions left in the form's hidden
    // field are not the ratio's, and not held against it.
    let (status, body) = add([
        ("metric[name]", "bad_rate"),
        ("metric[kind]", "ratio"),
        ("metric[aggregate]", "count"),
        ("metric[expr]", ""),
        ("metric[filters]", "points > 0"),
        ("metric[numerator]", ""),
        ("metric[denominator]", "win_rate"),
    ])
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let problems: Vec<(String, String)> = serde_json::from_str(&body).unwrap();
    let fields: Vec<&str> = problems.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(fields, ["numerator", "denominator"], "{body}");
    assert!(problems[1].1.contains("itself a ratio"), "{body}");
    // A type the form does not offer is refused as such.
    let (status, body) = add([
        ("metric[name]", "odd"),
        ("metric[kind]", "conversion"),
        ("metric[aggregate]", "count"),
        ("metric[expr]", ""),
        ("metric[filters]", ""),
        ("metric[numerator]", ""),
        ("metric[denominator]", ""),
    ])
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("`conversion` is not a metric type"), "{body}");
    // A rolling window that is no number, and a level read at no time
    // attribute: each named next to its field, through the same form.
    let (status, body) = server
        .server_fn(
            &admin,
            "add_metric",
            &[
                ("project_id", id.as_str()),
                ("metric[name]", "rolling_wins"),
                ("metric[label]", ""),
                ("metric[object]", "results"),
                ("metric[kind]", "cumulative"),
                ("metric[aggregate]", "count"),
                ("metric[expr]", ""),
                ("metric[filters]", ""),
                ("metric[description]", ""),
                ("metric[synonyms]", ""),
                ("metric[of]", "wins"),
                ("metric[window]", "a few"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let problems: Vec<(String, String)> = serde_json::from_str(&body).unwrap();
    assert_eq!(problems.len(), 1, "{body}");
    assert_eq!(problems[0].0, "window", "{body}");
    let (status, body) = server
        .server_fn(
            &admin,
            "add_metric",
            &[
                ("project_id", id.as_str()),
                ("metric[name]", "closing_points"),
                ("metric[label]", ""),
                ("metric[object]", "results"),
                ("metric[kind]", "simple"),
                ("metric[aggregate]", "sum"),
                ("metric[expr]", "points"),
                ("metric[filters]", ""),
                ("metric[description]", ""),
                ("metric[synonyms]", ""),
                ("metric[semi_additive_time]", "position"),
                ("metric[semi_additive_take]", "last"),
                ("metric[semi_additive_per]", ""),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let problems: Vec<(String, String)> = serde_json::from_str(&body).unwrap();
    assert_eq!(problems.len(), 1, "{body}");
    assert_eq!(problems[0].0, "semi_additive", "{body}");
    assert!(problems[0].1.contains("not a time attribute"), "{body}");

    let (status, body) = server
        .server_fn(&admin, "get_draft", &[("project_id", &id)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let draft: serde_json::Value = serde_json::from_str(&body).unwrap();
    let yaml = draft["yaml"].as_str().unwrap();
    assert!(
        yaml.contains("- name: win_rate\n  object: results\n  type: ratio\n  numerator: wins\n  denominator: starts\n"),
        "{yaml}"
    );
    assert!(!yaml.contains("bad_rate"), "{yaml}");
}
