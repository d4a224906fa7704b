//! Projects and the data sources they answer questions about.

use crate::account::Role;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// The SQL dialect of a data source: what Cassis writes SQL in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    Sqlite,
    Postgres,
    Snowflake,
    BigQuery,
    Databricks,
    Redshift,
    MySql,
    DuckDb,
}

impl Dialect {
    pub const ALL: [Dialect; 8] = [
        Dialect::Sqlite,
        Dialect::Postgres,
        Dialect::Snowflake,
        Dialect::BigQuery,
        Dialect::Databricks,
        Dialect::Redshift,
        Dialect::MySql,
        Dialect::DuckDb,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
            Dialect::Snowflake => "snowflake",
            Dialect::BigQuery => "bigquery",
            Dialect::Databricks => "databricks",
            Dialect::Redshift => "redshift",
            Dialect::MySql => "mysql",
            Dialect::DuckDb => "duckdb",
        }
    }
}

impl Dialect {
    /// The dialect a connection URL's scheme implies, if it implies one.
    pub fn of_url(url: &str) -> Option<Dialect> {
        let scheme = url.trim().split_once(':')?.0;
        match scheme.to_ascii_lowercase().as_str() {
            "sqlite" => Some(Dialect::Sqlite),
            "postgres" | "postgresql" => Some(Dialect::Postgres),
            "mysql" | "mariadb" => Some(Dialect::MySql),
            "snowflake" => Some(Dialect::Snowflake),
            "bigquery" => Some(Dialect::BigQuery),
            _ => None,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown SQL dialect `{0}`: expected one of sqlite, postgres, snowflake, bigquery, databricks, redshift, mysql, duckdb"
)]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        let alias = match wanted.to_ascii_lowercase().as_str() {
            "postgresql" => Some(Dialect::Postgres),
            _ => None,
        };
        alias
            .or_else(|| {
                Dialect::ALL
                    .into_iter()
                    .find(|d| d.as_str().eq_ignore_ascii_case(wanted))
            })
            .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// Where a project's data lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataSource {
    pub dialect: Dialect,
    /// The connection Cassis runs SQL on; `None` for a schema-only source,
    /// for which Cassis writes SQL but never executes it.
    pub connection_url: Option<String>,
}

/// Why a data source as entered (in the app's form or on the command line)
/// is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataSourceError {
    #[error("A schema-only source needs its SQL dialect: choose one.")]
    NoDialect,
    #[error(
        "Enter the connection URL (sqlite:///path/to/file.sqlite, postgres://user:password@host/db, mysql://user:password@host/db, snowflake://user:secret@account/database/schema?warehouse=W&role=R or bigquery://project/dataset?credentials=KEY), or choose a schema-only source."
    )]
    NoUrl,
    #[error("`{url}` is a {implied} URL, but the dialect chosen is {chosen}.")]
    ContradictsUrl {
        url: String,
        implied: Dialect,
        chosen: Dialect,
    },
    #[error(
        "Cassis connects to sqlite://, postgres://, mysql://, snowflake:// and bigquery:// URLs, not `{0}`."
    )]
    UnknownUrl(String),
    #[error(
        "Cassis cannot connect to {0} yet; choose a schema-only source to get SQL written for it."
    )]
    NotConnectable(Dialect),
    #[error(
        "`{url}` is outside the warehouse folder {folder}: SQLite sources must be files in it (the server's --warehouse-dir)."
    )]
    OutsideWarehouseFolder { url: String, folder: String },
}

