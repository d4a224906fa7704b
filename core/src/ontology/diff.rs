//! What changed between two ontologies, concept by concept.

use super::model::{Attribute, Object, Ontology};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Concept {
    Description,
    /// An ontology-wide setting: the fiscal year's start.
    Setting,
    Object,
    Attribute,
    Relationship,
    Peer,
    Metric,
    Rule,
    VerifiedQuestion,
}

impl Concept {
    pub fn as_str(self) -> &'static str {
        match self {
            Concept::Description => "description",
            Concept::Setting => "setting",
            Concept::Object => "object",
            Concept::Attribute => "attribute",
            Concept::Relationship => "relationship",
            Concept::Peer => "peer",
            Concept::Metric => "metric",
            Concept::Rule => "rule",
            Concept::VerifiedQuestion => "verified question",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub concept: Concept,
    /// The concept's name; `object.attribute` for an attribute, the question
    /// for a verified question.
    pub name: String,
    pub kind: ChangeKind,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = match self.kind {
            ChangeKind::Added => '+',
            ChangeKind::Removed => '-',
            ChangeKind::Changed => '~',
        };
        write!(f, "{sign} {} {}", self.concept.as_str(), self.name)
    }
}

/// The changes that turn `old` into `new`, in the order of `old` then `new`.
pub fn diff(old: &Ontology, new: &Ontology) -> Vec<Change> {
    let mut changes = Vec::new();
    if old.description != new.description {
        changes.push(Change {
            concept: Concept::Description,
            name: "ontology".into(),
            kind: ChangeKind::Changed,
        });
    }
    if old.fiscal_year_start != new.fiscal_year_start {
        changes.push(Change {
            concept: Concept::Setting,
            name: "fiscal_year_start".into(),
            kind: match (old.fiscal_year_start, new.fiscal_year_start) {
                (None, _) => ChangeKind::Added,
                (_, None) => ChangeKind::Removed,
                _ => ChangeKind::Changed,
            },
        });
    }
    compare(
        &mut changes,
        Concept::Object,
        &old.objects,
        &new.objects,
        |o| o.name.clone(),
    );
    for old_object in &old.objects {
        if let Some(new_object) = new.objects.iter().find(|o| o.name == old_object.name) {
            attributes(&mut changes, old_object, new_object);
        }
    }
    compare(
        &mut changes,
        Concept::Relationship,
        &old.relationships,
        &new.relationships,
        |r| r.name.clone(),
    );
    compare(&mut changes, Concept::Peer, &old.peers, &new.peers, |p| {
        p.name.clone()
    });
    compare(
        &mut changes,
        Concept::Metric,
        &old.metrics,
        &new.metrics,
        |m| m.name.clone(),
    );
    compare(&mut changes, Concept::Rule, &old.rules, &new.rules, |r| {
        r.name.clone()
    });
    compare(
        &mut changes,
        Concept::VerifiedQuestion,
        &old.verified_questions,
        &new.verified_questions,
        |q| q.question.clone(),
    );
    changes
}

/// An object counts as changed for what it says itself; its attributes are
/// reported one by one.
fn attributes(changes: &mut Vec<Change>, old: &Object, new: &Object) {
    let key = |a: &Attribute| format!("{}.{}", old.name, a.name);
    compare(
        changes,
        Concept::Attribute,
        &old.attributes,
        &new.attributes,
        key,
    );
}

fn compare<T: PartialEq + Comparable>(
    changes: &mut Vec<Change>,
    concept: Concept,
    old: &[T],
    new: &[T],
    key: impl Fn(&T) -> String,
) {
    for before in old {
        let name = key(before);
        match new.iter().find(|after| key(after) == name) {
            None => changes.push(Change {
                concept,
                name,
                kind: ChangeKind::Removed,
            }),
            Some(after) if !before.same_as(after) => changes.push(Change {
                concept,
                name,
                kind: ChangeKind::Changed,
            }),
            Some(_) => {}
        }
    }
    for after in new {
        let name = key(after);
        if !old.iter().any(|before| key(before) == name) {
            changes.push(Change {
                concept,
                name,
                kind: ChangeKind::Added,
            });
        }
    }
}

