//! SQL that a language model wrote instead of a plan. It is accepted only as
//! one read-only SELECT over the tables and columns the ontology describes,
//! so a model can neither change data nor read what the data team did not
//! curate; what runs is the parsed statement, re-rendered.

mod functions;
mod scope;

pub use functions::check_calls;

use crate::engine::compile::CompiledQuery;
use crate::ontology::Ontology;
use crate::project::Dialect;
use crate::sql::{self, SqlError};
use sqlparser::ast::{Expr, SelectItem, SetExpr};

/// Why written SQL was refused, in words that can go back to the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SqlRejection {
    #[error("the SQL {0}")]
    Parse(#[from] SqlError),
    #[error(
        "the SQL must be one plain SELECT at the top (no UNION), so Cassis can count and cap its rows"
    )]
    NotPlainSelect,
    #[error("the SQL selects `*`; it must name the columns it returns")]
    Wildcard,
    #[error("the SQL reads `{0}`, which is not the table of any object in the ontology")]
    UnknownTable(String),
    #[error(
        "the SQL uses `{0}`, which is not a column the ontology describes for the tables it reads"
    )]
    UnknownColumn(String),
    #[error(
        "the SQL calls `{0}`, which is not among the functions Cassis lets a question's SQL call"
    )]
    FunctionNotAllowed(String),
    #[error("the SQL calls `{0}` through a schema; functions must be called by their plain name")]
    QualifiedFunction(String),
    #[error("the SQL reads from the function `{0}`; only tables, CTEs and subqueries may be read")]
    TableFunction(String),
    #[error(
        "the SQL's `{0}` may lengthen text; replace() must swap a literal for a literal no longer than it"
    )]
    GrowingReplace(String),
    #[error("the SQL uses {0}, which Cassis does not check and so does not run")]
    Unsupported(&'static str),
    #[error(
        "the SQL holds a text value that its dialect would read differently from what was checked (a backslash or quotes in a row in a value)"
    )]
    Unfaithful,
}

/// Parses `text` and checks it against `ontology`; the result runs like a
/// compiled plan.
pub fn check(
    ontology: &Ontology,
    dialect: Dialect,
    text: &str,
) -> Result<CompiledQuery, SqlRejection> {
    let query = sql::parse_select(dialect, text)?;
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(SqlRejection::NotPlainSelect);
    };
    let columns = select
        .projection
        .iter()
        .map(output_name)
        .collect::<Result<Vec<_>, _>>()?;
    check_calls(dialect, &query)?;
    let known = scope::Known::of(ontology, dialect);
    let mut resolver = scope::Resolver::new(&known);
    resolver.statement(&query)?;
    Ok(CompiledQuery {
        sql: query.to_string(),
        query,
        columns,
        objects: resolver.objects,
    })
}

