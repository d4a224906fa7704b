//! Ontology as code through the command line, on both metadata backends.

mod common;

use common::{cassis, run_with_stdin, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures")
        .join(name)
}

/// Runs `cassis` against one metadata database.
struct Cli {
    data: PathBuf,
    database_url: Option<String>,
}

impl Cli {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = cassis(&self.data);
        if let Some(url) = &self.database_url {
            command.args(["--database-url", url]);
        }
        command.args(args);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "cassis {args:?} failed:\n{}",
            stderr(&output)
        );
        stdout(&output)
    }
}

/// An admin, and a schema-only PostgreSQL project F1 with no draft; returns its id.
fn admin_and_project(cli: &Cli) -> String {
    let mut admin = cli.command(&[
        "user",
        "create",
        "--email",
        "admin@example.com",
        "--role",
        "admin",
    ]);
    admin.stdin(std::process::Stdio::piped());
    assert!(run_with_stdin(admin, "admin password\n").status.success());
    let id = cli.ok(&[
        "project",
        "create",
        "--name",
        "F1",
        "--schema-only",
        "--dialect",
        "postgres",
    ]);
    assert_eq!(id.trim().len(), 36, "a UUID: {id}");
    id
}

fn story(cli: &Cli) {
    let id = admin_and_project(cli);

    let small = fixture("small.yaml");
    let small = small.to_str().unwrap();
    let out = cli.ok(&[
        "ontology",
        "import",
        "--project",
        "F1",
        small,
        "--publish",
        "--note",
        "first",
    ]);
    assert!(out.contains("published version 1"), "{out}");

    // Export, re-import and publish: nothing changes.
    let exported = cli.ok(&["ontology", "export", "--project", id.trim()]);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("f1.yaml");
    std::fs::write(&copy, &exported).unwrap();
    let out = cli.ok(&[
        "ontology",
        "import",
        "--project",
        "F1",
        copy.to_str().unwrap(),
        "--publish",
    ]);
    assert!(out.contains("published version 2"), "{out}");
    assert_eq!(
        cli.ok(&[
            "ontology",
            "diff",
            "--project",
            "F1",
            "--from",
            "1",
            "--to",
            "2"
        ]),
        "no changes\n"
    );
    assert_eq!(
        cli.ok(&["ontology", "export", "--project", "F1", "--version", "2"]),
        exported
    );

    // An edited draft shows up in the diff against the latest version.
    let edited = exported.replace("- name: sprint_points\n", "- name: sprint_score\n");
    assert_ne!(edited, exported);
    std::fs::write(&copy, &edited).unwrap();
    let failed = cli.run(&[
        "ontology",
        "import",
        "--project",
        "F1",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(
        failed.status.code(),
        Some(2),
        "the variant still adds sprint_points"
    );
    assert!(
        stderr(&failed).contains("there is no metric named `sprint_points`"),
        "{}",
        stderr(&failed)
    );
    let edited = edited.replace("plus:\n    - sprint_points", "plus:\n    - sprint_score");
    std::fs::write(&copy, &edited).unwrap();
    cli.ok(&[
        "ontology",
        "import",
        "--project",
        "F1",
        copy.to_str().unwrap(),
    ]);
    let diff = cli.ok(&["ontology", "diff", "--project", "F1"]);
    assert_eq!(
        diff, "~ metric points\n- metric sprint_points\n+ metric sprint_score\n",
        "{diff}"
    );

    // A broken file changes nothing and names every problem with its line.
    let broken = fixture("broken.yaml");
    let failed = cli.run(&[
        "ontology",
        "import",
        "--project",
        "F1",
        broken.to_str().unwrap(),
    ]);
    assert_eq!(failed.status.code(), Some(2));
    let err = stderr(&failed);
    assert!(err.contains("broken.yaml has 26 problem(s)"), "{err}");
    assert!(err.contains("broken.yaml:15: objects.race.table"), "{err}");
    assert!(
        err.contains("broken.yaml:28: peers.teammate.of: there is no object named `driver`"),
        "{err}"
    );
    assert!(
        err.contains("broken.yaml:72: verified_questions[0].sql"),
        "{err}"
    );
    assert!(
        err.contains("broken.yaml:36: metrics.points.expr: a sum metric needs"),
        "{err}"
    );
    assert!(err.contains("nothing was imported"), "{err}");
    assert_eq!(
        cli.ok(&["ontology", "diff", "--project", "F1"]),
        diff,
        "the draft is untouched"
    );

    let versions = cli.ok(&["ontology", "versions", "--project", "F1"]);
    assert_eq!(versions.lines().count(), 2, "{versions}");
    assert!(versions.starts_with("2\t"), "newest first: {versions}");
    assert!(versions.contains("admin@example.com\tfirst"), "{versions}");

    let out = cli.ok(&["ontology", "rollback", "--project", "F1", "--to", "1"]);
    assert!(out.contains("published version 3"), "{out}");
    assert_eq!(
        cli.ok(&[
            "ontology",
            "diff",
            "--project",
            "F1",
            "--from",
            "1",
            "--to",
            "3"
        ]),
        "no changes\n"
    );
    // Every import and the roll back replaced the draft; each is kept.
    let history = cli.ok(&["ontology", "history", "--project", "F1"]);
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 4, "{history}");
    assert!(lines[0].starts_with("4\t"), "newest first: {history}");
    assert!(
        lines[0].ends_with("\tadmin@example.com\trolled back to version 1 (current)"),
        "{history}"
    );
    assert!(lines[1].starts_with("3\t") && lines[1].ends_with("\timported from f1.yaml"));
    assert!(lines[3].starts_with("1\t") && lines[3].ends_with("\timported from small.yaml"));
    let out = cli.ok(&["ontology", "restore", "--project", "F1", "--revision", "3"]);
    assert_eq!(out, "restored revision 3 as revision 5 of the draft\n");
    assert_eq!(
        cli.ok(&["ontology", "diff", "--project", "F1"]),
        diff,
        "the edited draft is back"
    );
    let history = cli.ok(&["ontology", "history", "--project", "F1"]);
    assert!(
        history.starts_with("5\t")
            && history
                .lines()
                .next()
                .unwrap()
                .ends_with("\trestored revision 3 (current)"),
        "{history}"
    );
    let failed = cli.run(&["ontology", "restore", "--project", "F1", "--revision", "99"]);
    assert_eq!(failed.status.code(), Some(2));
    assert!(
        stderr(&failed).contains("revision 99 is not in the draft history"),
        "{}",
        stderr(&failed)
    );

    let missing = cli.run(&["ontology", "export", "--project", "Nope"]);
    assert!(
        stderr(&missing).contains("no project `Nope`"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn ontology_as_code_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    story(&Cli {
        data: dir.path().join("data"),
        database_url: None,
    });
}

#[test]
fn ontology_as_code_on_postgresql() {
    let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "PostgreSQL is required"
        );
        return;
    };
    let name = format!("cassis_cli_{}", std::process::id());
    let psql = |sql: &str| {
        let status = Command::new("psql")
            .args([admin_url.as_str(), "-qc", sql])
            .status()
            .unwrap();
        assert!(status.success(), "{sql}");
    };
    psql(&format!("DROP DATABASE IF EXISTS {name}"));
    psql(&format!("CREATE DATABASE {name}"));
    let url = format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0);
    let dir = tempfile::tempdir().unwrap();
    story(&Cli {
        data: dir.path().join("data"),
        database_url: Some(url),
    });
}

