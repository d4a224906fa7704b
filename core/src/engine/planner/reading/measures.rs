//! What the question measures: its metrics, variants, aggregates and
//! counts, and what a negation sets apart.

use super::{Reading, is_display};
use crate::engine::compile::display_attribute;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::engine::planner::Planned;
use crate::engine::planner::attributes::{is_person, person_attribute};
use crate::engine::planner::labels::{label_of, plural};
use crate::ontology::{Aggregate, Object, Ontology};
use std::ops::ControlFlow;

/// The measures a question names, and how it ranks without one.
pub(super) struct Measured {
    pub(super) measures: Vec<Measure>,
    /// "Which 3 circuits sit at the lowest elevation": a quantity of the
    /// things listed, ranked by itself.
    pub(super) rank_by: Option<AttributeRef>,
    /// "which race had the most?": a superlative over the chat's last measure.
    pub(super) ranks_last: bool,
}

impl Reading {
    /// "what was the highest fastest lap speed in race No. 18": a
    /// superlative of a number, with nothing asked to have it (no "who",
    /// no thing asked for), is the number itself. After a list, "which one
    /// has the lowest balance" asks which of the rows listed.
    pub(super) fn peak_as_value(&mut self, ontology: &Ontology, previous: Option<&SemanticPlan>) {
        let Some(peak) = &self.peak else {
            return;
        };
        if previous.is_some_and(|p| !p.dimensions.is_empty()) {
            return;
        }
        let numeric = ontology
            .attribute(&peak.object, &peak.attribute)
            .is_some_and(|a| a.data_type.is_numeric());
        let rows_named = self
            .mentioned
            .iter()
            .chain(&self.plural)
            .any(|o| ontology.objects[*o].name == peak.object);
        if !numeric
            || rows_named
            || self.who
            || self.when
            || self.place
            || !self.asked.is_empty()
            || !self.groupings.is_empty()
            || !self.metrics.is_empty()
            || !self.aggregates.is_empty()
            || self.count_of.is_some()
            || self.limit.is_some()
            || self.refers_back
            || self.per_year
            || self.per_month
            || self.per_grain.is_some()
        {
            return;
        }
        let aggregate = if self.order == Some(false) {
            Aggregate::Min
        } else {
            Aggregate::Max
        };
        let peak = self.peak.take().expect("checked above");
        self.quantities.retain(|q| *q != peak);
        self.aggregates.push((peak, aggregate));
        self.order = None;
    }

    /// "Which driver had the highest top speed in 2012": one thing asked
    /// for, by the extreme of a number each row has, is the row with it,
    /// not the thing with the largest total. Things asked for in the
    /// plural, a top few or groups ("the three parts with the largest
    /// quantity sold") are totals.
    pub(super) fn peaks_one_row(&self, ontology: &Ontology, quantity: &AttributeRef) -> bool {
        self.peak.as_ref() == Some(quantity)
            && self.groupings.is_empty()
            && self.limit.is_none()
            // "which of them has the lowest balance" ranks the rows the
            // chat listed; "in that race" only scopes the rows.
            && !self.partitive
            && !self.plural.iter().any(|o| {
                self.asked
                    .iter()
                    .any(|a| a.object == ontology.objects[*o].name)
            })
    }

