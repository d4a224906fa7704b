//! Named filters ("urgent orders"): an object's condition the question
//! names like a value, which the plan applies by name.

use super::{Assembly, Reading, simple_filter};
use crate::engine::lexicon::{Concept, Entry, Strength};
use crate::engine::plan::{Condition, Filter, Literal};
use crate::ontology::Ontology;

impl Reading {
    /// Keeps the named filters a concept names; true when it named one,
    /// which is then its whole meaning ("urgent" is no priority value).
    /// After "not", "except", "non-": the rows it keeps are excluded.
    pub(super) fn place_named_filter(&mut self, entries: &[Entry]) -> bool {
        let named: Vec<(usize, usize)> = entries
            .iter()
            .filter_map(|e| match e.concept {
                Concept::Filter { object, filter } => Some((object, filter)),
                _ => None,
            })
            .collect();
        if named.is_empty() {
            return false;
        }
        let negated = std::mem::take(&mut self.negate);
        for (object, filter) in named {
            let found = (object, filter, negated);
            if !self.named_filters.contains(&found) {
                self.named_filters.push(found);
            }
        }
        true
    }

    /// The named filters meant: of several things' filters one word names
    /// ("led" the drivers' or the constructors' standings), those of a
    /// thing the question names.
    pub(super) fn named_filters_meant(&self, ontology: &Ontology) -> Vec<(usize, usize, bool)> {
        let named: Vec<(usize, usize, bool)> = self
            .named_filters
            .iter()
            .copied()
            .filter(|(o, _, _)| self.has_named(ontology, *o))
            .collect();
        if named.is_empty() {
            self.named_filters.clone()
        } else {
            named
        }
    }

    /// The plan's filters for the named filters the question used.
    pub(super) fn apply_named_filters(&self, ontology: &Ontology, assembly: &mut Assembly) {
        for (o, f, negated) in &self.named_filters_meant(ontology) {
            let object = &ontology.objects[*o];
            let name = &object.filters[*f].name;
            let filter = if *negated {
                Filter::not_named(&object.name, name)
            } else {
                Filter::named(&object.name, name)
            };
            if !assembly.plan.filters.contains(&filter) {
                assembly.plan.filters.push(filter);
            }
        }
    }
}

/// The value a named filter's condition names (`o_orderpriority =
/// '1-URGENT'`), as a value entry, where the concept names such a filter
/// and `next` names a value of the same attribute ("urgent or high
/// priority").
pub(super) fn named_filter_as_value(
    ontology: &Ontology,
    entries: &[Entry],
    next: &[Entry],
) -> Option<Entry> {
    let joined: Vec<(usize, usize)> = next
        .iter()
        .filter_map(|e| match e.concept {
            Concept::Value {
                object, attribute, ..
            } => Some((object, attribute)),
            _ => None,
        })
        .collect();
    entries.iter().find_map(|e| {
        let Concept::Filter { object, filter } = e.concept else {
            return None;
        };
        let named = &ontology.objects[object].filters[filter];
        let condition = simple_filter(ontology, &ontology.objects[object].name, &named.expr)?;
        let Condition::OneOf(values) = condition.condition else {
            return None;
        };
        let [Literal::Text(value)] = values.as_slice() else {
            return None;
        };
        let attribute = ontology.objects[object]
            .attributes
            .iter()
            .position(|a| a.name == condition.attribute.attribute)?;
        joined.contains(&(object, attribute)).then(|| Entry {
            concept: Concept::Value {
                object,
                attribute,
                value: value.clone(),
            },
            strength: Strength::Value,
            alias: false,
        })
    })
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::compile;
    use crate::engine::lexicon::Lexicon;
    use crate::engine::plan::{Filter, Measure, SemanticPlan};
    use crate::engine::planner::{Planned, plan};
    use crate::project::Dialect;

    fn planned(question: &str) -> (SemanticPlan, String) {
        let ontology = crate::ontology::from_yaml(include_str!(
            "../../../../../examples/wholesale/ontology.yaml"
        ))
        .unwrap();
        let lexicon = Lexicon::build(&ontology, &[]);
        match plan(&ontology, &lexicon, question, None, None) {
            Planned::Plan(p) => {
                let sql = compile(&ontology, &p, Dialect::Postgres).unwrap().sql;
                (p, sql)
            }
            Planned::NotAnswerable(reason) => panic!("{question}: {reason}"),
        }
    }

    #[test]
    fn a_named_filter_is_used_by_its_name_and_synonyms() {
        let urgent = Filter::named("order", "urgent_orders");
        for question in [
            "how many urgent orders in 1995",
            "how many rush orders were placed in 1995",
        ] {
            let (p, sql) = planned(question);
            assert!(p.filters.contains(&urgent), "{question}: {p:?}");
            assert!(
                matches!(&p.measures[..], [Measure::Metric { metric, .. }] if metric == "order_count"),
                "{question}: {p:?}"
            );
            assert!(sql.contains("(o.o_orderpriority = '1-URGENT')"), "{sql}");
        }
        let (p, sql) = planned("revenue from urgent orders by region");
        assert!(p.filters.contains(&urgent), "{p:?}");
        assert!(sql.contains("(o.o_orderpriority = '1-URGENT')"), "{sql}");
        // Excluded after a negation, never kept.
        for question in [
            "how many orders were not urgent in 1995",
            "how many orders except urgent orders in 1995",
        ] {
            let (p, sql) = planned(question);
            assert!(
                p.filters
                    .contains(&Filter::not_named("order", "urgent_orders")),
                "{question}: {p:?}"
            );
            assert!(!p.filters.contains(&urgent), "{question}: {p:?}");
            assert!(
                sql.contains("NOT (o.o_orderpriority = '1-URGENT')"),
                "{sql}"
            );
        }
    }
}
