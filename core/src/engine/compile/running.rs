//! Running totals: a measure per period of the plan's time grouping, added
//! up in time order by a window over the grouped rows. The grouped rows are
//! the compiler's own aggregate, so a running total counts nothing twice
//! where the plain measure would not.

use super::{CompileError, CompiledQuery, Compiler, finish, order_by};
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::ontology::{AttributeRole, Grain};
use crate::sql::dialect::VALUE;
use sqlparser::ast::{Expr, Ident, SetExpr};

impl Compiler<'_> {
    /// `SELECT groups, m, SUM(m) OVER (PARTITION BY <other groups>[, the
    /// to-date period] ORDER BY <period> ROWS BETWEEN UNBOUNDED PRECEDING
    /// AND CURRENT ROW) FROM (<m per group and period>) AS per_period`.
    pub(super) fn cumulative(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        to_date: Option<Grain>,
        window: Option<u32>,
        named: Option<&str>,
    ) -> Result<CompiledQuery, CompileError> {
        if of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        if let Measure::Metric { metric, .. } = of
            && self.metric(metric)?.is_semi_additive()
        {
            return Err(CompileError::LevelRunningTotal(metric.clone()));
        }
        let is_time = |d: &AttributeRef| {
            self.index
                .attribute(&d.object, &d.attribute)
                .is_some_and(|a| a.role == AttributeRole::Time)
        };
        let time = plan
            .dimensions
            .iter()
            .find(|d| is_time(d))
            .cloned()
            .ok_or(CompileError::CumulativeWithoutTime)?;
        // Groups other than time each run on their own; so does each
        // to-date period, whose year (say) is grouped by beside the month.
        let mut keys = self.group_keys(plan)?;
        let restart = to_date
            .filter(|grain| time.bucket != Some(*grain))
            .map(|grain| AttributeRef {
                bucket: Some(grain),
                ..time.clone()
            });
        if let Some(restart) = &restart
            && !keys.contains(restart)
        {
            keys.push(restart.clone());
        }
        let grouped = SemanticPlan {
            measures: vec![of.clone()],
            dimensions: keys.clone(),
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        let mut inner = self.compile(&grouped)?;
        inner.query.order_by = None;
        inner.sql = inner.query.to_string();
        let ident = |text: &str| self.sql.ident(text).to_string();
        let measured = inner.columns.last().cloned().unwrap_or_default();
        let name = named.map_or_else(|| format!("cumulative_{measured}"), str::to_owned);
        let column = |c: &str| format!("per_period.{}", ident(c));
        let partition: Vec<String> = keys
            .iter()
            .filter(|k| **k != time)
            .map(|k| column(&k.column()))
            .collect();
        let partition = if partition.is_empty() {
            String::new()
        } else {
            format!("PARTITION BY {} ", partition.join(", "))
        };
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        if let Some(window) = window {
            let name = named.map_or_else(|| format!("rolling_{measured}"), str::to_owned);
            let earlier = SemanticPlan {
                filters: plan
                    .filters
                    .iter()
                    .filter(|f| !is_time(&f.attribute))
                    .cloned()
                    .collect(),
                ..grouped
            };
            let mut earlier = self.compile(&earlier)?;
            earlier.query.order_by = None;
            let rows = Rolling {
                time: &time,
                keys: &keys,
                shown: &shown,
                measured: &measured,
                name: &name,
                window,
            };
            return self.rolling(plan, inner, earlier, rows);
        }
        let projection = shown
            .iter()
            .map(|c| format!("{} AS {}", column(c), ident(c)))
            .chain([
                format!("{} AS {}", column(&measured), ident(&measured)),
                format!(
                    "SUM({}) OVER ({partition}ORDER BY {} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS {}",
                    column(&measured),
                    column(&time.column()),
                    ident(&name)
                ),
            ])
            .collect::<Vec<_>>()
            .join(", ");
        // The grouped query is the compiler's own output; only the shell is new.
        let text = format!("SELECT {projection} FROM ({}) AS per_period", inner.sql);
        let select = match *self.shell("the running total", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the running total's shell is a plain SELECT"),
        };
        // Each group's periods in time order, unless the plan ranks.
        let order = match plan.order {
            Some(_) => self.order(plan, &[measured.as_str(), name.as_str()])?,
            None => plan
                .dimensions
                .iter()
                .filter(|d| **d != time)
                .chain(std::iter::once(&time))
                .map(|d| order_by(Expr::Identifier(Ident::new(d.column())), false))
                .collect(),
        };
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.extend([measured, name]);
        Ok(CompiledQuery::new(query, columns, inner.objects))
    }
}

/// What a rolling total is computed over: the grouped rows' columns.
struct Rolling<'p> {
    time: &'p AttributeRef,
    keys: &'p [AttributeRef],
    shown: &'p [String],
    measured: &'p str,
    name: &'p str,
    window: u32,
}

