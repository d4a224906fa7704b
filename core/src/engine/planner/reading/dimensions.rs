//! What the answer is split by or shows: groupings, "who", the attributes
//! asked about, and the names of what a list lists.

use super::{Assembly, Reading, counted_without, is_display};
use crate::engine::compile::display_attribute;
use crate::engine::grammar;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use crate::engine::planner::Planned;
use crate::engine::planner::attributes::{
    base_object, is_person, nearest, own_number, person_attribute, position_attribute, push_unique,
};
use crate::engine::planner::labels::plural;
use crate::engine::planner::time::year_attribute;
use crate::ontology::{Aggregate, Ontology};
use std::ops::ControlFlow;

impl Reading {
    /// The plan's dimensions, and what later steps read the question
    /// against (the measured object, the position, the names).
    pub(super) fn frame<'a>(
        &self,
        ontology: &Ontology,
        mut plan: SemanticPlan,
        previous: Option<&'a SemanticPlan>,
        measured_rank: Option<AttributeRef>,
        excluded: Option<(usize, usize)>,
    ) -> ControlFlow<Planned, Assembly<'a>> {
        let base = base_object(ontology, &plan);
        let groupings: Vec<AttributeRef> = self
            .groupings
            .iter()
            .map(|candidates| {
                // "the suppliers in ROMANIA by account balance": the
                // balance of the things listed, not the customers'.
                candidates
                    .iter()
                    .find(|c| {
                        candidates.len() > 1 && self.asked.iter().any(|a| a.object == c.object)
                    })
                    .cloned()
                    .unwrap_or_else(|| nearest(ontology, base.as_deref(), candidates))
            })
            .collect();

        // Dimensions.
        for grouping in &groupings {
            // "average quantity per order line": per row of what is measured
            // is the plain average, not a group.
            let per_row = self.per
                && base.as_deref() == Some(grouping.object.as_str())
                && is_display(ontology, grouping)
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
            .then(|| {
                self.ordinal_of
                    .and_then(|o| own_number(ontology, o))
                    .or_else(|| position_attribute(ontology, base.as_deref(), &self.mentioned))
            })
            .flatten();
        if !self.ordinals.is_empty() && position.is_none() {
            return ControlFlow::Break(Planned::NotAnswerable(
                "the question names a position (such as \"second\"), but nothing it asks about has one in the ontology".to_owned(),
            ));
        }
        if let Some(position) = &position {
            plan.filters.retain(|f| f.attribute != *position);
            plan.filters.push(Filter {
                attribute: position.clone(),
                condition: Condition::OneOf(
                    self.ordinals.iter().map(|n| Literal::Integer(*n)).collect(),
                ),
            });
            // "and who came home third?", after "who won": the place asked
            // replaces the one a win is; the same rows are counted without it.
            for measure in &mut plan.measures {
                if let Measure::Metric { metric, .. } = measure
                    && let Some(free) = counted_without(ontology, metric, position)
                {
                    *metric = free;
                }
            }
        }
        // "finished in the top 3": a position up to 3, where the rows have
        // one; elsewhere ("customers in the top 10") the first rows.
        if let Some(n) = self.top_places {
            let position = self
                .top_places_of
                .clone()
                .or_else(|| position_attribute(ontology, base.as_deref(), &self.mentioned));
            match position {
                Some(position) => plan.filters.push(Filter {
                    attribute: position,
                    condition: if self.outside_top {
                        Condition::AtLeast(Literal::Integer(n + 1))
                    } else {
                        Condition::AtMost(Literal::Integer(n))
                    },
                }),
                None if self.outside_top => {
                    return ControlFlow::Break(Planned::NotAnswerable(format!(
                        "the question asks for what is outside the top {n}, but nothing it asks about has a position in the ontology"
                    )));
                }
                None => plan.limit = Some(n as u32),
            }
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
        // "Of all the drivers who took part in a race in 2023, who is the
        // oldest?": an age is a person's, whatever else is named.
        let aged = self
            .asked
            .iter()
            .filter_map(|a| ontology.objects.iter().position(|o| o.name == a.object))
            .chain(self.rolled_up.iter().copied())
            .find(|o| is_person(&ontology.objects[*o]))
            .filter(|_| self.extreme_of_age);
        let extreme_object = self.extreme.and(
            self.extreme_object
                .or(aged)
                .or(self.mentioned.first().copied())
                .or(if self.metrics.is_empty() {
                    first_named
                } else {
                    dated_by_metric
                }),
        );
        // What "who" and a year are read against when nothing is measured.
        let anchor = base
            .clone()
            .or_else(|| position.as_ref().map(|p| p.object.clone()))
            // "who had the slowest stop": the rows ranked.
            .or_else(|| measured_rank.as_ref().map(|q| q.object.clone()))
            .or_else(|| extreme_object.map(|o| ontology.objects[o].name.clone()))
            // "who set the fastest lap (rank 1) in race 1010": the rows a
            // number of their own picks.
            .or_else(|| self.equals.first().map(|(a, _)| a.object.clone()))
            // "who placed order number 7": the thing named by its key.
            .or_else(|| {
                self.keys
                    .first()
                    .map(|(o, _)| ontology.objects[*o].name.clone())
            });
        let mut person_found = false;
        if self.who {
            // "who is the youngest driver who raced in 2025": the person is
            // the one the extreme is about, whatever is measured.
            // A person object's name, as its rows are shown.
            let shown_person = |o: &usize| {
                let object = &ontology.objects[*o];
                is_person(object)
                    .then(|| display_attribute(object).map(|a| AttributeRef::new(&object.name, a)))
                    .flatten()
            };
            let extreme_person = extreme_object.as_ref().and_then(shown_person);
            let person = extreme_person.or_else(|| match anchor.as_deref() {
                Some(b) => person_attribute(ontology, b, &self.mentioned),
                // "who drove for Red Bull in 2010": nothing is measured, so
                // the people are those the filters reach, where the
                // ontology has one kind of person by name ("driver", not
                // "driver_standing"), and every word was read ("who was
                // Ferrari's team principal" asks for someone else).
                None if self.unread => None,
                None => {
                    let mut people = ontology.objects.iter().filter(|o| {
                        grammar::PERSON_WORDS
                            .iter()
                            .any(|p| o.name == *p || o.name == plural(p))
                    });
                    match (people.next(), people.next()) {
                        (Some(only), None) => {
                            display_attribute(only).map(|a| AttributeRef::new(&only.name, a))
                        }
                        _ => None,
                    }
                }
            });
            // "who was the winning driver of race 1000": the person named,
            // where what the question keys reaches no person of its own.
            let person = person.or_else(|| {
                self.mentioned
                    .iter()
                    .find(|o| is_person(&ontology.objects[**o]))
                    .and_then(shown_person)
            });
            match person {
                Some(attribute) => {
                    person_found = true;
                    push_unique(&mut plan.dimensions, attribute);
                    // "Who won the races held in May 2016": each race with
                    // its winner, not the winners' tally.
                    if self.order.is_none()
                        && self.limit.is_none()
                        && self.extreme.is_none()
                        && !self.counts
                        && plan.dimensions.len() == 1
                        && let Some(o) = self
                            .mentioned
                            .iter()
                            .find(|o| self.plural.contains(o))
                            .copied()
                            .or_else(|| self.counted_before(ontology, previous))
                        && let Some(shown) = display_attribute(&ontology.objects[o])
                    {
                        plan.dimensions
                            .insert(0, AttributeRef::new(&ontology.objects[o].name, shown));
                    }
                }
                None if plan.dimensions.is_empty() && self.asked.is_empty() => {
                    return ControlFlow::Break(Planned::NotAnswerable(
                        "the question asks who, but the ontology has no person in reach of what it measures".to_owned(),
                    ));
                }
                None => {}
            }
        }
        for asked in &self.asked {
            // "who placed order 7": the verb says what the person did; its
            // date is not asked.
            if person_found && self.dated_by_verb.contains(asked) {
                continue;
            }
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
                .is_some_and(|a| a.data_type.is_numeric())
        {
            plan.measures.push(Measure::Aggregate {
                attribute: asked.clone(),
                aggregate: Aggregate::Avg,
            });
            plan.dimensions.clear();
        }
        // "the constructors with the most wins": a ranked measure of another
        // object groups by that object. So does "the top 3 customers by
        // revenue in each region", within each group; but not the customers
        // a value describes ("the most revenue by region from BUILDING
        // customers"), nor where the groups are the things ranked ("top 5
        // countries by revenue, by customer country").
        let only_groups = plan.dimensions.iter().all(|d| groupings.contains(d))
            && (plan.dimensions.is_empty()
                || (self.order.is_some() && !self.ranks_groups(ontology, &groupings)));
        if !plan.measures.is_empty()
            && only_groups
            && !self.who
            && (self.order.is_some() || self.limit.is_some())
            && let Some(base) = base.as_deref()
            && let Some(o) = self.mentioned.iter().find(|o| {
                let name = &ontology.objects[**o].name;
                name != base
                    && graph::join_tree(ontology, base, &[name]).is_ok_and(|t| !t.fans_out())
                    && (plan.dimensions.is_empty()
                        || (!self.qualified.contains(o)
                            && !plan.dimensions.iter().any(|d| d.object == *name)
                            && !plan.filters.iter().any(|f| f.attribute.object == *name)))
            })
            && let Some(a) = display_attribute(&ontology.objects[*o])
        {
            plan.dimensions
                .push(AttributeRef::new(&ontology.objects[*o].name, a));
        }
        // "top 3 in the 2016 drivers' championship": a top few of a measure
        // that names no things are the people (or teams) it measures.
        if !plan.measures.is_empty()
            && plan.dimensions.is_empty()
            && self.limit.is_some_and(|n| n > 1)
            && let Some(base) = base.as_deref()
            && let Some(agent) = person_attribute(ontology, base, &[])
            // "top 5 customers": counting the people themselves ranks
            // nothing.
            && agent.object != base
        {
            plan.dimensions.push(agent);
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
        ControlFlow::Continue(Assembly {
            plan,
            assumptions: Vec::new(),
            previous,
            base,
            groupings,
            position,
            extreme_object,
            anchor,
            excluded,
            rank_by: measured_rank,
        })
    }
}

impl Reading {
    /// Whether the things a ranking names in the plural are among the
    /// groups: "top 5 countries by revenue, by customer country".
    /// Not where other things are asked for: in "for each season, which
    /// driver won the most races" the races are what is counted.
    pub(super) fn ranks_groups(&self, ontology: &Ontology, groupings: &[AttributeRef]) -> bool {
        groupings.iter().any(|g| {
            self.plural
                .iter()
                .any(|o| ontology.objects[*o].name == g.object)
                && self.asked.iter().all(|a| a.object == g.object)
        })
    }

    /// "Who won the ones held since 2021", after how many Dutch Grands Prix
    /// there have been: the things the last answer counted, referred to.
    fn counted_before(
        &self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> Option<usize> {
        if !self.refers_back {
            return None;
        }
        let [Measure::CountOf { object }] = previous?.measures.as_slice() else {
            return None;
        };
        ontology.objects.iter().position(|o| o.name == *object)
    }
}
