//! From pieces to a plan: the pieces sorted into the roles they play
//! (measures, groupings, filters, order), then assembled into the semantic
//! plan they describe.

use super::Planned;
use super::attributes::{base_object, nearest, person_attribute, position_attribute, push_unique};
use super::decide::{settle_routes, variant_assumptions};
use super::labels::{attribute_label, label_of, measure_label, plural};
use super::time::{
    DateRange, by_year_if_date, date_attribute, date_condition, day_attribute, group_by_grain,
    is_dated, names_date, year_attribute, year_attribute_reaching, year_condition,
};
use super::words::{Piece, object_of};
use crate::engine::compile::display_attribute;
use crate::engine::grammar::Op;
use crate::engine::graph;
use crate::engine::lexicon::{Concept, Entry, Strength};
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, PlanAssumption, SemanticPlan,
};
use crate::ontology::{Aggregate, AttributeRole, DataType, Ontology};

/// A span that names values: every attribute it may be a value of, with the
/// values it matches there.
#[derive(Debug)]
pub(super) struct ValueMention {
    options: Vec<(AttributeRef, Vec<String>)>,
    text: String,
    /// After "not", "outside", "except": every value but these.
    negated: bool,
}

/// The pieces of one question, sorted into the roles they play.
#[derive(Debug, Default)]
pub(super) struct Reading {
    /// Metrics named outright, with the variant when the words settle it.
    metrics: Vec<(usize, Option<usize>)>,
    /// The only metric came from a word that also names an object ("races"
    /// in "how many races did X win"); a later metric word replaces it.
    weak_metric: bool,
    /// The object the weak metric's word also named.
    weak_object: Option<usize>,
    /// The weak metric's word came right after "how many".
    weak_counted: bool,
    /// Where the weak metric's word was, and where the piece being placed is:
    /// "Grand Prix wins" is one measure, "races did X win" is not.
    weak_at: usize,
    at: usize,
    /// "average quantity": an aggregate of a measure attribute.
    aggregates: Vec<(AttributeRef, Aggregate)>,
    /// A count asked of an object ("how many drivers").
    count_of: Option<usize>,
    /// Variants named apart from their metric ("including sprints").
    variants: Vec<(usize, usize)>,
    /// Each grouping phrase with every attribute it may mean; the one
    /// nearest to what is measured wins.
    groupings: Vec<Vec<AttributeRef>>,
    /// Attributes asked about ("nationality of ...", "which team").
    asked: Vec<AttributeRef>,
    /// Numeric measure attributes named without an aggregate ("how many
    /// units", "discount on average"): summed or averaged, never grouped.
    quantities: Vec<AttributeRef>,
    /// "average" or "on average" anywhere in the question.
    averaged: bool,
    /// Rows named by their key: "order number 1".
    keys: Vec<(usize, i64)>,
    /// "per" named a grouping: with "average", the average is over it.
    per: bool,
    /// "what percentage of", "podium rate": the answer is a share.
    share: bool,
    /// A metric a later one replaced ("races" in "what percentage of
    /// races did X win"): what a share is of.
    displaced: Option<usize>,
    /// Later metric words that also name an attribute ("wins" is also a
    /// standings column), read as metrics only by a share.
    also: Vec<usize>,
    /// Objects mentioned without another role.
    mentioned: Vec<usize>,
    /// Objects mentioned after "all": rolled up, not grouped.
    rolled_up: Vec<usize>,
    /// Values named in the question: for each span, every attribute it may
    /// be a value of, with the matching values; resolved once the plan's
    /// objects are known.
    values: Vec<ValueMention>,
    years: Vec<(Op, i64)>,
    comparison: bool,
    who: bool,
    /// "each of them", "which of those": the question is about what the
    /// chat's last answer counted or listed.
    refers_back: bool,
    /// "which of those", "each of them": the rows the last answer listed.
    partitive: bool,
    when: bool,
    order: Option<bool>,
    limit: Option<u32>,
    only: bool,
    /// "where is X": the location of what X names.
    place: bool,
    /// "by year", "each year", "per year".
    per_year: bool,
    /// "by month", "each month", "monthly".
    per_month: bool,
    /// "by quarter", "weekly", "per day": the date grouped at that grain.
    per_grain: Option<crate::ontology::Grain>,
    /// "growth", "year over year": the measure against an earlier period,
    /// which one when the question says.
    pub(super) growth: Option<Option<crate::ontology::Grain>>,
    /// "running total", "year to date": added up over the periods, starting
    /// again at each period named.
    pub(super) running: Option<Option<crate::ontology::Grain>>,
    /// "second", "P3": finishing positions asked about.
    ordinals: Vec<i64>,
    /// "oldest", "the latest race": the extreme of a date, true for latest.
    extreme: Option<bool>,
    /// The object the extreme word was about.
    extreme_object: Option<usize>,
    /// Ranges of days, with the time word before each.
    dates: Vec<(Op, DateRange)>,
    /// "in descending order": how a list is sorted, true for descending.
    sort: Option<bool>,
    /// Where the one metric so far was typed as a verb ("started"): a
    /// metric right after it ("on pole") is the one meant.
    verb_at: Option<usize>,
    /// Dates named by a verb ("shipped", "ordered"): what a time in the
    /// question is of, never a grouping of their own.
    verb_dates: Vec<AttributeRef>,
    /// Of those, the ones typed as a verb ("born", "shipped").
    dated_by_verb: Vec<AttributeRef>,
    /// The numeric attribute named last, which "over 9000" compares.
    last_quantity: Option<AttributeRef>,
    /// Numeric attributes compared with a number: above it (true) or below.
    compared: Vec<(AttributeRef, bool, i64)>,
    /// Attributes compared with another of the same thing: "received after
    /// the commit date" (true: after or above it).
    against: Vec<(AttributeRef, bool, AttributeRef)>,
    /// "but": what the question excludes is set against what holds.
    contrast: bool,
    /// Where the last concept that named only values was: "German
    /// customers" qualifies the customers by the value before them.
    value_at: Option<usize>,
    /// Where the last attribute asked about was ("what segment and country").
    asked_at: Option<usize>,
    /// "driver nationalities": the object whose attribute the next word names.
    qualifier: Option<usize>,
    /// "he", "his", "there": about the thing the chat's last answer led with.
    refers_to_answer: bool,
    /// "how many more … than …" (true), "how many fewer" (false).
    difference: Option<bool>,
    /// "in which year was it held": the year of what is asked about.
    year_asked: bool,
    /// "which race had the most?": nothing is named after the superlative,
    /// so in a chat it ranks what the last answer measured.
    superlative_last: bool,
    /// "how many" anywhere in the question.
    counts: bool,
    /// "between them", "in total": one figure for all the things named.
    together: bool,
    /// "how many winners": the people a metric's rows name, counted.
    agents_counted: bool,
    /// A negation waits for the value it excludes.
    negate: bool,
    /// A negation that excluded no value ("never won").
    pub(super) dangling_negation: bool,
    /// The metric a negation excluded: "customers who never placed an order".
    negated_metric: Option<usize>,
    /// Things a value right before them qualified ("French customers"),
    /// through which the value's attribute is reached.
    qualified: Vec<usize>,
    /// Where other measures said which things took part, beside one
    /// excluded ("drivers who started a race in 2022 but never scored"):
    /// the excluded measure's object, whose rows they took part through.
    took_part: Option<usize>,
}

