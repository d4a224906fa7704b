//! The built-in planner: offline and deterministic. It reads a question as a
//! sequence of operator words (from the grammar), concepts (from the
//! lexicon), numbers and years, then assembles the semantic plan those
//! pieces describe, or says which word the ontology cannot ground.

mod attributes;
mod counterpart;
mod date_spans;
mod decide;
mod exemplar;
mod fiscal;
mod labels;
mod margins;
mod nested;
mod peers;
mod periods;
mod reading;
mod rolling;
#[cfg(all(test, feature = "ssr"))]
mod test_support;
mod time;
mod words;

pub use attributes::base_object;
pub(crate) use attributes::is_a_name;
pub use decide::{combination_waits, settle_routes, variant_assumptions};
pub use exemplar::{Exemplars, Followed};
pub use labels::{attribute_label, measure_label, plural};
pub use time::answered_filter;

use self::reading::Reading;
use self::words::{Piece, read};
use crate::engine::grammar::{self, Op};
use crate::engine::lexicon::Lexicon;
use crate::engine::plan::{Condition, Filter, Literal, Measure, PlanAssumption, SemanticPlan};
use crate::ontology::AttributeRole;
use crate::ontology::Ontology;
use crate::time::Day;

/// What the planner made of a question.
#[derive(Clone, Debug, PartialEq)]
pub enum Planned {
    Plan(SemanticPlan),
    /// The question uses something the ontology does not describe.
    NotAnswerable(String),
}

/// Reads `question` against one published version. `previous` is the plan of
/// the chat's last turn, which a follow-up refines; `today` is the caller's
/// day, against which "last year" or "the past 30 days" is read (without it,
/// such a question is refused rather than guessed).
pub fn plan(
    ontology: &Ontology,
    lexicon: &Lexicon,
    question: &str,
    previous: Option<&SemanticPlan>,
    today: Option<Day>,
) -> Planned {
    // "how far behind the champion was he": a difference between places.
    let gap = margins::gap_between_places(question, margins::on_standings(ontology, previous));
    let question = gap.as_deref().unwrap_or(question);
    // "the winner of the 2012 Monaco Grand Prix": a question inside the
    // question, where both halves plan.
    if previous.is_none()
        && let Some(nested) = nested::split(question)
        && let Some(planned) = nested::plan(ontology, lexicon, &nested, today)
    {
        return planned;
    }
    plan_one(ontology, lexicon, question, previous, today)
}

/// "how many orders have they placed?", after a question about one named
/// customer: "they" is that customer, read as "he" is.
fn singular_they<'q>(
    ontology: &Ontology,
    question: &'q str,
    previous: Option<&SemanticPlan>,
) -> std::borrow::Cow<'q, str> {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let says_they = words.iter().any(|w| w == "they" || w == "them");
    // "did any of them", "which of them": several, whatever led.
    let several = words.windows(3).any(|w| {
        matches!(
            w[0].as_str(),
            "any" | "which" | "none" | "all" | "each" | "some" | "both"
        ) && w[1] == "of"
            && w[2] == "them"
    });
    if !says_they
        || several
        || !previous.is_some_and(|p| reading::about_one_named_thing(ontology, p))
    {
        return question.into();
    }
    grammar::as_one_person(question, false).into()
}

/// [`plan`] for a question read whole.
fn plan_one(
    ontology: &Ontology,
    lexicon: &Lexicon,
    question: &str,
    previous: Option<&SemanticPlan>,
    today: Option<Day>,
) -> Planned {
    let question = words::conditional_when(question);
    let question = singular_they(ontology, &question, previous);
    let peer = peers::read(ontology, &question, previous);
    let question = match &peer {
        Some(asked) => asked.question.as_str().into(),
        None => question,
    };
    let question = time::year_beside(ontology, &question, previous);
    let question = match fiscal::stated_start(ontology, &question)
        .and_then(|question| fiscal::stated_end(ontology, &question))
    {
        Ok(question) => question,
        Err(reason) => return Planned::NotAnswerable(reason),
    };
    let (question, fiscal) = fiscal::read(&question);
    let (question, window) = rolling::read(&question);
    // "last fiscal year": years counted back on the fiscal calendar, where
    // December 2026 is already in fiscal 2027 with a July start.
    let today_read = match today {
        Some(day) if fiscal => Some(fiscal::fiscal_day(ontology, day)),
        other => other,
    };
    let mut pieces = read(lexicon, &question, today_read);
    words::shortened_first_word(&question, &mut pieces);
    words::negated_phrase(lexicon, &mut pieces);
    words::where_by_verb(ontology, &mut pieces);
    words::best_of_a_finish(ontology, &mut pieces);
    words::composed_with_last(ontology, previous, &mut pieces);
    words::explanation_dropped(ontology, &mut pieces);
    words::amount_before_counted_things(ontology, &mut pieces);
    date_spans::days_between_named(ontology, &mut pieces);
    date_spans::how_old_at_event(ontology, &question, &mut pieces);
    words::year_dated_by(ontology, &mut pieces);
    #[cfg(feature = "ssr")]
    tracing::trace!(?pieces, "the question as the planner read it");
    let notes: Vec<PlanAssumption> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Note(note) => Some(PlanAssumption::stated(note.clone())),
            _ => None,
        })
        .collect();
    let asks_future = pieces.contains(&Piece::Op(Op::Future));
    match plan_pieces(ontology, &pieces, previous, peer.map(|p| p.peer)) {
        Planned::Plan(plan)
            if let Some(start) = today.and_then(|today| future_start(ontology, &plan, today)) =>
        {
            Planned::NotAnswerable(format!(
                "{start} is still to come, and the data holds only what has already happened"
            ))
        }
        // "What will our revenue be in 2000": a forecast, whatever the year.
        _ if asks_future => Planned::NotAnswerable(
            "the question asks what will happen, and the data holds only what has already happened"
                .to_owned(),
        ),
        Planned::Plan(mut plan) => {
            plan.assumptions.extend(notes);
            let planned = match window {
                Some(window) => rolling::rolling_total(ontology, Planned::Plan(plan), window),
                None => Planned::Plan(plan),
            };
            if fiscal {
                fiscal::fiscal_years(ontology, planned)
            } else {
                planned
            }
        }
        refused => refused,
    }
}

