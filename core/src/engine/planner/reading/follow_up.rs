//! What a question takes from the chat's last plan: the thing the last
//! answer led with ("there", "his"), the plan it refines, the rows it
//! counted among.

use super::measures::Measured;
use super::{
    Reading, display_of, distinct_things, is_display, is_one_text_value, simple_filter,
    things_counted,
};
use crate::engine::compile::display_attribute;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Condition, Filter, Measure, Order, SemanticPlan};
use crate::engine::planner::attributes::{is_person, push_unique};
use crate::engine::planner::time::names_row_time;
use crate::ontology::{Aggregate, AttributeRole, Ontology};

/// Whether the chat's last plan was about one thing it named and showed
/// ("the account balance of Customer#000000125"), or ranked things to lead
/// with one ("which customer has the highest balance"), so that "they" next
/// is that thing, as "he" would be; after a list or a top few, "they" are
/// all of them.
pub(in crate::engine::planner) fn about_one_named_thing(
    ontology: &Ontology,
    previous: &SemanticPlan,
) -> bool {
    let named = previous.filters.iter().any(|f| {
        is_display(ontology, &f.attribute)
            && previous.dimensions.contains(&f.attribute)
            && matches!(&f.condition, Condition::OneOf(list) if list.len() == 1)
    });
    // Ranked by an amount, not listed in an order ("in order of round").
    let ranked = match previous.order {
        Some(Order::Measure { .. }) => true,
        Some(Order::Dimension { index, .. }) => previous.dimensions.get(index).is_some_and(|d| {
            ontology
                .attribute(&d.object, &d.attribute)
                .is_some_and(|a| a.role == AttributeRole::Measure)
        }),
        None => false,
    };
    let led_with = ranked
        && previous
            .answered
            .as_ref()
            .is_some_and(|a| is_display(ontology, &a.attribute));
    previous.limit.is_none_or(|n| n <= 1) && (named || led_with)
}

/// The object whose rows the last plan's one amount (an average, a sum,
/// not a count) was taken over, overall rather than per group, which "how
/// many of those" counts. (An amount of one attribute, with no metric, is
/// counted by the measures' own reading.)
fn counts_among_amounts(ontology: &Ontology, previous: &SemanticPlan) -> Option<String> {
    let [Measure::Metric { metric, .. }] = previous.measures.as_slice() else {
        return None;
    };
    let metric = ontology.metrics.iter().find(|m| m.name == *metric)?;
    let amount = metric.kind == crate::ontology::MetricKind::Simple
        && metric.filters.is_empty()
        && !matches!(
            metric.aggregate,
            Aggregate::Count | Aggregate::CountDistinct
        );
    (amount && previous.dimensions.is_empty()).then(|| metric.object.clone())
}

/// The things a plan is about, what it counts first, then what it groups
/// by: the objects a follow-up's ambiguous attribute most likely belongs to.
pub(in crate::engine::planner) fn things_of(
    ontology: &Ontology,
    plan: &SemanticPlan,
) -> Vec<usize> {
    let index = |name: &str| ontology.objects.iter().position(|o| o.name == name);
    let counted = plan.measures.iter().filter_map(|m| match m {
        Measure::CountOf { object } | Measure::DistinctOf { object, .. } => index(object),
        _ => None,
    });
    let grouped = plan.dimensions.iter().filter_map(|d| index(&d.object));
    let mut things: Vec<usize> = Vec::new();
    for thing in counted.chain(grouped) {
        if !things.contains(&thing) {
            things.push(thing);
        }
    }
    things
}