impl Reading {
    pub(super) fn of(ontology: &Ontology, pieces: &[Piece]) -> Self {
        let mut reading = Reading::default();
        let mut previous_op: Option<Op> = None;
        let mut grouping = false;
        for (index, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Op(op) => {
                    reading.counts |= *op == Op::Count;
                    match op {
                        // "top 3 nationalities by number of drivers": a
                        // measure after "by" ranks, it does not group.
                        Op::Count | Op::Sum if grouping => grouping = false,
                        Op::Average => {
                            reading.averaged = true;
                            grouping = false;
                        }
                        Op::Share => reading.share = true,
                        Op::Together => reading.together = true,
                        // "how many more", "how much less": a difference.
                        Op::Most | Op::Least
                            if matches!(previous_op, Some(Op::Count | Op::Sum)) =>
                        {
                            reading.difference = Some(*op == Op::Most);
                        }
                        Op::Most | Op::Least => {
                            reading.order = Some(*op == Op::Most);
                            reading.superlative_last = true;
                        }
                        Op::Top => reading.order = reading.order.or(Some(true)),
                        Op::Bottom => reading.order = Some(false),
                        Op::Back => {
                            reading.refers_back = true;
                            continue;
                        }
                        Op::Among => {
                            reading.refers_back = true;
                            reading.partitive = true;
                            continue;
                        }
                        Op::Refer => {
                            reading.refers_to_answer = true;
                            continue;
                        }
                        // "what market segment and country is X in": the
                        // next thing is asked as well.
                        Op::And if index > 0 && reading.asked_at == Some(index - 1) => {
                            previous_op = Some(Op::Which);
                            continue;
                        }
                        Op::Who => reading.who = true,
                        Op::When => reading.when = true,
                        Op::Versus => reading.comparison = true,
                        Op::Only => reading.only = true,
                        Op::Contrast => reading.contrast = true,
                        Op::Where => reading.place = true,
                        Op::Year if grouping => reading.per_year = true,
                        // "and in which year was it held": the year is asked.
                        Op::Year if previous_op == Some(Op::Which) => {
                            reading.year_asked = true;
                        }
                        Op::Month if grouping => reading.per_month = true,
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
                        Op::Month if matches!(previous_op, Some(Op::Most | Op::Least)) => {
                            reading.per_month = true;
                            reading.limit = reading.limit.or(Some(1));
                        }
                        Op::Negation => reading.negate = true,
                        Op::Descending => reading.sort = Some(true),
                        Op::Ascending => reading.sort = Some(false),
                        Op::GroupBy => grouping = true,
                        Op::Per => {
                            grouping = true;
                            reading.per = true;
                        }
                        // "by all drivers": rolled up, not grouped.
                        Op::All => grouping = false,
                        _ => {}
                    }
                    // "how many non-British drivers": the negation qualifies
                    // the value; the count still reaches the drivers.
                    if !(*op == Op::Negation && previous_op == Some(Op::Count)) {
                        previous_op = Some(*op);
                    }
                }
                // "account balance over 9000": the quantity just named, compared.
                Piece::Number(n)
                    if matches!(previous_op, Some(Op::Above | Op::Below))
                        && reading.last_quantity.is_some() =>
                {
                    let attribute = reading.last_quantity.take().expect("checked above");
                    reading.quantities.retain(|q| *q != attribute);
                    reading.asked.retain(|q| *q != attribute);
                    reading
                        .compared
                        .push((attribute, previous_op == Some(Op::Above), *n));
                    previous_op = None;
                }
                Piece::Number(n) => {
                    // "top 5", "which five customers", "5 best".
                    let after_top = matches!(previous_op, Some(Op::Top | Op::Bottom | Op::Which));
                    let before_best = matches!(
                        pieces.get(index + 1),
                        Some(Piece::Op(Op::Most | Op::Least) | Piece::Extreme(_))
                    );
                    if (after_top || before_best) && (1..=1000).contains(n) {
                        reading.limit = Some(*n as u32);
                    } else if (1900..=2100).contains(n) {
                        // "2022 vs 2023" compares two years.
                        let op = match previous_op {
                            Some(Op::Versus) => Op::Versus,
                            other => time_bound(other),
                        };
                        reading.years.push((op, *n));
                    }
                    // "list the 2024 races": the year qualifies what is
                    // listed, which is still what "list" asks for.
                    if !(previous_op == Some(Op::Which) && (1900..=2100).contains(n)) {
                        previous_op = None;
                    }
                }
                Piece::Ordinal(n) => {
                    reading.ordinals.push(*n);
                    previous_op = None;
                }
                Piece::Extreme(latest) => {
                    reading.extreme = Some(*latest);
                    reading.extreme_object = None;
                }
                Piece::Dates(range) => {
                    reading.dates.push((time_bound(previous_op), range.clone()));
                    previous_op = None;
                }
                Piece::Concept {
                    entries,
                    text,
                    scoped,
                } => {
                    reading.superlative_last = false;
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
                    let own_attribute_next = |o: usize| {
                        matches!(pieces.get(index + 1), Some(Piece::Concept { entries: next, .. })
                            if object_of(next).is_none()
                                && next.iter().any(|e| e.strength == Strength::Name
                                    && matches!(e.concept,
                                    Concept::Attribute { object, attribute } if object == o
                                        && ontology.objects[o].attributes[attribute].role
                                            == AttributeRole::Dimension)))
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
                    let asked_before = reading.asked.len();
                    reading.place(
                        ontology,
                        entries,
                        text,
                        *scoped,
                        if measured_by_next { None } else { previous_op },
                        grouping && !value_before_thing,
                    );
                    if only_values(entries) {
                        reading.value_at = Some(index);
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
                        || (only_values(entries) && previous_op == Some(Op::Count));
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
                        .is_some_and(|p| matches!(p, Piece::Op(Op::Count | Op::Most | Op::Least)));
                    if counted {
                        reading.agents_counted = true;
                        reading.count_of = None;
                    } else {
                        reading.who = true;
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

    /// "Grand Prix points, not counting sprints": excluding what one
    /// variant of a measure adds is asking for a variant without it, not
    /// excluding a measure.
    pub(super) fn exclude_a_variant(
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

    /// "received after the commit date", "a retail price above the supply
    /// cost": after a comparison word, an attribute of the thing whose date
    /// or quantity was just named is what that one is compared with.
    fn compares_attributes(&mut self, ontology: &Ontology, entries: &[Entry], op: Op) -> bool {
        let dates = matches!(op, Op::After | Op::Before);
        if !dates && !matches!(op, Op::Above | Op::Below) {
            return false;
        }
        let comparable = |o: usize, a: usize| {
            let attribute = &ontology.objects[o].attributes[a];
            if dates {
                is_dated(attribute)
            } else {
                matches!(attribute.data_type, DataType::Integer | DataType::Decimal)
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

    /// "Customers who never ordered in 1997", "races in 2022 not won by Red
    /// Bull": a condition on anything but the excluded things themselves
    /// applies to the rows excluded. A time applies to the things as well
    /// where the question sets what holds against what does not ("raced in
    /// 2024 but never made the podium that year").
    fn scope_exclusion(&self, ontology: &Ontology, plan: &mut SemanticPlan) {
        let Some(at) = plan
            .filters
            .iter()
            .position(|f| matches!(f.condition, Condition::NotAmong { .. }))
        else {
            return;
        };
        let object = plan.filters[at].attribute.object.clone();
        let is_time = |f: &Filter| {
            ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| a.role == AttributeRole::Time)
        };
        let mut within = Vec::new();
        let mut kept = Vec::new();
        for (i, filter) in std::mem::take(&mut plan.filters).into_iter().enumerate() {
            if i == at || filter.attribute.object == object {
                kept.push(filter);
            } else if is_time(&filter) && self.contrast {
                within.push(filter.clone());
                kept.push(filter);
            } else {
                within.push(filter);
            }
        }
        if let Some(Filter {
            condition: Condition::NotAmong { within: scoped, .. },
            ..
        }) = kept
            .iter_mut()
            .find(|f| matches!(f.condition, Condition::NotAmong { .. }))
        {
            *scoped = within;
        }
        plan.filters = kept;
    }

    fn place(
        &mut self,
        ontology: &Ontology,
        entries: &[Entry],
        text: &str,
        scoped: bool,
        previous_op: Option<Op>,
        grouping: bool,
    ) {
        let metric = entries.iter().find_map(|e| match e.concept {
            Concept::Metric(m) => Some(m),
            _ => None,
        });
        let variant = entries.iter().find_map(|e| match e.concept {
            Concept::Variant { metric, variant } => Some((metric, variant)),
            _ => None,
        });
        let object = object_of(entries);
        let qualifier = self.qualifier.take();
        let attributes = || {
            entries.iter().filter_map(|e| match e.concept {
                Concept::Attribute { object, attribute } => Some((object, attribute)),
                _ => None,
            })
        };
        // "which supplier has the highest account balance": of several
        // things' attributes, the one of a thing the question already named.
        let named = |o: usize| {
            self.count_of == Some(o)
                || self.mentioned.contains(&o)
                || self.weak_object == Some(o)
                || self
                    .asked
                    .iter()
                    .any(|a| a.object == ontology.objects[o].name)
        };
        let attribute = attributes()
            .find(|(o, _)| Some(*o) == qualifier)
            .or_else(|| attributes().find(|(o, _)| named(*o)))
            .or_else(|| attributes().next());
        let values: Vec<(usize, usize, String, Strength)> = entries
            .iter()
            .filter_map(|e| match &e.concept {
                Concept::Value {
                    object,
                    attribute,
                    value,
                } => Some((*object, *attribute, value.clone(), e.strength)),
                _ => None,
            })
            .collect();
        let attribute_ref = |(o, a): (usize, usize)| {
            AttributeRef::new(
                &ontology.objects[o].name,
                &ontology.objects[o].attributes[a].name,
            )
        };
        let display = |o: usize| {
            display_attribute(&ontology.objects[o])
                .map(|a| AttributeRef::new(&ontology.objects[o].name, a))
        };
        let entity = attribute
            .map(attribute_ref)
            .or_else(|| object.and_then(display));

        // "top 5 teams by wins": a metric after "by" ranks, it does not group.
        // So does a word that is also a thing ("top 5 customers by sales")
        // where a ranking still waits for what it ranks by.
        let ranks = metric.is_some()
            && (object.is_none()
                || (self.order.is_some()
                    && self.groupings.is_empty()
                    && (self.metrics.is_empty() || self.weak_metric)));
        if grouping
            && !ranks
            && let Some(entity) = entity
        {
            let mut candidates: Vec<AttributeRef> = entries
                .iter()
                .filter_map(|e| match e.concept {
                    Concept::Attribute { object, attribute } => {
                        Some(attribute_ref((object, attribute)))
                    }
                    Concept::Object(o) => display(o),
                    _ => None,
                })
                .collect();
            if !candidates.contains(&entity) {
                candidates.insert(0, entity);
            }
            self.groupings.push(candidates);
            return;
        }
        // "share of all pit stops": after a share, "all" says what the
        // whole is, which is measured.
        if previous_op == Some(Op::All)
            && !(self.share && metric.is_some())
            && let Some(o) = object
        {
            self.rolled_up.push(o);
            return;
        }
        // "which race": the race itself, even where "races" is also a count;
        // "what was the fastest lap": the result's lap time, where "fastest
        // laps" also counts results.
        let own_attribute = attribute.is_some_and(|(o, a)| {
            ontology.objects[o].attributes[a].role != AttributeRole::Measure
                && metric.is_some_and(|m| ontology.metrics[m].object == ontology.objects[o].name)
        });
        if previous_op == Some(Op::Which)
            && (metric.is_none() || object.is_some() || own_attribute)
            && let Some(entity) = entity.clone()
        {
            self.asked.push(entity);
            return;
        }
        // "how many drivers"; "what percentage of line items": a share of
        // things no metric counts is of how many there are.
        if matches!(previous_op, Some(Op::Count | Op::Share))
            && metric.is_none()
            && let Some(o) = object
        {
            self.count_of = Some(o);
            return;
        }
        // "how many brands", "how many different countries": the number of
        // distinct values of an attribute.
        if previous_op == Some(Op::Count)
            && metric.is_none()
            && object.is_none()
            && values.is_empty()
            && let Some(attribute) = attribute
            && ontology.objects[attribute.0].attributes[attribute.1].role != AttributeRole::Measure
        {
            self.aggregates
                .push((attribute_ref(attribute), Aggregate::CountDistinct));
            return;
        }
        if let Some((m, v)) = variant {
            if self.weak_metric && self.metrics.len() == 1 && self.metrics[0].0 != m {
                // "customers who brought the most net revenue": the metric
                // the variant names is meant; the customers are the subject.
                self.metrics.clear();
                self.weak_metric = false;
                self.mentioned.extend(self.weak_object.take());
            }
            self.variants.push((m, v));
            return;
        }
        // "how many units": a count of a quantity adds it up.
        let counts_quantity = previous_op == Some(Op::Count)
            && attribute.is_some_and(|(o, a)| {
                ontology.objects[o].attributes[a].role == AttributeRole::Measure
            });
        if metric.is_none()
            && let Some(aggregate) = match previous_op {
                Some(Op::Average) => Some(Aggregate::Avg),
                Some(Op::Sum) => Some(Aggregate::Sum),
                _ if counts_quantity => Some(Aggregate::Sum),
                _ => None,
            }
            && let Some((o, a)) = attribute
            && matches!(
                ontology.objects[o].attributes[a].data_type,
                DataType::Integer | DataType::Decimal
            )
        {
            self.aggregates.push((attribute_ref((o, a)), aggregate));
            return;
        }
        if metric.is_some() && values.is_empty() && self.negate {
            // "never won": excluding a measure is not a value filter; the
            // plan excludes the rows the metric counts, where it can.
            self.dangling_negation = true;
            self.negated_metric = self.negated_metric.or(metric);
            self.negate = false;
        }
        // "points in Grands Prix": after "in", a word that is also a metric
        // scopes the measure already named; it is not a second measure.
        if scoped
            && let Some(m) = metric
            && !(self.metrics.is_empty() && self.variants.is_empty())
            && !self.metrics.iter().any(|(x, _)| *x == m)
            && !self.variants.iter().any(|(x, _)| *x == m)
        {
            if let Some(o) = object {
                self.mentioned.push(o);
            }
            return;
        }
        if let Some(m) = metric {
            // "won the most races": once a metric is named, a word that is
            // also an object ("races") is the object, not a second metric.
            let ambiguous = object.is_some() || attribute.is_some();
            let repeated = self.metrics.iter().any(|(x, _)| *x == m);
            // "net revenue on orders": the variant already named the
            // measure, so a word that is also a thing is the thing.
            // Likewise "the fewest units on orders": the quantity is measured.
            if ambiguous
                && self.metrics.is_empty()
                && (self.variants.iter().any(|(x, _)| *x != m) || !self.quantities.is_empty())
                && let Some(o) = object
            {
                self.mentioned.push(o);
                return;
            }
            // "orders from German customers": a thing a value qualifies is
            // what the measure is of, not a second measure.
            if self.weak_metric
                && ambiguous
                && self.value_at.is_some_and(|at| at + 1 == self.at)
                && let Some(o) = object
            {
                self.mentioned.push(o);
                return;
            }
            // "win the most races": after a metric typed as a verb, a thing
            // is what it counts among, not another measure.
            if self.weak_metric
                && self.metrics.len() == 1
                && self.verb_at == Some(self.weak_at)
                && let Some(o) = object
            {
                self.mentioned.push(o);
                return;
            }
            if self.weak_metric && self.metrics.len() == 1 && !repeated {
                // "how many races did Hamilton win": the later metric is meant.
                self.displaced = Some(self.metrics[0].0);
                self.metrics[0] = (m, None);
                // "how many customers ordered": the customers are counted,
                // among the rows the later metric counts.
                // Right after it, a noun qualifies it ("Grand Prix wins" is
                // one measure); a verb ("customers ordered") does not.
                let verb = text.ends_with("ed") || text == "won";
                let modifier = self.at == self.weak_at + 1 && !verb;
                if self.weak_counted && self.count_of.is_none() && !modifier {
                    self.count_of = self.weak_object;
                }
                self.mentioned.extend(self.weak_object.take());
                self.weak_metric = ambiguous;
                self.weak_object = object;
                self.verb_at = typed_as_verb(ontology, m, text).then_some(self.at);
                return;
            }
            if self.verb_at.is_some_and(|at| self.at == at + 1)
                && self.metrics.len() == 1
                && !repeated
            {
                // "started on pole": the verb leads to the measure meant.
                self.metrics[0] = (m, None);
                self.verb_at = None;
                return;
            }
            if self.metrics.is_empty() {
                self.verb_at = typed_as_verb(ontology, m, text).then_some(self.at);
                self.weak_counted = ambiguous && previous_op == Some(Op::Count);
                self.weak_at = self.at;
                self.weak_metric = ambiguous;
                self.weak_object = object;
            }
            if self.metrics.is_empty() || !ambiguous || repeated {
                if !self.metrics.iter().any(|(x, _)| *x == m) {
                    self.metrics.push((m, None));
                }
                return;
            }
            // "customers" as a thing is the subject, not a second metric.
            if object.is_none() {
                self.also.push(m);
            }
        }
        if !values.is_empty() {
            // Whole-value matches beat matches of one word of a value.
            let strongest = values.iter().map(|v| v.3).min().unwrap_or(Strength::Value);
            let mut options: Vec<(AttributeRef, Vec<String>)> = Vec::new();
            for (o, a, value, strength) in &values {
                if *strength != strongest {
                    continue;
                }
                let reference = attribute_ref((*o, *a));
                match options.iter_mut().find(|(r, _)| *r == reference) {
                    Some((_, list)) => list.push(value.clone()),
                    None => options.push((reference, vec![value.clone()])),
                }
            }
            for (_, list) in &mut options {
                list.sort();
                list.dedup();
            }
            self.values.push(ValueMention {
                options,
                text: text.to_owned(),
                negated: std::mem::take(&mut self.negate),
            });
            return;
        }
        // "races" names the object race and its name attribute alike; as a
        // bare mention it is the object.
        let names_object = matches!((object, attribute), (Some(o), Some((ao, _))) if o == ao);
        if let Some((o, a)) = attribute
            && !names_object
        {
            let is_quantity = ontology.objects[o].attributes[a].role == AttributeRole::Measure
                && matches!(
                    ontology.objects[o].attributes[a].data_type,
                    DataType::Integer | DataType::Decimal
                );
            if matches!(
                ontology.objects[o].attributes[a].data_type,
                DataType::Integer | DataType::Decimal
            ) {
                self.last_quantity = Some(attribute_ref((o, a)));
            }
            // "how many nationalities were on the grid": after a measure of
            // another thing, a bare attribute says which rows it is among.
            let measured_elsewhere = self
                .aggregates
                .iter()
                .map(|(r, _)| r.object.as_str())
                .chain(self.count_of.map(|c| ontology.objects[c].name.as_str()))
                .next()
                .is_some_and(|measured| measured != ontology.objects[o].name);
            if measured_elsewhere
                && previous_op.is_none()
                && ontology.objects[o].attributes[a].role == AttributeRole::Dimension
            {
                self.mentioned.push(o);
                return;
            }
            if is_quantity {
                self.quantities.push(attribute_ref((o, a)));
            } else {
                // "shipped", "placed", "does a customer place": a date
                // named outside a grouping says what a time is of.
                if is_dated(&ontology.objects[o].attributes[a]) {
                    self.verb_dates.push(attribute_ref((o, a)));
                    if text.ends_with("ed") || text == "born" {
                        self.dated_by_verb.push(attribute_ref((o, a)));
                    }
                }
                self.asked.push(attribute_ref((o, a)));
            }
            return;
        }
        if let Some(o) = object {
            self.mentioned.push(o);
        }
    }

    /// "What percentage of the 2023 races did Verstappen win": the plan's
    /// measure becomes the part, and the whole is a second metric named (or
    /// displaced) in the question, else the same measure without the
    /// question's value filters ("share of revenue from Europe"). A filter
    /// the whole cannot reach without fanning out applies to the part alone.
    fn as_share(&self, ontology: &Ontology, plan: &mut SemanticPlan) -> Result<(), String> {
        if !self.groupings.is_empty() || self.per_year {
            return Err(
                "Cassis computes a percentage as one figure, not yet per group; ask for one group at a time"
                    .to_owned(),
            );
        }
        let metric = |m: usize| Measure::Metric {
            metric: ontology.metrics[m].name.clone(),
            variant: None,
        };
        let unfiltered = |measure: &Measure| match measure {
            Measure::Metric { metric, .. } => ontology
                .metrics
                .iter()
                .find(|m| m.name == *metric)
                .is_some_and(|m| m.filters.is_empty()),
            _ => true,
        };
        // A date compared with another date ("arrived after the committed
        // date") is a condition on the rows, not the period they fall in.
        let is_time = |filter: &Filter| {
            filter.condition.other_attribute().is_none()
                && ontology
                    .attribute(&filter.attribute.object, &filter.attribute.attribute)
                    .is_some_and(|a| a.role == AttributeRole::Time)
        };
        let second = self
            .displaced
            .or_else(|| self.also.first().copied())
            .map(metric)
            .filter(|m| !plan.measures.contains(m));
        let pair = match (plan.measures.as_slice(), second) {
            ([a, b], _) => Some((a.clone(), b.clone())),
            ([a], Some(b)) if self.displaced.is_some() => Some((a.clone(), b)),
            ([a], Some(b)) => Some((b, a.clone())),
            _ => None,
        };
        // "what percentage of line items arrived late": a count under a
        // condition, of things the question names, is a part of all of them.
        let all_of = |measure: &Measure| {
            let (object, metric) = match measure {
                Measure::DistinctOf { object, metric } => (object.as_str(), metric.as_str()),
                Measure::Metric { metric, .. } => {
                    let m = ontology.metrics.iter().find(|m| m.name == *metric)?;
                    (m.object.as_str(), metric.as_str())
                }
                _ => return None,
            };
            let metric = ontology.metrics.iter().find(|m| m.name == metric)?;
            let named = self
                .count_of
                .iter()
                .chain(&self.mentioned)
                .any(|o| ontology.objects[*o].name == object);
            (named
                && !metric.filters.is_empty()
                && matches!(metric.aggregate, Aggregate::Count | Aggregate::Sum)
                && (metric.object == object || metric.aggregate == Aggregate::Count))
                .then(|| Measure::CountOf {
                    object: object.to_owned(),
                })
        };
        let (part, whole) = match (pair, plan.measures.as_slice()) {
            // The whole is the plain count ("starts", "races"); the part the
            // one with a condition ("wins").
            (Some((a, b)), _) if unfiltered(&a) && !unfiltered(&b) => (b, a),
            (Some(pair), _) => pair,
            // "of the line items shipped by TRUCK, how many were
            // returned": values named before the measure say which things
            // the whole is.
            (None, [part])
                if let Some(whole) = all_of(part)
                    && (!plan.filters.iter().any(|f| !is_time(f))
                        || self.value_at.is_some_and(|at| at < self.weak_at)) =>
            {
                (part.clone(), whole)
            }
            (None, [part]) => (part.clone(), part.clone()),
            _ => {
                return Err(
                    "Cassis could not tell what the percentage is of; name the measure, such as a metric of the ontology"
                        .to_owned(),
                );
            }
        };
        let whole_base = base_object(
            ontology,
            &SemanticPlan {
                measures: vec![whole.clone()],
                ..SemanticPlan::default()
            },
        )
        .unwrap_or_default();
        let reaches = |filter: &Filter| {
            graph::join_tree(ontology, &whole_base, &[filter.attribute.object.as_str()])
                .is_ok_and(|tree| !tree.fans_out())
        };
        let same = part == whole;
        let (shared, only): (Vec<Filter>, Vec<Filter>) = std::mem::take(&mut plan.filters)
            .into_iter()
            .partition(|f| if same { is_time(f) } else { reaches(f) });
        if same && only.is_empty() {
            return Err(
                "Cassis could not tell which part the percentage is of; name it, such as a value (\"from customers in Europe\") or a second metric (\"wins as a percentage of starts\")"
                    .to_owned(),
            );
        }
        plan.filters = shared;
        plan.measures = vec![Measure::Share {
            part: Box::new(part),
            whole: Box::new(whole),
            only,
        }];
        plan.dimensions.clear();
        plan.order = None;
        plan.limit = None;
        Ok(())
    }

    /// "How many more races in 2024 than in 2014": the two values compared
    /// become the two sides of a difference, the first named first ("more")
    /// or second ("fewer", so that the figure is how many fewer). Left a
    /// side-by-side comparison where the plan compares no two values.
    fn as_difference(&self, plan: &mut SemanticPlan, more: bool) {
        let [measure] = plan.measures.as_slice() else {
            return;
        };
        if measure.is_composite() {
            return;
        }
        let Some(at) = plan
            .filters
            .iter()
            .position(|f| matches!(&f.condition, Condition::OneOf(list) if list.len() == 2))
        else {
            return;
        };
        let compared = plan.filters[at].attribute.clone();
        let Condition::OneOf(mut list) = plan.filters[at].condition.clone() else {
            return;
        };
        // Years are sorted when read; the question's order is the years'.
        if let [(_, first), (_, second)] = self.years.as_slice()
            && list.contains(&Literal::Integer(*first))
            && list.contains(&Literal::Integer(*second))
        {
            list = vec![Literal::Integer(*first), Literal::Integer(*second)];
        }
        let others: Vec<&AttributeRef> = plan
            .dimensions
            .iter()
            .filter(|d| !(d.object == compared.object && d.attribute == compared.attribute))
            .collect();
        if !others.is_empty() {
            return;
        }
        let side = |literal: &Literal| {
            vec![Filter {
                attribute: compared.clone(),
                condition: Condition::OneOf(vec![literal.clone()]),
            }]
        };
        let (from, minus) = if more {
            (side(&list[0]), side(&list[1]))
        } else {
            (side(&list[1]), side(&list[0]))
        };
        plan.filters.remove(at);
        plan.dimensions.clear();
        plan.measures = vec![Measure::Difference {
            of: Box::new(measure.clone()),
            from,
            minus,
        }];
    }

    /// "In how many of his 2011 wins did he start from pole", "which of
    /// those wins came from pole": the rows one conditional count counts,
    /// among those another counts (named and replaced, or the chat's last
    /// measure after "those"). The other's conditions, as the plan's
    /// filters; none where either is not a count of the same rows.
    fn counted_among(
        &self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
        plan: &SemanticPlan,
    ) -> Vec<Filter> {
        let index = |name: &str| ontology.metrics.iter().position(|m| m.name == name);
        let [Measure::Metric { metric, .. }] = plan.measures.as_slice() else {
            return Vec::new();
        };
        let last = || match previous.map(|p| p.measures.as_slice()) {
            Some([Measure::Metric { metric, .. }]) if self.refers_back => index(metric),
            _ => None,
        };
        let (Some(m), Some(other)) = (index(metric), self.displaced.or_else(last)) else {
            return Vec::new();
        };
        let (counted, among) = (&ontology.metrics[m], &ontology.metrics[other]);
        let conditional_count = |metric: &crate::ontology::Metric| {
            metric.aggregate == Aggregate::Count && !metric.filters.is_empty()
        };
        if self.share
            || self.difference.is_some()
            || m == other
            || counted.object != among.object
            || !conditional_count(counted)
            || !conditional_count(among)
        {
            return Vec::new();
        }
        among
            .filters
            .iter()
            .map(|text| simple_filter(ontology, &among.object, text))
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    }

    /// Objects the question names, which settle a route they lie on.
    fn named_objects(&self, ontology: &Ontology) -> Vec<String> {
        self.mentioned
            .iter()
            .chain(self.took_part.iter())
            .map(|o| ontology.objects[*o].name.clone())
            .collect()
    }

    /// What a year or a date is read against: the measured or asked-about
    /// object, else what the plan shows or filters, else a mentioned object.
    fn time_anchor(
        &self,
        ontology: &Ontology,
        anchor: Option<&str>,
        plan: &SemanticPlan,
    ) -> Option<String> {
        anchor.map(str::to_owned).or_else(|| {
            plan.dimensions
                .first()
                .map(|d| d.object.clone())
                .or_else(|| plan.filters.first().map(|f| f.attribute.object.clone()))
                .or_else(|| {
                    self.mentioned
                        .first()
                        .map(|o| ontology.objects[*o].name.clone())
                })
        })
    }

    /// Whether a negation of a measure can be planned: as the rows of the
    /// counted or named thing that the metric counts nothing for, where the
    /// metric's object links to that thing directly.
    pub(super) fn excludes_a_measure(&self, ontology: &Ontology) -> bool {
        self.negated_metric
            .is_some_and(|m| self.excluded_of(ontology, m).is_some())
    }

    /// The object whose rows "never <metric>" keeps.
    fn excluded_of(&self, ontology: &Ontology, m: usize) -> Option<usize> {
        let metric = &ontology.metrics[m];
        // A count's rows are what it counts; "never scored a point" keeps
        // the things none of whose rows add to the sum (the compiler
        // excludes the rows that do).
        if !matches!(metric.aggregate, Aggregate::Count | Aggregate::Sum) {
            return None;
        }
        let asked = self
            .asked
            .iter()
            .filter_map(|a| ontology.objects.iter().position(|o| o.name == a.object));
        self.count_of
            .into_iter()
            .chain(asked)
            .chain(self.mentioned.iter().copied())
            .find(|o| {
                let object = &ontology.objects[*o];
                object.primary_key.len() == 1
                    && graph::direct_link(ontology, &metric.object, &object.name).is_some()
            })
    }

    pub(super) fn into_plan(
        mut self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> Planned {
        let mut assumptions = Vec::new();
        // "When was the first race held there?": a new question about the
        // thing the last answer led with, unless it names another of its kind.
        // A name the answer led with; after a lookup ("his nationality:
        // Dutch"), the named thing the lookup was of.
        let names_its_rows = |filter: &Filter| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == filter.attribute.object)
                .and_then(display_attribute)
                == Some(filter.attribute.attribute.as_str())
        };
        let referred = previous
            .and_then(|p| {
                p.answered
                    .as_deref()
                    .cloned()
                    .filter(names_its_rows)
                    .or_else(|| {
                        p.filters
                        .iter()
                        .find(|f| {
                            names_its_rows(f)
                                && matches!(&f.condition, Condition::OneOf(list) if list.len() == 1)
                        })
                        .cloned()
                    })
            })
            .filter(|_| self.refers_to_answer)
            .filter(|f| {
                !self.values.iter().any(|v| {
                    v.options
                        .iter()
                        .any(|(a, _)| a.object == f.attribute.object)
                })
            });
        if let Some(filter) = &referred
            && let Some(o) = ontology
                .objects
                .iter()
                .position(|o| o.name == filter.attribute.object)
            && !self.mentioned.contains(&o)
        {
            self.mentioned.push(o);
        }
        // "customers who never placed an order": the orders are what is
        // excluded, not what is measured.
        let excluded = self
            .negated_metric
            .and_then(|m| self.excluded_of(ontology, m).map(|o| (m, o)));
        if let Some((m, o)) = excluded {
            self.metrics.retain(|(x, _)| *x != m);
            // "How many drivers who started a race in 2022 failed to score":
            // beside the things counted or listed, another measure says
            // which of them took part, as "raced in 2024 but" does.
            let about_them = self.count_of == Some(o)
                || self
                    .asked
                    .iter()
                    .any(|a| a.object == ontology.objects[o].name);
            let took_part: Vec<usize> = self
                .metrics
                .iter()
                .map(|(x, _)| *x)
                .chain(self.displaced)
                .filter(|x| *x != m)
                .collect();
            if about_them && !took_part.is_empty() {
                // The excluded measure's rows ("scored" in results) are the
                // route to the time they took part in.
                let object = &ontology.metrics[m].object;
                self.took_part = ontology.objects.iter().position(|o| o.name == *object);
                self.metrics.clear();
                self.displaced = None;
                self.contrast = true;
                // "drivers who started": who they are is not asked.
                self.who = false;
            }
        }
        // Measures.
        let mut measures: Vec<Measure> = Vec::new();
        for (m, _) in &self.metrics {
            let metric = &ontology.metrics[*m];
            let variant = self
                .variants
                .iter()
                .find(|(vm, _)| vm == m)
                .map(|(_, v)| metric.variants[*v].name.clone());
            measures.push(Measure::Metric {
                metric: metric.name.clone(),
                variant,
            });
        }
        for (vm, v) in &self.variants {
            let metric = &ontology.metrics[*vm];
            if !self.metrics.iter().any(|(m, _)| m == vm) {
                measures.push(Measure::Metric {
                    metric: metric.name.clone(),
                    variant: Some(metric.variants[*v].name.clone()),
                });
            }
        }
        // "how many units have been returned": a metric that sums the very
        // quantity named, under a condition, is that quantity as asked.
        let sums_named = |m: usize| {
            let metric = &ontology.metrics[m];
            self.aggregates.iter().any(|(attribute, aggregate)| {
                *aggregate == metric.aggregate
                    && attribute.object == metric.object
                    && ontology
                        .attribute(&attribute.object, &attribute.attribute)
                        .and_then(|a| a.column_name())
                        .is_some_and(|column| metric.expr.as_deref() == Some(column))
            })
        };
        if self.weak_metric
            && !self.aggregates.is_empty()
            && self.metrics.len() == 1
            && !sums_named(self.metrics[0].0)
        {
            // "total account balance of customers": the customers are the
            // subject, the balance is what is summed.
            measures.clear();
        }
        for (attribute, aggregate) in &self.aggregates {
            if measures.is_empty() {
                measures.push(Measure::Aggregate {
                    attribute: attribute.clone(),
                    aggregate: *aggregate,
                });
            }
        }
        // "did brazilian or argentinian customers buy more units": the
        // customers are whose units are added up, not a count of their own.
        if self.weak_metric
            && self.metrics.len() == 1
            && self.variants.is_empty()
            && self.aggregates.is_empty()
            && self.count_of.is_none()
            && !self.counts
            && let Some(quantity) = self.quantities.first()
            && self
                .weak_object
                .is_some_and(|o| ontology.objects[o].name != quantity.object)
        {
            measures.clear();
        }
        // "How many units were ordered": a quantity named with nothing
        // else to measure is what the question adds up (or averages).
        // "Which 3 circuits sit at the lowest elevation": the things listed,
        // in the order of their own number; nothing is added up.
        let rank_by = self
            .quantities
            .first()
            .filter(|quantity| {
                // "customers" may also have read as their count.
                let only_weak = self.weak_metric
                    && self.metrics.len() == 1
                    && self
                        .weak_object
                        .is_some_and(|o| ontology.objects[o].name == quantity.object);
                (measures.is_empty() || only_weak)
                    && self.count_of.is_none()
                    && self.order.is_some()
                    && !self.averaged
                    && !self.counts
                    && self
                        .mentioned
                        .iter()
                        .chain(self.weak_object.iter())
                        .any(|o| ontology.objects[*o].name == quantity.object)
            })
            .cloned();
        if rank_by.is_some() {
            measures.clear();
        }
        if measures.is_empty()
            && rank_by.is_none()
            && self.count_of.is_none()
            && let Some(quantity) = self.quantities.first()
        {
            measures.push(Measure::Aggregate {
                attribute: quantity.clone(),
                aggregate: if self.averaged {
                    Aggregate::Avg
                } else {
                    Aggregate::Sum
                },
            });
        }
        if measures.is_empty()
            && let Some(o) = self.count_of
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[o].name.clone(),
            });
        }
        // "average pit stop duration": a metric that aggregates the very
        // attribute the same way is the data team's reading of it (its unit).
        for measure in &mut measures {
            if let Measure::Aggregate {
                attribute,
                aggregate,
            } = measure
                && let Some(column) = ontology
                    .attribute(&attribute.object, &attribute.attribute)
                    .and_then(|a| a.column_name())
                && let Some(metric) = ontology.metrics.iter().find(|m| {
                    m.aggregate == *aggregate
                        && m.object == attribute.object
                        && m.filters.is_empty()
                        && m.variants.is_empty()
                        && m.expr.as_deref().is_some_and(|expr| {
                            expr.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                                .any(|token| token == column)
                        })
                })
            {
                *measure = Measure::Metric {
                    metric: metric.name.clone(),
                    variant: None,
                };
            }
        }
        // "How many times has the Monaco Grand Prix been run": counting with
        // only a name given counts the rows the name is of.
        if measures.is_empty()
            && self.counts
            && self.asked.is_empty()
            && let [mention] = self.values.as_slice()
            && let [(attribute, _)] = mention.options.as_slice()
            && let Some(object) = ontology.objects.iter().find(|o| o.name == attribute.object)
            && display_attribute(object) == Some(attribute.attribute.as_str())
        {
            measures.push(Measure::CountOf {
                object: object.name.clone(),
            });
        }
        // "which race had the most?", after "pit stops in 2023": with no
        // measure of its own, the superlative ranks what the chat measured.
        let ranks_last = previous.is_some_and(|p| !p.measures.is_empty())
            && self.superlative_last
            && measures.is_empty()
            && self.count_of.is_none()
            && self.quantities.is_empty()
            && !self.counts;
        // "Which nationality has the most drivers": a superlative over things
        // no metric counts ranks the groups by how many there are.
        if measures.is_empty()
            && !ranks_last
            && self.order.is_some()
            && (!self.asked.is_empty() || !self.groupings.is_empty())
            && let Some(o) = self.mentioned.first()
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[*o].name.clone(),
            });
        }
        // "Which ship mode is used most often": with nothing else named, how
        // many of the rows that hold the attribute have each value.
        if measures.is_empty()
            && !ranks_last
            && self.order.is_some()
            && self.mentioned.is_empty()
            && self.groupings.is_empty()
            && let [asked] = self.asked.as_slice()
        {
            measures.push(Measure::CountOf {
                object: asked.object.clone(),
            });
        }
        // "How many different race winners": the people among the rows the
        // metric counts.
        if self.agents_counted
            && let [Measure::Metric { metric, .. }] = measures.as_slice()
            && let Some(base) = ontology.metrics.iter().find(|m| m.name == *metric)
            && let Some(person) = person_attribute(ontology, &base.object, &self.mentioned)
        {
            measures = vec![Measure::DistinctOf {
                object: person.object,
                metric: metric.clone(),
            }];
        }
        // "How many drivers raced in 2010" asks for drivers; a plan that
        // counts races instead would answer another question.
        if let Some(o) = self.count_of
            && !measures.iter().any(
                |m| matches!(m, Measure::CountOf { object } if *object == ontology.objects[o].name),
            )
            && previous.is_none()
        {
            let counted = &ontology.objects[o];
            // "How many different drivers won for McLaren": the drivers
            // among the rows the metric counts, where its object links to them.
            let linked = |metric: &str| {
                let base = ontology.metrics.iter().find(|m| m.name == metric);
                base.is_some_and(|m| {
                    // "how many line items were returned": the rows the
                    // metric counts are the counted things themselves.
                    m.object == counted.name
                        || graph::direct_link(ontology, &m.object, &counted.name).is_some()
                })
            };
            // "How many drivers took part in a race in 2023": a metric that
            // only counts the rows of its object ("races") names the object
            // the counted things are among, through the conditions on it.
            let counts_rows = |metric: &str| {
                ontology.metrics.iter().any(|m| {
                    m.name == metric
                        && m.aggregate == Aggregate::Count
                        && m.expr.is_none()
                        && m.filters.is_empty()
                        && m.variants.is_empty()
                })
            };
            if let [Measure::Metric { metric, .. }] = measures.as_slice() {
                if linked(metric) {
                    measures = vec![Measure::DistinctOf {
                        object: counted.name.clone(),
                        metric: metric.clone(),
                    }];
                } else if counts_rows(metric) {
                    measures = vec![Measure::CountOf {
                        object: counted.name.clone(),
                    }];
                }
            }
        }
        if let Some(o) = self.count_of
            && !measures.iter().any(|m| match m {
                Measure::CountOf { object } | Measure::DistinctOf { object, .. } => {
                    *object == ontology.objects[o].name
                }
                _ => false,
            })
            && previous.is_none()
        {
            let counted = &ontology.objects[o];
            let label = label_of(&counted.label, &counted.name).to_lowercase();
            return Planned::NotAnswerable(format!(
                "the question counts {} by what they did, which Cassis cannot plan yet; ask for the measure by {label} instead",
                plural(&label)
            ));
        }
        // "how many poles did he have that season": a measure of the thing
        // referred to, in the last question's scope; "when was the first race
        // held there": a new question about it.
        let previous = match &referred {
            Some(_) if measures.is_empty() => None,
            _ => previous,
        };
        // A question with only a variant or filter words refines the last plan.
        let follow_up = previous.is_some()
            && (referred.is_some()
                || self.refers_back
                || measures.is_empty()
                || (self.groupings.is_empty() && !self.who && self.asked.is_empty()));
        // "only for customers in France", after orders by priority: a word
        // that is also a count ("customers") only scopes what was measured.
        let scopes_only = self.weak_metric
            && self.metrics.len() == 1
            && self.variants.is_empty()
            && self.aggregates.is_empty()
            && self.count_of.is_none()
            && !self.counts
            && self.order.is_none()
            && (self.only || !self.values.is_empty());
        let mut plan = match (follow_up, previous) {
            (true, Some(previous)) => {
                let mut plan = previous.clone();
                plan.assumptions.clear();
                if scopes_only && !previous.measures.is_empty() {
                    // The measure stays; the thing named is only a scope.
                } else if !measures.is_empty() {
                    // "how many wins does each of them have", after "how many
                    // Brazilian drivers": one row per driver counted before.
                    if self.partitive
                        && let [Measure::CountOf { object }] = previous.measures.as_slice()
                        && let Some(counted) = ontology.objects.iter().find(|o| o.name == *object)
                        && let Some(name) = display_attribute(counted)
                    {
                        push_unique(
                            &mut plan.dimensions,
                            AttributeRef {
                                object: object.clone(),
                                attribute: name.to_owned(),
                                bucket: None,
                            },
                        );
                    }
                    // "how many drivers were there in 2022", after a
                    // question about one driver: all of them are counted.
                    for measure in &measures {
                        if let Measure::CountOf { object } | Measure::DistinctOf { object, .. } =
                            measure
                        {
                            plan.filters.retain(|f| f.attribute.object != *object);
                        }
                    }
                    // After a lookup, what was shown is not a grouping of
                    // the count now asked ("circuits in Italy" → "how many"),
                    // unless the question is about each of them.
                    if previous.measures.is_empty() && !self.refers_back {
                        plan.dimensions.clear();
                        plan.limit = None;
                    }
                    plan.measures = measures.clone();
                    plan.order = None;
                } else if !self.variants.is_empty() {
                    plan.measures = plan
                        .measures
                        .iter()
                        .map(|m| match m {
                            Measure::Metric { metric, .. } => {
                                match self
                                    .variants
                                    .iter()
                                    .find(|(vm, _)| ontology.metrics[*vm].name == *metric)
                                {
                                    Some((vm, v)) => Measure::Metric {
                                        metric: metric.clone(),
                                        variant: Some(
                                            ontology.metrics[*vm].variants[*v].name.clone(),
                                        ),
                                    },
                                    None => m.clone(),
                                }
                            }
                            other => other.clone(),
                        })
                        .collect();
                }
                // "by month instead": a new grouping replaces the last one.
                if !self.groupings.is_empty()
                    || self.per_year
                    || self.per_month
                    || self.per_grain.is_some()
                {
                    plan.dimensions.clear();
                    plan.order = None;
                }
                // "which race had the most?": the groups are the things it
                // names; the last answer's grouping by anything else goes.
                if ranks_last {
                    let named: Vec<&str> = self
                        .asked
                        .iter()
                        .map(|a| a.object.as_str())
                        .chain(
                            self.mentioned
                                .iter()
                                .map(|o| ontology.objects[*o].name.as_str()),
                        )
                        .collect();
                    if !named.is_empty() {
                        plan.dimensions.retain(|d| {
                            named.contains(&d.object.as_str())
                                && (self.asked.is_empty() || self.asked.contains(d))
                        });
                    }
                    plan.limit = None;
                }
                // "which of those are in BUILDING", after the top 3 clients:
                // the rows the ranking chose, whatever else now changes.
                if self.partitive
                    && let Some(listed) = previous.listed.as_deref()
                    && !plan.filters.iter().any(|f| f.attribute == listed.attribute)
                {
                    plan.filters.push(listed.clone());
                    plan.limit = None;
                }
                plan
            }
            _ => SemanticPlan {
                measures,
                ..SemanticPlan::default()
            },
        };
        plan.answered = None;
        plan.listed = None;
        if let Some(filter) = referred {
            // The last answer's grouping by the thing is now the thing itself.
            plan.dimensions
                .retain(|d| d.object != filter.attribute.object);
            plan.filters.retain(|f| f.attribute != filter.attribute);
            plan.filters.push(filter);
            plan.order = None;
            plan.limit = None;
        }
        plan.filters
            .extend(self.counted_among(ontology, previous, &plan));
        let base = base_object(ontology, &plan);
        let groupings: Vec<AttributeRef> = self
            .groupings
            .iter()
            .map(|candidates| nearest(ontology, base.as_deref(), candidates))
            .collect();

        // Dimensions.
        for grouping in &groupings {
            // "average quantity per order line": per row of what is measured
            // is the plain average, not a group.
            let per_row = self.per
                && base.as_deref() == Some(grouping.object.as_str())
                && ontology
                    .objects
                    .iter()
                    .find(|o| o.name == grouping.object)
                    .and_then(display_attribute)
                    == Some(grouping.attribute.as_str())
                && plan
                    .measures
                    .iter()
                    .all(|m| matches!(m, Measure::Aggregate { .. }));
            if !per_row {
                push_unique(&mut plan.dimensions, grouping.clone());
            }
        }
        // "who finished second": a finishing position of the result nearest
        // to what the question is about.
        let position = (!self.ordinals.is_empty())
            .then(|| position_attribute(ontology, base.as_deref(), &self.mentioned))
            .flatten();
        if !self.ordinals.is_empty() && position.is_none() {
            return Planned::NotAnswerable(
                "the question names a position (such as \"second\"), but nothing it asks about has one in the ontology".to_owned(),
            );
        }
        if let Some(position) = &position {
            plan.filters.retain(|f| f.attribute != *position);
            plan.filters.push(Filter {
                attribute: position.clone(),
                condition: Condition::OneOf(
                    self.ordinals.iter().map(|n| Literal::Integer(*n)).collect(),
                ),
            });
        }
        // "the URL of the 2009 Australian Grand Prix": the race's own URL,
        // not its circuit's; a name of one kind of thing names that thing.
        let named: Vec<usize> = self
            .values
            .iter()
            .filter_map(|v| {
                let (first, _) = v.options.first()?;
                v.options
                    .iter()
                    .all(|(a, _)| a.object == first.object)
                    .then(|| ontology.objects.iter().position(|o| o.name == first.object))
                    .flatten()
            })
            .collect();
        // "when was the Monaco Grand Prix first held": the thing the name is of.
        let first_named = named.first().copied();
        // "his first win": the thing whose time the metric's rows have.
        let dated_by_metric = self.metrics.first().and_then(|(m, _)| {
            let time = year_attribute(ontology, &ontology.metrics[*m].object)?;
            ontology.objects.iter().position(|o| o.name == time.object)
        });
        let extreme_object =
            self.extreme
                .and(self.extreme_object.or(self.mentioned.first().copied()).or(
                    if self.metrics.is_empty() {
                        first_named
                    } else {
                        dated_by_metric
                    },
                ));
        // What "who" and a year are read against when nothing is measured.
        let anchor = base
            .clone()
            .or_else(|| position.as_ref().map(|p| p.object.clone()))
            .or_else(|| extreme_object.map(|o| ontology.objects[o].name.clone()));
        if self.who {
            let person = anchor
                .as_deref()
                .and_then(|b| person_attribute(ontology, b, &self.mentioned));
            match person {
                Some(attribute) => push_unique(&mut plan.dimensions, attribute),
                None if plan.dimensions.is_empty() && self.asked.is_empty() => {
                    return Planned::NotAnswerable(
                        "the question asks who, but the ontology has no person in reach of what it measures".to_owned(),
                    );
                }
                None => {}
            }
        }
        for asked in &self.asked {
            // "which nationality has the most constructors": the
            // constructors' nationality, where several objects have one.
            let own = self
                .mentioned
                .iter()
                .chain(&named)
                .map(|o| &ontology.objects[*o])
                .chain(self.count_of.map(|o| &ontology.objects[o]))
                .find(|o| o.attributes.iter().any(|a| a.name == asked.attribute))
                .filter(|o| {
                    o.name != asked.object
                        && !self
                            .mentioned
                            .iter()
                            .any(|m| ontology.objects[*m].name == asked.object)
                })
                .map(|o| AttributeRef::new(&o.name, &asked.attribute));
            push_unique(&mut plan.dimensions, own.unwrap_or_else(|| asked.clone()));
        }
        // "What discount do we give on average": the one number asked about,
        // averaged, when nothing else is measured.
        if plan.measures.is_empty()
            && self.averaged
            && let [asked] = plan.dimensions.as_slice()
            && ontology
                .attribute(&asked.object, &asked.attribute)
                .is_some_and(|a| matches!(a.data_type, DataType::Integer | DataType::Decimal))
        {
            plan.measures.push(Measure::Aggregate {
                attribute: asked.clone(),
                aggregate: Aggregate::Avg,
            });
            plan.dimensions.clear();
        }
        // "the constructors with the most wins": a ranked measure of another
        // object groups by that object.
        if !plan.measures.is_empty()
            && plan.dimensions.is_empty()
            && !self.who
            && (self.order.is_some() || self.limit.is_some())
            && let Some(base) = base.as_deref()
            && let Some(o) = self.mentioned.iter().find(|o| {
                let name = &ontology.objects[**o].name;
                name != base
                    && graph::join_tree(ontology, base, &[name]).is_ok_and(|t| !t.fans_out())
            })
            && let Some(a) = display_attribute(&ontology.objects[*o])
        {
            plan.dimensions
                .push(AttributeRef::new(&ontology.objects[*o].name, a));
        }
        // "List the circuits in Italy": show the object's names.
        if plan.measures.is_empty()
            && plan.dimensions.is_empty()
            && !self.place
            && let Some(o) = self.mentioned.first().or(self.rolled_up.first())
            && let Some(a) = display_attribute(&ontology.objects[*o])
        {
            plan.dimensions
                .push(AttributeRef::new(&ontology.objects[*o].name, a));
        }

        // Value filters: a new value of an attribute already filtered replaces it.
        let mut value_dimensions = Vec::new();
        let focus: Vec<String> = base
            .iter()
            .cloned()
            .chain(self.count_of.map(|o| ontology.objects[o].name.clone()))
            .chain(plan.dimensions.iter().map(|d| d.object.clone()))
            .chain(
                self.mentioned
                    .iter()
                    .map(|o| ontology.objects[*o].name.clone()),
            )
            .collect();
        for ValueMention {
            options,
            text,
            negated,
        } in &self.values
        {
            // The value of an object the question is about, else the one
            // that joins to it most directly.
            let counted = self.count_of.map(|o| ontology.objects[o].name.as_str());
            let score = |attribute: &AttributeRef| -> usize {
                // "How many drivers won for McLaren": counting things by their
                // own name is rare; the name is another object's.
                if counted == Some(attribute.object.as_str()) && is_a_name(ontology, attribute) {
                    return 500;
                }
                if let Some(i) = focus.iter().position(|f| *f == attribute.object) {
                    return i;
                }
                focus
                    .first()
                    .and_then(|f| graph::join_tree(ontology, f, &[attribute.object.as_str()]).ok())
                    .map_or(1000, |tree| {
                        100 + tree.steps.len() + if tree.fans_out() { 50 } else { 0 }
                    })
            };
            // Among equals: the attribute another value of this question
            // already filters ("Ferrari vs McLaren" are both teams), then the
            // one that names its rows (a team's name before a surname).
            let sibling = |attribute: &AttributeRef| {
                !self.values.iter().any(|other| {
                    other.text != *text && other.options.iter().any(|(a, _)| a == attribute)
                })
            };
            let names_rows = |attribute: &AttributeRef| {
                ontology
                    .objects
                    .iter()
                    .find(|o| o.name == attribute.object)
                    .and_then(display_attribute)
                    != Some(attribute.attribute.as_str())
            };
            let Some((attribute, values)) = options
                .iter()
                .enumerate()
                .min_by_key(|(i, (attribute, _))| {
                    (
                        score(attribute),
                        sibling(attribute),
                        names_rows(attribute),
                        *i,
                    )
                })
                .map(|(_, option)| option)
            else {
                continue;
            };
            let literals: Vec<Literal> = values.iter().cloned().map(Literal::Text).collect();
            if values.len() > 1 {
                assumptions.push(PlanAssumption {
                    text: format!(
                        "\"{text}\" matches several values of {}; using {}",
                        attribute_label(ontology, attribute),
                        values[0]
                    ),
                    options: values.clone(),
                    selected: Some(values[0].clone()),
                });
            }
            let chosen = vec![literals[0].clone()];
            if *negated {
                plan.filters.push(Filter {
                    attribute: attribute.clone(),
                    condition: Condition::NoneOf(chosen),
                });
                continue;
            }
            match plan.filters.iter_mut().find(|f| f.attribute == *attribute) {
                Some(existing) if self.comparison || (!self.only && previous.is_none()) => {
                    if let Condition::OneOf(list) = &mut existing.condition
                        && !list.contains(&chosen[0])
                    {
                        list.push(chosen[0].clone());
                    }
                }
                Some(existing) => existing.condition = Condition::OneOf(chosen),
                None => plan.filters.push(Filter {
                    attribute: attribute.clone(),
                    condition: Condition::OneOf(chosen),
                }),
            }
            value_dimensions.push(attribute.clone());
        }
        if self.comparison && !plan.measures.is_empty() {
            for attribute in value_dimensions {
                let several = plan.filters.iter().any(|f| {
                    f.attribute == attribute
                        && matches!(&f.condition, Condition::OneOf(list) if list.len() > 1)
                });
                // "Hamilton or Verstappen", asked who: the drivers already
                // shown by their names are what is compared.
                let named_already = is_a_name(ontology, &attribute)
                    && ontology
                        .objects
                        .iter()
                        .find(|o| o.name == attribute.object)
                        .and_then(display_attribute)
                        .is_some_and(|shown| {
                            plan.dimensions
                                .contains(&AttributeRef::new(&attribute.object, shown))
                        });
                if several && !named_already {
                    push_unique(&mut plan.dimensions, attribute);
                }
            }
        }

        // "Where is X": the location of the thing X names.
        if self.place && plan.measures.is_empty() {
            let object = plan
                .filters
                .first()
                .map(|f| f.attribute.object.clone())
                .or_else(|| {
                    self.mentioned
                        .first()
                        .map(|o| ontology.objects[*o].name.clone())
                });
            if let Some(object) = object
                .as_deref()
                .and_then(|name| ontology.objects.iter().find(|o| o.name == name))
            {
                for attribute in &object.attributes {
                    let words = attribute.naming_words();
                    if ["location", "city", "address", "place", "country"]
                        .iter()
                        .any(|w| words.contains(w))
                    {
                        push_unique(
                            &mut plan.dimensions,
                            AttributeRef::new(&object.name, &attribute.name),
                        );
                    }
                }
            }
        }

        if let Some((m, o)) = excluded {
            let object = &ontology.objects[o];
            let Some(key) = object
                .attributes
                .iter()
                .find(|a| a.column_name() == Some(object.primary_key[0].as_str()))
            else {
                return Planned::NotAnswerable(format!(
                    "the question excludes {}, but {} has no key attribute to exclude by",
                    ontology.metrics[m].name, object.name
                ));
            };
            // "customers who never placed an order": "placed" names the
            // order's date, which belongs to the excluded rows, not these.
            plan.dimensions.retain(|d| d.object == object.name);
            plan.filters.push(Filter {
                attribute: AttributeRef::new(&object.name, &key.name),
                condition: Condition::NotAmong {
                    metric: ontology.metrics[m].name.clone(),
                    within: Vec::new(),
                },
            });
            // "How many of the 2022 races were not won by Red Bull": the
            // races left are counted.
            if plan.measures.is_empty() && self.counts {
                plan.measures.push(Measure::CountOf {
                    object: object.name.clone(),
                });
                plan.dimensions.clear();
            }
            if plan.measures.is_empty()
                && plan.dimensions.is_empty()
                && let Some(a) = display_attribute(object)
            {
                plan.dimensions.push(AttributeRef::new(&object.name, a));
            }
        }

        // "customers with an account balance over 9000".
        for (attribute, above, n) in &self.compared {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: if *above {
                    Condition::After(Literal::Integer(*n))
                } else {
                    Condition::Before(Literal::Integer(*n))
                },
            });
            if plan.measures.is_empty()
                && plan.dimensions.is_empty()
                && let Some(o) = ontology.objects.iter().find(|o| o.name == attribute.object)
                && let Some(a) = display_attribute(o)
            {
                plan.dimensions.push(AttributeRef::new(&o.name, a));
            }
        }

        // "line items received after their commit date".
        for (attribute, above, other) in &self.against {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: if *above {
                    Condition::AboveAttribute(other.clone())
                } else {
                    Condition::BelowAttribute(other.clone())
                },
            });
        }

        // Keys: the object's one-column primary key, read as an identifier.
        for (o, key) in &self.keys {
            let object = &ontology.objects[*o];
            let Some(attribute) = (object.primary_key.len() == 1)
                .then(|| {
                    object
                        .attributes
                        .iter()
                        .find(|a| a.column_name() == Some(object.primary_key[0].as_str()))
                })
                .flatten()
            else {
                return Planned::NotAnswerable(format!(
                    "the question names {} {key} by number, but the ontology declares no single key for {}",
                    object.name, object.name
                ));
            };
            plan.filters.push(Filter {
                attribute: AttributeRef::new(&object.name, &attribute.name),
                condition: Condition::OneOf(vec![Literal::Integer(*key)]),
            });
        }

        // "What is the name of race 1000 and in which year was it held":
        // the year of the thing shown, beside it; with a measure, per year.
        if self.year_asked
            && let Some(time) = self
                .time_anchor(ontology, anchor.as_deref(), &plan)
                .and_then(|a| year_attribute(ontology, &a))
        {
            let year = by_year_if_date(ontology, time);
            if plan.measures.is_empty() {
                push_unique(&mut plan.dimensions, year);
            } else if !plan.dimensions.contains(&year) {
                // "in which year did he win the most races": the races are
                // what is counted, not a grouping beside the year.
                plan.dimensions
                    .retain(|d| groupings.contains(d) || self.asked.contains(d));
                plan.dimensions.insert(0, year);
            }
        }
        // Years: on the time attribute in reach of what is measured or shown.
        if !self.years.is_empty() {
            let anchor = self.time_anchor(ontology, anchor.as_deref(), &plan);
            // A list or a distinct count may reach its year through many rows.
            let distinct_only = plan.measures.iter().all(|m| {
                matches!(
                    m,
                    Measure::DistinctOf { .. }
                        | Measure::CountOf { .. }
                        | Measure::Aggregate {
                            aggregate: Aggregate::CountDistinct,
                            ..
                        }
                )
            });
            // "shipped by truck in 1996": the date the question names is
            // the one the year is of.
            let named_date = self.asked.iter().find(|a| names_date(ontology, a));
            let time = named_date.cloned().or_else(|| {
                anchor.as_deref().and_then(|a| {
                    year_attribute(ontology, a).or_else(|| {
                        year_attribute_reaching(ontology, a, distinct_only)
                            .filter(|_| distinct_only)
                    })
                })
            });
            let Some(time) = time else {
                return Planned::NotAnswerable(
                    "the question names a year, but nothing it asks about has a date or year in the ontology".to_owned(),
                );
            };
            let condition = year_condition(&self.years);
            let several = matches!(&condition, Condition::OneOf(list) if list.len() > 1);
            plan.filters.retain(|f| f.attribute != time);
            // A list that names the date still shows it ("races in 2024 with
            // their dates"); a measure is not split by it.
            // A verb's date ("born in 1980", "shipped in 1996") says which
            // rows, and is not asked to be shown.
            let shown = named_date.is_some_and(|d| !self.dated_by_verb.contains(d))
                && plan.measures.is_empty();
            plan.dimensions
                .retain(|d| *d != time || groupings.contains(d) || shown);
            plan.filters.push(Filter {
                attribute: time.clone(),
                condition,
            });
            if several && !plan.measures.is_empty() {
                push_unique(&mut plan.dimensions, by_year_if_date(ontology, time));
            }
        }

        // "average discount for items shipped by air": the verb says how they
        // went, not that the measure is split by the day they did.
        if !plan.measures.is_empty() {
            plan.dimensions.retain(|d| {
                !self.verb_dates.contains(d) || self.groupings.iter().any(|g| g.contains(d))
            });
        }

        if self.per_year
            && !plan.measures.is_empty()
            && let Some(time) = base.as_deref().and_then(|a| year_attribute(ontology, a))
        {
            // "orders placed each year": the date is grouped by year, not shown.
            plan.dimensions.retain(|d| {
                !(d.object == time.object && d.attribute == time.attribute && d.bucket.is_none())
            });
            push_unique(&mut plan.dimensions, by_year_if_date(ontology, time));
        }

        // "orders by month": the date grouped by its year and month.
        // The date a time filter already reads is the one to split by
        // ("revenue per month in 1996": the order date, as the year is);
        // else the date called plain "date" ("revenue by month": ordered).
        let filtered_date = plan
            .filters
            .iter()
            .map(|f| &f.attribute)
            .find(|a| a.bucket.is_none() && names_date(ontology, a))
            .cloned();
        if self.per_month
            && !plan.measures.is_empty()
            && let Some(time) =
                filtered_date.or_else(|| base.as_deref().and_then(|a| day_attribute(ontology, a)))
        {
            plan.dimensions
                .retain(|d| !(d.object == time.object && d.attribute == time.attribute));
            push_unique(&mut plan.dimensions, time.by_month());
        }

        if self.when
            && plan.dimensions.is_empty()
            && let Some(time) = base.as_deref().and_then(|b| date_attribute(ontology, b))
        {
            plan.dimensions.push(time);
        }

        // Days: "on 29 November 2015", "in Nov 2015", "since 1995-03-15".
        if !self.dates.is_empty() {
            let anchor = self.time_anchor(ontology, anchor.as_deref(), &plan);
            let Some(day) = anchor.as_deref().and_then(|a| day_attribute(ontology, a)) else {
                return Planned::NotAnswerable(
                    "the question names a date, but nothing it asks about has a date in the ontology".to_owned(),
                );
            };
            plan.filters.retain(|f| f.attribute != day);
            plan.filters.push(Filter {
                attribute: day,
                condition: date_condition(&self.dates),
            });
        }

        if let Some(grain) = self.per_grain.filter(|_| !plan.measures.is_empty()) {
            group_by_grain(ontology, &mut plan, grain, base.as_deref());
        }

        // "customers in the BUILDING segment", "orders placed in Feb 1994":
        // the attribute a value or date filters is named, not grouped by.
        if !plan.measures.is_empty() && !self.comparison {
            let filtered: Vec<AttributeRef> =
                plan.filters.iter().map(|f| f.attribute.clone()).collect();
            plan.dimensions
                .retain(|d| !(filtered.contains(d) && self.asked.contains(d)));
        }

        // "What was the last Grand Prix Kimi Räikkönen won", "when did
        // Hamilton win his first race": not a count at that date but the
        // race itself, among the rows the count would count.
        if self.extreme.is_some()
            && !self.counts
            && !self.averaged
            && !self.who
            && let Some(o) = extreme_object
            && let [Measure::Metric { metric, .. }] = plan.measures.as_slice()
            && let Some(metric) = ontology.metrics.iter().find(|m| m.name == *metric)
            && metric.aggregate == Aggregate::Count
            && metric.object != ontology.objects[o].name
            && let Some(conditions) = metric
                .filters
                .iter()
                .map(|f| simple_filter(ontology, &metric.object, f))
                .collect::<Option<Vec<Filter>>>()
        {
            plan.measures.clear();
            // What the question asks to see of it stays ("order number and
            // date").
            plan.dimensions.retain(|d| self.asked.contains(d));
            plan.order = None;
            plan.filters.extend(conditions);
        }

        // "The oldest driver", "the first race of 2009": rows by a date,
        // earliest or latest first, one unless a number says how many.
        if let Some(latest) = self.extreme
            && plan.measures.is_empty()
            && let Some(o) = extreme_object
            && let Some(date) = date_attribute(ontology, &ontology.objects[o].name)
        {
            if plan.dimensions.is_empty()
                && let Some(a) = display_attribute(&ontology.objects[o])
            {
                plan.dimensions
                    .push(AttributeRef::new(&ontology.objects[o].name, a));
            }
            push_unique(&mut plan.dimensions, date.clone());
            let index = plan
                .dimensions
                .iter()
                .position(|d| *d == date)
                .unwrap_or_default();
            plan.order = Some(Order::Dimension {
                index,
                descending: latest,
            });
            plan.limit = Some(self.limit.unwrap_or(1));
            plan.assumptions = assumptions;
            return Planned::Plan(plan);
        }

        // "Races in the latest season", "who won the most recent race": the
        // measure at the latest value, among the rows it measures.
        if let Some(latest) = self.extreme
            && !plan.measures.is_empty()
            && let Some(o) = extreme_object
        {
            let name = &ontology.objects[o].name;
            // A race's own date, a season's year: the finest grain it has.
            let Some(time) =
                date_attribute(ontology, name).or_else(|| year_attribute(ontology, name))
            else {
                return Planned::NotAnswerable(format!(
                    "the question asks for the {} {name}, but it has no date or year in the ontology",
                    if latest { "latest" } else { "earliest" }
                ));
            };
            // "the latest season" among seasons with results: a season the
            // measured rows reach only through their race is read on the
            // race's own year, which the rows link to.
            let (time, among) = match base.as_deref() {
                Some(b) if graph::direct_link(ontology, b, &time.object).is_none() => ontology
                    .objects
                    .iter()
                    .filter(|between| {
                        graph::direct_link(ontology, b, &between.name).is_some()
                            && graph::direct_link(ontology, &between.name, name).is_some()
                    })
                    .find_map(|between| {
                        year_attribute(ontology, &between.name)
                            .filter(|year| year.object == between.name)
                    })
                    .map_or((time, None), |year| (year, Some(b.to_owned()))),
                Some(b) => (time, Some(b.to_owned())),
                None => (time, None),
            };
            plan.filters.retain(|f| f.attribute != time);
            plan.filters.push(Filter {
                attribute: time,
                condition: Condition::Extreme { latest, among },
            });
        }

        // "Average points per race": a sum or count per race, averaged.
        if self.averaged
            && self.per
            && let [measure] = plan.measures.as_slice()
            && adds_up(ontology, measure)
            && let [per] = plan.dimensions.as_slice()
        {
            plan.measures = vec![Measure::AveragePer {
                of: Box::new(measure.clone()),
                per: per.clone(),
            }];
            plan.dimensions.clear();
            plan.order = None;
            plan.limit = None;
            assumptions.extend(variant_assumptions(ontology, &plan.measures));
            plan.assumptions = assumptions;
            settle_routes(ontology, &mut plan, &self.named_objects(ontology));
            return Planned::Plan(plan);
        }
        if self.share {
            // The route is settled on the plan as asked, before its filters
            // are split between the part and the whole.
            plan.assumptions = assumptions;
            settle_routes(ontology, &mut plan, &self.named_objects(ontology));
            if let Err(reason) = self.as_share(ontology, &mut plan) {
                return Planned::NotAnswerable(reason);
            }
            let stated = variant_assumptions(ontology, &plan.measures);
            plan.assumptions.extend(stated);
            return Planned::Plan(plan);
        }

        self.scope_exclusion(ontology, &mut plan);
        if let Some(more) = self.difference {
            self.as_difference(&mut plan, more);
        }

        if let Some(quantity) = rank_by
            && plan.measures.is_empty()
            && let Some(descending) = self.order
        {
            if plan.dimensions.is_empty()
                && let Some(object) = ontology.objects.iter().find(|o| o.name == quantity.object)
                && let Some(name) = display_attribute(object)
            {
                plan.dimensions.push(AttributeRef::new(&object.name, name));
            }
            push_unique(&mut plan.dimensions, quantity.clone());
            let index = plan
                .dimensions
                .iter()
                .position(|d| *d == quantity)
                .unwrap_or_default();
            plan.order = Some(Order::Dimension { index, descending });
            plan.limit = self.limit;
            plan.assumptions = assumptions;
            return Planned::Plan(plan);
        }
        // "who finished second most often": the results in that position,
        // counted.
        if self.order.is_some()
            && self.sort.is_none()
            && plan.measures.is_empty()
            && !plan.dimensions.is_empty()
            && let Some(position) = &position
        {
            plan.measures.push(Measure::CountOf {
                object: position.object.clone(),
            });
        }
        // "Which customers spent the most": a ranking by nothing it can
        // measure would be a list in an order that means nothing.
        if self.order.is_some() && self.sort.is_none() && plan.measures.is_empty() {
            return Planned::NotAnswerable(
                "the question ranks by something it does not name as a measure; name a metric to rank by (such as one listed in the ontology)".to_owned(),
            );
        }
        // "Top 5 customers" with nothing to rank them by is one number, and
        // a limit on one number is a limit dropped.
        if self.limit.is_some_and(|n| n > 1) && plan.dimensions.is_empty() {
            return Planned::NotAnswerable(
                "the question asks for a top few, but names nothing to rank them by; name a metric (such as one listed in the ontology)".to_owned(),
            );
        }
        // Order and limit.
        if let Some(descending) = self.order.or(self.sort) {
            plan.order = if plan.measures.is_empty() {
                Some(Order::Dimension {
                    index: 0,
                    descending,
                })
            } else {
                Some(Order::Measure {
                    index: 0,
                    descending,
                })
            };
        }
        if let Some(limit) = self.limit {
            plan.limit = Some(limit);
        }

        if plan.measures.is_empty() && plan.dimensions.is_empty() {
            return Planned::NotAnswerable(
                "Cassis could not find anything to measure or show in this question; name a metric (such as one listed in the ontology) or what to list".to_owned(),
            );
        }

        // Assumptions the answer states.
        assumptions.extend(variant_assumptions(ontology, &plan.measures));
        if let Some(measure) = plan.measures.first() {
            let label = measure_label(ontology, measure);
            for o in &self.rolled_up {
                let object = &ontology.objects[*o];
                let per = plan
                    .dimensions
                    .first()
                    .map(|d| format!(" per {}", attribute_label(ontology, d).to_lowercase()))
                    .unwrap_or_default();
                assumptions.push(PlanAssumption::stated(format!(
                    "{label} rolled up across all {}{per}",
                    plural(&label_of(&object.label, &object.name).to_lowercase())
                )));
            }
        }
        plan.assumptions = assumptions;
        // "how many races did those German drivers win between them": one
        // figure, whatever the last answer or the names split it by.
        if self.together && !plan.measures.is_empty() && self.groupings.is_empty() {
            plan.dimensions.clear();
            plan.order = None;
            plan.limit = None;
        }
        // "drivers who raced in 2021 but": the rows they took part through
        // are the way to the time, whatever else reaches it.
        // "orders from French customers": the customers' own nation, where
        // the thing looks the value's attribute up ("Red Bull's drivers"
        // have no team of their own, so nothing is routed through them).
        let looks_up_a_filter = |o: &usize| {
            let name = &ontology.objects[*o].name;
            plan.filters.iter().any(|f| {
                f.attribute.object != *name
                    && !graph::routes(ontology, name, &f.attribute.object).is_empty()
            })
        };
        let qualified = self.qualified.iter().filter(|o| looks_up_a_filter(o));
        for o in self.took_part.iter().chain(qualified) {
            let name = &ontology.objects[*o].name;
            if !plan.via.contains(name) {
                plan.via.push(name.clone());
            }
        }
        settle_routes(ontology, &mut plan, &self.named_objects(ontology));
        Planned::Plan(plan)
    }
}

