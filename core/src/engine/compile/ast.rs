//! Building blocks of the SQL tree: literals, comparisons, aggregates and
//! empty statements from constant templates, so every query is an
//! `sqlparser` AST, printed once at the end.

use super::grains::fiscal_year_start;
use crate::engine::plan::{Condition, Literal};
use crate::ontology::{Aggregate, Month};
use crate::project::Dialect;
use crate::sql::{self, SqlDialect};
use sqlparser::ast::{
    BinaryOperator, Expr, Ident, InTarget, ObjectName, OrderBy, OrderByExpr, OrderByKind,
    OrderByOptions, OrderBySort, Query, Select, SelectItem, SetExpr, TableAlias, TableFactor,
    Value, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// Prefixes every bare column of `expr` with `alias`.
pub(super) fn qualify(expr: &mut Expr, alias: &Ident) {
    let _ = visit_expressions_mut(expr, |e| {
        if let Expr::Identifier(ident) = e {
            *e = Expr::CompoundIdentifier(vec![alias.clone(), ident.clone()]);
        }
        ControlFlow::<()>::Continue(())
    });
}

pub(super) fn number(n: i64) -> Value {
    Value::Number(n.to_string(), false)
}

pub(super) fn literal(value: &Literal) -> Expr {
    match value {
        Literal::Integer(n) => Expr::value(number(*n)),
        Literal::Text(text) => Expr::value(Value::SingleQuotedString(text.clone())),
    }
}

pub(super) fn binary(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

/// `left AND right`, with compound sides in parentheses where printing
/// them bare would read back as another tree than the one checked (and the
/// query be refused): `a AND (b AND c)` as `(a AND b) AND c`, `(a OR b)
/// AND c` as `a OR (b AND c)`.
pub(super) fn and(left: Expr, right: Expr) -> Expr {
    let nested = |side: Expr, ops: &[BinaryOperator]| match side {
        Expr::BinaryOp { ref op, .. } if ops.contains(op) => Expr::Nested(Box::new(side)),
        side => side,
    };
    let left = nested(left, &[BinaryOperator::Or]);
    let right = nested(right, &[BinaryOperator::And, BinaryOperator::Or]);
    binary(left, BinaryOperator::And, right)
}

pub(super) fn comparison(column: Expr, condition: &Condition) -> Expr {
    match condition {
        // `Compiler::filter` renders it, with the metric's table; it never
        // reaches here. Were it to, matching nothing is the safe reading.
        Condition::NotAmong { .. }
        | Condition::Named
        | Condition::NotNamed
        | Condition::Extreme { .. }
        | Condition::Leader { .. }
        | Condition::PeerOf { .. }
        | Condition::AboveAttribute(_)
        | Condition::BelowAttribute(_)
        | Condition::AboveAverage
        | Condition::AboveAverageOfAll
        | Condition::BelowAverageOfAll
        | Condition::BelowAverage => Expr::value(Value::Boolean(false)),
        Condition::OneOf(values) if values.len() == 1 => {
            binary(column, BinaryOperator::Eq, literal(&values[0]))
        }
        Condition::OneOf(values) => Expr::In {
            expr: Box::new(column),
            target: InTarget::List(values.iter().map(literal).collect()),
            negated: false,
            global: false,
        },
        Condition::NoneOf(values) => Expr::In {
            expr: Box::new(column),
            target: InTarget::List(values.iter().map(literal).collect()),
            negated: true,
            global: false,
        },
        Condition::Missing => Expr::IsNull(Box::new(column)),
        Condition::Present => Expr::IsNotNull(Box::new(column)),
        Condition::AtLeast(v) => binary(column, BinaryOperator::GtEq, literal(v)),
        Condition::AtMost(v) => binary(column, BinaryOperator::LtEq, literal(v)),
        Condition::Before(v) => binary(column, BinaryOperator::Lt, literal(v)),
        Condition::After(v) => binary(column, BinaryOperator::Gt, literal(v)),
        Condition::Between(low, high) => Expr::Between {
            expr: Box::new(column),
            negated: false,
            low: Box::new(literal(low)),
            high: Box::new(literal(high)),
        },
    }
}

/// Years compared with a date column become ranges of ISO dates, which
/// SQLite (dates as text) and PostgreSQL (typed dates) both compare
/// correctly. Years start in January, or in `start` for fiscal years (each
/// named by the calendar year it ends in).
pub(super) fn year_filter_on_date(column: Expr, condition: &Condition, start: Month) -> Expr {
    let next = |year: &Literal| match year {
        Literal::Integer(y) => Literal::Text(fiscal_year_start(y + 1, start)),
        other => other.clone(),
    };
    let start = |year: &Literal| match year {
        Literal::Integer(y) => Literal::Text(fiscal_year_start(*y, start)),
        other => other.clone(),
    };
    let range = |low: &Literal, high: &Literal| {
        and(
            binary(column.clone(), BinaryOperator::GtEq, literal(&start(low))),
            binary(column.clone(), BinaryOperator::Lt, literal(&next(high))),
        )
    };
    let is_year = |v: &Literal| matches!(v, Literal::Integer(_));
    match condition {
        Condition::OneOf(values) if values.iter().all(is_year) => values
            .iter()
            .map(|y| Expr::Nested(Box::new(range(y, y))))
            .reduce(|a, b| binary(a, BinaryOperator::Or, b))
            .map(|e| Expr::Nested(Box::new(e)))
            .unwrap_or_else(|| Expr::value(Value::Boolean(false))),
        Condition::AtLeast(y) if is_year(y) => {
            binary(column, BinaryOperator::GtEq, literal(&start(y)))
        }
        Condition::After(y) if is_year(y) => {
            binary(column, BinaryOperator::GtEq, literal(&next(y)))
        }
        Condition::Before(y) if is_year(y) => {
            binary(column, BinaryOperator::Lt, literal(&start(y)))
        }
        Condition::AtMost(y) if is_year(y) => binary(column, BinaryOperator::Lt, literal(&next(y))),
        Condition::Between(low, high) if is_year(low) && is_year(high) => range(low, high),
        other => comparison(column, other),
    }
}

/// `CASE WHEN condition THEN input END`, or `input` (1 for a count) alone.
pub(super) fn conditional(condition: Option<Expr>, input: Option<Expr>) -> Expr {
    let value = input.unwrap_or_else(|| Expr::value(number(1)));
    match condition {
        None => value,
        Some(condition) => {
            let mut case = template_expr("CASE WHEN cassis_condition THEN cassis_value END");
            substitute(&mut case, "cassis_condition", &condition);
            substitute(&mut case, "cassis_value", &value);
            case
        }
    }
}

pub(super) fn aggregate_call(aggregate: Aggregate, input: Option<Expr>) -> Expr {
    let (template, needs_input) = match (aggregate, &input) {
        (Aggregate::Count, None) => ("COUNT(*)", false),
        (Aggregate::Count, Some(_)) => ("COUNT(cassis_value)", true),
        (Aggregate::CountDistinct, _) => ("COUNT(DISTINCT cassis_value)", true),
        (Aggregate::Sum, _) => ("SUM(cassis_value)", true),
        (Aggregate::Avg, _) => ("AVG(cassis_value)", true),
        (Aggregate::Min, _) => ("MIN(cassis_value)", true),
        (Aggregate::Max, _) => ("MAX(cassis_value)", true),
    };
    let mut call = template_expr(template);
    if needs_input {
        let value = input.unwrap_or_else(|| Expr::value(number(1)));
        substitute(&mut call, "cassis_value", &value);
    }
    call
}

/// Parses one of this module's own constant templates; they are generic SQL.
pub(super) fn template_expr(template: &str) -> Expr {
    sql::parse_expression(Dialect::Postgres, template).expect("compiler templates parse")
}

pub(super) fn substitute(expr: &mut Expr, placeholder: &str, replacement: &Expr) {
    let _ = visit_expressions_mut(expr, |e| {
        if matches!(e, Expr::Identifier(ident) if ident.value == placeholder) {
            *e = replacement.clone();
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Always aliased, so ORDER BY names the output column even when two joined
/// tables have a column of that name.
pub(super) fn select_item(expr: Expr, name: &str) -> SelectItem {
    SelectItem::ExprWithAlias {
        expr,
        alias: Ident::new(name),
    }
}

pub(super) fn order_by(expr: Expr, descending: bool) -> OrderByExpr {
    OrderByExpr {
        expr,
        options: OrderByOptions {
            sort: Some(if descending {
                OrderBySort::Desc
            } else {
                OrderBySort::Asc
            }),
            nulls_first: None,
        },
        with_fill: None,
    }
}

/// A SELECT with nothing in it, from a constant template, so new fields of
/// the AST keep their defaults.
pub(super) fn empty_select() -> Select {
    let query = sql::parse_select(Dialect::Postgres, "SELECT 1 FROM cassis_table")
        .expect("the compiler's template parses");
    match *query.body {
        SetExpr::Select(select) => *select,
        _ => unreachable!("the template is a plain SELECT"),
    }
}

pub(super) fn query_of(body: SetExpr) -> Query {
    let mut query = sql::parse_select(Dialect::Postgres, "SELECT 1").expect("template parses");
    query.body = Box::new(body);
    query
}

pub(super) fn finish(
    dialect: &dyn SqlDialect,
    select: Select,
    order: Vec<OrderByExpr>,
    limit: Option<u32>,
    offset: Option<u32>,
) -> Query {
    let mut query = query_of(SetExpr::Select(Box::new(select)));
    if !order.is_empty() {
        query.order_by = Some(OrderBy {
            kind: OrderByKind::Expressions(order),
            interpolate: None,
        });
    }
    if let Some(limit) = limit {
        query.limit_clause = Some(dialect.limit(limit, offset.filter(|n| *n > 0)));
    }
    query
}

pub(super) fn table_factor(name: ObjectName, alias: Ident) -> TableFactor {
    let template = sql::parse_select(
        Dialect::Postgres,
        "SELECT 1 FROM cassis_table AS cassis_alias",
    )
    .expect("template parses");
    let SetExpr::Select(select) = *template.body else {
        unreachable!()
    };
    let mut factor = select.from[0].relation.clone();
    if let TableFactor::Table {
        name: table_name,
        alias: table_alias,
        ..
    } = &mut factor
    {
        *table_name = name;
        *table_alias = Some(TableAlias {
            explicit: false,
            name: alias,
            columns: Vec::new(),
            at: None,
        });
    }
    factor
}

pub(super) fn derived(query: Query, alias: Ident) -> TableFactor {
    TableFactor::Derived {
        lateral: false,
        subquery: Box::new(query),
        alias: Some(TableAlias {
            explicit: true,
            name: alias,
            columns: Vec::new(),
            at: None,
        }),
        sample: None,
    }
}
