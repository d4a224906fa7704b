//! The walk over a question's pieces that sorts each into the role it
//! plays: a measure, a grouping, a value, a time, an order.

use super::named_filters::named_filter_as_value;
use super::{Reading, distinct_things, follow_up, only_values, time_bound};
use crate::engine::compile::display_attribute;
use crate::engine::grammar::{self, Op};
use crate::engine::graph;
use crate::engine::lexicon::{Concept, Entry, Strength};
use crate::engine::plan::{AttributeRef, Condition, Measure, SemanticPlan};
use crate::engine::planner::attributes::{is_person, own_number, own_year};
use crate::engine::planner::time::{is_dated, year_attribute};
use crate::engine::planner::words::{Piece, attributes_of, object_of};
use crate::engine::text;
use crate::ontology::{Aggregate, AttributeRole, DataType, MetricKind, Ontology};

impl Reading {
    pub(in crate::engine::planner) fn of(
        ontology: &Ontology,
        pieces: &[Piece],
        previous: Option<&SemanticPlan>,
    ) -> Self {
        let mut reading = Reading {
            earlier: previous
                .map(|plan| follow_up::things_of(ontology, plan))
                .unwrap_or_default(),
            continues: pieces.first() == Some(&Piece::Op(Op::And)),
            unread: pieces.iter().any(|p| matches!(p, Piece::Unknown { .. })),
            plural: pieces
                .iter()
                .filter_map(|piece| match piece {
                    Piece::Concept { entries, text, .. } if grammar::looks_plural(text) => {
                        object_of(entries)
                    }
                    _ => None,
                })
                .collect(),
            named_by_name: pieces
                .iter()
                .filter_map(|piece| match piece {
                    Piece::Concept { entries, .. } => Some(entries),
                    _ => None,
                })
                .flatten()
                .filter_map(|e| match e.concept {
                    Concept::Attribute { object, attribute } if e.strength == Strength::Name => {
                        let o = &ontology.objects[object];
                        Some(AttributeRef::new(&o.name, &o.attributes[attribute].name))
                    }
                    _ => None,
                })
                .collect(),
            ..Reading::default()
        };
        let mut previous_op: Option<Op> = None;
        let mut grouping = false;
        // A piece already read with the one before it.
        let mut read_with_previous: Option<usize> = None;
        let verbs_of_compared = verbs_of_compared(ontology, pieces);
        let average = compared_with_average(ontology, pieces);
        let of_average = |index: usize| average.as_ref().is_some_and(|a| a.pieces.contains(&index));
        let won_levels = won_levels(ontology, pieces);
        let most = Piece::Op(Op::Most);
        for (index, piece) in pieces.iter().enumerate() {
            if read_with_previous == Some(index)
                || verbs_of_compared.contains(&index)
                || of_average(index)
            {
                continue;
            }
            let piece = if won_levels.contains(&index) {
                &most
            } else {
                piece
            };
            match piece {
                Piece::Op(op) => {
                    reading.counts |= *op == Op::Count;
                    // "which driver had the most points and how many wins
                    // did he have": a second measure, asked beside the first.
                    reading.and_how_many = *op == Op::Count
                        && previous_op == Some(Op::And)
                        && !reading.metrics.is_empty();
                    match op {
                        // "top 3 nationalities by number of drivers": a
                        // measure after "by" ranks, it does not group.
                        Op::Count | Op::Sum if grouping => grouping = false,
                        Op::Average => {
                            reading.averaged = true;
                            grouping = false;
                        }
                        // "revenue growth 1996 vs 1995, in percent": a
                        // growth is a percentage already, of nothing else.
                        Op::Share
                            if pieces.iter().any(|p| match p {
                                Piece::Op(op) => matches!(op, Op::Growth | Op::OverPrevious(_)),
                                Piece::Concept { entries, .. } => entries.iter().any(|e| {
                                    matches!(e.concept, Concept::Metric(m)
                                        if ontology.metrics[m].kind == MetricKind::Growth)
                                }),
                                _ => false,
                            }) => {}
                        Op::Share => {
                            reading.share = true;
                            reading.share_names_whole = reading.metrics.is_empty();
                        }
                        Op::Sum if index == 0 => reading.how_much = true,
                        Op::Together => reading.together = true,
                        // "how many more", "how much less": a difference.
                        Op::Most | Op::Least | Op::Peak(_)
                            if matches!(previous_op, Some(Op::Count | Op::Sum)) =>
                        {
                            reading.difference = op.superlative();
                        }
                        Op::Most | Op::Least | Op::Peak(_) => {
                            reading.order = op.superlative();
                            reading.superlative_last = true;
                            // "his highest grid position", "the best
                            // finishing position": of a place in an order,
                            // where 1 is first, the best is the lowest.
                            // "the best average finishing position": the
                            // lowest average.
                            let averaged = pieces.get(index + 1) == Some(&Piece::Op(Op::Average));
                            if averaged
                                && plain_attribute(ontology, pieces.get(index + 2), &reading)
                                    .is_some_and(|a| is_rank(ontology, &a))
                            {
                                reading.order = op.superlative().map(|most| !most);
                                continue;
                            }
                            if let Some(rank) = plain_attribute(ontology, pieces.get(index + 1), &reading)
                                .filter(|a| is_rank(ontology, a))
                            {
                                reading.order = op.superlative().map(|most| !most);
                                // "the best finishing position" names the
                                // number ranked, as "the highest" does.
                                if !matches!(op, Op::Peak(_)) {
                                    reading.asked.retain(|a| *a != rank);
                                    read_with_previous = Some(index + 1);
                                    reading.peak = Some(rank);
                                    continue;
                                }
                            }
                            if let Op::Peak(_) = op {
                                let mut next = pieces.get(index + 1);
                                // "the fastest time in the first qualifying
                                // period": the Q1 time, which the next
                                // attribute's own words call a time.
                                let specific = refined_attribute(ontology, next, pieces.get(index + 2));
                                if specific {
                                    next = pieces.get(index + 2);
                                }
                                // "the highest top speed": the row with it.
                                // "the most expensive part" is no part name.
                                let magnitude = |a: &AttributeRef| {
                                    ontology
                                        .attribute(&a.object, &a.attribute)
                                        .is_some_and(orders_by_magnitude)
                                };
                                if let Some(attribute) = plain_attribute(ontology, next, &reading)
                                    .filter(magnitude)
                                {
                                    reading.peak = Some(attribute);
                                    if specific {
                                        read_with_previous = Some(index + 1);
                                        reading.asked.retain(|a| Some(a) != reading.peak.as_ref());
                                    }
                                } else if let Some((thing, attribute)) = timed_thing(ontology, next) {
                                    // "the slowest stop": the stop with the
                                    // longest duration.
                                    reading.mentioned.push(thing);
                                    reading.quantities.push(attribute.clone());
                                    reading.peak = Some(attribute);
                                    read_with_previous = Some(index + 1);
                                }
                            }
                        }
                        Op::Top => reading.order = reading.order.or(Some(true)),
                        Op::Bottom => reading.order = Some(false),
                        Op::Back => {
                            reading.refers_back = true;
                            // "those five brands": the number restates how
                            // many; a thing's attribute ("brands") is of it.
                            let next = match pieces.get(index + 1) {
                                Some(Piece::Number(_)) => pieces.get(index + 2),
                                next => next,
                            };
                            if let Some(Piece::Concept { entries, .. }) = next {
                                reading.possessed = object_of(entries)
                                    .or_else(|| attributes_of(entries).next().map(|(o, _)| o));
                            }
                            continue;
                        }
                        Op::That(object) => {
                            reading.refers_back = true;
                            reading.demonstrated = Some(*object);
                            continue;
                        }
                        Op::ThatValue(object, attribute) => {
                            reading.refers_back = true;
                            reading.demonstrated_value = Some((*object, *attribute));
                            continue;
                        }
                        Op::Both => {
                            reading.both = true;
                            continue;
                        }
                        Op::Among => {
                            reading.refers_back = true;
                            reading.partitive = true;
                            reading.counts_among |=
                                index > 0 && pieces[index - 1] == Piece::Op(Op::Count);
                            if each_of_those(pieces, index) {
                                grouping = false;
                            }
                            continue;
                        }
                        // "each of them" as "each of those".
                        Op::Refer { .. } if each_of_those(pieces, index) => {
                            reading.refers_back = true;
                            reading.partitive = true;
                            grouping = false;
                            continue;
                        }
                        Op::Refer { person } => {
                            reading.refers_to_answer = true;
                            reading.refers_to_person |= person;
                            continue;
                        }
                        Op::SameTime => {
                            reading.same_time = true;
                            continue;
                        }
                        Op::AllTime => {
                            reading.all_time = true;
                            continue;
                        }
                        Op::Never => {
                            reading.never = true;
                            continue;
                        }
                        // Only a thing, or an attribute of a thing named
                        // already: "the ten suppliers with the highest
                        // balance along with the balance" shows the
                        // suppliers' balance, which is shown already, not
                        // the customers' that "balance" alone names.
                        Op::AlongWith => {
                            let shown = |a: &AttributeRef| {
                                reading.asked.contains(a)
                                    || reading.quantities.contains(a)
                                    || reading.peak.as_ref() == Some(a)
                            };
                            // "along with their circuit".
                            let next = pieces[index + 1..]
                                .iter()
                                .find(|p| !matches!(p, Piece::Op(Op::Back)));
                            let asks = matches!(next,
                                Some(Piece::Concept { entries, .. })
                                    if object_of(entries).is_some()
                                        || attributes_of(entries).any(|(o, a)| {
                                            reading.has_named(ontology, o)
                                                && !shown(&AttributeRef::new(
                                                    &ontology.objects[o].name,
                                                    &ontology.objects[o].attributes[a].name,
                                                ))
                                        }));
                            if asks {
                                previous_op = Some(Op::Which);
                            }
                            continue;
                        }
                        // "what market segment and country is X in": the
                        // next thing is asked as well.
                        // "give the race name and year": so after a name
                        // of what was asked already.
                        Op::And
                            if index > 0
                                && (reading.asked_at == Some(index - 1)
                                    || matches!(&pieces[index - 1], Piece::Concept { entries, .. }
                                    if entries.iter().any(|e| match e.concept {
                                        Concept::Attribute { object, attribute } => {
                                            let o = &ontology.objects[object];
                                            reading.asked.iter().any(|a| {
                                                a.object == o.name
                                                    && a.attribute == o.attributes[attribute].name
                                            })
                                        }
                                        _ => false,
                                    }))) =>
                        {
                            previous_op = Some(Op::Which);
                            continue;
                        }
                        // "excluding AIR or REG AIR": the next value is
                        // excluded as well, not compared.
                        Op::Versus | Op::And
                            if index > 0
                                && reading.value_at == Some(index - 1)
                                && reading.values.last().is_some_and(|v| v.negated) =>
                        {
                            reading.negate = true;
                            continue;
                        }
                        // "customers who have not ordered": after a thing,
                        // "who" only says which of them.
                        Op::Who
                            if let Some(Piece::Concept { entries, .. }) =
                                index.checked_sub(1).map(|i| &pieces[i])
                                && let Some(o) = object_of(entries) =>
                        {
                            // Not counted, they are listed.
                            if !reading.counts
                                && let Some(a) = display_attribute(&ontology.objects[o])
                            {
                                let shown = AttributeRef::new(&ontology.objects[o].name, a);
                                if !reading.asked.contains(&shown) {
                                    reading.asked.push(shown);
                                }
                            }
                        }
                        // "number of customers from JAPAN who ordered":
                        // after the things counted, "who" says which.
                        // "number of unique clerks who handled orders": so
                        // after the values counted.
                        Op::Who
                            if reading
                                .aggregates
                                .iter()
                                .any(|(_, aggregate)| *aggregate == Aggregate::CountDistinct) => {}
                        // "fastest lap of the 2020 Italian GP: who set it?"
                        // asks who; "who ordered" qualifies.
                        Op::Who
                            if !matches!(pieces.get(index + 1), Some(Piece::Op(Op::Refer { .. })))
                                && (reading.counts
                                || reading.metrics.iter().any(|(m, _)| {
                                    matches!(
                                        ontology.metrics[*m].aggregate,
                                        Aggregate::Count | Aggregate::CountDistinct
                                    )
                                }))
                                && pieces[..index].iter().any(|p| {
                                    matches!(p, Piece::Concept { entries, .. }
                                        if object_of(entries).is_some()
                                            || entries.iter().any(|e| matches!(e.concept, Concept::Metric(_))))
                                }) => {}
                        Op::Who => {
                            reading.who = true;
                            reading.who_opens |= index == 0;
                        }
                        Op::When => reading.when = true,
                        Op::Versus => reading.comparison = true,
                        Op::Only => reading.only = true,
                        Op::Adding => {
                            reading.adds = true;
                            // "add …", "and add …".
                            reading.adds_first |=
                                pieces[..index].iter().all(|p| *p == Piece::Op(Op::And));
                        }
                        Op::Breakdown => reading.tallies = true,
                        Op::Contrast => reading.contrast = true,
                        Op::Scope => reading.opens_scoped = true,
                        Op::Where => {
                            reading.place = true;
                            reading.place_first |= index == 0;
                        }
                        // "per year for returned items": the year ends the
                        // grouping, unless "and" adds to it.
                        Op::Year if grouping => {
                            reading.per_year = true;
                            grouping = matches!(pieces.get(index + 1), Some(Piece::Op(Op::And)));
                        }
                        // "and in which year was it held": the year is asked.
                        Op::Year if previous_op == Some(Op::Which) => {
                            reading.year_asked = true;
                        }
                        // "…, with the year", "give the year and the
                        // driver": a year named at the end, as something
                        // more to show.
                        Op::Year
                            if index > 0
                                && !matches!(pieces[index - 1], Piece::Op(_))
                                && pieces[index + 1..].iter().all(|p| match p {
                                    Piece::Op(Op::And) => true,
                                    Piece::Concept { entries, .. } => entries.iter().all(|e| {
                                        matches!(
                                            e.concept,
                                            Concept::Object(_) | Concept::Attribute { .. }
                                        )
                                    }),
                                    _ => false,
                                }) =>
                        {
                            reading.year_asked = true;
                        }
                        Op::Month if grouping => {
                            reading.per_month = true;
                            grouping = matches!(pieces.get(index + 1), Some(Piece::Op(Op::And)));
                        }
                        // "what month in 1996 had the most revenue": the
                        // months are what is ranked.
                        Op::Month
                            if previous_op == Some(Op::Which)
                                && pieces[index + 1..].iter().any(|p| {
                                    matches!(p, Piece::Op(op) if op.superlative().is_some())
                                }) =>
                        {
                            reading.per_month = true;
                            reading.limit = reading.limit.or(Some(1));
                        }
                        // "by segment and quarter": a second grouping.
                        Op::Period(grain)
                            if grouping
                                || (previous_op == Some(Op::And)
                                    && !reading.groupings.is_empty()) =>
                        {
                            reading.per_grain = Some(*grain)
                        }
                        Op::Every(grain) => reading.per_grain = Some(*grain),
                        Op::Growth => reading.growth = reading.growth.or(Some(None)),
                        Op::OverPrevious(grain) => reading.growth = Some(Some(*grain)),
                        Op::Running(to_date) => reading.running = Some(*to_date),
                        // "our best month for revenue", "which year had the
                        // most wins": the months (years) are what is ranked.
                        Op::Month
                            if previous_op.and_then(Op::superlative).is_some() =>
                        {
                            reading.per_month = true;
                            reading.limit = reading.limit.or(Some(1));
                        }
                        Op::Negation => {
                            reading.negate = true;
                            // "the 2024 drivers who did not score": the
                            // time says which things, before what they did
                            // not do.
                            reading.time_before_negation |=
                                !reading.years.is_empty() || !reading.dates.is_empty();
                            // "raced for Ferrari but never won for Ferrari":
                            // a value named before says which things too.
                            if reading.values_before_negation.is_empty() {
                                reading.values_before_negation = reading
                                    .values
                                    .iter()
                                    .filter(|v| !v.negated)
                                    .map(|v| v.text.clone())
                                    .collect();
                            }
                        }
                        Op::Ever => reading.ever = true,
                        Op::Which => reading.lists = true,
                        Op::Descending | Op::Ascending => {
                            reading.sort = Some(*op == Op::Descending);
                            // "in descending order of latitude": what the
                            // list is sorted by, not one more thing asked.
                            if let Some(attribute) =
                                plain_attribute(ontology, pieces.get(index + 1), &reading)
                            {
                                reading.sort_by = Some(attribute);
                                read_with_previous = Some(index + 1);
                            }
                        }
                        // "with a recorded fastest lap speed": only the rows
                        // that have one.
                        Op::Recorded => {
                            if let Some(attribute) =
                                plain_attribute(ontology, pieces.get(index + 1), &reading)
                            {
                                // "how many times did Russell make it into
                                // Q3": with nothing else counted, the rows
                                // that have one are.
                                if reading.counts
                                    && reading.count_of.is_none()
                                    && reading.metrics.is_empty()
                                {
                                    reading.count_of = ontology
                                        .objects
                                        .iter()
                                        .position(|o| o.name == attribute.object);
                                }
                                reading.present.push(attribute);
                                read_with_previous = Some(index + 1);
                            }
                        }
                        Op::InTimeOrder(latest) => {
                            reading.sort = Some(*latest);
                            reading.in_time_order = true;
                        }
                        Op::GroupBy => grouping = true,
                        Op::Per => {
                            grouping = true;
                            reading.per = true;
                            reading.per_grouping =
                                reading.per_grouping.or(Some(reading.groupings.len()));
                        }
                        // "by all drivers": rolled up, not grouped.
                        Op::All => {
                            grouping = false;
                            reading.whole_named = reading.share;
                            reading.whole_open = reading.share;
                        }
                        _ => {}
                    }
                    // "how many non-British drivers": the negation qualifies
                    // the value; the count still reaches the drivers.
                    if !(*op == Op::Negation && previous_op == Some(Op::Count)) {
                        previous_op = Some(*op);
                    }
                }
                // "finished in the top 3", "started outside the top 10".
                Piece::Number(n)
                    if matches!(previous_op, Some(Op::TopPlaces | Op::OutsideTopPlaces))
                        && (1..=1000).contains(n) =>
                {
                    reading.top_places = Some(*n);
                    reading.outside_top = previous_op == Some(Op::OutsideTopPlaces);
                    previous_op = None;
                }
                // "account balance over 9000": the quantity just named, compared.
                Piece::Number(n)
                    if let Some(op @ (Op::Above | Op::Below | Op::AtLeast | Op::AtMost)) =
                        previous_op
                        && reading.last_quantity.is_some() =>
                {
                    let attribute = reading.last_quantity.take().expect("checked above");
                    reading.quantities.retain(|q| *q != attribute);
                    reading.asked.retain(|q| *q != attribute);
                    reading.compared.push((attribute, op, *n));
                    previous_op = None;
                }
                // "how many of them have a negative balance": after "of
                // them", the number just named, compared.
                Piece::Number(n)
                    if let Some(op @ (Op::Above | Op::Below | Op::AtLeast | Op::AtMost)) =
                        previous_op
                        && reading.partitive
                        && let Some(attribute) = index
                            .checked_sub(2)
                            .and_then(|i| plain_attribute(ontology, pieces.get(i), &reading))
                            .filter(|a| {
                                ontology
                                    .attribute(&a.object, &a.attribute)
                                    .is_some_and(|a| a.data_type.is_numeric())
                            }) =>
                {
                    reading.quantities.retain(|q| *q != attribute);
                    reading.asked.retain(|q| *q != attribute);
                    reading.aggregates.retain(|(q, _)| *q != attribute);
                    reading.last_quantity = None;
                    reading.compared.push((attribute, op, *n));
                    previous_op = None;
                }
                // "bigger than size 40": a numbered attribute compared.
                Piece::Number(n)
                    if previous_op.is_none()
                        && let Some(Piece::Op(
                            op @ (Op::Above | Op::Below | Op::AtLeast | Op::AtMost),
                        )) = index.checked_sub(2).map(|i| &pieces[i])
                        && let Some(attribute) = index
                            .checked_sub(1)
                            .and_then(|i| numbered_attribute(ontology, &pieces[i])) =>
                {
                    reading.asked.retain(|a| *a != attribute);
                    reading.last_quantity = None;
                    reading.compared.push((attribute, *op, *n));
                }
                // "started from grid 4", "ranked 2": a whole number right
                // after a numbered attribute of a row is its value.
                Piece::Number(n)
                    if previous_op.is_none()
                        && !(1900..=2100).contains(n)
                        && let Some(attribute) = index
                            .checked_sub(1)
                            .and_then(|i| numbered_attribute(ontology, &pieces[i])) =>
                {
                    reading.asked.retain(|a| *a != attribute);
                    reading.last_quantity = None;
                    reading.equals.push((attribute, *n));
                }
                Piece::Number(n) => {
                    // "customers who spent more than 500000": a comparison
                    // with nothing to compare is a filter the plan would
                    // drop.
                    // "results with at least 50 laps": a number of the
                    // row's own attribute named after it, compared row by
                    // row.
                    let attribute_after = match pieces.get(index + 1) {
                        Some(Piece::Concept { entries, .. }) => {
                            let numbers: Vec<(usize, usize)> = entries
                                .iter()
                                .map(|e| numeric_attribute(ontology, e))
                                .collect::<Option<_>>()
                                .unwrap_or_default();
                            // Of several things' laps, the thing named's.
                            numbers
                                .iter()
                                .find(|(o, _)| {
                                    reading.count_of == Some(*o) || reading.mentioned.contains(o)
                                })
                                .or(numbers.first())
                                .map(|(o, a)| {
                                    AttributeRef::new(
                                        &ontology.objects[*o].name,
                                        &ontology.objects[*o].attributes[*a].name,
                                    )
                                })
                        }
                        _ => None,
                    };
                    if let Some(op @ (Op::Above | Op::Below | Op::AtLeast | Op::AtMost)) =
                        previous_op
                        && !(1900..=2100).contains(n)
                        && let Some(attribute) = attribute_after
                    {
                        reading.compared.push((attribute, op, *n));
                        read_with_previous = Some(index + 1);
                        previous_op = None;
                        continue;
                    }
                    if let Some(op @ (Op::Above | Op::Below | Op::AtLeast | Op::AtMost)) =
                        previous_op
                        && !(1900..=2100).contains(n)
                    {
                        reading.uncompared = reading.uncompared.or(Some((op, *n)));
                        if let Some(Piece::Concept { entries, .. }) = pieces.get(index + 1) {
                            reading.uncompared_of = object_of(entries);
                        }
                    }
                    // "top 5", "which five customers", "5 best".
                    let after_top = matches!(previous_op, Some(Op::Top | Op::Bottom | Op::Which));
                    let before_best = pieces.get(index + 1).is_some_and(Piece::ranks);
                    // "the 10 suppliers with the most units": a number of
                    // things ranked later by a superlative.
                    let ranked_things = matches!(
                        pieces.get(index + 1),
                        Some(Piece::Concept { entries, .. }) if object_of(entries).is_some()
                    ) && pieces[index + 1..].iter().any(Piece::ranks);
                    if (after_top || before_best || ranked_things)
                        && (1..=1000).contains(n)
                        && !(1900..=2100).contains(n)
                    {
                        reading.limit = Some(*n as u32);
                    } else if (1900..=2100).contains(n) {
                        // "2022 vs 2023" compares two years.
                        let op = match previous_op {
                            Some(Op::Versus) => Op::Versus,
                            other => time_bound(other),
                        };
                        // "won a race in 2012 but not in 2013": the year
                        // after the negation is the one the things lack,
                        // also once a measure took the negation ("hadn't
                        // hosted a race in 2019").
                        if (reading.negate
                            || (reading.dangling_negation && reading.time_before_negation))
                            && !reading.years.is_empty()
                            && pieces[index + 1..]
                                .iter()
                                .all(|p| matches!(p, Piece::Op(_)))
                        {
                            reading.years_lacking.push((op, *n));
                            continue;
                        }
                        reading.years.push((op, *n));
                        // "shipped the most units on orders placed in 1997".
                        // "customers who ordered in 1994": a verb that is
                        // also a measure still dates what it did.
                        let dated = |entries: &[Entry]| {
                            let mut dates = entries.iter().filter_map(|e| match e.concept {
                                Concept::Attribute { object, attribute }
                                    if is_dated(
                                        &ontology.objects[object].attributes[attribute],
                                    ) =>
                                {
                                    let o = &ontology.objects[object];
                                    Some(AttributeRef::new(&o.name, &o.attributes[attribute].name))
                                }
                                _ => None,
                            });
                            dates.next().filter(|_| dates.next().is_none())
                        };
                        if let Some(Piece::Concept { entries, text, .. }) =
                            index.checked_sub(1).map(|i| &pieces[i])
                            && (entries.len() == 1 || text.ends_with("ed"))
                            && let Some(date) = dated(entries)
                        {
                            // "placed in 1994" says which orders; the date
                            // is not asked for.
                            if reading.dated_by_verb.contains(&date) {
                                reading.asked.retain(|a| *a != date);
                            }
                            reading.year_after_date = Some(date);
                        }
                        // "on 1995 orders": the year of the orders' date.
                        if op == Op::Only
                            && let Some(Piece::Concept { entries, .. }) = pieces.get(index + 1)
                        {
                            reading.year_of = object_of(entries).or(reading.year_of);
                        }
                    }
                    // "list the 2024 races": the year qualifies what is
                    // listed, which is still what "list" asks for.
                    // "which 3 suppliers": so do the three.
                    if !(previous_op == Some(Op::Which)
                        && ((1900..=2100).contains(n) || reading.limit == Some(*n as u32)))
                    {
                        previous_op = None;
                    }
                }
                // "the second most wins", "the third highest points total":
                // a place in the ranking, not a finishing position ("second
                // most often" counts the second places).
                Piece::Ordinal(n)
                    if *n > 1
                        && matches!(pieces.get(index + 1), Some(Piece::Op(op)) if op.superlative().is_some())
                        && matches!(pieces.get(index + 2), Some(Piece::Concept { .. })) =>
                {
                    reading.rank = u32::try_from(*n).ok();
                }
                Piece::Ordinal(n) => {
                    // "from 1st to 10th": every position between.
                    if let [.., Piece::Ordinal(first), Piece::Op(Op::To | Op::Until)] =
                        pieces[..index]
                        && reading.ordinals.last() == Some(&first)
                        && first < *n
                        && *n - first < 100
                    {
                        reading.ordinals.extend(first + 1..*n);
                    }
                    reading.ordinals.push(*n);
                    if let Some(Piece::Concept { entries, .. }) = pieces.get(index + 1) {
                        reading.ordinal_of = object_of(entries);
                    }
                    previous_op = None;
                }
                // "his first pit stop": the stop numbered 1, as "his second
                // pit stop" is the one numbered 2, not his earliest by time.
                Piece::Extreme { latest: false, .. }
                    if let Some(Piece::Concept { entries, .. }) = pieces.get(index + 1)
                        && let Some(o) = object_of(entries)
                        && own_number(ontology, o).is_some()
                        // A race is first by its date, which says so.
                        && !ontology.objects[o].attributes.iter().any(is_dated) =>
                {
                    reading.ordinals.push(1);
                    reading.ordinal_of = Some(o);
                    previous_op = None;
                }
                Piece::Extreme { latest, of_age } => {
                    reading.extreme = Some(*latest);
                    reading.extreme_of_age = *of_age;
                    reading.extreme_object = None;
                }
                Piece::Months(first, last) => {
                    reading.months.extend(*first..=*last);
                    if let Some(Piece::Concept { entries, .. }) =
                        index.checked_sub(1).map(|i| &pieces[i])
                        && let Some(o) = object_of(entries)
                    {
                        reading.date_of = Some(o);
                    }
                    previous_op = None;
                }
                Piece::Dates(range) => {
                    reading.dates.push((time_bound(previous_op), range.clone()));
                    // "the race held on 2015/11/29": the date is the race's.
                    if let Some(Piece::Concept { entries, .. }) =
                        index.checked_sub(1).map(|i| &pieces[i])
                        && let Some(o) = object_of(entries)
                    {
                        reading.date_of = Some(o);
                    }
                    previous_op = None;
                }
                // "first on the grid", "the no. 4 grid": the number is the
                // grid position, not a finishing place or a count.
                Piece::Concept { .. }
                    if let Some(Piece::Ordinal(n) | Piece::Number(n)) =
                        index.checked_sub(1).map(|i| &pieces[i])
                        && !(1900..=2100).contains(n)
                        && reading.limit.is_none_or(|limit| i64::from(limit) != *n)
                        && let Some(attribute) = numbered_attribute(ontology, piece) =>
                {
                    // "in the top 3 on the grid": the places are the grid's.
                    if reading.top_places == Some(*n) {
                        reading.top_places_of = Some(attribute);
                        continue;
                    }
                    if reading.ordinals.last() == Some(n) {
                        reading.ordinals.pop();
                    }
                    // "how many times did they qualify in first place": the
                    // place of the rows counted, where they have one.
                    let own = reading
                        .count_of
                        .map(|o| &ontology.objects[o])
                        .filter(|o| o.name != attribute.object)
                        .and_then(|o| {
                            o.attributes
                                .iter()
                                .find(|a| a.name == attribute.attribute)
                                .map(|a| AttributeRef::new(&o.name, &a.name))
                        });
                    reading.equals.push((own.unwrap_or(attribute), *n));
                }
                Piece::Concept {
                    entries,
                    text,
                    scoped,
                } => {
                    reading.superlative_last = false;
                    let mut first_date = false;
                    // "the first order date": the earliest of the date.
                    if matches!(
                        index.checked_sub(1).map(|i| &pieces[i]),
                        Some(Piece::Ordinal(1))
                    ) && !entries.is_empty()
                        && entries.iter().all(|e| match e.concept {
                            Concept::Attribute { object, attribute } => {
                                let a = &ontology.objects[object].attributes[attribute];
                                a.role == AttributeRole::Time
                                    && matches!(a.data_type, DataType::Date | DataType::Timestamp)
                            }
                            _ => false,
                        })
                    {
                        reading.ordinals.pop();
                        reading.extreme = Some(false);
                        reading.extreme_object = None;
                        first_date = true;
                    }
                    // "the most recent date a customer placed an order": the
                    // latest is of the date named, whose thing is the order.
                    if reading.extreme.is_some()
                        && reading.extreme_object.is_none()
                        && (first_date
                            || matches!(
                                pieces.get(index.wrapping_sub(1)),
                                Some(Piece::Extreme { .. })
                            ))
                        && object_of(entries).is_none()
                        && let Some(o) = entries.iter().find_map(|e| match e.concept {
                            Concept::Attribute { object, attribute }
                                if is_dated(&ontology.objects[object].attributes[attribute]) =>
                            {
                                Some(object)
                            }
                            _ => None,
                        })
                    {
                        reading.extreme_object = Some(o);
                    }
                    if reading.extreme.is_some()
                        && reading.extreme_object.is_none()
                        && let Some(o) = object_of(entries)
                    {
                        // "the first race": the race itself, not a count of races.
                        reading.extreme_object = Some(o);
                        reading.mentioned.push(o);
                        grouping = false;
                        previous_op = None;
                        continue;
                    }
                    // "by customer region": the customer says whose region.
                    // "customer Customer#000000001", "driver Max Verstappen":
                    // the thing's own word before its name only says what the
                    // name is.
                    let names = |o: usize, a: usize| {
                        display_attribute(&ontology.objects[o])
                            == Some(ontology.objects[o].attributes[a].name.as_str())
                    };
                    if let Some(o) = object_of(entries)
                        && matches!(pieces.get(index + 1), Some(Piece::Concept { entries: next, .. })
                            if next.iter().all(|e| matches!(e.concept,
                                Concept::Value { object, attribute, .. } if object == o && names(o, attribute))))
                    {
                        reading.mentioned.push(o);
                        continue;
                    }
                    // "with status F", "return flag R": an attribute's name
                    // right before its value only says what the value is.
                    let names_next_value = matches!(pieces.get(index + 1),
                    Some(Piece::Concept { entries: next, .. })
                    if !next.is_empty() && next.iter().all(|n| match n.concept {
                        Concept::Value { object, attribute, .. } => entries
                            .iter()
                            .any(|e| e.concept == Concept::Attribute { object, attribute }),
                        _ => false,
                    }));
                    if names_next_value && !grouping {
                        continue;
                    }
                    // A name after it is a filter ("per race for Max
                    // Verstappen"), not what it qualifies.
                    // Nor is a date ("does a customer place"): a thing's
                    // place, region or name is what qualifying asks for.
                    // "per region for orders": a thing the first one does not
                    // lead to (a region has many orders) is not qualified by it.
                    let leads_to = |from: usize, to: usize| {
                        from == to
                            || graph::join_tree(
                                ontology,
                                &ontology.objects[from].name,
                                &[ontology.objects[to].name.as_str()],
                            )
                            .is_ok_and(|tree| !tree.fans_out())
                    };
                    let qualifies_next = grouping
                        && object_of(entries).is_some_and(|o| {
                            matches!(pieces.get(index + 1), Some(Piece::Concept { entries, .. })
                            if entries.iter().any(|e| match e.concept {
                                Concept::Value { .. } => false,
                                Concept::Attribute { object, attribute } => {
                                    ontology.objects[object].attributes[attribute].role
                                        != AttributeRole::Time
                                        && leads_to(o, object)
                                }
                                Concept::Object(object) => leads_to(o, object),
                                Concept::Metric(_) => false,
                                _ => true,
                            }))
                        });
                    if qualifies_next && let Some(o) = object_of(entries) {
                        reading.mentioned.push(o);
                        continue;
                    }
                    // "how many distinct driver nationalities": the thing
                    // says whose attribute the next word is.
                    // Not "orders with priority 2-HIGH": an attribute
                    // right before a value of its own only names the value;
                    // nor "which race was round 5", a whole number.
                    let valued = |object: usize, attribute: usize| match pieces.get(index + 2) {
                        Some(Piece::Concept { entries: value, .. }) => value.iter().any(|e| {
                            matches!(e.concept,
                                Concept::Value { object: vo, attribute: va, .. }
                                    if vo == object && va == attribute)
                        }),
                        Some(Piece::Number(n)) => {
                            !(1900..=2100).contains(n)
                                && ontology.objects[object].attributes[attribute].data_type
                                    == DataType::Integer
                        }
                        _ => false,
                    };
                    // Not "which circuits located in Italy": a verb
                    // ("located") says where, it is not asked.
                    let own_attribute_next = |o: usize| {
                        matches!(pieces.get(index + 1), Some(Piece::Concept { entries: next, text, .. })
                            if object_of(next).is_none()
                                && !(text.ends_with("ed")
                                    && matches!(pieces.get(index + 2),
                                        Some(Piece::Concept { scoped: true, .. })))
                                && next.iter().any(|e| e.strength == Strength::Name
                                    && matches!(e.concept,
                                    Concept::Attribute { object, attribute } if object == o
                                        && ontology.objects[o].attributes[attribute].role
                                            == AttributeRole::Dimension
                                        && !valued(object, attribute))))
                    };
                    if !grouping
                        && entries.iter().all(|e| {
                            matches!(
                                e.concept,
                                Concept::Object(_) | Concept::Attribute { .. } | Concept::Metric(_)
                            )
                        })
                        && let Some(o) = object_of(entries)
                        && own_attribute_next(o)
                    {
                        reading.mentioned.push(o);
                        reading.qualifier = Some(o);
                        continue;
                    }
                    // "for each Mercedes driver": the name filters, the
                    // thing after it is what is grouped.
                    let value_before_thing = grouping
                        && entries
                            .iter()
                            .all(|e| matches!(e.concept, Concept::Value { .. }))
                        && matches!(pieces.get(index + 1), Some(Piece::Concept { entries: next, .. })
                            if object_of(next).is_some());
                    // "show 1997 sales by market segment": what is shown by
                    // something is a measure, even where the word is a thing.
                    let measured_by_next = previous_op == Some(Op::Which)
                        && entries
                            .iter()
                            .any(|e| matches!(e.concept, Concept::Metric(_)))
                        && matches!(
                            pieces.get(index + 1),
                            Some(Piece::Op(Op::GroupBy | Op::Per))
                        );
                    if let Some(op) = previous_op
                        && reading.compares_attributes(ontology, entries, op)
                    {
                        previous_op = None;
                        continue;
                    }
                    // "delivered later than the date we committed to": the
                    // word "date" only announces the date named after it.
                    if let Some(op) = previous_op
                        && *text == "date"
                        && let Some(Piece::Concept { entries: next, .. }) = pieces.get(index + 1)
                        && reading.compares_attributes(ontology, next, op)
                    {
                        previous_op = None;
                        read_with_previous = Some(index + 1);
                        continue;
                    }
                    // "orders from French customers": the value is the
                    // customers', so its attribute is reached through them.
                    // So is "customers in JAPAN": a value right after them.
                    let thing_before = match index.checked_sub(1).map(|i| &pieces[i]) {
                        Some(Piece::Concept {
                            entries: before, ..
                        }) if only_values(entries) => object_of(before),
                        _ => None,
                    };
                    let qualified = match object_of(entries) {
                        Some(o) if index > 0 && reading.value_at == Some(index - 1) => Some(o),
                        _ => thing_before,
                    };
                    if let Some(o) = qualified
                        && !reading.qualified.contains(&o)
                    {
                        reading.qualified.push(o);
                    }
                    reading.at = index;
                    // "urgent or high priority": a named filter joined to
                    // a value is read as the value its condition names.
                    let as_value = match (pieces.get(index + 1), pieces.get(index + 2)) {
                        (
                            Some(Piece::Op(Op::And | Op::Versus)),
                            Some(Piece::Concept { entries: next, .. }),
                        ) => named_filter_as_value(ontology, entries, next),
                        _ => None,
                    };
                    let entries: &[Entry] = match &as_value {
                        Some(value) => std::slice::from_ref(value),
                        None => entries,
                    };
                    // "by year the order was placed": the thing after the
                    // grain says whose date it is; it is not grouped.
                    let dates_the_grain = matches!(
                        index.checked_sub(1).map(|i| &pieces[i]),
                        Some(Piece::Op(Op::Year | Op::Month | Op::Period(_)))
                    ) && object_of(entries).is_some();
                    // "the 10 suppliers that shipped the most units",
                    // "customers that placed the most orders": things named
                    // first, then ranked, are asked as "which" asks them.
                    let ranked_subject = previous_op.is_none()
                        && object_of(entries).is_some()
                        && pieces[..index].iter().all(|p| match p {
                            Piece::Number(_) => true,
                            Piece::Op(op) => !matches!(
                                op,
                                Op::Count
                                    | Op::Sum
                                    | Op::Average
                                    | Op::Share
                                    | Op::Most
                                    | Op::Least
                                    | Op::Peak(_)
                                    | Op::Which
                                    | Op::Who
                                    | Op::Top
                                    | Op::Bottom
                            ),
                            _ => false,
                        })
                        && pieces[index + 1..]
                            .iter()
                            .any(|p| matches!(p, Piece::Op(op) if op.superlative().is_some()))
                        // "Constructors of which nationality": the thing
                        // "which" asks for is another.
                        && !pieces[index + 1..]
                            .iter()
                            .any(|p| matches!(p, Piece::Op(Op::Which | Op::Who)));
                    let op_before = if ranked_subject {
                        Some(Op::Which)
                    } else {
                        previous_op
                    };
                    // "the winning driver", "the winning race time": a
                    // count said as an adjective of what comes next says
                    // which rows; it is not what is measured.
                    if let Some(m) = adjective_count(ontology, entries, text, pieces.get(index + 1))
                    {
                        reading.adjectives.push(m);
                        continue;
                    }
                    // "what grid position did the winner start from": a
                    // count's verb after an attribute of the rows it counts
                    // is how the question asks for that attribute.
                    // Only in a question that asks which, as its last word of
                    // substance, and not negated ("teams on the 2023 grid that
                    // never won a race").
                    if matches!(pieces.first(), Some(Piece::Op(Op::Which | Op::Who)))
                        && verb_of_asked(ontology, entries, text, &reading.asked)
                        && !matches!(index.checked_sub(1).map(|i| &pieces[i]), Some(Piece::Op(op)) if *op == Op::Count || op.superlative().is_some())
                        && !pieces[index + 1..].iter().any(|p| {
                            matches!(p, Piece::Concept { .. })
                                || matches!(p, Piece::Op(op) if op.superlative().is_some())
                        })
                        && !pieces[..index]
                            .iter()
                            .any(|p| matches!(p, Piece::Op(Op::Negation | Op::Never)))
                    {
                        continue;
                    }
                    // "which customer nation had the most late deliveries":
                    // a thing right before one it points to says whose that
                    // one is; the second is what "which" asks for.
                    // So does a thing right before an attribute of its own:
                    // "which customer segment has the most orders".
                    if op_before == Some(Op::Which)
                        && let Some(owner) = object_of(entries)
                        && let Some(Piece::Concept { entries: next, .. }) = pieces.get(index + 1)
                        && (object_of(next).is_some_and(|owned| {
                            graph::direct_link(
                                ontology,
                                &ontology.objects[owner].name,
                                &ontology.objects[owned].name,
                            )
                            .is_some()
                        }) || (owns_attribute(ontology, owner, next)
                            && !matches!(
                                pieces.get(index + 2),
                                Some(Piece::Number(_) | Piece::Concept { .. })
                            )))
                    {
                        if !reading.mentioned.contains(&owner) {
                            reading.mentioned.push(owner);
                        }
                        continue;
                    }
                    let asked_before = reading.asked.len();
                    // "the account balance of Supplier#000000037": a value
                    // names its thing too.
                    reading.named_later = pieces[index + 1..]
                        .iter()
                        .filter_map(|p| match p {
                            Piece::Concept { entries, .. } => {
                                object_of(entries).or_else(|| value_object(entries))
                            }
                            _ => None,
                        })
                        .collect();
                    reading.value_next = matches!(pieces.get(index + 1),
                        Some(Piece::Concept { entries, .. }) if only_values(entries));
                    reading.place(
                        ontology,
                        entries,
                        text,
                        *scoped,
                        if measured_by_next { None } else { op_before },
                        grouping && !value_before_thing && !dates_the_grain,
                    );
                    if only_values(entries) {
                        reading.value_at = Some(index);
                    }
                    // "of all pit stops in 2019 made by Mercedes drivers",
                    // "of all wins in 2023 went to Red Bull": the thing or
                    // measure named ends what the whole is.
                    if !only_values(entries) {
                        reading.whole_open = false;
                    }
                    if reading.asked.len() > asked_before {
                        reading.asked_at = Some(index);
                    }
                    grouping = value_before_thing;
                    // "average pit stop duration": the aggregate reaches past
                    // the object to its attribute.
                    let only_objects = entries
                        .iter()
                        .all(|e| matches!(e.concept, Concept::Object(_)));
                    // "how many Finnish drivers": a value before the counted
                    // thing describes it; the count still reaches the thing.
                    // "average pit stop duration": so does a thing that a
                    // metric also counts.
                    let names_a_thing = entries
                        .iter()
                        .any(|e| matches!(e.concept, Concept::Object(_)))
                        && entries
                            .iter()
                            .all(|e| matches!(e.concept, Concept::Object(_) | Concept::Metric(_)));
                    let reaches_past = ((only_objects || names_a_thing)
                        && matches!(previous_op, Some(Op::Average | Op::Sum)))
                        || (only_values(entries) && previous_op == Some(Op::Count))
                        // "list urgent orders": what is listed is after them.
                        || (only_values(entries)
                            && previous_op == Some(Op::Which)
                            && matches!(pieces.get(index + 1), Some(Piece::Concept { entries: next, .. })
                                if object_of(next).is_some()));
                    if !reaches_past {
                        previous_op = None;
                    }
                }
                Piece::Key { object, key } => {
                    reading.superlative_last = false;
                    reading.keys.push((*object, *key));
                    reading.mentioned.push(*object);
                    previous_op = None;
                }
                Piece::Agent { metric, text } => {
                    reading.superlative_last = false;
                    // "how many different winners": the people among the
                    // rows the metric counts; "the winners": who they are.
                    // "how many race winners": the words before it in the
                    // counted phrase qualify it.
                    let qualifier = |p: &Piece| matches!(p, Piece::Concept { entries, .. } if object_of(entries).is_some());
                    // "the most different race winners": counted, too.
                    let counted = pieces[..index]
                        .iter()
                        .rev()
                        .find(|p| !qualifier(p))
                        .is_some_and(|p| {
                            matches!(p, Piece::Op(op) if *op == Op::Count || op.superlative().is_some())
                        });
                    if counted {
                        reading.agents_counted = true;
                        reading.count_of = None;
                    } else {
                        reading.who = true;
                    }
                    // "from which grid slot did the winner start": one
                    // winner, of whom something else is asked, says which
                    // rows, as "the winning driver" does; the wins are not
                    // measured. So with a number of his asked for ("how
                    // many laps did the winner do").
                    // Or a measure of his rows ("how many points did the
                    // winner score").
                    let own_rows = |m: &usize| {
                        *m != *metric
                            && ontology.metrics[*m].object == ontology.metrics[*metric].object
                    };
                    let asked_of_him = ((!reading.asked.is_empty()
                        || !reading.quantities.is_empty()
                        || !reading.aggregates.is_empty())
                        && reading.metrics.is_empty())
                        || (!reading.metrics.is_empty()
                            && reading.metrics.iter().all(|(m, _)| own_rows(m)));
                    if !counted
                        && asked_of_him
                        && !grammar::looks_plural(text)
                        && adjective_conditions_exist(ontology, *metric)
                    {
                        reading.adjectives.push(*metric);
                        previous_op = None;
                        continue;
                    }
                    // "the youngest race winner", "the oldest pole sitter":
                    // the person, youngest on the day of a row the metric
                    // counts, as "the youngest driver to win" is.
                    if !counted
                        && reading.extreme_of_age
                        // "the youngest race winner": the race only says
                        // which rows.
                        && (reading.extreme_object.is_none()
                            || index.checked_sub(1).is_some_and(|i| {
                                matches!(&pieces[i], Piece::Concept { entries, .. }
                                    if object_of(entries) == reading.extreme_object)
                            }))
                        && adjective_conditions_exist(ontology, *metric)
                        && let Some(person) = ontology.objects.iter().position(|o| {
                            is_person(o)
                                && ontology
                                    .direct_link(&ontology.metrics[*metric].object, &o.name)
                                    .is_some()
                        })
                    {
                        reading.adjectives.push(*metric);
                        reading.extreme_object = Some(person);
                        reading.mentioned.push(person);
                        previous_op = None;
                        continue;
                    }
                    reading.at = index;
                    let entries = [Entry {
                        concept: Concept::Metric(*metric),
                        strength: Strength::Synonym,
                        alias: false,
                    }];
                    reading.place(ontology, &entries, text, false, previous_op, false);
                    previous_op = None;
                }
                // "won by someone other than": a word the ontology does not
                // know after "by" is who did it, not a grouping.
                Piece::Unknown { .. } => grouping = false,
                Piece::Note(_) => {}
            }
        }
        // "how many distinct nationalities are represented among
        // constructors": an attribute several things have, counted, is the
        // one of the thing named, not the first thing that has it.
        for (attribute, _) in &mut reading.aggregates {
            let own = |o: &usize| ontology.objects[*o].name == attribute.object;
            if reading.mentioned.iter().any(own) {
                continue;
            }
            let named = reading
                .mentioned
                .iter()
                .map(|o| &ontology.objects[*o])
                .find(|o| o.attributes.iter().any(|a| a.name == attribute.attribute));
            if let Some(object) = named {
                attribute.object = object.name.clone();
            }
        }
        // "drivers born in 1990": a question that opens with a thing, and
        // measures nothing, lists the things.
        // "German drivers born in the 1990s": values before it only say
        // which.
        let opening = pieces
            .iter()
            .find(|p| !matches!(p, Piece::Concept { entries, .. } if only_values(entries)));
        if let Some(Piece::Concept { entries, .. }) = opening
            && let Some(o) = object_of(entries)
            && reading.metrics.is_empty()
            && reading.aggregates.is_empty()
            && reading.quantities.is_empty()
            && reading.count_of.is_none()
            && !reading.counts
            && let Some(a) = display_attribute(&ontology.objects[o])
        {
            let shown = AttributeRef::new(&ontology.objects[o].name, a);
            if !reading.asked.contains(&shown) {
                reading.asked.insert(0, shown);
            }
        }
        reading.read_as_level(ontology);
        if let Some(average) = average {
            for list in [&mut reading.asked, &mut reading.quantities] {
                list.retain(|a| *a != average.attribute);
            }
            reading.last_quantity = None;
            reading.against_average = Some((average.condition(), average.attribute));
        }
        reading.enumerated(ontology, pieces);
        reading.counted_rows_listed(ontology, pieces);
        // "Did Ferrari win more races in 2022 or in 2024": the years
        // compared are the rows; the races are what is counted in each.
        if reading.comparison
            && reading.order.is_some()
            && reading.asked.is_empty()
            && !reading.metrics.is_empty()
            && reading.years.iter().any(|(op, _)| *op == Op::Versus)
            && let Some(time) =
                year_attribute(ontology, &ontology.metrics[reading.metrics[0].0].object)
        {
            reading
                .mentioned
                .retain(|o| ontology.objects[*o].name != time.object);
        }
        // "Did Hamilton or Verstappen win more races in 2021": the two
        // compared are the rows; the races are what is counted for each,
        // not listed beside them.
        if reading.comparison
            && reading.order.is_some()
            && reading.asked.is_empty()
            && !reading.metrics.is_empty()
            && !reading.years.iter().any(|(op, _)| *op == Op::Versus)
            && reading.values.iter().filter(|v| !v.negated).count() >= 2
        {
            let compared: Vec<&str> = reading
                .values
                .iter()
                .flat_map(|v| v.options.iter().map(|(a, _)| a.object.as_str()))
                .collect();
            let metric_object = &ontology.metrics[reading.metrics[0].0].object;
            reading.mentioned.retain(|o| {
                let name = ontology.objects[*o].name.as_str();
                compared.contains(&name) || name == metric_object
            });
        }
        // "How many orders did each customer place on average": the
        // average of the counts per customer.
        if reading.averaged && reading.counts && !reading.groupings.is_empty() {
            reading.per = true;
        }
        // "circuits that hosted a race in 2020 but not in 2019": the
        // measure named before is what the later year lacks.
        if !reading.years_lacking.is_empty() && reading.negated_metric.is_none() {
            reading.negated_metric = reading.metrics.first().map(|(m, _)| *m);
        }
        if reading.negate && reading.negated_metric.is_none() {
            reading.lacks(ontology, pieces);
        }
        if reading.negate && reading.negated_metric.is_none() {
            reading.never_any(ontology, pieces);
        }
        if reading.negate {
            // "(sprints excluded)": the negation follows what it excludes.
            if reading.negated_metric.is_none()
                && let [.., Piece::Concept { entries, .. }, Piece::Op(Op::Negation)] = pieces
                && let Some(m) = entries.iter().find_map(|e| match e.concept {
                    Concept::Metric(m) => Some(m),
                    _ => None,
                })
                && reading.metrics.iter().any(|(x, _)| *x == m)
            {
                reading.negated_metric = Some(m);
            }
            reading.dangling_negation = true;
        }
        reading
    }

