//! Answers over periods: a growth says the figure, which way it moved and
//! by how much, never the growth as if it were the figure; a running total
//! says the total so far at each period, with the period's own figure.

use super::{format_value, group_thousands, join_and, more_than, row_key};
use crate::engine::plan::{Measure, SemanticPlan};
use crate::engine::planner::measure_label;
use crate::engine::response::ResultSet;
use crate::ontology::Ontology;
use serde_json::Value as Json;

/// How many periods a growth answer lists before saying how many in all.
const LISTED: usize = 8;

/// The measure a plan's growth compares, if the plan is a growth.
fn grown(ontology: &Ontology, plan: &SemanticPlan) -> Option<Measure> {
    match plan.measures.as_slice() {
        [Measure::Growth { of, .. }] => Some((**of).clone()),
        [Measure::Metric { metric, .. }] => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric && m.is_growth())
            .map(|m| Measure::Metric {
                metric: m.of.clone().unwrap_or_default(),
                variant: None,
            }),
        _ => None,
    }
}

/// "up 2.64%", "down 0.5%", "not comparable (nothing before)".
fn change(growth: Option<&Json>) -> String {
    match growth.and_then(Json::as_f64) {
        None => "with nothing before to compare with".to_owned(),
        Some(g) if g > 0.0 => format!("up {}%", format_value(&Json::from(g))),
        Some(g) if g < 0.0 => format!("down {}%", format_value(&Json::from(-g))),
        Some(_) => "unchanged".to_owned(),
    }
}

/// "Revenue in 1996: 311,928,357.78, up 2.64% from 303,910,494.10";
/// per period, "1993 up 0.12% (…), 1994 …". `None` when the plan is no
/// growth.
pub(super) fn growth_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
    filters: &str,
) -> Option<String> {
    let of = grown(ontology, plan)?;
    let label = measure_label(ontology, &of);
    let dims = plan.dimensions.len();
    let rows = &results.rows;
    let parts = |row: &[Json]| {
        (
            row.get(dims).map(format_value).unwrap_or_default(),
            row.get(dims + 1).map(format_value).unwrap_or_default(),
            change(row.get(dims + 2)),
        )
    };
    if dims == 0 {
        let (now, before, moved) = parts(rows.first()?);
        return Some(if rows[0].get(dims + 1).is_some_and(|v| !v.is_null()) {
            format!("{label}{filters}: {now}, {moved} from {before}.")
        } else {
            format!("{label}{filters}: {now}, {moved}.")
        });
    }
    let listed: Vec<String> = rows
        .iter()
        .take(LISTED)
        .map(|row| {
            let key = row_key(row, dims);
            let (now, _, moved) = parts(row);
            format!("{key} {now} ({moved})")
        })
        .collect();
    let more = if results.total_rows as usize > listed.len() {
        format!(" ({} in all)", group_thousands(results.total_rows as i64))
    } else {
        String::new()
    };
    Some(format!("{label}{filters}: {}{more}.", join_and(&listed)))
}

/// "Running total of orders by order date in 1995: 1995-01 19,155 (19,155
/// that month), 1995-02 36,420 (17,265 that month), …". `None` when the
/// plan is no running total.
pub(super) fn running_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
    filters: &str,
) -> Option<String> {
    let running = match plan.measures.as_slice() {
        [Measure::Cumulative { .. }] => true,
        [Measure::Metric { metric, .. }] => ontology
            .metrics
            .iter()
            .any(|m| m.name == *metric && m.is_cumulative()),
        _ => false,
    };
    if !running {
        return None;
    }
    let label = measure_label(ontology, &plan.measures[0]);
    let dims = plan.dimensions.len();
    let dimension_label = plan
        .dimensions
        .iter()
        .map(|d| crate::engine::planner::attribute_label(ontology, d).to_lowercase())
        .collect::<Vec<_>>()
        .join(" and ");
    let listed: Vec<String> = results
        .rows
        .iter()
        .take(LISTED)
        .map(|row| {
            let key = row_key(row, dims);
            let own = row.get(dims).map(format_value).unwrap_or_default();
            let total = row.get(dims + 1).map(format_value).unwrap_or_default();
            format!("{key} {total} ({own} in the period)")
        })
        .collect();
    let more = more_than(listed.len(), results);
    Some(format!(
        "{label} by {dimension_label}{filters}: {}{more}.",
        listed.join(", ")
    ))
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::answer::answer_text;
    use crate::engine::plan::{
        AttributeRef, Condition, Filter, Literal, Measure, PlanAssumption, SemanticPlan,
    };
    use crate::engine::response::ResultSet;
    use crate::ontology::Grain;
    use serde_json::json;

    fn wholesale() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/wholesale/ontology.yaml"))
            .unwrap()
    }

    fn results(rows: Vec<Vec<serde_json::Value>>) -> ResultSet {
        ResultSet {
            columns: Vec::new(),
            total_rows: rows.len() as u64,
            rows,
            truncated: false,
        }
    }

    #[test]
    fn a_growth_says_the_figure_and_how_it_moved() {
        let plan = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "revenue_growth".into(),
                variant: None,
            }],
            filters: vec![Filter {
                attribute: AttributeRef::new("order", "order_date"),
                condition: Condition::OneOf(vec![Literal::Integer(1996)]),
            }],
            assumptions: vec![PlanAssumption::stated("Growth compares 1996 with 1995")],
            ..SemanticPlan::default()
        };
        let text = answer_text(
            &wholesale(),
            &plan,
            &results(vec![vec![json!(311.5), json!(300.0), json!(3.8333333)]]),
        );
        assert!(
            text.contains("Revenue in 1996: 311.5, up 3.83% from 300."),
            "{text}"
        );
        assert!(text.ends_with("Growth compares 1996 with 1995."), "{text}");
    }

    #[test]
    fn a_running_total_says_the_total_so_far() {
        let plan = SemanticPlan {
            measures: vec![Measure::Cumulative {
                of: Box::new(Measure::Metric {
                    metric: "order_count".into(),
                    variant: None,
                }),
                to_date: None,
                window: None,
            }],
            dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Month)],
            ..SemanticPlan::default()
        };
        let text = answer_text(
            &wholesale(),
            &plan,
            &results(vec![
                vec![json!("1995-01"), json!(10), json!(10)],
                vec![json!("1995-02"), json!(5), json!(15)],
            ]),
        );
        assert!(text.contains("1995-02 15 (5 in the period)"), "{text}");
    }
}
