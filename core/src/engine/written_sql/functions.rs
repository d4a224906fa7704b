//! The functions a query may call. An allowlist, not a denylist: a data
//! source has hundreds of functions, and the ones that read files, signal
//! other sessions, open connections, change settings or allocate without
//! bound cannot be hunted down one by one, release after release.

use super::SqlRejection;
use crate::project::Dialect;
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Query, TableFactor, Value,
    Visit, Visitor,
};
use std::ops::ControlFlow;

/// What every dialect has under these names, with the same meaning.
const COMMON: &[&str] = &[
    // Aggregates.
    "count",
    "sum",
    "avg",
    "min",
    "max",
    // Window functions.
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    // Scalars whose result is no larger than their arguments.
    "coalesce",
    "nullif",
    "abs",
    "round",
    "lower",
    "upper",
    "length",
    "trim",
    "ltrim",
    "rtrim",
    "substr",
    "substring",
    "replace",
    "concat",
    "current_date",
    "current_time",
    "current_timestamp",
];

/// The standard statistics and scalars of the warehouses other than SQLite.
const STANDARD: &[&str] = &[
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "corr",
    "covar_pop",
    "covar_samp",
    "greatest",
    "least",
    "ceil",
    "ceiling",
    "floor",
    "sign",
    "mod",
    "sqrt",
    "exp",
    "ln",
    "power",
    "date_trunc",
    "date_part",
];

const SQLITE: &[&str] = &[
    "ifnull",
    "iif",
    "instr",
    "total",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "sign",
    "mod",
    "sqrt",
    "exp",
    "ln",
    "log",
    "log10",
    "pow",
    "power",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
];

const POSTGRES: &[&str] = &[
    "percentile_cont",
    "percentile_disc",
    "mode",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "regr_count",
    "bool_and",
    "bool_or",
    "every",
    "trunc",
    "div",
    "log",
    "log10",
    "cbrt",
    "width_bucket",
    "initcap",
    "left",
    "right",
    "split_part",
    "strpos",
    "position",
    "starts_with",
    "char_length",
    "character_length",
    "btrim",
    "translate",
    "to_char",
    "to_date",
    "to_timestamp",
    "to_number",
    "extract",
    "age",
    "now",
    "make_date",
    "localtime",
    "localtimestamp",
];

/// MySQL's and MariaDB's statistics and scalars (they have no `date_trunc`
/// or `date_part`). Not `sleep`, `benchmark`, `load_file`, `get_lock`,
/// `repeat`, `lpad` and the like.
const MYSQL: &[&str] = &[
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "std",
    "variance",
    "var_pop",
    "var_samp",
    "greatest",
    "least",
    "ceil",
    "ceiling",
    "floor",
    "sign",
    "mod",
    "sqrt",
    "exp",
    "ln",
    "log",
    "log10",
    "log2",
    "pow",
    "power",
    "truncate",
    "ifnull",
    "if",
    "year",
    "month",
    "day",
    "dayofmonth",
    "dayofweek",
    "quarter",
    "week",
    "date",
    "date_format",
    "datediff",
    "timestampdiff",
    "str_to_date",
    "curdate",
    "now",
    "char_length",
    "character_length",
    "left",
    "right",
    "locate",
    "instr",
];

/// The lists a dialect's queries may call from.
fn allowlists(dialect: Dialect) -> &'static [&'static [&'static str]] {
    match dialect {
        Dialect::Sqlite => &[COMMON, SQLITE],
        Dialect::Postgres => &[COMMON, STANDARD, POSTGRES],
        Dialect::MySql => &[COMMON, MYSQL],
        Dialect::Snowflake
        | Dialect::BigQuery
        | Dialect::Databricks
        | Dialect::Redshift
        | Dialect::DuckDb => &[COMMON, STANDARD],
    }
}

/// Whether `name`, an unqualified function name's value, may be called.
fn is_allowed(dialect: Dialect, name: &str) -> bool {
    let name = name.to_lowercase();
    allowlists(dialect)
        .iter()
        .any(|list| list.contains(&name.as_str()))
}

/// Every function `query` calls, at any depth, must be allowed; table
/// functions (`FROM generate_series(...)`) are refused outright.
pub fn check_calls(dialect: Dialect, query: &Query) -> Result<(), SqlRejection> {
    match query.visit(&mut Calls { dialect }) {
        ControlFlow::Break(rejection) => Err(rejection),
        ControlFlow::Continue(()) => Ok(()),
    }
}

struct Calls {
    dialect: Dialect,
}

impl Visitor for Calls {
    type Break = SqlRejection;

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<SqlRejection> {
        match expr {
            Expr::Function(function) => check_function(self.dialect, function)
                .map_or_else(ControlFlow::Break, ControlFlow::Continue),
            _ => ControlFlow::Continue(()),
        }
    }

    // `|> CALL f(...)` calls a function outside any expression.
    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<SqlRejection> {
        if query.pipe_operators.is_empty() {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(SqlRejection::Unsupported("pipe operators"))
        }
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<SqlRejection> {
        match factor {
            TableFactor::Table { args: None, .. }
            | TableFactor::Derived { .. }
            | TableFactor::NestedJoin { .. } => ControlFlow::Continue(()),
            TableFactor::Table { name, .. } => {
                ControlFlow::Break(SqlRejection::TableFunction(name.to_string()))
            }
            other => ControlFlow::Break(SqlRejection::TableFunction(other.to_string())),
        }
    }
}

fn check_function(dialect: Dialect, function: &Function) -> Result<(), SqlRejection> {
    let written = function.name.to_string();
    // `pg_catalog.pg_read_file` names the function that a plain name would
    // find, but also any other schema's, and a quoted name is the same name.
    let [part] = function.name.0.as_slice() else {
        return Err(SqlRejection::QualifiedFunction(written));
    };
    let Some(name) = part.as_ident() else {
        return Err(SqlRejection::FunctionNotAllowed(written));
    };
    if !is_allowed(dialect, &name.value) {
        return Err(SqlRejection::FunctionNotAllowed(written));
    }
    if !matches!(function.parameters, FunctionArguments::None) {
        return Err(SqlRejection::Unsupported("parametric function calls"));
    }
    if let FunctionArguments::List(list) = &function.args {
        // `f(t.*)` passes every column of `t`, curated or not.
        let whole_row = list.args.iter().any(|arg| {
            matches!(
                arg,
                FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(_))
                    | FunctionArg::Named {
                        arg: FunctionArgExpr::QualifiedWildcard(_),
                        ..
                    }
                    | FunctionArg::ExprNamed {
                        arg: FunctionArgExpr::QualifiedWildcard(_),
                        ..
                    }
            )
        });
        if whole_row {
            return Err(SqlRejection::Unsupported(
                "a whole row as a function's argument",
            ));
        }
    }
    if name.value.eq_ignore_ascii_case("replace") && !shrinks(function) {
        return Err(SqlRejection::GrowingReplace(function.to_string()));
    }
    Ok(())
}

/// Whether a `replace(text, from, to)` can only keep or shorten its text:
/// `from` and `to` literals with `to` no more bytes. Nested replacements that
/// lengthen multiply the text's size with each level.
fn shrinks(function: &Function) -> bool {
    let FunctionArguments::List(list) = &function.args else {
        return false;
    };
    let literal = |arg: &FunctionArg| match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(value))) => match &value.value {
            Value::SingleQuotedString(text) => Some(text.len()),
            _ => None,
        },
        _ => None,
    };
    match list.args.as_slice() {
        [_, from, to] => {
            matches!((literal(from), literal(to)), (Some(from), Some(to)) if to <= from)
        }
        _ => false,
    }
}
