//! When: years, dates and ranges on the time in reach of what is measured,
//! groupings by period, and the earliest or latest of something.

use super::{Assembly, Reading, display_of, is_display, simple_filter, things_counted};
use crate::engine::compile::display_attribute;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan};
use crate::engine::planner::Planned;
use crate::engine::planner::attributes::{age_of, event_of_age, is_person, push_unique};
use crate::engine::planner::time::{
    by_year_if_date, date_attribute, date_condition, day_attribute, group_by_grain, is_birth_date,
    names_date, names_row_time, year_attribute, year_attribute_reaching, year_condition,
};
use crate::ontology::{Aggregate, Grain, Ontology};
use std::ops::ControlFlow;

impl Reading {
    /// The plan's time filters and groupings by period.
    pub(super) fn date(
        &self,
        ontology: &Ontology,
        assembly: &mut Assembly,
    ) -> ControlFlow<Planned> {
        let Assembly {
            plan,
            assumptions,
            base,
            groupings,
            extreme_object,
            anchor,
            rank_by,
            ..
        } = assembly;
        let extreme_object = *extreme_object;
        // "the most championship points after the final race of 2013": the
        // rows ranked by their own number are those of the latest race.
        let ranks_rows = rank_by.is_some();
        // "What is the name of race 1000 and in which year was it held":
        // the year of the thing shown, beside it; with a measure, per year.
        if self.year_asked
            && let Some(time) = self
                .time_anchor(ontology, anchor.as_deref(), plan)
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
            let anchor = self.time_anchor(ontology, anchor.as_deref(), plan);
            // A list or a distinct count may reach its year through many rows.
            let distinct_only = plan.measures.iter().all(|m| {
                matches!(
                    m,
                    Measure::DistinctOf { .. }
                        | Measure::Aggregate {
                            aggregate: Aggregate::CountDistinct,
                            ..
                        }
                ) || things_counted(ontology, m).is_some()
            });
            // "shipped by truck in 1996": the date the question names is
            // the one the year is of.
            // "the guy who won the 2012 singapore gp - when was he born?":
            // a birth date asked with "when" is what the answer gives, never
            // what a year in the question picks.
            let asked_birth = |a: &AttributeRef| {
                self.when
                    && ontology
                        .attribute(&a.object, &a.attribute)
                        .is_some_and(is_birth_date)
            };
            let named_date = self.year_after_date.as_ref().or_else(|| {
                self.asked
                    .iter()
                    .find(|a| names_date(ontology, a) && !asked_birth(a))
            });
            // Only the thing's own date: a season's year is the year itself.
            let qualified = self
                .year_of
                .and_then(|o| year_attribute(ontology, &ontology.objects[o].name))
                .filter(|time| {
                    self.year_of
                        .is_some_and(|o| ontology.objects[o].name == time.object)
                        && names_date(ontology, time)
                });
            let time = qualified.or_else(|| named_date.cloned()).or_else(|| {
                anchor.as_deref().and_then(|a| {
                    year_attribute(ontology, a).or_else(|| {
                        year_attribute_reaching(ontology, a, distinct_only)
                            .filter(|_| distinct_only)
                    })
                })
            });
            let Some(time) = time else {
                return ControlFlow::Break(Planned::NotAnswerable(
                    "the question names a year, but nothing it asks about has a date or year in the ontology".to_owned(),
                ));
            };
            let mut condition = year_condition(&self.years);
            // "which region grew the most compared to 1995?", after revenue
            // in 1996: the chat's year against the one named.
            let chat_year = plan.filters.iter().find_map(|f| match &f.condition {
                Condition::OneOf(list) if f.attribute == time => match list.as_slice() {
                    [Literal::Integer(year)] => Some(*year),
                    _ => None,
                },
                _ => None,
            });
            let against_chat_year = self.growth.is_some() && self.comparison;
            if against_chat_year
                && let (Some(then), Condition::OneOf(named)) = (chat_year, &condition)
                && let [Literal::Integer(named)] = named.as_slice()
                && then != *named
            {
                condition = Condition::OneOf(vec![
                    Literal::Integer(then.min(*named)),
                    Literal::Integer(then.max(*named)),
                ]);
            }
            let several = matches!(&condition, Condition::OneOf(list) if list.len() > 1)
                && !against_chat_year;
            // The chat's fiscal year gives way as well: "and the fiscal
            // year before that?" is read as a year, made fiscal after.
            let fiscal_time = AttributeRef {
                bucket: Some(Grain::FiscalYear),
                ..time.clone()
            };
            plan.filters
                .retain(|f| f.attribute != time && f.attribute != fiscal_time);
            // A list that names the date still shows it ("races in 2024 with
            // their dates"); a measure is not split by it.
            // A verb's date ("born in 1980", "shipped in 1996") says which
            // rows, and is not asked to be shown.
            let shown = named_date.is_some_and(|d| !self.dated_by_verb.contains(d))
                && plan.measures.is_empty();
            // "won Monaco since 2000, with the year": years asked for
            // beside a span of them are shown.
            let asked =
                self.year_asked && !matches!(&condition, Condition::OneOf(list) if list.len() == 1);
            plan.dimensions
                .retain(|d| *d != time || groupings.contains(d) || shown || asked);
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
            let Some(day) = self.dated_day(ontology, anchor.as_deref(), plan) else {
                return ControlFlow::Break(Planned::NotAnswerable(
                    "the question names a date, but nothing it asks about has a date in the ontology".to_owned(),
                ));
            };
            plan.filters.retain(|f| f.attribute != day);
            // "British drivers born after 31/12/1994": the verb's date says
            // which things are listed, so they are shown, with it.
            if plan.measures.is_empty()
                && plan.dimensions == [day.clone()]
                && self.dated_by_verb.contains(&day)
                && let Some(name) = display_of(ontology, &day.object)
            {
                plan.dimensions.insert(0, name);
            }
            plan.filters.push(Filter {
                attribute: day,
                condition: date_condition(&self.dates),
            });
        }

