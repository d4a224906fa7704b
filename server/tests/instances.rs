//! Several `cassis serve` processes on one PostgreSQL metadata database, as
//! the README's deployment section runs them behind a load balancer: what
//! one instance does, the other sees (chats, revocations, publishes, OAuth
//! tokens), and a restart of the database in the middle of load is answered
//! with quick 503s, recovered from without a restart, and loses nothing that
//! was acknowledged.

mod common;

use common::app::Reach;
use common::session::{client, cookie_pair};
use common::{ADMIN_EMAIL, ADMIN_PASSWORD, Metadata, Server, cassis, stderr, stdout};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, ORIGIN};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The address clients know the instances by (the load balancer's); the
/// instances share it, so an OAuth token names the same issuer and resource
/// whichever instance issued it.
const PUBLIC_URL: &str = "http://cassis.lb.test";
/// Every instance seals the shared signing keys with it.
const SIGNING_SECRET: &str = "the one secret every instance of this deployment is given";
/// The requirement: a revoked key or disabled user is refused everywhere
/// within a second.
const INVALIDATION_LIMIT: Duration = Duration::from_secs(1);

/// One instance of the deployment: its own data directory and port, the
/// shared database, warehouse folder (the demo's SQLite warehouse is one
/// file every instance reads), signing secret and public URL.
fn instance(dir: &Path, name: &str, database: &str) -> Server {
    let database = database.to_owned();
    let warehouses = dir.join("warehouses");
    Server::start(&dir.join(name), move |command| {
        command
            .env("CASSIS_DATABASE_URL", &database)
            .env("CASSIS_WAREHOUSE_DIR", &warehouses)
            .env("CASSIS_SIGNING_KEY_SECRET", SIGNING_SECRET)
            .env("CASSIS_PUBLIC_URL", PUBLIC_URL)
            .args(["--mcp-calls-per-minute", "0"]);
    })
}

/// The CLI on the shared database, as an operator runs it beside the servers.
fn cli(dir: &Path, database: &str) -> Command {
    let mut command = cassis(&dir.join("cli"));
    command
        .env("CASSIS_NO_DEMO", "1")
        .env("CASSIS_DATABASE_URL", database)
        .env("CASSIS_SIGNING_KEY_SECRET", SIGNING_SECRET);
    command
}

fn create_key(dir: &Path, database: &str, user: &str, name: &str) -> String {
    common::api_key(cli(dir, database), user, name, &[])
}

async fn ping(server: &Server, key: &str) -> StatusCode {
    server.mcp_tool(key, "ping", json!({})).await.status()
}

async fn ask(server: &Server, key: &str, arguments: Value) -> Value {
    server.call_tool(key, "ask_question", arguments).await
}

/// How long after `since` each of `servers` first refused `key` with 401,
/// asking them in turn; `None` for one that still accepted it after `limit`.
async fn refused_after(
    servers: [&Server; 2],
    key: &str,
    since: Instant,
    limit: Duration,
) -> [Option<Duration>; 2] {
    let mut refused = [None; 2];
    while refused.iter().any(Option::is_none) && since.elapsed() < limit {
        for (server, refused) in servers.iter().zip(&mut refused) {
            if refused.is_none() {
                match ping(server, key).await {
                    StatusCode::UNAUTHORIZED => *refused = Some(since.elapsed()),
                    StatusCode::OK => {}
                    other => panic!("a ping got {other}"),
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    refused
}

/// `users` or keys as a server function lists them: the id of the one whose
/// `field` is `value`.
fn id_where(list: &str, field: &str, value: &str) -> String {
    let rows: Vec<Value> = serde_json::from_str(list).unwrap();
    rows.iter()
        .find(|row| row[field] == value)
        .unwrap_or_else(|| panic!("no {field} {value} in {list}"))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_postgresql_share_chats_credentials_versions_and_signing_keys() {
    let Some(Metadata::Postgres(database)) = Metadata::postgres("instances").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // One after the other: the first creates the demo project, the second
    // finds it.
    let a = instance(dir, "a", &database);
    let b = instance(dir, "b", &database);
    let admin_key = create_key(dir, &database, ADMIN_EMAIL, "admin agent");
    common::create_user(
        cli(dir, &database),
        "viewer@example.com",
        "viewer",
        "the viewer's password",
    );

    // A chat started on one instance continues on the other: the follow-up
    // only means "orders by priority for France" with the first turn read.
    let projects = a.call_tool(&admin_key, "list_projects", json!({})).await;
    let project = projects["projects"][0]["id"].as_str().unwrap().to_owned();
    let first = ask(
        &a,
        &admin_key,
        json!({"project_id": project, "question": "How many orders by order priority?"}),
    )
    .await;
    assert_eq!(first["status"], "answered", "{first:#}");
    assert_eq!(first["results"]["rows"].as_array().unwrap().len(), 5);
    let chat = first["chat_id"].clone();
    let follow_up = ask(
        &b,
        &admin_key,
        json!({"project_id": project, "chat_id": chat, "question": "only for customers in France"}),
    )
    .await;
    assert_eq!(follow_up["status"], "answered", "{follow_up:#}");
    assert_eq!(follow_up["chat_id"], chat);
    let rows = follow_up["results"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{follow_up:#}");
    assert!(
        rows.iter()
            .all(|row| row[0].as_str().unwrap().contains('-')),
        "still by priority: {follow_up:#}"
    );
    let answer = follow_up["answer"].as_str().unwrap();
    assert!(answer.contains("FRANCE"), "{answer}");
    let back_on_a = ask(
        &a,
        &admin_key,
        json!({"project_id": project, "chat_id": chat, "question": "How many orders by order priority?"}),
    )
    .await;
    assert_eq!(back_on_a["status"], "answered", "{back_on_a:#}");

    // A key revoked on one instance is refused by both within a second,
    // although both have just verified it: their caches would accept it for
    // 5 s more. A key first used now, so no entry is older.
    let (_, cookie_a) = a.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let cookie_a = cookie_a.expect("the admin signs in on a");
    let doomed_key = create_key(dir, &database, ADMIN_EMAIL, "doomed agent");
    let (status, keys) = a.server_fn(&cookie_a, "list_api_keys", &[]).await;
    assert_eq!(status, StatusCode::OK, "{keys}");
    let doomed_key_id = id_where(&keys, "name", "doomed agent");
    for server in [&a, &b] {
        assert_eq!(ping(server, &doomed_key).await, StatusCode::OK);
    }
    let (status, body) = a
        .server_fn(&cookie_a, "revoke_api_key", &[("id", &doomed_key_id)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let revoked = Instant::now();
    let key_refused = refused_after([&a, &b], &doomed_key, revoked, Duration::from_secs(10)).await;

    // A user disabled on one instance: their key, just verified by both, is
    // refused by both.
    let (_, users) = b
        .server_fn(
            &b.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap(),
            "list_users",
            &[],
        )
        .await;
    let viewer_id = id_where(&users, "email", "viewer@example.com");
    let viewer_key = create_key(dir, &database, "viewer@example.com", "viewer agent");
    for server in [&a, &b] {
        assert_eq!(ping(server, &viewer_key).await, StatusCode::OK);
    }
    let (status, body) = a
        .server_fn(
            &cookie_a,
            "set_user_disabled",
            &[("id", viewer_id.as_str()), ("disabled", "true")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let disabled = Instant::now();
    let user_refused =
        refused_after([&a, &b], &viewer_key, disabled, Duration::from_secs(10)).await;
    eprintln!(
        "refused after the revocation: a {:?}, b {:?}; after disabling the user: a {:?}, b {:?}",
        key_refused[0], key_refused[1], user_refused[0], user_refused[1]
    );
    // The caches would have kept accepting for up to 5 s; a second is the
    // requirement, and the notice takes milliseconds even on a busy machine.
    for (what, refused) in [
        ("revoked key", key_refused),
        ("disabled user", user_refused),
    ] {
        for (name, after) in ["a", "b"].iter().zip(refused) {
            let after = after.unwrap_or_else(|| panic!("{name} still accepts the {what}"));
            assert!(
                after < INVALIDATION_LIMIT,
                "{name} refused the {what} only after {after:?}"
            );
        }
    }
    // Other credentials were not disturbed.
    for server in [&a, &b] {
        assert_eq!(ping(server, &admin_key).await, StatusCode::OK);
    }

    // A publish on one instance is the latest version on both at once.
    let (status, body) = b
        .server_fn(
            &b.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap(),
            "add_rule",
            &[
                ("project_id", project.as_str()),
                ("name", "fiscal year"),
                ("text", "The fiscal year is the calendar year."),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = a
        .server_fn(
            &cookie_a,
            "publish_draft",
            &[
                ("project_id", project.as_str()),
                ("note", "published on a"),
                ("confirm_regressions", "true"),
            ],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let version: i64 = body.trim().parse().unwrap();
    assert_eq!(version, 2);
    for server in [&b, &a] {
        let fresh = ask(
            server,
            &admin_key,
            json!({"project_id": project, "question": "How many customers do we have?"}),
        )
        .await;
        assert_eq!(fresh["status"], "answered", "{fresh:#}");
        assert_eq!(fresh["ontology_version"], version, "{fresh:#}");
    }
    // The chat started before stays on the version it started on.
    let pinned = ask(
        &b,
        &admin_key,
        json!({"project_id": project, "chat_id": chat, "question": "How many orders by order priority?"}),
    )
    .await;
    assert_eq!(pinned["ontology_version"], 1, "{pinned:#}");

    // The signing keys are shared: a code approved on one instance is
    // exchanged on the other, and the token works on both.
    let token = oauth_token(&a, &b).await;
    for server in [&a, &b] {
        assert_eq!(ping(server, &token).await, StatusCode::OK);
    }
}

/// An access token: the client registers and the admin approves on
/// `approving`, the code is exchanged on `issuing`.
async fn oauth_token(approving: &Server, issuing: &Server) -> String {
    const REDIRECT: &str = "http://127.0.0.1:45454/callback";
    const VERIFIER: &str = "a-verifier-that-is-long-enough-for-rfc-7636-0123456789";
    let registered: Value = client()
        .post(format!("{}/oauth/register", approving.url))
        .json(&json!({
            "client_name": "instances test",
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none"
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client_id = registered["client_id"].as_str().unwrap().to_owned();
    let cookie = approving
        .sign_in(ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .1
        .unwrap();
    let cookie = cookie_pair(&cookie);
    let resource = format!("{PUBLIC_URL}/mcp/");
    let page = client()
        .get(format!("{}/oauth/authorize", approving.url))
        .query(&[
            ("response_type", "code"),
            ("client_id", &client_id),
            ("redirect_uri", REDIRECT),
            (
                "code_challenge",
                &cassis_core::auth::oauth::challenge_of(VERIFIER),
            ),
            ("code_challenge_method", "S256"),
            ("state", "s"),
            ("scope", "mcp"),
            ("resource", &resource),
        ])
        .header(COOKIE, cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.unwrap();
    let mut fields: Vec<(String, String)> = page
        .split("<input type=\"hidden\" ")
        .skip(1)
        .map(|rest| {
            let attribute = |name: &str| {
                rest.split(&format!("{name}=\""))
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .replace("&amp;", "&")
                    .replace("&quot;", "\"")
            };
            (attribute("name"), attribute("value"))
        })
        .collect();
    fields.push(("decision".into(), "approve".into()));
    let redirect = client()
        .post(format!("{}/oauth/authorize", approving.url))
        .header(COOKIE, cookie)
        .header(ORIGIN, &approving.url)
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(redirect.status(), StatusCode::SEE_OTHER);
    let location = url::Url::parse(redirect.headers()[LOCATION].to_str().unwrap()).unwrap();
    let code = location
        .query_pairs()
        .find(|(name, _)| name == "code")
        .unwrap()
        .1
        .into_owned();
    let response = client()
        .post(format!("{}/oauth/token", issuing.url))
        .form(&[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", &resource),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let tokens: Value = response.json().await.unwrap();
    tokens["access_token"].as_str().unwrap().to_owned()
}

/// A PostgreSQL server of the test's own, which it may stop and start again
/// (the shared one serves the other tests). `scripts/start-postgres` starts it.
struct OwnPostgres {
    dir: PathBuf,
    port: u16,
}

impl OwnPostgres {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/start-postgres")
    }

    fn start(dir: &Path) -> OwnPostgres {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let own = OwnPostgres {
            dir: dir.join("pg"),
            port,
        };
        own.start_again();
        own
    }

    fn start_again(&self) {
        let output = Command::new(Self::script())
            .arg(&self.dir)
            .arg(self.port.to_string())
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// `pg_ctl stop -m fast`: sessions are ended at once, as in a restart.
    fn stop(&self) {
        let bindir = std::fs::read_dir("/usr/lib/postgresql")
            .unwrap()
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path().join("bin"))
            .max()
            .unwrap();
        let mut command = if is_root() {
            let mut command = Command::new("runuser");
            command
                .args(["-u", "postgres", "--"])
                .arg(bindir.join("pg_ctl"));
            command
        } else {
            Command::new(bindir.join("pg_ctl"))
        };
        let output = command
            .env(
                "PATH",
                format!(
                    "{}:/usr/sbin:/sbin",
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .arg("-D")
            .arg(&self.dir)
            .args(["-m", "fast", "-w", "stop"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        if self.dir.join("postmaster.pid").exists() {
            self.stop();
        }
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| stdout(&output).trim() == "0")
}

/// One MCP call of the load: when it was sent, how long it took, what it got.
struct Outcome {
    sent: Instant,
    took: Duration,
    status: Option<StatusCode>,
    tool: &'static str,
    /// The chat of an acknowledged `ask_question`.
    chat: Option<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgresql_restart_under_load_is_answered_503_recovered_from_and_loses_nothing() {
    if std::env::var_os("CASSIS_TEST_PG_URL").is_none() {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "PostgreSQL is required"
        );
        eprintln!("CASSIS_TEST_PG_URL is not set: skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The postgres user runs the server in a folder inside this one.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let postgres = OwnPostgres::start(dir.path());
    let database = postgres.url();
    let mut server = instance(dir.path(), "a", &database);
    let key = create_key(dir.path(), &database, ADMIN_EMAIL, "load");
    let projects = server.call_tool(&key, "list_projects", json!({})).await;
    let project = projects["projects"][0]["id"].as_str().unwrap().to_owned();
    let cookie = server.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await.1.unwrap();

    // Four agents, each call on a new connection, alternating a question
    // (a chat turn written) and a ping, until told to stop.
    let server_url = server.url.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let agents: Vec<_> = (0..4)
        .map(|agent| {
            let (url, key, project, stop) =
                (server_url.clone(), key.clone(), project.clone(), stop.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::builder()
                    .pool_max_idle_per_host(0)
                    // Far beyond any wait the server should impose: a call
                    // this slow is a hang, and shows as one.
                    .timeout(Duration::from_secs(30))
                    .build()
                    .unwrap();
                let mut outcomes = Vec::new();
                let mut n = agent;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    n += 1;
                    let (tool, arguments) = if n % 2 == 0 {
                        (
                            "ask_question",
                            json!({"project_id": project, "question": "How many customers do we have?"}),
                        )
                    } else {
                        ("ping", json!({}))
                    };
                    let body = json!({
                        "jsonrpc": "2.0", "id": n, "method": "tools/call",
                        "params": {"name": tool, "arguments": arguments},
                    });
                    let sent = Instant::now();
                    let response = client
                        .post(format!("{url}/mcp/"))
                        .bearer_auth(&key)
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream")
                        .header("mcp-protocol-version", "2025-11-25")
                        .body(body.to_string())
                        .send()
                        .await;
                    let (status, chat) = match response {
                        Ok(response) => {
                            let status = response.status();
                            let reply: Value = response.json().await.unwrap_or_default();
                            let result = &reply["result"]["structuredContent"];
                            let acknowledged =
                                status == StatusCode::OK && result["status"] == "answered";
                            let chat = acknowledged
                                .then(|| result["chat_id"].as_str().map(str::to_owned))
                                .flatten();
                            (Some(status), chat)
                        }
                        Err(_) => (None, None),
                    };
                    outcomes.push(Outcome {
                        sent,
                        took: sent.elapsed(),
                        status,
                        tool,
                        chat,
                    });
                    if status != Some(StatusCode::OK) {
                        // A client told to retry waits a moment.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
                outcomes
            })
        })
        .collect();

    // Long enough for a fair number of calls before the stop even when the
    // machine is busy (2 s once saw only 6 under a parallel test run).
    tokio::time::sleep(Duration::from_secs(5)).await;
    let stopping = Instant::now();
    tokio::task::block_in_place(|| postgres.stop());
    let down = Instant::now();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // The admin app is told the same, as quickly, once the server knows.
    for path in ["/api/list_projects", "/projects"] {
        let request = if path.starts_with("/api/") {
            client().post(format!("{}{path}", server.url))
        } else {
            client().get(format!("{}{path}", server.url))
        };
        let started = Instant::now();
        let response = request
            .header(COOKIE, cookie_pair(&cookie))
            .header(ORIGIN, &server.url)
            .send()
            .await
            .unwrap();
        let took = started.elapsed();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(response.headers()["retry-after"], "1", "{path}");
        assert!(took < Duration::from_millis(500), "{path} took {took:?}");
    }
    // Long enough that, on a loaded machine where the server sees the
    // outage a second or two late, the calls after its first 503 are still
    // enough to judge by.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    // The database may accept connections (and the server find it again)
    // before `pg_ctl -w` returns, so the outage is over for the assertions
    // from the moment the start is asked for.
    let starting = Instant::now();
    tokio::task::block_in_place(|| postgres.start_again());
    // `pg_ctl -w` returned: the database accepts connections.
    let up = Instant::now();
    tokio::time::sleep(Duration::from_secs(8)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut outcomes = Vec::new();
    for agent in agents {
        outcomes.extend(agent.await.unwrap());
    }
    outcomes.sort_by_key(|o| o.sent);

    // Before the stop, everything was answered.
    let before: Vec<_> = outcomes.iter().filter(|o| o.sent < stopping).collect();
    assert!(
        before.len() > 10,
        "only {} calls before the stop",
        before.len()
    );
    assert!(
        before
            .iter()
            .all(|o| o.status == Some(StatusCode::OK) || o.sent + o.took > stopping)
    );

    // During the outage, once the server has seen it (its first 503; on a
    // loaded machine a call or two sent right after the stop may still
    // finish on a connection or cache of before): 503 and nothing else,
    // each answered quickly.
    let known = outcomes
        .iter()
        .filter(|o| o.sent >= down && o.status == Some(StatusCode::SERVICE_UNAVAILABLE))
        .map(|o| o.sent)
        .min()
        .unwrap_or(down);
    let during: Vec<_> = outcomes
        .iter()
        .filter(|o| o.sent >= known && o.sent + o.took < starting)
        .collect();
    assert!(
        during.len() > 5,
        "only {} calls during the outage",
        during.len()
    );
    let unexpected: Vec<_> = outcomes
        .iter()
        .filter(|o| {
            !matches!(
                o.status,
                Some(StatusCode::OK | StatusCode::SERVICE_UNAVAILABLE)
            )
        })
        .map(|o| (o.tool, o.status, o.sent.saturating_duration_since(stopping)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "answers other than 200 and 503: {unexpected:?}"
    );
    let answered: Vec<_> = during
        .iter()
        .filter(|o| o.status != Some(StatusCode::SERVICE_UNAVAILABLE))
        .map(|o| (o.tool, o.status, o.sent.saturating_duration_since(down)))
        .collect();
    assert!(
        answered.is_empty(),
        "calls answered 200 while the database was down (tool, status, sent after the stop): {answered:?}"
    );
    let slowest = outcomes
        .iter()
        .filter(|o| o.status == Some(StatusCode::SERVICE_UNAVAILABLE))
        .map(|o| o.took)
        .max()
        .unwrap();
    let quick = during
        .iter()
        .filter(|o| o.took < Duration::from_millis(100))
        .count();
    // The pool's acquire timeout (3 s) bounds the wait of a call that
    // meets the database going away; later ones are refused at once (in
    // milliseconds; half a second is for a busy machine).
    assert!(slowest < Duration::from_secs(5), "a 503 took {slowest:?}");
    let prompt = during
        .iter()
        .filter(|o| o.took < Duration::from_millis(500))
        .count();
    assert!(
        prompt * 10 >= during.len() * 9,
        "only {prompt} of {} calls during the outage were answered within 500 ms",
        during.len()
    );

    // Recovery: from the first call after which every call was answered.
    let last_failure = outcomes
        .iter()
        .filter(|o| o.status != Some(StatusCode::OK))
        .map(|o| o.sent)
        .max()
        .unwrap();
    let recovered = outcomes
        .iter()
        .find(|o| o.sent > last_failure)
        .expect("calls were answered after the database came back");
    let recovery = recovered.sent.saturating_duration_since(up);
    let after = outcomes.iter().filter(|o| o.sent > last_failure).count();
    eprintln!(
        "{} calls: {} before the stop, {} during the outage ({} of them answered 503 within 100 ms, \
         the slowest 503 in {slowest:?}); recovered {recovery:?} after the database accepted \
         connections again, {after} calls answered after",
        outcomes.len(),
        before.len(),
        during.len(),
        quick
    );
    assert!(
        recovery < Duration::from_secs(5),
        "recovered only after {recovery:?}"
    );
    assert!(after > 10, "only {after} calls after the recovery");

    // Nothing acknowledged is lost: every answered call is in the audit
    // trail (the server flushes it as it stops), every answered question's
    // turn in its chat.
    assert_eq!(server.terminate().code(), Some(0), "{}", server.log_text());
    let acknowledged = outcomes
        .iter()
        .filter(|o| o.status == Some(StatusCode::OK))
        .count();
    let chats: Vec<String> = outcomes.iter().filter_map(|o| o.chat.clone()).collect();
    let pool = sqlx::PgPool::connect(&database).await.unwrap();
    let recorded: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tool_calls")
        .fetch_one(&pool)
        .await
        .unwrap();
    // list_projects before the load is the one call more.
    assert_eq!(
        recorded,
        acknowledged as i64 + 1,
        "tool calls recorded vs answered"
    );
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM chat_turns WHERE chat_id = ANY($1)")
        .bind(&chats)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, chats.len() as i64, "chat turns stored vs answered");
    eprintln!(
        "records lost: 0 ({acknowledged} calls answered, {recorded} recorded with the first list_projects; {} questions answered, {stored} turns stored)",
        chats.len()
    );
}
