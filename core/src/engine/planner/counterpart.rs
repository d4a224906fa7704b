//! Counterparts: "top 3 in the final 2016 drivers' championship" → "and
//! the constructors' standings?". A follow-up that names only another kind
//! of thing asks the same of that kind, through the ontology's counterpart
//! of the last metric: the same aggregate of the same expression, kept the
//! same way over time, over rows of the other kind.

use super::attributes::{display_of, is_display};
use super::words::{Piece, object_of};
use crate::engine::grammar::Op;
use crate::engine::graph;
use crate::engine::plan::{Measure, PlanAssumption, SemanticPlan};
use crate::ontology::{Metric, Ontology};

/// The last plan asked of the kind the follow-up names instead, when the
/// follow-up names nothing but that kind and every metric of the last plan
/// has one counterpart of that kind.
pub(super) fn switched(
    ontology: &Ontology,
    pieces: &[Piece],
    previous: Option<&SemanticPlan>,
) -> Option<SemanticPlan> {
    let previous = previous?;
    let mut named = None;
    for piece in pieces {
        match piece {
            Piece::Op(Op::And) | Piece::Unknown { blocks: false, .. } => {}
            Piece::Concept { entries, .. } if named.is_none() => named = Some(object_of(entries)?),
            _ => return None,
        }
    }
    let named = ontology.objects[named?].name.as_str();
    // Rows of `object` are, or belong to, a thing of kind `kind`.
    let touches = |object: &str, kind: &str| graph::narrows(ontology, object, kind);
    let alike = |a: &Metric, b: &Metric| {
        a.name != b.name
            && a.adds_up_like(b)
            && a.kind == b.kind
            && a.filters == b.filters
            && a.semi_additive == b.semi_additive
    };
    let mut plan = previous.clone();
    plan.answered = None;
    plan.listed = None;
    let metric_named = |name: &str| ontology.metrics.iter().find(|m| m.name == name);
    let metric_of = |measure: &Measure| match measure {
        Measure::Metric { metric, .. } => metric_named(metric),
        _ => None,
    };
    // "Wins by driver in 2019" → "and the constructors?": the same metric,
    // told apart by the kind named instead of the one shown.
    if !plan.measures.is_empty()
        && !plan.dimensions.iter().any(|d| d.object == named)
        && plan
            .measures
            .iter()
            .all(|m| metric_of(m).is_some_and(|m| touches(&m.object, named)))
    {
        let mut shown = plan
            .dimensions
            .iter_mut()
            .filter(|d| d.object != named && is_display(ontology, d));
        let (Some(dimension), None) = (shown.next(), shown.next()) else {
            return None;
        };
        let replaced = std::mem::replace(dimension, display_of(ontology, named)?);
        plan.filters
            .retain(|f| f.attribute.object != replaced.object);
        return Some(plan);
    }
    plan.assumptions.clear();
    let mut rows = None;
    for measure in &mut plan.measures {
        let Measure::Metric { metric, variant } = measure else {
            return None;
        };
        let last = metric_named(metric)?;
        if touches(&last.object, named) {
            return None;
        }
        let mut counterparts = ontology
            .metrics
            .iter()
            .filter(|m| alike(last, m) && touches(&m.object, named));
        let (Some(counterpart), None) = (counterparts.next(), counterparts.next()) else {
            return None;
        };
        rows = Some((last.object.as_str(), counterpart.object.as_str()));
        plan.assumptions.push(PlanAssumption::stated(format!(
            "{}, as the last answer's {}",
            counterpart.label,
            last.label.to_lowercase()
        )));
        *metric = counterpart.name.clone();
        *variant = None;
    }
    let (from, to) = rows?;
    // The kind the last answer told its rows apart by ("driver") gives way
    // to the kind named; what both kinds of rows belong to ("race") stays.
    let gone = |object: &str| object != from && touches(from, object) && !touches(to, object);
    // "the constructors' standings" are rows of the kind's own: shown by
    // the one thing they belong to that the last rows did not.
    let kind = if named == to {
        let mut kinds = ontology
            .relationships
            .iter()
            .filter(|r| r.from == to && !touches(from, &r.to));
        match (kinds.next(), kinds.next()) {
            (Some(r), None) => r.to.as_str(),
            _ => return None,
        }
    } else {
        named
    };
    let shown = display_of(ontology, kind).filter(|d| touches(to, &d.object))?;
    // Told apart by the other kind, or the answer would be everyone's
    // total ("Hamilton's points" → "and the team?").
    let mut replaced = plan.dimensions.iter_mut().filter(|d| gone(&d.object));
    let (Some(dimension), None) = (replaced.next(), replaced.next()) else {
        return None;
    };
    *dimension = shown;
    plan.filters.retain(|f| !gone(&f.attribute.object));
    Some(plan)
}