/// The first time a plan's time filters admit, when every time they admit
/// is after `today`: "who will win the 2028 championship" asks the future.
fn future_start(ontology: &Ontology, plan: &SemanticPlan, today: Day) -> Option<String> {
    let today_text = today.iso();
    let after_today = |literal: &Literal| match literal {
        Literal::Integer(year) => *year > today.year,
        Literal::Text(date) => date.len() >= 10 && date.as_str() > today_text.as_str(),
    };
    plan.filters
        .iter()
        .filter(|filter| {
            ontology
                .attribute(&filter.attribute.object, &filter.attribute.attribute)
                .is_some_and(|a| a.role == AttributeRole::Time)
        })
        .find_map(|filter| {
            let earliest = match &filter.condition {
                Condition::OneOf(list) if !list.is_empty() && list.iter().all(after_today) => {
                    list.first()
                }
                Condition::Between(first, _)
                | Condition::AtLeast(first)
                | Condition::After(first)
                    if after_today(first) =>
                {
                    Some(first)
                }
                _ => None,
            };
            earliest.map(ToString::to_string)
        })
}

/// `peer` is the ontology's peer the question asked for, by the one whose
/// it is, which the pieces are about.
fn plan_pieces(
    ontology: &Ontology,
    pieces: &[Piece],
    previous: Option<&SemanticPlan>,
    peer: Option<usize>,
) -> Planned {
    let blocking: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Unknown { word, blocks: true } => Some(word.as_str()),
            _ => None,
        })
        .collect();
    if !blocking.is_empty() {
        return Planned::NotAnswerable(no_concept_for(&blocking));
    }
    let ignored: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Unknown { word, .. } => Some(word.as_str()),
            _ => None,
        })
        .collect();
    if let Some(mut plan) = counterpart::switched(ontology, pieces, previous) {
        if !ignored.is_empty() {
            plan.assumptions.push(not_used(&ignored));
        }
        return Planned::Plan(plan);
    }
    let mut reading = Reading::of(ontology, pieces, previous);
    reading.exclude_a_variant(ontology, previous);
    #[cfg(feature = "ssr")]
    tracing::trace!(?reading, "the roles the question's pieces play");
    if reading.dangling_negation
        && !reading.excludes_a_measure(ontology)
        && !reading.negate_own_condition(ontology)
    {
        return Planned::NotAnswerable(
            "Cassis can exclude named values (\"outside Europe\", \"except Ferrari\") but not yet a measure (\"never won\"); ask for what to include instead".to_owned(),
        );
    }
    let (growth, running, compares) = (reading.growth, reading.running, reading.comparison);
    let ranks = reading.ranks() || reading.grounds_anything();
    let who = reading.who;
    let planned = reading.into_plan(ontology, previous);
    let planned = match peer {
        Some(peer) => peers::of_peers(ontology, peer, planned),
        None => planned,
    };
    // "Where are they based?": a follow-up that names nothing Cassis knows
    // and leaves the last plan as it was would repeat the last answer as
    // if it answered this one.
    let planned = match (planned, previous) {
        (Planned::Plan(plan), Some(previous))
            if !ranks && growth.is_none() && running.is_none() && same_query(&plan, previous) =>
        {
            Planned::NotAnswerable(
                "the question leaves the last answer's plan as it was, so Cassis could not tell what it asks for beyond it".to_owned(),
            )
        }
        (planned, _) => planned,
    };
    let (planned, growth) = match growth {
        None if compares => periods::growth_carried(planned, previous),
        asked => (planned, asked),
    };
    let planned = periods::compare_periods(ontology, planned, growth);
    let planned = match periods::running_total(ontology, planned, running) {
        Planned::Plan(mut plan) => {
            attributes::qualify_by_year(ontology, &mut plan);
            Planned::Plan(plan)
        }
        refused => refused,
    };
    // "in seconds" with a metric of seconds: the word was used after all.
    let ignored: Vec<&str> = match &planned {
        Planned::Plan(plan) => {
            let measured: String = plan
                .measures
                .iter()
                .map(|m| {
                    let name = match m {
                        Measure::Metric { metric, .. } => metric.replace('_', " "),
                        _ => String::new(),
                    };
                    format!("{} {name} ", measure_label(ontology, m)).to_lowercase()
                })
                .collect();
            ignored
                .into_iter()
                .filter(|word| !measured.split(' ').any(|w| w == *word))
                .collect()
        }
        Planned::NotAnswerable(_) => ignored,
    };
    match planned {
        // "Who was Ferrari's team principal": with the asked word unread,
        // the rows would only say back the value the question named.
        // "Which customers gave us a bad rating": every customer, unfiltered,
        // is no answer when words that may have said which went unread.
        // "the customer behind the single most expensive order": a
        // superlative the plan never ranks by, beside words it never read,
        // is a question read wrong.
        Planned::Plan(plan)
            if !ignored.is_empty()
                && (only_echoes(&plan)
                    || lists_everything(&plan)
                    || (who && names_no_one(ontology, &plan))
                    || drops_a_superlative(pieces, &plan)) =>
        {
            Planned::NotAnswerable(no_concept_for(&ignored))
        }
        Planned::Plan(mut plan) if !ignored.is_empty() => {
            plan.assumptions.push(not_used(&ignored));
            Planned::Plan(plan)
        }
        Planned::NotAnswerable(reason) if !ignored.is_empty() => Planned::NotAnswerable(format!(
            "{reason} (the ontology has no concept for \"{}\")",
            ignored.join(" ")
        )),
        planned => planned,
    }
}

