//! Semi-additive metrics: a level (a balance, a stock, a headcount) is not
//! added up over its time attribute. Per group of the question it stands
//! at its value at the group's last (or first) time, or at the average of
//! its values over the group's times, and only then is it aggregated
//! across the rest (the accounts of a region). The values per time are the
//! compiler's own aggregate, so a level counts nothing twice where the
//! plain metric would not.

use super::{CompileError, CompiledQuery, Compiler, finish};
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::ontology::{Aggregate, Take};
use sqlparser::ast::SetExpr;

impl<'a> Compiler<'a> {
    /// Last or first: `SELECT groups, AGG(at_time.m) FROM (SELECT <the
    /// metric per group, per and time>, MAX(time) OVER (PARTITION BY
    /// groups, per) AS chosen FROM (...)) AS at_time WHERE at_time.time =
    /// at_time.chosen GROUP BY groups`. Average: the metric per group and
    /// time (added up across `per`), averaged over the times per group.
    pub(super) fn semi_additive(
        &self,
        plan: &SemanticPlan,
        name: &str,
        variant: Option<String>,
    ) -> Result<CompiledQuery, CompileError> {
        let metric = self.metric(name)?;
        let Some(levels) = &metric.semi_additive else {
            unreachable!("the shape is chosen for a semi-additive metric")
        };
        let (time_object, time_attribute) = levels.time_of(&metric.object);
        let time = AttributeRef::new(time_object, time_attribute);
        let per: Vec<AttributeRef> = levels
            .per
            .iter()
            .map(|p| AttributeRef::new(&metric.object, p))
            .collect();
        // Across `per`, each one's value is aggregated again; alone in its
        // group a value is taken as it is, whatever its aggregate.
        let across = match (per.is_empty(), metric.aggregate) {
            (true, _) | (false, Aggregate::Sum | Aggregate::Count) => "SUM",
            (false, Aggregate::Min) => "MIN",
            (false, Aggregate::Max) => "MAX",
            (false, aggregate @ (Aggregate::Avg | Aggregate::CountDistinct)) => {
                return Err(CompileError::LevelNotAddedUp {
                    metric: name.to_owned(),
                    per: levels.per.join(", "),
                    aggregate: match aggregate {
                        Aggregate::Avg => "average",
                        _ => "distinct count",
                    },
                });
            }
        };
        let keys = self.group_keys(plan)?;
        let mut partition = keys.clone();
        for p in &per {
            if !partition.contains(p) {
                partition.push(p.clone());
            }
        }
        let mut rows = partition.clone();
        if !rows.contains(&time) {
            rows.push(time.clone());
        }
        let per_time = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: name.to_owned(),
                variant,
            }],
            dimensions: rows.clone(),
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        let mut inner = Compiler {
            plain: Some(metric.name.as_str()),
            ..*self
        }
        .compile(&per_time)?;
        inner.query.order_by = None;
        inner.sql = inner.query.to_string();
        let measured = inner.columns.last().cloned().unwrap_or_default();
        let ident = |text: &str| self.sql.ident(text).to_string();
        let at = |alias: &str, c: &str| format!("{alias}.{}", ident(c));
        let list = |alias: &str, refs: &[AttributeRef]| -> Vec<String> {
            refs.iter().map(|r| at(alias, &r.column())).collect()
        };
        let group_by = |alias: &str| {
            let columns = list(alias, &keys);
            if columns.is_empty() {
                String::new()
            } else {
                format!(" GROUP BY {}", columns.join(", "))
            }
        };
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = |alias: &str, value: String| {
            shown
                .iter()
                .map(|c| format!("{} AS {}", at(alias, c), ident(c)))
                .chain(std::iter::once(format!("{value} AS {}", ident(name))))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let text = match levels.take {
            Take::Last | Take::First => {
                let choice = if levels.take == Take::Last {
                    "MAX"
                } else {
                    "MIN"
                };
                let partition = list("per_time", &partition);
                let over = if partition.is_empty() {
                    String::new()
                } else {
                    format!("PARTITION BY {}", partition.join(", "))
                };
                let columns: Vec<String> =
                    inner.columns.iter().map(|c| at("per_time", c)).collect();
                let chosen = ident("cassis_chosen_time");
                format!(
                    "SELECT {} FROM (SELECT {}, {choice}({}) OVER ({over}) AS {chosen} FROM ({}) AS per_time) AS at_time WHERE {} = at_time.{chosen}{}",
                    projection("at_time", format!("{across}({})", at("at_time", &measured))),
                    columns.join(", "),
                    at("per_time", &time.column()),
                    inner.sql,
                    at("at_time", &time.column()),
                    group_by("at_time"),
                )
            }
            Take::Average => {
                let mut at_time = keys.clone();
                if !at_time.contains(&time) {
                    at_time.push(time.clone());
                }
                let columns = list("per_time", &at_time);
                let mut select = columns.clone();
                select.push(format!(
                    "{across}({}) AS {}",
                    at("per_time", &measured),
                    ident(&measured)
                ));
                format!(
                    "SELECT {} FROM (SELECT {} FROM ({}) AS per_time GROUP BY {}) AS at_time{}",
                    projection("at_time", format!("AVG({})", at("at_time", &measured))),
                    select.join(", "),
                    inner.sql,
                    columns.join(", "),
                    group_by("at_time"),
                )
            }
        };
        // The grouped rows are the compiler's own output; only the shell is new.
        let select = match *self.shell("the semi-additive metric", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the semi-additive metric's shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name])?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.push(name.to_owned());
        Ok(CompiledQuery::new(query, columns, inner.objects))
    }
}
