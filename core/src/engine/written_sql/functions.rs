//! The functions a query may call: each dialect's allowlist
//! ([`SqlDialect::callable`](crate::sql::SqlDialect::callable)), at any
//! depth of the query.

use super::SqlRejection;
use crate::project::Dialect;
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Query, TableFactor, Value,
    Visit, Visitor,
};
use std::ops::ControlFlow;

/// Whether `name`, an unqualified function name's value, may be called.
fn is_allowed(dialect: Dialect, name: &str) -> bool {
    dialect.sql().may_call(name)
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
