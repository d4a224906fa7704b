//! Running Cassis as an operator does: metrics scraped over HTTP, a SIGTERM
//! in the middle of a request, a runaway agent limited, the metadata backed
//! up and restored. Each against the real binary.

mod common;

use common::app::Reach;
use common::{ADMIN_EMAIL, Server, cassis, stderr, stdout};
use reqwest::StatusCode;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

fn create_key(data_dir: &Path, name: &str) -> String {
    let mut command = cassis(data_dir);
    command.env("CASSIS_NO_DEMO", "1");
    common::api_key(command, ADMIN_EMAIL, name, &[])
}

async fn get(url: &str, token: Option<&str>) -> (StatusCode, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

/// The value of the first sample line of `metric` whose labels include all
/// of `labels`.
fn sample(scrape: &str, metric: &str, labels: &[&str]) -> Option<f64> {
    scrape
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter(|line| {
            line.strip_prefix(metric)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
        })
        .find(|line| labels.iter().all(|label| line.contains(label)))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
}

#[tokio::test]
async fn metrics_count_requests_tool_calls_questions_and_sign_in_failures() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |_| {});
    let key = create_key(&data, "metrics");

    assert_eq!(
        server.call_tool(&key, "ping", json!({})).await["status"],
        "ok"
    );
    let projects = server.call_tool(&key, "list_projects", json!({})).await;
    let project = projects["projects"][0]["id"].as_str().unwrap().to_owned();
    let answer = server
        .call_tool(
            &key,
            "ask_question",
            json!({"project_id": project, "question": "How many customers do we have?"}),
        )
        .await;
    assert_eq!(answer["status"], "answered", "{answer}");
    assert_eq!(
        server.login(ADMIN_EMAIL, "not-the-password").await.status(),
        StatusCode::UNAUTHORIZED
    );

    // The server listens on loopback, which may scrape by default.
    let (status, scrape) = get(&format!("{}/metrics", server.url), None).await;
    assert_eq!(status, StatusCode::OK, "{scrape}");
    let count = |metric, labels: &[&str]| {
        sample(&scrape, metric, labels)
            .unwrap_or_else(|| panic!("no {metric} {labels:?} in the scrape:\n{scrape}"))
    };
    // Routes by their matched path, not the raw URI.
    assert_eq!(
        count(
            "cassis_http_requests_total",
            &[r#"route="/mcp/""#, r#"status="200""#]
        ),
        3.0
    );
    assert!(count("cassis_http_requests_total", &[r#"route="/readyz""#]) >= 1.0);
    for tool in ["ping", "list_projects"] {
        assert_eq!(
            count(
                "cassis_mcp_tool_calls_total",
                &[&format!(r#"tool="{tool}""#), r#"status="ok""#]
            ),
            1.0
        );
    }
    assert_eq!(
        count(
            "cassis_mcp_tool_calls_total",
            &[r#"tool="ask_question""#, r#"status="answered""#]
        ),
        1.0
    );
    assert_eq!(
        count(
            "cassis_question_duration_seconds_count",
            &[r#"status="answered""#, r#"planner="builtin""#]
        ),
        1.0
    );
    assert_eq!(
        count(
            "cassis_warehouse_query_duration_seconds_count",
            &[&format!(r#"project="{project}""#), r#"outcome="ok""#]
        ),
        1.0
    );
    assert!(
        count(
            "cassis_warehouse_pool_connections",
            &[&format!(r#"project="{project}""#), r#"state="idle""#]
        ) >= 1.0
    );
    assert_eq!(
        count(
            "cassis_sign_in_failures_total",
            &[r#"reason="invalid_credentials""#]
        ),
        1.0
    );
    assert!(count("cassis_audit_queue_depth", &[]) >= 0.0);
    assert!(
        !scrape.contains(&key),
        "no credential is ever part of a label"
    );
}

#[tokio::test]
async fn metrics_are_hidden_from_other_addresses_unless_the_token_is_presented() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let token = "metrics-token-for-the-test";
    // No network may scrape without the token: the test client's loopback
    // address stands for any other address.
    let server = Server::start(&data, |command| {
        command
            .env("CASSIS_NO_DEMO", "1")
            .env("CASSIS_METRICS_ALLOW", "")
            .env("CASSIS_METRICS_TOKEN", token);
    });
    let url = format!("{}/metrics", server.url);
    assert_eq!(get(&url, None).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&url, Some("a-wrong-token-of-length")).await.0,
        StatusCode::FORBIDDEN
    );
    let (status, scrape) = get(&url, Some(token)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(scrape.contains("cassis_http_requests_total"), "{scrape}");
    assert!(
        !server.log_text().contains(token),
        "the token is never logged"
    );
}

/// An MCP `ping` whose body arrives in two parts, so the request is in
/// flight for as long as the test holds back the second part.
struct SlowCall {
    stream: TcpStream,
    rest: Vec<u8>,
}

impl SlowCall {
    fn start(server: &Server, key: &str) -> SlowCall {
        let body =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping"}})
                .to_string();
        let address = server.url.trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).unwrap();
        let head = format!(
            "POST /mcp/ HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let (first, rest) = body.as_bytes().split_at(body.len() / 2);
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(first).unwrap();
        stream.flush().unwrap();
        SlowCall {
            stream,
            rest: rest.to_vec(),
        }
    }

    /// Sends the rest of the body and reads the whole response.
    fn finish(mut self) -> String {
        self.stream.write_all(&self.rest).unwrap();
        self.stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut response = String::new();
        self.stream.read_to_string(&mut response).unwrap();
        response
    }
}

fn sigterm(server: &Server) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_for_exit(server: &mut Server, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit within {within:?}; its log:\n{}",
            server.log_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn sigterm_drains_an_in_flight_request_flushes_the_audit_trail_and_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |command| {
        command
            .env("CASSIS_NO_DEMO", "1")
            .args(["--drain-timeout", "30"]);
    });
    let key = create_key(&data, "drain");
    let call = SlowCall::start(&server, &key);
    // The request has reached the server (its headers are read) before the signal.
    std::thread::sleep(Duration::from_millis(300));
    sigterm(&server);

    // While the request is in flight the server still answers, and says it
    // is not ready, so a load balancer stops sending it new requests.
    let deadline = Instant::now() + Duration::from_secs(5);
    let (status, body) = loop {
        let (status, body) = get(&format!("{}/readyz", server.url), None).await;
        if status != StatusCode::OK || Instant::now() > deadline {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("draining"), "{body}");
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server waits for the request"
    );

    let response = tokio::task::spawn_blocking(move || call.finish())
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains(r#""status":"ok""#), "{response}");

    let status = wait_for_exit(&mut server, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{}", server.log_text());

    // The call that finished during the drain is in the audit trail.
    let url = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let pings: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tool_calls WHERE tool = 'ping'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(pings, 1, "{}", server.log_text());
}

#[tokio::test]
async fn a_request_that_never_finishes_does_not_hold_the_exit_past_the_drain_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |command| {
        command.env("CASSIS_NO_DEMO", "1").args([
            "--drain-timeout",
            "2",
            "--mcp-calls-per-minute",
            "0",
        ]);
    });
    let key = create_key(&data, "stuck");
    let _stuck = SlowCall::start(&server, &key);
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    sigterm(&server);

    // Calls keep coming, each on a new connection, until the server stops
    // accepting them: the last ones are answered moments before it exits.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut answered = 0;
    while signalled.elapsed() < Duration::from_secs(10) {
        let sent = client
            .post(format!("{}/mcp/", server.url))
            .bearer_auth(&key)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping"}}"#)
            .send()
            .await;
        match sent {
            Ok(response) if response.status() == StatusCode::OK => answered += 1,
            Ok(response) => panic!("a call during the drain got {}", response.status()),
            Err(_) => break,
        }
    }
    assert!(answered > 0, "calls are answered during the drain");

    let status = wait_for_exit(&mut server, Duration::from_secs(8));
    let took = signalled.elapsed();
    assert_eq!(status.code(), Some(0), "{}", server.log_text());
    assert!(
        took >= Duration::from_millis(1900),
        "the request got its drain time: {took:?}"
    );
    assert!(
        server.log_text().contains("drain timeout passed"),
        "{}",
        server.log_text()
    );
    // Every answered call is in the audit trail, the last ones included,
    // although the stuck request still held the server's state at the exit.
    let url = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let pings: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tool_calls WHERE tool = 'ping'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(pings, answered, "{}", server.log_text());
}

#[tokio::test]
async fn each_key_has_its_own_rate_of_mcp_calls() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, |command| {
        command
            .env("CASSIS_NO_DEMO", "1")
            .args(["--mcp-calls-per-minute", "3"]);
    });
    let runaway = create_key(&data, "runaway");
    let other = create_key(&data, "other");
    for _ in 0..3 {
        let response = server.mcp_tool(&runaway, "ping", json!({})).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let refused = server.mcp_tool(&runaway, "ping", json!({})).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // Three a minute refill one every 20 s.
    assert!((1..=20).contains(&retry_after), "{retry_after}");
    // Another key is not held back by the runaway one.
    let response = server.mcp_tool(&other, "ping", json!({})).await;
    assert_eq!(response.status(), StatusCode::OK);
    // A refused call is no tool call: the audit trail holds the three.
    let scrape = get(&format!("{}/metrics", server.url), None).await.1;
    assert_eq!(
        sample(&scrape, "cassis_mcp_rate_limited_total", &[]),
        Some(1.0)
    );
    assert_eq!(
        sample(&scrape, "cassis_mcp_tool_calls_total", &[r#"tool="ping""#]),
        Some(4.0)
    );
}

#[test]
fn backups_are_taken_online_and_restored_only_when_safe() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let backup = dir.path().join("backup.sqlite");
    let server = Server::start(&data, |command| {
        command.env("CASSIS_NO_DEMO", "1");
    });
    let before = create_key(&data, "in the backup");

    // Online, while the server runs.
    let output = cassis(&data).arg("backup").arg(&backup).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("backed up"), "{}", stdout(&output));
    let again = cassis(&data).arg("backup").arg(&backup).output().unwrap();
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));

    create_key(&data, "after the backup");
    let keys = || {
        let output = cassis(&data)
            .env("CASSIS_NO_DEMO", "1")
            .args(["apikey", "list"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    assert!(keys().contains("after the backup"));

    // Not while a server holds the database.
    let output = cassis(&data)
        .args(["restore", "--force"])
        .arg(&backup)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("a Cassis server is using"),
        "{}",
        stderr(&output)
    );
    drop(server);

    // Not over an existing database without --force.
    let output = cassis(&data).arg("restore").arg(&backup).output().unwrap();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--force"), "{}", stderr(&output));

    // Not from a file that is no Cassis metadata database.
    let other = dir.path().join("other.sqlite");
    std::fs::write(&other, "not a database").unwrap();
    let output = cassis(&data)
        .args(["restore", "--force"])
        .arg(&other)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("is not a Cassis metadata database"),
        "{}",
        stderr(&output)
    );

    let output = cassis(&data)
        .args(["restore", "--force"])
        .arg(&backup)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let restored = keys();
    assert!(restored.contains("in the backup"), "{restored}");
    assert!(!restored.contains("after the backup"), "{restored}");

    // The restored database serves: the key from before the backup works.
    let server = Server::start(&data, |command| {
        command.env("CASSIS_NO_DEMO", "1");
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let pong = runtime.block_on(server.call_tool(&before, "ping", json!({})));
    assert_eq!(pong["status"], "ok");
}

#[test]
fn postgresql_backups_are_pg_dump_s_job() {
    let dir = tempfile::tempdir().unwrap();
    let output = cassis(dir.path())
        .args([
            "--database-url",
            "postgres://cassis@127.0.0.1:1/cassis",
            "backup",
        ])
        .arg(dir.path().join("b.sqlite"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("pg_dump"), "{}", stderr(&output));
}

/// Anonymous resident memory of a process, in MiB (Linux).
fn anonymous_rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("RssAnon:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .expect("RssAnon in /proc/PID/status");
    kib / 1024.0
}

#[test]
fn the_first_start_gives_back_what_generating_the_demo_took() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // A fresh data directory: this start generates the demo warehouse.
    let server = Server::start(&data, |_| {});
    std::thread::sleep(Duration::from_secs(2));
    let anonymous = anonymous_rss_mib(server.child.id());
    // Generation needs TPC-H's 300 MiB text pool; a restarted server holds
    // about 20 MiB (unoptimised build). Kept, the pool would be most of it.
    assert!(
        anonymous < 120.0,
        "{anonymous:.0} MiB anonymous memory idle after the first start"
    );
}

/// A round-robin TCP proxy, as load balancers work: it checks `/readyz` of
/// every backend every 50 ms and sends each new connection to the next ready
/// one (a refused connection is tried on the next; nothing is retried once
/// bytes went through).
struct Proxy {
    url: String,
    backends: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    tasks: [tokio::task::JoinHandle<()>; 2],
}

impl Proxy {
    async fn start(backends: Vec<String>) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let backends = std::sync::Arc::new(std::sync::Mutex::new(backends));
        let ready = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let checks = tokio::spawn({
            let (backends, ready) = (backends.clone(), ready.clone());
            async move {
                let client = reqwest::Client::builder()
                    .timeout(Duration::from_millis(200))
                    .build()
                    .unwrap();
                loop {
                    let list = backends.lock().unwrap().clone();
                    let mut up = Vec::new();
                    for backend in list {
                        let answer = client.get(format!("http://{backend}/readyz")).send().await;
                        if answer.is_ok_and(|r| r.status() == StatusCode::OK) {
                            up.push(backend);
                        }
                    }
                    *ready.lock().unwrap() = up;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        });
        let shared = ready;
        let task = tokio::spawn(async move {
            let mut next = 0usize;
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                next += 1;
                let order: Vec<String> = {
                    let list = shared.lock().unwrap();
                    if list.is_empty() {
                        continue;
                    }
                    (0..list.len())
                        .map(|i| list[(next + i) % list.len()].clone())
                        .collect()
                };
                tokio::spawn(async move {
                    for backend in order {
                        if let Ok(mut outbound) = tokio::net::TcpStream::connect(&backend).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                            return;
                        }
                    }
                });
            }
        });
        Proxy {
            url,
            backends,
            tasks: [checks, task],
        }
    }

    fn set(&self, backends: &[&Server]) {
        *self.backends.lock().unwrap() = backends
            .iter()
            .map(|server| server.url.trim_start_matches("http://").to_owned())
            .collect();
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rolling_restart_of_two_instances_loses_no_request() {
    let dir = tempfile::tempdir().unwrap();
    // Two instances on one metadata database (SQLite: one machine).
    let database = format!("sqlite://{}", dir.path().join("shared.sqlite").display());
    let instance = |name: &str| {
        let data = dir.path().join(name);
        let database = database.clone();
        Server::start(&data, move |command| {
            command
                .env("CASSIS_NO_DEMO", "1")
                .env("CASSIS_DATABASE_URL", &database)
                // One secret for the signing keys they share.
                .env(
                    "CASSIS_SIGNING_KEY_SECRET",
                    "the secret both instances seal signing keys with",
                )
                .args(["--mcp-calls-per-minute", "0", "--drain-timeout", "10"]);
        })
    };
    let a = instance("a");
    let b = instance("b");
    let key = {
        let output = cassis(&dir.path().join("a"))
            .env("CASSIS_NO_DEMO", "1")
            .env("CASSIS_DATABASE_URL", &database)
            .args([
                "apikey",
                "create",
                "--user",
                ADMIN_EMAIL,
                "--name",
                "rolling",
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output).trim().to_owned()
    };
    let proxy = Proxy::start(vec![]).await;
    proxy.set(&[&a, &b]);
    // The balancer has seen both ready.
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Four agents call through the proxy, each call on a new connection,
    // until told to stop.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let agents: Vec<_> = (0..4)
        .map(|_| {
            let (url, key, stop) = (proxy.url.clone(), key.clone(), stop.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::builder()
                    .pool_max_idle_per_host(0)
                    .build()
                    .unwrap();
                let (mut answered, mut lost) = (0u32, Vec::new());
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let sent = client
                        .post(format!("{url}/mcp/"))
                        .bearer_auth(&key)
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream")
                        .header("mcp-protocol-version", "2025-11-25")
                        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping"}}"#)
                        .send()
                        .await;
                    match sent {
                        Ok(response) if response.status() == StatusCode::OK => answered += 1,
                        Ok(response) => lost.push(format!("status {}", response.status())),
                        Err(error) => lost.push(format!("{error:?}")),
                    }
                }
                (answered, lost)
            })
        })
        .collect();

    // Three rolling restarts: each instance in turn is replaced by a new one
    // on the same database, which joins before the old one is stopped.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut running = [a, b];
    for round in 0..3 {
        for slot in 0..2 {
            let fresh = instance(&format!("r{round}s{slot}"));
            proxy.set(&[&running[0], &running[1], &fresh]);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let mut old = std::mem::replace(&mut running[slot], fresh);
            sigterm(&old);
            assert_eq!(
                wait_for_exit(&mut old, Duration::from_secs(15)).code(),
                Some(0)
            );
            proxy.set(&[&running[0], &running[1]]);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);

    let (mut answered, mut lost) = (0, Vec::new());
    for agent in agents {
        let (n, failures) = agent.await.unwrap();
        answered += n;
        lost.extend(failures);
    }
    assert!(answered > 100, "only {answered} calls were answered");
    assert!(
        lost.is_empty(),
        "{} of {} calls were lost: {:?}",
        lost.len(),
        answered as usize + lost.len(),
        &lost[..lost.len().min(5)]
    );
}