        // "races held in April": the month of every year, on the same day
        // attribute a date would filter.
        if !self.months.is_empty() {
            let Some(day) = self.dated_day(ontology, anchor.as_deref(), plan) else {
                return ControlFlow::Break(Planned::NotAnswerable(
                    "the question names a month, but nothing it asks about has a date in the ontology".to_owned(),
                ));
            };
            plan.filters.push(Filter {
                attribute: day.by(Grain::MonthOfYear),
                condition: Condition::OneOf(
                    self.months
                        .iter()
                        .map(|m| Literal::Integer(i64::from(*m)))
                        .collect(),
                ),
            });
        }

        if let Some(grain) = self.per_grain.filter(|_| !plan.measures.is_empty()) {
            group_by_grain(ontology, plan, grain, base.as_deref());
        }

        // "customers in the BUILDING segment", "orders placed in Feb 1994":
        // the attribute a value or date filters is named, not grouped by.
        // "which teams other than Mercedes": the things asked for, but one,
        // are still listed one by one.
        if !plan.measures.is_empty() && !self.comparison {
            let filtered: Vec<AttributeRef> = plan
                .filters
                .iter()
                .filter(|f| {
                    !(self.lists
                        && matches!(f.condition, Condition::NoneOf(_))
                        && is_display(ontology, &f.attribute))
                })
                // "those five brands": several values still tell the rows
                // apart.
                .filter(|f| !matches!(&f.condition, Condition::OneOf(list) if list.len() > 1))
                .map(|f| f.attribute.clone())
                .collect();
            plan.dimensions
                .retain(|d| !(filtered.contains(d) && self.asked.contains(d)));
        }

        // "What was the last Grand Prix Kimi Räikkönen won", "when did
        // Hamilton win his first race": not a count at that date but the
        // race itself, among the rows the count would count.
        if self.extreme.is_some()
            && !self.counts
            && !self.averaged
            && (!self.who || extreme_object.is_some_and(|o| is_person(&ontology.objects[o])))
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

        // "The youngest driver ever to win a Grand Prix": not the winner
        // born last but the one youngest on the day, by the age the winning
        // rows hold (an attribute reading the person's birth date). Within
        // a season the one born last is as good, and is what is asked.
        if self.extreme_of_age
            && let Some(latest) = self.extreme
            // "the 3 youngest winners" would name one driver per win.
            && self.limit.is_none_or(|n| n == 1)
            && plan.measures.is_empty()
            && !ranks_rows
            && let Some(o) = extreme_object
            && is_person(&ontology.objects[o])
            && let Some(birth) = date_attribute(ontology, &ontology.objects[o].name)
            && !plan.filters.iter().any(|f| names_row_time(ontology, &f.attribute))
            && let Some(age) = age_at_event(ontology, plan, &birth)
        {
            if let Some(a) = display_attribute(&ontology.objects[o]) {
                let name = AttributeRef::new(&ontology.objects[o].name, a);
                if !plan.dimensions.contains(&name) {
                    plan.dimensions.insert(0, name);
                }
            }
            plan.dimensions.retain(|d| *d != birth);
            push_unique(&mut plan.dimensions, age.clone());
            // "and how old was he": on the day of which race.
            for event in event_of_age(ontology, &age) {
                push_unique(&mut plan.dimensions, event);
            }
            let index = plan
                .dimensions
                .iter()
                .position(|d| *d == age)
                .unwrap_or_default();
            plan.order = Some(Order::Dimension {
                index,
                descending: !latest,
            });
            plan.limit = Some(self.limit.unwrap_or(1));
            plan.assumptions = std::mem::take(assumptions);
            return ControlFlow::Break(Planned::Plan(std::mem::take(plan)));
        }

