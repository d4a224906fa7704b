//! The ontology's names, looked up by hash instead of by scanning lists:
//! built once per published version (the engine keeps it beside the
//! version's lexicon) and read by the compiler for every name a plan uses.
//!
//! [`Names`] owns the maps from names to positions, so it can be cached
//! beside the ontology it was built from; [`OntologyIndex`] pairs the two
//! for reading. Positions are typed ids, so an object's position is never
//! read as a metric's.

use super::model::{Attribute, Metric, Object, Ontology, Relationship};
use std::collections::HashMap;

/// An object's position in [`Ontology::objects`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub usize);

/// An attribute's position: its object's, then its own in the object's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttributeId {
    pub object: ObjectId,
    pub index: usize,
}

/// A metric's position in [`Ontology::metrics`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricId(pub usize);

/// A relationship's position in [`Ontology::relationships`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelationshipId(pub usize);

/// Every name of one ontology, to its position. Where a draft repeats a
/// name (validation refuses it, but a draft may be compiled before it is
/// valid), the first holder keeps it, as a scan of the list would find.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    objects: HashMap<String, ObjectId>,
    /// Per object, by its position: its attributes' names.
    attributes: Vec<HashMap<String, usize>>,
    metrics: HashMap<String, MetricId>,
    relationships: HashMap<String, RelationshipId>,
}

impl Names {
    pub fn of(ontology: &Ontology) -> Self {
        let mut names = Names::default();
        for (o, object) in ontology.objects.iter().enumerate() {
            let id = ObjectId(o);
            names.objects.entry(object.name.clone()).or_insert(id);
            let mut attributes = HashMap::new();
            for (index, attribute) in object.attributes.iter().enumerate() {
                attributes.entry(attribute.name.clone()).or_insert(index);
            }
            names.attributes.push(attributes);
        }
        for (m, metric) in ontology.metrics.iter().enumerate() {
            names
                .metrics
                .entry(metric.name.clone())
                .or_insert(MetricId(m));
        }
        for (r, relationship) in ontology.relationships.iter().enumerate() {
            names
                .relationships
                .entry(relationship.name.clone())
                .or_insert(RelationshipId(r));
        }
        names
    }
}

/// An ontology with its [`Names`]: what the compiler resolves a plan against.
#[derive(Clone, Copy, Debug)]
pub struct OntologyIndex<'a> {
    ontology: &'a Ontology,
    names: &'a Names,
}

impl<'a> OntologyIndex<'a> {
    /// `names` must be [`Names::of`] this very `ontology`.
    pub fn new(ontology: &'a Ontology, names: &'a Names) -> Self {
        OntologyIndex { ontology, names }
    }

    pub fn ontology(&self) -> &'a Ontology {
        self.ontology
    }

    pub fn object_id(&self, name: &str) -> Option<ObjectId> {
        self.names.objects.get(name).copied()
    }

    pub fn object(&self, name: &str) -> Option<&'a Object> {
        self.object_id(name).map(|id| self.object_at(id))
    }

    pub fn object_at(&self, id: ObjectId) -> &'a Object {
        &self.ontology.objects[id.0]
    }

    pub fn attribute_id(&self, object: &str, attribute: &str) -> Option<AttributeId> {
        let object = self.object_id(object)?;
        let index = *self.names.attributes[object.0].get(attribute)?;
        Some(AttributeId { object, index })
    }

    /// The attribute `attribute` of the object `object`, if both exist.
    pub fn attribute(&self, object: &str, attribute: &str) -> Option<&'a Attribute> {
        self.attribute_id(object, attribute)
            .map(|id| self.attribute_at(id))
    }

    pub fn attribute_at(&self, id: AttributeId) -> &'a Attribute {
        &self.object_at(id.object).attributes[id.index]
    }

    pub fn metric_id(&self, name: &str) -> Option<MetricId> {
        self.names.metrics.get(name).copied()
    }

    pub fn metric(&self, name: &str) -> Option<&'a Metric> {
        self.metric_id(name).map(|id| &self.ontology.metrics[id.0])
    }

    pub fn relationship(&self, name: &str) -> Option<&'a Relationship> {
        self.names
            .relationships
            .get(name)
            .map(|id| &self.ontology.relationships[id.0])
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_what_a_scan_finds() {
        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/f1/ontology.yaml")).unwrap();
        let names = Names::of(&ontology);
        let index = OntologyIndex::new(&ontology, &names);
        for object in &ontology.objects {
            assert_eq!(index.object(&object.name), Some(object));
            for attribute in &object.attributes {
                assert_eq!(
                    index.attribute(&object.name, &attribute.name),
                    ontology.attribute(&object.name, &attribute.name)
                );
            }
        }
        for metric in &ontology.metrics {
            assert_eq!(index.metric(&metric.name), Some(metric));
        }
        for relationship in &ontology.relationships {
            assert_eq!(index.relationship(&relationship.name), Some(relationship));
        }
        assert_eq!(index.object("nothing"), None);
        assert_eq!(index.attribute("driver", "nothing"), None);
        assert_eq!(index.metric("nothing"), None);
    }

    #[test]
    fn a_repeated_name_is_its_first_holder() {
        let mut ontology = Ontology::default();
        for table in ["first", "second"] {
            ontology.objects.push(Object {
                name: "thing".into(),
                table: table.into(),
                ..Object::default()
            });
        }
        let names = Names::of(&ontology);
        let index = OntologyIndex::new(&ontology, &names);
        assert_eq!(
            index.object("thing").map(|o| o.table.as_str()),
            Some("first")
        );
    }
}
