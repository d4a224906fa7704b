//! The relationship graph: which objects join, along which declared keys, and
//! whether a step fans out (one-to-many), which would count rows twice.

use crate::ontology::{Ontology, Relationship};
use std::collections::{BTreeMap, VecDeque};

/// One join step from an object already in the query to a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub relationship: usize,
    /// The object the step comes from.
    pub from: String,
    /// The object the step adds.
    pub to: String,
    /// True when `to` is on the many side: each row of `from` meets many.
    pub fans_out: bool,
}

/// The objects a query reads, as a tree rooted at its base object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinTree {
    pub base: String,
    /// In join order: every step's `from` is the base or an earlier `to`.
    pub steps: Vec<Step>,
}

impl JoinTree {
    pub fn fans_out(&self) -> bool {
        self.steps.iter().any(|s| s.fans_out)
    }

    pub fn objects(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.base.as_str()).chain(self.steps.iter().map(|s| s.to.as_str()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{to} is not connected to {from} by any relationship")]
pub struct Unreachable {
    pub from: String,
    pub to: String,
}

/// Shortest paths from `base` to each of `targets`, preferring many-to-one
/// steps (which never duplicate the base's rows), merged into one tree.
pub fn join_tree(
    ontology: &Ontology,
    base: &str,
    targets: &[&str],
) -> Result<JoinTree, Unreachable> {
    // (cost, steps) per object: a fan-out step costs more than a lookup step,
    // so a path that keeps the grain wins over an equally short one that does not.
    let mut best: BTreeMap<String, (usize, Vec<Step>)> = BTreeMap::new();
    best.insert(base.to_owned(), (0, Vec::new()));
    let mut queue = VecDeque::from([base.to_owned()]);
    while let Some(object) = queue.pop_front() {
        let (cost, path) = best[&object].clone();
        for (index, relationship) in ontology.relationships.iter().enumerate() {
            for step in steps_from(index, relationship, &object) {
                let step_cost = cost + if step.fans_out { 10 } else { 1 };
                let better = best
                    .get(&step.to)
                    .is_none_or(|(known, _)| step_cost < *known);
                if better {
                    let mut next = path.clone();
                    let to = step.to.clone();
                    next.push(step);
                    best.insert(to.clone(), (step_cost, next));
                    queue.push_back(to);
                }
            }
        }
    }
    let mut steps: Vec<Step> = Vec::new();
    for target in targets {
        let (_, path) = best.get(*target).ok_or_else(|| Unreachable {
            from: base.to_owned(),
            to: (*target).to_owned(),
        })?;
        for step in path {
            if !steps.iter().any(|s| s.to == step.to) {
                steps.push(step.clone());
            }
        }
    }
    Ok(JoinTree {
        base: base.to_owned(),
        steps,
    })
}

fn steps_from(index: usize, relationship: &Relationship, object: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    if relationship.from == object {
        steps.push(Step {
            relationship: index,
            from: object.to_owned(),
            to: relationship.to.clone(),
            fans_out: false,
        });
    }
    if relationship.to == object {
        steps.push(Step {
            relationship: index,
            from: object.to_owned(),
            to: relationship.from.clone(),
            fans_out: relationship.cardinality == crate::ontology::Cardinality::ManyToOne,
        });
    }
    steps
}
