//! Every phrase a question may use for something in one published ontology
//! version, indexed by its stemmed words. Built once per version and shared.

use crate::engine::{demonyms, grammar, text};
use crate::ontology::{AttributeRole, DataType, Ontology};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A value of two or three capital letters: a country or driver code.
fn is_code(value: &str) -> bool {
    (1..=3).contains(&value.chars().count()) && value.chars().all(|c| c.is_ascii_uppercase())
}

/// At most this many values make an attribute a category, whose short
/// values are words rather than codes.
const SMALL_CATEGORIES: usize = 20;

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
    /// A named filter of an object: "urgent" keeps the urgent orders.
    Filter {
        object: usize,
        filter: usize,
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
    /// Found under another word for the value ("Finland" for the
    /// nationality "Finnish"), so the question's words are not the value's.
    pub alias: bool,
}

#[derive(Debug, Default)]
pub struct Lexicon {
    entries: HashMap<String, Vec<Entry>>,
    /// Values of two or three letters ("USA", "HAM"), by their folded
    /// spelling: they collide with words, so they are matched only where
    /// the question types them in capitals.
    codes: HashMap<String, Vec<Entry>>,
    /// Single-word keys of five letters or more, for one-typo matches, by
    /// their length in characters: a word one edit away is within one
    /// character of the other's length, so a lookup compares three lists,
    /// not the whole lexicon.
    fuzzy_words: BTreeMap<usize, Vec<String>>,
    /// Concept names as written ("customers", "revenue") with their keys,
    /// by length: a typo of the written word ("custmers") can be further
    /// from the stem than one letter.
    written: BTreeMap<usize, Vec<(String, String)>>,
    /// The words of concepts' phrases of several words, as written and
    /// stemmed, by written length: a typo inside a phrase ("starting grid
    /// postion") is corrected where the corrected word completes it.
    phrase_words: BTreeMap<usize, Vec<(String, String)>>,
    /// Stems of the ontology's own description ("Formula 1"): words that
    /// name the domain, not a value, however they are capitalised.
    domain: HashSet<String>,
    /// Each object's attribute holding its one-column primary key, by
    /// object: what "order number" or "driver id" asks to see.
    keys: HashMap<usize, usize>,
    /// Each object's attribute that names its rows (its display), by
    /// object: a value of it names one thing.
    names: HashMap<usize, usize>,
    /// Whole-number dimensions (not keys, times or measures), by object and
    /// attribute: "round 5" names the round, not the race whose key is 5,
    /// though "round" also names the race.
    numbered: HashSet<(usize, usize)>,
    /// Attributes a key reaches only through a verb's stem ("ordered", the
    /// order's date, stems to "order"), by key: "orders" as typed names
    /// the things, not their date.
    verb_stems: HashSet<(String, Concept)>,
    /// Values whose key also names a concept ("Finished", a status, and
    /// "finished"), by key: read as the value only right after their own
    /// attribute ("the status 'Finished'").
    shadowed: HashMap<String, Vec<Entry>>,
}

/// Words longer than this are never matched with a typo: no name people
/// misspell is that long, and comparing long strings costs the most.
const MAX_FUZZY_CHARS: usize = 24;

/// Whether `typed` is `written`'s "-ier" turned into "-ies": "carries" is
/// the verb, not a typo for "carrier".
fn inflected(written: &str, typed: &str) -> bool {
    matches!(
        (written.strip_suffix("ier"), typed.strip_suffix("ies")),
        (Some(w), Some(t)) if w == t
    )
}

