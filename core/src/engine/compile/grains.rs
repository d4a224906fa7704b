//! Dates read at a grain (day, week, month, quarter, year) and dates moved
//! by whole periods, in each dialect's own functions: the templates are the
//! dialect object's ([`SqlDialect`]), constant SQL with one placeholder,
//! parsed in the source's dialect; the date they are applied to is the
//! compiler's own rendering of an attribute.

use super::{CompileError, substitute};
use crate::ontology::{Attribute, AttributeRole, DataType, Grain, Month};
use crate::sql::{self, SqlDialect, dialect::VALUE};
use sqlparser::ast::Expr;

/// The period `date` falls in, at `grain`: the year as a number; the
/// month, quarter, week and day as ISO-like text that sorts as the periods
/// do (`1997-03`, `1997-Q1`, the Monday `1997-03-10`, `1997-03-14`).
///
/// A fiscal year is the calendar year of the date moved forward by the
/// months left from its start to January (six for a July start), so July
/// 1995 to June 1996 all read 1996: the dialect's own month arithmetic and
/// year, no new template per dialect.
pub(super) fn bucket(
    dialect: &dyn SqlDialect,
    grain: Grain,
    date: Expr,
    data_type: DataType,
    fiscal_start: Month,
) -> Expr {
    let date = as_date(dialect, date, data_type);
    let template = match grain {
        Grain::Year => dialect.year_of(),
        Grain::Month => dialect.month_of(),
        Grain::Quarter => dialect.quarter_of(),
        Grain::Week => dialect.week_of(),
        Grain::Day => dialect.day_of(),
        Grain::MonthOfYear => dialect.month_number_of(),
        Grain::FiscalYear => {
            let ahead = (13 - fiscal_start.number()) % 12;
            let date = if ahead == 0 {
                date
            } else {
                apply(dialect, &dialect.add_months(i64::from(ahead)), date)
            };
            return apply(dialect, dialect.year_of(), date);
        }
    };
    apply(dialect, template, date)
}

/// The first day of fiscal year `year` (named by the calendar year it
/// ends in) as ISO text: `1995-07-01` for FY1996 starting in July.
pub(super) fn fiscal_year_start(year: i64, start: Month) -> String {
    if start.number() == 1 {
        format!("{year:04}-01-01")
    } else {
        format!("{:04}-{:02}-01", year - 1, start.number())
    }
}

/// `date` moved `periods` of `grain` later (earlier when negative). Months
/// move from the first of the month, so 31 January plus a month is in
/// February, never in March; weeks and days move day by day. A year held
/// as a number moves by years alone.
pub(super) fn shift(
    dialect: &dyn SqlDialect,
    grain: Grain,
    periods: i64,
    date: Expr,
    data_type: DataType,
) -> Result<Expr, CompileError> {
    if !grain.is_period() {
        return Err(CompileError::NotAPeriod(grain.name()));
    }
    if data_type == DataType::Integer {
        return match grain {
            // A fiscal year held as a number is a number too.
            Grain::Year | Grain::FiscalYear => {
                Ok(apply(dialect, &format!("{VALUE} + {periods}"), date))
            }
            _ => Err(CompileError::GrainOfYear(grain.name())),
        };
    }
    let date = as_date(dialect, date, data_type);
    let template = match (grain.months(), grain.days()) {
        (Some(months), _) => dialect.add_months(periods * i64::from(months)),
        (None, days) => dialect.add_days(periods * i64::from(days.unwrap_or(1))),
    };
    Ok(apply(dialect, &template, date))
}

/// Whether an attribute holds dates a grain can read: a date, a timestamp,
/// or text the ontology says is time (ISO dates).
pub(super) fn holds_dates(attribute: &Attribute) -> bool {
    match attribute.data_type {
        DataType::Date | DataType::Timestamp => true,
        DataType::Text => attribute.role == AttributeRole::Time,
        _ => false,
    }
}

/// ISO text or a timestamp read as a date where the dialect's date
/// functions need one.
fn as_date(dialect: &dyn SqlDialect, value: Expr, data_type: DataType) -> Expr {
    let cast = match data_type {
        DataType::Text => dialect.casts_text_to_date(),
        DataType::Timestamp => dialect.casts_timestamp_to_date(),
        _ => false,
    };
    if cast {
        apply(dialect, "CAST(cassis_value AS DATE)", value)
    } else {
        value
    }
}

