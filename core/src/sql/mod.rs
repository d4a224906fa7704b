//! SQL as Cassis reads it: parsed with `sqlparser` in the data source's
//! dialect, never pasted together as text.

pub mod dialect;
pub mod portable;
pub mod reference;

pub use dialect::SqlDialect;

use crate::project::Dialect;
use sqlparser::ast::{Expr, ObjectName, Query, Statement};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Why a piece of SQL was refused, in words a data analyst understands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    #[error("is empty")]
    Empty,
    #[error("does not parse as {dialect} SQL: {message}")]
    Syntax { dialect: Dialect, message: String },
    #[error("has text left over after the {what}: `{rest}`")]
    TrailingInput { what: &'static str, rest: String },
    #[error("must be exactly one statement, found {0}")]
    StatementCount(usize),
    #[error("must be a read-only SELECT query")]
    NotASelect,
    #[error("calls {function} with {found} arguments where it takes {expected}")]
    Arguments {
        function: &'static str,
        expected: usize,
        found: usize,
    },
}

fn syntax(dialect: Dialect, error: ParserError) -> SqlError {
    let message = match error {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => m,
        ParserError::RecursionLimitExceeded => "it nests too deeply".to_owned(),
    };
    SqlError::Syntax { dialect, message }
}

/// Parses a whole input with `parse`, refusing anything left over.
fn parse_all<T>(
    dialect: Dialect,
    text: &str,
    what: &'static str,
    parse: impl FnOnce(&mut Parser) -> Result<T, ParserError>,
) -> Result<T, SqlError> {
    if text.trim().is_empty() {
        return Err(SqlError::Empty);
    }
    let mut parser = Parser::new(dialect.sql().parser())
        .try_with_sql(text)
        .map_err(|e| syntax(dialect, e))?;
    let parsed = parse(&mut parser).map_err(|e| syntax(dialect, e))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        let rest = text
            .get(offset_of(text, next.span.start.line, next.span.start.column)..)
            .unwrap_or_default();
        return Err(SqlError::TrailingInput {
            what,
            rest: rest.trim().to_owned(),
        });
    }
    Ok(parsed)
}

/// The byte offset of a 1-based line and column in `text`.
fn offset_of(text: &str, line: u64, column: u64) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    let column_bytes: usize = text[line_start..]
        .chars()
        .take(column.saturating_sub(1) as usize)
        .map(char::len_utf8)
        .sum();
    line_start + column_bytes
}

/// A scalar or boolean expression, such as `forename || ' ' || surname` or `position = 1`.
pub fn parse_expression(dialect: Dialect, text: &str) -> Result<Expr, SqlError> {
    parse_all(dialect, text, "expression", |p| p.parse_expr())
}

/// A possibly qualified table or view name, such as `public.results`.
/// A name every dialect reads unquoted as written, case aside: lower-case
/// letters, digits and underscores, not starting with a digit.
pub fn is_lower_snake_case(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub fn parse_table_name(dialect: Dialect, text: &str) -> Result<ObjectName, SqlError> {
    parse_all(dialect, text, "table name", |p| p.parse_object_name(false))
}

/// Exactly one read-only query: SELECT, possibly with WITH, UNION and the like.
pub fn parse_select(dialect: Dialect, text: &str) -> Result<Query, SqlError> {
    if text.trim().is_empty() {
        return Err(SqlError::Empty);
    }
    let mut statements =
        Parser::parse_sql(dialect.sql().parser(), text).map_err(|e| syntax(dialect, e))?;
    if statements.len() != 1 {
        return Err(SqlError::StatementCount(statements.len()));
    }
    match statements.remove(0) {
        Statement::Query(query) if is_read_only(&query) => Ok(*query),
        _ => Err(SqlError::NotASelect),
    }
}

/// A query that writes (`SELECT ... INTO`, data-modifying CTEs) is not read-only.
fn is_read_only(query: &Query) -> bool {
    use sqlparser::ast::SetExpr;
    fn body_reads(body: &SetExpr) -> bool {
        match body {
            SetExpr::Select(select) => select.into.is_none(),
            SetExpr::Query(query) => is_read_only(query),
            SetExpr::SetOperation { left, right, .. } => body_reads(left) && body_reads(right),
            SetExpr::Values(_) | SetExpr::Table(_) => true,
            _ => false,
        }
    }
    let ctes_read = query
        .with
        .as_ref()
        .is_none_or(|with| with.cte_tables.iter().all(|cte| is_read_only(&cte.query)));
    ctes_read && body_reads(&query.body)
}

/// `Race Results`, `raceResults` and `race-results` all become `race_results`.
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    let out = out.trim_matches('_').to_owned();
    match out.chars().next() {
        Some(c) if c.is_ascii_lowercase() => out,
        Some(_) => format!("t_{out}"),
        None => "unnamed".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_parse_in_the_source_dialect() {
        let expr = parse_expression(Dialect::Postgres, "forename || ' ' || surname").unwrap();
        assert_eq!(expr.to_string(), "forename || ' ' || surname");
        assert!(parse_expression(Dialect::Sqlite, "l_extendedprice * (1 - l_discount)").is_ok());
    }

    #[test]
    fn broken_expressions_say_why() {
        assert_eq!(
            parse_expression(Dialect::Postgres, "  "),
            Err(SqlError::Empty)
        );
        assert!(matches!(
            parse_expression(Dialect::Postgres, "a +"),
            Err(SqlError::Syntax { .. })
        ));
        assert_eq!(
            parse_expression(Dialect::Postgres, "position = 1; DROP TABLE results"),
            Err(SqlError::TrailingInput {
                what: "expression",
                rest: "; DROP TABLE results".into()
            })
        );
    }

    #[test]
    fn table_names_may_be_qualified() {
        assert_eq!(
            parse_table_name(Dialect::Postgres, "public.results")
                .unwrap()
                .to_string(),
            "public.results"
        );
        assert!(parse_table_name(Dialect::Postgres, "public.results x y").is_err());
    }

    #[test]
    fn only_one_read_only_select_is_a_query() {
        assert!(parse_select(Dialect::Postgres, "SELECT 1").is_ok());
        assert!(
            parse_select(
                Dialect::Postgres,
                "WITH a AS (SELECT 1) SELECT * FROM a UNION SELECT 2"
            )
            .is_ok()
        );
        assert_eq!(
            parse_select(Dialect::Postgres, "SELECT 1; SELECT 2"),
            Err(SqlError::StatementCount(2))
        );
        assert_eq!(
            parse_select(Dialect::Postgres, "DELETE FROM results"),
            Err(SqlError::NotASelect)
        );
        assert_eq!(
            parse_select(Dialect::Postgres, "SELECT * INTO copy FROM results"),
            Err(SqlError::NotASelect)
        );
    }
}
