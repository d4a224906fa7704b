//! Every phrase a question may use for something in one published ontology
//! version, indexed by its stemmed words. Built once per version and shared.

use crate::engine::text;
use crate::ontology::{AttributeRole, DataType, Ontology};
use std::collections::{HashMap, HashSet};

/// Longest phrase looked up, in words.
pub const MAX_PHRASE_WORDS: usize = 6;

/// What a phrase can mean.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Concept {
    Object(usize),
    Attribute {
        object: usize,
        attribute: usize,
    },
    Metric(usize),
    Variant {
        metric: usize,
        variant: usize,
    },
    /// A value of an attribute: "Ferrari" is a constructor's name.
    Value {
        object: usize,
        attribute: usize,
        value: String,
    },
}

/// How a phrase names a concept, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strength {
    Name,
    Synonym,
    Value,
    /// One word of a longer value: "Verstappen" for "Max Verstappen".
    ValuePart,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub concept: Concept,
    pub strength: Strength,
}

#[derive(Debug, Default)]
pub struct Lexicon {
    entries: HashMap<String, Vec<Entry>>,
    /// Single-word keys of six letters or more, for one-typo matches.
    fuzzy_words: Vec<String>,
    /// Concept names as written ("customers", "revenue") with their keys:
    /// a typo of the written word ("custmers") can be further from the
    /// stem than one letter.
    written: Vec<(String, String)>,
    /// Stems of the ontology's own description ("Formula 1"): words that
    /// name the domain, not a value, however they are capitalised.
    domain: HashSet<String>,
}

impl Entry {
    /// Whether the words a question used (`plain`, unstemmed) are the
    /// value's own words. Values are looked up by stems like everything else,
    /// but a stem is too loose for a name: "down" is the stem of "Downing".
    pub fn spelled_by(&self, plain: &[&str]) -> bool {
        let Concept::Value { value, .. } = &self.concept else {
            return true;
        };
        let own: Vec<String> = text::words(value).into_iter().map(|w| w.plain).collect();
        plain.iter().all(|word| {
            own.iter().any(|v| {
                v == word
                    || word.strip_suffix('s') == Some(v.as_str())
                    || v.strip_suffix('s') == Some(*word)
            })
        })
    }
}

/// Values of one attribute, from the ontology's known values or the data.
pub struct AttributeValues<'a> {
    pub object: usize,
    pub attribute: usize,
    pub values: &'a [String],
}