    /// The measure a negation excludes and the object whose rows it keeps
    /// ("customers who never placed an order"); the excluded metric is then
    /// no longer measured.
    pub(super) fn set_exclusion_apart(&mut self, ontology: &Ontology) -> Option<(usize, usize)> {
        // "customers who never placed an order": the orders are what is
        // excluded, not what is measured.
        let excluded = self
            .negated_metric
            .and_then(|m| self.excluded_of(ontology, m).map(|o| (m, o)));
        if let Some((m, o)) = excluded {
            self.metrics.retain(|(x, _)| *x != m);
            // "did not score a single Grand Prix point": the variant named
            // is of the excluded measure, not one measured beside it. The
            // exclusion reads the default; another variant is not dropped
            // unsaid.
            self.variants
                .retain(|(x, v)| *x != m || !ontology.metrics[m].variants[*v].default);
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
                // "How many customers did not order in 1996": the count of
                // the customers themselves says nothing of taking part.
                .filter(|x| ontology.metrics[*x].object != ontology.objects[o].name)
                .collect();
            // "drivers who won a race in 2012 but not in 2013": they won in
            // 2012, through the very rows they lack in 2013.
            if !self.years_lacking.is_empty() {
                let metric = &ontology.metrics[m];
                self.took_part = ontology
                    .objects
                    .iter()
                    .position(|o| o.name == metric.object);
                self.contrast = true;
                self.who = false;
                self.contrast_filters = super::metric_conditions(ontology, metric, &metric.object)
                    .flatten()
                    .collect();
            } else if about_them
                && (self.uncompared.is_some() || self.order.is_some())
                && let Some(counted) = self
                    .displaced
                    .filter(|x| took_part.contains(x))
                    // "Among drivers who never won, who has made the most
                    // race starts": the measure ranked after the exclusion.
                    .or_else(|| self.order.and(took_part.last().copied()))
            {
                // "drivers with at least 200 race starts but never won", "the
                // most pole positions but never won": the number is
                // compared, or the things ranked, by the other measure,
                // which stays measured beside the exclusion.
                self.metrics = vec![(counted, None)];
                self.displaced = None;
            } else if about_them && !took_part.is_empty() {
                // The excluded measure's rows ("scored" in results) are the
                // route to the time they took part in.
                let object = &ontology.metrics[m].object;
                self.took_part = ontology.objects.iter().position(|o| o.name == *object);
                // "drivers who have started from pole but never won": a
                // count under a condition on those rows says which rows
                // they took part through (`grid = 1`), not only that some.
                // Two such counts (poles and fastest laps) need not meet on
                // one row: only one is read so.
                let conditional: Vec<_> = took_part
                    .iter()
                    .map(|x| &ontology.metrics[*x])
                    .filter(|x| {
                        x.object == *object
                            && x.aggregate == Aggregate::Count
                            && !x.filters.is_empty()
                    })
                    .collect();
                if let [metric] = conditional.as_slice() {
                    self.contrast_filters =
                        super::metric_conditions(ontology, metric, &metric.object)
                            .collect::<Option<Vec<_>>>()
                            .unwrap_or_default();
                }
                self.metrics.clear();
                self.displaced = None;
                self.contrast = true;
                // "drivers who started": who they are is not asked.
                self.who = false;
            }
        }
        excluded
    }

    /// "Who finished second in the 2018 drivers' championship": a place in
    /// a balance as it stood at the end (the standings' points) is a place
    /// in the ranking by it, not the place recorded after each race.
    pub(super) fn place_in_standings(&mut self, ontology: &Ontology) {
        // "how many more points did first have than him": a place compared
        // with another side is that place's row, not a ranking.
        if let ([place], [(m, _)]) = (self.ordinals.as_slice(), self.metrics.as_slice())
            && self.difference.is_none()
            && self.rank.is_none()
            && self.ordinal_of.is_none()
            && ontology.metrics[*m].semi_additive.is_some()
            && let Ok(place) = u32::try_from(*place)
            && place >= 1
        {
            self.rank = Some(place);
            self.order = Some(true);
            self.ordinals.clear();
        }
    }

