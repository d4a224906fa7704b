//! The command line as data teams script it.

mod common;

use common::{cassis, run_with_stdin, stderr, stdout};

#[test]
fn help_documents_every_setting() {
    let output = cassis(std::path::Path::new("unused"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = stdout(&output);
    for setting in [
        "--addr",
        "CASSIS_ADDR",
        "--data-dir",
        "CASSIS_DATA_DIR",
        "--database-url",
        "CASSIS_DATABASE_URL",
        "--public-url",
        "CASSIS_PUBLIC_URL",
        "--config",
        "--site-root",
        "--no-demo",
        "--demo-scale-factor",
        "--log-format",
        "CASSIS_ADMIN_EMAIL",
        "CASSIS_ADMIN_PASSWORD",
        "serve",
        "migrate",
        "user",
        "project",
    ] {
        assert!(
            help.contains(setting),
            "--help does not mention {setting}:\n{help}"
        );
    }
}

#[test]
fn flags_beat_the_environment_which_beats_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cassis.toml");
    std::fs::write(
        &file,
        "addr = \"127.0.0.1:7001\"\npublic_url = \"https://file.example.com\"\nlog_format = \"json\"\nno_demo = true\n",
    )
    .unwrap();
    let output = cassis(dir.path())
        .args(["check-config", "--config"])
        .arg(&file)
        .args(["--addr", "127.0.0.1:7003"])
        .env("CASSIS_ADDR", "127.0.0.1:7002")
        .env("CASSIS_PUBLIC_URL", "https://env.example.com/")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let settings: toml::Table = toml::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        settings["addr"].as_str(),
        Some("127.0.0.1:7003"),
        "flag wins"
    );
    assert_eq!(
        settings["public_url"].as_str(),
        Some("https://env.example.com"),
        "environment beats file"
    );
    assert_eq!(
        settings["log_format"].as_str(),
        Some("json"),
        "file beats default"
    );
    assert!(
        settings.get("demo_scale_factor").is_none(),
        "the file disabled the demo"
    );
    let expected_db = format!("sqlite://{}/cassis.sqlite", dir.path().display());
    assert_eq!(
        settings["database_url"].as_str(),
        Some(expected_db.as_str()),
        "database in the data directory"
    );
}

#[test]
fn a_broken_settings_file_is_reported_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cassis.toml");
    std::fs::write(&file, "addr = \"127.0.0.1:7001\"\naddr_typo = 1\n").unwrap();
    let output = cassis(dir.path())
        .arg("check-config")
        .arg("--config")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("cassis.toml") && err.contains("line 2") && err.contains("addr_typo"),
        "{err}"
    );
}

#[test]
fn users_are_created_with_a_password_from_stdin_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let mut create = cassis(dir.path());
    create.args([
        "user",
        "create",
        "--email",
        "Editor@Example.com",
        "--role",
        "editor",
    ]);
    let output = run_with_stdin(create, "a long enough password\n");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("created editor@example.com (editor)"),
        "{}",
        stdout(&output)
    );
    assert!(!stdout(&output).contains("a long enough password"));

    let mut again = cassis(dir.path());
    again.args(["user", "create", "--email", "editor@example.com"]);
    let output = run_with_stdin(again, "another password\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("a user with this email already exists"),
        "{}",
        stderr(&output)
    );

    let mut short = cassis(dir.path());
    short.args(["user", "create", "--email", "viewer@example.com"]);
    let output = run_with_stdin(short, "short\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("at least 8 characters"),
        "{}",
        stderr(&output)
    );

    let output = cassis(dir.path()).args(["user", "list"]).output().unwrap();
    assert!(output.status.success());
    assert_eq!(stdout(&output), "editor@example.com\teditor\tactive\n");
}

#[test]
fn migrate_creates_the_database_in_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("fresh/nested");
    let output = cassis(&data).arg("migrate").output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(data.join("cassis.sqlite").exists());
    let output = cassis(&data).args(["project", "list"]).output().unwrap();
    assert_eq!(stdout(&output), "no projects\n");
}

