//! Choices the ontology settles or the user must make: which join route a
//! plan takes when there are several, and which reading of a metric is the
//! default.

use super::attributes::measured_object;
use super::labels::{describe_variant, label_of};
use crate::engine::compile::display_attribute;
use crate::engine::graph;
use crate::engine::plan::{Condition, Literal, Measure, PlanAssumption, SemanticPlan};
use crate::ontology::Ontology;

/// A plan that adds up several measured objects (Grand Prix and sprint
/// points) runs a UNION over both; across everything it is costly and waits
/// for approval. One narrowed to things the question names by name ("Red
/// Bull's points in 2023, sprints included") reads few rows of either, and
/// is answered directly.
pub fn combination_waits(ontology: &Ontology, plan: &SemanticPlan) -> bool {
    let named = plan.filters.iter().any(|filter| {
        matches!(&filter.condition, Condition::OneOf(values)
            if !values.is_empty() && values.iter().all(|v| matches!(v, Literal::Text(_))))
            && ontology
                .objects
                .iter()
                .find(|o| o.name == filter.attribute.object)
                .and_then(display_attribute)
                == Some(filter.attribute.attribute.as_str())
    });
    !named
}

/// Where a plan reaches an object more than one way (a line item's nation
/// is its supplier's or its order's customer's), the answers differ: an
/// object the question names settles the route; otherwise the plan forks,
/// proposing the route the ontology's verified questions take.
pub fn settle_routes(ontology: &Ontology, plan: &mut SemanticPlan, named: &[String]) {
    // Measures of several objects ("revenue and orders by region") each
    // take their own route, settled the same way.
    let mut bases: Vec<String> = Vec::new();
    for base in plan
        .measures
        .iter()
        .filter_map(|m| measured_object(ontology, m))
    {
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    for base in bases {
        settle_routes_from(ontology, plan, named, &base);
    }
}

fn settle_routes_from(ontology: &Ontology, plan: &mut SemanticPlan, named: &[String], base: &str) {
    let base = base.to_owned();
    let mut targets: Vec<String> = Vec::new();
    for attribute in plan
        .dimensions
        .iter()
        .chain(plan.filters.iter().map(|f| &f.attribute))
    {
        if attribute.object != base && !targets.contains(&attribute.object) {
            targets.push(attribute.object.clone());
        }
    }
    for target in targets {
        let routes = graph::routes(ontology, &base, &target);
        // Each route is known by the last object only it passes through.
        // A route that takes a detour to an object the measured object has a
        // key of its own for reaches the same row the short way does ("a
        // pit stop's race", not the race of the pit stop's result).
        let objects: Vec<Vec<String>> = routes
            .iter()
            .map(|route| route.iter().map(|s| s.to.clone()).collect::<Vec<String>>())
            .filter(|route| {
                !route
                    .iter()
                    .skip(1)
                    .any(|o| graph::direct_link(ontology, &base, o).is_some())
            })
            .collect();
        let mut ways: Vec<(String, Vec<String>)> = Vec::new();
        for (i, route) in objects.iter().enumerate() {
            let shared = |o: &String| {
                objects
                    .iter()
                    .enumerate()
                    .all(|(j, other)| i == j || other.contains(o))
            };
            let by = route
                .iter()
                .rev()
                .find(|o| !shared(o))
                .cloned()
                .unwrap_or_else(|| base.clone());
            if !ways.iter().any(|(w, _)| *w == by) {
                ways.push((by, route.clone()));
            }
        }
        if ways.len() < 2 {
            continue;
        }

        let on_route = |names: &[String]| {
            ways.iter()
                .find(|(by, objects)| {
                    names.contains(by) || objects.iter().any(|o| *o != target && names.contains(o))
                })
                .map(|(by, _)| by.clone())
        };
        let in_plan: Vec<String> = plan
            .dimensions
            .iter()
            .chain(plan.filters.iter().map(|f| &f.attribute))
            .map(|a| a.object.clone())
            .filter(|o| *o != target)
            .collect();
        if on_route(&plan.via).is_some() {
            continue;
        }
        // A filter or grouping on the customer itself, or a question that
        // names it ("revenue by customer region"), settles the route.
        let settled = ways
            .iter()
            .find(|(by, _)| in_plan.contains(by))
            .map(|(by, _)| by.clone())
            .or_else(|| on_route(named));
        if let Some(by) = settled {
            plan.via.push(by);
            continue;
        }
        let table = |name: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == name)
                .and_then(|o| o.table.rsplit('.').next())
                .map(str::to_lowercase)
                .unwrap_or_default()
        };
        let uses = |object: &str| {
            let (by_table, target_table) = (table(object), table(&target));
            ontology
                .verified_questions
                .iter()
                .filter(|q| {
                    let sql = q.sql.to_lowercase();
                    let words: Vec<&str> = sql
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .collect();
                    words.contains(&by_table.as_str()) && words.contains(&target_table.as_str())
                })
                .count()
        };
        let used: Vec<usize> = ways.iter().map(|(by, _)| uses(by)).collect();
        let selected = ways
            .iter()
            .enumerate()
            .max_by_key(|(i, _)| (used[*i], std::cmp::Reverse(*i)))
            .map(|(_, (by, _))| by.clone())
            .unwrap_or_default();
        let label = |name: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == name)
                .map(|o| label_of(&o.label, &o.name).to_lowercase())
                .unwrap_or_else(|| name.to_owned())
        };
        let options: Vec<String> = ways.iter().map(|(by, _)| by.clone()).collect();
        // The data team's own verified questions go one way only: that
        // settles it, as a default variant settles a metric; stated, not asked.
        if used.iter().filter(|n| **n > 0).count() == 1 {
            let others: Vec<String> = options
                .iter()
                .filter(|o| **o != selected)
                .map(|o| label(o))
                .collect();
            plan.assumptions.push(PlanAssumption::stated(format!(
                "{} through the {}, as the verified questions reach it (not the {})",
                label(&target),
                label(&selected),
                others.join(" or the ")
            )));
            plan.via.push(selected);
            continue;
        }
        plan.assumptions.push(PlanAssumption {
            text: format!(
                "{} can be reached through the {}; using the {}'s",
                label(&target),
                options
                    .iter()
                    .map(|o| label(o))
                    .collect::<Vec<_>>()
                    .join(" or the "),
                label(&selected)
            ),
            options,
            selected: Some(selected.clone()),
        });
        plan.via.push(selected);
    }
}