        // "The oldest driver", "the first race of 2009": rows by a date,
        // earliest or latest first, one unless a number says how many.
        if let Some(latest) = self.extreme
            && plan.measures.is_empty()
            && !ranks_rows
            && let Some(o) = extreme_object
            && let Some(date) = date_attribute(ontology, &ontology.objects[o].name)
        {
            // "What was the first race held at Bahrain, and on what date":
            // the thing itself leads, whatever else is asked of it.
            if let Some(a) = display_attribute(&ontology.objects[o]) {
                let name = AttributeRef::new(&ontology.objects[o].name, a);
                // A name, not an order's status.
                let a_name = ontology
                    .attribute(&name.object, &name.attribute)
                    .is_some_and(|a| a.naming_words().contains("name"));
                // "which track hosted the opening race of 2005": the track
                // asked for leads, and is the answer.
                let other_thing_asked = self
                    .asked
                    .first()
                    .is_some_and(|a| a.object != name.object && is_display(ontology, a));
                if !plan.dimensions.contains(&name)
                    && (plan.dimensions.is_empty() || (self.mentioned.contains(&o) && a_name))
                {
                    let at = usize::from(other_thing_asked).min(plan.dimensions.len());
                    plan.dimensions.insert(at, name);
                }
            }
            // "give the race name and year": the year beside it.
            if self.year_asked
                && let Some(year) = year_attribute(ontology, &ontology.objects[o].name)
                && year != date
            {
                push_unique(&mut plan.dimensions, year);
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
            plan.assumptions = std::mem::take(assumptions);
            return ControlFlow::Break(Planned::Plan(std::mem::take(plan)));
        }

        // "Races in the latest season", "who won the most recent race": the
        // measure at the latest value, among the rows it measures.
        if let Some(latest) = self.extreme
            && (!plan.measures.is_empty() || ranks_rows)
            && let Some(o) = extreme_object
        {
            let name = &ontology.objects[o].name;
            // A race's own date, a season's year: the finest grain it has.
            let Some(time) =
                date_attribute(ontology, name).or_else(|| year_attribute(ontology, name))
            else {
                return ControlFlow::Break(Planned::NotAnswerable(format!(
                    "the question asks for the {} {name}, but it has no date or year in the ontology",
                    if latest { "latest" } else { "earliest" }
                )));
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
        ControlFlow::Continue(())
    }

    /// The day attribute a date or month of the question filters: the
    /// dated thing's own ("the race held on …"), else the one in reach of
    /// what is measured.
    fn dated_day(
        &self,
        ontology: &Ontology,
        anchor: Option<&str>,
        plan: &crate::engine::plan::SemanticPlan,
    ) -> Option<AttributeRef> {
        let anchor = self.time_anchor(ontology, anchor, plan);
        // "had a ship date between Feb 1 and Feb 7", "shipped since
        // 1995-03-15": the date the question names.
        let named = self
            .asked
            .iter()
            .chain(&self.verb_dates)
            .find(|a| a.bucket.is_none() && names_date(ontology, a))
            .cloned();
        if named.is_some() {
            return named;
        }
        // A thing's own day, not one it reaches.
        let own_day = |o: usize| {
            let name = &ontology.objects[o].name;
            day_attribute(ontology, name).filter(|day| day.object == *name)
        };
        // "customers from the FURNITURE segment who ordered something
        // between 1 Jan and 30 June": the date of the things the verb names,
        // when what is counted has none in reach.
        self.date_of
            .and_then(own_day)
            .or_else(|| anchor.as_deref().and_then(|a| day_attribute(ontology, a)))
            .or_else(|| self.mentioned.iter().copied().find_map(own_day))
    }
}

/// The attribute of the rows `plan` keeps that is a person's age on the
/// day: one whose expression reads the person's `birth` date.
fn age_at_event(
    ontology: &Ontology,
    plan: &SemanticPlan,
    birth: &AttributeRef,
) -> Option<AttributeRef> {
    plan.filters
        .iter()
        .map(|f| f.attribute.object.as_str())
        .filter(|o| *o != birth.object)
        .find_map(|o| {
            let object = ontology.objects.iter().find(|x| x.name == o)?;
            let age = object
                .attributes
                .iter()
                .find(|a| age_of(ontology, a).as_ref() == Some(birth))?;
            Some(AttributeRef::new(o, &age.name))
        })
}