#[test]
fn migrate_works_on_postgresql() {
    let Ok(url) = std::env::var("CASSIS_TEST_PG_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "PostgreSQL is required"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Twice: the second run finds nothing to do.
    for _ in 0..2 {
        let output = cassis(dir.path())
            .args(["migrate", "--database-url", &url])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    }
    assert!(
        !dir.path().join("cassis.sqlite").exists(),
        "the database URL overrides the SQLite file"
    );
}

#[test]
fn an_unreachable_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = cassis(dir.path())
        .args([
            "migrate",
            "--database-url",
            "postgres://nobody:secret@127.0.0.1:9/none",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("cannot connect to the metadata database"),
        "{err}"
    );
    assert!(!err.contains("secret"), "the password leaked: {err}");
}

#[test]
fn api_keys_are_shown_once_stored_hashed_listed_and_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let mut ada = cassis(dir.path());
    ada.args([
        "user",
        "create",
        "--email",
        "ada@example.com",
        "--role",
        "admin",
    ]);
    assert!(run_with_stdin(ada, "analytical engine\n").status.success());

    let output = cassis(dir.path())
        .args([
            "apikey",
            "create",
            "--user",
            "ada@example.com",
            "--name",
            "nightly report",
            "--expires",
            "90d",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let key = stdout(&output).trim().to_owned();
    assert!(key.starts_with("sk-k6-") && key.len() == 49, "{key}");
    assert!(stderr(&output).contains("shown only once"));

    // At rest there is only a hash: the key appears in no database file.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(key.len()).any(|w| w == key.as_bytes()),
            "the key is stored in clear"
        );
    }

    let listed = stdout(
        &cassis(dir.path())
            .args(["apikey", "list"])
            .output()
            .unwrap(),
    );
    assert!(
        listed.contains(&key[..10]) && !listed.contains(&key),
        "{listed}"
    );
    assert!(
        listed.contains("nightly report\tada@example.com\tactive\tnever used"),
        "{listed}"
    );
    let id = listed.split('\t').next().unwrap().to_owned();

    let output = cassis(dir.path())
        .args(["apikey", "revoke", &id])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), format!("revoked {id}\n"));
    let listed = stdout(
        &cassis(dir.path())
            .args(["apikey", "list"])
            .output()
            .unwrap(),
    );
    assert!(listed.contains("\trevoked\t"), "{listed}");
    let again = cassis(dir.path())
        .args(["apikey", "revoke", &id])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("no active API key"),
        "{}",
        stderr(&again)
    );

    for (args, message) in [
        (
            vec![
                "--user",
                "ada@example.com",
                "--name",
                "x",
                "--expires",
                "1y",
            ],
            "is not a lifetime",
        ),
        (
            vec!["--user", "nobody@example.com", "--name", "x"],
            "no user nobody@example.com",
        ),
        (
            vec!["--user", "ada@example.com", "--name", " "],
            "needs a --name",
        ),
    ] {
        let output = cassis(dir.path())
            .args(["apikey", "create"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{}", stderr(&output));
    }
}

/// A subcommand's help lists the settings it reads and no others; every
/// setting is still accepted there, so one environment serves all commands.
#[test]
fn subcommand_help_shows_only_the_settings_that_apply() {
    let help = |args: &[&str]| {
        let output = cassis(std::path::Path::new("unused"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let user = help(&["user", "create"]);
    for shown in [
        "--email",
        "--role",
        "--data-dir",
        "--database-url",
        "--config",
    ] {
        assert!(user.contains(shown), "{shown} in {user}");
    }
    for hidden in [
        "--planner",
        "--addr",
        "--llm-url",
        "--max-query-cost",
        "--metrics-token",
    ] {
        assert!(!user.contains(hidden), "{hidden} in {user}");
    }
    let publish = help(&["ontology", "publish"]);
    for shown in ["--force", "--planner", "--llm-model", "--question-timeout"] {
        assert!(publish.contains(shown), "{shown} in {publish}");
    }
    assert!(!publish.contains("--addr"), "{publish}");
    let serve = help(&["serve"]);
    for shown in ["--addr", "--planner", "--metrics-allow", "--drain-timeout"] {
        assert!(serve.contains(shown), "{shown} in {serve}");
    }
    // Hidden, not refused: a setting meant for the server is still accepted.
    let dir = tempfile::tempdir().unwrap();
    let output = cassis(&dir.path().join("data"))
        .args(["user", "list", "--planner", "builtin"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}