/// What a plan's metrics assume: the variant the words chose, stated, or a
/// fork between the variants when the question does not settle it.
pub fn variant_assumptions(ontology: &Ontology, measures: &[Measure]) -> Vec<PlanAssumption> {
    let mut found = Vec::new();
    // A share's or a difference's metrics are read as they are alone.
    let mut metrics: Vec<&Measure> = Vec::new();
    let mut pending: Vec<&Measure> = measures.iter().collect();
    while let Some(measure) = pending.pop() {
        match measure {
            Measure::Share { part, whole, .. } => pending.extend([&**whole, &**part]),
            Measure::AveragePer { of, .. }
            | Measure::CountPassing { of, .. }
            | Measure::Difference { of, .. }
            | Measure::Growth { of, .. }
            | Measure::Cumulative { of, .. } => pending.push(of),
            other if !metrics.contains(&other) => metrics.push(other),
            _ => {}
        }
    }
    for measure in metrics {
        if let Measure::Metric { metric, variant } = measure
            && let Some(metric) = ontology.metrics.iter().find(|m| m.name == *metric)
        {
            match variant
                .as_ref()
                .and_then(|v| metric.variants.iter().find(|x| &x.name == v))
            {
                Some(chosen) if !chosen.description.is_empty() => {
                    found.push(PlanAssumption::stated(format!(
                        "{}: {}",
                        label_of(&metric.label, &metric.name),
                        chosen.description.trim_end_matches('.')
                    )));
                }
                Some(_) => {}
                // The data team's default settles the reading: stated, not asked.
                None if let Some(default) = metric.variants.iter().find(|v| v.default) => {
                    found.push(PlanAssumption::stated(format!(
                        "{}: {}, the default reading",
                        label_of(&metric.label, &metric.name),
                        describe_variant(default)
                    )));
                }
                None if !metric.variants.is_empty() => {
                    let default = &metric.variants[0];
                    found.push(PlanAssumption {
                        text: format!(
                            "{} can be read in more than one way; using {}",
                            label_of(&metric.label, &metric.name),
                            describe_variant(default)
                        ),
                        options: metric.variants.iter().map(|v| v.name.clone()).collect(),
                        selected: Some(default.name.clone()),
                    });
                }
                None => {}
            }
        }
    }
    found
}