/// Whether `a` becomes `b` by exactly one edit: a letter changed, added,
/// dropped, or two neighbours swapped (Damerau–Levenshtein distance 1).
/// Linear and without allocating: it runs against thousands of names per
/// unknown word, where a full distance matrix dominated the planner's time.
pub(crate) fn one_edit_apart(a: &str, b: &str) -> bool {
    let (la, lb) = (a.chars().count(), b.chars().count());
    let shorter = la.min(lb);
    if la.abs_diff(lb) > 1 || a == b {
        return false;
    }
    let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let suffix = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(shorter - prefix);
    if la != lb {
        // Dropping the one letter between the common ends of the longer.
        return prefix + suffix == shorter;
    }
    if prefix + suffix == la - 1 {
        return true;
    }
    // Two neighbours swapped: the middle is exactly "xy" against "yx".
    prefix + suffix + 2 == la && {
        let mut ma = a.chars().skip(prefix);
        let mut mb = b.chars().skip(prefix);
        let (a0, a1, b0, b1) = (ma.next(), ma.next(), mb.next(), mb.next());
        a0 == b1 && a1 == b0
    }
}

/// "F is fulfilled, O is open": the codes an attribute's description
/// explains, with the words it explains each by, so that "open orders" finds
/// the code `O`. Only codes among the known values count, and only short
/// meanings, so an ordinary description is never read as a glossary.
pub(crate) fn code_meanings<'a>(
    description: &'a str,
    known: &'a [String],
) -> Vec<(&'a str, &'a str)> {
    const MAX_MEANING_WORDS: usize = 4;
    description
        .split([',', ';', '.', '\n'])
        .flat_map(|clause| clause.split(" and "))
        .filter_map(|clause| {
            let clause = clause.trim();
            let (code, meaning) = [" is ", " = ", " means ", ": "]
                .iter()
                .find_map(|sep| clause.split_once(sep))?;
            let code = code.trim().trim_matches(['\'', '"', '`']);
            let value = known.iter().find(|v| v.as_str() == code)?;
            let meaning = meaning.trim();
            let meaning = ["a ", "an ", "the "]
                .iter()
                .find_map(|article| meaning.strip_prefix(article))
                .unwrap_or(meaning);
            let words = meaning.split_whitespace().count();
            (1..=MAX_MEANING_WORDS)
                .contains(&words)
                .then_some((value.as_str(), meaning))
        })
        .collect()
}

/// A one-word key the grammar reads itself: an operator or a stop word.
fn is_grammar_word(key: &str) -> bool {
    crate::engine::grammar::operator_at(&[key]).is_some()
        || crate::engine::grammar::is_stop_word(key)
}

/// Adds a value's entry to `entries` unless the value is there already.
fn push_new(entries: &mut Vec<Entry>, concept: Concept, alias: bool) {
    if !entries.iter().any(|e| e.concept == concept) {
        entries.push(Entry {
            concept,
            strength: Strength::Value,
            alias,
        });
    }
}

/// The entries of the lists whose length is within one of `length`.
fn near<T>(by_length: &BTreeMap<usize, Vec<T>>, length: usize) -> impl Iterator<Item = &T> {
    by_length
        .range(length.saturating_sub(1)..=length + 1)
        .flat_map(|(_, list)| list)
}

