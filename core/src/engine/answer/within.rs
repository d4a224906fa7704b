//! Answers to a top few within each group: each group with its own
//! leaders, and a tie inside a group said as a tie.

use super::{format_key, group_thousands, join_and, measure_value, most_word, row_key};
use crate::engine::plan::{AttributeRef, Order, SemanticPlan};
use crate::engine::planner::{attribute_label, measure_label, plural};
use crate::engine::response::ResultSet;
use crate::ontology::Ontology;
use serde_json::Value as Json;

/// How many groups the answer names before saying how many in all.
const GROUPS: usize = 8;

/// "The customer with the most revenue in each region: AFRICA:
/// Customer#000000073 (4,466,381.05); AMERICA: …".
pub(super) fn within_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
    filters: &str,
) -> Option<String> {
    let (Some(Order::Measure { descending, .. }), Some(limit), [measure]) =
        (plan.order, plan.limit, plan.measures.as_slice())
    else {
        return None;
    };
    let groups = plan.limit_within.len();
    let dims = plan.dimensions.len();
    if groups == 0 || groups >= dims || !plan.dimensions.starts_with(&plan.limit_within) {
        return None;
    }
    let label_of = |dimensions: &[AttributeRef]| {
        dimensions
            .iter()
            .map(|d| attribute_label(ontology, d).to_lowercase())
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let things = label_of(&plan.dimensions[groups..]);
    let each = label_of(&plan.limit_within);
    let label = measure_label(ontology, measure);
    let what = label
        .strip_prefix("Number of ")
        .unwrap_or(&label)
        .to_lowercase();
    let most = most_word(ontology, measure, descending);
    let thing_of = |row: &Vec<Json>| {
        row[groups..dims]
            .iter()
            .map(format_key)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let value_of = |row: &Vec<Json>| {
        row.get(dims)
            .map(|v| measure_value(ontology, measure, v))
            .unwrap_or_default()
    };
    // The rows come grouped, each group's best first.
    let mut said: Vec<(String, Vec<&Vec<Json>>)> = Vec::new();
    for row in &results.rows {
        let group = row_key(row, groups);
        match said.last_mut() {
            Some((last, rows)) if *last == group => rows.push(row),
            _ => said.push((group, vec![row])),
        }
    }
    let entries: Vec<String> = said
        .iter()
        .take(GROUPS)
        .map(|(group, rows)| {
            let leaders = if limit == 1 && rows.len() > 1 {
                let names: Vec<String> = rows.iter().map(|r| thing_of(r)).collect();
                format!("{} tie ({})", join_and(&names), value_of(rows[0]))
            } else {
                let shown: Vec<String> = rows
                    .iter()
                    .map(|r| format!("{} ({})", thing_of(r), value_of(r)))
                    .collect();
                join_and(&shown)
            };
            format!("{group}: {leaders}")
        })
        .collect();
    let more = if said.len() > GROUPS {
        format!(
            "; … ({} {} in all)",
            group_thousands(said.len() as i64),
            plural(&each)
        )
    } else {
        String::new()
    };
    let head = if limit == 1 {
        format!("The {things} with the {most} {what} in each {each}{filters}")
    } else {
        format!(
            "The {limit} {} with the {most} {what} in each {each}{filters}",
            plural(&things)
        )
    };
    Some(format!("{head}: {}{more}.", entries.join("; ")))
}