impl Compiler<'_> {
    /// `SELECT groups, m, SUM(earlier.m) FROM (<m per group and period>) AS
    /// per_period JOIN (<the same, before the periods asked too>) AS earlier
    /// ON <same other groups> AND <earlier's period among the window's>
    /// GROUP BY ...`: each period with the ones before it by position in
    /// the calendar (a month with no rows still counts as one of the
    /// window's), not by rows present, as a window frame would.
    fn rolling(
        &self,
        plan: &SemanticPlan,
        inner: CompiledQuery,
        earlier: CompiledQuery,
        r: Rolling<'_>,
    ) -> Result<CompiledQuery, CompileError> {
        let ident = |text: &str| self.sql.ident(text).to_string();
        let integer = |text: String| self.sql.integer_of_text().replace(VALUE, &text);
        let time_column = r.time.column();
        let data_type = self.attribute_type(r.time);
        // The period's position as a number: months and quarters counted
        // from year 0, years as they are.
        let index = |alias: &str| -> Result<String, CompileError> {
            let c = format!("{alias}.{}", ident(&time_column));
            Ok(match r.time.bucket {
                Some(Grain::Month) => format!(
                    "{} * 12 + {}",
                    integer(format!("SUBSTR({c}, 1, 4)")),
                    integer(format!("SUBSTR({c}, 6, 2)"))
                ),
                Some(Grain::Quarter) => format!(
                    "{} * 4 + {}",
                    integer(format!("SUBSTR({c}, 1, 4)")),
                    integer(format!("SUBSTR({c}, 7, 1)"))
                ),
                Some(Grain::Year | Grain::FiscalYear) => c,
                None if data_type == Some(crate::ontology::DataType::Integer) => c,
                Some(grain) => return Err(CompileError::RollingGrain(grain.name())),
                None => return Err(CompileError::RollingGrain("day")),
            })
        };
        let (now, then) = (index("per_period")?, index("earlier")?);
        let mut on: Vec<String> = r
            .keys
            .iter()
            .filter(|k| *k != r.time)
            .map(|k| format!("earlier.{0} = per_period.{0}", ident(&k.column())))
            .collect();
        on.push(format!(
            "{then} BETWEEN {now} - {} AND {now}",
            r.window.saturating_sub(1)
        ));
        let column = |c: &str| format!("per_period.{}", ident(c));
        let projection = r
            .shown
            .iter()
            .map(|c| format!("{} AS {}", column(c), ident(c)))
            .chain([
                format!("{} AS {}", column(r.measured), ident(r.measured)),
                format!("SUM(earlier.{}) AS {}", ident(r.measured), ident(r.name)),
            ])
            .collect::<Vec<_>>()
            .join(", ");
        let group_by = r
            .keys
            .iter()
            .map(|k| column(&k.column()))
            .chain(std::iter::once(column(r.measured)))
            .collect::<Vec<_>>()
            .join(", ");
        // Both subqueries are the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT {projection} FROM ({}) AS per_period JOIN ({}) AS earlier ON {} GROUP BY {group_by}",
            inner.sql,
            earlier.query,
            on.join(" AND ")
        );
        let select = match *self.shell("the rolling total", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the rolling total's shell is a plain SELECT"),
        };
        let order = match plan.order {
            Some(_) => self.order(plan, &[r.measured, r.name])?,
            None => plan
                .dimensions
                .iter()
                .filter(|d| *d != r.time)
                .chain(std::iter::once(r.time))
                .map(|d| order_by(Expr::Identifier(Ident::new(d.column())), false))
                .collect(),
        };
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = r.shown.to_vec();
        columns.extend([r.measured.to_owned(), r.name.to_owned()]);
        let objects = inner.objects.into_iter().chain(earlier.objects).collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::{CompileError, compile};
    use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
    use crate::ontology::Grain;
    use crate::project::Dialect;

    fn wholesale() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/wholesale/ontology.yaml"))
            .unwrap()
    }

    fn running(to_date: Option<Grain>) -> SemanticPlan {
        SemanticPlan {
            measures: vec![Measure::Cumulative {
                of: Box::new(Measure::Metric {
                    metric: "order_count".into(),
                    variant: None,
                }),
                to_date,
                window: None,
            }],
            dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Month)],
            filters: vec![Filter {
                attribute: AttributeRef::new("order", "order_date"),
                condition: Condition::OneOf(vec![Literal::Integer(1995)]),
            }],
            ..SemanticPlan::default()
        }
    }

    #[test]
    fn a_running_total_sums_the_monthly_counts_in_order() {
        let compiled = compile(&wholesale(), &running(None), Dialect::Sqlite).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT per_period.order_date_month AS order_date_month, per_period.order_count AS order_count, \
             SUM(per_period.order_count) OVER (ORDER BY per_period.order_date_month \
             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cumulative_order_count \
             FROM (SELECT strftime('%Y-%m', o.o_orderdate) AS order_date_month, COUNT(*) AS order_count \
             FROM orders o WHERE ((o.o_orderdate >= '1995-01-01' AND o.o_orderdate < '1996-01-01')) \
             GROUP BY strftime('%Y-%m', o.o_orderdate)) AS per_period ORDER BY order_date_month ASC"
        );
        assert_eq!(
            compiled.columns,
            ["order_date_month", "order_count", "cumulative_order_count"]
        );
    }

    #[test]
    fn year_to_date_starts_again_each_year() {
        let compiled =
            compile(&wholesale(), &running(Some(Grain::Year)), Dialect::Postgres).unwrap();
        assert!(
            compiled.sql.contains(
                "OVER (PARTITION BY per_period.order_date_year ORDER BY per_period.order_date_month"
            ),
            "{}",
            compiled.sql
        );
        assert_eq!(
            compiled.columns,
            ["order_date_month", "order_count", "cumulative_order_count"]
        );
    }

    #[test]
    fn running_totals_read_back_in_every_dialect() {
        for dialect in Dialect::ALL {
            for to_date in [None, Some(Grain::Year), Some(Grain::Quarter)] {
                let compiled = compile(&wholesale(), &running(to_date), dialect).unwrap();
                let reparsed = crate::sql::parse_select(dialect, &compiled.sql)
                    .unwrap_or_else(|e| panic!("{dialect:?}: {e}: {}", compiled.sql));
                assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
            }
        }
    }

    #[test]
    fn a_running_total_needs_a_period_to_run_over() {
        let plan = SemanticPlan {
            dimensions: Vec::new(),
            ..running(None)
        };
        assert_eq!(
            compile(&wholesale(), &plan, Dialect::Sqlite).unwrap_err(),
            CompileError::CumulativeWithoutTime
        );
    }
}
