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

impl Word {
    /// A lower-case word the reader puts in place of what was typed
    /// ("did not" for "failed to", "second" for "runner-up").
    pub(crate) fn written(plain: &str) -> Self {
        Word {
            plain: plain.to_owned(),
            stem: stem(plain),
            capital: false,
            capitals: false,
        }
    }
}

/// The text with its first letter in capitals: "the winner of …" opens a
/// sentence as "The winner of …".
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
    let joined = without_thousands_separators(text);
    let text = percent_as_word(&joined);
    let text = plus_as_and(&text);
    let text = keys_apart(&text);
    let text = full_years(&text);
    let words = text
        .split(|c: char| !(c.is_alphanumeric() || APOSTROPHES.contains(&c)))
        .flat_map(without_contraction)
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
        .collect::<Vec<_>>();
    // "the 3-letter code", "a 5 digit key": how a code is written, not a
    // number the question asks about.
    const NUMBER_WORDS: [&str; 9] = [
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    const WRITTEN_IN: [&str; 6] = [
        "letter",
        "letters",
        "digit",
        "digits",
        "character",
        "characters",
    ];
    let written = |at: usize| {
        words
            .get(at + 1)
            .is_some_and(|next| WRITTEN_IN.contains(&next.plain.as_str()))
            && (words[at].plain.chars().all(|c| c.is_ascii_digit())
                || NUMBER_WORDS.contains(&words[at].plain.as_str()))
    };
    let words: Vec<Word> = (0..words.len())
        .filter(|&at| !written(at))
        .map(|at| words[at].clone())
        .collect();
    runner_up_as_second(without_fail_to(words))
}

/// "runner-up" is "second": one place, in the word every ordinal is read as.
fn runner_up_as_second(mut words: Vec<Word>) -> Vec<Word> {
    while let Some(at) = words.windows(2).position(|pair| {
        matches!(pair[0].plain.as_str(), "runner" | "runners") && pair[1].plain == "up"
    }) {
        words.splice(at..at + 2, [Word::written("second")]);
    }
    words
}

/// "failed to finish" is "did not finish": the negation in the words a
/// metric's synonym uses ("did not finish"), as "didn't" already is.
fn without_fail_to(mut words: Vec<Word>) -> Vec<Word> {
    const FAIL: [&str; 4] = ["fail", "fails", "failed", "failing"];
    let fails_to = |at: usize, words: &[Word]| {
        FAIL.contains(&words[at].plain.as_str())
            && words.get(at + 1).is_some_and(|w| w.plain == "to")
    };
    let mut at = 0;
    while at + 1 < words.len() {
        if fails_to(at, &words) {
            for (offset, plain) in ["did", "not"].into_iter().enumerate() {
                words[at + offset] = Word::written(plain);
            }
            at += 2;
        } else {
            at += 1;
        }
    }
    words
}

/// "didn't" is "did not", "can't" is "can not": the negation as its own
/// word, so that "did not finish" and "didn't finish" read alike.
fn without_contraction(token: &str) -> Vec<&str> {
    // "didnt", "wasnt": typed without the apostrophe. Only the verbs that
    // take the negation, so that "want" or "count" stay words.
    const WITHOUT_APOSTROPHE: &[&str] = &[
        "didnt", "doesnt", "dont", "isnt", "wasnt", "werent", "arent", "hasnt", "havent", "hadnt",
        "cant", "wont", "couldnt", "wouldnt", "shouldnt",
    ];
    let bare = WITHOUT_APOSTROPHE
        .iter()
        .any(|w| token.eq_ignore_ascii_case(w))
        .then(|| &token[..token.len() - 2]);
    let Some(verb) = bare.or_else(|| {
        ["n't", "n\u{2019}t"]
            .iter()
            .find_map(|suffix| token.strip_suffix(suffix).filter(|v| !v.is_empty()))
    }) else {
        return vec![token];
    };
    // "can't" and "won't" drop more than the "n't".
    let verb = if verb.eq_ignore_ascii_case("ca") {
        "can"
    } else if verb.eq_ignore_ascii_case("wo") {
        "will"
    } else {
        verb
    };
    vec![verb, "not"]
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

/// "driverId 4", "circuitRef": a column name in camelCase that ends in a
/// key's word is that key's words ("driver id"). Other capitals inside a
/// word ("McLaren") are part of a name and stay.
fn keys_apart(text: &str) -> Cow<'_, str> {
    const KEY_WORDS: [&str; 4] = ["Id", "ID", "Ref", "Key"];
    let splits = |word: &str| {
        KEY_WORDS.iter().find_map(|key| {
            let head = word.strip_suffix(key)?;
            (head.len() >= 2 && head.chars().all(|c| c.is_ascii_alphabetic()))
                .then_some(head.len())
                .filter(|_| head.chars().last().is_some_and(|c| c.is_ascii_lowercase()))
        })
    };
    let words: Vec<&str> = text.split(' ').collect();
    if !words
        .iter()
        .any(|w| splits(w.trim_matches(|c: char| !c.is_alphanumeric())).is_some())
    {
        return Cow::Borrowed(text);
    }
    let split: Vec<String> = words
        .iter()
        .map(|w| {
            let start = w.find(|c: char| c.is_alphanumeric()).unwrap_or(0);
            let end = w
                .rfind(|c: char| c.is_alphanumeric())
                .map_or(w.len(), |e| e + 1);
            match splits(&w[start..end]) {
                Some(at) => format!("{} {}", &w[..start + at], &w[start + at..]),
                None => (*w).to_owned(),
            }
        })
        .collect();
    Cow::Owned(split.join(" "))
}

