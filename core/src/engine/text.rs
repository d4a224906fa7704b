//! How questions and ontology phrases are read: lower case, accents folded,
//! punctuation split off, each word stemmed (Snowball English). Both sides go
//! through the same function, so "Pérez" meets "perez" and "victories" meets
//! "victory".

use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// One word of a question: as typed (lower case, accents folded) and stemmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub plain: String,
    pub stem: String,
    /// Typed with a capital letter: a name, unless it starts the question.
    pub capital: bool,
    /// Typed all in capitals, two letters or more: a code such as "USA".
    pub capitals: bool,
}

/// Lower case without accents: "Pérez" becomes "perez".
pub fn fold(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of `text`; digits stay words of their own ("top 3", "2023").
pub fn words(text: &str) -> Vec<Word> {
    const APOSTROPHES: [char; 2] = ['\'', '\u{2019}'];
    let text = without_thousands_separators(text);
    text.split(|c: char| !(c.is_alphanumeric() || APOSTROPHES.contains(&c)))
        .flat_map(|token| token.split(APOSTROPHES))
        .filter(|token| !token.is_empty())
        .map(|token| {
            let plain = fold(token);
            Word {
                stem: stem(&plain),
                capital: token.chars().next().is_some_and(char::is_uppercase),
                capitals: token.chars().count() >= 2 && token.chars().all(|c| c.is_uppercase()),
                plain,
            }
        })
        .collect()
}

/// "350,000" as one number: a comma between a digit and exactly three digits
/// separates thousands. "2008,2009" (four digits) and "3, 4" stay apart.
fn without_thousands_separators(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let separates = |at: usize| {
        bytes[at] == b','
            && at > 0
            && bytes[at - 1].is_ascii_digit()
            && bytes.len() >= at + 4
            && bytes[at + 1..at + 4].iter().all(u8::is_ascii_digit)
            && bytes.get(at + 4).is_none_or(|b| !b.is_ascii_digit())
    };
    if !(0..bytes.len()).any(separates) {
        return Cow::Borrowed(text);
    }
    let kept: Vec<u8> = (0..bytes.len())
        .filter(|&at| !separates(at))
        .map(|at| bytes[at])
        .collect();
    // Only ASCII commas were removed, so the text is still UTF-8.
    Cow::Owned(String::from_utf8(kept).expect("removing ASCII keeps UTF-8"))
}

fn stem(plain: &str) -> String {
    if plain.chars().all(|c| c.is_ascii_digit()) {
        plain.to_owned()
    } else if let Some(acronym) = plain.strip_suffix('s')
        && acronym.len() >= 2
        && acronym
            .chars()
            .all(|c| c.is_ascii_alphabetic() && !"aeiouy".contains(c))
    {
        // "DNFs", "GPs": the stemmer keeps an "s" after no vowel, but an
        // acronym's plural is the acronym.
        acronym.to_owned()
    } else {
        STEMMER.stem(plain).into_owned()
    }
}

/// The lookup key of a phrase: its stems joined by spaces. Names written in
/// snake_case count as words ("race_result" is "race result").
pub fn key(phrase: &str) -> String {
    words(&phrase.replace('_', " "))
        .into_iter()
        .map(|w| w.stem)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::{key, words};

    #[test]
    fn accents_case_and_plurals_meet() {
        assert_eq!(key("Sergio Pérez"), key("sergio perez"));
        assert_eq!(key("Victories"), key("victory"));
        assert_eq!(key("race_result"), key("race results"));
        assert_eq!(key("drivers'"), key("driver"));
        assert_eq!(key("DNFs"), key("dnf"));
    }

    #[test]
    fn numbers_and_punctuation() {
        let w: Vec<String> = words("Top-3 drivers, in 2023?")
            .into_iter()
            .map(|w| w.plain)
            .collect();
        assert_eq!(w, ["top", "3", "drivers", "in", "2023"]);
    }

    #[test]
    fn thousands_separators_join_a_number() {
        let plain = |text| -> Vec<String> { words(text).into_iter().map(|w| w.plain).collect() };
        assert_eq!(plain("above $350,000"), ["above", "350000"]);
        assert_eq!(plain("1,234,567 units"), ["1234567", "units"]);
        assert_eq!(
            plain("2008,2009 and 3, 4"),
            ["2008", "2009", "and", "3", "4"]
        );
        assert_eq!(plain("12,34"), ["12", "34"]);
    }
}
