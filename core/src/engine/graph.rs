//! The relationship graph: which objects join, along which declared keys, and
//! whether a step fans out (one-to-many), which would count rows twice.

use crate::ontology::{Cardinality, KeyPair, Ontology};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

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

/// A fan-out step costs more than a lookup step, so a path that keeps the
/// base's grain wins over an equally short one that does not.
const LOOKUP_COST: usize = 1;
const FAN_OUT_COST: usize = 10;
/// Down to many rows right after going up to one (a supplier's nation, then
/// that nation's customers) pairs rows that share only the parent: a
/// chasm, taken only where nothing else joins them.
const CHASM_COST: usize = 100;

/// How an object was reached: the path's cost and the last step taken
/// (relationship index, whether it fans out); `None` for the base itself.
type Arrival = (usize, Option<(usize, bool)>);

/// The cheapest path from one base object to every object it reaches.
#[derive(Debug)]
pub struct Paths<'a> {
    ontology: &'a Ontology,
    base: &'a str,
    /// For each reached object: its cost and the step that reached it.
    reached: HashMap<&'a str, Arrival>,
}

impl<'a> Paths<'a> {
    /// Dijkstra over the relationships, each seen from both ends.
    pub fn from(ontology: &'a Ontology, base: &'a str) -> Self {
        let mut adjacent: HashMap<&str, Vec<(usize, &str, bool)>> = HashMap::new();
        for (index, r) in ontology.relationships.iter().enumerate() {
            adjacent
                .entry(r.from.as_str())
                .or_default()
                .push((index, r.to.as_str(), false));
            adjacent.entry(r.to.as_str()).or_default().push((
                index,
                r.from.as_str(),
                r.cardinality == Cardinality::ManyToOne,
            ));
        }
        // Between ways of equal cost, the one through the rows the ontology
        // measures most: a driver reaches his teams through his race
        // results as through his qualifying sessions, and "drivers who
        // raced for Williams" means the results.
        let mut metrics_on: HashMap<&str, usize> = HashMap::new();
        for metric in &ontology.metrics {
            *metrics_on.entry(metric.object.as_str()).or_default() += 1;
        }
        let measured = |object: &str| Reverse(metrics_on.get(object).copied().unwrap_or(0));
        let mut reached: HashMap<&str, Arrival> = HashMap::new();
        reached.insert(base, (0, None));
        let mut queue = BinaryHeap::from([Reverse((0usize, measured(base), base))]);
        while let Some(Reverse((cost, _, object))) = queue.pop() {
            if reached.get(object).is_some_and(|(known, _)| *known < cost) {
                continue;
            }
            let arrived_by_lookup = matches!(reached.get(object), Some((_, Some((_, false)))));
            for &(relationship, next, fans_out) in adjacent.get(object).into_iter().flatten() {
                let step_cost = cost
                    + match (fans_out, arrived_by_lookup) {
                        (true, true) => FAN_OUT_COST + CHASM_COST,
                        (true, false) => FAN_OUT_COST,
                        (false, _) => LOOKUP_COST,
                    };
                if reached
                    .get(next)
                    .is_none_or(|(known, _)| step_cost < *known)
                {
                    reached.insert(next, (step_cost, Some((relationship, fans_out))));
                    queue.push(Reverse((step_cost, measured(next), next)));
                }
            }
        }
        Paths {
            ontology,
            base,
            reached,
        }
    }

    /// The steps from the base to `target`, in join order.
    pub fn path(&self, target: &str) -> Result<Vec<Step>, Unreachable> {
        let unreachable = || Unreachable {
            from: self.base.to_owned(),
            to: target.to_owned(),
        };
        let mut steps = Vec::new();
        let mut current = target;
        while current != self.base {
            let (_, step) = self.reached.get(current).ok_or_else(unreachable)?;
            let (relationship, fans_out) = step.ok_or_else(unreachable)?;
            let r = &self.ontology.relationships[relationship];
            // The step arrived at `current` from the relationship's other end.
            let from = if r.from == current { &r.to } else { &r.from };
            steps.push(Step {
                relationship,
                from: from.clone(),
                to: current.to_owned(),
                fans_out,
            });
            current = from;
            if steps.len() > self.ontology.relationships.len() {
                return Err(unreachable());
            }
        }
        steps.reverse();
        Ok(steps)
    }

    /// How many steps away `target` is and whether the way fans out.
    pub fn distance(&self, target: &str) -> Option<(usize, bool)> {
        let steps = self.path(target).ok()?;
        Some((steps.len(), steps.iter().any(|s| s.fans_out)))
    }
}

/// The one-column link by which rows of `from` name a row of `to`
/// (`results.driver_id` for a driver): what "how many different drivers
/// won" counts, and what "drivers who never won" excludes.
pub fn direct_link<'o>(ontology: &'o Ontology, from: &str, to: &str) -> Option<&'o KeyPair> {
    ontology.direct_link(from, to)
}

/// The object whose rows `column` of `from` names through a one-column
/// link (`sprint_results.race_id` names a race): what a distinct count of
/// that column counts.
pub fn named_by<'o>(ontology: &'o Ontology, from: &str, column: &str) -> Option<&'o str> {
    ontology
        .relationships
        .iter()
        .find(|r| r.from == from && matches!(r.keys.as_slice(), [key] if key.from == column))
        .map(|r| r.to.as_str())
}

/// Whether a condition on `other` says which rows of `object` there are:
/// `other` is `object` itself or a thing its rows name directly ("the
/// first race at Marina Bay", "the highest circuit in Italy"). The
/// earliest, latest, highest or lowest of `object` is taken within such
/// conditions only.
pub fn narrows(ontology: &Ontology, object: &str, other: &str) -> bool {
    object == other || direct_link(ontology, object, other).is_some()
}