    /// "the 10 quickest pit stops - driver, race and duration": things
    /// named one right after another, the last of them after "and", at
    /// the end of a question that lists or ranks, are what to show. The
    /// commas between them are gone by now, so at least two must come
    /// before the "and" ("drivers and their points" is no such list).
    fn enumerated(&mut self, ontology: &Ontology, pieces: &[Piece]) {
        if !(self.lists || self.ranks() || self.peak.is_some()) {
            return;
        }
        let Some(and) = pieces.iter().rposition(|p| *p == Piece::Op(Op::And)) else {
            return;
        };
        // The last thing ends the question, but for how it is sorted
        // ("fastest first"). "the 3 quickest stops - driver and how long":
        // of rows ranked by their own number, the number may end it.
        let rest = match &pieces[and + 1..] {
            [Piece::Concept { .. }, rest @ ..] => rest,
            [Piece::Op(Op::Which), rest @ ..] if self.peak.is_some() => rest,
            _ => return,
        };
        if !rest
            .iter()
            .all(|p| matches!(p, Piece::Op(_) | Piece::Unknown { blocks: false, .. }))
        {
            return;
        }
        let mut objects: Vec<usize> = pieces[..and]
            .iter()
            .rev()
            .map_while(|p| match p {
                Piece::Concept { entries, .. } => object_of(entries),
                _ => None,
            })
            .collect();
        // One thing is enough where rows are ranked by their own number,
        // whose other thing it can only be ("quickest stops - driver and
        // duration").
        let ranked_rows = self.peak.as_ref().map(|p| p.object.as_str());
        let one_other = objects.len() == 1
            && ranked_rows.is_some_and(|rows| ontology.objects[objects[0]].name != rows);
        if objects.len() < 2 && !one_other {
            return;
        }
        objects.reverse();
        for o in objects {
            let object = &ontology.objects[o];
            if let Some(a) = display_attribute(object) {
                let shown = AttributeRef::new(&object.name, a);
                if !self.asked.contains(&shown) {
                    self.asked.push(shown);
                }
            }
        }
    }

