//! What the question keeps: values named, numbers compared, keys, and the
//! rows a negation excludes.

use super::{Assembly, Reading, ValueMention, bound, display_of, is_a_name, is_display};
use crate::engine::compile::display_attribute;
use crate::engine::graph;
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, PlanAssumption, SemanticPlan,
};
use crate::engine::planner::Planned;
use crate::engine::planner::attributes::{
    is_person, measured_object, position_attribute, push_unique,
};
use crate::engine::planner::labels::attribute_label;
use crate::engine::planner::time::year_condition;
use crate::ontology::{Aggregate, AttributeRole, MetricKind, Ontology};
use std::ops::ControlFlow;

impl Reading {
    /// The plan's filters from values, comparisons, keys and exclusions.
    pub(super) fn filter(
        &self,
        ontology: &Ontology,
        assembly: &mut Assembly,
    ) -> ControlFlow<Planned> {
        let Assembly {
            plan,
            assumptions,
            previous,
            base,
            excluded,
            ..
        } = assembly;
        let excluded = *excluded;
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
        // "brass parts (type ending in BRASS)": a word said twice is one
        // value, a kind of things if either mention says so.
        let folded = |text: &str| crate::engine::text::fold(text);
        let kinds: Vec<String> = self
            .values
            .iter()
            .filter(|v| v.before_its_things)
            .map(|v| folded(&v.text))
            .collect();
        for (
            at,
            ValueMention {
                options,
                text,
                negated,
                ..
            },
        ) in self.values.iter().enumerate()
        {
            let said_before = self.values[..at].iter().any(|earlier| {
                folded(&earlier.text) == folded(text)
                    && earlier.negated == *negated
                    && earlier.options == *options
            });
            if said_before {
                continue;
            }
            let before_its_things = &kinds.contains(&folded(text));
            // The value of an object the question is about, else the one
            // that joins to it most directly.
            let counted = self.count_of.map(|o| ontology.objects[o].name.as_str());
            let score = |attribute: &AttributeRef| -> usize {
                // "How many drivers won for McLaren": counting things by their
                // own name is rare; the name is another object's.
                // "Which drivers raced for Williams": so is listing them,
                // or ranking them ("which drivers won, not counting McLaren
                // drivers").
                let listed = plan
                    .dimensions
                    .iter()
                    .any(|d| d.object == attribute.object && is_display(ontology, d));
                if (counted == Some(attribute.object.as_str()) || listed)
                    && is_a_name(ontology, attribute)
                {
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
            let names_rows = |attribute: &AttributeRef| !is_display(ontology, attribute);
            // "how many points did they score for Williams", after "who
            // drove for Williams": the team the chat already filters.
            let new_in_chat = |attribute: &AttributeRef, values: &[String]| {
                !previous.is_some_and(|p| {
                    p.filters.iter().any(|f| {
                        f.attribute == *attribute
                            && matches!(&f.condition, Condition::OneOf(list)
                                if list.iter().any(|l| values.iter().any(|v| *l == Literal::Text(v.clone()))))
                    })
                })
            };
            let Some((attribute, values)) = options
                .iter()
                .enumerate()
                .min_by_key(|(i, (attribute, values))| {
                    (
                        new_in_chat(attribute, values),
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
            // "USA" and "United States" both stored: one country spelled
            // two ways, so both are kept, not a choice to ask about.
            let one_thing = values.len() > 1
                && values[1..].iter().all(|other| {
                    let folded = crate::engine::text::fold(other);
                    crate::engine::demonyms::kin(&values[0])
                        .iter()
                        .any(|kin| crate::engine::text::fold(kin) == folded)
                });
            // "brass parts": a word every value ends with, and no value is,
            // said before the things it is of, names a kind of them
            // ("ECONOMY ANODIZED BRASS", "SMALL PLATED BRASS" …), all kept.
            // "part brass" still asks which; names are told apart, not
            // pooled.
            let folded_text = crate::engine::text::fold(text);
            let one_kind = values.len() > 2
                && *before_its_things
                && !is_a_name(ontology, attribute)
                && values.iter().all(|v| {
                    let mut words = v.split_whitespace();
                    words.clone().count() > 1
                        && words
                            .next_back()
                            .is_some_and(|w| crate::engine::text::fold(w) == folded_text)
                });
            if one_kind {
                assumptions.push(PlanAssumption::stated(format!(
                    "\"{text}\" read as every {} ending in it ({} values)",
                    attribute_label(ontology, attribute).to_lowercase(),
                    values.len()
                )));
            }
            if one_thing || one_kind {
                let filter = Filter {
                    attribute: attribute.clone(),
                    condition: if *negated {
                        Condition::NoneOf(literals)
                    } else {
                        Condition::OneOf(literals)
                    },
                };
                plan.filters.push(filter);
                continue;
            }
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
                // "excluding AIR or REG AIR": one exclusion of both.
                match plan.filters.iter_mut().find(|f| {
                    f.attribute == *attribute && matches!(f.condition, Condition::NoneOf(_))
                }) {
                    Some(Filter {
                        condition: Condition::NoneOf(list),
                        ..
                    }) => {
                        if !list.contains(&chosen[0]) {
                            list.push(chosen[0].clone());
                        }
                    }
                    _ => plan.filters.push(Filter {
                        attribute: attribute.clone(),
                        condition: Condition::NoneOf(chosen),
                    }),
                }
                continue;
            }
            match plan.filters.iter_mut().find(|f| f.attribute == *attribute) {
                // Two values of one attribute in one question are both kept.
                Some(existing)
                    if self.comparison
                        || value_dimensions.contains(attribute)
                        || (!self.only && previous.is_none()) =>
                {
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
                    && display_of(ontology, &attribute.object)
                        .is_some_and(|shown| plan.dimensions.contains(&shown));
                if several && !named_already {
                    // "Hamilton vs Rosberg": a last name is a part of how a
                    // driver is shown, and two drivers may share it, so the
                    // drivers themselves are compared.
                    let compared = display_of(ontology, &attribute.object)
                        .filter(|_| is_a_name(ontology, &attribute))
                        .unwrap_or(attribute);
                    // "Did customers in GERMANY or in FRANCE place more
                    // orders?": asked neither which nor who, the customers
                    // only say whose orders; the two nations are compared.
                    if !self.lists && !self.who {
                        plan.dimensions.retain(|d| {
                            *d == compared
                                || !self.asked.contains(d)
                                || display_of(ontology, &d.object).as_ref() != Some(d)
                        });
                    }
                    push_unique(&mut plan.dimensions, compared);
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
            // "Where did Alonso finish": the thing the ontology calls a
            // finish has a position, which is the answer, not where the race
            // was ("where was qualifying held" is a place).
            let finish_named = self.mentioned.iter().any(|o| {
                let object = &ontology.objects[*o];
                let finish = std::iter::once(object.label.to_lowercase())
                    .chain(object.synonyms.iter().map(|s| s.to_lowercase()))
                    .any(|w| w.split_whitespace().any(|w| w == "finish"));
                finish
                    && position_attribute(ontology, Some(&object.name), &[])
                        .is_some_and(|p| p.object == object.name)
            });
            // "Where is he from": of a person named alone, a nationality.
            let person_alone = self
                .mentioned
                .iter()
                .all(|o| is_person(&ontology.objects[*o]));
            if let Some(object) = object.as_deref().filter(|_| !finish_named) {
                let own = place_attributes(ontology, object, person_alone);
                if !own.is_empty() {
                    plan.dimensions.extend(own);
                } else if let Some((site, places)) = ontology
                    .relationships
                    .iter()
                    .filter(|r| r.from == object)
                    .map(|r| (r.to.as_str(), place_attributes(ontology, &r.to, false)))
                    .find(|(_, places)| !places.is_empty())
                {
                    // "Where was the 2010 Abu Dhabi Grand Prix held": a thing
                    // with no place of its own is where the one it belongs
                    // to is (a race, at its circuit).
                    plan.dimensions.extend(display_of(ontology, site));
                    plan.dimensions.extend(places);
                }
            }
            // "Where did Alonso finish in the 2011 Spanish Grand Prix": of a
            // thing with a position and no place, the position.
            if plan.dimensions.is_empty()
                && let Some(position) = self.mentioned.iter().find_map(|o| {
                    let name = &ontology.objects[*o].name;
                    position_attribute(ontology, Some(name), &[]).filter(|p| p.object == *name)
                })
            {
                plan.dimensions.push(position);
            }
        }

        // "Where were the most races held": ranked by the place the
        // measured things are at (a race's circuit).
        if self.place_first
            && self.order.is_some()
            && plan.dimensions.is_empty()
            && self.groupings.is_empty()
            && let [measure] = plan.measures.as_slice()
            && let Some(measured) = measured_object(ontology, measure)
            && let Some(site) = nearest_site(ontology, &measured)
        {
            plan.dimensions.extend(display_of(ontology, &site));
        }

        if let Some((m, o)) = excluded {
            let object = &ontology.objects[o];
            let Some(key) = single_key(object) else {
                return ControlFlow::Break(Planned::NotAnswerable(format!(
                    "the question excludes {}, but {} has no key attribute to exclude by",
                    ontology.metrics[m].name, object.name
                )));
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
        for (attribute, op, n) in &self.compared {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: bound(*op, *n),
            });
            if plan.measures.is_empty()
                && plan.dimensions.is_empty()
                && let Some(o) = ontology.objects.iter().find(|o| o.name == attribute.object)
                && let Some(a) = display_attribute(o)
            {
                plan.dimensions.push(AttributeRef::new(&o.name, a));
            }
        }

        // "drivers who don't have a code".
        for attribute in &self.missing {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: Condition::Missing,
            });
            plan.dimensions.retain(|d| d != attribute);
            if plan.measures.is_empty()
                && plan.dimensions.is_empty()
                && let Some(o) = ontology.objects.iter().find(|o| o.name == attribute.object)
                && let Some(a) = display_attribute(o)
            {
                plan.dimensions.push(AttributeRef::new(&o.name, a));
            }
        }

        // "drivers with a recorded fastest lap speed".
        for attribute in &self.present {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: Condition::Present,
            });
        }

        // "drivers who started from grid 4".
        for (attribute, n) in &self.equals {
            plan.filters.retain(|f| f.attribute != *attribute);
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: Condition::OneOf(vec![Literal::Integer(*n)]),
            });
            plan.dimensions.retain(|d| d != attribute);
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

        // "orders with a total above the average for 1998".
        if let Some((condition, attribute)) = &self.against_average {
            plan.filters.push(Filter {
                attribute: attribute.clone(),
                condition: condition.clone(),
            });
        }

        // Keys: the object's one-column primary key, read as an identifier.
        for (o, key) in &self.keys {
            let object = &ontology.objects[*o];
            let Some(attribute) = single_key(object) else {
                return ControlFlow::Break(Planned::NotAnswerable(format!(
                    "the question names {} {key} by number, but the ontology declares no single key for {}",
                    object.name, object.name
                )));
            };
            plan.filters.push(Filter {
                attribute: AttributeRef::new(&object.name, &attribute.name),
                condition: Condition::OneOf(vec![Literal::Integer(*key)]),
            });
        }
        ControlFlow::Continue(())
    }

    /// "Customers who never ordered in 1997", "races in 2022 not won by Red
    /// Bull": a condition on anything but the excluded things themselves
    /// applies to the rows excluded. A time applies to the things as well
    /// where the question sets what holds against what does not ("raced in
    /// 2024 but never made the podium that year").
    pub(super) fn scope_exclusion(&self, ontology: &Ontology, plan: &mut SemanticPlan) {
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
        // "customers in FRANCE who didn't order in 1996": a value the
        // things look up themselves (their nation) is theirs, where they
        // are what is counted or listed ("revenue excluding customers in
        // AMERICA" excludes the customers there), and unless the question
        // names something else that looks it up too ("suppliers who never
        // sold to customers in FRANCE").
        let things_asked = match plan.measures.as_slice() {
            [Measure::CountOf { object: o } | Measure::DistinctOf { object: o, .. }] => {
                *o == object
            }
            [] => plan.dimensions.iter().any(|d| d.object == object),
            _ => false,
        };
        let describes_things = |f: &Filter| {
            let looked_up =
                |from: &str| !graph::routes(ontology, from, &f.attribute.object).is_empty();
            things_asked
                && looked_up(&object)
                && !self.mentioned.iter().any(|o| {
                    let other = ontology.objects[*o].name.as_str();
                    other != object && other != f.attribute.object && looked_up(other)
                })
        };
        // "Which drivers didn't score a point in 2021": what a conditional
        // count excludes (winning results), or a sum of a column rows record
        // as zero (points), is some of the things' rows then, so the things
        // are those with rows then (drivers who raced in 2021). "Customers
        // who never ordered in 1997", or had no revenue then (a sum worked
        // out from prices adds on every row), excludes every row of 1997, so
        // any customer may be one.
        let counts_some_rows = |m: &crate::ontology::Metric| {
            !m.filters.is_empty()
                || (m.aggregate == Aggregate::Sum
                    && m.expr
                        .as_deref()
                        .is_some_and(|e| e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')))
        };
        let excludes_some_rows = matches!(
            &plan.filters[at].condition,
            Condition::NotAmong { metric, .. }
                if ontology.metrics.iter().any(|m| m.name == *metric && counts_some_rows(m))
        );
        // "Which drivers raced for Ferrari but never won for Ferrari": a
        // value named before the negation says which things as well.
        let named_before = |f: &Filter| {
            let Condition::OneOf(literals) = &f.condition else {
                return false;
            };
            self.values
                .iter()
                .filter(|v| self.values_before_negation.contains(&v.text))
                .any(|v| {
                    v.options.iter().any(|(a, values)| {
                        *a == f.attribute
                            && literals
                                .iter()
                                .all(|l| values.iter().any(|v| *l == Literal::Text(v.clone())))
                    })
                })
        };
        let mut within = Vec::new();
        let mut kept = Vec::new();
        for (i, filter) in std::mem::take(&mut plan.filters).into_iter().enumerate() {
            let things_own = filter.attribute.object == object
                || (!is_time(&filter) && describes_things(&filter));
            if i == at || things_own {
                kept.push(filter);
            } else if is_time(&filter) && !self.years_lacking.is_empty() {
                // "in 2020 but not in 2019": the first year is the things'.
                within.push(Filter {
                    attribute: filter.attribute.clone(),
                    condition: year_condition(&self.years_lacking),
                });
                kept.push(filter);
            } else if is_time(&filter)
                && self.time_before_negation
                && self.ever
                && self.never
                && !self.same_time
            {
                // "drivers who raced in 2025 have never finished on the
                // podium in any race": the time is the drivers' alone.
                // "raced in 2020 but did not score any points (that
                // season)" is of 2020.
                kept.push(filter);
            } else if (is_time(&filter)
                && (self.contrast || self.time_before_negation || excludes_some_rows))
                || named_before(&filter)
            {
                within.push(filter.clone());
                kept.push(filter);
            } else {
                within.push(filter);
            }
        }
        kept.extend(self.contrast_filters.iter().cloned());
        if let Some(Filter {
            condition: Condition::NotAmong { within: scoped, .. },
            ..
        }) = kept
            .iter_mut()
            .find(|f| matches!(f.condition, Condition::NotAmong { .. }))
        {
            scoped.extend(within);
        }
        plan.filters = kept;
    }

    /// "Which drivers have never driven for Ferrari": a value excluded on
    /// rows the things counted or listed have many of excludes the things
    /// with any such row, not the rows alone (a driver with one Ferrari
    /// race and one McLaren race has driven for Ferrari).
    pub(super) fn exclude_whole_things(&self, ontology: &Ontology, plan: &mut SemanticPlan) {
        if plan
            .filters
            .iter()
            .any(|f| matches!(f.condition, Condition::NotAmong { .. }))
        {
            return;
        }
        let things = match plan.measures.as_slice() {
            // "How many drivers have never driven for Ferrari but won a
            // race": the drivers with a win are counted.
            [Measure::CountOf { object }] => Some(object.clone()),
            // "how many 1997 orders didn't have a single line shipped by
            // TRUCK": a plain count of the things.
            [Measure::Metric { metric, .. }] => ontology
                .metrics
                .iter()
                .find(|m| m.name == *metric)
                .filter(|m| {
                    m.aggregate == Aggregate::Count
                        && m.kind == MetricKind::Simple
                        && m.filters.is_empty()
                        && m.expr.is_none()
                })
                .map(|m| m.object.clone()),
            // "won a race for a team other than Ferrari" leaves out rows.
            [Measure::DistinctOf { object, .. }] if self.verb_negates_value => Some(object.clone()),
            [] => plan
                .dimensions
                .iter()
                .find(|d| is_display(ontology, d))
                .map(|d| d.object.clone()),
            _ => None,
        };
        let Some(things) = things else {
            return;
        };
        let Some(object) = ontology.objects.iter().find(|o| o.name == things) else {
            return;
        };
        let Some(key) = single_key(object) else {
            return;
        };
        let Some(at) = plan.filters.iter().position(|f| {
            matches!(f.condition, Condition::NoneOf(_)) && f.attribute.object != things
        }) else {
            return;
        };
        let excluded_object = plan.filters[at].attribute.object.clone();
        // "drivers in race 901 whose status was not 'Finished'": within one
        // row of another thing, each of the things has one row between, so
        // the rows are what the negation leaves out.
        let one_other_row = plan
            .filters
            .iter()
            .any(|f| f.attribute.object != things && names_one_row(ontology, f));
        if one_other_row && !self.verb_negates_value {
            return;
        }
        // "customers not in Germany": a value the things look up (their
        // own nation) is excluded row by row, as it is.
        if !graph::routes(ontology, &things, &excluded_object).is_empty() {
            return;
        }
        // The rows between: rows of the things (a driver's results) that
        // look the excluded value up (each result's team), which a metric
        // counts plainly; the exclusion's way to them.
        // Where no count of them is declared ("parts never shipped by AIR":
        // line items), a total of every row's own column counts each row
        // that records one.
        let on_the_rows = |m: &&crate::ontology::Metric| {
            m.filters.is_empty()
                && m.kind == MetricKind::Simple
                && graph::direct_link(ontology, &m.object, &things).is_some()
                && (m.object == excluded_object
                    || !graph::routes(ontology, &m.object, &excluded_object).is_empty())
        };
        let bare_column = |m: &&crate::ontology::Metric| {
            m.expr
                .as_deref()
                .is_some_and(|e| e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        };
        let Some(metric) = ontology
            .metrics
            .iter()
            .filter(on_the_rows)
            .find(|m| m.aggregate == Aggregate::Count)
            .or_else(|| {
                ontology
                    .metrics
                    .iter()
                    .filter(on_the_rows)
                    .find(|m| m.aggregate == Aggregate::Sum && bare_column(m))
            })
        else {
            return;
        };
        let Condition::NoneOf(values) = plan.filters[at].condition.clone() else {
            return;
        };
        let excluded = plan.filters[at].attribute.clone();
        plan.filters[at] = Filter {
            attribute: AttributeRef::new(&object.name, &key.name),
            condition: Condition::NotAmong {
                metric: metric.name.clone(),
                within: vec![Filter {
                    attribute: excluded,
                    condition: Condition::OneOf(values),
                }],
            },
        };
    }
}

/// Whether `filter` picks one row by its key: "in race 901".
pub(super) fn names_one_row(ontology: &Ontology, filter: &Filter) -> bool {
    matches!(&filter.condition, Condition::OneOf(values) if values.len() == 1)
        && ontology
            .objects
            .iter()
            .find(|o| o.name == filter.attribute.object)
            .and_then(single_key)
            .is_some_and(|k| k.name == filter.attribute.attribute)
}

/// The attribute holding an object's one-column primary key, which
/// exclusions and keys named by number filter on.
pub(super) fn single_key(object: &crate::ontology::Object) -> Option<&crate::ontology::Attribute> {
    let [key] = object.primary_key.as_slice() else {
        return None;
    };
    object
        .attributes
        .iter()
        .find(|a| a.column_name() == Some(key.as_str()))
}

/// The nearest object with a location of its own that `object` leads to,
/// one row for each of its rows: a race's circuit.
fn nearest_site(ontology: &Ontology, object: &str) -> Option<String> {
    let mut reached = vec![object.to_owned()];
    let mut at = 0;
    while at < reached.len() && at < ontology.objects.len() {
        let current = reached[at].clone();
        let located = ontology
            .objects
            .iter()
            .find(|o| o.name == current)
            .is_some_and(|o| {
                o.attributes.iter().any(|a| {
                    a.naming_words()
                        .split(' ')
                        .any(|w| matches!(w, "location" | "city" | "address" | "country"))
                })
            });
        if located {
            return Some(current);
        }
        for relationship in ontology.relationships.iter().filter(|r| r.from == current) {
            if !reached.contains(&relationship.to) {
                reached.push(relationship.to.clone());
            }
        }
        at += 1;
    }
    None
}

/// An object's attributes that say where it is: a location, city, address,
/// place or country; with `from`, also where a person is from (a
/// nationality).
fn place_attributes(ontology: &Ontology, object: &str, from: bool) -> Vec<AttributeRef> {
    let Some(object) = ontology.objects.iter().find(|o| o.name == object) else {
        return Vec::new();
    };
    object
        .attributes
        .iter()
        .filter(|attribute| {
            let words = attribute.naming_words();
            ["location", "city", "address", "place", "country"]
                .iter()
                .any(|w| words.contains(w))
                || (from && is_person(object) && words.contains("nationality"))
        })
        .map(|attribute| AttributeRef::new(&object.name, &attribute.name))
        .collect()
}
