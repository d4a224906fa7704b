//! What the warehouse suites (MariaDB, Snowflake, BigQuery) do alike: the
//! admin app's project form on a source, the project as MCP lists it, and a
//! statement past the question timeout.

use super::app::Reach;
use super::{ADMIN_EMAIL, ADMIN_PASSWORD, cassis, ok, run_with_stdin};
use cassis_core::engine::execute::{ExecuteError, all_rows};
use cassis_core::warehouse::Warehouse;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The first admin, made with `cassis user create` before any server runs.
pub fn first_admin(data_dir: &Path) {
    let mut create = cassis(data_dir);
    create.args(["user", "create", "--email", ADMIN_EMAIL, "--role", "admin"]);
    ok(run_with_stdin(create, &format!("{ADMIN_PASSWORD}\n")));
}

/// `cassis project create --introspect` of `name` on `url`: the id it
/// printed and what it reported on standard error.
pub fn introspected_project(data_dir: &Path, name: &str, url: &str) -> (String, String) {
    let (id, bootstrapped) = ok(cassis(data_dir)
        .args(["project", "create", "--name", name])
        .args(["--warehouse", url, "--introspect"])
        .output()
        .unwrap());
    (id.trim().to_owned(), bootstrapped)
}

/// `cassis ontology export --draft` of `project`: the draft as YAML.
pub fn draft_yaml(data_dir: &Path, project: &str) -> String {
    ok(cassis(data_dir)
        .args(["ontology", "export", "--project", project, "--draft"])
        .output()
        .unwrap())
    .0
}

/// Signs the first admin in; the session cookie.
pub async fn admin_session(server: &impl Reach) -> String {
    let (status, cookie) = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(status, StatusCode::OK);
    cookie.expect("signed in")
}

/// The project form's "Test connection" on `url`: the status and the report.
pub async fn test_connection(server: &impl Reach, cookie: &str, url: &str) -> (StatusCode, String) {
    server
        .server_fn(cookie, "test_connection", &[("connection_url", url)])
        .await
}

/// Creates "F1 from the form" on `url` with the project form, bootstrapped
/// from the source's tables.
pub async fn create_from_the_form(server: &impl Reach, cookie: &str, url: &str) {
    let (status, created) = server
        .server_fn(
            cookie,
            "create_project",
            &[
                ("name", "F1 from the form"),
                ("source", "connect"),
                ("connection_url", url),
                ("bootstrap", "source"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{created}");
}

/// `project` as MCP's `list_projects` shows it to `key`, and the whole list.
pub async fn listed_project(server: &impl Reach, key: &str, project: &str) -> (Value, Value) {
    let projects = server.call_tool(key, "list_projects", json!({})).await;
    let listed = projects["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == project)
        .cloned()
        .unwrap_or_else(|| panic!("{projects:#}"));
    (listed, projects)
}

/// Runs `slow` under `timeout`: it ends as a timeout, within `within`.
pub async fn times_out(warehouse: &Warehouse, slow: &str, timeout: Duration, within: Duration) {
    let started = Instant::now();
    let outcome = all_rows(warehouse, slow, timeout).await;
    assert!(
        matches!(outcome, Err(ExecuteError::Timeout(t)) if t == timeout),
        "{outcome:?}"
    );
    assert!(started.elapsed() < within, "{:?}", started.elapsed());
}

/// Waits up to ten seconds for `done`; `failure` says what did not happen.
pub async fn within_ten_seconds(done: impl Fn() -> bool, failure: impl Fn() -> String) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(10), "{}", failure());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A new statement on `warehouse` answers at once.
pub async fn answers_at_once(warehouse: &Warehouse) {
    let rows = all_rows(warehouse, "SELECT 42 AS answer", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(rows, vec![vec![json!(42)]]);
}