/// "March '97", "the '90s": a year written with an apostrophe and two
/// digits is the full year, 1950 to 2049 (the century that holds most of
/// what warehouses record).
fn full_years(text: &str) -> Cow<'_, str> {
    let chars: Vec<char> = text.chars().collect();
    let short_year = |at: usize| {
        matches!(chars[at], '\'' | '\u{2019}')
            && (at == 0 || !chars[at - 1].is_alphanumeric())
            && chars.len() >= at + 3
            && chars[at + 1..at + 3].iter().all(char::is_ascii_digit)
            && match chars.get(at + 3) {
                None => true,
                Some('s') => chars.get(at + 4).is_none_or(|c| !c.is_alphanumeric()),
                Some(c) => !c.is_alphanumeric(),
            }
    };
    if !(0..chars.len()).any(short_year) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4);
    for (at, c) in chars.iter().enumerate() {
        if short_year(at) {
            let decade = chars[at + 1].to_digit(10).unwrap_or(0);
            out.push_str(if decade >= 5 { "19" } else { "20" });
        } else {
            out.push(*c);
        }
    }
    Cow::Owned(out)
}

/// "what % of orders": a percent sign that follows no number is the word
/// "percent". After a number ("a 5% discount") it only marks the number.
fn percent_as_word(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '%' && !out.trim_end().ends_with(|p: char| p.is_ascii_digit()) {
            out.push_str(" percent ");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// "driver + how long": a plus between words is "and". Before a digit it
/// stays part of what follows ("+1 Lap").
fn plus_as_and(text: &str) -> Cow<'_, str> {
    if !text.contains('+') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let before_word = c == '+'
            && chars
                .clone()
                .find(|next| !next.is_whitespace())
                .is_some_and(char::is_alphabetic);
        if before_word {
            out.push_str(" and ");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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
    } else if matches!(plain, "partly" | "partially") {
        // "partly shipped" is a state of an order, not "parts shipped":
        // the stemmer would make the adverb the noun.
        "partly".to_owned()
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

    #[test]
    fn a_year_after_an_apostrophe_is_the_full_year() {
        let plain = |t: &str| words(t).into_iter().map(|w| w.plain).collect::<Vec<_>>();
        assert_eq!(plain("March '97"), ["march", "1997"]);
        assert_eq!(
            plain("Q4 \u{2019}05 and the '90s"),
            ["q4", "2005", "and", "the", "1990s"]
        );
        assert_eq!(plain("Hamilton's 44"), ["hamilton", "s", "44"]);
        assert_eq!(plain("'123"), ["123"]);
    }

    #[test]
    fn failing_to_is_not() {
        let plain = |t: &str| words(t).into_iter().map(|w| w.plain).collect::<Vec<_>>();
        assert_eq!(plain("failed to finish"), ["did", "not", "finish"]);
        assert_eq!(plain("engine failed"), ["engine", "failed"]);
    }

    #[test]
    fn a_percent_sign_after_no_number_is_the_word() {
        let plain = |text| -> Vec<String> { words(text).into_iter().map(|w| w.plain).collect() };
        assert_eq!(
            plain("what % of orders"),
            ["what", "percent", "of", "orders"]
        );
        assert_eq!(plain("a 5% discount"), ["a", "5", "discount"]);
        assert_eq!(plain("over 5 %"), ["over", "5"]);
    }

    #[test]
    fn camel_case_keys_are_words() {
        let plain = |text| -> Vec<String> { words(text).into_iter().map(|w| w.plain).collect() };
        assert_eq!(plain("driverId 4"), ["driver", "id", "4"]);
        assert_eq!(plain("(raceId)"), ["race", "id"]);
        assert_eq!(plain("the circuitRef"), ["the", "circuit", "ref"]);
        assert_eq!(
            plain("McLaren and AlphaTauri"),
            ["mclaren", "and", "alphatauri"]
        );
        assert_eq!(plain("Id 4"), ["id", "4"]);
        assert_eq!(plain("didn't finish"), ["did", "not", "finish"]);
        assert_eq!(plain("didnt finish"), ["did", "not", "finish"]);
        assert_eq!(plain("driver + team"), ["driver", "and", "team"]);
        assert_eq!(plain("+1 Lap"), ["1", "lap"]);
        assert_eq!(plain("Wont count"), ["will", "not", "count"]);
        assert_eq!(plain("can\u{2019}t win"), ["can", "not", "win"]);
        assert_eq!(plain("the 3-letter code"), ["the", "letter", "code"]);
        assert_eq!(plain("three-letter code"), ["letter", "code"]);
    }
}