    /// "list Lando Norris's wins in 2024", "show the podium finishers of
    /// the 2019 British GP": a list of what a conditional count counts is
    /// the things those rows are of, not the count. Which things: the
    /// first the counted rows point to (in the ontology's order) that the
    /// question does not already pin to one, by a name and, for things
    /// that recur in time (a race's name each season), a year or date.
    fn counted_rows_listed(&mut self, ontology: &Ontology, pieces: &[Piece]) {
        let [(metric, None)] = self.metrics.as_slice() else {
            return;
        };
        let metric = &ontology.metrics[*metric];
        // "List the sprint races held in 2023": a count of the distinct
        // things a key points to lists those things.
        let counted_key = distinct_things(ontology, metric);
        if !((metric.counts_rows_under_condition() || counted_key.is_some())
            && self.lists
            && pieces.first() == Some(&Piece::Op(Op::Which))
            && !self.counts
            && self.asked.is_empty()
            && self.groupings.is_empty()
            && self.aggregates.is_empty()
            && self.quantities.is_empty()
            && self.count_of.is_none()
            && self.order.is_none()
            && self.limit.is_none()
            && self.peak.is_none()
            && self.extreme.is_none()
            && !self.share
            && !self.averaged
            && !self.refers_back
            && !self.negate)
        {
            return;
        }
        let timed = !self.years.is_empty() || !self.dates.is_empty();
        let pinned = |object: &crate::ontology::Object| {
            let named = self.values.iter().any(|v| {
                !v.negated
                    && v.options.len() == 1
                    && v.options.iter().all(|(a, _)| a.object == object.name)
            });
            named && (timed || own_year(object).is_none())
        };
        let listed = counted_key.or_else(|| {
            ontology
                .relationships
                .iter()
                .filter(|r| r.from == metric.object)
                .filter_map(|r| ontology.objects.iter().find(|o| o.name == r.to))
                .find(|o| !pinned(o))
        });
        if let Some(object) = listed
            && let Some(a) = display_attribute(object)
        {
            self.asked.push(AttributeRef::new(&object.name, a));
            self.asked_plural = true;
        }
    }

