//! Composite measures, each computed from sub-plans compiled on their own
//! and combined by a shell around them: a percentage of a whole, a ratio of
//! two metrics, a difference between two conditions, an average per group,
//! a count of the groups that pass a threshold.

use super::{CompileError, CompiledQuery, Compiler, finish};
use crate::engine::plan::{AttributeRef, Condition, Filter, Measure, SemanticPlan, Threshold};
use sqlparser::ast::SetExpr;

impl Compiler<'_> {
    /// `AVG(m)` over the plan of `of` grouped by `per`: the average of the
    /// measure's value per group ("average points per race"), for each of
    /// the plan's own groups where it has some ("average points per race
    /// for each driver").
    pub(super) fn average_per(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        per: &AttributeRef,
    ) -> Result<CompiledQuery, CompileError> {
        if of.is_composite() || plan.dimensions.contains(per) {
            return Err(CompileError::NotAlone);
        }
        let grouped = SemanticPlan {
            measures: vec![of.clone()],
            dimensions: std::iter::once(per.clone())
                .chain(plan.dimensions.iter().cloned())
                .collect(),
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        let inner = self.compile(&grouped)?;
        let measured = inner.columns.last().cloned().unwrap_or_default();
        let name = format!("average_{measured}_per_{}", per.object);
        let ident = |text: &str| self.sql.ident(text).to_string();
        // The inner query shows `per`, then the plan's groups, then the
        // measure.
        let groups: Vec<String> = inner.columns[1..inner.columns.len() - 1].to_vec();
        let shown: Vec<String> = groups
            .iter()
            .map(|g| format!("per_group.{}", ident(g)))
            .collect();
        let select = shown
            .iter()
            .cloned()
            .chain(std::iter::once(format!(
                "AVG(per_group.{}) AS {}",
                ident(&measured),
                ident(&name)
            )))
            .collect::<Vec<_>>()
            .join(", ");
        let group_by = if shown.is_empty() {
            String::new()
        } else {
            format!(
                " GROUP BY {} ORDER BY {} DESC",
                shown.join(", "),
                ident(&name)
            )
        };
        // The grouped query is the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT {select} FROM ({}) AS per_group{group_by}",
            inner.sql
        );
        let query = self.shell("the average per group", text)?;
        let columns = groups.into_iter().chain(std::iter::once(name)).collect();
        Ok(CompiledQuery::new(query, columns, inner.objects))
    }

    /// How many groups of `per` have an `of` that meets `condition`: the
    /// grouped query with its `HAVING`, counted.
    pub(super) fn count_passing(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        per: &AttributeRef,
        condition: &Condition,
    ) -> Result<CompiledQuery, CompileError> {
        if !plan.dimensions.is_empty() || of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        let grouped = SemanticPlan {
            measures: vec![of.clone()],
            dimensions: vec![per.clone()],
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            having: vec![Threshold {
                measure: 0,
                condition: condition.clone(),
            }],
            ..SemanticPlan::default()
        };
        let inner = self.compile(&grouped)?;
        let name = format!("{}_count", per.object);
        // The grouped query is the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT COUNT(*) AS {} FROM ({}) AS passing",
            self.sql.ident(&name),
            inner.sql,
        );
        let query = self.shell("the count of groups that pass", text)?;
        Ok(CompiledQuery::new(query, vec![name], inner.objects))
    }

    /// `100.0 * part / whole` over two one-row subqueries, each compiled as
    /// its own plan: the part with the plan's filters and its own, the whole
    /// with the plan's filters alone. Either may be measured on a different
    /// object ("wins" on results over "races" on races).
    pub(super) fn share(
        &self,
        plan: &SemanticPlan,
        part: &Measure,
        whole: &Measure,
        only: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        let nested = |m: &Measure| matches!(m, Measure::Share { .. });
        if nested(part) || nested(whole) {
            return Err(CompileError::NotAlone);
        }
        let percentage = |p: &str, w: &str| format!("100.0 * COALESCE({p}, 0) / NULLIF({w}, 0)");
        if !plan.dimensions.is_empty() && part == whole && only.is_empty() {
            return self.share_of_total(plan, part, percentage);
        }
        if !plan.dimensions.is_empty() {
            // "late delivery rate by ship mode": each group's part of its
            // own whole.
            let part_plan = SemanticPlan {
                filters: plan.filters.iter().chain(only).cloned().collect(),
                ..plan.clone()
            };
            return self.per_group(
                plan,
                |measured| format!("{measured}_percentage"),
                (&part_plan, part.clone()),
                (plan, whole.clone()),
                percentage,
            );
        }
        let part = self.alone(plan, part, only)?;
        let whole = self.alone(plan, whole, &[])?;
        let name = format!("{}_percentage", part.columns[0]);
        self.side_by_side(
            "the percentage",
            name,
            [("part", part), ("whole", whole)],
            |p, w| format!("100.0 * {p} / NULLIF({w}, 0)"),
        )
    }

    /// `plan` compiled to stand inside another query, which orders: a
    /// subquery's own order is wasted work.
    fn unordered(&self, plan: &SemanticPlan) -> Result<CompiledQuery, CompileError> {
        let mut compiled = self.compile(plan)?;
        compiled.query.order_by = None;
        compiled.sql = compiled.query.to_string();
        Ok(compiled)
    }

    /// "share of revenue by region": each group's measure as a percentage
    /// of the measure over every group, under the plan's filters.
    fn share_of_total(
        &self,
        plan: &SemanticPlan,
        measure: &Measure,
        percentage: impl Fn(&str, &str) -> String,
    ) -> Result<CompiledQuery, CompileError> {
        let part = self.unordered(&SemanticPlan {
            measures: vec![measure.clone()],
            dimensions: plan.dimensions.clone(),
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        })?;
        let whole = self.alone(plan, measure, &[])?;
        let ident = |text: &str| self.sql.ident(text).to_string();
        let measured = part.columns.last().cloned().unwrap_or_default();
        let name = format!("{measured}_percentage");
        let shown: Vec<String> = part.columns[..part.columns.len() - 1].to_vec();
        let projection = shown
            .iter()
            .map(|c| format!("part.{0} AS {0}", ident(c)))
            .chain(std::iter::once(format!(
                "{} AS {}",
                percentage(
                    &format!("part.{}", ident(&measured)),
                    &format!("whole.{}", ident(&whole.columns[0]))
                ),
                ident(&name)
            )))
            .collect::<Vec<_>>()
            .join(", ");
        // Both subqueries are the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT {projection} FROM ({}) AS part CROSS JOIN ({}) AS whole",
            part.sql, whole.sql,
        );
        let select = match *self.shell("a share of the total", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name.as_str()])?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.push(name);
        let objects = part.objects.into_iter().chain(whole.objects).collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }

    /// A ratio metric: its numerator and its denominator each aggregated on
    /// their own, under the plan's filters and at the plan's grain, then
    /// divided; never an average of ratios. Without dimensions they are two
    /// one-row subqueries side by side; with dimensions, one subquery per
    /// side grouped the same way, joined on the group keys, every group of
    /// the denominator kept (a driver without a win has a win rate of 0).
    pub(super) fn ratio(
        &self,
        plan: &SemanticPlan,
        name: &str,
    ) -> Result<CompiledQuery, CompileError> {
        let metric = self.metric(name)?;
        let side = |metric: &Option<String>| Measure::Metric {
            metric: metric.clone().unwrap_or_default(),
            variant: None,
        };
        let (numerator, denominator) = (side(&metric.numerator), side(&metric.denominator));
        // "average revenue per order by region": each side reaches what the
        // question names through the ratio's own object (the order's
        // customer), not by a way of its own (the line item's supplier), so
        // both count the same things.
        let mut plan = plan.clone();
        if !plan.via.contains(&metric.object) {
            plan.via.push(metric.object.clone());
        }
        let plan = &plan;
        // Zero anything over zero things is no figure; nothing over some
        // things is zero. `1.0 *` keeps integer counts from dividing as
        // integers; `100.0 *` does too, for a ratio in percent.
        let scale = if metric.in_percent() { "100.0" } else { "1.0" };
        let divide = move |n: &str, d: &str| format!("{scale} * COALESCE({n}, 0) / NULLIF({d}, 0)");
        if plan.dimensions.is_empty() {
            let numerator = self.alone(plan, &numerator, &[])?;
            let denominator = self.alone(plan, &denominator, &[])?;
            return self.side_by_side(
                "the ratio",
                name.to_owned(),
                [("numerator", numerator), ("denominator", denominator)],
                divide,
            );
        }
        self.per_group(
            plan,
            |_| name.to_owned(),
            (plan, numerator),
            (plan, denominator),
            divide,
        )
    }

    /// `divide(numerator, denominator)` per group of the plan: one subquery
    /// per side grouped the same way, each under its own plan's filters,
    /// joined on the group keys, every group of the denominator kept (a
    /// driver without a win has a win rate of 0). `name` names the figure
    /// from the numerator's column.
    fn per_group(
        &self,
        plan: &SemanticPlan,
        name: impl FnOnce(&str) -> String,
        numerator: (&SemanticPlan, Measure),
        denominator: (&SemanticPlan, Measure),
        divide: impl Fn(&str, &str) -> String,
    ) -> Result<CompiledQuery, CompileError> {
        // Two drivers may share a name: each side groups by the key of what a
        // name names as well, and the sides join on it.
        let keys = self.group_keys(plan)?;
        let grouped =
            |(side, measure): (&SemanticPlan, Measure)| -> Result<CompiledQuery, CompileError> {
                self.unordered(&SemanticPlan {
                    measures: vec![measure],
                    dimensions: keys.clone(),
                    filters: side.filters.clone(),
                    via: side.via.clone(),
                    ..SemanticPlan::default()
                })
            };
        let numerator = grouped(numerator)?;
        let denominator = grouped(denominator)?;
        let name = name(numerator.columns.last().map_or("", String::as_str));
        let name = name.as_str();
        let ident = |text: &str| self.sql.ident(text).to_string();
        let value = |alias: &str, side: &CompiledQuery| {
            format!(
                "{alias}.{}",
                ident(side.columns.last().map_or("", String::as_str))
            )
        };
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = shown
            .iter()
            .map(|c| format!("denominator.{0} AS {0}", ident(c)))
            .chain(std::iter::once(format!(
                "{} AS {}",
                divide(
                    &value("numerator", &numerator),
                    &value("denominator", &denominator)
                ),
                ident(name)
            )))
            .collect::<Vec<_>>()
            .join(", ");
        let on = keys
            .iter()
            .map(|k| format!("numerator.{0} = denominator.{0}", ident(&k.column())))
            .collect::<Vec<_>>()
            .join(" AND ");
        // Both subqueries are the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT {projection} FROM ({}) AS denominator LEFT JOIN ({}) AS numerator ON {on}",
            denominator.sql, numerator.sql,
        );
        let select = match *self.shell("a figure per group", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name])?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.push(name.to_owned());
        let objects = numerator
            .objects
            .into_iter()
            .chain(denominator.objects)
            .collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }

    /// "How many more races in 2024 than in 2014": the measure under each
    /// side's conditions, one subtracted from the other.
    pub(super) fn difference(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        from: &[Filter],
        minus: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        if !plan.dimensions.is_empty() || of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        let one = self.alone(plan, of, from)?;
        let other = self.alone(plan, of, minus)?;
        let name = format!("{}_difference", one.columns[0]);
        // An empty side counts as nothing, so "none in 1950" still subtracts.
        self.side_by_side(
            "the difference",
            name,
            [("one_side", one), ("other_side", other)],
            |a, b| format!("COALESCE({a}, 0) - COALESCE({b}, 0)"),
        )
    }

    /// One measure alone, under the plan's filters and `own`: a side of a
    /// percentage or a difference.
    pub(super) fn alone(
        &self,
        plan: &SemanticPlan,
        measure: &Measure,
        own: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        let alone = SemanticPlan {
            measures: vec![measure.clone()],
            filters: plan.filters.iter().chain(own).cloned().collect(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        self.compile(&alone)
    }

    /// `expression` of two one-column subqueries, each the compiler's own
    /// output under its alias; only the shell around them is new.
    pub(super) fn side_by_side(
        &self,
        what: &str,
        name: String,
        sides: [(&str, CompiledQuery); 2],
        expression: impl Fn(&str, &str) -> String,
    ) -> Result<CompiledQuery, CompileError> {
        let ident = |text: &str| self.sql.ident(text).to_string();
        let [(a, one), (b, other)] = sides;
        let column =
            |alias: &str, side: &CompiledQuery| format!("{alias}.{}", ident(&side.columns[0]));
        let text = format!(
            "SELECT {} AS {} FROM ({}) AS {a} CROSS JOIN ({}) AS {b}",
            expression(&column(a, &one), &column(b, &other)),
            ident(&name),
            one.sql,
            other.sql,
        );
        let query = self.shell(what, text)?;
        let objects = one.objects.into_iter().chain(other.objects).collect();
        Ok(CompiledQuery::new(query, vec![name], objects))
    }
}
