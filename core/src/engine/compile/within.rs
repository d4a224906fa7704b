//! A top few within each group: "for each region, which customer had the
//! most revenue", each region's own ranking cut at the limit.

use super::{CompileError, CompiledQuery, Compiler};
use crate::engine::plan::{Order, SemanticPlan};

impl Compiler<'_> {
    /// The plan without its order and limit, ranked within each group of
    /// `plan.limit_within` by the ordered measure. `RANK` keeps every row
    /// tied for a place, so a tie is never cut to one winner.
    pub(super) fn limit_within(&self, plan: &SemanticPlan) -> Result<CompiledQuery, CompileError> {
        let (Some(Order::Measure { index, descending }), Some(limit)) = (plan.order, plan.limit)
        else {
            return Err(CompileError::LimitWithin);
        };
        if index >= plan.measures.len()
            || plan
                .limit_within
                .iter()
                .any(|d| !plan.dimensions.contains(d))
        {
            return Err(CompileError::LimitWithin);
        }
        let unranked = SemanticPlan {
            order: None,
            limit: None,
            offset: None,
            limit_within: Vec::new(),
            ..plan.clone()
        };
        let inner = self.compile(&unranked)?;
        // Each column read from the grouped query (`per_group`) or from the
        // ranked one around it (`ranked`).
        let of = |alias: &str, names: &mut dyn Iterator<Item = &str>| {
            names
                .map(|name| format!("{alias}.{}", self.sql.ident(name)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let group_columns = plan
            .limit_within
            .iter()
            .map(|d| {
                let name = d.column();
                inner
                    .columns
                    .iter()
                    .find(|c| **c == name)
                    .map(String::as_str)
                    .ok_or(CompileError::LimitWithin)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let measured = inner
            .columns
            .len()
            .checked_sub(plan.measures.len() - index)
            .and_then(|at| inner.columns.get(at))
            .ok_or(CompileError::LimitWithin)?;
        let direction = if descending { "DESC" } else { "ASC" };
        let all = || inner.columns.iter().map(String::as_str);
        let shown = of("per_group", &mut all());
        let listed = of("ranked", &mut all());
        let groups = of("per_group", &mut group_columns.iter().copied());
        let in_groups = of("ranked", &mut group_columns.iter().copied());
        let ranked_by = of("per_group", &mut std::iter::once(measured.as_str()));
        let outer_by = of("ranked", &mut std::iter::once(measured.as_str()));
        // Rows tied for a place, in the order of what they show.
        let then: String = inner.columns[..plan.dimensions.len().min(inner.columns.len())]
            .iter()
            .filter(|c| !group_columns.contains(&c.as_str()))
            .map(|c| format!(", {}", of("ranked", &mut std::iter::once(c.as_str()))))
            .collect();
        // The grouped query is the compiler's own output; only the shell is
        // new. A group's rows with no value of the measure are not ranked.
        let text = format!(
            "SELECT {listed} FROM (SELECT {shown}, RANK() OVER (PARTITION BY {groups} ORDER BY {ranked_by} {direction}) AS cassis_place FROM ({}) AS per_group WHERE {ranked_by} IS NOT NULL) AS ranked WHERE ranked.cassis_place <= {limit} ORDER BY {in_groups}, {outer_by} {direction}{then}",
            inner.sql
        );
        let query = self.shell("a top few within each group", text)?;
        Ok(CompiledQuery::new(query, inner.columns, inner.objects))
    }
}
