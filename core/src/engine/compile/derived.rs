//! Derived metrics: SQL over other metrics (`quantity_shipped -
//! returned_quantity`), each metric computed on its own at the question's
//! grain, as a ratio's sides are, and only then combined row by row.

use super::{CompileError, CompiledQuery, Compiler, display_attribute, finish, substitute};
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::sql;
use sqlparser::ast::SetExpr;

impl Compiler<'_> {
    /// The plan's groupings, with the key of what a name names beside it,
    /// so two customers of one name stay apart when sides are joined.
    pub(super) fn group_keys(
        &self,
        plan: &SemanticPlan,
    ) -> Result<Vec<AttributeRef>, CompileError> {
        let mut keys = plan.dimensions.clone();
        for dimension in &plan.dimensions {
            let object = self.object(&dimension.object)?;
            if dimension.bucket.is_some()
                || display_attribute(object) != Some(dimension.attribute.as_str())
            {
                continue;
            }
            for key in &object.primary_key {
                let attribute = object
                    .attributes
                    .iter()
                    .find(|a| a.column_name() == Some(key.as_str()) || a.name == *key);
                if let Some(attribute) = attribute {
                    let key = AttributeRef::new(&object.name, &attribute.name);
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
            }
        }
        Ok(keys)
    }

    /// Each metric the expression names in its own subquery (`side_0`,
    /// `side_1`, …) under the plan's filters and grouped by its groupings;
    /// alone, one-row subqueries side by side; per group, the later sides
    /// LEFT JOINed to the first on every grouping. A side with no row for a
    /// group counts as 0 there.
    pub(super) fn derived(
        &self,
        plan: &SemanticPlan,
        name: &str,
    ) -> Result<CompiledQuery, CompileError> {
        let metric = self.metric(name)?;
        let text = metric.expr.clone().unwrap_or_default();
        let invalid = |error| CompileError::Expression {
            what: format!("the derived metric {name}"),
            text: text.clone(),
            error,
        };
        let used = metric.metrics_used().map_err(invalid)?;
        let keys = self.group_keys(plan)?;
        let ident = |text: &str| self.sql.ident(text).to_string();
        let measures = used
            .iter()
            .map(|metric| {
                vec![Measure::Metric {
                    metric: metric.clone(),
                    variant: None,
                }]
            })
            .collect();
        let sides = self.sides(plan, &keys, measures)?;
        let from = self.join_sides(String::new(), "side_0", &keys, &sides);
        let mut expr = sql::parse_expression(self.sql.dialect(), &text).map_err(invalid)?;
        for (i, (metric, side)) in used.iter().zip(&sides).enumerate() {
            let column = side.columns.last().map_or("", String::as_str);
            let value = sql::parse_expression(
                self.sql.dialect(),
                &format!("COALESCE(side_{i}.{}, 0)", ident(column)),
            )
            .map_err(invalid)?;
            substitute(&mut expr, metric, &value);
        }
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = shown
            .iter()
            .map(|c| format!("side_0.{0} AS {0}", ident(c)))
            .chain(std::iter::once(format!("{expr} AS {}", ident(name))))
            .collect::<Vec<_>>()
            .join(", ");
        // Every subquery is the compiler's own output; only the shell is new.
        let select = match *self
            .shell(
                "the derived metric",
                format!("SELECT {projection} FROM {from}"),
            )?
            .body
        {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the derived metric's shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name])?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.push(name.to_owned());
        let objects = sides.into_iter().flat_map(|s| s.objects).collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::{CompileError, compile};
    use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
    use crate::project::Dialect;

    fn wholesale() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/wholesale/ontology.yaml"))
            .unwrap()
    }

    fn net_units() -> Vec<Measure> {
        vec![Measure::Metric {
            metric: "net_quantity".into(),
            variant: None,
        }]
    }

    #[test]
    fn a_derived_metric_combines_each_metric_computed_alone() {
        let plan = SemanticPlan {
            measures: net_units(),
            dimensions: vec![AttributeRef::new("line_item", "ship_mode")],
            ..SemanticPlan::default()
        };
        let compiled = compile(&wholesale(), &plan, Dialect::Sqlite).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT side_0.ship_mode AS ship_mode, \
             COALESCE(side_0.quantity_shipped, 0) - COALESCE(side_1.returned_quantity, 0) AS net_quantity \
             FROM (SELECT li.l_shipmode AS ship_mode, SUM(li.l_quantity) AS quantity_shipped \
             FROM lineitem li GROUP BY li.l_shipmode) AS side_0 \
             LEFT JOIN (SELECT li.l_shipmode AS ship_mode, SUM(li.l_quantity) AS returned_quantity \
             FROM lineitem li WHERE li.l_returnflag = 'R' GROUP BY li.l_shipmode) AS side_1 \
             ON side_0.ship_mode = side_1.ship_mode ORDER BY net_quantity DESC"
        );
        for dialect in Dialect::ALL {
            let compiled = compile(&wholesale(), &plan, dialect).unwrap();
            let reparsed = crate::sql::parse_select(dialect, &compiled.sql).unwrap();
            assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
        }
    }

    #[test]
    fn a_derived_metric_stands_alone() {
        let plan = SemanticPlan {
            measures: vec![
                net_units()[0].clone(),
                Measure::Metric {
                    metric: "revenue".into(),
                    variant: None,
                },
            ],
            ..SemanticPlan::default()
        };
        assert_eq!(
            compile(&wholesale(), &plan, Dialect::Sqlite).unwrap_err(),
            CompileError::DerivedInside("net_quantity".into())
        );
    }
}