impl DataSource {
    /// A data source from what a user entered: the dialect chosen (if any),
    /// the connection URL (`None` for a schema-only source), and the folder
    /// SQLite files must be in. The one rule for the app's form and
    /// `cassis project create`.
    #[cfg(feature = "ssr")]
    pub fn parse(
        chosen: Option<Dialect>,
        url: Option<&str>,
        warehouse_dir: &std::path::Path,
    ) -> Result<DataSource, DataSourceError> {
        let Some(url) = url.map(str::trim) else {
            return Ok(DataSource {
                dialect: chosen.ok_or(DataSourceError::NoDialect)?,
                connection_url: None,
            });
        };
        if url.is_empty() {
            return Err(DataSourceError::NoUrl);
        }
        let dialect = match (chosen, Dialect::of_url(url)) {
            (Some(chosen), Some(implied)) if chosen != implied => {
                return Err(DataSourceError::ContradictsUrl {
                    url: redact_url(url),
                    implied,
                    chosen,
                });
            }
            (Some(dialect), _) | (None, Some(dialect)) => dialect,
            (None, None) => return Err(DataSourceError::UnknownUrl(redact_url(url))),
        };
        if !matches!(
            dialect,
            Dialect::Sqlite
                | Dialect::Postgres
                | Dialect::MySql
                | Dialect::Snowflake
                | Dialect::BigQuery
        ) {
            return Err(DataSourceError::NotConnectable(dialect));
        }
        if dialect == Dialect::Sqlite && !sqlite_file_within(url, warehouse_dir) {
            return Err(DataSourceError::OutsideWarehouseFolder {
                url: redact_url(url),
                folder: warehouse_dir.display().to_string(),
            });
        }
        Ok(DataSource {
            dialect,
            connection_url: Some(url.to_owned()),
        })
    }

    /// The data source a changed form describes, given the one stored: the
    /// stored source stands as it is when the form names it again, so a
    /// rename never fails on a SQLite file that predates the warehouse
    /// folder; anything else is parsed anew.
    #[cfg(feature = "ssr")]
    pub fn parse_change(
        stored: Option<&DataSource>,
        chosen: Option<Dialect>,
        url: Option<&str>,
        warehouse_dir: &std::path::Path,
    ) -> Result<DataSource, DataSourceError> {
        match stored {
            Some(stored)
                if url.is_some()
                    && stored.connection_url.as_deref() == url.map(str::trim)
                    && chosen.is_none_or(|d| d == stored.dialect) =>
            {
                Ok(stored.clone())
            }
            _ => DataSource::parse(chosen, url, warehouse_dir),
        }
    }

    pub fn is_executable(&self) -> bool {
        self.connection_url.is_some()
    }

    /// The connection URL with any password replaced, fit to show or log.
    pub fn redacted_url(&self) -> Option<String> {
        self.connection_url.as_deref().map(redact_url)
    }
}

/// Whether the file a `sqlite:` URL opens lies in `folder`, symbolic links
/// and `..` resolved, so an admin cannot point a project at any file the
/// server can read. A file that does not exist yet is judged by its folder.
///
/// The file is named by sqlx's own parser, the one that opens it: it strips
/// the scheme however often it is repeated and percent-decodes the path, so
/// `..%2f` is judged as the `../` SQLite will follow.
#[cfg(feature = "ssr")]
fn sqlite_file_within(url: &str, folder: &std::path::Path) -> bool {
    let Ok(options) = sqlx::sqlite::SqliteConnectOptions::from_str(url) else {
        return false;
    };
    let database = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    let path = options.get_filename();
    if database == ":memory:" || path.as_os_str().is_empty() {
        // An empty private database reads nothing.
        return true;
    }
    let Some(name) = path.to_str() else {
        return false;
    };
    if name.starts_with("file:") {
        // sqlx opens files with SQLITE_OPEN_URI, so SQLite would read this
        // name as a URI and decode it again, past the check below.
        return false;
    }
    let resolved = path.canonicalize().or_else(|_| {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let name = path.file_name().ok_or(std::io::ErrorKind::InvalidInput)?;
        Ok::<_, std::io::Error>(
            parent
                .unwrap_or(std::path::Path::new("."))
                .canonicalize()?
                .join(name),
        )
    });
    match (resolved, folder.canonicalize()) {
        (Ok(file), Ok(folder)) => file.starts_with(folder),
        _ => false,
    }
}

/// Parts of query parameter names that mark their values as credentials:
/// libpq's `password` and `sslpassword`, cloud drivers' tokens, keys and
/// secrets. `key` also hides key file paths, which is no loss on screen.
const CREDENTIAL_NAMES: [&str; 7] = [
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "credential",
    "auth",
];

