//! Spans of time between two dates, however the question words them: "the
//! average number of days between order date and ship date" is the metric
//! the ontology defines as `days_between` of those two dates, and "how old
//! was he when he won" the age the winning rows hold.

use super::attributes::age_of;
use super::time::is_dated;
use super::words::Piece;
use crate::engine::grammar::Op;
use crate::engine::lexicon::{Concept, Entry, Strength};
use crate::ontology::{Grain, Metric, Ontology};
use crate::sql::portable::days_between_arguments;

/// A date attribute, by the ontology's indices.
type Date = (usize, usize);

/// Puts the metric counting the days between two dates for "days", then
/// the two dates ("days between A and B", "days from A to B", "days does
/// it take from A to B"), in either order.
pub(super) fn days_between_named(ontology: &Ontology, pieces: &mut Vec<Piece>) {
    let Some(at) = pieces
        .iter()
        .position(|p| *p == Piece::Op(Op::Period(Grain::Day)))
    else {
        return;
    };
    let mut dates: Vec<Date> = Vec::new();
    let mut end = at;
    for (k, piece) in pieces.iter().enumerate().skip(at + 1).take(4) {
        match piece {
            Piece::Concept { entries, .. } => {
                let Some(date) = entries.iter().find_map(|e| match e.concept {
                    Concept::Attribute { object, attribute }
                        if is_dated(&ontology.objects[object].attributes[attribute]) =>
                    {
                        Some((object, attribute))
                    }
                    _ => None,
                }) else {
                    return;
                };
                dates.push(date);
                end = k;
                if dates.len() == 2 {
                    break;
                }
            }
            // "and", and the "it" of "how many days does it take".
            Piece::Op(Op::And | Op::Refer { .. }) => {}
            _ => return,
        }
    }
    let [first, second] = dates[..] else {
        return;
    };
    let Some((m, metric)) = ontology.metrics.iter().enumerate().find(|(_, metric)| {
        metric.filters.is_empty()
            && days_between(ontology, metric)
                .is_some_and(|pair| pair == [first, second] || pair == [second, first])
    }) else {
        return;
    };
    let text = if metric.label.is_empty() {
        metric.name.replace('_', " ")
    } else {
        metric.label.to_lowercase()
    };
    pieces.splice(
        at..=end,
        [Piece::Concept {
            entries: vec![Entry {
                concept: Concept::Metric(m),
                strength: Strength::Synonym,
                alias: false,
            }],
            text,
            scoped: false,
        }],
    );
}

/// The two dates a metric counts the days between, where it is just that.
fn days_between(ontology: &Ontology, metric: &Metric) -> Option<[Date; 2]> {
    let own = ontology
        .objects
        .iter()
        .position(|o| o.name == metric.object)?;
    let [start, end] = days_between_arguments(metric.expr.as_deref()?)?;
    let date = |parts: &[String]| -> Option<Date> {
        let (object, name) = match parts {
            [column] => (own, column),
            [object, attribute] => (
                ontology.objects.iter().position(|o| o.name == *object)?,
                attribute,
            ),
            _ => return None,
        };
        let attributes = &ontology.objects[object].attributes;
        // A column of the metric's own rows, or an attribute named across.
        let attribute = attributes.iter().position(|a| {
            a.name == *name || (parts.len() == 1 && a.column_name() == Some(name.as_str()))
        })?;
        Some((object, attribute))
    };
    Some([date(&start)?, date(&end)?])
}

/// "How old was Max Verstappen when he won his first race?": where the
/// rows of what was done (a win is a race result) hold the person's age on
/// the day, "old" asks that age. Without such an event ("how old is
/// Alonso") it stays unknown: the ontology holds no age today.
pub(super) fn how_old_at_event(ontology: &Ontology, question: &str, pieces: &mut [Piece]) {
    if !question.to_lowercase().contains("how old") {
        return;
    }
    let Some(at) = pieces
        .iter()
        .position(|p| matches!(p, Piece::Unknown { word, .. } if word == "old"))
    else {
        return;
    };
    let events: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Concept { entries, .. } => Some(entries),
            _ => None,
        })
        .flatten()
        .filter_map(|e| match e.concept {
            Concept::Metric(m) => Some(ontology.metrics[m].object.as_str()),
            _ => None,
        })
        .collect();
    let age = ontology.objects.iter().enumerate().find_map(|(o, object)| {
        if !events.contains(&object.name.as_str()) {
            return None;
        }
        object
            .attributes
            .iter()
            .position(|a| age_of(ontology, a).is_some())
            .map(|a| (o, a))
    });
    if let Some((object, attribute)) = age {
        pieces[at] = Piece::Concept {
            entries: vec![Entry {
                concept: Concept::Attribute { object, attribute },
                strength: Strength::Synonym,
                alias: false,
            }],
            text: "old".to_owned(),
            scoped: false,
        };
    }
}