/// Why a question is refused over words nothing in the ontology grounds.
fn no_concept_for(words: &[&str]) -> String {
    format!(
        "the ontology has no concept for \"{}\", so Cassis cannot tell what it refers to",
        words.join(" ")
    )
}

/// Whether a plan measures nothing and shows only what its filters already
/// fix to one value each, so its rows can only repeat the question.
fn only_echoes(plan: &SemanticPlan) -> bool {
    plan.measures.is_empty()
        && !plan.dimensions.is_empty()
        && plan.dimensions.iter().all(|shown| plan.fixes(shown))
}

/// Whether a plan shows no one's name and measures nothing, so it cannot
/// answer a "who": "who was the chief mechanic on Red Bull's pit crew"
/// listed pit stop times.
fn names_no_one(ontology: &Ontology, plan: &SemanticPlan) -> bool {
    let names = |d: &crate::engine::plan::AttributeRef| {
        let label = ontology
            .attribute(&d.object, &d.attribute)
            .map(|a| a.label.to_lowercase())
            .unwrap_or_default();
        d.attribute.contains("name") || label.contains("name")
    };
    plan.measures.is_empty() && !plan.dimensions.iter().any(names)
}

/// Whether the question ranks ("most", "highest", "fastest") and the plan
/// neither orders, limits nor picks an extreme anywhere.
fn drops_a_superlative(pieces: &[Piece], plan: &SemanticPlan) -> bool {
    let ranks = pieces
        .iter()
        .any(|p| matches!(p, Piece::Op(op) if op.superlative().is_some()));
    let picks = |filter: &Filter| {
        matches!(
            filter.condition,
            Condition::Extreme { .. } | Condition::Leader { .. }
        )
    };
    ranks
        && plan.order.is_none()
        && plan.limit.is_none()
        && plan.having.is_empty()
        && !plan.measures.iter().any(Measure::is_composite)
        && !plan.filters.iter().any(picks)
}

/// Whether a plan lists rows with nothing measured, filtered or limited.
fn lists_everything(plan: &SemanticPlan) -> bool {
    plan.measures.is_empty()
        && plan.filters.is_empty()
        && plan.having.is_empty()
        && plan.limit.is_none()
}

/// Whether two plans ask the warehouse the same thing.
fn same_query(plan: &SemanticPlan, other: &SemanticPlan) -> bool {
    plan.measures == other.measures
        && plan.dimensions == other.dimensions
        && plan.filters == other.filters
        && plan.order == other.order
        && plan.limit == other.limit
        && plan.limit_within == other.limit_within
        && plan.via == other.via
}

/// The note that lists the words a plan did not use.
fn not_used(ignored: &[&str]) -> PlanAssumption {
    PlanAssumption::stated(format!(
        "Not used from the question: {}",
        ignored
            .iter()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(all(test, feature = "ssr"))]
mod tests;
