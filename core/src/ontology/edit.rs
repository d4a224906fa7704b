//! Small edits the admin app makes to a draft without rewriting its YAML:
//! the synonyms of one element, a verified question taken from a good answer.

use super::model::{Ontology, VerifiedQuestion};

/// An element of the ontology that has synonyms, named as validation paths
/// name it: `objects.driver`, `objects.driver.attributes.nationality`,
/// `relationships.result_driver`, `metrics.wins`, `rules.season`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Object(String),
    Attribute(String, String),
    Relationship(String),
    Peer(String),
    Metric(String),
    Rule(String),
    /// By position: a verified question has no name.
    VerifiedQuestion(usize),
}

impl Element {
    pub fn parse(path: &str) -> Option<Self> {
        let parts: Vec<&str> = path.trim().split('.').collect();
        match parts.as_slice() {
            ["objects", object] => Some(Element::Object((*object).to_owned())),
            ["objects", object, "attributes", attribute] => Some(Element::Attribute(
                (*object).to_owned(),
                (*attribute).to_owned(),
            )),
            ["relationships", name] => Some(Element::Relationship((*name).to_owned())),
            ["peers", name] => Some(Element::Peer((*name).to_owned())),
            ["metrics", name] => Some(Element::Metric((*name).to_owned())),
            ["rules", name] => Some(Element::Rule((*name).to_owned())),
            [question] => question
                .strip_prefix("verified_questions[")?
                .strip_suffix(']')?
                .parse()
                .ok()
                .map(Element::VerifiedQuestion),
            _ => None,
        }
    }

    pub fn path(&self) -> String {
        match self {
            Element::Object(object) => format!("objects.{object}"),
            Element::Attribute(object, attribute) => {
                format!("objects.{object}.attributes.{attribute}")
            }
            Element::Relationship(name) => format!("relationships.{name}"),
            Element::Peer(name) => format!("peers.{name}"),
            Element::Metric(name) => format!("metrics.{name}"),
            Element::Rule(name) => format!("rules.{name}"),
            Element::VerifiedQuestion(index) => format!("verified_questions[{index}]"),
        }
    }
}

impl Ontology {
    /// The synonyms of `element`, to change in place; `None` when the
    /// ontology has no such element.
    pub fn synonyms_mut(&mut self, element: &Element) -> Option<&mut Vec<String>> {
        match element {
            Element::Object(name) => self
                .objects
                .iter_mut()
                .find(|o| &o.name == name)
                .map(|o| &mut o.synonyms),
            Element::Attribute(object, attribute) => self
                .objects
                .iter_mut()
                .find(|o| &o.name == object)?
                .attributes
                .iter_mut()
                .find(|a| &a.name == attribute)
                .map(|a| &mut a.synonyms),
            Element::Relationship(name) => self
                .relationships
                .iter_mut()
                .find(|r| &r.name == name)
                .map(|r| &mut r.synonyms),
            Element::Peer(name) => self
                .peers
                .iter_mut()
                .find(|p| &p.name == name)
                .map(|p| &mut p.synonyms),
            Element::Metric(name) => self
                .metrics
                .iter_mut()
                .find(|m| &m.name == name)
                .map(|m| &mut m.synonyms),
            Element::Rule(name) => self
                .rules
                .iter_mut()
                .find(|r| &r.name == name)
                .map(|r| &mut r.synonyms),
            Element::VerifiedQuestion(_) => None,
        }
    }

    /// The label and description of `element`, to change in place; `None`
    /// when there is no such element. Rules have no label: their text is
    /// the description. Relationships, peers and verified questions have no label.
    pub fn texts_mut(&mut self, element: &Element) -> Option<(Option<&mut String>, &mut String)> {
        match element {
            Element::Object(name) => self
                .objects
                .iter_mut()
                .find(|o| &o.name == name)
                .map(|o| (Some(&mut o.label), &mut o.description)),
            Element::Attribute(object, attribute) => self
                .objects
                .iter_mut()
                .find(|o| &o.name == object)?
                .attributes
                .iter_mut()
                .find(|a| &a.name == attribute)
                .map(|a| (Some(&mut a.label), &mut a.description)),
            Element::Relationship(name) => self
                .relationships
                .iter_mut()
                .find(|r| &r.name == name)
                .map(|r| (None, &mut r.description)),
            Element::Peer(name) => self
                .peers
                .iter_mut()
                .find(|p| &p.name == name)
                .map(|p| (None, &mut p.description)),
            Element::Metric(name) => self
                .metrics
                .iter_mut()
                .find(|m| &m.name == name)
                .map(|m| (Some(&mut m.label), &mut m.description)),
            Element::Rule(name) => self
                .rules
                .iter_mut()
                .find(|r| &r.name == name)
                .map(|r| (None, &mut r.text)),
            Element::VerifiedQuestion(index) => self
                .verified_questions
                .get_mut(*index)
                .map(|v| (None, &mut v.description)),
        }
    }