/// Equality as the diff sees it: an object's attributes are compared separately.
trait Comparable {
    fn same_as(&self, other: &Self) -> bool;
}

impl Comparable for Object {
    fn same_as(&self, other: &Self) -> bool {
        let strip = |o: &Object| Object {
            attributes: Vec::new(),
            ..o.clone()
        };
        strip(self) == strip(other)
    }
}

macro_rules! compared_whole {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            fn same_as(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}

compared_whole!(
    Attribute,
    super::model::Relationship,
    super::model::Peer,
    super::model::Metric,
    super::model::BusinessRule,
    super::model::VerifiedQuestion
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::model::{Aggregate, DataType, Metric};

    fn object(name: &str, attributes: &[&str]) -> Object {
        Object {
            name: name.into(),
            table: name.into(),
            attributes: attributes
                .iter()
                .map(|a| Attribute {
                    name: (*a).into(),
                    data_type: DataType::Text,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn identical_ontologies_have_no_changes() {
        let o = Ontology {
            objects: vec![object("driver", &["name"])],
            ..Default::default()
        };
        assert_eq!(diff(&o, &o), vec![]);
    }

    #[test]
    fn changes_are_reported_per_concept() {
        let old = Ontology {
            objects: vec![object("driver", &["name", "code"]), object("circuit", &[])],
            metrics: vec![Metric {
                name: "wins".into(),
                object: "driver".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut new = old.clone();
        new.objects.remove(1);
        new.objects[0].label = "Driver".into();
        new.objects[0].attributes[1].synonyms = vec!["abbreviation".into()];
        new.objects[0].attributes.push(Attribute {
            name: "nationality".into(),
            ..Default::default()
        });
        new.metrics[0].aggregate = Aggregate::Sum;
        new.description = "F1".into();
        let shown: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "~ description ontology",
                "~ object driver",
                "- object circuit",
                "~ attribute driver.code",
                "+ attribute driver.nationality",
                "~ metric wins",
            ]
        );
    }

    /// A metric is compared whole: a change to any field of the newer
    /// metric types (its type, a ratio's sides, what a growth or a running
    /// total is of, their periods and window, a derived metric's
    /// expression, a level's time rule) names it.
    #[test]
    fn a_change_to_any_field_of_a_metric_type_names_the_metric() {
        use crate::ontology::model::{Grain, MetricKind, SemiAdditive};
        let growth = Metric {
            name: "revenue_growth".into(),
            object: "sale".into(),
            kind: MetricKind::Growth,
            of: Some("revenue".into()),
            period: Some(Grain::Year),
            ..Default::default()
        };
        let old = Ontology {
            metrics: vec![growth],
            ..Default::default()
        };
        type Edit = fn(&mut Metric);
        let edits: [(&str, Edit); 9] = [
            ("type", |m| m.kind = MetricKind::Cumulative),
            ("numerator", |m| m.numerator = Some("revenue".into())),
            ("denominator", |m| m.denominator = Some("orders".into())),
            ("of", |m| m.of = Some("orders".into())),
            ("period", |m| m.period = Some(Grain::Quarter)),
            ("to_date", |m| m.to_date = Some(Grain::Year)),
            ("expr", |m| m.expr = Some("revenue - cost".into())),
            ("window", |m| m.window = Some(3)),
            ("semi_additive", |m| {
                m.semi_additive = Some(SemiAdditive {
                    time: "snapshot_date".into(),
                    ..Default::default()
                })
            }),
        ];
        for (field, edit) in edits {
            let mut new = old.clone();
            edit(&mut new.metrics[0]);
            let shown: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
            assert_eq!(shown, ["~ metric revenue_growth"], "a change of `{field}`");
        }
    }
}