impl Entry {
    /// Whether the words a question used (`plain`, unstemmed) are the
    /// value's own words. Values are looked up by stems like everything else,
    /// but a stem is too loose for a name: "down" is the stem of "Downing".
    pub fn spelled_by(&self, plain: &[&str]) -> bool {
        let Concept::Value { value, .. } = &self.concept else {
            return true;
        };
        if self.alias {
            return true;
        }
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
            let display = crate::engine::compile::display_attribute(object);
            for (a, attribute) in object.attributes.iter().enumerate() {
                if display == Some(attribute.name.as_str()) {
                    lexicon.names.insert(o, a);
                }
                if let [key] = object.primary_key.as_slice()
                    && attribute.column_name() == Some(key.as_str())
                {
                    lexicon.keys.insert(o, a);
                }
                // Keys are plumbing; questions name them only as the
                // thing's number (`key_of`).
                if attribute.role == AttributeRole::Identifier {
                    continue;
                }
                if attribute.data_type == DataType::Integer
                    && attribute.role == AttributeRole::Dimension
                {
                    lexicon.numbered.insert((o, a));
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
                let words = |phrase: &str| text::key(phrase);
                for synonym in &attribute.synonyms {
                    let key = words(synonym);
                    let folded = text::fold(synonym.trim());
                    let by_others = std::iter::once(attribute.name.as_str())
                        .chain(std::iter::once(attribute.label.as_str()))
                        .chain(attribute.synonyms.iter().map(String::as_str))
                        .any(|other| !text::fold(other).ends_with("ed") && words(other) == key);
                    if folded.ends_with("ed") && !key.ends_with("ed") && !by_others {
                        lexicon.verb_stems.insert((key, concept.clone()));
                    }
                }
                lexicon.add_values(o, a, &attribute.known_values);
                lexicon.add_kind_aliases(object, o, a, &attribute.known_values);
            }
        }
        lexicon.add_named_filters(ontology);
        lexicon.add_column_names(ontology);
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
                // "what was it net of discounts": the variant's own name
                // says which one, as its synonyms do.
                lexicon.add(&variant.name, concept.clone(), Strength::Synonym);
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
                if let Some(object) = ontology.objects.get(values.object) {
                    lexicon.add_kind_aliases(
                        object,
                        values.object,
                        values.attribute,
                        values.values,
                    );
                }
            }
        }
        lexicon.add_date_words(ontology);
        lexicon.add_code_meanings(ontology);
        lexicon.add_closed_compounds();
        // A value never shadows a concept of the ontology ("drivers" is the
        // object, not Paddy Driver's surname), and one word of a value
        // ("Point" of "Racing Point") never shadows an operator word either.
        for (key, entries) in lexicon.entries.iter_mut() {
            let names_concept = entries.iter().any(|e| e.strength < Strength::Value);
            let is_grammar = is_grammar_word(key);
            if names_concept {
                let values: Vec<Entry> = entries
                    .iter()
                    .filter(|e| e.strength == Strength::Value && !e.alias)
                    .cloned()
                    .collect();
                if !values.is_empty() {
                    lexicon.shadowed.insert(key.clone(), values);
                }
                entries.retain(|e| e.strength < Strength::Value);
            } else if is_grammar {
                entries.retain(|e| e.strength != Strength::ValuePart);
            }
        }
        lexicon.entries.retain(|_, entries| !entries.is_empty());
        for key in lexicon.entries.keys() {
            let length = key.chars().count();
            if !key.contains(' ') && (5..=MAX_FUZZY_CHARS).contains(&length) {
                lexicon
                    .fuzzy_words
                    .entry(length)
                    .or_default()
                    .push(key.clone());
            }
        }
        for list in lexicon.fuzzy_words.values_mut() {
            list.sort();
        }
        for list in lexicon
            .written
            .values_mut()
            .chain(lexicon.phrase_words.values_mut())
        {
            list.sort();
            list.dedup();
        }
        lexicon
    }

    /// "c_acctbal", "c_custkey = 123": a column typed as the warehouse
    /// spells it names its attribute (a key column, its thing). Only
    /// snake_case names, which no one types as English, and only where the
    /// words mean nothing else already.
    fn add_column_names(&mut self, ontology: &Ontology) {
        for (o, object) in ontology.objects.iter().enumerate() {
            for (a, attribute) in object.attributes.iter().enumerate() {
                let Some(column) = attribute.column_name().filter(|c| c.contains('_')) else {
                    continue;
                };
                let key = text::key(&column.replace('_', " "));
                if self.entries.contains_key(&key) {
                    continue;
                }
                let concept = if attribute.role == AttributeRole::Identifier {
                    // "driver_id" is already "driver" and its key marker.
                    let named = key
                        .split(' ')
                        .next()
                        .is_some_and(|first| self.entries.contains_key(first));
                    if named || !matches!(object.primary_key.as_slice(), [only] if only == column) {
                        continue;
                    }
                    Concept::Object(o)
                } else {
                    Concept::Attribute {
                        object: o,
                        attribute: a,
                    }
                };
                self.add_keyed(key, column, concept, Strength::Synonym);
            }
        }
    }

    /// "pitstops", "laptimes": a two-word name typed as one word means the
    /// same, unless that word already means something else.
    fn add_closed_compounds(&mut self) {
        let compounds: Vec<(String, Vec<Entry>)> = self
            .entries
            .iter()
            .filter_map(|(key, entries)| {
                let (first, second) = key.split_once(' ')?;
                if second.contains(' ') {
                    return None;
                }
                let named: Vec<Entry> = entries
                    .iter()
                    .filter(|e| e.strength < Strength::Value)
                    .map(|e| Entry {
                        strength: e.strength.max(Strength::Synonym),
                        ..e.clone()
                    })
                    .collect();
                let compound = text::key(&format!("{first}{second}"));
                (!named.is_empty()
                    && !is_grammar_word(&compound)
                    && !self.entries.contains_key(&compound))
                .then_some((compound, named))
            })
            .collect();
        for (compound, named) in compounds {
            let entries = self.entries.entry(compound).or_default();
            for entry in named {
                if !entries.iter().any(|e| e.concept == entry.concept) {
                    entries.push(entry);
                }
            }
        }
    }

    fn add(&mut self, phrase: &str, concept: Concept, strength: Strength) {
        self.add_keyed(text::key(phrase), phrase, concept, strength);
    }

    /// Adds `phrase` under `key`, its stemmed words (or some of them).
    fn add_keyed(&mut self, key: String, phrase: &str, concept: Concept, strength: Strength) {
        if key.is_empty() || key.split(' ').count() > MAX_PHRASE_WORDS {
            return;
        }
        if strength < Strength::Value && key.contains(' ') {
            for word in text::words(phrase) {
                let length = word.plain.chars().count();
                if (5..=MAX_FUZZY_CHARS).contains(&length) {
                    self.phrase_words
                        .entry(length)
                        .or_default()
                        .push((word.plain, word.stem));
                }
            }
        }
        if strength < Strength::Value && !key.contains(' ') {
            let written = text::fold(phrase.trim());
            let length = written.chars().count();
            if (5..=MAX_FUZZY_CHARS).contains(&length) {
                self.written
                    .entry(length)
                    .or_default()
                    .push((written, key.clone()));
            }
        }
        let entries = self.entries.entry(key).or_default();
        match entries.iter_mut().find(|e| e.concept == concept) {
            Some(existing) => existing.strength = existing.strength.min(strength),
            None => entries.push(Entry {
                concept,
                strength,
                alias: false,
            }),
        }
    }

    /// A named filter by its name, label and synonyms, each without the
    /// words for its object at the end ("urgent orders" is entered as
    /// "urgent"): like a value, it qualifies the thing named after it, so
    /// "how many urgent orders" still counts the orders.
    fn add_named_filters(&mut self, ontology: &Ontology) {
        for (o, object) in ontology.objects.iter().enumerate() {
            let kinds: Vec<String> = [object.name.as_str(), object.label.as_str()]
                .into_iter()
                .chain(object.synonyms.iter().map(String::as_str))
                .map(text::key)
                .filter(|k| !k.is_empty())
                .collect();
            for (f, filter) in object.filters.iter().enumerate() {
                let concept = Concept::Filter {
                    object: o,
                    filter: f,
                };
                let phrases = [
                    (filter.name.as_str(), Strength::Name),
                    (filter.label.as_str(), Strength::Name),
                ]
                .into_iter()
                .chain(
                    filter
                        .synonyms
                        .iter()
                        .map(|s| (s.as_str(), Strength::Synonym)),
                );
                for (phrase, strength) in phrases {
                    let key = text::key(phrase);
                    let head = kinds
                        .iter()
                        .find_map(|kind| key.strip_suffix(kind.as_str())?.strip_suffix(' '))
                        .filter(|head| !head.is_empty())
                        .map(str::to_owned);
                    match head {
                        // The head alone is no phrase as written.
                        Some(head) => self.add_keyed(head, "", concept.clone(), strength),
                        None => self.add(phrase, concept.clone(), strength),
                    }
                }
            }
        }
    }

    /// Another word for a value: a country's adjective for its name, or
    /// the other way round.
    fn add_alias(&mut self, alias: &str, concept: Concept) {
        let entries = if is_code(alias) {
            self.codes.entry(text::fold(alias)).or_default()
        } else {
            let key = text::key(alias);
            if key.is_empty() {
                return;
            }
            self.entries.entry(key).or_default()
        };
        push_new(entries, concept, true);
    }

    /// "Monaco GP", "the Italian race": a value that ends with a word for its
    /// kind of thing ("Monaco Grand Prix", where "grand prix" names races)
    /// is also written with the kind's other words.
    fn add_kind_aliases(
        &mut self,
        kind: &crate::ontology::Object,
        object: usize,
        attribute: usize,
        values: &[String],
    ) {
        let names: Vec<String> = [kind.name.replace('_', " "), kind.label.clone()]
            .into_iter()
            .chain(kind.synonyms.iter().cloned())
            .map(|n| text::key(&n))
            .filter(|n| !n.is_empty())
            .collect();
        for value in values {
            let key = text::key(value);
            let Some(head) = names.iter().find_map(|name| {
                key.strip_suffix(name.as_str())
                    .and_then(|head| head.strip_suffix(' '))
                    .filter(|head| !head.is_empty())
            }) else {
                continue;
            };
            for name in &names {
                let concept = Concept::Value {
                    object,
                    attribute,
                    value: value.clone(),
                };
                let alias = format!("{head} {name}");
                if alias != key {
                    push_new(self.entries.entry(alias).or_default(), concept, true);
                }
            }
        }
    }

    /// "arrived" for a receipt date: the other English words for the moment
    /// a date names, where they name nothing else in the ontology.
    fn add_date_words(&mut self, ontology: &Ontology) {
        for (o, object) in ontology.objects.iter().enumerate() {
            for (a, attribute) in object.attributes.iter().enumerate() {
                let is_date = matches!(attribute.data_type, DataType::Date | DataType::Timestamp);
                if !is_date || attribute.role != AttributeRole::Time {
                    continue;
                }
                let own: HashSet<String> = [&attribute.name, &attribute.label]
                    .into_iter()
                    .chain(&attribute.synonyms)
                    .flat_map(|phrase| text::words(&phrase.replace('_', " ")))
                    .map(|word| word.stem)
                    .collect();
                let families = grammar::DATE_WORDS
                    .iter()
                    .filter(|family| family.iter().any(|w| own.contains(&text::key(w))));
                for word in families.flat_map(|family| family.iter()) {
                    if !self.entries.contains_key(&text::key(word)) {
                        let concept = Concept::Attribute {
                            object: o,
                            attribute: a,
                        };
                        self.add(word, concept, Strength::Synonym);
                    }
                }
            }
        }
    }

    /// "open" for the order status `O` where the description says "O is
    /// open". A meaning whose every word names a concept already would
    /// take those words from it, so it counts only where one word is its own
    /// ("partly" in "partly shipped").
    fn add_code_meanings(&mut self, ontology: &Ontology) {
        let names_concept = |lexicon: &Self, stem: &str| {
            lexicon
                .entries
                .get(stem)
                .is_some_and(|entries| entries.iter().any(|e| e.strength < Strength::Value))
        };
        for (o, object) in ontology.objects.iter().enumerate() {
            for (a, attribute) in object.attributes.iter().enumerate() {
                for (value, meaning) in
                    code_meanings(&attribute.description, &attribute.known_values)
                {
                    let key = text::key(meaning);
                    if key.split(' ').all(|stem| names_concept(self, stem)) {
                        continue;
                    }
                    let concept = Concept::Value {
                        object: o,
                        attribute: a,
                        value: value.to_owned(),
                    };
                    self.add_alias(meaning, concept);
                }
            }
        }
    }

    fn add_values(&mut self, object: usize, attribute: usize, values: &[String]) {
        for value in values {
            for alias in demonyms::kin(value) {
                let concept = Concept::Value {
                    object,
                    attribute,
                    value: value.clone(),
                };
                self.add_alias(alias, concept);
            }
        }
        // Codes of three letters or fewer ("HAD", "VER") collide with words:
        // kept apart, for capitals only.
        let (codes, values): (Vec<&String>, Vec<&String>) =
            values.iter().partition(|v| is_code(v.trim()));
        // A handful of short values ("AIR", "FOB" ship modes) are words
        // people type in lowercase ("shipped by air"); thousands of codes
        // ("HAM", "PER") are not.
        if values.len() <= SMALL_CATEGORIES {
            // Not "US" or "UK": a country's code stays a code.
            let worded = codes.iter().filter(|code| {
                let code = code.trim();
                code.chars().count() == 3
                    && demonyms::kin(code).is_empty()
                    && !crate::engine::grammar::is_stop_word(&text::fold(code))
            });
            for code in worded {
                let concept = Concept::Value {
                    object,
                    attribute,
                    value: (*code).clone(),
                };
                self.add(code, concept, Strength::Value);
            }
        }
        // "shipped by SHIP": a category's one-word value that a concept
        // shadows ("ship" for the ship date) is still the value where it is
        // typed in capitals as stored.
        let shadowed: Vec<&String> = values
            .iter()
            .filter(|v| {
                let v = v.trim();
                values.len() + codes.len() <= SMALL_CATEGORIES
                    && v.chars().count() > 3
                    && v.chars().all(|c| c.is_ascii_uppercase())
                    && text::words(v).first().is_some_and(|word| {
                        self.lookup(&word.stem)
                            .iter()
                            .any(|e| e.strength < Strength::Value)
                    })
            })
            .copied()
            .collect();
        // "Spa": a name of three letters or fewer, stored capitalised rather
        // than in capitals, is matched like a code, and only where the
        // question names nothing else with it.
        let short_names: Vec<&String> = values
            .iter()
            .filter(|v| {
                let v = v.trim();
                let mut chars = v.chars();
                (2..=3).contains(&v.chars().count())
                    && chars.next().is_some_and(char::is_uppercase)
                    && chars.all(char::is_lowercase)
                    && !crate::engine::grammar::is_stop_word(&text::fold(v))
            })
            .copied()
            .collect();
        for code in codes.iter().chain(&shadowed).chain(&short_names) {
            let entries = self.codes.entry(text::fold(code.trim())).or_default();
            let concept = Concept::Value {
                object,
                attribute,
                value: (*code).clone(),
            };
            push_new(entries, concept, false);
        }
        let values: Vec<&String> = values
            .into_iter()
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
            // "not regular air": a value stored abbreviated ("REG AIR") is
            // also meant spelled out.
            if let Some(spelled) = spelled_out(words) {
                self.add_alias(&spelled, concept.clone());
            }
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

    /// The values spelled by a word of two or three letters typed in
    /// capitals ("USA").
    pub fn code(&self, plain: &str) -> &[Entry] {
        self.codes.get(plain).map(Vec::as_slice).unwrap_or_default()
    }

    /// The attribute holding the rows' key of object `o`: "order number".
    pub fn key_of(&self, o: usize) -> Option<usize> {
        self.keys.get(&o).copied()
    }

    /// The attribute whose values name object `o`'s rows one by one:
    /// "Customer#000000005", "Lewis Hamilton".
    pub fn name_of(&self, o: usize) -> Option<usize> {
        self.names.get(&o).copied()
    }

    /// Whether attribute `a` of object `o` holds whole numbers a question
    /// names by the attribute ("round 5", "grid 3").
    pub fn is_numbered(&self, o: usize, a: usize) -> bool {
        self.numbered.contains(&(o, a))
    }

    /// Everything the exact phrase `key` can mean.
    pub fn lookup(&self, key: &str) -> &[Entry] {
        self.entries.get(key).map(Vec::as_slice).unwrap_or_default()
    }

    /// The values of `object`'s `attribute` (of any of its attributes where
    /// `None`) that `key` spells although it also names a concept:
    /// "Finished" after "status".
    pub fn shadowed_value(&self, key: &str, object: usize, attribute: Option<usize>) -> Vec<Entry> {
        self.shadowed
            .get(key)
            .into_iter()
            .flatten()
            .filter(|e| {
                matches!(e.concept, Concept::Value { object: o, attribute: a, .. }
                    if o == object && attribute.is_none_or(|attribute| a == attribute))
            })
            .cloned()
            .collect()
    }

    /// Whether `key` names `concept` only as a verb's stem ("order" for an
    /// order date whose synonym is "ordered").
    pub fn only_as_verb(&self, key: &str, concept: &Concept) -> bool {
        self.verb_stems.contains(&(key.to_owned(), concept.clone()))
    }

    /// The word `words[at]` was meant to be, as written and stemmed, where
    /// it is unknown, one edit from a word of a concept's phrase, and with
    /// its neighbours then spells the whole phrase: "avg starting grid
    /// postion" is the grid position.
    pub fn phrase_typo(&self, words: &[text::Word], at: usize) -> Option<(String, String)> {
        let word = &words[at];
        let length = word.plain.chars().count();
        if !(5..=MAX_FUZZY_CHARS).contains(&length) || !self.lookup(&word.stem).is_empty() {
            return None;
        }
        let names_concept = |key: &str| {
            self.lookup(key)
                .iter()
                .any(|e| e.strength < Strength::Value)
        };
        near(&self.phrase_words, length)
            .filter(|(written, _)| one_edit_apart(written, &word.plain))
            .find(|(_, stem)| {
                let first = at.saturating_sub(MAX_PHRASE_WORDS - 1);
                (first..=at).any(|start| {
                    (at + 1..=words.len().min(start + MAX_PHRASE_WORDS))
                        .filter(|end| end - start >= 2)
                        .any(|end| {
                            let key: Vec<&str> = (start..end)
                                .map(|i| {
                                    if i == at {
                                        stem.as_str()
                                    } else {
                                        words[i].stem.as_str()
                                    }
                                })
                                .collect();
                            names_concept(&key.join(" "))
                        })
                })
            })
            .cloned()
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
        let plain_length = word.plain.chars().count();
        let stem_length = stem.chars().count();
        if plain_length > MAX_FUZZY_CHARS + 1 {
            return None;
        }
        // The written form first: "custmers" is one letter from "customers".
        if plain_length >= 5
            && let Some((_, key)) = near(&self.written, plain_length)
                .filter(|(written, _)| {
                    one_edit_apart(written, &word.plain) && !inflected(written, &word.plain)
                })
                .min()
        {
            return Some(key.as_str());
        }
        if let Some(key) = self.abbreviated(&word.plain) {
            return Some(key);
        }
        if stem_length < 5 {
            return None;
        }
        near(&self.fuzzy_words, stem_length)
            .filter(|candidate| one_edit_apart(candidate, stem))
            .filter(|candidate| {
                let names_concept = self
                    .lookup(candidate)
                    .iter()
                    .any(|e| e.strength < Strength::Value);
                // A dropped or doubled letter ("ferari") is a typo at any
                // length; a changed letter only in a long word.
                // So is two neighbours swapped ("urgnet"): the same letters.
                let swapped = {
                    let (mut a, mut b): (Vec<char>, Vec<char>) =
                        (candidate.chars().collect(), stem.chars().collect());
                    a.sort_unstable();
                    b.sort_unstable();
                    a == b
                };
                // Five letters are too few to tell a typo from another
                // word but by two neighbours swapped ("eurpoe").
                if stem_length < 6 {
                    return swapped && candidate.chars().count() == stem_length;
                }
                let long_enough =
                    stem_length >= 7 || candidate.chars().count() != stem_length || swapped;
                names_concept || (long_enough && candidate.chars().take(2).eq(stem.chars().take(2)))
            })
            .min()
            .map(String::as_str)
    }

    /// "custs", "cust": the start of one object's name, cut short after
    /// four letters or more, as people shorten a long word they type often.
    fn abbreviated(&self, plain: &str) -> Option<&str> {
        let cut = plain.strip_suffix('s').unwrap_or(plain);
        let length = cut.chars().count();
        if !(4..=5).contains(&length) || !cut.chars().all(|c| c.is_ascii_lowercase()) {
            return None;
        }
        let mut objects = self
            .written
            .range(length + 3..)
            .flat_map(|(_, names)| names)
            .filter(|(written, key)| {
                written.starts_with(cut)
                    && !written.contains(' ')
                    && self.lookup(key).iter().any(|e| {
                        matches!(e.concept, Concept::Object(_)) && e.strength == Strength::Name
                    })
            })
            .map(|(_, key)| key.as_str());
        let first = objects.next()?;
        objects.all(|other| other == first).then_some(first)
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

/// Words stores abbreviate and people spell out.
const SPELLED_OUT: &[(&str, &str)] = &[
    ("reg", "regular"),
    ("std", "standard"),
    ("intl", "international"),
    ("natl", "national"),
    ("dept", "department"),
    ("mfg", "manufacturing"),
    ("govt", "government"),
    ("misc", "miscellaneous"),
];

/// A value's words with its abbreviations spelled out ("REG AIR" →
/// "regular air"), when it has any.
fn spelled_out(words: &[text::Word]) -> Option<String> {
    let mut changed = false;
    let spelled: Vec<&str> = words
        .iter()
        .map(
            |w| match SPELLED_OUT.iter().find(|(short, _)| *short == w.plain) {
                Some((_, long)) => {
                    changed = true;
                    *long
                }
                None => w.plain.as_str(),
            },
        )
        .collect();
    changed.then(|| spelled.join(" "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_value_stored_abbreviated_is_found_spelled_out() {
        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let lexicon = super::Lexicon::build(&ontology, &[]);
        let found = lexicon.lookup(&crate::engine::text::key("regular air"));
        assert!(
            found.iter().any(|e| matches!(
                &e.concept,
                super::Concept::Value { value, .. } if value == "REG AIR"
            )),
            "{found:?}"
        );
    }

    #[test]
    fn a_description_that_explains_codes_names_them() {
        let known: Vec<String> = ["F", "O", "P"].map(String::from).to_vec();
        assert_eq!(
            super::code_meanings("F is fulfilled, O is open, P is partly shipped.", &known),
            [("F", "fulfilled"), ("O", "open"), ("P", "partly shipped")]
        );
        assert_eq!(
            super::code_meanings("'O' = an open order; F means fulfilled", &known),
            [("O", "open order"), ("F", "fulfilled")]
        );
        // Prose that is not a glossary, and codes the attribute never takes.
        assert!(
            super::code_meanings(
                "The status is what the warehouse last reported about the order.",
                &known
            )
            .is_empty()
        );
        assert!(super::code_meanings("X is unknown, Y is yes", &known).is_empty());
    }

    #[test]
    fn a_verb_ending_is_no_typo_for_a_noun() {
        assert!(super::inflected("carrier", "carries"));
        assert!(super::inflected("supplier", "supplies"));
        assert!(!super::inflected("customers", "custmers"));
        assert!(!super::inflected("customer", "customes"));
        assert!(!super::inflected("urgent", "urgnet"));
    }

    #[test]
    fn one_edit_apart_agrees_with_the_damerau_distance() {
        // Every pair of words up to four letters over a three-letter alphabet.
        let alphabet = ['a', 'b', 'é'];
        let mut words = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|word| alphabet.iter().map(move |c| format!("{word}{c}")))
                .collect();
            words.extend(last.iter().cloned());
        }
        for a in &words {
            for b in &words {
                assert_eq!(
                    super::one_edit_apart(a, b),
                    strsim::damerau_levenshtein(a, b) == 1,
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