    /// Removes `element`; true when it was there. An object goes with its
    /// attributes; relationships and metrics that name it stay, so
    /// validation points at them until they are fixed or removed too.
    pub fn remove(&mut self, element: &Element) -> bool {
        fn remove_where<T>(items: &mut Vec<T>, keep: impl Fn(&T) -> bool) -> bool {
            let before = items.len();
            items.retain(keep);
            items.len() != before
        }
        match element {
            Element::Object(name) => remove_where(&mut self.objects, |o| &o.name != name),
            Element::Attribute(object, attribute) => self
                .objects
                .iter_mut()
                .find(|o| &o.name == object)
                .is_some_and(|o| remove_where(&mut o.attributes, |a| &a.name != attribute)),
            Element::Relationship(name) => {
                remove_where(&mut self.relationships, |r| &r.name != name)
            }
            Element::Peer(name) => remove_where(&mut self.peers, |p| &p.name != name),
            Element::Metric(name) => remove_where(&mut self.metrics, |m| &m.name != name),
            Element::Rule(name) => remove_where(&mut self.rules, |r| &r.name != name),
            Element::VerifiedQuestion(index) => {
                let there = *index < self.verified_questions.len();
                if there {
                    self.verified_questions.remove(*index);
                }
                there
            }
        }
    }

    /// Adds a verified question unless the same question (ignoring case and
    /// surrounding space) is verified already; true when it was added.
    pub fn verify_question(&mut self, question: &str, sql: &str, description: &str) -> bool {
        let question = question.trim();
        if self
            .verified_questions
            .iter()
            .any(|v| v.question.trim().eq_ignore_ascii_case(question))
        {
            return false;
        }
        self.verified_questions.push(VerifiedQuestion {
            question: question.to_owned(),
            sql: sql.trim().to_owned(),
            description: description.trim().to_owned(),
        });
        true
    }
}

/// Synonyms as people type them: trimmed, blanks dropped, each once
/// (ignoring case), in the order given.
pub fn tidy_synonyms(synonyms: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut tidy: Vec<String> = Vec::new();
    for synonym in synonyms {
        let synonym = synonym.trim();
        if !synonym.is_empty() && !tidy.iter().any(|s| s.eq_ignore_ascii_case(synonym)) {
            tidy.push(synonym.to_owned());
        }
    }
    tidy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::{Attribute, Object};

    fn ontology() -> Ontology {
        Ontology {
            objects: vec![Object {
                name: "driver".to_owned(),
                table: "drivers".to_owned(),
                attributes: vec![Attribute {
                    name: "nationality".to_owned(),
                    ..Attribute::default()
                }],
                ..Object::default()
            }],
            ..Ontology::default()
        }
    }

    #[test]
    fn paths_name_elements_both_ways() {
        for path in [
            "objects.driver",
            "objects.driver.attributes.nationality",
            "relationships.result_driver",
            "peers.teammate",
            "metrics.wins",
            "rules.season",
            "verified_questions[2]",
        ] {
            assert_eq!(Element::parse(path).unwrap().path(), path);
        }
        assert_eq!(Element::parse("objects"), None);
        assert_eq!(Element::parse("objects.driver.table"), None);
        assert_eq!(Element::parse("verified_questions[x]"), None);
    }

    #[test]
    fn elements_are_relabelled_and_removed() {
        let mut ontology = ontology();
        let attribute = Element::Attribute("driver".to_owned(), "nationality".to_owned());
        let (label, description) = ontology.texts_mut(&attribute).unwrap();
        *label.unwrap() = "Nationality".to_owned();
        *description = "As the FIA lists it".to_owned();
        assert_eq!(ontology.objects[0].attributes[0].label, "Nationality");
        assert!(ontology.remove(&attribute));
        assert!(!ontology.remove(&attribute));
        assert!(ontology.objects[0].attributes.is_empty());
        ontology.verify_question("How many drivers?", "SELECT 1", "");
        assert!(ontology.remove(&Element::VerifiedQuestion(0)));
        assert!(!ontology.remove(&Element::VerifiedQuestion(0)));
        assert!(ontology.remove(&Element::Object("driver".to_owned())));
        assert!(ontology.objects.is_empty());
        // A peer: no label, a description, synonyms, and removed by name.
        ontology.peers.push(crate::ontology::Peer {
            name: "teammate".to_owned(),
            ..Default::default()
        });
        let peer = Element::parse("peers.teammate").unwrap();
        let (label, description) = ontology.texts_mut(&peer).unwrap();
        assert!(label.is_none());
        *description = "The other driver of the car".to_owned();
        ontology
            .synonyms_mut(&peer)
            .unwrap()
            .push("team mate".to_owned());
        assert_eq!(ontology.peers[0].synonyms, ["team mate"]);
        assert_eq!(ontology.peers[0].description, "The other driver of the car");
        assert!(ontology.remove(&peer));
        assert!(ontology.peers.is_empty());
    }

    #[test]
    fn synonyms_of_an_attribute_change_in_place() {
        let mut ontology = ontology();
        let element = Element::parse("objects.driver.attributes.nationality").unwrap();
        ontology
            .synonyms_mut(&element)
            .unwrap()
            .push("country".to_owned());
        assert_eq!(ontology.objects[0].attributes[0].synonyms, ["country"]);
        assert!(
            ontology
                .synonyms_mut(&Element::Metric("wins".to_owned()))
                .is_none()
        );
    }

    #[test]
    fn synonyms_are_tidied_and_questions_verified_once() {
        assert_eq!(
            tidy_synonyms([
                "pilot ".to_owned(),
                "".to_owned(),
                "Pilot".to_owned(),
                "racer".to_owned()
            ]),
            ["pilot", "racer"]
        );
        let mut ontology = ontology();
        assert!(ontology.verify_question("How many drivers?", "SELECT 1", ""));
        assert!(!ontology.verify_question(" how many drivers? ", "SELECT 2", ""));
        assert_eq!(ontology.verified_questions.len(), 1);
    }
}
