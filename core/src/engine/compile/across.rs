//! Measures of different objects in one answer ("net revenue and the number
//! of orders by region"): each object's measures in a subquery of their own
//! (`side_0`, `side_1`, …) under the plan's filters and groupings, joined on
//! the groupings, as MetricFlow joins metrics across their measures' tables.
//! Joining the rows first would count each order once per line item.

use super::{CompileError, CompiledQuery, Compiler, finish};
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::ontology::Aggregate;
use sqlparser::ast::SetExpr;

impl Compiler<'_> {
    /// Each list of `measures` in its own subquery (`side_0`, `side_1`, …)
    /// under the plan's filters, grouped by `keys`.
    pub(super) fn sides(
        &self,
        plan: &SemanticPlan,
        keys: &[AttributeRef],
        measures: Vec<Vec<Measure>>,
    ) -> Result<Vec<CompiledQuery>, CompileError> {
        measures
            .into_iter()
            .map(|measures| {
                let side = SemanticPlan {
                    measures,
                    dimensions: keys.to_vec(),
                    filters: plan.filters.clone(),
                    via: plan.via.clone(),
                    ..SemanticPlan::default()
                };
                let mut query = self.compile(&side)?;
                // The outer query orders; a subquery's order is wasted work.
                query.query.order_by = None;
                query.sql = query.query.to_string();
                Ok(query)
            })
            .collect()
    }

    /// The sides joined to `anchor` (`side_0`, or a spine of every group)
    /// on every key, each after `from`; with no groups, one-row sides
    /// side by side.
    pub(super) fn join_sides(
        &self,
        from: String,
        anchor: &str,
        keys: &[AttributeRef],
        sides: &[CompiledQuery],
    ) -> String {
        let ident = |text: &str| self.sql.ident(text).to_string();
        let mut from = from;
        for (i, side) in sides.iter().enumerate() {
            from = if from.is_empty() {
                format!("({}) AS side_{i}", side.sql)
            } else if keys.is_empty() {
                format!("{from} CROSS JOIN ({}) AS side_{i}", side.sql)
            } else {
                let on = keys
                    .iter()
                    .map(|k| format!("{anchor}.{0} = side_{i}.{0}", ident(&k.column())))
                    .collect::<Vec<_>>()
                    .join(" AND ");
                format!("{from} LEFT JOIN ({}) AS side_{i} ON {on}", side.sql)
            };
        }
        from
    }

    /// The plan's measures, grouped by the object each is measured on
    /// (`groups` holds their indices), side by side in the plan's order.
    /// Per group, every side is joined to the groups any side has (a
    /// customer with orders but no returns keeps its orders), and a sum
    /// or count a side has no row for is 0.
    pub(super) fn across(
        &self,
        plan: &SemanticPlan,
        groups: &[Vec<usize>],
    ) -> Result<CompiledQuery, CompileError> {
        let keys = self.group_keys(plan)?;
        let measures = groups
            .iter()
            .map(|group| group.iter().map(|&m| plan.measures[m].clone()).collect())
            .collect();
        let sides = self.sides(plan, &keys, measures)?;
        let ident = |text: &str| self.sql.ident(text).to_string();
        // Each measure's column and value, by its index in the plan.
        let mut measured: Vec<(usize, String, String)> = Vec::new();
        for (i, (group, side)) in groups.iter().zip(&sides).enumerate() {
            for (&m, column) in group.iter().zip(&side.columns[keys.len()..]) {
                let value = format!("side_{i}.{}", ident(column));
                let value = if self.adds_up(&plan.measures[m]) {
                    format!("COALESCE({value}, 0)")
                } else {
                    value
                };
                measured.push((m, column.clone(), value));
            }
        }
        measured.sort_by_key(|(m, ..)| *m);
        let from = if plan.dimensions.is_empty() {
            self.join_sides(String::new(), "side_0", &[], &sides)
        } else {
            let columns = keys
                .iter()
                .map(|k| ident(&k.column()))
                .collect::<Vec<_>>()
                .join(", ");
            let spine = sides
                .iter()
                .map(|side| format!("SELECT {columns} FROM ({}) AS side", side.sql))
                .collect::<Vec<_>>()
                .join(" UNION ");
            self.join_sides(format!("({spine}) AS spine"), "spine", &keys, &sides)
        };
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = shown
            .iter()
            .map(|c| format!("spine.{0} AS {0}", ident(c)))
            .chain(
                measured
                    .iter()
                    .map(|(_, name, value)| format!("{value} AS {}", ident(name))),
            )
            .collect::<Vec<_>>()
            .join(", ");
        // Every subquery is the compiler's own output; only the shell is new.
        let text = format!("SELECT {projection} FROM {from}");
        let select = match *self.shell("measures of different objects", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the shell is a plain SELECT"),
        };
        let names: Vec<&str> = measured.iter().map(|(_, name, _)| name.as_str()).collect();
        let order = self.order(plan, &names)?;
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        let mut columns = shown;
        columns.extend(measured.into_iter().map(|(_, name, _)| name));
        let objects = sides.into_iter().flat_map(|s| s.objects).collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }

    /// Whether `measure` adds rows up (a sum or a count), so no rows is 0.
    fn adds_up(&self, measure: &Measure) -> bool {
        match measure {
            Measure::CountOf { .. } | Measure::DistinctOf { .. } => true,
            Measure::Metric { metric, .. } => self.index.metric(metric).is_some_and(|m| {
                matches!(
                    m.aggregate,
                    Aggregate::Sum | Aggregate::Count | Aggregate::CountDistinct
                )
            }),
            Measure::Aggregate { aggregate, .. } => {
                matches!(
                    aggregate,
                    Aggregate::Sum | Aggregate::Count | Aggregate::CountDistinct
                )
            }
            _ => false,
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::compile;
    use crate::engine::execute::execute;
    use crate::engine::plan::{AttributeRef, Measure, Order, SemanticPlan};
    use crate::project::Dialect;
    use crate::warehouse::Warehouse;
    use serde_json::{Value as Json, json};
    use std::time::Duration;

    const SHOP: &str = r#"
objects:
  - name: order
    table: orders
    primary_key: [id]
    attributes:
      - {name: id, type: integer, role: identifier}
      - {name: customer, type: text, role: dimension}
  - name: line
    table: lines
    primary_key: [id]
    attributes:
      - {name: id, type: integer, role: identifier}
      - {name: order_id, type: integer, role: identifier}
      - {name: amount, type: decimal, role: measure}
relationships:
  - name: line_order
    from: line
    to: order
    keys:
      - {from: order_id, to: id}
metrics:
  - {name: revenue, object: line, aggregate: sum, expr: amount}
  - {name: order_count, object: order, aggregate: count}
"#;

    fn metric(name: &str) -> Measure {
        Measure::Metric {
            metric: name.into(),
            variant: None,
        }
    }

    /// Two orders of A (lines of 10 and 20, and of 5), one of B (7), and one
    /// of C with no lines yet.
    async fn shop() -> Warehouse {
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        for statement in [
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT)",
            "CREATE TABLE lines (id INTEGER PRIMARY KEY, order_id INTEGER, amount REAL)",
            "INSERT INTO orders VALUES (1, 'A'), (2, 'A'), (3, 'B'), (4, 'C')",
            "INSERT INTO lines VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, 3, 7)",
        ] {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
        Warehouse::from_connector(crate::warehouse::sqlite::SqliteSource::from_pool(pool))
    }

    #[tokio::test]
    async fn measures_of_different_objects_are_each_counted_once() {
        let ontology = crate::ontology::from_yaml(SHOP).unwrap();
        let plan = SemanticPlan {
            measures: vec![metric("revenue"), metric("order_count")],
            dimensions: vec![AttributeRef::new("order", "customer")],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            ..SemanticPlan::default()
        };
        let compiled = compile(&ontology, &plan, Dialect::Sqlite).unwrap();
        assert_eq!(compiled.columns, ["customer", "revenue", "order_count"]);
        let result = execute(&shop().await, &compiled, Duration::from_secs(30))
            .await
            .unwrap();
        // Joined first, A's two orders would count three times over its
        // three lines; C has an order and no revenue, which is 0.
        let rows: Vec<Vec<Json>> = result.rows;
        assert_eq!(
            rows,
            vec![
                vec![json!("A"), json!(35), json!(2)],
                vec![json!("B"), json!(7), json!(1)],
                vec![json!("C"), json!(0), json!(1)],
            ]
        );
        // Alone: one row of each, side by side.
        let totals = SemanticPlan {
            dimensions: Vec::new(),
            order: None,
            ..plan
        };
        let compiled = compile(&ontology, &totals, Dialect::Sqlite).unwrap();
        let result = execute(&shop().await, &compiled, Duration::from_secs(30))
            .await
            .unwrap();
        assert_eq!(result.rows, vec![vec![json!(42), json!(4)]]);
        for dialect in Dialect::ALL {
            let sql = compile(&ontology, &totals, dialect).unwrap().sql;
            assert_eq!(
                crate::sql::parse_select(dialect, &sql).unwrap().to_string(),
                sql
            );
        }
    }
}
