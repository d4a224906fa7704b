//! The `lookup_values` tool: the values Cassis knows for each attribute (the
//! ontology's known values and those read from the data, the same ones the
//! built-in planner grounds names in), and the few closest to what the model
//! typed. A model that filters on "Verstapen" answers nothing; one that can
//! look up "Max Verstappen" first answers the question.

use crate::engine::text;
use crate::ontology::{DataType, Ontology};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// At most this many values go back for one lookup.
pub const MAX_LOOKUP_RESULTS: usize = 10;
/// Longer texts are refused: no value anyone types is longer.
pub const MAX_LOOKUP_TEXT_CHARS: usize = 200;
/// The longest `object.attribute` accepted.
const MAX_ATTRIBUTE_CHARS: usize = 200;
/// Words longer than this are compared whole only: an edit distance over
/// long strings costs the most and finds nothing a person mistyped.
const MAX_COMPARED_WORD_CHARS: usize = 32;

/// The known values of every attribute that has some, by `object.attribute`.
#[derive(Clone, Debug, Default)]
pub struct KnownValues {
    by_attribute: BTreeMap<String, Vec<String>>,
}

/// Values read from the data for one attribute, by the ontology's indexes.
pub struct DataValues<'a> {
    pub object: usize,
    pub attribute: usize,
    pub values: &'a [String],
}

/// Why a lookup returned no values; the model reads the message.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("`attribute` must name one attribute as object.attribute, such as driver.full_name")]
    NotAnAttribute,
    #[error("the ontology has no attribute `{0}`")]
    UnknownAttribute(String),
    #[error("Cassis knows no values of `{0}`; filter on it with the question's own spelling")]
    NoKnownValues(String),
    #[error("`text` is empty")]
    EmptyText,
    #[error("`text` is longer than {MAX_LOOKUP_TEXT_CHARS} characters")]
    TextTooLong,
}

impl KnownValues {
    /// The ontology's known values of each attribute, with the values read
    /// from the data added for text attributes, as the lexicon takes them.
    pub fn build(ontology: &Ontology, data: &[DataValues<'_>]) -> Self {
        let mut by_attribute: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for object in &ontology.objects {
            for attribute in &object.attributes {
                if !attribute.known_values.is_empty() {
                    by_attribute
                        .entry(format!("{}.{}", object.name, attribute.name))
                        .or_default()
                        .extend(attribute.known_values.iter().cloned());
                }
            }
        }
        for values in data {
            let Some(object) = ontology.objects.get(values.object) else {
                continue;
            };
            let Some(attribute) = object.attributes.get(values.attribute) else {
                continue;
            };
            if attribute.data_type == DataType::Text {
                by_attribute
                    .entry(format!("{}.{}", object.name, attribute.name))
                    .or_default()
                    .extend(values.values.iter().cloned());
            }
        }
        for values in by_attribute.values_mut() {
            values.retain(|v| !v.trim().is_empty());
            values.sort();
            values.dedup();
        }
        by_attribute.retain(|_, values| !values.is_empty());
        Self { by_attribute }
    }

    /// The attributes that have values to look up, as `object.attribute`.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.by_attribute.keys().map(String::as_str)
    }

    /// The values of `attribute` closest to `wanted`, best first: the same
    /// value, then values containing it, then values whose words are each a
    /// few typos from its words. At most [`MAX_LOOKUP_RESULTS`].
    pub fn closest(&self, attribute: &str, wanted: &str) -> Result<Vec<&str>, LookupError> {
        let attribute = attribute.trim();
        let Some((object_name, attribute_name)) = attribute.split_once('.') else {
            return Err(LookupError::NotAnAttribute);
        };
        if attribute.chars().count() > MAX_ATTRIBUTE_CHARS
            || object_name.is_empty()
            || attribute_name.is_empty()
        {
            return Err(LookupError::NotAnAttribute);
        }
        let wanted = wanted.trim();
        if wanted.is_empty() {
            return Err(LookupError::EmptyText);
        }
        if wanted.chars().count() > MAX_LOOKUP_TEXT_CHARS {
            return Err(LookupError::TextTooLong);
        }
        let values = self
            .by_attribute
            .get(attribute)
            .ok_or_else(|| LookupError::NoKnownValues(attribute.to_owned()))?;
        let folded = text::fold(wanted);
        let words: Vec<String> = text::words(wanted).into_iter().map(|w| w.plain).collect();
        let mut ranked: Vec<(Closeness, &str)> = values
            .iter()
            .filter_map(|value| closeness(&folded, &words, value).map(|c| (c, value.as_str())))
            .collect();
        ranked.sort();
        Ok(ranked
            .into_iter()
            .take(MAX_LOOKUP_RESULTS)
            .map(|(_, value)| value)
            .collect())
    }

    /// The tool's answer to one call, as the model reads it, and whether it
    /// is an error.
    pub fn answer(&self, input: &Value, ontology: &Ontology) -> (String, bool) {
        let attribute = input["attribute"].as_str().unwrap_or_default();
        let wanted = input["text"].as_str().unwrap_or_default();
        let found = self
            .closest(attribute, wanted)
            .map_err(|error| match error {
                // An attribute the ontology does not have is told apart from one
                // without values, so the model fixes the right thing.
                LookupError::NoKnownValues(name) if !has_attribute(ontology, &name) => {
                    LookupError::UnknownAttribute(name)
                }
                other => other,
            });
        match found {
            Ok(values) if values.is_empty() => (
                json!({
                    "attribute": attribute.trim(),
                    "values": [],
                    "note": "No known value is close to this text; the data may not have it."
                })
                .to_string(),
                false,
            ),
            Ok(values) => (
                json!({"attribute": attribute.trim(), "values": values}).to_string(),
                false,
            ),
            Err(error) => (error.to_string(), true),
        }
    }
}

