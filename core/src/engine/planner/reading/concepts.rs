//! Where one concept the lexicon matched goes in a reading: a metric, an
//! object counted or mentioned, an attribute grouped or asked, values.

use super::{Reading, ValueMention, typed_as_verb};
use crate::engine::compile::display_attribute;
use crate::engine::grammar::{self, Op};
use crate::engine::graph;
use crate::engine::lexicon::{Concept, Entry, Strength};
use crate::engine::plan::AttributeRef;
use crate::engine::planner::time::is_dated;
use crate::engine::planner::words::{attributes_of, object_of};
use crate::ontology::{Aggregate, AttributeRole, DataType, Object, Ontology};

impl Reading {
    pub(super) fn place(
        &mut self,
        ontology: &Ontology,
        entries: &[Entry],
        text: &str,
        scoped: bool,
        previous_op: Option<Op>,
        grouping: bool,
    ) {
        if self.place_named_filter(entries) {
            return;
        }
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
        let attributes = || attributes_of(entries);
        let attribute = attributes()
            .find(|(o, _)| Some(*o) == qualifier)
            .or_else(|| attributes().find(|(o, _)| self.has_named(ontology, *o)))
            .or_else(|| {
                self.named_later
                    .iter()
                    .find_map(|later| attributes().find(|(o, _)| o == later))
            })
            .or_else(|| {
                self.earlier
                    .iter()
                    .find_map(|earlier| attributes().find(|(o, _)| o == earlier))
            })
            .or_else(|| {
                attributes()
                    .next()
                    .map(|found| self.namesake(ontology, found))
            });
        // "won at Monaco", "races in Germany": after "at" or "in", a place
        // spelled as stored beats a demonym read from it (Monegasque
        // drivers); "drivers from Monaco" keeps the demonym.
        let spelled_value = entries
            .iter()
            .any(|e| !e.alias && e.strength == Strength::Value);
        let values: Vec<(usize, usize, String, Strength)> = entries
            .iter()
            .filter(|e| !(scoped && spelled_value && e.alias))
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
        // "the most expensive part by retail price": a number of the things
        // ranked ranks them too.
        let ranks = ranks
            || (self.order.is_some()
                && self.groupings.is_empty()
                && (self.metrics.is_empty() || self.weak_metric)
                && attribute.is_some_and(|(o, a)| {
                    // "the cheapest supplier by supply cost": or a number
                    // of what each of them has many of.
                    let of_ranked = |m: &usize| {
                        *m == o
                            || graph::direct_link(
                                ontology,
                                &ontology.objects[o].name,
                                &ontology.objects[*m].name,
                            )
                            .is_some()
                    };
                    ontology.objects[o].attributes[a].role == AttributeRole::Measure
                        && (self.mentioned.iter().any(of_ranked)
                            || self.weak_object.as_ref().is_some_and(of_ranked))
                }));
        // "the 3 biggest customers by orders": what "by" names is what the
        // superlative ranks by, not the things' own number.
        if grouping
            && ranks
            && metric.is_some()
            && let Some(peak) = self.peak.take()
        {
            self.quantities.retain(|q| *q != peak);
        }
        // "the cheapest supplier by supply cost": the number named ranks
        // the rows, not the one the superlative found first.
        if grouping
            && ranks
            && metric.is_none()
            && let Some(by) = attribute.map(attribute_ref)
            && let Some(peak) = self.peak.replace(by.clone())
            && peak != by
        {
            self.quantities.retain(|q| *q != peak);
        }
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
        if previous_op == Some(Op::All)
            && !self.share
            && object.is_none()
            && metric.is_none()
            && let Some(a) = attribute
        {
            self.across.push(attribute_ref(a));
            return;
        }
        // "which race": the race itself, even where "races" is also a count;
        // "what was the fastest lap": the result's lap time, where "fastest
        // laps" also counts results.
        let own_attribute = attribute.is_some_and(|(o, a)| {
            ontology.objects[o].attributes[a].role != AttributeRole::Measure
                && metric.is_some_and(|m| ontology.metrics[m].object == ontology.objects[o].name)
        });
        // "which 5 parts sold the most units? Give part name and units":
        // the quantity ranked is shown as the measure already.
        if previous_op == Some(Op::Which)
            && attribute.is_some_and(|a| self.quantities.contains(&attribute_ref(a)))
        {
            return;
        }
        if previous_op == Some(Op::Which)
            && (metric.is_none() || object.is_some() || own_attribute)
            && let Some(entity) = entity.clone()
        {
            self.asked.push(entity);
            self.asked_plural |= grammar::looks_plural(text);
            self.ask_alike(attributes(), attribute, attribute_ref);
            return;
        }
        // "how many drivers"; "what percentage of line items": a share of
        // things no metric counts is of how many there are.
        if matches!(previous_op, Some(Op::Count | Op::Share))
            && metric.is_none()
            && let Some(o) = object
        {
            // "how many times did a driver retire": one of the things
            // does what is counted; they are not what is counted, unless
            // nothing else is ("how many driver are there").
            if !self.plural.contains(&o) && names_object(&ontology.objects[o], text) {
                self.one_counted = Some(o);
                self.mentioned.push(o);
                return;
            }
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
            // "how many of them placed an order": a date said as a verb is
            // what they did, not a list of dates to count.
            && !(said_as_verb(text)
                && ontology.objects[attribute.0].attributes[attribute.1].role == AttributeRole::Time)
        {
            self.aggregates
                .push((attribute_ref(attribute), Aggregate::CountDistinct));
            return;
        }
        // "at what time did the race start": a verb the attribute asked is
        // named by ("start time") is that attribute's, not a measure. So is
        // "how many points did he have", after the most championship points.
        if metric.is_some()
            && object.is_none()
            && (attribute.is_none() || !self.quantities.is_empty())
            && values.is_empty()
            && !text.contains(' ')
            && self.asked.iter().chain(&self.quantities).any(|a| {
                ontology
                    .attribute(&a.object, &a.attribute)
                    .is_some_and(|attr| {
                        attr.naming_words()
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| w == text)
                    })
            })
        {
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
            && ontology.objects[o].attributes[a].data_type.is_numeric()
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
        // "the average duration of those stops, in ms": after "in", another
        // number of the same things is the unit the quantity is asked in.
        if scoped
            && metric.is_none()
            && values.is_empty()
            && let Some((o, a)) = attribute
            && ontology.objects[o].attributes[a].data_type.is_numeric()
        {
            let unit = attribute_ref((o, a));
            let same_things =
                |quantity: &AttributeRef| quantity.object == unit.object && *quantity != unit;
            if let Some((quantity, _)) = self
                .aggregates
                .last_mut()
                .filter(|(quantity, _)| same_things(quantity))
            {
                *quantity = unit.clone();
                self.named_by_name.push(unit);
                return;
            }
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
            // "the most race starts": "most" never ranks words (the race's
            // start time), so the words are the metric's.
            let most_of_words = matches!(previous_op, Some(Op::Most | Op::Least))
                && object.is_none()
                && attribute.is_some_and(|(o, a)| {
                    ontology.objects[o].attributes[a].data_type == DataType::Text
                });
            let ambiguous = (object.is_some() || attribute.is_some()) && !most_of_words;
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
            // "what percentage of (all) orders were placed by customers in
            // ASIA": in a share, a later thing a value qualifies says which
            // of the things first named are the part.
            if self.share
                && ambiguous
                && self.value_next
                && !repeated
                && ((self.weak_metric && self.metrics.len() == 1)
                    || (self.metrics.is_empty() && !self.rolled_up.is_empty()))
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
            // "avg points per race ... (grand prix results only)": a measure
            // named to be averaged is the measure; a later thing that is
            // also a count qualifies it.
            if self.weak_metric
                && self.averaged
                && self.metrics.len() == 1
                && !repeated
                && let Some(o) = object
            {
                self.mentioned.push(o);
                return;
            }
            // "how many urgent orders did customers in Germany place": after
            // a count, a later thing named as a noun is who did it, not
            // what is counted.
            if self.weak_metric
                && self.weak_counted
                && self.metrics.len() == 1
                && !repeated
                // "race wins" is one measure; "orders customers" (with "did"
                // between, which leaves no piece) is not: a noun qualifying
                // the next is singular.
                && (self.at > self.weak_at + 1 || self.weak_plural)
                && !self.negate
                && !self.dangling_negation
                && !typed_as_verb(ontology, m, text)
                && !text.ends_with("ed")
                && let Some(o) = object
            {
                self.mentioned.push(o);
                return;
            }
            if self.weak_metric
                && self.metrics.len() == 1
                && !repeated
                && !self.and_how_many
                // "by Grand Prix wins" is one measure; "by sales in 1996,
                // based on the customer's country" is not.
                && !(self.weak_ranks && self.at > self.weak_at + 1)
            {
                // "how many races did Hamilton win": the later metric is meant.
                self.displaced = Some(self.metrics[0].0);
                self.metrics[0] = (m, None);
                // "how many customers ordered": the customers are counted,
                // among the rows the later metric counts.
                // Right after it, a noun qualifies it ("Grand Prix wins" is
                // one measure); a verb ("customers ordered") does not.
                let verb = text.ends_with("ed") || text == "won";
                let modifier = self.at == self.weak_at + 1 && !verb;
                // "race entries": a word that also names things, right
                // before the measure, only says which.
                self.displaced_modifies = modifier && self.weak_object.is_some();
                if self.weak_counted && self.count_of.is_none() && !modifier {
                    self.count_of = self.weak_object;
                }
                self.mentioned.extend(self.weak_object.take());
                self.weak_metric = ambiguous;
                self.weak_object = object;
                self.verb_at = typed_as_verb(ontology, m, text).then_some(self.at);
                return;
            }
            // "scored the most podium finishes": so past the superlative,
            // to a measure that names nothing else ("started the most
            // races" counts starts).
            let after_verb = |at: usize| {
                !ambiguous
                    && (self.at == at + 1
                        || (self.at == at + 2 && previous_op.and_then(Op::superlative).is_some()))
            };
            if self.verb_at.is_some_and(after_verb) && !self.metrics.is_empty() && !repeated {
                // "started on pole": the verb leads to the measure meant.
                self.metrics.pop();
                self.verb_at = None;
                if !self.counted_among_named(ontology, m, previous_op, true) {
                    self.metrics.push((m, None));
                }
                return;
            }
            if !ambiguous
                && !repeated
                && self.counted_among_named(ontology, m, previous_op, said_as_verb(text))
            {
                self.verb_at = typed_as_verb(ontology, m, text).then_some(self.at);
                return;
            }
            if self.metrics.is_empty() {
                self.verb_at = typed_as_verb(ontology, m, text).then_some(self.at);
                self.measured_by_verb = said_as_verb(text);
                self.weak_counted = ambiguous && previous_op == Some(Op::Count);
                self.weak_at = self.at;
                self.weak_plural = grammar::looks_plural(text);
                self.weak_ranks = grouping && ranks;
                // "avg points per race ... (grand prix results only)": a
                // measure named to be averaged is the measure; a later word
                // that is also a metric qualifies it.
                self.weak_metric = ambiguous;
                self.weak_object = object;
            }
            // "the most championship points …, and how many points did he
            // have": the same column added up is the measure asked again.
            let beside = self.and_how_many
                && !self
                    .metrics
                    .iter()
                    .any(|(x, _)| ontology.metrics[*x].adds_up_like(&ontology.metrics[m]));
            if self.metrics.is_empty() || !ambiguous || repeated || beside {
                if !self.metrics.iter().any(|(x, _)| *x == m) {
                    // "won by the driver who started from pole": a later
                    // verb may be completed by the measure right after it.
                    if !self.metrics.is_empty() && typed_as_verb(ontology, m, text) {
                        self.verb_at = Some(self.at);
                    }
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
            // "never driven for Ferrari", not "other than Ferrari".
            self.verb_negates_value |= self.negate && self.never;
            self.values.push(ValueMention {
                options,
                text: text.to_owned(),
                negated: std::mem::take(&mut self.negate),
                // "what percentage of Williams' race entries": a value
                // right after "percentage of" says whose the whole is.
                of_whole: self.whole_open
                    || (self.share && self.metrics.is_empty() && previous_op == Some(Op::Share)),
                before_share: !self.share,
                before_its_things: previous_op == Some(Op::KindOf),
            });
            return;
        }
        // "races" names the object race and its name attribute alike; as a
        // bare mention it is the object.
        let names_object = matches!((object, attribute), (Some(o), Some((ao, _))) if o == ao);
        if let Some((o, a)) = attribute
            && !names_object
        {
            // "the fastest Q1 time": a time written as text is ranked, by
            // the row that has it, though it is never added up.
            let is_quantity = (ontology.objects[o].attributes[a].role == AttributeRole::Measure
                && ontology.objects[o].attributes[a].data_type.is_numeric())
                || self.peak.as_ref() == Some(&attribute_ref((o, a)));
            if ontology.objects[o].attributes[a].data_type.is_numeric() {
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
                    let date = attribute_ref((o, a));
                    self.verb_dates.push(date.clone());
                    if text.ends_with("ed") || text == "born" {
                        self.dated_by_verb.push(date);
                    } else {
                        // "born in 1990, with their dates of birth": a date
                        // named outright is asked for, whatever a verb said.
                        self.dated_by_verb.retain(|d| *d != date);
                    }
                }
                self.asked.push(attribute_ref((o, a)));
                self.asked_plural |= grammar::looks_plural(text);
                self.ask_alike(attributes(), attribute, attribute_ref);
            }
            return;
        }
        if let Some(o) = object {
            self.mentioned.push(o);
            if grammar::looks_plural(text)
                && self.value_at.is_some_and(|at| at + 1 == self.at)
                && let Some(value) = self.values.last_mut()
                && value
                    .options
                    .iter()
                    .any(|(a, _)| a.object == ontology.objects[o].name)
            {
                value.before_its_things = true;
            }
        }
    }

    /// "suppliers … in descending order of balance", where only the
    /// customer's balance is called "balance": the attribute of the same
    /// name of the thing the question (or the chat) is about, where the
    /// one found is of something else.
    pub(super) fn namesake(
        &self,
        ontology: &Ontology,
        (object, attribute): (usize, usize),
    ) -> (usize, usize) {
        if self.has_named(ontology, object) || self.earlier.contains(&object) {
            return (object, attribute);
        }
        let name = &ontology.objects[object].attributes[attribute].name;
        let about = (0..ontology.objects.len())
            .filter(|n| *n != object && self.has_named(ontology, *n))
            .chain(self.named_later.iter().copied())
            .chain(self.earlier.iter().copied());
        about
            .filter_map(|n| {
                let a = ontology.objects[n]
                    .attributes
                    .iter()
                    .position(|a| a.name == *name)?;
                Some((n, a))
            })
            .next()
            .unwrap_or((object, attribute))
    }

    /// Whether the question has already named object `o`. Of several
    /// things' attributes ("which supplier has the highest account
    /// balance"), the one of a thing already named is meant.
    pub(super) fn has_named(&self, ontology: &Ontology, o: usize) -> bool {
        self.count_of == Some(o)
            || self.mentioned.contains(&o)
            || self.weak_object == Some(o)
            || self
                .asked
                .iter()
                .any(|a| a.object == ontology.objects[o].name)
            // "Lewis Hamilton's reference name": the driver's.
            || self.values.iter().any(|v| {
                v.options
                    .iter()
                    .all(|(a, _)| a.object == ontology.objects[o].name)
            })
    }

    /// "races won by the driver who started from pole", "wins from
    /// pole": a second count under a condition, of the same rows as the
    /// one measured so far, says which of them are counted, where a verb
    /// ties them ("won", "started") and no "and" sets them side by side.
    /// The first is then a condition of the second (see `counted_among`).
    fn counted_among_named(
        &mut self,
        ontology: &Ontology,
        m: usize,
        previous_op: Option<Op>,
        verbal: bool,
    ) -> bool {
        let conditional_count = |x: usize| {
            let metric = &ontology.metrics[x];
            metric.aggregate == Aggregate::Count && !metric.filters.is_empty()
        };
        let [(first, None)] = self.metrics.as_slice() else {
            return false;
        };
        let first = *first;
        if first == m
            || self.displaced.is_some()
            || previous_op == Some(Op::And)
            || !(verbal || self.measured_by_verb)
            || !conditional_count(first)
            || !conditional_count(m)
            || ontology.metrics[first].object != ontology.metrics[m].object
        {
            return false;
        }
        self.displaced = Some(first);
        self.metrics = vec![(m, None)];
        true
    }

    /// "coordinates": a word that names several attributes of the thing
    /// asked about alike asks for all of them.
    fn ask_alike(
        &mut self,
        attributes: impl Iterator<Item = (usize, usize)>,
        chosen: Option<(usize, usize)>,
        attribute_ref: impl Fn((usize, usize)) -> AttributeRef,
    ) {
        let Some((o, a)) = chosen else {
            return;
        };
        for (other_o, other_a) in attributes {
            let other = attribute_ref((other_o, other_a));
            if other_o == o && other_a != a && !self.asked.contains(&other) {
                self.asked.push(other);
            }
        }
    }
}

/// Whether `text` names `object` by its own name or label ("a driver"),
/// not by a synonym ("people") that may stand for the things themselves.
/// "won", "started", "took": a measure named by what was done.
fn said_as_verb(text: &str) -> bool {
    let last = text.rsplit(' ').next().unwrap_or(text);
    (last.len() > 4 && last.ends_with("ed"))
        || matches!(last, "won" | "win" | "took" | "got" | "made" | "scored")
}

fn names_object(object: &Object, text: &str) -> bool {
    let text = text.to_lowercase();
    [object.name.replace('_', " "), object.label.to_lowercase()]
        .iter()
        .any(|name| !name.is_empty() && text.ends_with(name.as_str()))
}