/// The name a result column gets: its alias, else the column it shows, else
/// the expression's text.
fn output_name(item: &SelectItem) -> Result<String, SqlRejection> {
    match item {
        SelectItem::ExprWithAlias { alias, .. } => Ok(alias.value.clone()),
        SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Ok(ident.value.clone()),
        SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => {
            Ok(parts.last().map(|p| p.value.clone()).unwrap_or_default())
        }
        SelectItem::UnnamedExpr(expr) => Ok(expr.to_string()),
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => Err(SqlRejection::Wildcard),
        other => Ok(other.to_string()),
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn f1() -> Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/f1/ontology.yaml"))
            .expect("the F1 ontology parses")
    }

    #[test]
    fn a_select_over_the_ontology_is_accepted_and_named() {
        let checked = check(
            &f1(),
            Dialect::Postgres,
            "SELECT d.forename || ' ' || d.surname AS driver, COUNT(*) AS wins \
             FROM public.results r JOIN public.drivers d ON d.driver_id = r.driver_id \
             WHERE r.position = 1 GROUP BY 1 ORDER BY wins DESC LIMIT 3",
        )
        .unwrap();
        assert_eq!(checked.columns, ["driver", "wins"]);
        assert_eq!(checked.objects, ["public.results", "public.drivers"]);
        assert!(
            checked.sql.starts_with("SELECT d.forename"),
            "{}",
            checked.sql
        );
    }

    #[test]
    fn writes_other_tables_and_unknown_columns_are_refused() {
        let ontology = f1();
        let refused = |sql: &str| check(&ontology, Dialect::Postgres, sql).unwrap_err();
        assert_eq!(
            refused("DELETE FROM public.results"),
            SqlRejection::Parse(SqlError::NotASelect)
        );
        assert_eq!(
            refused("SELECT 1; DROP TABLE public.results"),
            SqlRejection::Parse(SqlError::StatementCount(2))
        );
        assert_eq!(
            refused("SELECT usename FROM pg_catalog.pg_user"),
            SqlRejection::UnknownTable("pg_catalog.pg_user".into())
        );
        assert_eq!(
            refused("SELECT temperature FROM public.races"),
            SqlRejection::UnknownColumn("temperature".into())
        );
        assert_eq!(
            refused("SELECT * FROM public.races"),
            SqlRejection::Wildcard
        );
        assert_eq!(
            refused("SELECT year FROM public.races UNION SELECT year FROM public.seasons"),
            SqlRejection::NotPlainSelect
        );
    }

    #[test]
    fn names_the_statement_defines_are_its_own() {
        let checked = check(
            &f1(),
            Dialect::Postgres,
            "WITH w AS (SELECT driver_id, COUNT(*) AS n FROM results WHERE position = 1 GROUP BY driver_id) \
             SELECT w.driver_id, w.n FROM w ORDER BY n DESC",
        )
        .unwrap();
        assert_eq!(checked.columns, ["driver_id", "n"]);
        assert_eq!(checked.objects, ["public.results"]);
    }

    /// Statements a hostile or confused model might write, kept in a file
    /// that `scripts/fuzz` seeds the written-SQL target with: every one must
    /// be refused in every dialect, whatever it is refused for.
    fn hostile() -> impl Iterator<Item = &'static str> {
        include_str!("../../../tests/fixtures/hostile_sql.txt")
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
    }

    #[test]
    fn every_hostile_statement_is_refused() {
        let ontology = f1();
        for dialect in [Dialect::Postgres, Dialect::Sqlite, Dialect::MySql] {
            for sql in hostile() {
                assert!(
                    check(&ontology, dialect, sql).is_err(),
                    "{dialect:?} accepted {sql}"
                );
            }
        }
        assert!(hostile().count() > 90, "the corpus was read");
    }

    /// What analytic questions need, which the checks must keep accepting.
    const ORDINARY: &[&str] = &[
        "SELECT d.surname, COUNT(*) AS wins FROM public.results r \
         JOIN public.drivers d ON d.driver_id = r.driver_id WHERE r.position = 1 \
         GROUP BY d.surname HAVING COUNT(*) > 10 ORDER BY wins DESC LIMIT 5",
        "SELECT d.surname AS driver, SUM(r.points) AS total FROM results AS r \
         INNER JOIN drivers AS d USING (driver_id) GROUP BY driver HAVING total > 100 ORDER BY total DESC",
        "SELECT public.results.points FROM public.results",
        "SELECT results.points FROM public.results",
        "WITH w AS (SELECT driver_id, COUNT(*) AS n FROM results WHERE position = 1 GROUP BY driver_id), \
              top AS (SELECT driver_id, n FROM w WHERE n > 5) \
         SELECT d.surname, top.n FROM top JOIN drivers d ON d.driver_id = top.driver_id ORDER BY top.n DESC",
        "WITH w (who, wins) AS (SELECT driver_id, COUNT(*) FROM results GROUP BY driver_id) \
         SELECT who, wins FROM w",
        "SELECT x.driver_id, x.pts FROM (SELECT driver_id, SUM(points) AS pts FROM results GROUP BY driver_id) AS x \
         WHERE x.pts > 0",
        "SELECT x.driver_id, x.points FROM (SELECT * FROM results) AS x",
        "SELECT d.surname FROM drivers d WHERE EXISTS \
         (SELECT 1 FROM results r WHERE r.driver_id = d.driver_id AND r.position = 1)",
        "SELECT d.surname, (SELECT MAX(r.points) FROM results r WHERE r.driver_id = d.driver_id) AS best \
         FROM drivers d",
        "SELECT surname FROM drivers WHERE driver_id IN (SELECT driver_id FROM results WHERE position = 1)",
        "SELECT driver_id, points, RANK() OVER (PARTITION BY race_id ORDER BY points DESC) AS place, \
         ROW_NUMBER() OVER w AS n, LAG(points) OVER w AS before, SUM(points) OVER w AS running \
         FROM results WINDOW w AS (PARTITION BY driver_id ORDER BY race_id)",
        "SELECT CASE WHEN position = 1 THEN 'win' WHEN position <= 3 THEN 'podium' ELSE 'other' END AS kind, \
         COUNT(*) AS n FROM results GROUP BY 1 ORDER BY n DESC",
        "SELECT CAST(points AS INTEGER) AS p, COALESCE(position, 0) AS pos, NULLIF(grid, 0) AS g, \
         ROUND(AVG(points), 2) AS avg_points FROM results GROUP BY points, position, grid",
        "SELECT COUNT(DISTINCT driver_id) AS drivers, MIN(points) AS least, MAX(points) AS most FROM results",
        "SELECT LOWER(surname) AS s, UPPER(code) AS c, LENGTH(surname) AS l, TRIM(forename) AS f, \
         SUBSTR(surname, 1, 3) AS short, REPLACE(surname, ' ', '') AS joined FROM drivers",
        "SELECT year FROM races UNION SELECT year FROM seasons ORDER BY year",
        "SELECT surname FROM drivers ORDER BY surname LIMIT 10 OFFSET 10",
        "SELECT r.year, r.name FROM races r WHERE r.date >= '2020-01-01' AND r.name LIKE '%Monaco%'",
    ];

    #[test]
    fn ordinary_analytic_sql_is_accepted() {
        let ontology = f1();
        for dialect in [Dialect::Postgres, Dialect::Sqlite, Dialect::MySql] {
            for sql in ORDINARY.iter().filter(|sql| !sql.contains("UNION")) {
                if let Err(rejection) = check(&ontology, dialect, sql) {
                    panic!("{dialect:?} refused {sql}: {rejection}");
                }
            }
        }
        // A set operation is fine below the top, in a CTE.
        let union = ORDINARY.iter().find(|sql| sql.contains("UNION")).unwrap();
        let wrapped = format!("WITH y AS ({union}) SELECT year FROM y");
        check(&ontology, Dialect::Postgres, &wrapped).unwrap();
    }

    #[test]
    fn date_functions_of_each_dialect_are_accepted() {
        let ontology = f1();
        for sql in [
            "SELECT DATE_TRUNC('month', date) AS month, COUNT(*) AS races FROM races GROUP BY 1",
            "SELECT EXTRACT(YEAR FROM date) AS y, DATE_PART('dow', date) AS dow, \
             TO_CHAR(date, 'YYYY-MM') AS ym, AGE(date) AS ago FROM races",
            "SELECT GREATEST(grid, position) AS worst, LEAST(grid, position) AS best FROM results",
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY points) AS median FROM results",
            "SELECT surname FROM drivers WHERE dob > CURRENT_DATE - INTERVAL '30 years'",
        ] {
            if let Err(rejection) = check(&ontology, Dialect::Postgres, sql) {
                panic!("PostgreSQL refused {sql}: {rejection}");
            }
        }
        for sql in [
            "SELECT strftime('%Y', date) AS y, date(date) AS d, julianday(date) AS j FROM races",
            "SELECT IFNULL(position, 0) AS p, IIF(position = 1, 'win', 'no') AS w, TOTAL(points) AS t \
             FROM results GROUP BY position",
            "SELECT surname FROM drivers WHERE dob > date('now', '-30 years')",
        ] {
            if let Err(rejection) = check(&ontology, Dialect::Sqlite, sql) {
                panic!("SQLite refused {sql}: {rejection}");
            }
        }
    }

    #[test]
    fn an_alias_never_makes_a_table_known() {
        let ontology = f1();
        let refused = |sql: &str| check(&ontology, Dialect::Postgres, sql).unwrap_err();
        assert_eq!(
            refused("SELECT users.password_hash AS p FROM users AS users"),
            SqlRejection::UnknownTable("users".into())
        );
        assert_eq!(
            refused("SELECT results.points FROM pg_catalog.pg_user AS results"),
            SqlRejection::UnknownTable("pg_catalog.pg_user".into())
        );
        // A CTE is known only where its WITH is in scope.
        assert_eq!(
            refused(
                "SELECT (SELECT n FROM w) AS leaked \
                 FROM (WITH w AS (SELECT 1 AS n) SELECT n FROM w) AS s"
            ),
            SqlRejection::UnknownTable("w".into())
        );
        assert!(matches!(
            refused("SELECT driver_id FROM public.drivers AS d(driver_id, password_hash)"),
            SqlRejection::Unsupported(_)
        ));
        assert!(matches!(
            refused("SELECT x FROM generate_series(1, 1000000000) AS x"),
            SqlRejection::TableFunction(_)
        ));
    }

    #[test]
    fn every_column_resolves_to_a_table_in_scope() {
        let ontology = f1();
        let refused = |sql: &str| check(&ontology, Dialect::Postgres, sql).unwrap_err();
        assert_eq!(
            refused("SELECT password_hash AS password_hash FROM public.drivers"),
            SqlRejection::UnknownColumn("password_hash".into())
        );
        // `dob` is curated, but on drivers, not results.
        assert_eq!(
            refused("SELECT dob FROM public.results"),
            SqlRejection::UnknownColumn("dob".into())
        );
        assert_eq!(
            refused(
                "SELECT r.dob FROM public.results r \
                 JOIN public.drivers d ON d.driver_id = r.driver_id"
            ),
            SqlRejection::UnknownColumn("r.dob".into())
        );
        // Output names resolve after the SELECT list only, not in WHERE.
        assert_eq!(
            refused("SELECT d.driver_id AS x FROM public.drivers d WHERE x = 1"),
            SqlRejection::UnknownColumn("x".into())
        );
        assert_eq!(
            refused("SELECT r.points FROM public.results r WHERE d.driver_id = 1"),
            SqlRejection::UnknownTable("d".into())
        );
        // A table's alias as a value is its whole row on PostgreSQL.
        assert_eq!(
            refused("SELECT d FROM public.drivers d"),
            SqlRejection::UnknownColumn("d".into())
        );
        // A wildcard below the top shows only the curated columns.
        assert_eq!(
            refused("SELECT w.password_hash FROM (SELECT * FROM public.drivers) w"),
            SqlRejection::UnknownColumn("w.password_hash".into())
        );
        // PostgreSQL keeps a quoted name's case: "Surname" is not surname.
        assert_eq!(
            refused("SELECT \"Surname\" FROM public.drivers"),
            SqlRejection::UnknownColumn("Surname".into())
        );
        assert!(
            check(
                &ontology,
                Dialect::Sqlite,
                "SELECT \"Surname\" FROM drivers"
            )
            .is_ok()
        );
    }

    #[test]
    fn only_allowed_functions_are_called() {
        let ontology = f1();
        let refused = |dialect, sql: &str| check(&ontology, dialect, sql).unwrap_err();
        for (dialect, sql, function) in [
            (
                Dialect::Postgres,
                "SELECT query_to_xml('select 1', true, true, '') AS x",
                "query_to_xml",
            ),
            (
                Dialect::Postgres,
                "SELECT pg_read_binary_file('/etc/passwd') AS f",
                "pg_read_binary_file",
            ),
            (
                Dialect::Postgres,
                "SELECT pg_terminate_backend(1) AS t",
                "pg_terminate_backend",
            ),
            (
                Dialect::Postgres,
                "SELECT dblink_exec('x', 'y') AS d",
                "dblink_exec",
            ),
            (
                Dialect::Postgres,
                "SELECT pg_advisory_lock(1) AS l",
                "pg_advisory_lock",
            ),
            (
                Dialect::Postgres,
                "SELECT \"dblink\"('x', 'y') AS d",
                "\"dblink\"",
            ),
            (
                Dialect::Postgres,
                "SELECT lo_import('/etc/passwd') AS l",
                "lo_import",
            ),
            (Dialect::Postgres, "SELECT pg_sleep(10) AS s", "pg_sleep"),
            (
                Dialect::Postgres,
                "SELECT set_config('a', 'b', false) AS s",
                "set_config",
            ),
            (
                Dialect::Postgres,
                "SELECT current_setting('a') AS s",
                "current_setting",
            ),
            (Dialect::Postgres, "SELECT version() AS v", "version"),
            (
                Dialect::Postgres,
                "SELECT repeat('x', 1000000000) AS r",
                "repeat",
            ),
            (
                Dialect::Postgres,
                "SELECT lpad('x', 1000000000) AS r",
                "lpad",
            ),
            (
                Dialect::Sqlite,
                "SELECT load_extension('/tmp/x.so') AS e",
                "load_extension",
            ),
            (
                Dialect::Sqlite,
                "SELECT readfile('/etc/passwd') AS f",
                "readfile",
            ),
            (
                Dialect::Sqlite,
                "SELECT randomblob(1000000000) AS b",
                "randomblob",
            ),
            (
                Dialect::Sqlite,
                "SELECT zeroblob(1000000000) AS b",
                "zeroblob",
            ),
            (
                Dialect::Sqlite,
                "SELECT sqlite_version() AS v",
                "sqlite_version",
            ),
            (
                Dialect::Sqlite,
                "SELECT printf('%.*c', 1000000000, 'x') AS p",
                "printf",
            ),
            // SQLite has no date_trunc; PostgreSQL's list is not SQLite's.
            (
                Dialect::Sqlite,
                "SELECT date_trunc('year', date) AS y FROM races",
                "date_trunc",
            ),
            (Dialect::MySql, "SELECT sleep(10) AS s", "sleep"),
            (
                Dialect::MySql,
                "SELECT benchmark(1000000000, md5('x')) AS b",
                "benchmark",
            ),
            (
                Dialect::MySql,
                "SELECT load_file('/etc/passwd') AS f",
                "load_file",
            ),
            (Dialect::MySql, "SELECT get_lock('a', 10) AS l", "get_lock"),
            (
                Dialect::MySql,
                "SELECT repeat('x', 1000000000) AS r",
                "repeat",
            ),
            (Dialect::MySql, "SELECT version() AS v", "version"),
            (
                Dialect::MySql,
                "SELECT date_trunc('year', date) AS y FROM public.races",
                "date_trunc",
            ),
        ] {
            assert_eq!(
                refused(dialect, sql),
                SqlRejection::FunctionNotAllowed(function.into()),
                "{sql}"
            );
        }
        assert!(
            check(
                &ontology,
                Dialect::MySql,
                "SELECT ifnull(surname, '') AS s, date_format(dob, '%Y') AS y, \
                 year(dob) AS born FROM public.drivers"
            )
            .is_ok()
        );
        assert_eq!(
            refused(
                Dialect::Postgres,
                "SELECT pg_catalog.pg_read_file('/etc/passwd') AS f"
            ),
            SqlRejection::QualifiedFunction("pg_catalog.pg_read_file".into())
        );
        assert!(matches!(
            refused(
                Dialect::Sqlite,
                "SELECT replace(surname, 'a', 'aaaa') AS r FROM drivers"
            ),
            SqlRejection::GrowingReplace(_)
        ));
        // Anywhere in the statement, not only in the SELECT list.
        assert_eq!(
            refused(
                Dialect::Postgres,
                "SELECT driver_id FROM drivers WHERE driver_id IN \
                 (SELECT driver_id FROM results ORDER BY pg_sleep(1))"
            ),
            SqlRejection::FunctionNotAllowed("pg_sleep".into())
        );
        // Case and quotes do not change what an allowed name calls.
        assert!(
            check(
                &ontology,
                Dialect::Postgres,
                "SELECT \"count\"(*) AS n, Sum(points) AS p FROM results"
            )
            .is_ok()
        );
    }
}