/// The URL with every credential-bearing part replaced by `***`: the password
/// of `scheme://user:password@host`, the values of query parameters such as
/// `?password=` or `?access_token=`, and any fragment.
///
/// The authority is read as the `url` crate (WHATWG) and so the drivers read
/// it: it ends at the first `/`, `?` or `#` after `://`, and its userinfo at
/// its last `@`. A URL with an `@` beyond that point is ambiguous when a
/// `user:` starts it: `postgres://u:123?a=b@h/db` is host `u`, port 123 and a
/// query to the drivers, but the password `123?a=b` to whoever pasted it
/// unencoded. Either reading may be the one that holds a secret, so such a
/// URL (a `:` before an `@` beyond the authority) shows only its scheme:
/// `postgres://***`. Without `://` there is no authority to read, and
/// whatever precedes an `@` is hidden.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return match url.rsplit_once('@') {
            Some((_, after)) => format!("***@{}", redact_tail(after)),
            None => redact_tail(url),
        };
    };
    let authority_end = rest.find(AUTHORITY_ENDS).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    if let Some((before, _)) = rest.rsplit_once('@')
        && tail.contains('@')
        && before.contains(':')
    {
        return format!("{scheme}://***");
    }
    let authority = match authority.rsplit_once('@') {
        // The userinfo's first colon starts its password.
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    format!("{scheme}://{authority}{}", redact_tail(tail))
}

/// What ends a URL's authority: the url crate's `/`, `?` and `#`, and the
/// `\` it also reads as `/` in some schemes (more ambiguity, never less).
const AUTHORITY_ENDS: [char; 4] = ['/', '?', '#', '\\'];

/// A URL's path, query and fragment with credential-bearing query values and
/// any fragment replaced by `***`.
fn redact_tail(tail: &str) -> String {
    let (tail, fragment) = match tail.split_once('#') {
        Some((tail, _)) => (tail, "#***"),
        None => (tail, ""),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let parameters: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if is_credential_name(name) => format!("{name}=***"),
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", parameters.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{tail}{fragment}")
}

fn is_credential_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_NAMES.iter().any(|part| name.contains(part))
}

/// Who in the organization may see and ask a project.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectAccess {
    /// Everyone in the organization.
    #[default]
    Organization,
    /// Admins, and the users listed as the project's members.
    Members,
}

impl ProjectAccess {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectAccess::Organization => "organization",
            ProjectAccess::Members => "members",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown project access `{0}`: expected organization or members")]
pub struct UnknownProjectAccess(pub String);

impl FromStr for ProjectAccess {
    type Err = UnknownProjectAccess;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "organization" => Ok(ProjectAccess::Organization),
            "members" => Ok(ProjectAccess::Members),
            other => Err(UnknownProjectAccess(other.to_owned())),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: String,
    pub description: String,
    pub created_at: Timestamp,
    pub data_source: Option<DataSource>,
    pub access: ProjectAccess,
}

impl Project {
    /// The connection URL `reader` may see: redacted, and none at all for a
    /// viewer, who only asks questions.
    pub fn connection_shown_to(&self, reader: Role) -> Option<String> {
        if reader == Role::Viewer {
            return None;
        }
        self.data_source.as_ref().and_then(DataSource::redacted_url)
    }
}

/// A project as the lists show it (the app's project list and playground,
/// the MCP tool `list_projects`, `cassis project list`): never the
/// connection's password.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub dialect: Option<Dialect>,
    /// Whether Cassis can run SQL on the data source and return results
    /// (false for a schema-only source, or none).
    pub executable: bool,
    /// See [`Project::connection_shown_to`].
    pub connection: Option<String>,
}

impl ProjectSummary {
    /// `project` as `reader` may see it.
    pub fn shown_to(project: Project, reader: Role) -> Self {
        ProjectSummary {
            connection: project.connection_shown_to(reader),
            dialect: project.data_source.as_ref().map(|s| s.dialect),
            executable: project
                .data_source
                .as_ref()
                .is_some_and(DataSource::is_executable),
            id: project.id,
            name: project.name,
            description: project.description,
        }
    }
}

/// The dialect a project's SQL is read in. A project without a data source
/// yet is read as PostgreSQL, the closest to standard SQL.
pub fn dialect_of(project: &Project) -> Dialect {
    project
        .data_source
        .as_ref()
        .map_or(Dialect::Postgres, |source| source.dialect)
}

/// A project's name: what people and agents see in `list_projects`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectName(String);

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidProjectName {
    #[error("a project needs a name")]
    Empty,
    #[error("a project name has at most 100 characters")]
    TooLong,
}