/// Cheapest paths from `base` to each of `targets`, merged into one tree.
pub fn join_tree(
    ontology: &Ontology,
    base: &str,
    targets: &[&str],
) -> Result<JoinTree, Unreachable> {
    join_tree_via(ontology, base, &[], targets)
}

/// The object from which every one of `targets` is a lookup away (no step
/// fans out), the nearest such: the results for a race, a driver and a
/// status. What a lookup is rooted at, and what a breakdown counts.
pub fn lookup_root<'o>(ontology: &'o Ontology, targets: &[&str]) -> Option<&'o str> {
    ontology
        .objects
        .iter()
        .filter_map(|o| {
            let tree = join_tree(ontology, &o.name, targets).ok()?;
            (!tree.fans_out()).then_some((tree.steps.len(), o.name.as_str()))
        })
        .min_by_key(|(steps, _)| *steps)
        .map(|(_, name)| name)
}

/// Longest route [`routes`] follows, in steps.
const MAX_ROUTE_STEPS: usize = 4;

/// Every way from `base` to `target` by lookups only (each step to the one
/// side), shortest first, up to four steps: a line item reaches a nation
/// through its supplier and through its order's customer.
pub fn routes(ontology: &Ontology, base: &str, target: &str) -> Vec<Vec<Step>> {
    fn walk(
        ontology: &Ontology,
        at: &str,
        target: &str,
        path: &mut Vec<Step>,
        found: &mut Vec<Vec<Step>>,
    ) {
        if at == target {
            found.push(path.clone());
            return;
        }
        if path.len() == MAX_ROUTE_STEPS || found.len() >= 16 {
            return;
        }
        for (index, r) in ontology.relationships.iter().enumerate() {
            let next = if r.from == at {
                &r.to
            } else if r.to == at && r.cardinality == Cardinality::OneToOne {
                &r.from
            } else {
                continue;
            };
            let visited = next == at || path.iter().any(|s| s.from == *next || s.to == *next);
            if visited {
                continue;
            }
            path.push(Step {
                relationship: index,
                from: at.to_owned(),
                to: next.clone(),
                fans_out: false,
            });
            walk(ontology, next, target, path, found);
            path.pop();
        }
    }
    let mut found = Vec::new();
    walk(ontology, base, target, &mut Vec::new(), &mut found);
    found.sort_by_key(Vec::len);
    found
}

/// The cheapest path to `target` that passes through an object of `via`
/// and ends in a lookup from it ("drivers who raced in 2021": to the races
/// through their results, not their standings; "orders from French
/// customers": to the customers' nation), where no lookup route does.
fn route_through(
    ontology: &Ontology,
    paths: &Paths<'_>,
    via: &[String],
    target: &str,
) -> Option<Vec<Step>> {
    via.iter()
        .filter(|v| v.as_str() != paths.base && v.as_str() != target)
        .find_map(|v| {
            let mut route = paths.path(v).ok()?;
            // Only to what the object looks up (the customers' nation), never
            // on to other rows of their own.
            let rest = Paths::from(ontology, v).path(target).ok()?;
            if rest.iter().any(|s| s.fans_out) {
                return None;
            }
            let revisits = rest
                .iter()
                .any(|s| s.to == paths.base || route.iter().any(|r| r.to == s.to));
            if revisits {
                return None;
            }
            route.extend(rest);
            Some(route)
        })
}

/// [`join_tree`], except that a target reached by several lookup routes
/// takes the one through an object of `via` when there is one.
pub fn join_tree_via(
    ontology: &Ontology,
    base: &str,
    via: &[String],
    targets: &[&str],
) -> Result<JoinTree, Unreachable> {
    let tree = join_tree_along(ontology, base, via, targets)?;
    if !via.is_empty() {
        return Ok(tree);
    }
    // "drivers with the status 'Finished' in race 1000": the race is as
    // near through the standings as through the results, but the status
    // only through the results; one branch of many rows per thing, where
    // one reaches everything, is the way.
    let branches = |tree: &JoinTree| -> Vec<String> {
        let mut branches: Vec<String> = tree
            .steps
            .iter()
            .filter(|s| s.fans_out && s.from == tree.base)
            .map(|s| s.to.clone())
            .collect();
        branches.dedup();
        branches
    };
    let first = branches(&tree);
    if first.len() < 2 {
        return Ok(tree);
    }
    first
        .iter()
        .filter_map(|branch| {
            join_tree_along(ontology, base, std::slice::from_ref(branch), targets).ok()
        })
        .find(|other| branches(other).len() == 1)
        .map_or(Ok(tree), Ok)
}

fn join_tree_along(
    ontology: &Ontology,
    base: &str,
    via: &[String],
    targets: &[&str],
) -> Result<JoinTree, Unreachable> {
    let paths = Paths::from(ontology, base);
    let mut steps: Vec<Step> = Vec::new();
    for target in targets {
        let chosen = if via.is_empty() {
            None
        } else {
            routes(ontology, base, target)
                .into_iter()
                .find(|route| route.iter().any(|s| via.contains(&s.to)))
        };
        let route = match chosen.or_else(|| route_through(ontology, &paths, via, target)) {
            Some(route) => route,
            None => paths.path(target)?,
        };
        for step in route {
            if !steps.iter().any(|s| s.to == step.to) {
                steps.push(step);
            }
        }
    }
    Ok(JoinTree {
        base: base.to_owned(),
        steps,
    })
}