/// A concept that is only values ("German", "Ferrari").
fn only_values(entries: &[Entry]) -> bool {
    entries
        .iter()
        .all(|e| matches!(e.concept, Concept::Value { .. }))
}

/// An attribute that names its rows: the display attribute, or one whose
/// name or label says "name" (a first or last name).
fn is_a_name(ontology: &Ontology, reference: &AttributeRef) -> bool {
    let Some(object) = ontology.objects.iter().find(|o| o.name == reference.object) else {
        return false;
    };
    display_attribute(object) == Some(reference.attribute.as_str())
        || object
            .attributes
            .iter()
            .find(|a| a.name == reference.attribute)
            .is_some_and(|a| {
                format!("{} {}", a.name, a.label)
                    .to_lowercase()
                    .contains("name")
            })
}

/// A measure that adds up over rows (a count or a sum), so that an average
/// of it per group means something other than the measure itself.
fn adds_up(ontology: &Ontology, measure: &Measure) -> bool {
    match measure {
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .is_some_and(|m| {
                matches!(
                    m.aggregate,
                    Aggregate::Count | Aggregate::CountDistinct | Aggregate::Sum
                )
            }),
        Measure::CountOf { .. } | Measure::DistinctOf { .. } => true,
        Measure::Aggregate { aggregate, .. } => {
            matches!(aggregate, Aggregate::Count | Aggregate::Sum)
        }
        Measure::AveragePer { .. }
        | Measure::Share { .. }
        | Measure::Difference { .. }
        | Measure::Growth { .. }
        | Measure::Cumulative { .. } => false,
    }
}