fn has_attribute(ontology: &Ontology, name: &str) -> bool {
    name.split_once('.').is_some_and(|(object, attribute)| {
        ontology
            .objects
            .iter()
            .any(|o| o.name == object && o.attributes.iter().any(|a| a.name == attribute))
    })
}

/// How close a value is, smaller first; ties go to the shorter value, then
/// alphabetical order, so the same lookup always answers the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Closeness {
    /// 0 the same value, 1 containing the text, 2 words within typos.
    tier: u8,
    /// Edits between the text's words and the value's closest words.
    edits: usize,
    length: usize,
}

fn closeness(folded: &str, words: &[String], value: &str) -> Option<Closeness> {
    let value_folded = text::fold(value.trim());
    let length = value_folded.chars().count();
    if value_folded == folded {
        return Some(Closeness {
            tier: 0,
            edits: 0,
            length,
        });
    }
    if value_folded.contains(folded) {
        return Some(Closeness {
            tier: 1,
            edits: length - folded.chars().count(),
            length,
        });
    }
    if words.is_empty() {
        return None;
    }
    let value_words: Vec<String> = text::words(value).into_iter().map(|w| w.plain).collect();
    let mut edits = 0;
    for word in words {
        // About one typo in four letters, and one in any word.
        let allowed = (word.chars().count() / 4).max(1);
        let best = value_words
            .iter()
            .filter_map(|candidate| bounded_distance(word, candidate, allowed))
            .min()?;
        edits += best;
    }
    Some(Closeness {
        tier: 2,
        edits,
        length,
    })
}

/// The edit distance (Levenshtein) between `a` and `b` when it is at most
/// `limit`.
fn bounded_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    if a.len() > MAX_COMPARED_WORD_CHARS || b.len() > MAX_COMPARED_WORD_CHARS {
        return (a == b).then_some(0);
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(x != y);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[b.len()];
    (distance <= limit).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drivers() -> KnownValues {
        let names: Vec<String> = [
            "Max Verstappen",
            "Jos Verstappen",
            "Sergio Pérez",
            "Lewis Hamilton",
            "Carlos Sainz",
            "Carlos Pace",
        ]
        .map(str::to_owned)
        .to_vec();
        let mut by_attribute = BTreeMap::new();
        by_attribute.insert("driver.full_name".to_owned(), names);
        KnownValues { by_attribute }
    }

    #[test]
    fn a_misspelt_name_finds_the_values_it_may_mean_closest_first() {
        let values = drivers();
        assert_eq!(
            values.closest("driver.full_name", "verstapen").unwrap(),
            ["Jos Verstappen", "Max Verstappen"]
        );
        assert_eq!(
            values.closest("driver.full_name", "max verstapen").unwrap(),
            ["Max Verstappen"]
        );
        assert_eq!(
            values.closest("driver.full_name", "Sergio Perez").unwrap(),
            ["Sergio Pérez"],
            "accents are folded"
        );
        assert_eq!(
            values.closest("driver.full_name", "Carlos").unwrap(),
            ["Carlos Pace", "Carlos Sainz"],
            "containing the text, shorter first"
        );
        assert!(
            values
                .closest("driver.full_name", "Schumacher")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn the_same_value_comes_before_values_containing_it() {
        let mut values = drivers();
        values.by_attribute.insert(
            "team.name".to_owned(),
            vec!["Red Bull Racing".into(), "Red Bull".into()],
        );
        assert_eq!(
            values.closest("team.name", "red bull").unwrap(),
            ["Red Bull", "Red Bull Racing"]
        );
    }

    #[test]
    fn lookups_are_bounded() {
        let many: Vec<String> = (0..100).map(|i| format!("Driver {i:03}")).collect();
        let mut values = drivers();
        values.by_attribute.insert("driver.code".to_owned(), many);
        assert_eq!(
            values.closest("driver.code", "driver").unwrap().len(),
            MAX_LOOKUP_RESULTS
        );
        assert_eq!(
            values.closest("driver.full_name", &"x".repeat(MAX_LOOKUP_TEXT_CHARS + 1)),
            Err(LookupError::TextTooLong)
        );
        assert_eq!(
            values.closest("driver.full_name", "  "),
            Err(LookupError::EmptyText)
        );
        assert_eq!(
            values.closest("full_name", "Max"),
            Err(LookupError::NotAnAttribute)
        );
        assert_eq!(
            values.closest("driver.nickname", "Max"),
            Err(LookupError::NoKnownValues("driver.nickname".to_owned()))
        );
    }

    #[test]
    fn the_distance_is_levenshtein_within_its_bound() {
        assert_eq!(bounded_distance("kitten", "sitting", 3), Some(3));
        assert_eq!(bounded_distance("kitten", "sitting", 2), None);
        assert_eq!(bounded_distance("perez", "perez", 0), Some(0));
        assert_eq!(bounded_distance("", "ab", 2), Some(2));
    }
}
