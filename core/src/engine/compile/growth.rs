//! Period over period: a measure in the periods the plan names, beside the
//! same measure one period earlier, and how much it changed, as a
//! percentage of the earlier figure.
//!
//! The earlier side is the same plan compiled with every time attribute
//! moved forward by the offset (MetricFlow's `offset_window`, done on the
//! dates themselves rather than on a calendar table): its rows of 1995
//! stand where the plan reads 1996, in its filters and in its groupings
//! alike, so the two sides line up on the plan's own periods.

use super::{CompileError, CompiledQuery, Compiler, finish};
use crate::engine::plan::{Measure, SemanticPlan};
use crate::ontology::{AttributeRole, Grain};
use sqlparser::ast::SetExpr;

impl Compiler<'_> {
    /// `of` in the plan's periods (`this_period`) beside `of` `periods`
    /// periods earlier (`previous_period`), and `100.0 * (this - previous)
    /// / previous`. Alone, two one-row subqueries side by side; per group,
    /// the earlier groups LEFT JOINed to this period's on every grouping
    /// (and the key of what a name names), so a period with nothing before
    /// it shows no growth rather than disappearing.
    pub(super) fn growth(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        period: Grain,
        periods: u32,
        named: Option<&str>,
    ) -> Result<CompiledQuery, CompileError> {
        if of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        if !self.reads_time(plan) {
            return Err(CompileError::GrowthWithoutTime);
        }
        let keys = self.group_keys(plan)?;
        let side = SemanticPlan {
            measures: vec![of.clone()],
            dimensions: keys.clone(),
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        let earlier = Compiler {
            shift: Some((period, periods)),
            ..*self
        };
        let unordered = |mut compiled: CompiledQuery| {
            // The outer query orders; a subquery's order is wasted work.
            compiled.query.order_by = None;
            compiled.sql = compiled.query.to_string();
            compiled
        };
        let this = unordered(self.compile(&side)?);
        let previous = unordered(earlier.compile(&side)?);
        let ident = |text: &str| self.sql.ident(text).to_string();
        let measured = this.columns.last().cloned().unwrap_or_default();
        let name = named.map_or_else(|| format!("{measured}_growth"), str::to_owned);
        let before = format!("previous_{measured}");
        let value = |alias: &str| format!("{alias}.{}", ident(&measured));
        let (now, then) = (value("this_period"), value("previous_period"));
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = shown
            .iter()
            .map(|c| format!("this_period.{0} AS {0}", ident(c)))
            .chain([
                format!("{now} AS {}", ident(&measured)),
                format!("{then} AS {}", ident(&before)),
                format!(
                    "100.0 * ({now} - {then}) / NULLIF({then}, 0) AS {}",
                    ident(&name)
                ),
            ])
            .collect::<Vec<_>>()
            .join(", ");
        let from = if plan.dimensions.is_empty() {
            format!(
                "({}) AS this_period CROSS JOIN ({}) AS previous_period",
                this.sql, previous.sql
            )
        } else {
            let on = keys
                .iter()
                .map(|k| format!("this_period.{0} = previous_period.{0}", ident(&k.column())))
                .collect::<Vec<_>>()
                .join(" AND ");
            format!(
                "({}) AS this_period LEFT JOIN ({}) AS previous_period ON {on}",
                this.sql, previous.sql
            )
        };
        // Both subqueries are the compiler's own output; only the shell is new.
        let text = format!("SELECT {projection} FROM {from}");
        let select = match *self.shell("the growth", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the growth's shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name.as_str()])?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.extend([measured, before, name]);
        let objects = this.objects.into_iter().chain(previous.objects).collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }

    /// Whether the plan filters or groups by a time attribute: the periods
    /// a growth compares.
    fn reads_time(&self, plan: &SemanticPlan) -> bool {
        plan.dimensions
            .iter()
            .chain(plan.filters.iter().map(|f| &f.attribute))
            .any(|a| {
                self.index
                    .attribute(&a.object, &a.attribute)
                    .is_some_and(|a| a.role == AttributeRole::Time)
            })
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

    fn metric(name: &str) -> Measure {
        Measure::Metric {
            metric: name.into(),
            variant: None,
        }
    }

    fn in_1996() -> Filter {
        Filter {
            attribute: AttributeRef::new("order", "order_date"),
            condition: Condition::OneOf(vec![Literal::Integer(1996)]),
        }
    }

    #[test]
    fn growth_in_a_year_compares_it_with_the_year_before() {
        let plan = SemanticPlan {
            measures: vec![metric("revenue_growth")],
            filters: vec![in_1996()],
            ..SemanticPlan::default()
        };
        let compiled = compile(&wholesale(), &plan, Dialect::Sqlite).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT this_period.revenue AS revenue, previous_period.revenue AS previous_revenue, \
             100.0 * (this_period.revenue - previous_period.revenue) / NULLIF(previous_period.revenue, 0) AS revenue_growth \
             FROM (SELECT SUM(li.l_extendedprice * (1 - li.l_discount)) AS revenue FROM lineitem li \
             JOIN orders o ON li.l_orderkey = o.o_orderkey \
             WHERE ((o.o_orderdate >= '1996-01-01' AND o.o_orderdate < '1997-01-01'))) AS this_period \
             CROSS JOIN (SELECT SUM(li.l_extendedprice * (1 - li.l_discount)) AS revenue FROM lineitem li \
             JOIN orders o ON li.l_orderkey = o.o_orderkey \
             WHERE ((date(o.o_orderdate, 'start of month', '+12 months') >= '1996-01-01' \
             AND date(o.o_orderdate, 'start of month', '+12 months') < '1997-01-01'))) AS previous_period"
        );
        assert_eq!(
            compiled.columns,
            ["revenue", "previous_revenue", "revenue_growth"]
        );
    }

    #[test]
    fn growth_by_quarter_joins_each_quarter_to_the_one_before() {
        let plan = SemanticPlan {
            measures: vec![Measure::Growth {
                of: Box::new(metric("order_count")),
                period: Grain::Quarter,
                periods: 1,
            }],
            dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Quarter)],
            ..SemanticPlan::default()
        };
        let compiled = compile(&wholesale(), &plan, Dialect::Postgres).unwrap();
        assert!(
            compiled.sql.contains(
                "GROUP BY TO_CHAR(DATE_TRUNC('month', o.o_orderdate) + INTERVAL '3 months', 'YYYY-\"Q\"Q')) AS previous_period \
                 ON this_period.order_date_quarter = previous_period.order_date_quarter"
            ),
            "{}",
            compiled.sql
        );
        assert!(
            compiled.sql.ends_with("ORDER BY order_date_quarter ASC"),
            "{}",
            compiled.sql
        );
        assert_eq!(
            compiled.columns,
            [
                "order_date_quarter",
                "order_count",
                "previous_order_count",
                "order_count_growth"
            ]
        );
    }

    #[test]
    fn growth_reads_back_in_every_dialect() {
        for dialect in Dialect::ALL {
            for grain in Grain::ALL {
                let plan = SemanticPlan {
                    measures: vec![Measure::Growth {
                        of: Box::new(metric("revenue")),
                        period: grain,
                        periods: 1,
                    }],
                    dimensions: vec![AttributeRef::new("order", "order_date").by(grain)],
                    filters: vec![in_1996()],
                    ..SemanticPlan::default()
                };
                let compiled = compile(&wholesale(), &plan, dialect).unwrap();
                let reparsed = crate::sql::parse_select(dialect, &compiled.sql)
                    .unwrap_or_else(|e| panic!("{dialect:?} {grain:?}: {e}: {}", compiled.sql));
                assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?} {grain:?}");
            }
        }
    }

    #[test]
    fn a_ratio_grows_with_both_sides_moved_a_year() {
        let f1 = crate::ontology::from_yaml(include_str!("../../../../examples/f1/ontology.yaml"))
            .unwrap();
        let plan = SemanticPlan {
            measures: vec![Measure::Growth {
                of: Box::new(metric("win_rate")),
                period: Grain::Year,
                periods: 1,
            }],
            filters: vec![Filter {
                attribute: AttributeRef::new("race", "year"),
                condition: Condition::OneOf(vec![Literal::Integer(2021)]),
            }],
            ..SemanticPlan::default()
        };
        let sql = compile(&f1, &plan, Dialect::Postgres).unwrap().sql;
        // This year's numerator and denominator, then last year's: a year
        // held as a number moves by one.
        assert_eq!(sql.matches("WHERE r.year = 2021").count(), 2, "{sql}");
        assert_eq!(sql.matches("WHERE r.year + 1 = 2021").count(), 2, "{sql}");
    }

    #[test]
    fn growth_needs_periods_and_stands_alone() {
        let timeless = SemanticPlan {
            measures: vec![metric("revenue_growth")],
            ..SemanticPlan::default()
        };
        assert_eq!(
            compile(&wholesale(), &timeless, Dialect::Sqlite).unwrap_err(),
            CompileError::GrowthWithoutTime
        );
        let counted = SemanticPlan {
            measures: vec![metric("revenue"), metric("revenue_growth")],
            filters: vec![in_1996()],
            ..SemanticPlan::default()
        };
        assert_eq!(
            compile(&wholesale(), &counted, Dialect::Sqlite).unwrap_err(),
            CompileError::GrowthInside("revenue_growth".into())
        );
    }
}