/// How the word before a year or a date bounds it: "since", "until",
/// "between … and"; anything else means that year or day only.
/// A metric's filter of the form `column op literal` ("position = 1",
/// "grid <= 3") as a plan filter on the metric's object; `None` for anything
/// else, which only the metric's own SQL can say.
fn simple_filter(ontology: &Ontology, object: &str, filter: &str) -> Option<Filter> {
    let [column, op, literal] = filter.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let attribute = ontology
        .objects
        .iter()
        .find(|o| o.name == object)?
        .attributes
        .iter()
        .find(|a| a.column_name() == Some(column))?;
    let literal = match literal.parse::<i64>() {
        Ok(n) => Literal::Integer(n),
        Err(_) => Literal::Text(
            literal
                .strip_prefix('\'')?
                .strip_suffix('\'')?
                .replace("''", "'"),
        ),
    };
    let condition = match op {
        "=" => Condition::OneOf(vec![literal]),
        "<=" => Condition::AtMost(literal),
        ">=" => Condition::AtLeast(literal),
        _ => return None,
    };
    Some(Filter {
        attribute: AttributeRef::new(object, &attribute.name),
        condition,
    })
}

fn time_bound(previous: Option<Op>) -> Op {
    match previous {
        Some(
            op @ (Op::Since
            | Op::After
            | Op::Before
            | Op::Until
            | Op::Between
            | Op::From
            | Op::To
            | Op::And),
        ) => op,
        _ => Op::Only,
    }
}

/// "started", or "start" where the metric is "starts": a metric named by
/// its verb, which another metric right after it may complete.
fn typed_as_verb(ontology: &Ontology, metric: usize, text: &str) -> bool {
    let bare = ontology.metrics[metric].name.strip_suffix('s') == Some(text);
    let verb = |word: &str| word.len() > 4 && word.ends_with("ed");
    // "races started": the things, then what they did ("quantity
    // shipped" names a quantity, not things).
    let things_then_verb = text.rsplit_once(' ').is_some_and(|(things, last)| {
        let one = things.strip_suffix('s').unwrap_or(things);
        verb(last)
            && ontology.objects.iter().any(|o| {
                std::iter::once(&o.name)
                    .chain(std::iter::once(&o.label))
                    .chain(&o.synonyms)
                    .any(|n| n.eq_ignore_ascii_case(things) || n.eq_ignore_ascii_case(one))
            })
    });
    (!text.contains(' ') && (verb(text) || bare)) || things_then_verb
}