impl ProjectName {
    pub fn parse(input: &str) -> Result<Self, InvalidProjectName> {
        let name = input.trim();
        if name.is_empty() {
            return Err(InvalidProjectName::Empty);
        }
        if name.chars().count() > 100 {
            return Err(InvalidProjectName::TooLong);
        }
        Ok(Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_shows_the_redacted_connection_to_editors_and_none_to_viewers() {
        let project = Project {
            id: Uuid::nil(),
            organization_id: Uuid::nil(),
            name: "F1".to_owned(),
            description: "Races".to_owned(),
            created_at: Timestamp::from_millis(0),
            data_source: Some(DataSource {
                dialect: Dialect::Postgres,
                connection_url: Some("postgres://ana:s3cr3t@db/f1".to_owned()),
            }),
            access: ProjectAccess::Organization,
        };
        let editor = ProjectSummary::shown_to(project.clone(), Role::Editor);
        assert_eq!(
            editor.connection.as_deref(),
            Some("postgres://ana:***@db/f1")
        );
        assert_eq!(
            (editor.dialect, editor.executable),
            (Some(Dialect::Postgres), true)
        );
        let viewer = ProjectSummary::shown_to(project.clone(), Role::Viewer);
        assert_eq!(viewer.connection, None);
        let schema_only = Project {
            data_source: Some(DataSource {
                dialect: Dialect::Snowflake,
                connection_url: None,
            }),
            ..project
        };
        let summary = ProjectSummary::shown_to(schema_only, Role::Admin);
        assert_eq!((summary.executable, summary.connection), (false, None));
    }

    #[test]
    fn passwords_never_leave_in_a_redacted_url() {
        assert_eq!(
            redact_url("postgres://ana:s3cr3t@db.internal:5432/sales?sslmode=require"),
            "postgres://ana:***@db.internal:5432/sales?sslmode=require"
        );
        assert_eq!(
            redact_url("postgres://ana@db/sales"),
            "postgres://ana@db/sales"
        );
        assert_eq!(
            redact_url("sqlite:///data/w.sqlite?mode=ro"),
            "sqlite:///data/w.sqlite?mode=ro"
        );
        // An @ in the path is not userinfo.
        assert_eq!(
            redact_url("sqlite:///a/b@c.sqlite"),
            "sqlite:///a/b@c.sqlite"
        );
        // Credentials in query parameters and fragments.
        assert_eq!(
            redact_url(
                "postgres://db/sales?user=ana&password=s3cr3t&sslmode=require&sslpassword=x&PGPASS=y"
            ),
            "postgres://db/sales?user=ana&password=***&sslmode=require&sslpassword=***&PGPASS=***"
        );
        assert_eq!(
            redact_url(
                "snowflake://acct/db?authenticator=jwt&private_key=abc&token=t&warehouse=wh#x"
            ),
            "snowflake://acct/db?authenticator=***&private_key=***&token=***&warehouse=wh#***"
        );
        assert_eq!(
            redact_url("mysql://u:p@h/d?client_secret=z"),
            "mysql://u:***@h/d?client_secret=***"
        );
        // An @ in the password is inside the authority, as the url crate
        // reads it; so is an encoded delimiter.
        assert_eq!(redact_url("postgres://u:p@w@h/db"), "postgres://u:***@h/db");
        assert_eq!(
            redact_url("postgres://u:p%23w%3F@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        // A port is not a password.
        assert_eq!(
            redact_url("postgres://h:5432/db?sslmode=require"),
            "postgres://h:5432/db?sslmode=require"
        );
        assert_eq!(
            redact_url("postgres://ana@h:5432/db"),
            "postgres://ana@h:5432/db"
        );
        assert_eq!(
            redact_url("postgres://:s3cr3t@h/db"),
            "postgres://:***@h/db"
        );
    }

    /// URLs whose userinfo a reader and the url crate would split in
    /// different places: wherever the secret is, it is not shown.
    #[test]
    fn ambiguous_urls_show_no_part_that_may_be_a_secret() {
        for (url, shown) in [
            // Port 123 and a query to the url crate, the password
            // `123?a=b` unencoded to whoever wrote it.
            ("postgres://u:123?a=b@h/db", "postgres://***"),
            ("u:123?a=b@h", "***@h"),
            ("postgres://u:p#w@h/db", "postgres://***"),
            ("postgres://u:p/w@h/db", "postgres://***"),
            ("postgres://u:p?x=y@h/db", "postgres://***"),
            ("postgres://u:p:w#x?y/z@h/db", "postgres://***"),
            ("postgres://u:p\\w@h/db", "postgres://***"),
            // A password that ends after the path, or a password parameter
            // whose value holds an @ that might end a userinfo.
            ("mysql://u:p@h:3306/d@x", "mysql://***"),
            ("postgres://h:5432/db?password=abc@def", "postgres://***"),
            (
                "mysql://u:p@h:3306/d?application_name=a@b&password=x@y",
                "mysql://***",
            ),
            // No scheme: nothing before an @ is shown.
            ("ana:s3cr3t@db/sales", "***@db/sales"),
            (
                "ana:s3cr3t@db/sales?password=x",
                "***@db/sales?password=***",
            ),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
        // An @ in a path with no colon before it hides nothing.
        assert_eq!(
            redact_url("sqlite:///a/b@c.sqlite?mode=ro"),
            "sqlite:///a/b@c.sqlite?mode=ro"
        );
    }

    /// Hostile forms built around one secret: none of its characters runs
    /// show, whichever way the URL is read. In a query value an unencoded
    /// `&` starts the next parameter, for the drivers as for the url crate,
    /// so only the userinfo forms try it.
    #[test]
    fn no_hostile_url_shows_its_secret() {
        let secret = "Zq9Xw7Vy";
        let delimiters = [
            "", "/", "?", "#", "@", ":", "?a=", "&", "\\", "%40", "=", ";",
        ];
        let mut tried = 0;
        for before in delimiters {
            for after in delimiters {
                let password = format!("{before}{secret}{after}");
                let in_userinfo = [
                    format!("postgres://u:{password}@h:5432/db"),
                    format!("postgres://u:{password}@h:5432/db?x=1@2"),
                    format!("postgres://u:{password}@h/db@x"),
                    format!("u:{password}@h"),
                    format!("//u:{password}@h"),
                ];
                let in_query = [
                    format!("mysql://u:{password}@h?password={password}"),
                    format!("postgres://h:5432/db?password={password}&b=c@d"),
                    format!("postgres://h/db?sslpassword={password}"),
                    format!("postgres://u@h/db?access_token={password}"),
                    format!("postgres://h/db#{password}"),
                ];
                let query_safe = !password.contains('&');
                for url in in_userinfo
                    .iter()
                    .chain(in_query.iter().filter(|_| query_safe))
                {
                    tried += 1;
                    let shown = redact_url(url);
                    assert!(
                        !shown.contains(&secret[..4]) && !shown.contains(&secret[4..]),
                        "{url} shows {shown}"
                    );
                }
            }
        }
        // 23 of the 144 passwords hold an `&`.
        assert_eq!(tried, 144 * 5 + (144 - 23) * 5);
    }

    #[test]
    fn sqlite_sources_must_be_files_in_the_warehouse_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("warehouses");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("f1.sqlite"), b"").unwrap();
        std::fs::write(dir.path().join("cassis.sqlite"), b"").unwrap();
        std::os::unix::fs::symlink(dir.path().join("cassis.sqlite"), folder.join("link.sqlite"))
            .unwrap();
        let url = |path: &std::path::Path| format!("sqlite://{}", path.display());
        let parse = |url: &str| DataSource::parse(None, Some(url), &folder);
        assert!(parse(&url(&folder.join("f1.sqlite"))).is_ok());
        assert!(parse(&format!("{}?mode=ro", url(&folder.join("f1.sqlite")))).is_ok());
        assert!(parse(&url(&folder.join("new.sqlite"))).is_ok());
        assert!(parse(&format!("{}/f%31.sqlite", url(&folder))).is_ok());
        assert!(parse("sqlite::memory:").is_ok());
        for outside in [
            url(&dir.path().join("cassis.sqlite")),
            url(&folder.join("link.sqlite")),
            url(&folder.join("../cassis.sqlite")),
            "sqlite:///etc/passwd".to_owned(),
            "sqlite:relative.sqlite".to_owned(),
            // sqlx percent-decodes the path before opening it.
            format!("{}/..%2fcassis.sqlite", url(&folder)),
            format!("{}/%2e%2e%2fcassis.sqlite", url(&folder)),
            format!("{}/%2E%2E/cassis.sqlite", url(&folder)),
            format!("{}/x%2f..%2f..%2fcassis.sqlite", url(&folder)),
            format!("{}%2f..%2fcassis.sqlite", url(&folder)),
            // SQLite reads a name starting with `file:` as a URI, and
            // decodes it once more.
            format!("sqlite:file:{}/..%252fcassis.sqlite", folder.display()),
            format!("sqlite://file:{}/f1.sqlite", folder.display()),
            // sqlx strips its scheme as often as it is repeated.
            format!("sqlite://sqlite://{}/../cassis.sqlite", folder.display()),
        ] {
            assert!(
                matches!(
                    parse(&outside),
                    Err(DataSourceError::OutsideWarehouseFolder { .. })
                ),
                "{outside}"
            );
        }
        // A stored source named again stands, even outside the folder.
        let stored = DataSource {
            dialect: Dialect::Sqlite,
            connection_url: Some(url(&dir.path().join("cassis.sqlite"))),
        };
        let same = stored.connection_url.as_deref();
        assert_eq!(
            DataSource::parse_change(Some(&stored), None, same, &folder),
            Ok(stored.clone())
        );
        assert!(
            DataSource::parse_change(Some(&stored), None, Some("sqlite:///etc/passwd"), &folder)
                .is_err()
        );
        // Schema-only sources and PostgreSQL have no file.
        assert!(DataSource::parse(Some(Dialect::Snowflake), None, &folder).is_ok());
        // BigQuery connects, its key hidden; Databricks is written for only.
        let bigquery = DataSource::parse(
            None,
            Some("bigquery://project/dataset?credentials=c2VjcmV0"),
            &folder,
        )
        .unwrap();
        assert_eq!(bigquery.dialect, Dialect::BigQuery);
        assert_eq!(
            bigquery.redacted_url().as_deref(),
            Some("bigquery://project/dataset?credentials=***")
        );
        assert_eq!(
            DataSource::parse(None, Some("databricks://host/db"), &folder),
            Err(DataSourceError::UnknownUrl("databricks://host/db".into()))
        );
        assert_eq!(
            DataSource::parse(
                Some(Dialect::Databricks),
                Some("databricks://host/db"),
                &folder
            ),
            Err(DataSourceError::NotConnectable(Dialect::Databricks))
        );
        // Snowflake connects; its secret never shows in what is kept to show.
        let snowflake = DataSource::parse(
            None,
            Some("snowflake://ana:s3cret@acct/DB/PUBLIC?warehouse=WH"),
            &folder,
        )
        .unwrap();
        assert_eq!(snowflake.dialect, Dialect::Snowflake);
        assert_eq!(
            snowflake.redacted_url().unwrap(),
            "snowflake://ana:***@acct/DB/PUBLIC?warehouse=WH"
        );
        // MySQL and MariaDB connect, under either scheme.
        for url in ["mysql://ana:pw@db/shop", "mariadb://ana:pw@db/shop"] {
            assert_eq!(
                DataSource::parse(None, Some(url), &folder).map(|s| s.dialect),
                Ok(Dialect::MySql)
            );
        }
    }

    #[test]
    fn dialects_parse_by_name_and_common_alias() {
        assert_eq!("PostgreSQL".parse::<Dialect>(), Ok(Dialect::Postgres));
        assert_eq!("bigquery".parse::<Dialect>(), Ok(Dialect::BigQuery));
        assert!("oracle".parse::<Dialect>().is_err());
        for dialect in Dialect::ALL {
            assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(dialect));
        }
    }

    #[test]
    fn project_names_are_trimmed_and_bounded() {
        assert_eq!(ProjectName::parse("  Sales ").unwrap().as_str(), "Sales");
        assert_eq!(ProjectName::parse("   "), Err(InvalidProjectName::Empty));
        assert_eq!(
            ProjectName::parse(&"x".repeat(101)),
            Err(InvalidProjectName::TooLong)
        );
    }
}