fn apply(dialect: &dyn SqlDialect, template: &str, value: Expr) -> Expr {
    let mut expr = sql::parse_expression(dialect.dialect(), template).unwrap_or_else(|e| {
        panic!(
            "the time template {template} parses in {:?}: {e}",
            dialect.dialect()
        )
    });
    substitute(&mut expr, VALUE, &value);
    expr
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::{CompileError, compile};
    use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
    use crate::ontology::Grain;
    use crate::project::Dialect;

    fn wholesale() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/wholesale/ontology.yaml"))
            .unwrap()
    }

    fn orders_by(grain: Grain) -> SemanticPlan {
        SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "order_count".into(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("order", "order_date").by(grain)],
            ..SemanticPlan::default()
        }
    }

    #[test]
    fn every_grain_reads_back_in_every_dialect() {
        for dialect in Dialect::ALL {
            for grain in Grain::ALL {
                let compiled = compile(&wholesale(), &orders_by(grain), dialect).unwrap();
                let reparsed = crate::sql::parse_select(dialect, &compiled.sql)
                    .unwrap_or_else(|e| panic!("{dialect:?} {grain:?}: {e}: {}", compiled.sql));
                assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?} {grain:?}");
                assert_eq!(
                    compiled.columns,
                    [format!("order_date_{}", grain.name()), "order_count".into()]
                );
            }
        }
    }

    #[test]
    fn quarters_and_weeks_in_sqlite_and_postgres() {
        let sql = |grain, dialect| {
            compile(&wholesale(), &orders_by(grain), dialect)
                .unwrap()
                .sql
        };
        assert_eq!(
            sql(Grain::Quarter, Dialect::Sqlite),
            "SELECT strftime('%Y', o.o_orderdate) || '-Q' || ((CAST(strftime('%m', o.o_orderdate) AS INTEGER) + 2) / 3) AS order_date_quarter, \
             COUNT(*) AS order_count FROM orders o \
             GROUP BY strftime('%Y', o.o_orderdate) || '-Q' || ((CAST(strftime('%m', o.o_orderdate) AS INTEGER) + 2) / 3) \
             ORDER BY order_date_quarter ASC"
        );
        assert_eq!(
            sql(Grain::Quarter, Dialect::Postgres),
            "SELECT TO_CHAR(o.o_orderdate, 'YYYY-\"Q\"Q') AS order_date_quarter, COUNT(*) AS order_count \
             FROM orders o GROUP BY TO_CHAR(o.o_orderdate, 'YYYY-\"Q\"Q') ORDER BY order_date_quarter ASC"
        );
        assert!(
            sql(Grain::Week, Dialect::Sqlite).starts_with(
                "SELECT date(o.o_orderdate, 'weekday 0', '-6 days') AS order_date_week"
            )
        );
        assert!(sql(Grain::Week, Dialect::Postgres).starts_with(
            "SELECT TO_CHAR(DATE_TRUNC('week', o.o_orderdate), 'YYYY-MM-DD') AS order_date_week"
        ));
        assert!(
            sql(Grain::Day, Dialect::Snowflake)
                .starts_with("SELECT TO_CHAR(o.o_orderdate, 'YYYY-MM-DD') AS order_date_day")
        );
        assert!(
            sql(Grain::Quarter, Dialect::BigQuery)
                .starts_with("SELECT FORMAT_DATE('%Y-Q%Q', o.o_orderdate) AS order_date_quarter")
        );
    }

    #[test]
    fn iso_text_is_read_as_a_date_where_the_dialect_needs_one() {
        let mut ontology = wholesale();
        let order = ontology
            .objects
            .iter_mut()
            .find(|o| o.name == "order")
            .unwrap();
        let date = order
            .attributes
            .iter_mut()
            .find(|a| a.name == "order_date")
            .unwrap();
        date.data_type = crate::ontology::DataType::Text;
        let sql = |dialect| {
            compile(&ontology, &orders_by(Grain::Month), dialect)
                .unwrap()
                .sql
        };
        assert!(sql(Dialect::Sqlite).starts_with("SELECT strftime('%Y-%m', o.o_orderdate)"));
        assert!(
            sql(Dialect::Postgres)
                .starts_with("SELECT TO_CHAR(CAST(o.o_orderdate AS DATE), 'YYYY-MM')")
        );
    }

    #[test]
    fn a_number_is_no_date_to_read_by_quarter() {
        let plan = SemanticPlan {
            dimensions: vec![AttributeRef::new("order", "total_price").by(Grain::Quarter)],
            ..orders_by(Grain::Quarter)
        };
        assert_eq!(
            compile(&wholesale(), &plan, Dialect::Sqlite).unwrap_err(),
            CompileError::NotADate {
                object: "order".into(),
                attribute: "total_price".into(),
                data_type: "decimal".into(),
                grain: "quarter",
            }
        );
    }
}