impl Reading {
    /// "And the earliest?" after the latest race held there: the last plan
    /// from its other end in time, when the question names nothing else.
    pub(super) fn other_end(
        &self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> Option<SemanticPlan> {
        let latest = self.extreme?;
        if self.grounds_anything()
            || self.extreme_object.is_some()
            || self.negate
            || self.limit.is_some()
            || !self.ordinals.is_empty()
            || !self.months.is_empty()
        {
            return None;
        }
        let previous = previous?;
        if previous.offset.is_some() {
            return None;
        }
        let Some(Order::Dimension { index, descending }) = previous.order else {
            return None;
        };
        let by = previous.dimensions.get(index)?;
        let in_time = ontology
            .attribute(&by.object, &by.attribute)
            .is_some_and(|a| a.role == AttributeRole::Time);
        if !in_time || descending == latest || previous.limit.is_none() {
            return None;
        }
        let mut plan = previous.clone();
        plan.order = Some(Order::Dimension {
            index,
            descending: latest,
        });
        plan.answered = None;
        Some(plan)
    }

    /// "And who was second on that list?" after a ranking: the row at that
    /// place in it, when the question names nothing else.
    pub(super) fn place_on_list(&self, previous: Option<&SemanticPlan>) -> Option<SemanticPlan> {
        let [place] = self.ordinals.as_slice() else {
            return None;
        };
        if self.grounds_anything()
            || self.ordinal_of.is_some()
            || self.extreme.is_some()
            || self.order.is_some()
            || self.negate
        {
            return None;
        }
        let previous = previous?;
        if !matches!(previous.order, Some(Order::Measure { .. }))
            || previous.offset.is_some()
            || !previous.limit_within.is_empty()
        {
            return None;
        }
        let offset = u32::try_from(*place).ok()?.checked_sub(1)?;
        if offset == 0 || previous.limit.is_some_and(|limit| limit <= offset) {
            return None;
        }
        let mut plan = previous.clone();
        plan.offset = Some(offset);
        plan.limit = Some(1);
        plan.answered = None;
        Some(plan)
    }

    /// The filter on the thing the chat\'s last answer led with, when the
    /// question refers to it ("he", "there"); the thing is then mentioned.
    pub(super) fn referred(
        &mut self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> Option<Filter> {
        // "When was the first race held there?": a new question about the
        // thing the last answer led with, unless it names another of its kind.
        // A name the answer led with; after a lookup ("his nationality:
        // Dutch"), the named thing the lookup was of.
        let names_its_rows = |filter: &Filter| is_display(ontology, &filter.attribute);
        // "Which of its brands has the most parts?" → "the average retail
        // price of that brand's parts": the brand the answer led with.
        if let Some((o, a)) = self.demonstrated_value
            && let Some(answered) = previous.and_then(|p| p.answered.as_deref())
            && answered.attribute.object == ontology.objects[o].name
            && answered.attribute.attribute == ontology.objects[o].attributes[a].name
        {
            if !self.mentioned.contains(&o) {
                self.mentioned.push(o);
            }
            return Some(answered.clone());
        }
        // "Which customer placed the most orders?" → "what nation is that
        // customer from?": the one the answer led with, as "he" would be.
        if let Some(object) = self.demonstrated
            && previous
                .and_then(|p| p.answered.as_deref())
                .is_some_and(|a| a.attribute.object == ontology.objects[object].name)
        {
            self.refers_to_answer = true;
        }
        // "how were those wins split between their drivers?", after which
        // team won the most: the drivers of the one team the answer led
        // with. Not after a top few, whose "their" is all of them.
        // "How many days late were those deliveries on average?", after
        // which ship mode had the most: the deliveries of the mode the
        // answer led with, a value of theirs rather than one of them.
        if let Some(object) = self.possessed
            && let Some(previous) = previous
            && previous.limit.is_none_or(|n| n <= 1)
            && previous.answered.as_deref().is_some_and(|a| {
                a.attribute.object != ontology.objects[object].name
                    || (!is_display(ontology, &a.attribute)
                        && matches!(previous.order, Some(Order::Measure { .. })))
            })
        {
            self.refers_to_answer = true;
        }
        let referred = previous
            .and_then(|p| {
                // "which of them has it cheapest", after the suppliers of
                // a part: "them" are the rows, so "it" is not the first.
                // "Which shipping method had the most late deliveries?" →
                // "what percentage of its line items arrived late?": the
                // group a ranking led with, though not a thing's name.
                let led_ranking = |f: &Filter| {
                    matches!(p.order, Some(Order::Measure { .. }))
                        && p.dimensions.first() == Some(&f.attribute)
                };
                p.answered
                    .as_deref()
                    .cloned()
                    // "how many of those did he turn into wins": "he" is the
                    // person a ranking of people led with.
                    .filter(|f| {
                        !self.partitive
                            || (self.refers_to_person
                                && ontology
                                    .objects
                                    .iter()
                                    .find(|o| o.name == f.attribute.object)
                                    .is_some_and(is_person))
                    })
                    .filter(|f| names_its_rows(f) || led_ranking(f))
                    .or_else(|| {
                        p.filters
                        .iter()
                        .find(|f| {
                            names_its_rows(f)
                                && matches!(&f.condition, Condition::OneOf(list) if list.len() == 1)
                        })
                        .cloned()
                    })
                    // "held at Silverstone" → "who has won there the most":
                    // the one place the last question named, by any of its
                    // attributes.
                    .or_else(|| {
                        let mut single = p.filters.iter().filter(|f| is_one_text_value(f));
                        match (single.next(), single.next()) {
                            (Some(only), None) => Some(only.clone()),
                            _ => None,
                        }
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
        // "the 2022 Hungarian GP" → "who had the slowest stop there": the
        // one race is its name and its year.
        if let (Some(filter), Some(previous)) = (&referred, previous) {
            self.referred_also = previous
                .filters
                .iter()
                .filter(|f| {
                    f.attribute.object == filter.attribute.object
                        && f.attribute != filter.attribute
                        && matches!(&f.condition, Condition::OneOf(list) if list.len() == 1)
                })
                .cloned()
                .collect();
        }
        referred
    }

    /// "how many suppliers are based in japan?" → "which of those has the
    /// highest account balance?": an attribute several things have is the
    /// one of the things the last answer counted.
    pub(super) fn read_on_those(&mut self, ontology: &Ontology, previous: Option<&SemanticPlan>) {
        if !(self.partitive || self.refers_back) {
            return;
        }
        // Or those it listed: "which of them has the highest balance",
        // after the suppliers were listed with theirs.
        let Some(counted) = previous.and_then(|p| {
            p.measures
                .iter()
                .find_map(|m| match m {
                    Measure::CountOf { object } | Measure::DistinctOf { object, .. } => {
                        Some(object)
                    }
                    _ => None,
                })
                .or_else(|| {
                    p.measures
                        .is_empty()
                        .then(|| p.dimensions.iter().find(|d| is_display(ontology, d)))
                        .flatten()
                        .map(|d| &d.object)
                })
        }) else {
            return;
        };
        let Some(object) = ontology.objects.iter().find(|o| o.name == *counted) else {
            return;
        };
        for attribute in self.quantities.iter_mut().chain(self.asked.iter_mut()) {
            if attribute.object != object.name
                && object
                    .attributes
                    .iter()
                    .any(|a| a.name == attribute.attribute)
            {
                attribute.object = object.name.clone();
            }
        }
    }

    /// The plan this question starts from: the last one refined (a
    /// follow-up) or a new one with the measures read.
    pub(super) fn carry_over(
        &self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
        referred: Option<Filter>,
        measured: Measured,
    ) -> SemanticPlan {
        let Measured {
            measures,
            ranks_last,
            rank_by,
            ..
        } = measured;
        // "When was the most recent race at Mugello?", after races per
        // circuit: a thing of its own, found by its time, asks afresh.
        let own_lookup = self.when
            && self.extreme.is_some()
            && self.extreme_object.is_some()
            && !self.values.is_empty();
        // A question with only a variant or filter words refines the last plan.
        let follow_up = previous.is_some()
            && (referred.is_some()
                || self.refers_back
                || self.adds
                || self.continues
                || (!own_lookup
                    && (measures.is_empty()
                        || (self.groupings.is_empty() && !self.who && self.asked.is_empty()))));
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
                // "Which team did Vettel drive for in 2015?" → "How many
                // podiums did that team collect that season?": the team is
                // what is asked about now; the driver only found it.
                if let (Some(o), Some(filter)) = (self.demonstrated, referred.as_ref())
                    && filter.attribute.object == ontology.objects[o].name
                    && previous.answered.as_deref() == Some(filter)
                {
                    // Only a person who found it: a place ("at Monaco")
                    // still says where.
                    let found_it = |f: &Filter| {
                        f.attribute.object != filter.attribute.object
                            && is_display(ontology, &f.attribute)
                            && is_one_text_value(f)
                            && ontology
                                .objects
                                .iter()
                                .find(|o| o.name == f.attribute.object)
                                .is_some_and(is_person)
                    };
                    plan.filters.retain(|f| !found_it(f));
                }
                // "which track hosted the opening race of 2005?" → "how
                // many Grands Prix has it held in total?": the season only
                // picked out the race that found the track; the track is
                // asked about now, at any time.
                // "Who made the quickest pit stop?" → "How many stops did
                // he make in that race?": the extreme only found him; his
                // stops are asked about now.
                // "On which lap did he make it?" still asks of that stop.
                if self.refers_to_person
                    && (self.counts || !measures.is_empty())
                    && let Some(filter) = referred.as_ref()
                    && previous.answered.as_deref() == Some(filter)
                    && ontology
                        .objects
                        .iter()
                        .find(|o| o.name == filter.attribute.object)
                        .is_some_and(is_person)
                {
                    let extremes: Vec<AttributeRef> = plan
                        .filters
                        .iter()
                        .filter(|f| matches!(f.condition, Condition::Extreme { .. }))
                        .map(|f| f.attribute.clone())
                        .collect();
                    if !extremes.is_empty() {
                        plan.filters.retain(|f| {
                            !extremes.contains(&f.attribute)
                                || !matches!(
                                    f.condition,
                                    Condition::Extreme { .. } | Condition::Present
                                )
                        });
                        // What was shown of the stop that found him goes too.
                        plan.dimensions
                            .retain(|d| !extremes.iter().any(|e| e.object == d.object));
                        plan.order = None;
                        plan.limit = None;
                    }
                }
                // Only when the question says so ("in total", "ever"):
                // "who started on pole there?" is of that race.
                let by_row_time = matches!(previous.order, Some(Order::Dimension { index, .. })
                    if previous.dimensions.get(index).is_some_and(|d| names_row_time(ontology, d)));
                if let Some(filter) = referred.as_ref()
                    && (self.together || self.ever)
                    && previous.answered.as_deref() == Some(filter)
                    && previous.measures.is_empty()
                    && previous.limit == Some(1)
                    && by_row_time
                    && !self.same_time
                    && self.years.is_empty()
                    && self.dates.is_empty()
                {
                    let dated = |d: &AttributeRef| {
                        d.object != filter.attribute.object && names_row_time(ontology, d)
                    };
                    plan.filters.retain(|f| !dated(&f.attribute));
                    plan.dimensions.retain(|d| !dated(d));
                    plan.order = None;
                    plan.limit = None;
                }
                if scopes_only && !previous.measures.is_empty() {
                    // The measure stays; the thing named is only a scope.
                } else if !measures.is_empty() {
                    // "how many of them won at least one race", after "how
                    // many Brazilian drivers": the drivers counted again,
                    // those with a win.
                    // So are customers counted by a metric that counts
                    // every customer, after "how many customers in Japan".
                    let counted_before = match previous.measures.as_slice() {
                        [measure] => things_counted(ontology, measure),
                        _ => None,
                    };
                    let counted_again = match (counted_before, measures.as_slice()) {
                        (Some(object), [Measure::Metric { metric, .. }])
                            if self.counts_among && previous.measures != measures =>
                        {
                            Some(Measure::DistinctOf {
                                object: object.to_owned(),
                                metric: metric.clone(),
                            })
                        }
                        _ => None,
                    };
                    if let Some(measure) = counted_again {
                        plan.measures = vec![measure];
                        plan.order = None;
                    } else {
                        // "how many wins does each of them have", after "how many
                        // Brazilian drivers": one row per driver counted before.
                        // "the average price for each of them", after
                        // parts per manufacturer: each group is one of them.
                        let counted = match previous.measures.as_slice() {
                            [Measure::CountOf { object }] if previous.dimensions.is_empty() => {
                                Some(object)
                            }
                            // "Which of them won a race", after how many
                            // Finnish drivers started one; not "which of
                            // their drivers", after the races they won.
                            [Measure::DistinctOf { object, .. }] if !self.counts_among => {
                                Some(object).filter(|o| self.asked.iter().all(|a| a.object == **o))
                            }
                            // "Who won each of them?", after how many sprint
                            // races: a metric counting the distinct things
                            // a key names counted those things.
                            // Not "who has won the most of them", which ranks
                            // the winners among those things.
                            [Measure::Metric { metric, .. }]
                                if previous.dimensions.is_empty() && self.order.is_none() =>
                            {
                                ontology
                                    .metrics
                                    .iter()
                                    .find(|m| m.name == *metric)
                                    .and_then(|m| distinct_things(ontology, m))
                                    .map(|o| &o.name)
                            }
                            _ => None,
                        };
                        if self.partitive
                            && let Some(object) = counted
                            && let Some(counted) =
                                ontology.objects.iter().find(|o| o.name == *object)
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
                        // "Break that down by year the order was placed" counts
                        // the same orders.
                        // "How many of them …" counts those the chat was about.
                        for measure in measures.iter().filter(|_| self.counts && !self.partitive) {
                            if let Measure::CountOf { object }
                            | Measure::DistinctOf { object, .. } = measure
                            {
                                plan.filters.retain(|f| f.attribute.object != *object);
                            }
                        }
                        // After a lookup, what was shown is not a grouping of
                        // the count now asked ("circuits in Italy" → "how many"),
                        // unless the question is about each of them.
                        // "which one has hosted the most races", after the
                        // circuits in the US: those shown are ranked.
                        let ranks_shown =
                            self.lists && self.order.is_some() && self.groupings.is_empty();
                        if previous.measures.is_empty() && !self.refers_back && !ranks_shown {
                            plan.dimensions.clear();
                            plan.limit = None;
                        }
                        let (next, keeps_order) =
                            self.follow_up_measures(ontology, &plan.measures, &measures);
                        plan.measures = next;
                        if !keeps_order {
                            plan.order = None;
                        }
                    }
                } else if self.counts
                    && self.partitive
                    && let Some(object) = counts_among_amounts(ontology, previous)
                {
                    // "What is their average order value?" → "How many of
                    // those were placed in 1998?": the orders the average
                    // was over, counted.
                    plan.measures = vec![Measure::CountOf { object }];
                    plan.order = None;
                } else if self.counts
                    && self.partitive
                    && self.groupings.is_empty()
                    && previous.limit.is_none()
                    && !previous.dimensions.is_empty()
                    && let [Measure::Metric { metric, .. }] = previous.measures.as_slice()
                    && ontology
                        .metrics
                        .iter()
                        .any(|m| m.name == *metric && m.aggregate == Aggregate::Count)
                {
                    // "Which drivers retired from the 2011 Canadian Grand
                    // Prix?" → "How many of those were down to an
                    // accident?": the retirements counted, all together.
                    // "Which market segment has the most customers?" → "How
                    // many of those are in the UNITED STATES?": the leader's.
                    let led = matches!(
                        previous.order,
                        Some(Order::Measure {
                            descending: true,
                            ..
                        })
                    );
                    if led && let Some(leader) = previous.answered.as_deref() {
                        plan.filters.push(leader.clone());
                    }
                    plan.dimensions.clear();
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
                // "Who set the fastest lap?" → "what was the lap time and
                // speed?": what is asked of the rows the last answer
                // counted is read from those rows.
                if measures.is_empty()
                    && !self.asked.is_empty()
                    && self.aggregates.is_empty()
                    && !self.counts
                    && let Some(rows) = self.counted_rows(ontology, previous)
                {
                    plan.measures.clear();
                    plan.filters.extend(rows);
                    plan.order = None;
                    plan.limit = None;
                }
                // "which customer has the highest account balance", after
                // how many customers there are in AMERICA: those rows ranked
                // by their own number; nothing is counted any more.
                if measures.is_empty() && rank_by.is_some() {
                    plan.measures.clear();
                    plan.order = None;
                    plan.limit = None;
                }
                // "who had the longest single stop in that race", after the
                // average stop there: the stop with the most, not the
                // average per driver.
                if measures.is_empty()
                    && let Some(peak) = &self.peak
                    && !plan.measures.is_empty()
                    && plan.measures.iter().all(
                        |m| matches!(m, Measure::Aggregate { attribute, .. } if attribute == peak),
                    )
                {
                    plan.measures.clear();
                    plan.order = None;
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
                    let named: Vec<&str> = self.things_named(ontology).collect();
                    if !named.is_empty() {
                        plan.dimensions.retain(|d| {
                            named.contains(&d.object.as_str())
                                && (self.asked.is_empty() || self.asked.contains(d))
                        });
                    }
                    plan.limit = None;
                }
                // "list them with their account balances", after "how many
                // suppliers": the things counted, listed.
                // "list their names and account balances": a quantity
                // named without "total" is each one's, shown.
                let shown = |counted: &str| {
                    let object = ontology.objects.iter().find(|o| o.name == counted)?;
                    measures
                        .iter()
                        .map(|m| match m {
                            Measure::Aggregate { attribute, .. } => Some(AttributeRef {
                                object: counted.to_owned(),
                                ..attribute.clone()
                            })
                            .filter(|a| object.attributes.iter().any(|o| o.name == a.attribute)),
                            _ => None,
                        })
                        .collect::<Option<Vec<_>>>()
                };
                if self.refers_back
                    && self.lists
                    && self.aggregates.is_empty()
                    && !self.counts
                    && self.order.is_none()
                    && let [Measure::CountOf { object }] = previous.measures.as_slice()
                    && let Some(display) = display_of(ontology, object)
                    && let Some(shown) = shown(object)
                {
                    plan.measures.clear();
                    plan.dimensions.insert(0, display);
                    for attribute in shown {
                        push_unique(&mut plan.dimensions, attribute);
                    }
                    plan.order = None;
                }
                // "Which team had the lowest average?", after Red Bull's: the
                // ranking is among all of them, so the last answer's one
                // team is no longer a filter.
                let regrouped = |a: &AttributeRef| {
                    self.groupings.iter().any(|g| g.contains(a))
                        || (self.order.is_some() && self.asked.contains(a))
                };
                if !self.partitive && !self.refers_back {
                    plan.filters.retain(|f| !regrouped(&f.attribute));
                }
                // "and across all ship modes?", after one ship mode's.
                plan.filters.retain(|f| !self.across.contains(&f.attribute));
                // "which of those are in BUILDING", after the top 3 clients:
                // the rows the ranking chose, whatever else now changes.
                // "which market segments are those customers in", after the
                // top 5 customers: those named are the ones listed.
                let those_listed = |listed: &Filter| {
                    self.possessed
                        .is_some_and(|o| ontology.objects[o].name == listed.attribute.object)
                };
                if let Some(listed) = previous.listed.as_deref()
                    && (self.partitive || those_listed(listed))
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
        // "which teams apart from Ferrari won a race that year": a new
        // question, in the last one's year.
        if self.same_time
            && let Some(previous) = previous
        {
            for filter in &previous.filters {
                if names_row_time(ontology, &filter.attribute) && !plan.filters.contains(filter) {
                    plan.filters.push(filter.clone());
                }
            }
            // "which month was the best?" → "how many orders were placed
            // that month?": the period the last answer picked out.
            if let Some(answered) = previous.answered.as_deref()
                && names_row_time(ontology, &answered.attribute)
                && previous.dimensions.first().is_some_and(|d| {
                    d.object == answered.attribute.object
                        && d.attribute == answered.attribute.attribute
                })
                && (previous.limit == Some(1)
                    || matches!(previous.order, Some(Order::Measure { .. })))
                && !plan.filters.contains(answered)
            {
                plan.filters.push(answered.clone());
            }
        }
        if let Some(filter) = referred {
            // The last answer's grouping by the thing is now the thing itself.
            plan.dimensions
                .retain(|d| d.object != filter.attribute.object);
            plan.filters.retain(|f| f.attribute != filter.attribute);
            plan.filters.push(filter);
            for also in &self.referred_also {
                plan.filters.retain(|f| f.attribute != also.attribute);
                plan.filters.push(also.clone());
            }
            plan.order = None;
            plan.limit = None;
        }
        plan.filters
            .extend(self.counted_among(ontology, previous, &plan));
        plan
    }

    /// What a follow-up that names measures measures, and whether the last
    /// answer's order stands: the new measures in place of the last ones,
    /// unless the question adds them ("add how many race wins each had")
    /// or counts among the last one's rows ("who has won the most of them",
    /// after how many sprint races).
    fn follow_up_measures(
        &self,
        ontology: &Ontology,
        last: &[Measure],
        measures: &[Measure],
    ) -> (Vec<Measure>, bool) {
        let among_other_rows = self.partitive
            && matches!(
                (last, measures),
                ([last], [now]) if super::counted_on(ontology, last, now).is_some()
            );
        if among_other_rows {
            return ([last, measures].concat(), false);
        }
        // Only beside measures of the same rows: "how many sprint points
        // did he add" asks the one.
        let rows_of = |m: &Measure| match m {
            Measure::Metric { metric, .. } => ontology
                .metrics
                .iter()
                .find(|x| x.name == *metric)
                .map(|x| x.object.as_str()),
            _ => None,
        };
        let same_rows = last
            .iter()
            .chain(measures)
            .map(rows_of)
            .collect::<Option<Vec<_>>>()
            .is_some_and(|rows| rows.windows(2).all(|w| w[0] == w[1]));
        if self.adds && (same_rows || self.adds_first) {
            let mut joined = last.to_vec();
            for measure in measures {
                if !joined.contains(measure) {
                    joined.push(measure.clone());
                }
            }
            return (joined, true);
        }
        (measures.to_vec(), false)
    }

    /// The conditions of the one conditional count the last answer gave
    /// (`rank = 1` for "who set the fastest lap"), when everything the
    /// question asks is an attribute of the rows it counts.
    fn counted_rows(&self, ontology: &Ontology, previous: &SemanticPlan) -> Option<Vec<Filter>> {
        let [Measure::Metric { metric, .. }] = previous.measures.as_slice() else {
            return None;
        };
        let metric = ontology.metrics.iter().find(|m| m.name == *metric)?;
        if metric.aggregate != Aggregate::Count
            || metric.filters.is_empty()
            || self.asked.iter().any(|a| a.object != metric.object)
        {
            return None;
        }
        metric
            .filters
            .iter()
            .map(|text| simple_filter(ontology, &metric.object, text))
            .collect()
    }

    /// The things the question asks about or names, by object.
    fn things_named<'a>(&'a self, ontology: &'a Ontology) -> impl Iterator<Item = &'a str> {
        self.asked.iter().map(|a| a.object.as_str()).chain(
            self.mentioned
                .iter()
                .map(|o| ontology.objects[*o].name.as_str()),
        )
    }

    /// "Which team was he driving for?", after "who won the 2021 São Paulo
    /// Grand Prix": what is asked of the thing referred to, where it has
    /// many of them (a driver's teams), is asked within the last question's
    /// scope (that race). Its attributes of its own ("when was he born")
    /// are not.
    pub(super) fn scope_of_referred(
        &self,
        ontology: &Ontology,
        referred: &Filter,
        before: &SemanticPlan,
    ) -> Vec<Filter> {
        let object = referred.attribute.object.as_str();
        // "who drove for that team that year": the year, whatever is asked.
        // "Where's he from?", after the youngest driver of 2024: the season
        // he was found in stays the chat's, for "that year" after it.
        let keeps_time = self.same_time || (self.place && self.refers_to_person);
        let same_time = before
            .filters
            .iter()
            .filter(|f| keeps_time && names_row_time(ontology, &f.attribute))
            .cloned();
        let asked = self.things_named(ontology).filter(|o| *o != object);
        let mut many = asked.map(|other| {
            graph::join_tree(ontology, object, &[other]).is_ok_and(|tree| tree.fans_out())
        });
        if !many.any(|fans_out| fans_out) {
            return same_time.collect();
        }
        before
            .filters
            .iter()
            .filter(|f| f.attribute.object != object)
            .cloned()
            .collect()
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
        // "who was on pole for that race", after "who won": "that" is the
        // race; who is asked anew, not among the winners.
        let last = || match previous.map(|p| p.measures.as_slice()) {
            Some([Measure::Metric { metric, .. }]) if self.refers_back && !self.who => {
                index(metric)
            }
            _ => None,
        };
        let (Some(m), Some(other)) = (index(metric), self.displaced.or_else(last)) else {
            return Vec::new();
        };
        let (counted, among) = (&ontology.metrics[m], &ontology.metrics[other]);
        let conditional_count = |metric: &crate::ontology::Metric| {
            metric.aggregate == Aggregate::Count && !metric.filters.is_empty()
        };
        if self.difference.is_some()
            || m == other
            || counted.object != among.object
            || !conditional_count(counted)
            || !conditional_count(among)
        {
            return Vec::new();
        }
        super::metric_conditions(ontology, among, &among.object)
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    }

    /// "How many wins in his career", after his 2012 Monaco win: of the
    /// chat's filters, only those on the thing referred to stay; with no
    /// thing referred to ("and of all time?"), every one but its times.
    pub(super) fn all_time_scope(
        &self,
        ontology: &Ontology,
        plan: &mut SemanticPlan,
        referred: Option<&str>,
    ) {
        if !self.all_time {
            return;
        }
        match referred {
            Some(object) => plan.filters.retain(|f| f.attribute.object == object),
            None => plan
                .filters
                .retain(|f| !names_row_time(ontology, &f.attribute)),
        }
    }
}
