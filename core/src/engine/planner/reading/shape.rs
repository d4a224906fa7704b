//! The plan's final shape: an average per thing, a share, a difference,
//! the order and limit, the checks that it answers what was asked, and the
//! assumptions it states.

use super::filters::names_one_row;
use super::{
    Assembly, Reading, adds_up, bound, display_of, is_a_name, is_display, is_one_text_value,
    metric_conditions,
};
use crate::engine::compile::display_attribute;
use crate::engine::grammar::Op;
use crate::engine::graph;
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, PlanAssumption, SemanticPlan,
    Threshold,
};
use crate::engine::planner::Planned;
use crate::engine::planner::attributes::{
    base_object, birth_date, is_person, own_date, own_year, position_attribute,
};
use crate::engine::planner::decide::{settle_routes, variant_assumptions};
use crate::engine::planner::labels::{attribute_label, label_of, measure_label, plural};
use crate::engine::planner::time::{is_birth_date, names_row_time};
use crate::ontology::{Aggregate, AttributeRole, MetricKind, Ontology};
use std::ops::ControlFlow;

impl Reading {
    /// The finished plan, or why the question cannot be answered.
    pub(super) fn shape(
        &self,
        ontology: &Ontology,
        assembly: Assembly,
    ) -> ControlFlow<Planned, SemanticPlan> {
        let Assembly {
            mut plan,
            mut assumptions,
            previous,
            position,
            rank_by,
            groupings,
            ..
        } = assembly;
        // "finishing status breakdown for 2023".
        if self.tallies
            && plan.measures.is_empty()
            && !plan.dimensions.is_empty()
            && let Some(rows) = tallied_rows(ontology, &plan)
        {
            plan.measures = vec![Measure::CountOf { object: rows }];
        }
        standings_listed(ontology, &mut plan);
        // "Average points per race": a sum or count per race, averaged.
        // "Average points per race for each driver": the average per race,
        // for each driver.
        let per_at = match plan.dimensions.len() {
            1 => Some(0),
            2.. if self
                .per_grouping
                .is_some_and(|at| at < plan.dimensions.len())
                && plan.dimensions.len() == self.groupings.len() =>
            {
                self.per_grouping
            }
            _ => None,
        };
        if self.averaged
            && self.per
            && let [measure] = plan.measures.as_slice()
            && adds_up(ontology, measure)
            && let Some(at) = per_at
        {
            let per = plan.dimensions.remove(at);
            plan.measures = vec![Measure::AveragePer {
                of: Box::new(measure.clone()),
                per,
            }];
            plan.order = None;
            plan.limit = None;
            assumptions.extend(variant_assumptions(ontology, &plan.measures));
            plan.assumptions = assumptions;
            settle_routes(ontology, &mut plan, &self.named_objects(ontology));
            return ControlFlow::Break(Planned::Plan(plan));
        }
        // "the average pit stop": a count averaged over nothing is the one
        // average the ontology keeps of those things (their duration).
        if self.averaged
            && !self.per
            && let [
                Measure::Metric {
                    metric,
                    variant: None,
                },
            ] = plan.measures.as_slice()
            && let Some(counted) = ontology.metrics.iter().find(|m| m.name == *metric)
            && counted.aggregate == Aggregate::Count
            && counted.filters.is_empty()
            && let [average] = ontology
                .metrics
                .iter()
                .filter(|m| {
                    m.object == counted.object
                        && m.aggregate == Aggregate::Avg
                        && m.filters.is_empty()
                        && m.variants.is_empty()
                })
                .collect::<Vec<_>>()
                .as_slice()
        {
            plan.measures = vec![Measure::Metric {
                metric: average.name.clone(),
                variant: None,
            }];
        }
        // "by what percent did revenue grow": a growth is already a
        // percentage, of the earlier period.
        if self.share && self.growth.is_none() {
            // The route is settled on the plan as asked, before its filters
            // are split between the part and the whole.
            plan.assumptions = assumptions;
            settle_routes(ontology, &mut plan, &self.named_objects(ontology));
            if let Err(reason) = self.as_share(ontology, &mut plan) {
                return ControlFlow::Break(Planned::NotAnswerable(reason));
            }
            let stated = variant_assumptions(ontology, &plan.measures);
            plan.assumptions.extend(stated);
            return ControlFlow::Break(Planned::Plan(plan));
        }

        self.exclude_whole_things(ontology, &mut plan);
        self.scope_exclusion(ontology, &mut plan);
        if let Some(more) = self.difference {
            self.as_difference(&mut plan, more);
            place_against_answered(ontology, &mut plan, position.as_ref(), previous, more);
        }
        if self.both {
            self.having_every_value(ontology, &mut plan);
        }
        if let Some((op, n)) = self.uncompared
            && let Err(reason) = self.bound_per_thing(ontology, &mut plan, op, n)
        {
            return ControlFlow::Break(Planned::NotAnswerable(reason));
        }
        // "which drivers scored points in the 2012 Brazilian Grand Prix":
        // the things listed are those that made some of the total the verb
        // names, not every one of them.
        if self.lists
            && self.verb_at.is_some()
            && !self.counts
            && !self.negate
            && self.negated_metric.is_none()
            && !plan
                .filters
                .iter()
                .any(|f| matches!(f.condition, Condition::NotAmong { .. }))
            && self.order.is_none()
            && self.limit.is_none()
            && self.uncompared.is_none()
            && plan.having.is_empty()
            && plan.dimensions.len() == 1
            && let [Measure::Metric { metric, .. }] = plan.measures.as_slice()
            && ontology
                .metrics
                .iter()
                .any(|m| m.name == *metric && m.aggregate == Aggregate::Sum)
        {
            plan.having.push(Threshold {
                measure: 0,
                condition: bound(Op::Above, 0),
            });
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
            let mut index = shown_at(&mut plan.dimensions, quantity.clone());
            // "Which circuit sits at the highest altitude": one thing asked
            // for is the row (or the rows, when tied) holding the extreme,
            // not every row in that order. The extreme is taken over the
            // rows the other filters keep, so it is used only where the
            // compiler can narrow by them (the row's own object or one it
            // points to).
            let one_row = self.limit.is_none()
                && self.peaks_one_row(ontology, &quantity)
                && plan
                    .filters
                    .iter()
                    .all(|f| graph::narrows(ontology, &quantity.object, &f.attribute.object));
            // A row with no value of it is not among the highest (lowest).
            plan.filters.push(Filter {
                attribute: quantity.clone(),
                condition: Condition::Present,
            });
            if one_row {
                // "the biggest single order, and who placed it": the thing
                // named is shown by its own name beside whoever else is
                // asked; "which customer had the most expensive order"
                // asks for the customer alone.
                if let Some(name) = self.own_name_beside(ontology, &plan, &quantity) {
                    plan.dimensions.insert(0, name);
                    index += 1;
                }
                plan.filters.push(Filter {
                    attribute: quantity,
                    condition: Condition::Extreme {
                        latest: descending,
                        among: None,
                    },
                });
            }
            plan.order = Some(Order::Dimension { index, descending });
            plan.limit = self.limit;
            plan.assumptions = assumptions;
            return ControlFlow::Break(Planned::Plan(plan));
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
        // "the top 10 finishers of the Monaco Grand Prix", "the final
        // standings top 5": with nothing measured, the top few are the best
        // finishing positions, first to last.
        if plan.measures.is_empty()
            && self.sort.is_none()
            && self.order != Some(false)
            && let Some(n) = self.limit.filter(|n| *n > 1)
            && let Some(position) = position_attribute(
                ontology,
                base_object(ontology, &plan).as_deref(),
                &self.mentioned,
            )
        {
            self.top_positions(ontology, &mut plan, position, n);
            plan.assumptions = assumptions;
            settle_routes(ontology, &mut plan, &self.named_objects(ontology));
            return ControlFlow::Break(Planned::Plan(plan));
        }
        // "Which customers spent the most": a ranking by nothing it can
        // measure would be a list in an order that means nothing.
        if self.order.is_some() && self.sort.is_none() && plan.measures.is_empty() {
            return ControlFlow::Break(Planned::NotAnswerable(
                "the question ranks by something it does not name as a measure; name a metric to rank by (such as one listed in the ontology)".to_owned(),
            ));
        }
        // "Top 5 customers" with nothing to rank them by is one number, and
        // a limit on one number is a limit dropped.
        if self.limit.is_some_and(|n| n > 1) && plan.dimensions.is_empty() {
            return ControlFlow::Break(Planned::NotAnswerable(
                "the question asks for a top few, but names nothing to rank them by; name a metric (such as one listed in the ontology)".to_owned(),
            ));
        }
        // "the 1998 orders with an order total above $350,000": the things
        // listed are shown with the number that let them in.
        if plan.measures.is_empty()
            && self.lists
            && let Some(listed) = plan.dimensions.first().map(|d| d.object.clone())
        {
            let compared: Vec<AttributeRef> = plan
                .filters
                .iter()
                .filter(|f| {
                    f.attribute.object == listed
                        && matches!(
                            f.condition,
                            Condition::AtLeast(_)
                                | Condition::AtMost(_)
                                | Condition::After(_)
                                | Condition::Before(_)
                                | Condition::Between(..)
                        )
                        && ontology
                            .attribute(&f.attribute.object, &f.attribute.attribute)
                            .is_some_and(|a| a.role == AttributeRole::Measure)
                })
                .map(|f| f.attribute.clone())
                .collect();
            for attribute in compared {
                shown_at(&mut plan.dimensions, attribute);
            }
        }
        // Order and limit.
        let shows_time = |d: &AttributeRef| {
            d.bucket.is_some()
                || ontology
                    .attribute(&d.object, &d.attribute)
                    .is_some_and(|a| a.role == AttributeRole::Time)
        };
        // "the races of 2021 in chronological order": in the order of the
        // things' own date, shown beside them where it is not yet.
        if self.in_time_order
            && self.order.is_none()
            && plan.measures.is_empty()
            && let Some(first) = plan.dimensions.first()
            && !plan.dimensions.iter().any(shows_time)
            && let Some(object) = ontology.objects.iter().find(|o| o.name == first.object)
            && let Some(date) = own_date(object)
                .or_else(|| own_year(object))
                .or_else(|| birth_date(object))
        {
            plan.dimensions
                .push(AttributeRef::new(&object.name, &date.name));
        }
        // "oldest season first": by the year or date shown, whatever else.
        let by_time = plan
            .dimensions
            .iter()
            .position(shows_time)
            .filter(|_| self.in_time_order && self.order.is_none());
        if let (Some(index), Some(descending)) = (by_time, self.sort) {
            plan.order = Some(Order::Dimension { index, descending });
        } else if let (Some(by), Some(descending)) = (&self.sort_by, self.sort)
            && plan.measures.is_empty()
        {
            let index = shown_at(&mut plan.dimensions, by.clone());
            plan.order = Some(Order::Dimension { index, descending });
        } else if let Some(descending) = self.order.or(self.sort) {
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
        if let Some(rank) = self.rank.filter(|_| plan.order.is_some()) {
            plan.limit = Some(1);
            plan.offset = Some(rank - 1);
        }
        self.rank_within(ontology, &mut plan, &groupings);
        // "the wikipedia link for Suzuka", "where did he finish": what is
        // looked up of one thing named is shown beside the thing's name.
        if let Some(name) = looked_up_subject(ontology, &plan, self.asked_plural) {
            plan.dimensions.insert(0, name);
            if let Some(Order::Dimension { index, .. }) = &mut plan.order {
                *index += 1;
            }
        }

        // "How much was Sebastian Vettel paid per season": an amount of
        // nothing the ontology measures is not a list of the seasons.
        if plan.measures.is_empty() && self.how_much {
            return ControlFlow::Break(Planned::NotAnswerable(
                "the question asks how much, but names no amount the ontology measures; name a metric (such as one listed in the ontology)".to_owned(),
            ));
        }
        if plan.measures.is_empty() && plan.dimensions.is_empty() {
            return ControlFlow::Break(Planned::NotAnswerable(
                "Cassis could not find anything to measure or show in this question; name a metric (such as one listed in the ontology) or what to list".to_owned(),
            ));
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
        // "which vendor has the most stock in total" still ranks vendors.
        let ranks_rows = self.ranks() && !plan.dimensions.is_empty();
        if self.together && !plan.measures.is_empty() && self.groupings.is_empty() && !ranks_rows {
            plan.dimensions.clear();
            plan.order = None;
            plan.limit = None;
        }
        // "constructors that have entered a Grand Prix but never won one":
        // with nothing else on the rows they took part through, that they
        // have such rows at all is the condition.
        if let Some(o) = self.took_part
            && let Some(excluded) = plan
                .filters
                .iter()
                .find(|f| matches!(f.condition, Condition::NotAmong { .. }))
            && plan
                .filters
                .iter()
                .all(|f| f.attribute.object == excluded.attribute.object)
            && let Some(key) = super::filters::single_key(&ontology.objects[o])
        {
            plan.filters.push(Filter {
                attribute: AttributeRef::new(&ontology.objects[o].name, &key.name),
                condition: Condition::Present,
            });
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
        ControlFlow::Continue(plan)
    }

    /// "What percentage of the 2023 races did Verstappen win": the plan's
    /// measure becomes the part, and the whole is a second metric named (or
    /// displaced) in the question, else the same measure without the
    /// question's value filters ("share of revenue from Europe"). A filter
    /// the whole cannot reach without fanning out applies to the part alone.
    fn as_share(&self, ontology: &Ontology, plan: &mut SemanticPlan) -> Result<(), String> {
        // "what percentage of line items were returned (return flag R)": a
        // value restating the measure's own condition is the part, not a
        // bound on the whole.
        let restated: Vec<Filter> = self
            .metrics
            .iter()
            .flat_map(|&(m, _)| {
                let m = &ontology.metrics[m];
                metric_conditions(ontology, m, &m.object).flatten()
            })
            .collect();
        plan.filters.retain(|f| !restated.contains(f));
        // "Of the line items shipped in 1996, what share arrived late": a
        // share of the things named, with nothing measured, is of how many
        // there are.
        // "what percentage of all line items were returned": so of all
        // the things named after "of all".
        if plan.measures.is_empty()
            && let Some(o) = self
                .count_of
                .or_else(|| self.mentioned.first().copied())
                .or_else(|| self.rolled_up.first().copied())
        {
            plan.measures.push(Measure::CountOf {
                object: ontology.objects[o].name.clone(),
            });
        }
        // "his win rate, as a percentage of his starts": a ratio asked as a
        // percentage is its numerator as a percentage of its denominator.
        if let [Measure::Metric { metric, .. }] = plan.measures.as_slice()
            && let Some(ratio) = ontology.metrics.iter().find(|m| m.name == *metric)
            && let (Some(numerator), Some(denominator)) = (&ratio.numerator, &ratio.denominator)
        {
            plan.measures = [numerator, denominator]
                .map(|side| Measure::Metric {
                    metric: side.clone(),
                    variant: None,
                })
                .to_vec();
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
        // "of the line items on orders placed in 1995, what percentage were
        // late": the things counted are named, and the whole is all of them;
        // a measure of what they belong to, displaced after them, only says
        // which.
        let of_counted = |m: &usize| {
            let object = &ontology.metrics[*m].object;
            self.count_of
                .map(|o| &ontology.objects[o].name)
                .is_some_and(|counted| {
                    counted != object
                        && self
                            .metrics
                            .iter()
                            .all(|(part, _)| ontology.metrics[*part].object == *counted)
                })
        };
        let second = self
            .displaced
            .filter(|_| !self.displaced_modifies)
            .filter(|m| !of_counted(m))
            .or_else(|| self.also.first().copied())
            .map(metric)
            .filter(|m| !plan.measures.contains(m));
        let pair = match (plan.measures.as_slice(), second) {
            ([a, b], _) => Some((a.clone(), b.clone())),
            ([a], Some(b)) if self.displaced.is_some() && !self.displaced_modifies => {
                Some((a.clone(), b))
            }
            ([a], Some(b)) => Some((b, a.clone())),
            _ => None,
        };
        // "what percentage of line items arrived late": a count under a
        // condition, of things the question names, is a part of all of them.
        let all_of = |measure: &Measure| {
            // "what percentage of the drivers in race 18 did not finish": of
            // the things the metric's rows link to, those among its rows,
            // out of those among all such rows (the drivers who started).
            if let Measure::DistinctOf { object, metric } = measure
                && let Some(metric) = ontology.metrics.iter().find(|m| m.name == *metric)
                && metric.object != *object
                && metric.aggregate == Aggregate::Count
                && !metric.filters.is_empty()
                && let Some(all_rows) = ontology.metrics.iter().find(|m| {
                    m.object == metric.object
                        && m.aggregate == Aggregate::Count
                        && m.filters.is_empty()
                        && m.expr.is_none()
                })
            {
                let whole = Measure::DistinctOf {
                    object: object.clone(),
                    metric: all_rows.name.clone(),
                };
                return Some((measure.clone(), whole));
            }
            let (object, metric, variant) = match measure {
                Measure::DistinctOf { object, metric } => (object.as_str(), metric.as_str(), None),
                Measure::Metric { metric, variant } => {
                    let m = ontology.metrics.iter().find(|m| m.name == *metric)?;
                    (m.object.as_str(), metric.as_str(), variant.as_deref())
                }
                _ => return None,
            };
            let metric = ontology.metrics.iter().find(|m| m.name == metric)?;
            // "arrived late": a variant that adds a condition is one too.
            let conditioned = !metric.filters.is_empty()
                || variant.is_some_and(|v| {
                    metric.variants.iter().any(|x| {
                        x.name == v
                            && !x.default
                            && x.filters.as_ref().is_some_and(|f| !f.is_empty())
                    })
                });
            let mut things = self
                .count_of
                .iter()
                .chain(&self.mentioned)
                .chain(&self.rolled_up)
                .peekable();
            // "what is that as a percentage?": a question that names
            // nothing is of the things the chat counted (a total under a
            // condition stays a part of the same total).
            let names_nothing = things.peek().is_none() && self.values.is_empty();
            let named = things.any(|o| ontology.objects[*o].name == object)
                || (names_nothing && metric.aggregate == Aggregate::Count);
            if !(named
                && conditioned
                && matches!(metric.aggregate, Aggregate::Count | Aggregate::Sum)
                && (metric.object == object || metric.aggregate == Aggregate::Count))
            {
                return None;
            }
            let whole = Measure::CountOf {
                object: object.to_owned(),
            };
            // "what percentage of all line items were returned": a total
            // under a condition, read as an adjective of the things
            // counted, is a count of those under the condition.
            let part = match measure {
                Measure::Metric { metric: name, .. } if metric.aggregate == Aggregate::Sum => {
                    Measure::DistinctOf {
                        object: object.to_owned(),
                        metric: name.clone(),
                    }
                }
                _ => measure.clone(),
            };
            Some((part, whole))
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
                if let Some((part, whole)) = all_of(part)
                    && (!plan
                        .filters
                        .iter()
                        .any(|f| !is_time(f) && f.condition.other_attribute().is_none())
                        || self.value_at.is_some_and(|at| at < self.weak_at)
                        // "what is that as a percentage?", after how many
                        // RAIL line items arrived late: values the question
                        // does not name are the chat's scope, the whole's
                        // too.
                        || self.values.is_empty()
                        // "of all AIR line items": the whole is named.
                        || self.whole_named
                        // Of the things the rows link to, the whole is
                        // those among all rows, under the same filters.
                        || matches!(whole, Measure::DistinctOf { .. })) =>
            {
                (part, whole)
            }
            // "as a percentage?", after the units returned: a total under a
            // condition is a part of the same total over every row.
            // "the late rate by ship mode": a count under a condition is a
            // part of all its rows, unless a value says which part ("of
            // the wins, McLaren's").
            (None, [part])
                if let Some(whole) = unconditioned_twin(ontology, part)
                    && (matches!(whole, Measure::Metric { .. })
                        || plan.filters.iter().all(is_time)) =>
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
        // "what percentage of races were won from pole", "what share of
        // poles became wins": of two counts of the same rows under
        // conditions, the part's rows are among the whole's.
        let conditional_count = |measure: &Measure| match measure {
            Measure::Metric {
                metric,
                variant: None,
            } => ontology
                .metrics
                .iter()
                .find(|m| m.name == *metric)
                .filter(|m| m.aggregate == Aggregate::Count && !m.filters.is_empty()),
            _ => None,
        };
        let (part, whole, among) = match (conditional_count(&part), conditional_count(&whole)) {
            (Some(p), Some(w)) if p.object == w.object && p.name != w.name => {
                let named_first = self.share_names_whole && plan.measures.len() == 2;
                let (part, whole, w) = if named_first {
                    (whole, part, p)
                } else {
                    (part, whole, w)
                };
                let among: Vec<Filter> = metric_conditions(ontology, w, &w.object)
                    .flatten()
                    .collect();
                (part, whole, among)
            }
            _ => (part, whole, Vec::new()),
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
        // "what percent of all AIR line items is that": values named after
        // "of all" bound the whole as well as the part.
        let named_for_whole = |filter: &Filter| {
            self.values.iter().any(|v| {
                (v.of_whole || (v.before_share && self.opens_scoped && !self.whole_named))
                    && !v.negated
                    && v.options.iter().any(|(a, _)| *a == filter.attribute)
            })
        };
        // "what share of his wins is that": the person "his" refers to
        // scopes the whole.
        // Not "what share of all wins did he get", where "all" names the
        // whole.
        let whose = |filter: &Filter| {
            self.refers_to_answer
                && !self.whole_named
                && is_one_text_value(filter)
                && is_display(ontology, &filter.attribute)
                && ontology
                    .objects
                    .iter()
                    .find(|o| o.name == filter.attribute.object)
                    .is_some_and(is_person)
        };
        let (shared, only): (Vec<Filter>, Vec<Filter>) = std::mem::take(&mut plan.filters)
            .into_iter()
            // A comparison of two attributes ("received after the committed
            // date") says which rows are the part, like a value does.
            .partition(|f| {
                // "what percentage of the drivers in race 950": the one
                // row named scopes the whole as well.
                if same {
                    is_time(f) || named_for_whole(f) || names_one_row(ontology, f) || whose(f)
                } else {
                    reaches(f) && f.condition.other_attribute().is_none()
                }
            });
        // "share of revenue by region": each group's part of them all.
        if same && only.is_empty() && plan.dimensions.is_empty() {
            return Err(
                "Cassis could not tell which part the percentage is of; name it, such as a value (\"from customers in Europe\") or a second metric (\"wins as a percentage of starts\")"
                    .to_owned(),
            );
        }
        let only = only
            .into_iter()
            .chain(among)
            .fold(Vec::new(), |mut only, filter| {
                if !only.contains(&filter) && !plan.filters.contains(&filter) {
                    only.push(filter);
                }
                only
            });
        plan.filters = shared;
        plan.measures = vec![Measure::Share {
            part: Box::new(part),
            whole: Box::new(whole),
            only,
        }];
        // "late delivery rate by ship mode": a percentage per group, ranked
        // by the percentage where the question ranks ("which constructor
        // had the highest percentage of podiums").
        let per_group = !self.groupings.is_empty() || self.per_year || self.order.is_some();
        if !per_group {
            plan.dimensions.clear();
            plan.limit = None;
        }
        plan.order = match plan.order {
            _ if plan.dimensions.is_empty() => None,
            Some(Order::Measure { descending, .. }) => Some(Order::Measure {
                index: 0,
                descending,
            }),
            dimension => dimension,
        };
        Ok(())
    }

    /// "Drivers who drove for both Ferrari and McLaren": the things listed
    /// keep those with as many different values as were named.
    fn having_every_value(&self, ontology: &Ontology, plan: &mut SemanticPlan) {
        // "drivers who have won races for both McLaren and Ferrari": the
        // rows a count like wins counts, listed by who has every value
        // among them.
        if let [
            Measure::Metric {
                metric,
                variant: None,
            },
        ] = plan.measures.as_slice()
            && !plan.dimensions.is_empty()
            && !self.counts
            && plan
                .filters
                .iter()
                .any(|f| matches!(&f.condition, Condition::OneOf(values) if values.len() > 1))
            && self.order.is_none()
            && self.limit.is_none()
            && let Some(metric) = ontology.metrics.iter().find(|m| m.name == *metric)
            && metric.aggregate == Aggregate::Count
            && metric.kind == MetricKind::Simple
            && let Some(conditions) =
                metric_conditions(ontology, metric, &metric.object).collect::<Option<Vec<Filter>>>()
            && !conditions.is_empty()
        {
            plan.measures.clear();
            plan.order = None;
            plan.filters.extend(conditions);
        }
        if !plan.measures.is_empty() || plan.dimensions.is_empty() {
            return;
        }
        let named = plan.filters.iter().find_map(|f| match &f.condition {
            Condition::OneOf(values)
                if values.len() > 1
                    && plan
                        .dimensions
                        .iter()
                        .all(|d| d.object != f.attribute.object)
                    && ontology
                        .attribute(&f.attribute.object, &f.attribute.attribute)
                        .is_some() =>
            {
                Some((f.attribute.clone(), values.len()))
            }
            _ => None,
        });
        let Some((attribute, count)) = named else {
            return;
        };
        let attribute_object = attribute.object.clone();
        plan.measures.push(Measure::Aggregate {
            attribute,
            aggregate: Aggregate::CountDistinct,
        });
        plan.having.push(Threshold {
            measure: 0,
            condition: Condition::OneOf(vec![Literal::Integer(count as i64)]),
        });
        // The count goes the way the list went: through the closest thing
        // both are a lookup away from (a driver's results, not his
        // qualifying sessions, which start in 1994).
        let ends = [
            plan.dimensions[0].object.as_str(),
            attribute_object.as_str(),
        ];
        let bridge = ontology
            .objects
            .iter()
            .filter_map(|o| {
                graph::join_tree(ontology, &o.name, &ends)
                    .ok()
                    .filter(|tree| !tree.fans_out())
                    .map(|tree| (tree.steps.len(), o.name.as_str()))
            })
            .min_by_key(|(steps, _)| *steps)
            .map(|(_, name)| name.to_owned());
        if let Some(bridge) = bridge
            && !ends.contains(&bridge.as_str())
            && !plan.via.contains(&bridge)
        {
            plan.via.push(bridge);
        }
    }

    /// "Drivers with more than 50 wins", "customers who spent more than
    /// 500000": a number compared with the measure, per thing named.
    fn bound_per_thing(
        &self,
        ontology: &Ontology,
        plan: &mut SemanticPlan,
        op: Op,
        n: i64,
    ) -> Result<(), String> {
        let refused = || {
            format!(
                "the question compares something with {n}, but Cassis could not tell what: name the measure and the things it is per (such as \"customers with more than 30 orders\")"
            )
        };
        // "which nationalities have more than 50 drivers": with nothing
        // measured, the things named after the number are counted, per
        // kind of them asked for.
        if plan.measures.is_empty()
            && let Some(o) = self.uncompared_of
        {
            let object = &ontology.objects[o];
            // "codes used by more than one driver": the drivers are what is
            // counted, not a kind of them to show.
            let counted = |d: &AttributeRef| d.object == object.name && is_display(ontology, d);
            if plan.dimensions.iter().any(|d| !counted(d)) {
                plan.dimensions.retain(|d| !counted(d));
            }
            let kind = |d: &AttributeRef| {
                // "which nations have more than 6000 customers": a thing
                // each of them has one of is a kind of them too.
                let reached = || {
                    graph::join_tree(ontology, &object.name, &[d.object.as_str()])
                        .is_ok_and(|tree| !tree.fans_out())
                };
                d.bucket.is_none() && !counted(d) && (d.object == object.name || reached())
            };
            if plan.dimensions.iter().all(kind) {
                plan.measures.push(Measure::CountOf {
                    object: object.name.clone(),
                });
                // A driver with no code has no code in common with another.
                plan.filters.extend(
                    plan.dimensions
                        .iter()
                        .filter(|d| d.object == object.name)
                        .map(|d| Filter {
                            attribute: d.clone(),
                            condition: Condition::Present,
                        }),
                );
            }
        }
        let [measure] = plan.measures.as_slice() else {
            return Err(refused());
        };
        let measure = measure.clone();
        // "How many customers have fewer than 5 orders": the things with
        // none at all are in no group, so a count of those under a bound
        // would leave them out.
        let counts_things =
            self.counts && (self.uncompared_of.is_some() || self.count_of.is_some());
        if counts_things && matches!(op, Op::AtMost | Op::Below) {
            return Err(format!(
                "Cassis can count the things whose total is above {n}, not yet those below it (the things with none would be missed); ask which they are instead"
            ));
        }
        if counts_things {
            return self.count_passing(ontology, plan, measure, bound(op, n));
        }
        // "parts supplied by more than 3 suppliers": the total compared
        // counts the suppliers; a count of anything else is not it.
        if let Some(o) = self.uncompared_of {
            let name = &ontology.objects[o].name;
            let counts_it = match &measure {
                Measure::CountOf { object } | Measure::DistinctOf { object, .. } => object == name,
                Measure::Metric { metric, .. } => ontology
                    .metrics
                    .iter()
                    .find(|m| m.name == *metric)
                    // "won more than 10 races": each win is one race's.
                    .is_some_and(|m| {
                        m.aggregate == Aggregate::Count
                            && (m.object == *name
                                || graph::direct_link(ontology, &m.object, name).is_some())
                    }),
                _ => false,
            };
            if !counts_it {
                return Err(refused());
            }
        }
        if plan.dimensions.is_empty() {
            let base = base_object(ontology, plan).unwrap_or_default();
            let per = self
                .count_of
                .iter()
                .chain(&self.mentioned)
                .chain(&self.weak_object)
                .map(|o| &ontology.objects[*o])
                .find(|o| {
                    o.name != base
                        && graph::join_tree(ontology, &base, &[o.name.as_str()])
                            .is_ok_and(|tree| !tree.fans_out())
                });
            if let Some(object) = per
                && let Some(name) = display_attribute(object)
            {
                plan.dimensions.push(AttributeRef::new(&object.name, name));
            }
        }
        if plan.dimensions.is_empty() || !adds_up(ontology, &measure) {
            return Err(refused());
        }
        plan.having.push(Threshold {
            measure: 0,
            condition: bound(op, n),
        });
        Ok(())
    }

    /// "How many customers have more than 30 orders", "how many drivers
    /// have won more than 20 races": the things counted, each with its total
    /// of what the number counts, kept when the total passes, then counted.
    fn count_passing(
        &self,
        ontology: &Ontology,
        plan: &mut SemanticPlan,
        measure: Measure,
        condition: Condition,
    ) -> Result<(), String> {
        let refused = || {
            "Cassis could not tell which things to count or what their totals count; ask which they are instead (such as \"customers with more than 30 orders\")".to_owned()
        };
        let thing = self
            .count_of
            .or(self.weak_object)
            .map(|o| &ontology.objects[o])
            .ok_or_else(refused)?;
        let compared = self.uncompared_of.map(|o| ontology.objects[o].name.clone());
        // "customers" read as the count of customers: what is compared is
        // the count of the other things ("orders"), per customer; "drivers
        // who won" as the number of different winners: their wins.
        let of = match measure {
            Measure::DistinctOf { object, metric } if object == thing.name => Measure::Metric {
                metric,
                variant: None,
            },
            Measure::CountOf { object } if object == thing.name => Measure::CountOf {
                object: compared.ok_or_else(refused)?,
            },
            Measure::Metric { metric, .. }
                if ontology
                    .metrics
                    .iter()
                    .find(|m| m.name == metric)
                    .is_some_and(|m| m.object == thing.name && m.aggregate == Aggregate::Count) =>
            {
                Measure::CountOf {
                    object: compared.ok_or_else(refused)?,
                }
            }
            other => other,
        };
        let base = base_object(
            ontology,
            &SemanticPlan {
                measures: vec![of.clone()],
                ..SemanticPlan::default()
            },
        )
        .ok_or_else(refused)?;
        let per = display_attribute(thing)
            .map(|name| AttributeRef::new(&thing.name, name))
            .ok_or_else(refused)?;
        let joins = graph::join_tree(ontology, &base, &[thing.name.as_str()])
            .is_ok_and(|tree| !tree.fans_out());
        if base == thing.name || !joins || !adds_up(ontology, &of) {
            return Err(refused());
        }
        plan.measures = vec![Measure::CountPassing {
            of: Box::new(of),
            per,
            condition,
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
        plan.measures = vec![difference(measure, from, minus)];
    }

    /// The rows in the first `n` positions, by position: who holds each
    /// when the question asks who (or names a person), else the thing the
    /// positions rank.
    fn top_positions(
        &self,
        ontology: &Ontology,
        plan: &mut SemanticPlan,
        position: AttributeRef,
        n: u32,
    ) {
        // The ranked rows' own key says nothing: who holds the place does.
        plan.dimensions.retain(|d| {
            d.object != position.object
                || ontology
                    .attribute(&d.object, &d.attribute)
                    .is_none_or(|a| a.role != AttributeRole::Identifier)
        });
        if plan.dimensions.is_empty()
            && let Some(holder) = ranked_holder(ontology, &position.object)
        {
            plan.dimensions.push(holder);
        }
        plan.dimensions.retain(|d| *d != position);
        plan.dimensions.insert(0, position.clone());
        plan.filters.retain(|f| f.attribute != position);
        plan.filters.push(Filter {
            attribute: position,
            condition: Condition::AtMost(Literal::Integer(i64::from(n))),
        });
        plan.order = Some(Order::Dimension {
            index: 0,
            descending: false,
        });
        plan.limit = None;
    }
}

/// "Show the final constructors' standings for 2019", "who was leading
/// the drivers' standings after round 5": rows known only by their own
/// key (a standing after a race) are shown as who they are of, with what
/// they record (position, points, wins), in order of position; with no
/// race named, as they stood after the last race in the question's time.
/// A measure grouped by such rows is grouped by who they are of.
fn standings_listed(ontology: &Ontology, plan: &mut SemanticPlan) {
    let keyed_only = |d: &AttributeRef| {
        ontology
            .objects
            .iter()
            .find(|o| o.name == d.object)
            .is_some_and(|o| {
                display_attribute(o) == Some(d.attribute.as_str())
                    && o.attributes
                        .iter()
                        .any(|a| a.name == d.attribute && a.role == AttributeRole::Identifier)
            })
    };
    let Some(at) = plan.dimensions.iter().position(keyed_only) else {
        return;
    };
    let rows = plan.dimensions[at].object.clone();
    let Some(object) = ontology.objects.iter().find(|o| o.name == rows) else {
        return;
    };
    let looked_up: Vec<&crate::ontology::Object> = ontology
        .relationships
        .iter()
        .filter(|r| r.from == rows)
        .filter_map(|r| ontology.objects.iter().find(|o| o.name == r.to))
        .collect();
    let dated = |o: &crate::ontology::Object| {
        o.attributes
            .iter()
            .any(|a| a.role == AttributeRole::Time && !is_birth_date(a))
    };
    // Of a driver after a race: the one undated thing with a name.
    let holders: Vec<AttributeRef> = looked_up
        .iter()
        .filter(|o| !dated(o))
        .filter_map(|o| {
            let name = display_attribute(o)?;
            o.attributes
                .iter()
                .any(|a| a.name == name && a.role != AttributeRole::Identifier)
                .then(|| AttributeRef::new(&o.name, name))
        })
        .collect();
    let ([held_by], Some(event)) = (holders.as_slice(), looked_up.iter().find(|o| dated(o))) else {
        return;
    };
    let held_by = held_by.clone();
    plan.dimensions
        .retain(|d| d.object != rows || !keyed_only(d));
    if !plan.dimensions.contains(&held_by) {
        plan.dimensions
            .insert(at.min(plan.dimensions.len()), held_by);
    }
    // "who topped the final standings, and with how many points": the
    // measure is of the holder; the rows it is read from stay unshown.
    if !plan.measures.is_empty() {
        return;
    }
    for attribute in &object.attributes {
        let recorded = AttributeRef::new(&rows, &attribute.name);
        if attribute.role != AttributeRole::Identifier && !plan.dimensions.contains(&recorded) {
            plan.dimensions.push(recorded);
        }
    }
    if plan.order.is_none()
        && let Some(position) =
            position_attribute(ontology, Some(&rows), &[]).filter(|p| p.object == rows)
        && let Some(index) = plan.dimensions.iter().position(|d| *d == position)
    {
        plan.order = Some(Order::Dimension {
            index,
            descending: false,
        });
    }
    // A race, round or day named says which standings; else the last.
    let event_named = plan.filters.iter().any(|f| {
        f.attribute.object == event.name
            && ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| {
                    a.role != AttributeRole::Time
                        || (a.data_type == crate::ontology::DataType::Date
                            && matches!(f.condition, Condition::OneOf(_)))
                })
    });
    let latest = event
        .attributes
        .iter()
        .find(|a| a.role == AttributeRole::Time && a.data_type == crate::ontology::DataType::Date);
    if !event_named && let Some(date) = latest {
        plan.filters.push(Filter {
            attribute: AttributeRef::new(&event.name, &date.name),
            condition: Condition::Extreme {
                latest: true,
                among: Some(rows.clone()),
            },
        });
    }
}

/// What holds a position of `object`'s rows: a person it links to
/// directly, else the first thing with a name it links to.
fn ranked_holder(ontology: &Ontology, object: &str) -> Option<AttributeRef> {
    let linked: Vec<&crate::ontology::Object> = ontology
        .objects
        .iter()
        .filter(|o| o.name != object && graph::direct_link(ontology, object, &o.name).is_some())
        .collect();
    let holder = linked
        .iter()
        .find(|o| is_person(o))
        .or_else(|| linked.iter().find(|o| display_attribute(o).is_some()))?;
    display_attribute(holder).map(|name| AttributeRef::new(&holder.name, name))
}

/// Where `attribute` stands among the plan's dimensions, added last when
/// it is not yet shown: the column a list is ordered by.
fn shown_at(dimensions: &mut Vec<AttributeRef>, attribute: AttributeRef) -> usize {
    match dimensions.iter().position(|d| *d == attribute) {
        Some(index) => index,
        None => {
            dimensions.push(attribute);
            dimensions.len() - 1
        }
    }
}

/// The rows a breakdown counts: those from which everything the plan shows
/// and filters by is one lookup away ("status breakdown for 2023": the
/// results, which name a status and a race), the nearest such.
pub(super) fn tallied_rows(ontology: &Ontology, plan: &SemanticPlan) -> Option<String> {
    let mut needed: Vec<&str> = plan
        .dimensions
        .iter()
        .map(|d| d.object.as_str())
        .chain(plan.filters.iter().map(|f| f.attribute.object.as_str()))
        .collect();
    needed.sort_unstable();
    needed.dedup();
    let root = graph::lookup_root(ontology, &needed)?;
    // "the most common finishing status": each status is one row of its
    // own, so what is tallied is the one kind of row that has a status.
    let named_by_itself = !plan.dimensions.is_empty()
        && plan
            .dimensions
            .iter()
            .all(|d| d.object == root && is_display(ontology, d));
    if named_by_itself
        && let [holder] = ontology
            .relationships
            .iter()
            .filter(|r| r.to == root && r.from != root)
            .map(|r| r.from.as_str())
            .collect::<Vec<_>>()
            .as_slice()
    {
        return Some((*holder).to_owned());
    }
    Some(root.to_owned())
}

/// The metric that adds up what `measure` adds up, over every row: "units
/// shipped" for "units returned" (the same sum, under a condition).
fn unconditioned_twin(ontology: &Ontology, measure: &Measure) -> Option<Measure> {
    let Measure::Metric {
        metric,
        variant: None,
    } = measure
    else {
        return None;
    };
    let metric = ontology.metrics.iter().find(|m| m.name == *metric)?;
    if metric.filters.is_empty() {
        return None;
    }
    // "the late rate by ship mode": a count under a condition is a part
    // of all the rows it counts among.
    if metric.counts_rows_under_condition() {
        return Some(Measure::CountOf {
            object: metric.object.clone(),
        });
    }
    let mut twins = ontology.metrics.iter().filter(|m| {
        m.object == metric.object
            && m.filters.is_empty()
            && m.variants.is_empty()
            && m.adds_up_like(metric)
    });
    let twin = twins.next()?;
    twins.next().is_none().then(|| Measure::Metric {
        metric: twin.name.clone(),
        variant: None,
    })
}

/// The name of the one thing a lookup is of: a plan that shows only
/// attributes (no measure, no thing's name), under a filter to one text
/// value (a name first), names that thing by its display attribute. None
/// where each row shown would not have exactly one such thing.
fn looked_up_subject(
    ontology: &Ontology,
    plan: &SemanticPlan,
    asked_plural: bool,
) -> Option<AttributeRef> {
    if !plan.measures.is_empty()
        || plan.dimensions.is_empty()
        || plan.dimensions.iter().any(|d| is_display(ontology, d))
    {
        return None;
    }
    // "the brands made by Manufacturer#3": asked in the plural of what
    // only a name is sure to pin to one thing.
    let subject = plan
        .filters
        .iter()
        .filter(|f| is_one_text_value(f))
        .find(|f| is_a_name(ontology, &f.attribute))
        .or_else(|| {
            plan.filters
                .iter()
                .filter(|_| !asked_plural)
                .find(|f| is_one_text_value(f))
        })?;
    let name = display_of(ontology, &subject.attribute.object)?;
    let shown = &plan.dimensions[0].object;
    let one_each = *shown == name.object
        || graph::join_tree(ontology, shown, &[name.object.as_str()])
            .is_ok_and(|tree| !tree.fans_out());
    one_each.then_some(name)
}

impl Reading {
    /// The name of the thing whose number picks the row, when the question
    /// names that thing and asks nothing else by name: "the biggest single
    /// order, and who placed it" shows the order beside the customer.
    fn own_name_beside(
        &self,
        ontology: &Ontology,
        plan: &SemanticPlan,
        quantity: &AttributeRef,
    ) -> Option<AttributeRef> {
        let o = ontology
            .objects
            .iter()
            .position(|o| o.name == quantity.object)
            .filter(|o| self.mentioned.contains(o))?;
        let shown_already = plan
            .dimensions
            .iter()
            .any(|d| d.object == quantity.object && d != quantity);
        let other_asked = self
            .asked
            .iter()
            .any(|a| a.object != quantity.object && is_display(ontology, a));
        if shown_already || other_asked {
            return None;
        }
        display_attribute(&ontology.objects[o])
            .map(|name| AttributeRef::new(&quantity.object, name))
    }

    /// "For each region, which customer had the most revenue", "the top 3
    /// drivers by points each season": a ranking of things asked for
    /// beside groups is each group's own ranking, cut at the limit (one
    /// where the question asks which one).
    fn rank_within(
        &self,
        ontology: &Ontology,
        plan: &mut SemanticPlan,
        groupings: &[AttributeRef],
    ) {
        if self.order.is_none()
            || self.rank.is_some()
            || self.ranks_groups(ontology, groupings)
            || plan.measures.len() != 1
            || !matches!(plan.order, Some(Order::Measure { .. }))
        {
            return;
        }
        let by_time = self.per_year || self.per_month || self.per_grain.is_some();
        let within: Vec<AttributeRef> = plan
            .dimensions
            .iter()
            .filter(|d| {
                groupings.contains(d)
                    || (by_time && (d.bucket.is_some() || names_row_time(ontology, d)))
            })
            .cloned()
            .collect();
        // What is ranked: every other dimension, of things other than the
        // groups.
        let ranked: Vec<&AttributeRef> = plan
            .dimensions
            .iter()
            .filter(|d| !within.contains(d))
            .collect();
        if within.is_empty()
            || ranked.is_empty()
            || ranked
                .iter()
                .any(|r| within.iter().any(|w| w.object == r.object))
        {
            return;
        }
        // The groups lead each row, as they head the answer.
        plan.dimensions.sort_by_key(|d| !within.contains(d));
        plan.limit = Some(plan.limit.unwrap_or(1));
        plan.limit_within = within;
    }
}

/// "how many more points did 1st have than him", "how many fewer points
/// did 2nd have than him" (he was the champion): a place against the one
/// thing the chat's last answer was about, or a holder of places the
/// question names, each a side of the difference. The place is the side
/// said first, so it is ahead with "more" and behind with "fewer".
fn place_against_answered(
    ontology: &Ontology,
    plan: &mut SemanticPlan,
    position: Option<&AttributeRef>,
    previous: Option<&SemanticPlan>,
    more: bool,
) {
    let ([measure], Some(position)) = (plan.measures.as_slice(), position) else {
        return;
    };
    if measure.is_composite() || !plan.dimensions.is_empty() {
        return;
    }
    let Some(place_at) = plan
        .filters
        .iter()
        .position(|f| f.attribute == *position && f.is_one_number())
    else {
        return;
    };
    // The one the chat answered with; else the one holder of places named
    // ("than Massa").
    let answered = previous.and_then(|p| p.answered.as_deref());
    let holder = ranked_holder(ontology, &position.object).map(|h| h.object);
    let thing_at = match plan.filters.iter().position(|f| Some(f) == answered) {
        Some(at) => at,
        None => {
            let named: Vec<usize> = (0..plan.filters.len())
                .filter(|&i| {
                    let f = &plan.filters[i];
                    i != place_at
                        && is_one_text_value(f)
                        && holder.as_deref() == Some(f.attribute.object.as_str())
                })
                .collect();
            let [at] = named.as_slice() else {
                return;
            };
            *at
        }
    };
    let place = plan.filters[place_at].clone();
    let thing = plan.filters[thing_at].clone();
    let (from, minus) = if more { (place, thing) } else { (thing, place) };
    plan.filters.retain(|f| *f != from && *f != minus);
    plan.measures = vec![difference(measure, vec![from], vec![minus])];
}

/// `of` under the `from` filters minus `of` under the `minus` filters.
fn difference(of: &Measure, from: Vec<Filter>, minus: Vec<Filter>) -> Measure {
    Measure::Difference {
        of: Box::new(of.clone()),
        from,
        minus,
    }
}
