//! Runs the real `cassis` binary, as users and scripts do.

#![allow(dead_code)]

pub mod app;
pub mod mcp;
pub mod session;
pub mod warehouse;

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const ADMIN_EMAIL: &str = "admin@example.com";
pub const ADMIN_PASSWORD: &str = "integration-password";

/// A `cassis` command with no CASSIS_* settings inherited from the caller.
pub fn cassis(data_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cassis"));
    for (key, _) in std::env::vars() {
        if key.starts_with("CASSIS_") || key.starts_with("LEPTOS_") {
            command.env_remove(key);
        }
    }
    command
        .arg("--data-dir")
        .arg(data_dir)
        .env("RUST_LOG", "info");
    command
}

/// The metadata database a test's server and CLI share: the SQLite file in
/// the data directory, or a fresh PostgreSQL database, where the behaviour
/// is the store's and must hold on both.
pub enum Metadata {
    Sqlite,
    Postgres(String),
}

impl Metadata {
    /// A fresh database named for `prefix` on the PostgreSQL of
    /// `CASSIS_TEST_PG_URL` (which `scripts/test` starts); `None`, and the
    /// test skipped, when there is none and none is required.
    pub async fn postgres(prefix: &str) -> Option<Metadata> {
        let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
            assert!(
                std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
                "PostgreSQL is required"
            );
            eprintln!("CASSIS_TEST_PG_URL is not set: skipping");
            return None;
        };
        use sqlx::Connection;
        let name = format!("cassis_{prefix}_{}", std::process::id());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
        // Our own name, not input: safe to splice.
        for statement in [
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            format!("CREATE DATABASE {name}"),
        ] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&mut admin)
                .await
                .unwrap();
        }
        Some(Metadata::Postgres(format!(
            "{}/{name}",
            admin_url.rsplit_once('/').unwrap().0
        )))
    }

    /// The URL of the PostgreSQL database; `None` on SQLite.
    pub fn url(&self) -> Option<&str> {
        match self {
            Metadata::Sqlite => None,
            Metadata::Postgres(url) => Some(url),
        }
    }

    /// The server's flags for this database, after `args`.
    pub fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = args.to_vec();
        if let Some(url) = self.url() {
            all.extend(["--database-url", url]);
        }
        all
    }

    /// The server and the CLI kept their metadata in this database: on
    /// PostgreSQL, no SQLite file in the data directory.
    pub fn assert_used(&self, data_dir: &Path) {
        assert_eq!(
            data_dir.join("cassis.sqlite").exists(),
            self.url().is_none(),
            "the metadata is in the database the test chose"
        );
    }

    /// The CLI on this database, in `data_dir`.
    pub fn cassis(&self, data_dir: &Path) -> Command {
        let mut command = cassis(data_dir);
        if let Some(url) = self.url() {
            command.env("CASSIS_DATABASE_URL", url);
        }
        command
    }
}

/// `cassis user create` of `email` with `role`, its password typed at the
/// prompt; `command` is the `cassis` to run it with, its settings given.
pub fn create_user(mut command: Command, email: &str, role: &str, password: &str) {
    command.args(["user", "create", "--email", email, "--role", role]);
    let created = run_with_stdin(command, &format!("{password}\n"));
    assert!(created.status.success(), "{}", stderr(&created));
}

/// An API key acting for `user`, made with `cassis apikey create` (`command`
/// is the `cassis` to run it with, its settings given; `extra` are more of
/// the subcommand's options); the key, printed once.
pub fn api_key(mut command: Command, user: &str, name: &str, extra: &[&str]) -> String {
    let output = command
        .args(["apikey", "create", "--user", user, "--name", name])
        .args(extra)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output).trim().to_owned()
}