    /// "drivers who don't have a code", "circuits with no altitude": a
    /// negated attribute with no value after it is one the things lack.
    fn lacks(&mut self, ontology: &Ontology, pieces: &[Piece]) {
        let Some(at) = pieces
            .iter()
            .rposition(|p| matches!(p, Piece::Op(Op::Negation)))
        else {
            return;
        };
        let [Piece::Concept { entries, .. }, rest @ ..] = &pieces[at + 1..] else {
            return;
        };
        let valued = rest.iter().any(|p| {
            matches!(p, Piece::Concept { entries, .. } if only_values(entries))
                || matches!(p, Piece::Number(_) | Piece::Dates(_))
        });
        let attributes: Vec<AttributeRef> = entries
            .iter()
            .map(|e| match e.concept {
                Concept::Attribute { object, attribute } => {
                    let o = &ontology.objects[object];
                    let a = &o.attributes[attribute];
                    (a.role != AttributeRole::Identifier)
                        .then(|| AttributeRef::new(&o.name, &a.name))
                }
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        let [attribute] = attributes.as_slice() else {
            return;
        };
        if valued {
            return;
        }
        self.asked.retain(|a| a != attribute);
        self.quantities.retain(|a| a != attribute);
        for grouping in &mut self.groupings {
            grouping.retain(|a| a != attribute);
        }
        self.groupings.retain(|g| !g.is_empty());
        self.missing.push(attribute.clone());
        self.negate = false;
    }

    /// "customers who never bought anything", "drivers who never had a
    /// pit stop": with no measure named, the things excluded are the rows
    /// of the thing named after the negation, else of the one kind of rows
    /// that links to the things; counted by a plain count of them.
    fn never_any(&mut self, ontology: &Ontology, pieces: &[Piece]) {
        let Some(at) = pieces
            .iter()
            .rposition(|p| matches!(p, Piece::Op(Op::Negation)))
        else {
            return;
        };
        let Some(subject) = pieces[..at].iter().rev().find_map(|p| match p {
            Piece::Concept { entries, .. } => object_of(entries),
            _ => None,
        }) else {
            return;
        };
        let after: Vec<&[Entry]> = pieces[at + 1..]
            .iter()
            .filter_map(|p| match p {
                Piece::Concept { entries, .. } => Some(entries.as_slice()),
                _ => None,
            })
            .collect();
        let subject_name = &ontology.objects[subject].name;
        let rows = match after.as_slice() {
            // "never bought anything": the one kind of rows that is theirs.
            [] => {
                let mut linked = ontology
                    .relationships
                    .iter()
                    .filter(|r| r.to == *subject_name && r.from != *subject_name);
                match (linked.next(), linked.next()) {
                    (Some(only), None) => ontology.objects.iter().position(|o| o.name == only.from),
                    _ => None,
                }
            }
            [entries]
                if !entries
                    .iter()
                    .any(|e| matches!(e.concept, Concept::Metric(_) | Concept::Value { .. })) =>
            {
                object_of(entries).filter(|o| *o != subject)
            }
            _ => None,
        };
        let Some(rows) = rows else {
            return;
        };
        let rows = &ontology.objects[rows].name;
        self.negated_metric = ontology.metrics.iter().position(|m| {
            m.object == *rows
                && m.aggregate == Aggregate::Count
                && m.filters.is_empty()
                && m.variants.is_empty()
        });
    }

    /// "Grand Prix points, not counting sprints": excluding what one
    /// variant of a measure adds is asking for a variant without it, not
    /// excluding a measure.
    pub(in crate::engine::planner) fn exclude_a_variant(
        &mut self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) {
        let Some(n) = self.negated_metric else {
            return;
        };
        // "And without the sprints?": the chat's last measure.
        let last = previous
            .into_iter()
            .flat_map(|p| &p.measures)
            .filter_map(|measure| match measure {
                Measure::Metric { metric, .. } => {
                    ontology.metrics.iter().position(|m| m.name == *metric)
                }
                _ => None,
            })
            .filter(|_| self.metrics.iter().all(|(x, _)| *x == n) && self.variants.is_empty());
        let excluded_object = &ontology.metrics[n].object;
        let adds_it = |variant: &crate::ontology::MetricVariant| {
            variant.plus.iter().any(|plus| {
                ontology
                    .metrics
                    .iter()
                    .any(|p| p.name == *plus && p.object == *excluded_object)
            })
        };
        let measured = self
            .metrics
            .iter()
            .map(|(m, _)| *m)
            .chain(self.variants.iter().map(|(m, _)| *m))
            // "points ... excluding sprints": the excluded word displaced
            // the measure it is excluded from.
            .chain(self.displaced)
            .chain(last)
            .find(|m| *m != n && ontology.metrics[*m].variants.iter().any(adds_it));
        let Some(m) = measured else {
            return;
        };
        let variants = &ontology.metrics[m].variants;
        let without = variants
            .iter()
            .position(|v| v.default && !adds_it(v))
            .or_else(|| variants.iter().position(|v| !adds_it(v)));
        match self.variants.iter_mut().find(|(x, _)| *x == m) {
            Some((_, v)) if adds_it(&variants[*v]) => match without {
                Some(w) => *v = w,
                None => return,
            },
            Some(_) => {}
            None => match without {
                Some(w) => self.variants.push((m, w)),
                None => return,
            },
        }
        self.metrics.retain(|(x, _)| *x != n);
        self.also.retain(|x| *x != n);
        if matches!(self.displaced, Some(x) if x == n || x == m) {
            self.displaced = None;
        }
        if !self.metrics.iter().any(|(x, _)| *x == m) && !self.variants.iter().any(|(x, _)| *x == m)
        {
            self.metrics.push((m, None));
        }
        self.negated_metric = None;
        self.dangling_negation = false;
    }

    /// "How many points did Ferrari have in the constructor standings": a
    /// measure adding up the very column a level of a thing named adds up
    /// is that level ("points" in the standings are standings points).
    fn read_as_level(&mut self, ontology: &Ontology) {
        for (m, variant) in &mut self.metrics {
            let metric = &ontology.metrics[*m];
            let level = ontology.metrics.iter().position(|l| {
                l.is_semi_additive()
                    && l.adds_up_like(metric)
                    && l.object != metric.object
                    && self
                        .mentioned
                        .iter()
                        .any(|o| ontology.objects[*o].name == l.object)
            });
            if let Some(level) = level {
                *m = level;
                *variant = None;
            }
        }
    }

    /// "received after the commit date", "a retail price above the supply
    /// cost": after a comparison word, an attribute of the thing whose date
    /// or quantity was just named is what that one is compared with.
    pub(super) fn compares_attributes(
        &mut self,
        ontology: &Ontology,
        entries: &[Entry],
        op: Op,
    ) -> bool {
        let dates = matches!(op, Op::After | Op::Before);
        if !dates && !matches!(op, Op::Above | Op::Below) {
            return false;
        }
        let comparable = |o: usize, a: usize| {
            let attribute = &ontology.objects[o].attributes[a];
            if dates {
                is_dated(attribute)
            } else {
                attribute.data_type.is_numeric()
            }
        };
        let named = if dates {
            self.verb_dates.last()
        } else {
            self.last_quantity.as_ref()
        };
        let Some(left) = named.cloned() else {
            return false;
        };
        let Some(right) = entries.iter().find_map(|e| match e.concept {
            Concept::Attribute { object, attribute }
                if ontology.objects[object].name == left.object
                    && ontology.objects[object].attributes[attribute].name != left.attribute
                    && comparable(object, attribute) =>
            {
                Some(AttributeRef::new(
                    &ontology.objects[object].name,
                    &ontology.objects[object].attributes[attribute].name,
                ))
            }
            _ => None,
        }) else {
            return false;
        };
        for list in [
            &mut self.asked,
            &mut self.verb_dates,
            &mut self.dated_by_verb,
            &mut self.quantities,
        ] {
            list.retain(|a| *a != left);
        }
        self.last_quantity = None;
        self.against
            .push((left, matches!(op, Op::After | Op::Above), right));
        true
    }
}

/// The attribute a piece names when it is a numbered position or label of a
/// row ("grid", "fastest lap rank", "car number"): a whole number that is
/// neither a measure to add up nor an identifier.
fn numbered_attribute(ontology: &Ontology, piece: &Piece) -> Option<AttributeRef> {
    let Piece::Concept { entries, .. } = piece else {
        return None;
    };
    if entries.iter().any(|e| {
        matches!(
            e.concept,
            Concept::Object(_) | Concept::Metric(_) | Concept::Value { .. }
        )
    }) {
        return None;
    }
    entries.iter().find_map(|e| match e.concept {
        Concept::Attribute { object, attribute } => {
            let a = &ontology.objects[object].attributes[attribute];
            (a.data_type == DataType::Integer && a.role == AttributeRole::Dimension)
                .then(|| AttributeRef::new(&ontology.objects[object].name, &a.name))
        }
        _ => None,
    })
}

/// The one attribute a piece names, when it names nothing else that could
/// be measured: "latitude", "fastest lap speed".
fn plain_attribute(
    ontology: &Ontology,
    piece: Option<&Piece>,
    reading: &Reading,
) -> Option<AttributeRef> {
    let Some(Piece::Concept { entries, .. }) = piece else {
        return None;
    };
    if entries
        .iter()
        .any(|e| matches!(e.concept, Concept::Metric(_) | Concept::Value { .. }))
    {
        return None;
    }
    // "suppliers … in descending order of account balance": the
    // suppliers' balance, not the customers'.
    let (object, attribute) = attributes_of(entries)
        .find(|(o, _)| reading.has_named(ontology, *o))
        .or_else(|| attributes_of(entries).next())?;
    let (object, attribute) = reading.namesake(ontology, (object, attribute));
    let o = &ontology.objects[object];
    Some(AttributeRef::new(&o.name, &o.attributes[attribute].name))
}

/// The one measured number of the things a piece names, which "the
/// fastest" or "the slowest" of them ranks: a pit stop's duration.
fn timed_thing(ontology: &Ontology, piece: Option<&Piece>) -> Option<(usize, AttributeRef)> {
    let Some(Piece::Concept { entries, .. }) = piece else {
        return None;
    };
    let thing = object_of(entries)?;
    let object = &ontology.objects[thing];
    let mut measures = object
        .attributes
        .iter()
        .filter(|a| a.role == AttributeRole::Measure);
    let measure = measures.next()?;
    measures
        .next()
        .is_none()
        .then(|| (thing, AttributeRef::new(&object.name, &measure.name)))
}

/// The one thing all of a phrase's values are of ("Supplier#000000037"),
/// where they are only values.
fn value_object(entries: &[Entry]) -> Option<usize> {
    let mut objects = entries.iter().map(|e| match e.concept {
        Concept::Value { object, .. } => Some(object),
        _ => None,
    });
    let first = objects.next()??;
    objects.all(|o| o == Some(first)).then_some(first)
}

/// "Which drivers started race 901 from grid position 10 or further back":
/// a verb that names a metric ("started", starts) but is the verb of an
/// attribute the question then compares with a number ("starting position
/// ... 10") says how that attribute is read, not what is measured.
fn verbs_of_compared(ontology: &Ontology, pieces: &[Piece]) -> Vec<usize> {
    let compared_words = |from: usize| -> Vec<String> {
        pieces[from..]
            .windows(2)
            .filter_map(|pair| match pair {
                [Piece::Concept { entries, .. }, next]
                    if matches!(next, Piece::Number(_)) || is_comparison(next) =>
                {
                    Some(entries)
                }
                _ => None,
            })
            .flatten()
            .filter_map(|e| match e.concept {
                Concept::Attribute { object, attribute } => {
                    Some(ontology.objects[object].attributes[attribute].naming_words())
                }
                _ => None,
            })
            .flat_map(|words| {
                text::key(&words)
                    .split(' ')
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    pieces
        .iter()
        .enumerate()
        .filter_map(|(index, piece)| match piece {
            Piece::Concept { entries, text, .. }
                if text.ends_with("ed")
                    && !text.contains(' ')
                    && entries
                        .iter()
                        .all(|e| matches!(e.concept, Concept::Metric(_))) =>
            {
                let verb = text::key(text);
                compared_words(index + 1).contains(&verb).then_some(index)
            }
            _ => None,
        })
        .collect()
}

/// "Who won the 2008 drivers' championship": to win a level (a standings
/// total, read as it stood at the period's end) is to have the most of it,
/// not to count wins. The verbs of other metrics right before a level.
fn won_levels(ontology: &Ontology, pieces: &[Piece]) -> Vec<usize> {
    let is_level = |piece: &Piece| {
        matches!(piece, Piece::Concept { entries, .. } if entries.iter().any(|e| {
            matches!(e.concept, Concept::Metric(m) if ontology.metrics[m].is_semi_additive())
        }))
    };
    pieces
        .iter()
        .enumerate()
        .filter(|(index, piece)| {
            let Piece::Concept { entries, text, .. } = piece else {
                return false;
            };
            !text.contains(' ')
                && !entries.is_empty()
                && entries
                    .iter()
                    .all(|e| matches!(e.concept, Concept::Metric(m) if !ontology.metrics[m].is_semi_additive()))
                && pieces[index + 1..]
                    .iter()
                    .find(|p| !matches!(p, Piece::Number(_)))
                    .is_some_and(is_level)
        })
        .map(|(index, _)| index)
        .collect()
}

/// The numeric attribute an entry names, as (object, attribute).
fn numeric_attribute(ontology: &Ontology, entry: &Entry) -> Option<(usize, usize)> {
    match entry.concept {
        Concept::Attribute { object, attribute }
            if ontology.objects[object].attributes[attribute]
                .data_type
                .is_numeric() =>
        {
            Some((object, attribute))
        }
        _ => None,
    }
}

/// A quantity compared with its own average: the comparison's pieces, what
/// is compared and which way.
struct AverageComparison {
    pieces: Vec<usize>,
    attribute: AttributeRef,
    above: bool,
    /// "the average balance of all customers": over every row, not only
    /// those the question keeps.
    of_all: bool,
}

impl AverageComparison {
    fn condition(&self) -> Condition {
        match (self.above, self.of_all) {
            (true, false) => Condition::AboveAverage,
            (false, false) => Condition::BelowAverage,
            (true, true) => Condition::AboveAverageOfAll,
            (false, true) => Condition::BelowAverageOfAll,
        }
    }
}

/// "an order total above the average order value", "a fastest lap speed
/// below average": a numeric attribute, a comparison word, then "average"
/// (with the attribute, its object or nothing after it) or a metric that
/// averages that very attribute.
fn compared_with_average(ontology: &Ontology, pieces: &[Piece]) -> Option<AverageComparison> {
    let (at, above) = pieces.iter().enumerate().find_map(|(i, p)| match p {
        Piece::Op(Op::Above) => Some((i, true)),
        Piece::Op(Op::Below) => Some((i, false)),
        _ => None,
    })?;
    let Some(Piece::Concept { entries, .. }) = pieces.get(at.checked_sub(1)?) else {
        return None;
    };
    let numeric: Vec<(usize, usize)> = entries
        .iter()
        .filter_map(|e| numeric_attribute(ontology, e))
        .collect();
    // "suppliers with an account balance above …": the balance of the
    // things named before it, where several things have one.
    let named_before: Vec<usize> = pieces[..at - 1]
        .iter()
        .filter_map(|p| match p {
            Piece::Concept { entries, .. } => object_of(entries),
            _ => None,
        })
        .collect();
    let (object, attribute) = numeric
        .iter()
        .find(|(o, _)| named_before.contains(o))
        .or_else(|| numeric.first())
        .copied()?;
    let owner = &ontology.objects[object];
    let compared = &owner.attributes[attribute];
    let expression = compared.expr.as_deref().or(compared.column.as_deref());
    let averages_it = |e: &Entry| match e.concept {
        Concept::Attribute {
            object: o,
            attribute: a,
        } => o == object && a == attribute,
        Concept::Object(o) => o == object,
        Concept::Metric(m) => {
            let metric = &ontology.metrics[m];
            metric.aggregate == Aggregate::Avg
                && metric.kind == MetricKind::Simple
                && metric.object == owner.name
                && metric.filters.is_empty()
                && metric.expr.is_some()
                && metric.expr.as_deref().map(str::trim) == expression.map(str::trim)
        }
        _ => false,
    };
    let average_named = |index: usize| {
        matches!(pieces.get(index), Some(Piece::Concept { entries, .. })
            if entries.iter().any(averages_it))
    };
    let mut taken = vec![at];
    match pieces.get(at + 1) {
        Some(Piece::Op(Op::Average)) => {
            taken.push(at + 1);
            if average_named(at + 2) {
                taken.push(at + 2);
            }
        }
        Some(Piece::Concept { entries, .. })
            if entries
                .iter()
                .any(|e| matches!(e.concept, Concept::Metric(_)))
                && average_named(at + 1) =>
        {
            taken.push(at + 1)
        }
        _ => return None,
    }
    // "… of all customers": the owner's every row; not "of all customers
    // in Japan", whose value narrows them again.
    let next = taken.last().map_or(at, |last| last + 1);
    let narrowed = matches!(pieces.get(next + 2), Some(Piece::Concept { entries, .. })
        if entries.iter().any(|e| matches!(e.concept, Concept::Value { .. })));
    let of_all = pieces.get(next) == Some(&Piece::Op(Op::All))
        && matches!(pieces.get(next + 1), Some(Piece::Concept { entries, .. })
            if object_of(entries) == Some(object))
        && !narrowed;
    if of_all {
        taken.extend([next, next + 1]);
    }
    Some(AverageComparison {
        pieces: taken,
        attribute: AttributeRef::new(&owner.name, &compared.name),
        above,
        of_all,
    })
}

fn is_comparison(piece: &Piece) -> bool {
    matches!(
        piece,
        Piece::Op(Op::AtLeast | Op::AtMost | Op::Above | Op::Below)
    )
}

/// A place in an order, where 1 is first: a finishing or grid position, a
/// rank.
fn is_rank(ontology: &Ontology, attribute: &AttributeRef) -> bool {
    ontology
        .attribute(&attribute.object, &attribute.attribute)
        .is_some_and(|a| {
            a.data_type == DataType::Integer
                && a.role != AttributeRole::Identifier
                && a.naming_words()
                    .split(' ')
                    .any(|w| matches!(w, "position" | "grid" | "rank"))
        })
}

/// Whether an attribute's values are ranked by size: a number, or a time
/// written as text ("1:18.429", "13:10:00"), whose digits in one format
/// sort as the times do.
fn orders_by_magnitude(attribute: &crate::ontology::Attribute) -> bool {
    attribute.data_type.is_numeric()
        || (attribute.data_type == DataType::Text
            && attribute.naming_words().split(' ').any(|w| w == "time"))
}

/// "time" followed by "first qualifying period", whose attribute's own
/// words say "time" too ("Q1 time"): the second, more exact attribute is
/// the one meant.
fn refined_attribute(ontology: &Ontology, general: Option<&Piece>, exact: Option<&Piece>) -> bool {
    let (
        Some(Piece::Concept {
            entries: general,
            text,
            ..
        }),
        Some(Piece::Concept { entries: exact, .. }),
    ) = (general, exact)
    else {
        return false;
    };
    !text.contains(' ')
        && attributes_of(general).next().is_some()
        && general
            .iter()
            .all(|e| matches!(e.concept, Concept::Attribute { .. }))
        && exact
            .iter()
            .all(|e| matches!(e.concept, Concept::Attribute { .. }))
        && attributes_of(exact).next().is_some_and(|(o, a)| {
            ontology.objects[o].attributes[a]
                .naming_words()
                .split(' ')
                .any(|w| w == text.as_str())
        })
}

/// Whether `text`, one word that is not a plural ("start", "started"),
/// names a count of the rows whose attribute the question already asks
/// for.
fn verb_of_asked(
    ontology: &Ontology,
    entries: &[Entry],
    text: &str,
    asked: &[AttributeRef],
) -> bool {
    !text.contains(' ')
        && !grammar::looks_plural(text)
        // "placed an order": a thing's own name is not a verb.
        && !entries.iter().any(|e| matches!(e.concept, Concept::Object(_)))
        && entries.iter().any(|e| match e.concept {
            Concept::Metric(m) => {
                let metric = &ontology.metrics[m];
                metric.aggregate == Aggregate::Count
                    && asked.iter().any(|a| a.object == metric.object)
            }
            _ => false,
        })
}

/// Whether a metric counts only the rows meeting conditions of its own
/// ("wins": position 1), which can then say which rows without counting
/// them.
fn adjective_conditions_exist(ontology: &Ontology, metric: usize) -> bool {
    let metric = &ontology.metrics[metric];
    metric.aggregate == Aggregate::Count && !metric.filters.is_empty()
}

/// The conditional count an "-ing" word names when it qualifies the thing
/// or attribute right after it ("winning" of "driver").
fn adjective_count(
    ontology: &Ontology,
    entries: &[Entry],
    text: &str,
    next: Option<&Piece>,
) -> Option<usize> {
    let Some(Piece::Concept { entries: next, .. }) = next else {
        return None;
    };
    let qualifies = next
        .iter()
        .any(|e| matches!(e.concept, Concept::Attribute { .. } | Concept::Object(_)))
        && !next.iter().any(|e| {
            matches!(
                e.concept,
                Concept::Metric(_) | Concept::Variant { .. } | Concept::Value { .. }
            )
        });
    let m = entries.iter().find_map(|e| match e.concept {
        Concept::Metric(m) => Some(m),
        _ => None,
    })?;
    let metric = &ontology.metrics[m];
    // "returned line items": a participle before the very things the
    // metric's rows are says which of them, as "winning" does, whatever
    // the metric adds up (the units returned).
    let participle = text.ends_with("ed")
        && metric.kind == MetricKind::Simple
        && !metric.filters.is_empty()
        && super::metric_conditions(ontology, metric, &metric.object).all(|f| f.is_some())
        && next.iter().any(|e| {
            matches!(e.concept, Concept::Object(o) if ontology.objects[o].name == metric.object)
        });
    (!text.contains(' ')
        && qualifies
        && (participle || (text.ends_with("ing") && adjective_conditions_exist(ontology, m))))
    .then_some(m)
}

/// Whether a concept is only attributes, one of them a dimension of the
/// thing's own ("customer segment", "driver nationality"; not "customer
/// name", nor "drivers born", a date said as a verb).
fn owns_attribute(ontology: &Ontology, owner: usize, entries: &[Entry]) -> bool {
    let object = &ontology.objects[owner];
    entries
        .iter()
        .all(|e| matches!(e.concept, Concept::Attribute { .. }))
        && entries.iter().any(|e| {
            matches!(e.concept, Concept::Attribute { object: o, attribute: a }
                if o == owner
                    && display_attribute(object) != Some(object.attributes[a].name.as_str())
                    && object.attributes[a].role == AttributeRole::Dimension)
        })
}

/// "how many orders did each of them place": "each" before the "them" or
/// "of those" at `index` is each of those the chat was about, not each
/// time "place" might name. "each of their drivers" still groups by the
/// drivers.
fn each_of_those(pieces: &[Piece], index: usize) -> bool {
    let things_follow = matches!(
        pieces.get(index + 1),
        Some(Piece::Concept { entries, .. }) if object_of(entries).is_some()
    );
    index > 0 && pieces[index - 1] == Piece::Op(Op::GroupBy) && !things_follow
}
