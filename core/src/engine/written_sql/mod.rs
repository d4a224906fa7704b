//! SQL that a language model wrote instead of a plan. It is accepted only as
//! one read-only SELECT over the tables and columns the ontology describes,
//! so a model can neither change data nor read what the data team did not
//! curate; what runs is the parsed statement, re-rendered.

mod functions;
mod scope;

pub use functions::{check_calls, is_allowed};

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
}