/// `ontology publish` and `import --publish` pass the same regression gate as
/// the app's publish button: a draft that changes a verified question's answer
/// is refused, naming the question, and published only with `--force`.
#[test]
fn a_regressing_draft_is_published_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let cli = Cli {
        data: dir.path().join("data"),
        database_url: None,
    };
    admin_and_project(&cli);
    let small = fixture("small.yaml");
    let out = cli.ok(&[
        "ontology",
        "import",
        "--project",
        "F1",
        small.to_str().unwrap(),
        "--publish",
    ]);
    assert!(out.contains("published version 1"), "{out}");

    // Wins become podiums: the verified question about wins gets other SQL.
    let exported = cli.ok(&["ontology", "export", "--project", "F1"]);
    let podiums = exported.replace("position = 1", "position <= 3");
    assert_ne!(podiums, exported);
    let file = dir.path().join("podiums.yaml");
    std::fs::write(&file, &podiums).unwrap();
    let file = file.to_str().unwrap();

    let refused = cli.run(&["ontology", "import", "--project", "F1", file, "--publish"]);
    assert_eq!(refused.status.code(), Some(2));
    let err = stderr(&refused);
    assert!(
        err.contains(
            "1 verified question(s) would get a different answer or none; nothing was published"
        ),
        "{err}"
    );
    assert!(
        err.contains("  Who won the most races in 2023?: changes: different SQL"),
        "{err}"
    );
    assert!(err.contains("publish anyway with --force"), "{err}");
    assert!(
        stdout(&refused).contains("imported"),
        "the draft is imported all the same"
    );
    let refused = cli.run(&["ontology", "publish", "--project", "F1"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("Who won the most races in 2023?"),
        "{}",
        stderr(&refused)
    );
    let versions = cli.ok(&["ontology", "versions", "--project", "F1"]);
    assert_eq!(
        versions.lines().count(),
        1,
        "nothing was published: {versions}"
    );

    let out = cli.ok(&[
        "ontology",
        "publish",
        "--project",
        "F1",
        "--force",
        "--note",
        "podiums",
    ]);
    assert_eq!(out, "published version 2\n");
    let out = cli.ok(&["ontology", "export", "--project", "F1", "--version", "2"]);
    assert_eq!(out, podiums);
    // With nothing changed, the gate lets the same content through.
    let out = cli.ok(&["ontology", "import", "--project", "F1", file, "--publish"]);
    assert!(out.contains("published version 3"), "{out}");
}