    /// The measures the question names, or why it cannot be measured.
    pub(super) fn measures(
        &self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> ControlFlow<Planned, Measured> {
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
        // "win percentage over all his starts": a ratio named with its own
        // numerator or denominator is the ratio; the other only says what
        // it is of.
        let parts_of_ratios: Vec<String> = measures
            .iter()
            .filter_map(|m| match m {
                Measure::Metric { metric, .. } => {
                    ontology.metrics.iter().find(|x| x.name == *metric)
                }
                _ => None,
            })
            .flat_map(|m| m.numerator.iter().chain(&m.denominator).cloned())
            .collect();
        measures.retain(|m| {
            !matches!(m, Measure::Metric { metric, variant: None } if parts_of_ratios.contains(metric))
        });
        // "how many returned line items": a total under a condition, read
        // as an adjective of the things then named, counts those things.
        if self.counts
            && self.count_of.is_none()
            && self.aggregates.is_empty()
            && previous.is_none()
            && let [(m, None)] = self.metrics.as_slice()
            && let metric = &ontology.metrics[*m]
            && metric.aggregate == Aggregate::Sum
            && !metric.filters.is_empty()
            && self
                .mentioned
                .iter()
                .any(|o| ontology.objects[*o].name == metric.object)
        {
            measures = vec![Measure::DistinctOf {
                object: metric.object.clone(),
                metric: metric.name.clone(),
            }];
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
        // "the fastest lap time in a race for Lewis Hamilton": an attribute
        // asked of the rows, where the word that also counts races only
        // says which rows.
        if self.weak_metric
            && !self.weak_counted
            && !self.counts
            && self.metrics.len() == 1
            && self.variants.is_empty()
            && self.aggregates.is_empty()
            && self.quantities.is_empty()
            && self.order.is_none()
            && self.limit.is_none()
            && !self.share
            && !self.averaged
            && !self.who
            && previous.is_none()
            // "customers in the building segment": the attribute a value
            // names is a filter, not what is asked.
            // "Which races did McLaren win": the races themselves are asked.
            && self.asked.iter().any(|asked| {
                !self
                    .values
                    .iter()
                    .any(|v| v.options.iter().any(|(a, _)| a == asked))
                    && self
                        .weak_object
                        .is_some_and(|o| ontology.objects[o].name != asked.object)
            })
        {
            measures.clear();
        }
        // "List the order keys and order dates of orders placed by X": the
        // things' own attributes are listed; the word that also counts
        // them only says whose.
        if self.weak_metric
            && self.lists
            && !self.counts
            && self.metrics.len() == 1
            && self.variants.is_empty()
            && self.aggregates.is_empty()
            && self.quantities.is_empty()
            && self.groupings.is_empty()
            && self.order.is_none()
            && self.limit.is_none()
            && !self.share
            && !self.averaged
            && previous.is_none()
            // "which clerks had at least 7 orders": a number of the things
            // counts them.
            && self.uncompared.is_none()
            && let Some(object) = self.weak_object
            && !self.asked.is_empty()
            && self
                .asked
                .iter()
                .all(|a| a.object == ontology.objects[object].name)
        {
            measures.clear();
        }
        // "the most recent date a customer placed an order": the order's
        // own date is asked; "order" only says whose.
        if self.weak_metric
            && self.extreme.is_some()
            && self.metrics.len() == 1
            && self.variants.is_empty()
            && !self.counts
            && self.order.is_none()
            && self.weak_object.is_some_and(|o| {
                self.extreme_object == Some(o)
                    && self
                        .asked
                        .iter()
                        .any(|a| a.object == ontology.objects[o].name)
            })
        {
            measures.clear();
        }
        // "Where did he finish in the race itself": the race says which
        // result, it is not counted.
        if self.weak_metric
            && self.place_first
            && self.metrics.len() == 1
            && !self.share
            && !self.averaged
            && self.aggregates.is_empty()
            && self.variants.is_empty()
            && !self.counts
            && self.order.is_none()
            && self.limit.is_none()
        {
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
                    && (self.peaks_one_row(ontology, quantity)
                        || self
                        .mentioned
                        .iter()
                        .chain(self.weak_object.iter())
                        .any(|o| ontology.objects[*o].name == quantity.object)
                        // "which 3 circuits": the things asked for.
                        || self
                            .asked
                            .iter()
                            .any(|a| a.object == quantity.object && is_display(ontology, a))
                        // "which of those has the highest balance", after
                        // how many customers: the things counted.
                        || (self.partitive
                            && previous.is_some_and(|p| {
                                counts_only(ontology, &p.measures, &quantity.object)
                            })))
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
            && let Some(o) = self.count_of.or(self.one_counted)
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[o].name.clone(),
            });
        }
        // "average pit stop duration": a metric that aggregates the very
        // attribute the same way is the data team's reading of it (its unit).
        // "How much did we discount in total": a sum named for the
        // attribute (`discount_amount`) is what adding it up means, where
        // the attribute itself is a rate.
        for measure in &mut measures {
            if let Measure::Aggregate {
                attribute,
                aggregate,
            } = measure
                && let Some(column) = ontology
                    .attribute(&attribute.object, &attribute.attribute)
                    .and_then(|a| a.column_name())
                && let Some(metric) = ontology.metrics.iter().find(|m| {
                    // "in milliseconds": the attribute named by its own
                    // name is asked in its own unit.
                    let reads_it = !self.named_by_name.contains(attribute)
                        || (*aggregate == Aggregate::Sum
                            && m.name.starts_with(&format!("{}_", attribute.attribute)));
                    reads_it
                        && m.aggregate == *aggregate
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
        // only a name given counts the rows the name is of. "How many of
        // them are in Canada" still counts what the chat counted.
        let counts_last = self.partitive && previous.is_some_and(|p| !p.measures.is_empty());
        // "how many times did Pérez get knocked out in Q1": what a named
        // condition says happened is counted, not whom it happened to; so
        // is what it says did not ("fail to be classified").
        if measures.is_empty()
            && self.counts
            && !counts_last
            && self.asked.is_empty()
            && let [(o, _, _)] = self.named_filters.as_slice()
            && !self.values.is_empty()
            && self.values.iter().all(|v| {
                v.options
                    .iter()
                    .all(|(a, _)| a.object != ontology.objects[*o].name)
            })
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[*o].name.clone(),
            });
        }
        if measures.is_empty()
            && self.counts
            && !counts_last
            && self.asked.is_empty()
            && let [mention] = self.values.as_slice()
            && let [(attribute, _)] = mention.options.as_slice()
            && let Some(object) = ontology.objects.iter().find(|o| o.name == attribute.object)
            && display_attribute(object) == Some(attribute.attribute.as_str())
        {
            // "how many engine failures in 2010": a status is one row of a
            // table of kinds, so the rows that have it are what is counted.
            let counted = rows_of_kind(ontology, object).unwrap_or(&object.name);
            measures.push(Measure::CountOf {
                object: counted.to_owned(),
            });
        }
        // "how many of them have a negative balance", after the customers'
        // total balance: the things whose number was added up, counted.
        if measures.is_empty()
            && self.counts
            && self.partitive
            && let Some([Measure::Aggregate { attribute, .. }]) =
                previous.map(|p| p.measures.as_slice())
        {
            measures.push(Measure::CountOf {
                object: attribute.object.clone(),
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
            && rank_by.is_none()
            && self.order.is_some()
            && (!self.asked.is_empty() || !self.groupings.is_empty())
            && let Some(o) = self.mentioned.first()
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[*o].name.clone(),
            });
        }
        // "Who were the 5 drivers that pitted the most times": with nothing
        // measured, the rows the people have that the question names,
        // counted.
        if measures.is_empty()
            && !ranks_last
            && rank_by.is_none()
            && self.order.is_some()
            && self.who
            && let Some(&person) = self
                .mentioned
                .iter()
                .find(|o| is_person(&ontology.objects[**o]))
            && let Some(&rows) = self.mentioned.iter().find(|o| {
                **o != person
                    && graph::direct_link(
                        ontology,
                        &ontology.objects[**o].name,
                        &ontology.objects[person].name,
                    )
                    .is_some()
            })
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[rows].name.clone(),
            });
        }
        // "Which ship mode is used most often": with nothing else named, how
        // many of the rows that hold the attribute have each value.
        if measures.is_empty()
            && !ranks_last
            && rank_by.is_none()
            && self.order.is_some()
            && self.mentioned.is_empty()
            && self.groupings.is_empty()
            && let [asked] = self.asked.as_slice()
            // "Which customers spent the most": each thing is one of its
            // kind; counting them ranks nothing.
            && !is_display(ontology, asked)
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
            return ControlFlow::Break(Planned::NotAnswerable(format!(
                "the question counts {} by what they did, which Cassis cannot plan yet; ask for the measure by {label} instead",
                plural(&label)
            )));
        }
        ControlFlow::Continue(Measured {
            measures,
            rank_by,
            ranks_last,
        })
    }
}

/// The one object whose rows have one of `kind`'s rows, where `kind` is a
/// table of kinds (a finishing status): it holds nothing but its key and
/// its name, so each name is one row and counting them counts nothing.
fn rows_of_kind<'o>(ontology: &'o Ontology, kind: &Object) -> Option<&'o str> {
    let own = kind
        .attributes
        .iter()
        .filter(|a| !kind.primary_key.contains(&a.name))
        .count();
    if own != 1 {
        return None;
    }
    let mut holders = ontology
        .relationships
        .iter()
        .filter(|r| r.to == kind.name)
        .map(|r| r.from.as_str());
    match (holders.next(), holders.next()) {
        (Some(holder), None) => Some(holder),
        _ => None,
    }
}

/// Whether `measures` is one count of `object`'s rows ("how many
/// customers"), by the count itself or by a metric that counts them.
fn counts_only(ontology: &Ontology, measures: &[Measure], object: &str) -> bool {
    match measures {
        [Measure::CountOf { object: counted }] => counted == object,
        [Measure::Metric { metric, .. }] => ontology
            .metrics
            .iter()
            .any(|m| m.name == *metric && m.object == object && m.aggregate == Aggregate::Count),
        _ => false,
    }
}
