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
    Metric(String),
    Rule(String),
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
            ["metrics", name] => Some(Element::Metric((*name).to_owned())),
            ["rules", name] => Some(Element::Rule((*name).to_owned())),
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
            Element::Metric(name) => format!("metrics.{name}"),
            Element::Rule(name) => format!("rules.{name}"),
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
            "metrics.wins",
            "rules.season",
        ] {
            assert_eq!(Element::parse(path).unwrap().path(), path);
        }
        assert_eq!(Element::parse("objects"), None);
        assert_eq!(Element::parse("objects.driver.table"), None);
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