pub fn run_with_stdin(mut command: Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cassis starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// What a command that must succeed printed: standard output and error.
pub fn ok(output: Output) -> (String, String) {
    assert!(output.status.success(), "{}", stderr(&output));
    (stdout(&output), stderr(&output))
}

/// `cassis ontology import --publish` of `file` as `project`'s next version,
/// with `extra` options; what it printed.
pub fn publish(data_dir: &Path, project: &str, file: &Path, extra: &[&str]) -> String {
    let output = cassis(data_dir)
        .args(["ontology", "import", "--project", project, "--publish"])
        .args(extra)
        .arg(file)
        .output()
        .unwrap();
    ok(output).0
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A running `cassis serve`, stopped with SIGTERM when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub log: PathBuf,
}

impl Server {
    /// Starts the server on a free port with the demo project at the
    /// smallest scale, and waits until it is ready.
    pub fn start(data_dir: &Path, configure: impl FnOnce(&mut Command)) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = data_dir.with_extension("log");
        let mut command = cassis(data_dir);
        command
            .args([
                "serve",
                "--addr",
                &format!("127.0.0.1:{port}"),
                "--demo-scale-factor",
                "0.01",
            ])
            .env("CASSIS_ADMIN_EMAIL", ADMIN_EMAIL)
            .env("CASSIS_ADMIN_PASSWORD", ADMIN_PASSWORD)
            .stdout(std::fs::File::create(data_dir.with_extension("stdout")).unwrap())
            .stderr(std::fs::File::create(&log).unwrap());
        configure(&mut command);
        let child = command.spawn().expect("cassis serve starts");
        let mut server = Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        };
        server.wait_ready();
        server
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the server exited with {status} before it was ready; its log:\n{}",
                    self.log_text()
                );
            }
            if let Ok(mut stream) =
                std::net::TcpStream::connect(self.url.trim_start_matches("http://"))
            {
                let request =
                    "GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
                if stream.write_all(request.as_bytes()).is_ok() {
                    let mut response = String::new();
                    let _ = std::io::Read::read_to_string(&mut stream, &mut response);
                    if response.starts_with("HTTP/1.1 200") {
                        return;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the server did not become ready; its log:\n{}",
            self.log_text()
        );
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The Formula 1 CSV exports, beside the repository (never copied into it).
pub fn f1_data() -> PathBuf {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/f1");
    assert!(
        data.join("results.csv").exists(),
        "the F1 data is expected in {}",
        data.display()
    );
    data
}

/// Loads the F1 data into a SQLite warehouse in `dir`, creates the project
/// "F1" on it in the metadata of `data_dir` (with an admin if there is none)
/// and publishes the F1 ontology, its tables unqualified as SQLite names them.
/// Returns the project id.
pub fn f1_sqlite_project(dir: &Path, data_dir: &Path) -> String {
    // SQLite sources live in the server's warehouse folder.
    let warehouses = data_dir.join("warehouses");
    std::fs::create_dir_all(&warehouses).unwrap();
    let warehouse = warehouses.join("f1.sqlite");
    let url = format!("sqlite://{}", warehouse.display());
    let ok = |output: Output| {
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    ok(cassis(data_dir)
        .env("CASSIS_NO_DEMO", "1")
        .args([
            "warehouse",
            "load-csv",
            "--snake-case",
            "--warehouse",
            &url,
            "--dir",
        ])
        .arg(f1_data())
        .output()
        .unwrap());
    let users = ok(cassis(data_dir)
        .env("CASSIS_NO_DEMO", "1")
        .args(["user", "list"])
        .output()
        .unwrap());
    if !users.contains(ADMIN_EMAIL) {
        let mut create = cassis(data_dir);
        create.env("CASSIS_NO_DEMO", "1").args([
            "user",
            "create",
            "--email",
            ADMIN_EMAIL,
            "--role",
            "admin",
        ]);
        ok(run_with_stdin(create, &format!("{ADMIN_PASSWORD}\n")));
    }
    let project = ok(cassis(data_dir)
        .env("CASSIS_NO_DEMO", "1")
        .args(["project", "create", "--name", "F1", "--warehouse", &url])
        .output()
        .unwrap())
    .trim()
    .to_owned();
    let ontology = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml"),
    )
    .unwrap()
    .replace("table: public.", "table: ");
    let file = dir.join("f1-sqlite.yaml");
    std::fs::write(&file, ontology).unwrap();
    ok(cassis(data_dir)
        .env("CASSIS_NO_DEMO", "1")
        .args(["ontology", "import", "--project", "F1", "--publish"])
        .arg(&file)
        .output()
        .unwrap());
    project
}

/// `cassis ask` as a script runs it; the response JSON.
pub fn ask(data_dir: &Path, args: &[&str]) -> serde_json::Value {
    let output = cassis(data_dir)
        .env("CASSIS_NO_DEMO", "1")
        .args(["ask", "--project", "F1"])
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).expect("cassis ask prints JSON")
}