impl Lexicon {
    /// The lexicon of `ontology`, with the values read from the data added to
    /// the ontology's own known values.
    pub fn build(ontology: &Ontology, data_values: &[AttributeValues<'_>]) -> Self {
        let mut lexicon = Lexicon {
            domain: text::words(&ontology.description)
                .into_iter()
                .map(|w| w.stem)
                .collect(),
            ..Lexicon::default()
        };
        for (o, object) in ontology.objects.iter().enumerate() {
            let concept = Concept::Object(o);
            lexicon.add(&object.name, concept.clone(), Strength::Name);
            lexicon.add(&object.label, concept.clone(), Strength::Name);
            if let Some(table) = object.table.rsplit('.').next() {
                lexicon.add(table, concept.clone(), Strength::Synonym);
            }
            for synonym in &object.synonyms {
                lexicon.add(synonym, concept.clone(), Strength::Synonym);
            }
            for (a, attribute) in object.attributes.iter().enumerate() {
                // Keys are plumbing; questions never name them.
                if attribute.role == AttributeRole::Identifier {
                    continue;
                }
                let concept = Concept::Attribute {
                    object: o,
                    attribute: a,
                };
                lexicon.add(&attribute.name, concept.clone(), Strength::Name);
                lexicon.add(&attribute.label, concept.clone(), Strength::Name);
                for synonym in &attribute.synonyms {
                    lexicon.add(synonym, concept.clone(), Strength::Synonym);
                }
                lexicon.add_values(o, a, &attribute.known_values);
            }
        }
        for (m, metric) in ontology.metrics.iter().enumerate() {
            lexicon.add(&metric.name, Concept::Metric(m), Strength::Name);
            lexicon.add(&metric.label, Concept::Metric(m), Strength::Name);
            for synonym in &metric.synonyms {
                lexicon.add(synonym, Concept::Metric(m), Strength::Synonym);
            }
            for (v, variant) in metric.variants.iter().enumerate() {
                let concept = Concept::Variant {
                    metric: m,
                    variant: v,
                };
                for synonym in &variant.synonyms {
                    lexicon.add(synonym, concept.clone(), Strength::Synonym);
                }
            }
        }
        for values in data_values {
            let is_text = ontology
                .objects
                .get(values.object)
                .and_then(|o| o.attributes.get(values.attribute))
                .is_some_and(|a| a.data_type == DataType::Text);
            if is_text {
                lexicon.add_values(values.object, values.attribute, values.values);
            }
        }
        // A value never shadows a concept of the ontology ("drivers" is the
        // object, not Paddy Driver's surname), and one word of a value
        // ("Point" of "Racing Point") never shadows an operator word either.
        for (key, entries) in lexicon.entries.iter_mut() {
            let names_concept = entries.iter().any(|e| e.strength < Strength::Value);
            let is_grammar = crate::engine::grammar::operator_at(&[key.as_str()]).is_some()
                || crate::engine::grammar::is_stop_word(key);
            if names_concept {
                entries.retain(|e| e.strength < Strength::Value);
            } else if is_grammar {
                entries.retain(|e| e.strength != Strength::ValuePart);
            }
        }
        lexicon.entries.retain(|_, entries| !entries.is_empty());
        lexicon.fuzzy_words = lexicon
            .entries
            .keys()
            .filter(|k| !k.contains(' ') && k.chars().count() >= 5)
            .cloned()
            .collect();
        lexicon.fuzzy_words.sort();
        lexicon.written.sort();
        lexicon.written.dedup();
        lexicon
    }

    fn add(&mut self, phrase: &str, concept: Concept, strength: Strength) {
        let key = text::key(phrase);
        if key.is_empty() || key.split(' ').count() > MAX_PHRASE_WORDS {
            return;
        }
        if strength < Strength::Value && !key.contains(' ') {
            let written = text::fold(phrase.trim());
            if written.chars().count() >= 5 {
                self.written.push((written, key.clone()));
            }
        }
        let entries = self.entries.entry(key).or_default();
        match entries.iter_mut().find(|e| e.concept == concept) {
            Some(existing) => existing.strength = existing.strength.min(strength),
            None => entries.push(Entry { concept, strength }),
        }
    }

    fn add_values(&mut self, object: usize, attribute: usize, values: &[String]) {
        // Codes of three letters or fewer ("HAD", "VER") collide with words.
        let values: Vec<&String> = values
            .iter()
            .filter(|v| v.trim().chars().count() > 3)
            .collect();
        let worded: Vec<(&String, Vec<text::Word>)> =
            values.into_iter().map(|v| (v, text::words(v))).collect();
        // How many values each word appears in: "Sepang" names one circuit,
        // "International" names many and so names none.
        let mut spread: HashMap<&str, usize> = HashMap::new();
        for (_, words) in &worded {
            let mut seen: Vec<&str> = words.iter().map(|w| w.stem.as_str()).collect();
            seen.sort();
            seen.dedup();
            for stem in seen {
                *spread.entry(stem).or_default() += 1;
            }
        }
        for (value, words) in &worded {
            let concept = Concept::Value {
                object,
                attribute,
                value: (*value).clone(),
            };
            self.add(value, concept.clone(), Strength::Value);
            // Links, references and times ("max_verstappen", "1:26.572")
            // are matched whole or not at all.
            let code_like = value.contains("://") || value.contains(['_', ':']);
            // A part of "Not classified" means the opposite of the value.
            let negated = words
                .iter()
                .any(|w| matches!(w.plain.as_str(), "not" | "no" | "non" | "never" | "without"));
            if words.len() < 2 || code_like || negated {
                continue;
            }
            for (i, word) in words.iter().enumerate() {
                // "Hamilton" for "Lewis Hamilton": the last word of a name;
                // any other word only where it tells the value apart.
                let last = i + 1 == words.len();
                let telling = spread.get(word.stem.as_str()).is_some_and(|n| *n <= 2);
                if word.plain.chars().count() >= 4
                    && !word.plain.chars().any(|c| c.is_ascii_digit())
                    && (last || telling)
                {
                    self.add(&word.plain, concept.clone(), Strength::ValuePart);
                }
            }
        }
    }

    /// Everything the exact phrase `key` can mean.
    pub fn lookup(&self, key: &str) -> &[Entry] {
        self.entries.get(key).map(Vec::as_slice).unwrap_or_default()
    }

    /// A key one edit away from `stem`, for words long enough that a typo is
    /// more likely than a different word.
    ///
    /// A misspelt name has to start like the name, and be longer still
    /// unless the typo drops or doubles a letter:
    /// one edit turns many ordinary words into a surname ("career" is one
    /// from "Carter"), and a filter on the wrong value is a wrong answer.
    pub fn fuzzy(&self, word: &text::Word) -> Option<&str> {
        let stem = word.stem.as_str();
        // The written form first: "custmers" is one letter from "customers".
        if word.plain.chars().count() >= 5
            && let Some((_, key)) = self
                .written
                .iter()
                .find(|(written, _)| strsim::damerau_levenshtein(written, &word.plain) == 1)
        {
            return Some(key.as_str());
        }
        if stem.chars().count() < 6 {
            return None;
        }
        self.fuzzy_words
            .iter()
            .filter(|candidate| strsim::damerau_levenshtein(candidate, stem) == 1)
            .find(|candidate| {
                let names_concept = self
                    .lookup(candidate)
                    .iter()
                    .any(|e| e.strength < Strength::Value);
                // A dropped or doubled letter ("ferari") is a typo at any
                // length; a changed letter only in a long word.
                let long_enough =
                    stem.chars().count() >= 7 || candidate.chars().count() != stem.chars().count();
                names_concept || (long_enough && candidate.chars().take(2).eq(stem.chars().take(2)))
            })
            .map(String::as_str)
    }

    /// Whether `stem` is a word of the ontology's description.
    pub fn names_domain(&self, stem: &str) -> bool {
        self.domain.contains(stem)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
