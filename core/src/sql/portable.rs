//! Functions an ontology's expressions may call whatever the data source:
//! `days_between(start, end)` is written once in the YAML and compiled to
//! each dialect's own date arithmetic, so one ontology serves SQLite and
//! PostgreSQL alike.

use super::SqlError;
use super::dialect::{END, START};
use crate::project::Dialect;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// The whole days from a first date to a second.
pub const DAYS_BETWEEN: &str = "days_between";

/// Writes each portable call in `expr` out in `dialect`'s SQL. A call with
/// other than its arguments is an error, not SQL the source would refuse.
pub fn write_out(dialect: Dialect, expr: &mut Expr) -> Result<(), SqlError> {
    let flow = visit_expressions_mut(expr, |e| {
        let Expr::Function(function) = e else {
            return ControlFlow::Continue(());
        };
        let is_days_between = matches!(
            function.name.0.as_slice(),
            [part] if part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case(DAYS_BETWEEN))
        );
        if !is_days_between {
            return ControlFlow::Continue(());
        }
        let arguments = match &function.args {
            FunctionArguments::List(list) => list.args.as_slice(),
            _ => &[],
        };
        let [
            FunctionArg::Unnamed(FunctionArgExpr::Expr(start)),
            FunctionArg::Unnamed(FunctionArgExpr::Expr(end)),
        ] = arguments
        else {
            return ControlFlow::Break(SqlError::Arguments {
                function: DAYS_BETWEEN,
                expected: 2,
                found: arguments.len(),
            });
        };
        let template = dialect.sql().days_between();
        let mut written = super::parse_expression(dialect, template)
            .unwrap_or_else(|e| panic!("{dialect:?}'s days_between parses: {e}"));
        let (start, end) = (start.clone(), end.clone());
        let _ = visit_expressions_mut(&mut written, |w| {
            if let Expr::Identifier(ident) = w {
                if ident.value == START {
                    *w = start.clone();
                } else if ident.value == END {
                    *w = end.clone();
                }
            }
            ControlFlow::<()>::Continue(())
        });
        *e = Expr::Nested(Box::new(written));
        ControlFlow::Continue(())
    });
    match flow {
        ControlFlow::Break(error) => Err(error),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// The two arguments of an expression that is one `days_between` call,
/// each as the name parts it is written with (`order.order_date`,
/// `l_shipdate`); `None` for anything else. Read in any dialect's quoting.
pub fn days_between_arguments(text: &str) -> Option<[Vec<String>; 2]> {
    let Expr::Function(function) = super::reference::parse_in_any_dialect(text)? else {
        return None;
    };
    let named = matches!(
        function.name.0.as_slice(),
        [part] if part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case(DAYS_BETWEEN))
    );
    let FunctionArguments::List(list) = &function.args else {
        return None;
    };
    let parts = |arg: &FunctionArg| match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(i))) => {
            Some(vec![i.value.to_lowercase()])
        }
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(parts))) => {
            Some(parts.iter().map(|p| p.value.to_lowercase()).collect())
        }
        _ => None,
    };
    match list.args.as_slice() {
        [start, end] if named => Some([parts(start)?, parts(end)?]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::write_out;
    use crate::project::Dialect;
    use crate::sql::{SqlError, parse_expression};

    fn written(dialect: Dialect, text: &str) -> Result<String, SqlError> {
        let mut expr = parse_expression(dialect, text)?;
        write_out(dialect, &mut expr)?;
        Ok(expr.to_string())
    }

    #[test]
    fn days_between_is_each_dialects_date_arithmetic() {
        let text = "days_between(l_commitdate, l_receiptdate)";
        assert_eq!(
            written(Dialect::Sqlite, text).unwrap(),
            "(CAST(julianday(date(l_receiptdate)) - julianday(date(l_commitdate)) AS INTEGER))"
        );
        assert_eq!(
            written(Dialect::Postgres, text).unwrap(),
            "(CAST(l_receiptdate AS DATE) - CAST(l_commitdate AS DATE))"
        );
        assert_eq!(
            written(Dialect::MySql, text).unwrap(),
            "(DATEDIFF(l_receiptdate, l_commitdate))"
        );
        assert_eq!(
            written(Dialect::Snowflake, text).unwrap(),
            "(DATEDIFF(day, CAST(l_commitdate AS DATE), CAST(l_receiptdate AS DATE)))"
        );
        for dialect in Dialect::ALL {
            let sql = written(dialect, &format!("AVG({text}) > 2")).unwrap();
            assert!(!sql.contains("days_between"), "{dialect:?}: {sql}");
            parse_expression(dialect, &sql).unwrap_or_else(|e| panic!("{dialect:?}: {sql}: {e}"));
        }
    }

    #[test]
    fn days_between_needs_a_start_and_an_end() {
        assert_eq!(
            written(Dialect::Postgres, "days_between(l_shipdate)"),
            Err(SqlError::Arguments {
                function: "days_between",
                expected: 2,
                found: 1,
            })
        );
        // Other functions are the source's business.
        assert_eq!(
            written(Dialect::Postgres, "round(x, 2)").unwrap(),
            "round(x, 2)"
        );
    }
}
