//! From words to pieces: each word of a question becomes an operator (from
//! the grammar), a concept (from the lexicon), a number, a date or an
//! unknown word, and an unknown word is marked when it must carry meaning.

use super::attributes::{is_display, is_person, position_attribute};
use super::time::DateRange;
use crate::engine::grammar::{self, Op};
use crate::engine::lexicon::{Concept, Entry, Lexicon, MAX_PHRASE_WORDS, Strength, one_edit_apart};
use crate::engine::plan::{Measure, SemanticPlan};
use crate::engine::text::{self, Word};
use crate::ontology::{Aggregate, MetricKind, Ontology};
use crate::time::Day;

/// One recognised piece of a question.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Piece {
    Op(Op),
    Number(i64),
    Concept {
        entries: Vec<Entry>,
        text: String,
        /// Right after "in", "at", "during": a scope of what is asked
        /// ("points in Grands Prix"), not what is asked.
        scoped: bool,
    },
    /// "second", "P2", "3rd": a finishing position.
    Ordinal(i64),
    /// "oldest", "the first race": the extreme of a date; `latest` for the
    /// latest, `of_age` where the word is a person's age ("youngest").
    Extreme {
        latest: bool,
        of_age: bool,
    },
    /// "29 November 2015", "2015/11/29", "Nov 2015": whole days, inclusive.
    Dates(DateRange),
    /// "in April", "April to June" with no year: those months of every
    /// year, by number (1 for January), first to last.
    Months(u32, u32),
    /// "order number 1", "race No. 18": the row of an object with this key.
    Key {
        object: usize,
        key: i64,
    },
    /// "winners", "scorers": whoever did what the metric counts.
    Agent {
        metric: usize,
        text: String,
    },
    /// How a phrase was read that the answer should say ("last year" as
    /// 2025, as of the day asked).
    Note(String),
    /// A word neither the grammar nor the lexicon knows. It blocks the
    /// question when it has to carry meaning: the thing asked for, or a name.
    Unknown {
        word: String,
        blocks: bool,
    },
}

impl Piece {
    /// "the most", "the highest", "the oldest": a word that ranks, either
    /// way.
    pub(super) fn ranks(&self) -> bool {
        match self {
            Piece::Op(op) => op.superlative().is_some(),
            Piece::Extreme { .. } => true,
            _ => false,
        }
    }
}

/// Where a word stands relative to the thing the question asks for: after
/// "how many", "what is the", "top 5", the words up to the next preposition
/// or verb name it, so an unknown word there cannot be skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Focus {
    Outside,
    Opening,
    Inside,
}

pub(super) fn opens_focus(op: Op) -> bool {
    matches!(
        op,
        Op::Count
            | Op::Sum
            | Op::Average
            | Op::Most
            | Op::Least
            | Op::Peak(_)
            | Op::Top
            | Op::Bottom
            | Op::Which
    )
}

/// Words that tie a phrase to the next ("the salary of the clerk"), never
/// filler inside one.
fn joins(plain: &str) -> bool {
    matches!(
        plain,
        "of" | "for"
            | "in"
            | "at"
            | "on"
            | "by"
            | "to"
            | "from"
            | "with"
            | "the"
            | "a"
            | "an"
            | "and"
            | "or"
    )
}

/// Words of one question looked up for typos at most.
const MAX_FUZZY_LOOKUPS: usize = 32;

/// `today` is the caller's day, against which "last year" is read; without
/// it such phrases are never guessed.
pub(super) fn read(lexicon: &Lexicon, question: &str, today: Option<Day>) -> Vec<Piece> {
    let question = open_ended_years(&year_ranges_spelled(question));
    let question = both_names_spelled(&question);
    let question = champion_as_winner(&question);
    let question = why_as_reason(&question);
    let question = who_asked_last(&question);
    let question = formulas_dropped(&question);
    let question = order_named_first(&question);
    let question = among_as_counted(&question);
    let question = among_said_last(&question);
    let question = super::margins::margin_as_difference(&question);
    let question = aside_no_as_excluding(&question);
    let question = how_long_later(lexicon, &question);
    let mut words: Vec<Word> = text::words(&question)
        .into_iter()
        .map(|word| normalise_word(lexicon, word))
        .collect();
    // "avg starting grid postion": a typo inside a phrase, before phrases
    // are read. A word that names something as typed is left alone, and
    // names (capitals) are values' business.
    // So is a typo of a word that opens a value of several words, where
    // the corrected word completes it ("the 2019 japanesse gp"), rather
    // than a shorter value of its own ("Japanese", a nationality).
    let mut opening_typos = 0;
    for at in 0..words.len() {
        if words[at].capital || grammar::is_stop_word(&words[at].plain) {
            continue;
        }
        if let Some((plain, stem)) = lexicon.phrase_typo(&words, at) {
            words[at].plain = plain;
            words[at].stem = stem;
        } else if at + 1 < words.len()
            && opening_typos < MAX_FUZZY_LOOKUPS
            && lexicon.lookup(&words[at].stem).is_empty()
        {
            opening_typos += 1;
            if let Some(fixed) = value_opened_by_typo(lexicon, &words, at) {
                words[at] = fixed;
            }
        }
    }
    // "the total value of orders": a word that names nothing alone (or
    // only fills), with what follows "of" before it, may be a name
    // ("order value").
    let mut at = 0;
    while at + 2 < words.len() {
        let inverted = format!("{} {}", words[at + 2].stem, words[at].stem);
        if words[at + 1].plain == "of"
            && grammar::operator_at(&[words[at].plain.as_str(), "of"]).is_none()
            && grammar::operator_at(&[words[at].plain.as_str()]).is_none()
            && lexicon.lookup(&words[at].stem).is_empty()
            && !lexicon.lookup(&inverted).is_empty()
        {
            words.remove(at + 1);
            words.swap(at, at + 1);
            at += 2;
        } else {
            at += 1;
        }
    }
    // "his first ever win": "ever" only stresses the extreme before it.
    let mut at = 1;
    while at < words.len() {
        if words[at].plain == "ever" && grammar::extreme(&words[at - 1].plain).is_some() {
            words.remove(at);
        } else {
            at += 1;
        }
    }
    // "which of them hosted a race most recently", "and the longest ago?":
    // the latest and the earliest.
    let mut at = 0;
    while at + 1 < words.len() {
        let extreme = match (words[at].plain.as_str(), words[at + 1].plain.as_str()) {
            ("most", "recently") => Some("latest"),
            ("least", "recently") | ("longest", "ago") => Some("earliest"),
            _ => None,
        };
        if let Some(extreme) = extreme {
            words.remove(at + 1);
            // "hosted a race most recently": hosted the latest race.
            if at >= 2 && matches!(words[at - 2].plain.as_str(), "a" | "an") {
                words.remove(at);
                words[at - 2] = Word::written("the");
                words.insert(at - 1, Word::written(extreme));
            } else {
                words[at] = Word::written(extreme);
            }
        }
        at += 1;
    }
    // "since the year 2000": the year itself, wherever a year may stand.
    let is_year = |w: &Word| {
        w.plain
            .parse::<i64>()
            .is_ok_and(|y| (1900..=2100).contains(&y))
    };
    let mut at = 0;
    while at + 1 < words.len() {
        // Not "by year 2018 to 2022", a grouping over a range.
        if words[at].plain == "year"
            && is_year(&words[at + 1])
            && at > 0
            && words[at - 1].plain == "the"
        {
            words.drain(at - 1..=at);
        } else {
            at += 1;
        }
    }
    let plain: Vec<&str> = words.iter().map(|w| w.plain.as_str()).collect();
    let mut pieces = Vec::new();
    let mut focus = Focus::Outside;
    // Typo matching is the costly lookup; a question that needs more than a
    // few dozen is not a question with typos.
    let fuzzy_lookups = std::cell::Cell::new(0);
    let fuzzy = |word: &Word| {
        fuzzy_lookups.set(fuzzy_lookups.get() + 1);
        (fuzzy_lookups.get() <= MAX_FUZZY_LOOKUPS)
            .then(|| lexicon.fuzzy(word))
            .flatten()
    };
    let mut scope_ends: Option<usize> = None;
    // The word index of the last unknown word that may qualify the next.
    let mut unknown_at: Option<usize> = None;
    // The word index of an unknown word joined to the number before it
    // ("three-letter", "two-time"): a description, never a qualifier that
    // changes what is counted.
    let mut joined_to_number: Option<usize> = None;
    // Where a thing follows "a" or "an", by piece.
    let mut one_of: Vec<usize> = Vec::new();
    let shouted = words
        .iter()
        .filter(|w| !w.capitals)
        .all(|w| w.plain.chars().all(|c| !c.is_alphabetic()) || w.plain.chars().count() < 2);
    // Where "because of", "due to" or "caused by" was: a cause the
    // ontology has no word for is one the data cannot show.
    let mut cause_at: Option<usize> = None;
    // The unknown words of the cause, by piece: they stop blocking once a
    // word of the cause is known ("due to an engine failure").
    let mut cause_unknowns: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if matches!(
            (plain[i], plain.get(i + 1)),
            ("because", Some(&"of")) | ("due" | "owing", Some(&"to")) | ("caused", Some(&"by"))
        ) {
            cause_at = Some(i);
        }
        // Dates, before their numbers are read as years.
        if let Some((range, len)) = date_at(&plain[i..]) {
            // "from March through June 1997": the range is both its ends,
            // not "since" its start.
            let both_ends = plain[i..i + len]
                .iter()
                .any(|w| matches!(*w, "and" | "to" | "through" | "thru" | "until" | "till"));
            if both_ends && matches!(pieces.last(), Some(Piece::Op(Op::Since | Op::From))) {
                pieces.pop();
            }
            // "07/04/1997": either day could come first; say which was read.
            if let [a, b, _] = plain[i..i + len] {
                let small = |w: &str| w.parse::<u32>().is_ok_and(|n| (1..=12).contains(&n));
                if small(a) && small(b) && a.parse::<u32>().ok() != b.parse::<u32>().ok() {
                    pieces.push(Piece::Note(format!(
                        "\"{a}/{b}/{}\" read as month/day/year, {}",
                        plain[i + 2],
                        range.first
                    )));
                }
            }
            pieces.push(Piece::Dates(range));
            focus = Focus::Outside;
            i += len;
            continue;
        }
        // "before 1 July", "since March", with 2021 named elsewhere: that
        // year's day or month, not the month of every year.
        if matches!(
            pieces.last(),
            Some(Piece::Op(Op::Before | Op::After | Op::Since | Op::Until))
        ) && let Some((range, len)) = date_in_sole_year(&plain, i)
        {
            pieces.push(Piece::Dates(range));
            focus = Focus::Outside;
            i += len;
            continue;
        }
        // "races held in April", "from April to June": months of every
        // year. "may" and "march" are verbs too, so a month needs its
        // capital or a preposition before it.
        if let Some((first, last, len)) = months_at(&words[i..], i.checked_sub(1).map(|p| plain[p]))
        {
            // "on 07/04/1997 (July 4th)": the date said again in words.
            let day = plain.get(i + len).is_some_and(|w| {
                w.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .parse::<u32>()
                    .is_ok_and(|d| (1..=31).contains(&d))
            });
            let restated = first == last
                && pieces.iter().any(|p| {
                    matches!(p, Piece::Dates(range) if range.first == range.last
                        && range.first.get(5..7) == Some(format!("{first:02}").as_str()))
                });
            if restated && day {
                i += len + 1;
                continue;
            }
            pieces.push(Piece::Months(first, last));
            focus = Focus::Outside;
            i += len;
            continue;
        }
        // "the 1990s": every year of the decade.
        if let Some(decade) = decade(&words[i].plain) {
            pieces.extend([
                Piece::Op(Op::Between),
                Piece::Number(decade),
                Piece::Op(Op::And),
                Piece::Number(decade + 9),
            ]);
            focus = Focus::Outside;
            i += 1;
            continue;
        }
        // "priority 1-URGENT": a value that opens with a number is the value.
        if words[i].plain.parse::<i64>().is_ok()
            && let (len @ 2.., entries) = longest_concept(lexicon, &words[i..])
            && entries.iter().any(|e| {
                matches!(e.concept, Concept::Value { .. }) && e.strength == Strength::Value
            })
        {
            pieces.push(Piece::Concept {
                entries,
                text: plain[i..i + len].join(" "),
                scoped: false,
            });
            focus = Focus::Outside;
            i += len;
            continue;
        }
        if let Ok(n) = words[i].plain.parse::<i64>() {
            // "10 or more wins", "grid 10 or further back": a bound, read
            // as "at least 10" is.
            let bound = grammar::open_bound(&plain[i + 1..]);
            if let Some((_, op)) = bound {
                pieces.push(Piece::Op(op));
            }
            pieces.push(Piece::Number(n));
            if bound.is_none()
                && !matches!(
                    pieces.iter().rev().nth(1),
                    Some(Piece::Op(Op::Top | Op::Bottom | Op::Which))
                )
            {
                focus = Focus::Outside;
            }
            i += 1 + bound.map_or(0, |(len, _)| len);
            continue;
        }
        // "State the driver with the most points": the command, not a
        // part of "United States".
        if i == 0 && plain[0] == "state" && plain.len() > 1 {
            i += 1;
            continue;
        }
        // "Rank the drivers by wins", "sort customers by revenue": the
        // command, not a result's rank.
        if i == 0 && matches!(plain[0], "rank" | "sort") {
            pieces.push(Piece::Op(Op::Top));
            focus = Focus::Opening;
            i += 1;
            continue;
        }
        // "…? Order from most negative.", "Sort by revenue": a sentence
        // that opens with the command says how to sort, and names no
        // order (the thing).
        if i > 0
            && words[i].capital
            && matches!(plain[i], "order" | "sort")
            && matches!(plain.get(i + 1), Some(&("from" | "by")))
        {
            i += 2;
            continue;
        }
        // "that year", "of all time": how much of the chat's scope a
        // follow-up keeps.
        if let Some((len, op)) = grammar::chat_scope_phrase(&plain[i..]) {
            pieces.push(Piece::Op(op));
            i += len;
            continue;
        }
        // "in that race", "for the same team": the thing the chat's last
        // question was about, whose filters a follow-up keeps; the noun is
        // neither counted nor grouped by. After a preposition or a verb
        // ("what nation is that customer from"), or opening the question
        // ("that driver's age"); not after a noun, so "teams that race in
        // 2020" keeps its verb.
        let demonstrative = (plain[i] == "that"
            && (i == 0
                || matches!(
                    plain[i - 1],
                    "in" | "at"
                        | "for"
                        | "from"
                        | "of"
                        | "during"
                        | "on"
                        | "is"
                        | "was"
                        | "did"
                        | "does"
                        | "has"
                        | "had"
                        | "about"
                )))
            || (plain[i] == "same" && i > 0 && plain[i - 1] == "the");
        if demonstrative {
            // "now do the same for orders placed in 1996": those things
            // again, in another scope; they are not what is counted.
            let skip = if plain[i] == "same" && plain.get(i + 1) == Some(&"for") {
                2
            } else {
                1
            };
            let (len, entries) = longest_concept(lexicon, &words[(i + skip).min(words.len())..]);
            if len > 0
                && let Some(object) = object_of(&entries)
            {
                pieces.push(Piece::Op(Op::That(object)));
                focus = Focus::Outside;
                i += skip + len;
                continue;
            }
            // "of that brand's parts": a value, not a thing. "What was that
            // speed" asks the speed the question itself names.
            if plain[i] == "that"
                && i > 0
                && matches!(
                    plain[i - 1],
                    "in" | "at" | "for" | "from" | "of" | "during" | "on" | "about"
                )
                && len > 0
                && let [(object, attribute)] = attributes_of(&entries).collect::<Vec<_>>()[..]
            {
                pieces.push(Piece::Op(Op::ThatValue(object, attribute)));
                focus = Focus::Outside;
                i += 1 + len;
                continue;
            }
        }
        // "the lowest average supply cost across the parts it stocks": the
        // things an average is taken over, each supplier's own, not a
        // grouping; the clause after says nothing more.
        // "… across the parts Supplier#000000005 stocks": so is a clause
        // whose subject is named, which filters; its verb must be one the
        // ontology reads as no measure ("won" would count wins).
        if plain[i] == "across"
            && pieces.contains(&Piece::Op(Op::Average))
            && let at = i + 1 + usize::from(plain.get(i + 1) == Some(&"the"))
            && at + 1 < words.len()
        {
            if matches!(plain[at + 1], "it" | "they" | "he" | "she") {
                i = (at + 3).min(plain.len());
                continue;
            }
            if let (len @ 1.., subject) = longest_concept(lexicon, &words[at + 1..])
                && subject.iter().all(|e| {
                    matches!(e.concept, Concept::Value { .. }) && e.strength == Strength::Value
                })
                && at + 1 + len + 1 == words.len()
                && let (1, verb) = longest_concept(lexicon, &words[at + 1 + len..])
                && verb.iter().any(|e| matches!(e.concept, Concept::Object(_)))
                && !verb
                    .iter()
                    .any(|e| matches!(e.concept, Concept::Metric(_) | Concept::Value { .. }))
            {
                i = at + 1;
                continue;
            }
        }
        // "when was he born", "the first race held there": the thing the
        // chat's last answer led with. "Were there" is not a place.
        let existential =
            i > 0 && matches!(plain[i - 1], "is" | "are" | "was" | "were" | "be" | "been");
        // "what country is it in": "it" too, except in the commands "break
        // it down", "group it by".
        let command =
            i > 0 && matches!(plain[i - 1], "break" | "group" | "split" | "sort" | "rank");
        // "break that down by year": the command refines the last answer.
        if command && matches!(plain[i], "it" | "that" | "this") {
            pieces.push(Piece::Op(Op::Back));
            i += 1;
            continue;
        }
        let person = matches!(plain[i], "he" | "she" | "him" | "his" | "her" | "hers");
        if person
            || (plain[i] == "there" && !existential)
            || (matches!(plain[i], "it" | "its") && !command)
        {
            pieces.push(Piece::Op(Op::Refer { person }));
            i += 1;
            continue;
        }
        // "which of their drivers", "who won the ones held since 2021": what
        // the chat's last answer was about.
        if plain[i] == "of"
            && plain
                .get(i + 1)
                .is_some_and(|next| matches!(*next, "them" | "those" | "these" | "their"))
        {
            pieces.push(Piece::Op(Op::Among));
            i += 2;
            focus = Focus::Outside;
            continue;
        }
        // "which one has the lowest balance", after a list: one of those
        // listed, as "which of them" asks.
        if matches!(plain[i], "one" | "ones")
            && i > 0
            && plain[i - 1] == "which"
            && plain.get(i + 1) != Some(&"of")
        {
            pieces.push(Piece::Op(Op::Among));
            i += 1;
            focus = Focus::Outside;
            continue;
        }
        if matches!(plain[i], "their" | "ones") {
            pieces.push(Piece::Op(Op::Back));
            i += 1;
            focus = Focus::Outside;
            continue;
        }
        // "most recent first".
        if let Some((3, op @ Op::InTimeOrder(_))) = grammar::operator_at(&plain[i..]) {
            pieces.push(Piece::Op(op));
            i += 3;
            continue;
        }
        // "oldest season first", "highest total first": the order a list
        // is sorted in, with what is sorted named between ("most negative
        // first" is a phrase of its own).
        if plain.get(i + 2) == Some(&"first")
            && !matches!(grammar::operator_at(&plain[i..]), Some((3, _)))
            && plain.get(i + 3).is_none_or(|next| {
                matches!(*next, "then" | "and" | "please")
                    || !next.chars().any(char::is_alphanumeric)
            })
            && let Some((2, op)) = grammar::operator_at(&[plain[i], "first"])
        {
            pieces.push(Piece::Op(op));
            i += 3;
            continue;
        }
        // "took place": a verb, not the position called "place".
        if let Some(len) = grammar::filler_phrase(&plain[i..]) {
            i += len;
            continue;
        }
        // "Hamilton's fastest lap": what follows a name's possessive is asked
        // of it.
        if plain[i] == "s"
            && matches!(pieces.last(), Some(Piece::Concept { entries, .. })
                if entries.iter().all(|e| matches!(e.concept, Concept::Value { .. })))
        {
            // "How many pit stops did Red Bull's drivers make": once a
            // measure is asked for, the possessive only scopes it.
            let measured = pieces.iter().any(|p| {
                matches!(
                    p,
                    Piece::Op(op) if matches!(op, Op::Count | Op::Sum | Op::Average)
                        || op.superlative().is_some()
                )
            });
            if !measured {
                pieces.push(Piece::Op(Op::Which));
            }
            focus = Focus::Outside;
            i += 1;
            continue;
        }
        // "when was the last time Ferrari won": the latest, and "time" is
        // not the race's start time.
        if matches!(plain[i], "last" | "first")
            && plain.get(i + 1) == Some(&"time")
            && i > 0
            && plain[i - 1] == "the"
        {
            pieces.push(Piece::Extreme {
                latest: plain[i] == "last",
                of_age: false,
            });
            i += 2;
            continue;
        }
        // "most recent", "the most recent": the latest.
        let the = usize::from(plain[i] == "the");
        if plain.get(i + the) == Some(&"most") && plain.get(i + the + 1) == Some(&"recent") {
            pieces.push(Piece::Extreme {
                latest: true,
                of_age: false,
            });
            i += the + 2;
            continue;
        }
        // "in the USA": a code typed in capitals, in a question that is not
        // typed all in capitals.
        // "status F": a one-letter code only right after its attribute's
        // name, since "A" and "I" are words too.
        let one_letter = words[i].plain.chars().count() == 1;
        let capitals = words[i].capitals || (one_letter && words[i].capital);
        let codes = lexicon.code(&words[i].plain);
        if capitals && !shouted && !codes.is_empty() {
            let named = |e: &Entry| match e.concept {
                Concept::Value {
                    object, attribute, ..
                } => matches!(pieces.last(), Some(Piece::Concept { entries, .. })
                    if entries.iter().any(|n| n.concept == Concept::Attribute { object, attribute })),
                _ => false,
            };
            let entries: Vec<Entry> = codes
                .iter()
                .filter(|e| !one_letter || named(e))
                .cloned()
                .collect();
            if !entries.is_empty() {
                pieces.push(Piece::Concept {
                    entries,
                    text: words[i].plain.clone(),
                    scoped: false,
                });
                focus = Focus::Outside;
                i += 1;
                continue;
            }
        }
        // "suppliers with a negative account balance": a sign is a bound at
        // zero on the number named after it.
        if matches!(plain[i], "negative" | "positive")
            && let (len, named) = longest_concept(lexicon, &words[i + 1..])
            && len > 0
            && named
                .iter()
                .all(|e| matches!(e.concept, Concept::Attribute { .. }))
        {
            pieces.push(Piece::Concept {
                entries: named,
                text: plain[i + 1..i + 1 + len].join(" "),
                scoped: false,
            });
            pieces.push(Piece::Op(if plain[i] == "negative" {
                Op::Below
            } else {
                Op::Above
            }));
            pieces.push(Piece::Number(0));
            focus = Focus::Outside;
            i += 1 + len;
            continue;
        }
        let (mut concept_len, mut entries) = longest_concept(lexicon, &words[i..]);
        // "race number 901": a thing's name, a key's marker and a number is
        // the row with that key, though the name and the marker together
        // are also a phrase ("race number", a car's number).
        if concept_len >= 2
            && is_key_marker(plain[i + concept_len - 1])
            && key_after(&plain[i + concept_len - 1..]).is_some()
            && let (len, thing) = longest_concept(lexicon, &words[i..i + concept_len - 1])
            && len == concept_len - 1
            && object_of(&thing).is_some()
        {
            (concept_len, entries) = (len, thing);
        }
        // "the parts Supplier#000000005 stocks": a phrase ("parts
        // supplier") whose last word opens a longer value spelled whole is
        // the shorter phrase, then the value.
        if concept_len >= 2
            && let (2.., value) = longest_concept(lexicon, &words[i + concept_len - 1..])
            && value.iter().all(|e| {
                matches!(e.concept, Concept::Value { .. }) && e.strength == Strength::Value
            })
            && let (len, shorter) = longest_concept(lexicon, &words[i..i + concept_len - 1])
            && len == concept_len - 1
        {
            (concept_len, entries) = (len, shorter);
        }
        // "average discount rate": two names of one thing overlapping
        // ("average discount", "discount rate") are that thing once, not
        // the first and an operator ("rate" as a share).
        if concept_len >= 2
            && i + concept_len < words.len()
            && grammar::operator_at(&[plain[i + concept_len]]).is_some()
            && let (2.., overlap) =
                longest_concept(lexicon, &words[i + concept_len - 1..=i + concept_len])
            && overlap
                .iter()
                .any(|e| entries.iter().any(|mine| mine.concept == e.concept))
        {
            concept_len += 1;
        }
        // "orders with a total above 400,000": compared with a number,
        // "total" is the thing's own total ("order total"), not a sum.
        if concept_len == 0
            && plain[i] == "total"
            && plain.get(i + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "above"
                        | "over"
                        | "below"
                        | "under"
                        | "exceeding"
                        | "greater"
                        | "less"
                        | "more"
                        | "of"
                )
            })
            && let Some(own) = words[..i].iter().rev().find_map(|thing| {
                let named: Vec<Entry> = lexicon
                    .lookup(&format!("{} {}", thing.stem, words[i].stem))
                    .iter()
                    .filter(|e| matches!(e.concept, Concept::Attribute { .. }))
                    .cloned()
                    .collect();
                (!named.is_empty()).then_some(named)
            })
        {
            pieces.push(Piece::Concept {
                entries: own,
                text: plain[i].to_owned(),
                scoped: false,
            });
            focus = Focus::Outside;
            i += 1;
            continue;
        }
        // "the fastest lap time in race 1030": a time named for the best of
        // something is, after "the", that best itself, as "the quickest lap
        // time" is ("Hamilton's fastest lap time" is his one).
        if concept_len >= 2
            && i > 0
            && plain[i - 1] == "the"
            && let Some((1, op @ Op::Peak(_))) = grammar::operator_at(&plain[i..=i])
            // Of a time the least is the best; "the fastest lap speed" is
            // the highest, which "fastest" does not say.
            && matches!(plain[i + concept_len - 1], "time" | "duration")
            && let (rest, named) = longest_concept(lexicon, &words[i + 1..])
            && rest + 1 == concept_len
            && !named.is_empty()
            && named
                .iter()
                .all(|e| matches!(e.concept, Concept::Attribute { .. }) && entries.iter().any(|whole| whole.concept == e.concept))
        {
            pieces.push(Piece::Op(op));
            focus = Focus::Outside;
            i += 1;
            continue;
        }
        // "the status 'Finished'", "status is not 'Finished'": right after
        // its attribute, a value typed as stored is the value, though its
        // word names a concept too.
        if words[i].capital
            && let [
                ..,
                Piece::Concept {
                    entries: before, ..
                },
            ]
            | [
                ..,
                Piece::Concept {
                    entries: before, ..
                },
                Piece::Op(Op::Negation),
            ] = pieces.as_slice()
            && let Some(values) = before.iter().find_map(|e| {
                let values = match e.concept {
                    Concept::Attribute { object, attribute } => {
                        lexicon.shadowed_value(&words[i].stem, object, Some(attribute))
                    }
                    // "whose finishing status was not 'Finished'": the thing
                    // stands for its own attribute.
                    Concept::Object(object) => lexicon.shadowed_value(&words[i].stem, object, None),
                    _ => return None,
                };
                (!values.is_empty()).then_some(values)
            })
        {
            pieces.push(Piece::Concept {
                entries: values,
                text: plain[i].to_owned(),
                scoped: false,
            });
            focus = Focus::Outside;
            i += 1;
            continue;
        }
        // "Return c_acctbal for …": a command to show, as "show" is; later
        // in a question "return" is what customers do.
        if i == 0 && matches!(plain[0], "return" | "retrieve" | "fetch" | "output") {
            pieces.push(Piece::Op(Op::Which));
            i += 1;
            continue;
        }
        // "parts that got no orders", "drivers who scored no points": "no"
        // after a verb negates what follows; "no more than" still bounds,
        // and "No. 18" is a number.
        if plain[i] == "no"
            && concept_len == 0
            && i > 0
            && (plain[i - 1].ends_with("ed")
                || matches!(
                    plain[i - 1],
                    "got" | "had" | "won" | "made" | "took" | "sold"
                ))
            && !plain.get(i + 1).is_some_and(|next| {
                matches!(*next, "more" | "fewer" | "less" | "later" | "earlier")
            })
            && !plain
                .get(i + 1)
                .is_some_and(|next| next.starts_with(|c: char| c.is_ascii_digit()))
        {
            pieces.push(Piece::Op(Op::Negation));
            i += 1;
            continue;
        }
        // "a negative balance": the attribute below zero.
        if let Some(sign) = match plain[i] {
            "negative" => Some(Op::Below),
            "positive" => Some(Op::Above),
            _ => None,
        } && concept_len == 0
        {
            let (len, entries) = longest_concept(lexicon, &words[i + 1..]);
            let attributes: Vec<Entry> = entries
                .into_iter()
                .filter(|e| matches!(e.concept, Concept::Attribute { .. }))
                .collect();
            if len > 0 && !attributes.is_empty() {
                pieces.push(Piece::Concept {
                    entries: attributes,
                    text: plain[i + 1..i + 1 + len].join(" "),
                    scoped: false,
                });
                pieces.extend([Piece::Op(sign), Piece::Number(0)]);
                focus = Focus::Outside;
                i += 1 + len;
                continue;
            }
        }
        let operator = grammar::operator_at(&plain[i..]);
        // "before discounts", "ordered from us in 1998": a time word is one
        // only when a time follows it.
        // "retired from the 2023 Monaco Grand Prix": the year names an event,
        // and "from" is where they retired from, not a time.
        let names_event = |at: usize| {
            plain.get(at) == Some(&"the")
                && plain
                    .get(at + 1)
                    .is_some_and(|y| y.parse::<i64>().is_ok_and(|y| (1900..=2100).contains(&y)))
                && words.get(at + 2).is_some_and(|_| {
                    let (_, entries) = longest_concept(lexicon, &words[at + 2..]);
                    !entries.is_empty()
                        && entries
                            .iter()
                            .all(|e| matches!(e.concept, Concept::Value { .. }))
                })
        };
        if let Some((op_len, op)) = operator
            && is_time_bound(op)
            && concept_len == 0
            && (!plain.get(i + op_len).is_some_and(|next| {
                next.starts_with(|c: char| c.is_ascii_digit())
                    || grammar::month(next).is_some()
                    || decade(next).is_some()
                    || matches!(*next, "the" | "last" | "this" | "next" | "their" | "its")
            }) || names_event(i + op_len))
        {
            i += op_len;
            continue;
        }
        // "how many of those are urgent or high priority": "or" offers a
        // choice only in a question that asks which is more; otherwise it
        // joins what is counted together.
        if plain[i] == "or"
            && !plain.iter().any(|w| {
                matches!(
                    *w,
                    "more"
                        | "most"
                        | "less"
                        | "least"
                        | "fewer"
                        | "fewest"
                        | "better"
                        | "worse"
                        | "higher"
                        | "lower"
                        | "bigger"
                        | "smaller"
                        | "which"
                        | "who"
                        | "compare"
                        | "each"
                        | "vs"
                        | "versus"
                )
            })
        {
            pieces.push(Piece::Op(Op::And));
            i += 1;
            continue;
        }
        // "placed by customers": "by" between a past participle and the
        // things that did it says who did it, not what to group by ("placed
        // by year" still groups).
        // So is "placed in 1995 by customers": the time between them
        // belongs to the verb.
        let participle = |word: &str| {
            word.len() > 3 && word.ends_with("ed")
                || matches!(
                    word,
                    "made" | "won" | "sold" | "done" | "driven" | "held" | "set"
                )
        };
        let verb_before = |at: usize| {
            participle(plain[at - 1])
                || (at >= 3
                    && matches!(plain[at - 2], "in" | "during" | "since")
                    && plain[at - 1]
                        .parse::<i64>()
                        .is_ok_and(|y| (1900..=2100).contains(&y))
                    && participle(plain[at - 3]))
        };
        // "used by the championship": the article is skipped.
        let article = matches!(plain.get(i + 1), Some(&("the" | "a" | "an")));
        let agent_at = i + 1 + usize::from(article);
        // "shipped by region", "placed in 1995, by region": a bare singular
        // after "by" is what to group by, as in any report's title; who did
        // it comes in the plural or with an article ("placed by customers").
        // "won by driver 1" still names who.
        let bare_singular = !article
            && words
                .get(agent_at)
                .is_some_and(|w| !grammar::looks_plural(&w.plain) && !w.capital)
            && !words
                .get(agent_at + 1)
                .is_some_and(|next| next.capital || next.plain.chars().all(|c| c.is_ascii_digit()));
        if operator == Some((1, Op::GroupBy))
            && plain[i] == "by"
            && i > 0
            && verb_before(i)
            && !bare_singular
            && words.get(agent_at).is_some_and(|_| {
                let (len, next) = longest_concept(lexicon, &words[agent_at..]);
                // "placed by customer segment": the thing's attribute after
                // it is what is grouped by.
                let (_, after) = longest_concept(lexicon, &words[agent_at + len..]);
                let own_attribute_after = object_of(&next).is_some_and(|o| {
                    after.iter().any(
                        |e| matches!(e.concept, Concept::Attribute { object, .. } if object == o),
                    )
                });
                object_of(&next).is_some()
                    && !own_attribute_after
                    && !next
                        .iter()
                        .any(|e| matches!(e.concept, Concept::Value { .. }))
            })
        {
            i += 1;
            continue;
        }
        // "units sent by rail", "wins by Ferrari": "by" before a value says
        // how or by whom, which the value filters; only a kind of thing
        // after "by" is grouped by.
        if operator == Some((1, Op::GroupBy))
            && plain[i] == "by"
            && words.get(i + 1).is_some_and(|_| {
                let (_, next) = longest_concept(lexicon, &words[i + 1..]);
                !next.is_empty()
                    && next
                        .iter()
                        .all(|e| matches!(e.concept, Concept::Value { .. }))
            })
        {
            i += 1;
            continue;
        }
        // "over the 2024 season", "over all years": a span, not "more than".
        let spans = operator.is_some_and(|(_, op)| op == Op::Above)
            && plain[i] == "over"
            && matches!(
                plain.get(i + 1),
                Some(
                    &("the"
                        | "a"
                        | "an"
                        | "all"
                        | "each"
                        | "every"
                        | "his"
                        | "her"
                        | "their"
                        | "its")
                )
            );
        match operator {
            Some(_) if spans => {
                i += 1;
                continue;
            }
            Some((op_len, op)) if op_len >= concept_len => {
                // "never driven for Ferrari": what the things never did.
                if op == Op::Negation && plain[i] == "never" {
                    pieces.push(Piece::Op(Op::Never));
                }
                pieces.push(Piece::Op(op));
                // "the teams on the 2023 grid that have never won": the
                // perfect says at any time, not in the year that picked them.
                if op == Op::Negation
                    && plain[i] == "never"
                    && i.checked_sub(1)
                        .is_some_and(|b| matches!(plain[b], "have" | "has"))
                {
                    pieces.push(Piece::Op(Op::Ever));
                }
                // "the most common status": how many rows hold each value
                // is what ranks them.
                if op.superlative().is_some()
                    && matches!(
                        plain[i + op_len - 1],
                        "common" | "frequent" | "often" | "frequently"
                    )
                {
                    pieces.push(Piece::Op(Op::Breakdown));
                }
                // "what is the yearly salary": "yearly" qualifies what is
                // asked for, which is still to come.
                // So do "annual" after a thing and any such word after a
                // possessive ("Red Bull Racing's annual budget"): the word
                // after it is what is asked.
                let qualifies = op_len == 1
                    && ((focus == Focus::Opening && plain[i].ends_with("ly"))
                        || (focus == Focus::Inside && plain[i] == "annual")
                        || (i > 0
                            && plain[i - 1] == "s"
                            && matches!(op, Op::Every(_))
                            && plain[i] != "annually"));
                focus = if opens_focus(op) || qualifies {
                    Focus::Opening
                } else {
                    Focus::Outside
                };
                i += op_len;
                continue;
            }
            _ => {}
        }
        // "who finished second": a filler verb typed in lower case is the
        // verb, not the value it happens to spell ("Finished").
        let filler_value = concept_len == 1
            && !words[i].capital
            && grammar::is_stop_word(plain[i])
            && entries
                .iter()
                .all(|e| matches!(e.concept, Concept::Value { .. }));
        if concept_len > 0 && !filler_value {
            if cause_at.take().is_some() {
                for at in cause_unknowns.drain(..) {
                    if let Some(Piece::Unknown { blocks, .. }) = pieces.get_mut(at) {
                        *blocks = false;
                    }
                }
            }
            let text = plain[i..i + concept_len].join(" ");
            // "round 5": a number right after the word naming a whole-number
            // attribute is that attribute's value, though the word also
            // names the thing ("round", a race) and the number could be
            // its key.
            let numbered = entries.iter().find_map(|e| match e.concept {
                Concept::Attribute { object, attribute }
                    if e.strength == Strength::Name && lexicon.is_numbered(object, attribute) =>
                {
                    Some(e.clone())
                }
                _ => None,
            });
            if let Some(entry) = numbered
                && object_of(&entries).is_some()
                && plain
                    .get(i + concept_len)
                    .is_some_and(|w| w.parse::<i64>().is_ok())
            {
                pieces.push(Piece::Concept {
                    entries: vec![entry],
                    text,
                    scoped: false,
                });
                i += concept_len;
                focus = Focus::Outside;
                continue;
            }
            // "order number 1", "race No. 18", "driver id 4": one row by its key.
            if let Some(object) = object_of(&entries)
                && let Some((len, key)) = key_after(&plain[i + concept_len..])
            {
                pieces.push(Piece::Key { object, key });
                i += concept_len + len;
                focus = Focus::Outside;
                continue;
            }
            // "order number and date", "the driver ids": the key itself is
            // asked to be shown.
            if let Some(object) = object_of(&entries)
                && let Some(attribute) = lexicon.key_of(object)
                && let Some(&marker) = plain.get(i + concept_len)
                && (is_key_marker(marker) || matches!(marker, "numbers" | "ids" | "keys"))
                // "the order number of": maybe a count; "the order key of"
                // never is.
                && (plain.get(i + concept_len + 1) != Some(&"of")
                    || matches!(marker, "id" | "key" | "ids" | "keys"))
            {
                pieces.push(Piece::Concept {
                    entries: vec![Entry {
                        concept: Concept::Attribute { object, attribute },
                        strength: Strength::Name,
                        alias: false,
                    }],
                    text: format!("{text} {marker}"),
                    scoped: scoped(&plain, i),
                });
                i += concept_len + 1;
                if focus == Focus::Opening {
                    focus = Focus::Inside;
                }
                continue;
            }
            // "online orders", "active customers": an unknown word right
            // before a thing qualifies it, and a qualifier nobody can apply
            // changes the answer, so it blocks.
            // A word of the domain ("F1 drivers", "wholesale customers")
            // qualifies nothing.
            if object_of(&entries).is_some()
                && unknown_at.is_some_and(|at| {
                    at + 1 == i
                        && !lexicon.names_domain(&words[at].stem)
                        && joined_to_number != Some(at)
                })
                && let Some(Piece::Unknown { blocks, .. }) = pieces.last_mut()
            {
                *blocks = true;
            }
            // "the three-letter code", "his season page": an unknown word
            // right before an attribute only says which of its kind; the
            // attribute is what is asked for, and the word is listed as
            // not used.
            if entries
                .iter()
                .all(|e| matches!(e.concept, Concept::Attribute { .. }))
                && entries.iter().any(|e| e.strength == Strength::Name)
                && unknown_at.is_some_and(|at| {
                    // "the permanent car number": filler between them too.
                    let filler = |k: usize| grammar::is_stop_word(plain[k]) && !joins(plain[k]);
                    (at + 1 == i || (at + 2 == i && filler(at + 1))) && !words[at].capital
                })
                && cause_at.is_none()
                && let Some(Piece::Unknown { blocks, .. }) = pieces.last_mut()
            {
                *blocks = false;
            }
            // "list the orders": the things, where the verb "ordered" (an
            // order's date) shares their stem; "ordered" as typed keeps it.
            let mut entries = entries;
            if concept_len == 1
                && !plain[i].ends_with("ed")
                && entries.iter().any(|e| {
                    matches!(e.concept, Concept::Object(_)) && e.strength == Strength::Name
                })
            {
                entries.retain(|e| !lexicon.only_as_verb(&words[i].stem, &e.concept));
            }
            // "a customer": one of the things, which an average may be per.
            if i > 0 && matches!(plain[i - 1], "a" | "an") && object_of(&entries).is_some() {
                one_of.push(pieces.len());
            }
            // "the BUILDING segment": right after a value, a word naming
            // the value's own attribute only says what kind of value it was
            // ("British drivers" still names the drivers).
            if let Some(Piece::Concept {
                entries: before, ..
            }) = pieces.last()
                && !before.is_empty()
                && before.iter().all(|b| match b.concept {
                    Concept::Value {
                        object, attribute, ..
                    } => entries
                        .iter()
                        .any(|e| e.concept == Concept::Attribute { object, attribute }),
                    _ => false,
                })
            {
                i += concept_len;
                continue;
            }
            // "the fastest lap …, and what was the time": a word that,
            // after a thing named earlier, names that thing's own attribute
            // ("fastest lap time") is that attribute.
            if concept_len == 1
                && let Some(own) = pieces.iter().rev().find_map(|p| match p {
                    // A phrase of its own ("fastest lap"), not a verb
                    // ("shipped … the date we committed to").
                    Piece::Concept { text: before, .. } if before.contains(' ') => {
                        let mut joined = text::words(before);
                        joined.push(words[i].clone());
                        let own = concept_spelled(lexicon, &joined);
                        (!own.is_empty()
                            && own
                                .iter()
                                .all(|e| matches!(e.concept, Concept::Attribute { .. })))
                        .then_some(own)
                    }
                    _ => None,
                })
            {
                entries = own;
            }
            // "avg customer account balance": a thing named between an
            // aggregate and one of its own attributes only says whose; the
            // attribute is what is aggregated, not the things counted.
            if let [
                ..,
                Piece::Op(Op::Average | Op::Sum),
                Piece::Concept {
                    entries: before, ..
                },
            ] = pieces.as_slice()
                && let Some(owner) = object_of(before)
                && !before
                    .iter()
                    .any(|b| matches!(b.concept, Concept::Value { .. }))
                && object_of(&entries).is_none()
                && entries.iter().any(
                    |e| matches!(e.concept, Concept::Attribute { object, .. } if object == owner),
                )
            {
                pieces.pop();
                entries.retain(
                    |e| matches!(e.concept, Concept::Attribute { object, .. } if object == owner),
                );
            }
            // "who won monaco in 2019": what a verb of the measure did is
            // a place or an event spelled as stored, not a demonym read
            // from it (Monegasque drivers), as after "at".
            if matches!(pieces.last(), Some(Piece::Concept { entries: verb, text: said, .. })
                    if !verb.is_empty()
                        && (matches!(said.as_str(), "win" | "wins")
                            || (!said.contains(' ') && grammar::is_past_participle(said)))
                        && verb.iter().all(|v| matches!(v.concept, Concept::Metric(_))
                            && v.strength == Strength::Synonym))
                && entries
                    .iter()
                    .any(|e| !e.alias && e.strength == Strength::Value)
            {
                entries.retain(|e| !e.alias);
            }
            // "in Grand Prix races": the phrase after "in" is all scope.
            let scoped = scoped(&plain, i) || scope_ends == Some(i);
            if scoped {
                scope_ends = Some(i + concept_len);
            }
            pieces.push(Piece::Concept {
                entries,
                text,
                scoped,
            });
            if focus == Focus::Opening {
                focus = Focus::Inside;
            }
            i += concept_len;
            continue;
        }
        let word = &words[i];
        if let Some((len, relative)) = relative_time(&plain[i..]) {
            let phrase = plain[i..i + len].join(" ");
            match today.and_then(|today| relative.on(today).map(|read| (today, read))) {
                Some((today, (read, said))) => {
                    pieces.extend(read);
                    pieces.push(Piece::Note(format!(
                        "\"{phrase}\" read as {said}, as of {}",
                        today.iso()
                    )));
                }
                // The future, or no clock: never guessed.
                None => pieces.push(Piece::Unknown {
                    word: phrase,
                    blocks: true,
                }),
            }
            i += len;
            focus = Focus::Outside;
            continue;
        }
        // "who finished first", "was first in qualifying": a place, where a
        // verb of placing comes right before and no thing right after.
        let placed_first = word.plain == "first"
            && i > 0
            && matches!(
                plain[i - 1],
                "finished"
                    | "came"
                    | "was"
                    | "were"
                    | "placed"
                    | "qualified"
                    | "ended"
                    | "classified"
            )
            && (matches!(plain.get(i + 1), None | Some(&("in" | "at" | "for" | "of")))
                || !next_names_object(lexicon, &words, &plain, i));
        // "the final 2016 drivers' championship", "final standings", "their
        // final points": the standings are as they stood at the end already.
        let standings_follow = || {
            let at =
                i + 1 + usize::from(plain.get(i + 1).is_some_and(|w| w.parse::<i64>().is_ok()));
            words.get(at).is_some_and(|_| {
                let (len, entries) = longest_concept(lexicon, &words[at..]);
                !entries.is_empty()
                    && matches!(
                        plain.get(at + len - 1),
                        Some(
                            &("standings"
                                | "standing"
                                | "championship"
                                | "championships"
                                | "points")
                        )
                    )
            })
        };
        if matches!(plain[i], "final" | "end") && standings_follow() {
            i += 1;
            continue;
        }
        if let Some(extreme) = grammar::extreme(&word.plain)
            .filter(|_| !placed_first)
            // "older than 30" compares; it picks no one.
            && plain.get(i + 1) != Some(&"than")
            && (!extreme.needs_object
                || next_names_object(lexicon, &words, &plain, i)
                || plain
                    .get(i + 1)
                    .is_some_and(|next| grammar::is_past_participle(next))
                || next_names_metric(lexicon, &words, i))
        {
            pieces.push(Piece::Extreme {
                latest: extreme.latest,
                of_age: extreme.of_age,
            });
        } else if let Some(n) = grammar::ordinal(&word.plain) {
            pieces.push(Piece::Ordinal(n));
        } else if grammar::asks_future(&word.plain) {
            pieces.push(Piece::Op(Op::Future));
        } else if matches!(word.plain.as_str(), "ever" | "any")
            && pieces.contains(&Piece::Op(Op::Negation))
        {
            pieces.push(Piece::Op(Op::Ever));
        } else if word.plain == "one"
            && matches!(pieces.last(), Some(Piece::Op(Op::Above | Op::AtLeast)))
        {
            // "used by more than one driver": a bound, not the pronoun.
            pieces.push(Piece::Number(1));
        } else if grammar::is_stop_word(&word.plain) {
            if focus == Focus::Inside {
                focus = Focus::Outside;
            }
        } else if grammar::small_number(&word.plain).is_some()
            && matches!(plain.get(i + 1), Some(&("time" | "times")))
            && question
                .to_lowercase()
                .contains(&format!("{}-{}", word.plain, plain[i + 1]))
        {
            // "a two-time champion": how often, said of a person, not a
            // count, a limit or a time of day.
            pieces.push(Piece::Unknown {
                word: format!("{}-{}", word.plain, plain[i + 1]),
                blocks: false,
            });
            i += 2;
            continue;
        } else if let Some(n) = grammar::small_number(&word.plain) {
            // "the three-letter code": a number joined to a word nobody
            // knows is part of that word, not a count or a limit.
            let joined_to_unknown = plain.get(i + 1).is_some_and(|next| {
                question
                    .to_lowercase()
                    .contains(&format!("{}-{next}", word.plain))
                    && lexicon.lookup(&words[i + 1].stem).is_empty()
                    && grammar::operator_at(&[next]).is_none()
                    && !grammar::is_stop_word(next)
            });
            if joined_to_unknown {
                joined_to_number = Some(i + 1);
            } else if let Some((len, op)) = grammar::open_bound(&plain[i + 1..]) {
                // "two or more gps": a bound, as "10 or more" is.
                pieces.push(Piece::Op(op));
                pieces.push(Piece::Number(n));
                i += 1 + len;
                continue;
            } else {
                pieces.push(Piece::Number(n));
            }
        } else if let Some(metric) = agent_of(lexicon, &word.stem) {
            pieces.push(Piece::Agent {
                metric,
                text: word.plain.clone(),
            });
            if focus == Focus::Opening {
                focus = Focus::Inside;
            }
        } else if let Some((metric, text)) = agent_after_metric(lexicon, &pieces, &plain[..i], word)
        {
            // "the youngest pole sitter": whoever took what the metric
            // before the doer's noun counts.
            pieces.pop();
            pieces.push(Piece::Agent { metric, text });
        } else if let Some(key) = fuzzy(word) {
            pieces.push(Piece::Concept {
                entries: lexicon.lookup(key).to_vec(),
                text: word.plain.clone(),
                scoped: scoped(&plain, i),
            });
            if focus == Focus::Opening {
                focus = Focus::Inside;
            }
        } else if let Some(entries) = short_name(lexicon, &words, i) {
            // "the circuit located in Spa": a short name stored as typed,
            // which nothing else names.
            pieces.push(Piece::Concept {
                entries,
                text: word.plain.clone(),
                scoped: false,
            });
            focus = Focus::Outside;
        } else {
            let names_something = word.capital && i > 0 && !lexicon.names_domain(&word.stem);
            // "how many blorps", "the track temperature": the unknown word
            // is what is asked for. A past participle after what is named
            // ("points handed out") is its verb.
            // So is a word an article or an object pronoun follows ("which
            // supplier offers the part", "which supplier offers it"): a
            // noun asked for is not followed by "the" or "it".
            let before_object = plain.get(i + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "the"
                        | "a"
                        | "an"
                        | "their"
                        | "its"
                        | "his"
                        | "her"
                        | "our"
                        | "it"
                        | "them"
                        | "him"
                )
            });
            let verb = focus == Focus::Inside
                && ((word.plain.len() > 4 && word.plain.ends_with("ed")) || before_object);
            // "the most F1 drivers": a word of the domain itself is never
            // what is asked for.
            let domain = lexicon.names_domain(&word.stem);
            let described = joined_to_number == Some(i);
            // "how long in seconds": a unit says how to show what is asked,
            // which the ontology's own unit settles.
            let unit = i > 0 && plain[i - 1] == "in" && grammar::is_unit(&word.plain);
            let asked_for = focus != Focus::Outside && !verb && !domain && !described && !unit;
            if !word.plain.ends_with("ed") {
                unknown_at = Some(i);
            }
            // "suppliers based in narnia": the place a question ends on is
            // a value that must be found, typed in lower case or not.
            let place_named = i > 0
                && i + 1 == plain.len()
                && matches!(plain[i - 1], "in" | "from")
                && !unit
                && !domain
                && word.plain.chars().all(char::is_alphabetic);
            let blocks = names_something || asked_for || place_named;
            let cause = cause_at.is_some_and(|at| i > at + 1 && i <= at + 1 + MAX_CAUSE_WORDS);
            if cause && !blocks {
                cause_unknowns.push(pieces.len());
            }
            // "the first F1 race": a word of the domain says nothing of
            // what is asked, and would stand between the words it joins.
            if domain && !blocks && !cause {
                i += 1;
                continue;
            }
            pieces.push(Piece::Unknown {
                word: word.plain.clone(),
                blocks: blocks || cause,
            });
            // "world champions": a word of the domain leaves the focus to
            // the word after it.
            if !domain {
                focus = if asked_for {
                    Focus::Inside
                } else {
                    Focus::Outside
                };
            }
        }
        i += 1;
    }
    // "a five-star satisfaction rating": several unknown words in a row
    // are a thing the ontology does not hold, not filler (unless one of
    // them already blocks, and names it).
    let mut run = 0;
    for at in 0..pieces.len() {
        run = match &pieces[at] {
            Piece::Unknown { .. } => run + 1,
            _ => 0,
        };
        let named_already = pieces[at + 1 - run..=at]
            .iter()
            .any(|p| matches!(p, Piece::Unknown { blocks: true, .. }));
        if run >= UNKNOWN_RUN_BLOCKS && !named_already {
            for piece in &mut pieces[at + 1 - run..=at] {
                if let Piece::Unknown { blocks, .. } = piece {
                    *blocks = true;
                }
            }
        }
    }
    // "the most expensive part by retail price": what "most" ranks by is
    // named after "by", so the adjective only says it again.
    for at in 1..pieces.len() {
        let ranked_by_later = pieces[at + 1..]
            .windows(2)
            .any(|w| matches!(w, [Piece::Op(Op::GroupBy), Piece::Concept { .. }]));
        if matches!(pieces[at - 1], Piece::Op(op) if op.superlative().is_some())
            && ranked_by_later
            && let Piece::Unknown { blocks, .. } = &mut pieces[at]
        {
            *blocks = false;
        }
    }
    // "On average, how many orders does a customer place": with an average,
    // "a customer" is what the average is per.
    if pieces.iter().any(|p| matches!(p, Piece::Op(Op::Average))) {
        for at in one_of.into_iter().rev() {
            pieces.insert(at, Piece::Op(Op::Per));
        }
    }
    // "from the 2023 season onwards": "from" opens a range only with its
    // other end or "onwards"; alone ("orders from 1995") it names the year.
    let onwards = plain.iter().enumerate().any(|(i, w)| {
        matches!(*w, "onwards" | "onward" | "forward" | "forwards")
            || (matches!(*w, "later" | "beyond") && i > 0 && matches!(plain[i - 1], "and" | "or"))
    });
    if onwards {
        for piece in &mut pieces {
            if *piece == Piece::Op(Op::From) {
                *piece = Piece::Op(Op::Since);
            }
        }
    }
    // "races won by Charles Leclerc since 2022": things named first, then
    // what was done to them, with no operator at all, ask for the things.
    if let [
        Piece::Concept { entries, text, .. },
        Piece::Concept {
            entries: done,
            text: verb,
            ..
        },
        _,
        ..,
    ] = pieces.as_slice()
        && object_of(entries).is_some()
        && text.ends_with('s')
        && !verb.ends_with('s')
        && done.iter().any(|e| matches!(e.concept, Concept::Metric(_)))
        && pieces
            .iter()
            .all(|p| !matches!(p, Piece::Op(op) if !is_time_bound(*op)))
    {
        pieces.insert(0, Piece::Op(Op::Which));
    }
    // "Of the line items shipped in 1996, how many were received late?":
    // the things introduced first are the ones counted, as in "how many
    // line items shipped in 1996 were received late".
    if plain.first() == Some(&"of")
        && let [Piece::Concept { entries, .. }, ..] | [Piece::Op(Op::All), Piece::Concept { entries, .. }, ..] =
            pieces.as_slice()
        && object_of(entries).is_some()
        && let Some(count) = pieces.iter().position(|p| *p == Piece::Op(Op::Count))
        // "Of the races in 2010, how many drivers …" counts the drivers.
        && !matches!(pieces.get(count + 1),
            Some(Piece::Concept { entries, .. }) if object_of(entries).is_some())
    {
        pieces.remove(count);
        // "of all customers": all of them are the ones counted among.
        if pieces[0] == Piece::Op(Op::All) {
            pieces.remove(0);
        }
        pieces.insert(0, Piece::Op(Op::Count));
    }
    if plain.starts_with(&["how", "long"]) {
        how_long(lexicon, &mut pieces);
    }
    attributes_of_one_named(lexicon, &mut pieces);
    // "Of the line items shipped by AIR, what percentage …": said last, so
    // that no piece moves.
    if plain.starts_with(&["of", "the"]) {
        pieces.push(Piece::Op(Op::Scope));
    }
    join_dates(pieces)
}

/// The word at `at`, a typo of one opening a value of several words, as
/// that value spells it, where the corrected word completes the value with
/// the words after it ("the 2019 japanesse gp").
fn value_opened_by_typo(lexicon: &Lexicon, words: &[Word], at: usize) -> Option<Word> {
    let key = lexicon.fuzzy(&words[at])?;
    let mut fixed = words[at..(at + MAX_PHRASE_WORDS).min(words.len())].to_vec();
    fixed[0].stem = key.to_owned();
    // A value is spelled by its own words: the corrected word is the
    // value's word the typo is one edit from.
    let spelled = (2..=fixed.len()).rev().find_map(|len| {
        let stems: Vec<&str> = fixed[..len].iter().map(|w| w.stem.as_str()).collect();
        lexicon
            .lookup(&stems.join(" "))
            .iter()
            .find_map(|e| match &e.concept {
                Concept::Value { value, .. } => text::words(value)
                    .into_iter()
                    .find(|own| one_edit_apart(&own.plain, &words[at].plain))
                    .map(|own| own.plain),
                _ => None,
            })
    });
    if let Some(plain) = spelled {
        fixed[0].plain = plain;
    }
    (longest_concept(lexicon, &fixed).0 >= 2).then(|| fixed.swap_remove(0))
}

/// "retail price and brand of the part called 'blush thistle …'": a
/// question that opens on attributes of a thing, asks nothing else of them
/// and names one such thing by value asks for its attributes, as "what is"
/// does; it does not add them up.
fn attributes_of_one_named(lexicon: &Lexicon, pieces: &mut Vec<Piece>) {
    // A value of what names the things ("Customer#000000005"), not of a
    // kind of them ("BUILDING").
    let value_of = |entries: &[Entry]| match entries.first()?.concept {
        Concept::Value {
            object, attribute, ..
        } if lexicon.name_of(object) == Some(attribute)
            && entries.iter().all(|e| {
                e.strength == Strength::Value
                    && matches!(e.concept, Concept::Value { object: o, attribute: a, .. }
                        if o == object && a == attribute)
            }) =>
        {
            Some(object)
        }
        _ => None,
    };
    let Some(object) = pieces.iter().find_map(|p| match p {
        Piece::Concept { entries, .. } => value_of(entries),
        _ => None,
    }) else {
        return;
    };
    // "account balance": a customer's or a supplier's; the one named says.
    let its_attributes = |entries: &[Entry]| {
        entries
            .iter()
            .all(|e| matches!(e.concept, Concept::Attribute { .. }))
            && attributes_of(entries).any(|(o, _)| o == object)
    };
    let opens_on_attributes =
        matches!(pieces.first(), Some(Piece::Concept { entries, .. }) if its_attributes(entries));
    let asks_nothing_else = pieces.iter().all(|p| match p {
        Piece::Op(op) => *op == Op::And,
        Piece::Concept { entries, .. } => {
            its_attributes(entries)
                || value_of(entries) == Some(object)
                || object_of(entries) == Some(object)
        }
        _ => false,
    });
    if opens_on_attributes && asks_nothing_else {
        pieces.insert(0, Piece::Op(Op::Which));
    }
}

/// "How long was his first pit stop": the duration of the thing named, as
/// "what was the duration of his first pit stop" asks it, where the thing
/// has an attribute called its duration (or length) and the question names
/// none of its attributes itself.
fn how_long(lexicon: &Lexicon, pieces: &mut Vec<Piece>) {
    let Some(Piece::Op(Op::Which)) = pieces.first() else {
        return;
    };
    let Some(object) = pieces.iter().find_map(|p| match p {
        Piece::Concept { entries, .. } => object_of(entries),
        _ => None,
    }) else {
        return;
    };
    // "stop" names the pit stop and its stop number alike: the thing.
    let names_an_attribute = pieces.iter().any(|p| {
        matches!(p, Piece::Concept { entries, .. }
            if object_of(entries).is_none() && attributes_of(entries).any(|(o, _)| o == object))
    });
    if names_an_attribute {
        return;
    }
    let Some(entry) = ["duration", "length"].into_iter().find_map(|word| {
        lexicon.lookup(&text::key(word)).iter().find(|e| {
            e.strength == Strength::Name
                && matches!(e.concept, Concept::Attribute { object: o, .. } if o == object)
        })
    }) else {
        // "How long has Fernando Alonso been racing": a length nothing
        // records is no list of his races.
        pieces[0] = Piece::Unknown {
            word: "how long".to_owned(),
            blocks: true,
        };
        return;
    };
    pieces.insert(
        1,
        Piece::Concept {
            entries: vec![entry.clone()],
            text: "duration".to_owned(),
            scoped: false,
        },
    );
}

/// The metric an agent noun names by its verb: "winner" for "win",
/// "scorer" for "score", "starter" for "start".
fn agent_of(lexicon: &Lexicon, stem: &str) -> Option<usize> {
    let verb = stem.strip_suffix("er")?;
    // The last letter may be wider than a byte ("constru%cerlڐer").
    let undoubled = verb
        .chars()
        .last()
        .filter(|_| verb.len() > 2)
        .map(|last| (last, &verb[..verb.len() - last.len_utf8()]))
        .filter(|(last, rest)| rest.ends_with(*last))
        .map(|(_, rest)| rest);
    [Some(verb), undoubled]
        .into_iter()
        .flatten()
        .filter(|v| v.len() >= 3)
        .find_map(|v| {
            lexicon.lookup(v).iter().find_map(|e| match e.concept {
                Concept::Metric(m) => Some(m),
                _ => None,
            })
        })
}

/// "pole sitter", "pole sitters": a doer's noun nothing else names, right
/// after the metric it did (as "winner" is of "win"), and the two words.
fn agent_after_metric(
    lexicon: &Lexicon,
    pieces: &[Piece],
    before: &[&str],
    word: &Word,
) -> Option<(usize, String)> {
    let doer =
        word.stem.len() > 4 && word.stem.ends_with("er") && lexicon.lookup(&word.stem).is_empty();
    let Some(Piece::Concept { entries, text, .. }) = pieces.last().filter(|_| doer) else {
        return None;
    };
    // Right after the metric's own words: "the wins the other driver got"
    // has words between, read as nothing.
    if before.last() != text.split_whitespace().last().as_ref() {
        return None;
    }
    let [entry] = entries.as_slice() else {
        return None;
    };
    match entry.concept {
        Concept::Metric(m) if entry.strength == Strength::Name => {
            Some((m, format!("{text} {}", word.plain)))
        }
        _ => None,
    }
}

/// Whether the word at `i` follows a preposition that scopes what comes
/// after it.
fn scoped(plain: &[&str], i: usize) -> bool {
    i > 0
        && matches!(
            plain[i - 1],
            "in" | "at" | "during" | "across" | "throughout" | "within"
        )
}

/// A day, month or quarter written at the start of `words`, and how many
/// words it takes: "2015 11 29" (from 2015-11-29 or 2015/11/29), "29
/// November 2015", "November 29 2015", "Nov 2015", "Q1 1997", "the first
/// half of 1996", "H2 1995".
pub(super) fn date_at(words: &[&str]) -> Option<(DateRange, usize)> {
    let (first, len) = one_date_at(words)?;
    // "July 1996 through June 1997", "from 1995-03-01 to 1995-05-31": two
    // dates joined by a range word are one span, from the first's start to
    // the second's end.
    if let Some(joiner) = words.get(len)
        && matches!(*joiner, "to" | "through" | "thru" | "until" | "till")
        && let Some((last, more)) = one_date_at(&words[len + 1..])
        && last.last >= first.first
    {
        let span = DateRange {
            first: first.first,
            last: last.last,
        };
        return Some((span, len + 1 + more));
    }
    Some((first, len))
}

/// "net units (units shipped minus units returned)": a formula in brackets
/// spells out how the thing before it is computed, which the ontology
/// already defines; read as a thing of its own it would be asked for too.
fn formulas_dropped(question: &str) -> String {
    let mut out = question.to_owned();
    let mut from = 0;
    while let Some(open) = out[from..].find('(').map(|at| from + at) {
        let Some(close) = out[open..].find(')').map(|at| open + at) else {
            break;
        };
        let is_formula = out[open + 1..close]
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w.to_lowercase().as_str(), "minus" | "plus"))
            || out[open + 1..close].contains("divided by");
        if is_formula {
            out.replace_range(open..=close, " ");
            from = open;
        } else {
            from = close;
        }
    }
    out
}

/// "in round order": in order of round, as "in order of" is read.
pub(super) fn order_named_first(question: &str) -> String {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    // "in descending order", "in the same order": how, not by what.
    let says_how = |w: &str| {
        matches!(
            bare(w).as_str(),
            "the"
                | "a"
                | "an"
                | "that"
                | "this"
                | "which"
                | "what"
                | "any"
                | "same"
                | "reverse"
                | "random"
                | "ascending"
                | "descending"
                | "alphabetical"
                | "alphabetic"
                | "chronological"
                | "calendar"
                | "numerical"
                | "numeric"
                | "increasing"
                | "decreasing"
        )
    };
    // "in" one or two plain words before "order", and "order" closing the
    // phrase: not "in kenya? order number", "in FRANCE didn't order
    // anything", a noun or verb of its own.
    let Some((at, order)) = tokens.iter().enumerate().find_map(|(order, t)| {
        if bare(t) != "order" {
            return None;
        }
        let at = (order.saturating_sub(3)..order.saturating_sub(1))
            .rev()
            .find(|&i| bare(tokens[i]) == "in")?;
        let closes = !t.ends_with(|c: char| c.is_alphanumeric())
            || tokens.get(order + 1).is_none_or(|next| {
                matches!(
                    bare(next).as_str(),
                    "with" | "and" | "please" | "pls" | "for" | "showing" | "including" | "along"
                )
            });
        let by_what = tokens[at + 1..order]
            .iter()
            .all(|w| w.chars().all(|c| c.is_alphanumeric() || c == '-') && !says_how(w));
        // "in time order" says how; "in lap time order" says by what.
        let lone_time = order == at + 2 && bare(tokens[at + 1]) == "time";
        (closes && by_what && !lone_time).then_some((at, order))
    }) else {
        return question.to_owned();
    };
    // "order?" keeps what followed the word.
    let after = tokens[order].trim_start_matches(|c: char| c.is_alphanumeric());
    let mut out: Vec<String> = tokens[..at].iter().map(|t| (*t).to_owned()).collect();
    out.extend(["in", "order", "of"].map(str::to_owned));
    out.extend(tokens[at + 1..order].iter().map(|t| (*t).to_owned()));
    if let Some(last) = out.last_mut() {
        last.push_str(after);
    }
    out.extend(tokens[order + 1..].iter().map(|t| (*t).to_owned()));
    out.join(" ")
}

/// "On which lap did he come in, and how long was the stop?": a second
/// question inside the first asks the stop's duration, as "what was the
/// duration of the stop" does, where something has a duration. (At the
/// start of a question, [`how_long`] reads it.)
fn how_long_later(lexicon: &Lexicon, question: &str) -> String {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let Some(at) = (1..tokens.len().saturating_sub(3)).find(|&k| {
        bare(tokens[k]) == "how"
            && bare(tokens[k + 1]) == "long"
            && matches!(bare(tokens[k + 2]).as_str(), "was" | "were" | "is" | "are")
            && matches!(
                bare(tokens[k + 3]).as_str(),
                "the" | "his" | "her" | "their" | "that" | "this" | "each"
            )
    }) else {
        return question.to_owned();
    };
    // Only where the thing named has a duration, as [`how_long`] asks:
    // not "how long is the circuit".
    let named = tokens
        .get(at + 4)
        .map(|t| normalise_word(lexicon, Word::written(&bare(t))).stem);
    let has_duration = named.is_some_and(|stem| {
        lexicon.lookup(&stem).iter().any(|thing| {
            let Concept::Object(object) = thing.concept else {
                return false;
            };
            lexicon
                .lookup(&text::key("duration"))
                .iter()
                .any(|e| matches!(e.concept, Concept::Attribute { object: o, .. } if o == object))
        })
    });
    if !has_duration {
        return question.to_owned();
    }
    let mut out: Vec<&str> = tokens[..at].to_vec();
    out.extend(["what", tokens[at + 2], "the", "duration", "of"]);
    out.extend(&tokens[at + 3..]);
    out.join(" ")
}

/// "avg pts per race in 2023 (gp points only, no sprints)": "no" opening an
/// aside leaves out what it names, as "excluding" does; it does not ask
/// for it.
fn aside_no_as_excluding(question: &str) -> String {
    question
        .replace(", no ", ", excluding ")
        .replace("(no ", "(excluding ")
}

/// "Among drivers who were not classified in 2010 races, what was the most
/// common retirement reason?": what the question asks comes first, and the
/// things "among" names, said as they are ("drivers not classified in 2010
/// races"), only scope it; "who were" would otherwise ask who.
fn among_said_last(question: &str) -> String {
    let trimmed = question.trim();
    let Some(rest) = trimmed
        .get(..6)
        .filter(|head| head.eq_ignore_ascii_case("among "))
        .map(|_| &trimmed[6..])
    else {
        return question.to_owned();
    };
    let Some((things, asked)) = rest.split_once(',') else {
        return question.to_owned();
    };
    let words: Vec<&str> = things.split_whitespace().collect();
    let Some(at) = words.windows(2).position(|w| {
        matches!(w[0].to_lowercase().as_str(), "who" | "that" | "which")
            && matches!(w[1].to_lowercase().as_str(), "were" | "was" | "are" | "is")
    }) else {
        return question.to_owned();
    };
    let asked = asked.trim().trim_end_matches(['?', '.', '!']).trim_end();
    if at == 0 || asked.is_empty() {
        return question.to_owned();
    }
    let scope = [&words[..at], &words[at + 2..]].concat().join(" ");
    format!("{asked} among {scope}?")
}

/// "Among the drivers born in 1980, how many are German?": the things
/// counted are the ones "among" names, so the question is "How many
/// drivers born in 1980 are German?". Only where "how many" is followed
/// by what they did or are ("were", "arrived", "have"), not by other
/// things to count ("how many points did Vettel score" counts points).
fn among_as_counted(question: &str) -> String {
    // `text` without its first words when they are `head`, in any case.
    fn after<'t>(text: &'t str, head: &str) -> Option<&'t str> {
        text.get(..head.len())
            .filter(|h| h.eq_ignore_ascii_case(head))
            .map(|_| text[head.len()..].trim_start())
    }
    let Some(rest) = after(question.trim_start(), "among ") else {
        return question.to_owned();
    };
    let Some((things, asked)) = rest.split_once(',') else {
        return question.to_owned();
    };
    let Some(mut asked) = after(asked.trim_start(), "how many ") else {
        return question.to_owned();
    };
    for of in ["of them ", "of these ", "of those ", "of which "] {
        asked = after(asked, of).unwrap_or(asked);
    }
    // Only what they did or are: "how many points did Vettel score" counts
    // points, whatever "among" names.
    let says_what_they_did = text::words(asked).first().is_some_and(|next| {
        matches!(
            next.plain.as_str(),
            "are"
                | "were"
                | "is"
                | "was"
                | "have"
                | "has"
                | "had"
                | "did"
                | "do"
                | "does"
                | "can"
                | "could"
                | "won"
                | "got"
                | "made"
                | "took"
                | "came"
                | "went"
                | "held"
                | "ran"
                | "drove"
                | "sold"
                | "bought"
        ) || next.plain.ends_with("ed")
    });
    if !says_what_they_did {
        return question.to_owned();
    }
    let things = things.trim();
    // "Among them", "among those drivers": the chat's things, which
    // "how many" reads as such.
    let first = things.split_whitespace().next().unwrap_or_default();
    if ["them", "those", "these", "they", "which", "whom"]
        .iter()
        .any(|w| first.eq_ignore_ascii_case(w))
    {
        return question.to_owned();
    }
    let things = ["the ", "all the ", "all "]
        .iter()
        .find_map(|article| after(things, article).filter(|t| !t.is_empty()))
        .unwrap_or(things);
    format!("How many {things} {asked}")
}

/// The values the word at `at`, typed with a capital, names though it was
/// not read as a code: a short name stored as typed ("Spa", not "SPA"), or
/// a one-letter code right after its attribute's name where the name was
/// read with the value before it ("fulfilled (status F)").
fn short_name(lexicon: &Lexicon, words: &[Word], at: usize) -> Option<Vec<Entry>> {
    let word = &words[at];
    if !word.capital {
        return None;
    }
    let after_its_name = |object: usize, attribute: usize| {
        at > 0
            && word.plain.chars().count() == 1
            && lexicon
                .lookup(&words[at - 1].stem)
                .iter()
                .any(|e| e.concept == Concept::Attribute { object, attribute })
    };
    let entries: Vec<Entry> = lexicon
        .code(&word.plain)
        .iter()
        .filter(|e| match &e.concept {
            Concept::Value {
                object,
                attribute,
                value,
            } => {
                (value.chars().any(char::is_lowercase) && !word.capitals)
                    || after_its_name(*object, *attribute)
            }
            _ => false,
        })
        .cloned()
        .collect();
    (!entries.is_empty()).then_some(entries)
}

/// "first and last name": both names, each spelled out, so that "first"
/// is not a position.
fn both_names_spelled(question: &str) -> String {
    let lower = question.to_lowercase();
    let mut out = question.to_owned();
    for (short, long) in [
        ("first and last names", "first names and last names"),
        ("first and last name", "first name and last name"),
        ("first and family name", "first name and family name"),
        ("first and surname", "first name and surname"),
    ] {
        if let Some(at) = lower.find(short)
            && out.len() == lower.len()
        {
            out.replace_range(at..at + short.len(), long);
            break;
        }
    }
    out
}

/// "Why did Charles Leclerc retire from the 2022 Azerbaijan Grand Prix":
/// what was the reason he did. Where the ontology names nothing a reason,
/// the word it lacks is "reason", as the answer then says.
fn why_as_reason(question: &str) -> String {
    let mut tokens = question.split_whitespace();
    let (Some(first), Some(second)) = (tokens.next(), tokens.next()) else {
        return question.to_owned();
    };
    let auxiliary = matches!(
        second.to_lowercase().as_str(),
        "did" | "does" | "do" | "was" | "were" | "is" | "are" | "has" | "have" | "had"
    );
    if !first.eq_ignore_ascii_case("why") || !auxiliary {
        return question.to_owned();
    }
    let rest: Vec<&str> = tokens.collect();
    format!("what was the reason {second} {}", rest.join(" "))
}

/// "most sprint wins in 2024 - who?": a "who" put after what the question
/// asks of, behind a dash, comma or colon, asks as "who had the most
/// sprint wins in 2024" does; "and in 2023 - who?" still follows on.
pub(super) fn who_asked_last(question: &str) -> String {
    let trimmed = question
        .trim_end()
        .trim_end_matches(['?', '!', '.'])
        .trim_end();
    let Some(before) = trimmed
        .len()
        .checked_sub(3)
        .and_then(|at| trimmed.get(at..).map(|who| (at, who)))
        .filter(|(_, who)| who.eq_ignore_ascii_case("who"))
        .map(|(at, _)| trimmed[..at].trim_end())
    else {
        return question.to_owned();
    };
    let Some(asked) = before
        .strip_suffix(['-', '–', '—', ',', ':'])
        .map(str::trim_end)
        .filter(|asked| !asked.is_empty())
    else {
        return question.to_owned();
    };
    match asked
        .get(..4)
        .filter(|and| and.eq_ignore_ascii_case("and "))
    {
        Some(and) => format!("{and}who {}?", &asked[4..]),
        None => format!("who {asked}?"),
    }
}

/// "Who was the 2016 world champion": who won the 2016 world
/// championship. The champion is whoever won the title the words before it
/// name, which is how the ontology knows it.
pub(super) fn champion_as_winner(question: &str) -> String {
    let mut tokens: Vec<String> = question.split_whitespace().map(str::to_owned).collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let Some(at) = tokens.iter().position(|t| bare(t) == "champion") else {
        return question.to_owned();
    };
    let copula = |i: usize| {
        matches!(
            bare(&tokens[i]).as_str(),
            "was" | "is" | "were" | "became" | "be" | "been"
        )
    };
    // "was the 2016 world champion", or without the article, "was world
    // champion in 2016".
    let verb = match (at.saturating_sub(5)..at)
        .rev()
        .find(|&i| bare(&tokens[i]) == "the")
    {
        Some(the) => the.checked_sub(1),
        None => (at.saturating_sub(3)..at).rev().find(|&i| copula(i)),
    };
    let Some(verb) = verb.filter(|&i| copula(i)) else {
        return question.to_owned();
    };
    tokens[verb] = "won".to_owned();
    let named: Vec<String> = tokens[verb + 1..at].iter().map(|t| bare(t)).collect();
    // "the champion of the Canadian Grand Prix" won that race, whatever
    // title the words before name.
    let of_an_event = tokens
        .get(at + 1)
        .is_some_and(|w| matches!(bare(w).as_str(), "of" | "at"));
    let title = if of_an_event {
        "championship"
    } else {
        champion_title(&named)
    };
    // "World Champion?": the word in any case, its punctuation kept.
    if let Some(i) = tokens[at].to_ascii_lowercase().find("champion") {
        tokens[at].replace_range(i..i + "champion".len(), title);
    }
    tokens.join(" ")
}

/// The title a champion won, from the words that qualify "champion": "the
/// 2014 champion" won the drivers' championship unless the words name
/// another ("constructors'", "world").
pub(super) fn champion_title(qualifiers: &[String]) -> &'static str {
    let names_which = qualifiers.iter().any(|w| {
        w.starts_with("constructor")
            || w.starts_with("team")
            || w.starts_with("driver")
            || w == "world"
    });
    if names_which {
        "championship"
    } else {
        "drivers championship"
    }
}

/// "1 July" or "July" at `at`, read in the one year the question names
/// elsewhere, and how many words it takes.
fn date_in_sole_year(plain: &[&str], at: usize) -> Option<(DateRange, usize)> {
    let is_year = |w: &&str| w.parse::<i64>().is_ok_and(|y| (1900..=2100).contains(&y));
    if is_year(&plain[at]) {
        return None;
    }
    let mut years: Vec<&str> = plain.iter().copied().filter(|w| is_year(w)).collect();
    years.dedup();
    let [year] = years.as_slice() else {
        return None;
    };
    // "1 July", "July 1st": a day and a month; else a month alone.
    for len in [2, 1] {
        let Some(words) = plain.get(at..at + len) else {
            continue;
        };
        if !words.iter().any(|w| grammar::month(w).is_some()) || words.iter().any(is_year) {
            continue;
        }
        let with_year: Vec<&str> = words.iter().copied().chain([*year]).collect();
        if let Some((range, read)) = one_date_at(&with_year)
            && read == len + 1
        {
            return Some((range, len));
        }
    }
    None
}

/// One date, month, month range of one year or quarter at the start of
/// `words`.
fn one_date_at(words: &[&str]) -> Option<(DateRange, usize)> {
    // "Sept 7th, 2008": a day may carry its ordinal ending.
    let number = |i: usize| {
        words.get(i).and_then(|w| {
            let digits = ["st", "nd", "rd", "th"]
                .iter()
                .find_map(|end| w.strip_suffix(end))
                .unwrap_or(w);
            digits.parse::<i64>().ok()
        })
    };
    let year = |i: usize| number(i).filter(|y| (1900..=2100).contains(y));
    let month = |i: usize| words.get(i).and_then(|w| grammar::month(w));
    if let (Some(y), Some(m), Some(d)) = (year(0), number(1), number(2))
        && (1..=12).contains(&m)
    {
        DateRange::day(y, m as u32, d).map(|r| (r, 3))
    } else if let (Some(a), Some(b), Some(y)) = (number(0), number(1), year(2))
        && (1..=31).contains(&a)
        && (1..=31).contains(&b)
    {
        // "07/04/1997": month first, as in the US, unless the first number
        // cannot be a month ("29/11/2015"); `words` says when it was a guess.
        let (m, d) = if a > 12 { (b, a) } else { (a, b) };
        DateRange::day(y, m as u32, d).map(|r| (r, 3))
    } else if let (Some(d), Some(m), Some(y)) = (number(0), month(1), year(2)) {
        DateRange::day(y, m, d).map(|r| (r, 3))
    } else if let (Some(m), Some(d), Some(y)) = (month(0), number(1), year(2))
        && (1..=31).contains(&d)
    {
        DateRange::day(y, m, d).map(|r| (r, 3))
    } else if let Some((m, d)) = month(0)
        .zip(number(1))
        .or_else(|| month(1).zip(number(0)))
        .filter(|(_, d)| (1..=31).contains(d))
        && let Some(y) = year_of_next_date(&words[2..])
    {
        // "between March 1 and May 31, 1996": the year written once, last.
        DateRange::day(y, m, d).map(|r| (r, 2))
    } else if let (Some(first), Some(last), Some(y)) = (month(0), month(2), year(3))
        && matches!(
            words.get(1),
            Some(&("and" | "to" | "through" | "thru" | "until" | "till"))
        )
        && first <= last
    {
        // "between March and June 1996": both months of the one year.
        Some((DateRange::months(y, first, last), 4))
    } else if let (Some(m), Some(y)) = (month(0), year(1)) {
        Some((DateRange::months(y, m, m), 2))
    } else if let Some((part, at)) = part_of_year(words)
        && let Some(y) = year(at)
    {
        Some((DateRange::months(y, part.first, part.last), at + 1))
    } else {
        None
    }
}

/// The months of a quarter or half of a year named at the start of `words`
/// ("Q1", "the third quarter of", "H2", "the first half of"), and where its
/// year is.
fn part_of_year(words: &[&str]) -> Option<(MonthSpan, usize)> {
    let months = |part: &str| match part {
        "quarter" | "q" => Some(3),
        "half" | "h" => Some(6),
        _ => None,
    };
    let first = words.first()?;
    // "Q1 1997", "H2 1995".
    let short = first
        .char_indices()
        .nth(1)
        .and_then(|(at, _)| Some((months(&first[..at])?, first[at..].parse::<u32>().ok()?)))
        .map(|(size, n)| (size, n, 1));
    // "the first quarter of 1995", "second half 1997".
    let spelled = || {
        let n = u32::try_from(grammar::ordinal(first)?).ok()?;
        let size = months(words.get(1)?)?;
        let at = if matches!(words.get(2), Some(&("of" | "in"))) {
            3
        } else {
            2
        };
        Some((size, n, at))
    };
    let (size, n, at) = short.or_else(spelled)?;
    (1..=12 / size).contains(&n).then(|| {
        let span = MonthSpan {
            first: n * size - size + 1,
            last: n * size,
        };
        (span, at)
    })
}

/// Months of one year, first to last, inclusive.
struct MonthSpan {
    first: u32,
    last: u32,
}

/// A month, or two joined by a range word, named without a year at the
/// start of `words`, after the word `before`: the months' numbers and how
/// many words they take.
fn months_at(words: &[Word], before: Option<&str>) -> Option<(u32, u32, usize)> {
    let month = |word: &Word| {
        let named = word.capital && before.is_some()
            || before.is_some_and(|b| {
                matches!(
                    b,
                    "in" | "of" | "during" | "from" | "between" | "throughout" | "every" | "each"
                )
            });
        named.then(|| grammar::month(&word.plain)).flatten()
    };
    let first = month(words.first()?)?;
    let last = words
        .get(1)
        .filter(|w| match w.plain.as_str() {
            "to" | "through" | "thru" | "until" | "till" => true,
            // "between April and June"; "April and June" alone is two months.
            "and" => before == Some("between"),
            _ => false,
        })
        .and(words.get(2))
        .and_then(|w| grammar::month(&w.plain))
        .filter(|last| *last >= first);
    Some(match last {
        Some(last) => (first, last, 3),
        None => (first, first, 1),
    })
}

/// The year of the date after "and" or "to" at the start of `words`.
fn year_of_next_date(words: &[&str]) -> Option<i64> {
    let (first, rest) = words.split_first()?;
    if !matches!(*first, "and" | "to" | "through" | "until" | "till") {
        return None;
    }
    let (range, _) = date_at(rest)?;
    range.first.get(..4)?.parse().ok()
}

/// "last year", "this season", "the past 3 seasons", "last month", "the
/// last 30 days", "next year": a span of time counted back from today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RelativeTime {
    unit: TimeUnit,
    /// How many units; `None` for "last year" (the one before this one).
    count: Option<i64>,
    /// "this year", "current season": the one under way.
    current: bool,
    /// "next year": not in any data yet, so never answered.
    future: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeUnit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
}

impl RelativeTime {
    /// The pieces the span reads as, and how to say it.
    fn on(self, today: Day) -> Option<(Vec<Piece>, String)> {
        if self.future {
            return None;
        }
        let years = |first: i64, last: i64| {
            if first == last {
                (vec![Piece::Number(first)], first.to_string())
            } else {
                (
                    vec![
                        Piece::Op(Op::Between),
                        Piece::Number(first),
                        Piece::Op(Op::And),
                        Piece::Number(last),
                    ],
                    format!("{first} to {last}"),
                )
            }
        };
        let dates = |first: Day, last: Day| {
            let range = DateRange {
                first: first.iso(),
                last: last.iso(),
            };
            let said = format!("{} to {}", range.first, range.last);
            (vec![Piece::Dates(range)], said)
        };
        // The month `back` months before today's, as (year, month).
        let month_back = |back: i64| {
            let index = today.year * 12 + i64::from(today.month) - 1 - back;
            (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32)
        };
        let month_range = |first: (i64, u32), last: (i64, u32)| {
            let end = DateRange::months(last.0, last.1, last.1);
            DateRange {
                first: format!("{:04}-{:02}-01", first.0, first.1),
                last: end.last,
            }
        };
        Some(match (self.unit, self.count, self.current) {
            (TimeUnit::Year, _, true) => years(today.year, today.year),
            (TimeUnit::Year, None, false) => years(today.year - 1, today.year - 1),
            (TimeUnit::Year, Some(n), false) => years(today.year - n + 1, today.year),
            (TimeUnit::Quarter | TimeUnit::Month, count, current) => {
                let per = if self.unit == TimeUnit::Quarter { 3 } else { 1 };
                // Quarters start in January, April, July and October.
                let into = if per == 3 {
                    i64::from((today.month - 1) % 3)
                } else {
                    0
                };
                let (first, last) = match (count, current) {
                    (_, true) => (month_back(into), month_back(0)),
                    (None, false) => (month_back(into + per), month_back(into + 1)),
                    (Some(n), false) => (month_back(into + per * (n - 1)), month_back(0)),
                };
                let range = month_range(first, last);
                let said = format!("{} to {}", range.first, range.last);
                (vec![Piece::Dates(range)], said)
            }
            (TimeUnit::Week | TimeUnit::Day, count, _) => {
                let per = if self.unit == TimeUnit::Week { 7 } else { 1 };
                let days = per * count.unwrap_or(1);
                dates(today.minus_days(days - 1), today)
            }
        })
    }
}

pub(super) fn relative_time(words: &[&str]) -> Option<(usize, RelativeTime)> {
    let unit = |word: &str| match word {
        "year" | "years" | "season" | "seasons" => Some(TimeUnit::Year),
        "quarter" | "quarters" => Some(TimeUnit::Quarter),
        "month" | "months" => Some(TimeUnit::Month),
        "week" | "weeks" => Some(TimeUnit::Week),
        "day" | "days" => Some(TimeUnit::Day),
        _ => None,
    };
    let (current, future) = match *words.first()? {
        "last" | "past" | "previous" | "recent" => (false, false),
        "this" | "current" => (true, false),
        "next" => (false, true),
        _ => return None,
    };
    let relative = |unit, count| RelativeTime {
        unit,
        count,
        current,
        future,
    };
    if let Some([n, word]) = words.get(1..3)
        && let Some(u) = unit(word)
    {
        let count = n
            .parse::<i64>()
            .ok()
            .or_else(|| grammar::small_number(n))
            .filter(|n| (1..=100).contains(n))?;
        return Some((3, relative(u, Some(count))));
    }
    let u = unit(words.get(1)?)?;
    Some((2, relative(u, None)))
}

/// The object a phrase names, if it names one.
/// The attributes a phrase names, as (object, attribute) indexes.
pub(super) fn attributes_of(entries: &[Entry]) -> impl Iterator<Item = (usize, usize)> + '_ {
    entries.iter().filter_map(|e| match e.concept {
        Concept::Attribute { object, attribute } => Some((object, attribute)),
        _ => None,
    })
}

/// What a phrase names when it names one thing only.
fn only_concept(entries: &[Entry]) -> Option<&Concept> {
    match entries {
        [only] => Some(&only.concept),
        _ => None,
    }
}

/// A phrase the context says is one attribute, whatever else it names.
fn read_as_attribute(object: usize, attribute: usize) -> Entry {
    Entry {
        concept: Concept::Attribute { object, attribute },
        strength: Strength::Synonym,
        alias: false,
    }
}

pub(super) fn object_of(entries: &[Entry]) -> Option<usize> {
    entries.iter().find_map(|e| match e.concept {
        Concept::Object(o) => Some(o),
        _ => None,
    })
}

/// "2000-2009", "2010–15": a range of years, spelled "2000 to 2009" so that
/// the hyphen, which the words drop, still reads as one.
fn year_ranges_spelled(question: &str) -> std::borrow::Cow<'_, str> {
    let chars: Vec<char> = question.chars().collect();
    let year_at = |i: usize| {
        (i + 4 <= chars.len()
            && chars[i..i + 4].iter().all(char::is_ascii_digit)
            && matches!(chars[i], '1' | '2')
            && (i == 0 || !chars[i - 1].is_ascii_digit())
            && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit()))
        .then_some(i + 4)
    };
    let mut out = String::with_capacity(question.len());
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        if let Some(end) = year_at(i) {
            let mut j = end;
            while chars.get(j) == Some(&' ') {
                j += 1;
            }
            if matches!(chars.get(j), Some('-' | '–' | '—')) {
                let mut k = j + 1;
                while chars.get(k) == Some(&' ') {
                    k += 1;
                }
                if year_at(k).is_some() {
                    out.extend(&chars[i..end]);
                    out.push_str(" to ");
                    changed = true;
                    i = k;
                    continue;
                }
            }
            out.extend(&chars[i..end]);
            i = end;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    if changed {
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(question)
    }
}

/// "born in 1995 or later" is "born since 1995"; "1990 or earlier" is
/// "until 1990": the words after the year say which way the range opens.
fn open_ended_years(question: &str) -> String {
    let words: Vec<&str> = question.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let year = words[i]
            .parse::<i64>()
            .is_ok_and(|y| (1900..=2100).contains(&y));
        let joined = words.get(i + 1).map(|w| w.to_lowercase());
        let side = words.get(i + 2).map(|w| {
            w.trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
        let bound = match (joined.as_deref(), side.as_deref()) {
            (Some("or" | "and"), Some("later" | "after" | "beyond" | "newer")) => Some("since"),
            (Some("or" | "and"), Some("earlier" | "before" | "older")) => Some("until"),
            _ => None,
        };
        if year && let Some(bound) = bound {
            // "in 1995 or later": the bound replaces "in".
            if out
                .last()
                .is_some_and(|w| matches!(w.to_lowercase().as_str(), "in" | "from" | "of"))
            {
                out.pop();
            }
            out.push(bound.to_owned());
            out.push(words[i].to_owned());
            // Keep what punctuation ended the phrase ("or later?").
            let tail: String = words[i + 2]
                .chars()
                .skip_while(|c| c.is_alphanumeric())
                .collect();
            if !tail.is_empty() {
                out.push(tail);
            }
            i += 3;
            continue;
        }
        out.push(words[i].to_owned());
        i += 1;
    }
    out.join(" ")
}

/// Whether the word right after `i` names a metric ("his first win").
fn next_names_metric(lexicon: &Lexicon, words: &[Word], i: usize) -> bool {
    words.get(i + 1).is_some_and(|_| {
        longest_concept(lexicon, &words[i + 1..])
            .1
            .iter()
            .any(|e| matches!(e.concept, Concept::Metric(_)))
    })
}

/// Whether the first word after `i` that carries meaning names an object.
pub(super) fn next_names_object(
    lexicon: &Lexicon,
    words: &[Word],
    plain: &[&str],
    i: usize,
) -> bool {
    // "their first order": a word the grammar would skip ("order", as in
    // "in descending order") still names the thing where the lexicon says so.
    for j in i + 1..words.len() {
        let (_, entries) = longest_concept(lexicon, &words[j..]);
        if object_of(&entries).is_some() {
            return true;
        }
        // "the first F1 race": the domain's own name qualifies the thing.
        let names_domain = entries.is_empty() && lexicon.names_domain(&words[j].stem);
        if !grammar::is_stop_word(plain[j]) && !names_domain {
            return false;
        }
    }
    false
}

/// Expands abbreviations ("avg") and corrects one typo in an operator word
/// ("nmber"), so both reach the grammar and the lexicon as full words.
pub(super) fn normalise_word(lexicon: &Lexicon, word: Word) -> Word {
    let spelled = grammar::expand_abbreviation(&word.plain)
        .map(str::to_owned)
        .or_else(|| {
            let known = grammar::is_stop_word(&word.plain)
                || grammar::in_operator_phrase(&word.plain)
                || grammar::extreme(&word.plain).is_some()
                || !lexicon.lookup(&word.stem).is_empty()
                || word.plain.chars().any(|c| c.is_ascii_digit());
            (!known)
                .then(|| grammar::correct_operator_word(&word.plain))
                .flatten()
                .map(str::to_owned)
        });
    match spelled {
        Some(plain) => text::words(&plain).into_iter().next().unwrap_or(word),
        None => word,
    }
}

pub(super) fn longest_concept(lexicon: &Lexicon, words: &[Word]) -> (usize, Vec<Entry>) {
    for len in (1..=words.len().min(MAX_PHRASE_WORDS)).rev() {
        let entries = concept_spelled(lexicon, &words[..len]);
        if !entries.is_empty() {
            return (len, entries);
        }
    }
    (0, Vec::new())
}

/// What exactly `words`, all of them, name.
fn concept_spelled(lexicon: &Lexicon, words: &[Word]) -> Vec<Entry> {
    let key = words
        .iter()
        .map(|w| w.stem.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let plain: Vec<&str> = words.iter().map(|w| w.plain.as_str()).collect();
    lexicon
        .lookup(&key)
        .iter()
        .filter(|e| e.spelled_by(&plain))
        .cloned()
        .collect()
}

fn is_time_bound(op: Op) -> bool {
    matches!(
        op,
        Op::Since | Op::From | Op::After | Op::Before | Op::Until | Op::To | Op::Between
    )
}

/// How far after "because of" an unknown word is still the cause: "due to
/// the bad weather".
/// How many unknown words in a row name something the ontology lacks.
const UNKNOWN_RUN_BLOCKS: usize = 3;

const MAX_CAUSE_WORDS: usize = 4;

/// "1990s" is 1990; "90s" is too short to tell the century, so not read.
fn decade(word: &str) -> Option<i64> {
    let digits = word.strip_suffix('s')?;
    let year: i64 = digits.parse().ok()?;
    (digits.len() == 4 && year % 10 == 0 && (1900..=2090).contains(&year)).then_some(year)
}

/// Dates read together: "the first week of February 1994" is days 1 to 7
/// of that month; "Feb 1 through Feb 7" right after, with no year, is those
/// days of the month just named; and a date said again in other words
/// ("since 07/01/1997 (1 July 1997)") is the same date, not a range from it
/// to itself.
fn join_dates(pieces: Vec<Piece>) -> Vec<Piece> {
    let whole_month = |range: &DateRange| -> Option<(i64, u32)> {
        let year: i64 = range.first.get(..4)?.parse().ok()?;
        let month: u32 = range.first.get(5..7)?.parse().ok()?;
        (range.first.ends_with("-01") && *range == DateRange::months(year, month, month))
            .then_some((year, month))
    };
    let mut read: Vec<Piece> = Vec::with_capacity(pieces.len());
    let mut at = 0;
    while at < pieces.len() {
        if let [
            Piece::Ordinal(n),
            Piece::Op(Op::Period(crate::ontology::Grain::Week)),
            Piece::Dates(range),
            ..,
        ] = &pieces[at..]
            && (1..=4).contains(n)
            && let Some((year, month)) = whole_month(range)
            && let (Some(first), Some(last)) = (
                DateRange::day(year, month, 7 * (n - 1) + 1),
                DateRange::day(year, month, 7 * n),
            )
        {
            read.push(Piece::Dates(DateRange {
                first: first.first,
                last: last.last,
            }));
            at += 3;
            continue;
        }
        if let [
            Piece::Months(m, m2),
            Piece::Number(d1),
            Piece::Op(Op::To | Op::Until),
            Piece::Months(m3, m4),
            Piece::Number(d2),
            ..,
        ] = &pieces[at..]
            && m == m2
            && m3 == m4
            && let Some(Piece::Dates(before)) = read.last()
            && let Some(year) = before.first.get(..4).and_then(|y| y.parse::<i64>().ok())
            && let (Some(first), Some(last)) = (
                DateRange::day(year, *m, *d1),
                DateRange::day(year, *m3, *d2),
            )
            && first.first <= last.last
        {
            read.push(Piece::Dates(DateRange {
                first: first.first,
                last: last.last,
            }));
            at += 5;
            continue;
        }
        let piece = &pieces[at];
        let repeated = matches!(piece, Piece::Dates(_))
            && read.iter().rev().find(|p| !matches!(p, Piece::Note(_))) == Some(piece);
        if !repeated {
            read.push(piece.clone());
        }
        at += 1;
    }
    read
}

/// The words that say a number after a thing's name is its key: "race
/// number 18", "race No. 18", "driver id 4".
fn is_key_marker(word: &str) -> bool {
    matches!(word, "number" | "no" | "id" | "key" | "nr")
}

/// "number 18", "no 18", "id 4", "#7", or a bare number that cannot be a
/// year: the key that follows an object's name, and the words it took.
fn key_after(words: &[&str]) -> Option<(usize, i64)> {
    // "the driver with id 3", "the race with the id 18".
    let lead = match words {
        ["with" | "of", "the", ..] => 2,
        ["with" | "of", ..] => 1,
        _ => 0,
    };
    let marked = words.get(lead).is_some_and(|w| is_key_marker(w));
    // "the driver with number 44" is the driver's own number, not its key.
    if lead > 0 && !matches!(words.get(lead), Some(&("id" | "key"))) {
        return None;
    }
    let at = lead + usize::from(marked);
    let key: i64 = words.get(at)?.parse().ok()?;
    (marked || !(1900..=2100).contains(&key)).then_some((at + 1, key))
}

/// "How many world championship races were held in the 1980s": after
/// "how many", an amount's words right before the plural of a thing only
/// say which of the things (championship points cannot be counted), so
/// they are read as nothing (and reported as not used) and the things are
/// counted.
pub(super) fn amount_before_counted_things(ontology: &Ontology, pieces: &mut [Piece]) {
    let amount_only = |entries: &[Entry]| {
        !entries.is_empty()
            && entries.iter().all(|e| {
                matches!(e.concept, Concept::Metric(m)
                    if ontology.metrics[m].kind == MetricKind::Simple
                        && matches!(ontology.metrics[m].aggregate, Aggregate::Sum | Aggregate::Avg))
            })
    };
    // Of other rows than the amount's: "how many points finishes" are the
    // finishes that scored, which the amount's own rows say.
    let things = |piece: &Piece, amount: &[Entry]| {
        let amount_of = |o: usize| {
            amount.iter().any(|e| {
                matches!(e.concept, Concept::Metric(m)
                    if ontology.metrics[m].object == ontology.objects[o].name)
            })
        };
        matches!(piece, Piece::Concept { entries, .. }
            if entries.iter().any(|e| matches!(e.concept, Concept::Object(o) if !amount_of(o))))
    };
    let plural =
        |piece: &Piece| matches!(piece, Piece::Concept { text, .. } if grammar::looks_plural(text));
    // "to win a world championship Grand Prix": a counted verb before them
    // says the same of one thing.
    let counted_verb = |piece: &Piece| {
        matches!(piece, Piece::Concept { entries, .. }
            if entries.iter().any(|e| (e.strength == Strength::Name || entries.len() == 1)
                && matches!(e.concept, Concept::Metric(m) if ontology.metrics[m].aggregate == Aggregate::Count)))
    };
    for at in 0..pieces.len().saturating_sub(2) {
        if ((pieces[at] == Piece::Op(Op::Count) && plural(&pieces[at + 2]))
            || counted_verb(&pieces[at]))
            && let Piece::Concept { entries, text, .. } = &pieces[at + 1]
            && amount_only(entries)
            && things(&pieces[at + 2], entries)
        {
            pieces[at + 1] = Piece::Unknown {
                word: text.clone(),
                blocks: false,
            };
        }
    }
}

/// "When TRUCK shipments arrive late, how many days late are they on
/// average?": a clause opened by "when" and closed by a comma before the
/// question proper says which rows, not that a time is asked for. The
/// "when" goes; the clause stays.
pub(super) fn conditional_when(question: &str) -> std::borrow::Cow<'_, str> {
    let lower = question.trim_start().to_lowercase();
    let Some(rest) = lower.strip_prefix("when ") else {
        return question.into();
    };
    // "When did Schumacher, who won seven titles, retire?" asks when: a
    // clause is a statement, not a question ("when did"), and the question
    // proper is not a relative clause ("who won").
    let asks_after_comma = rest.split_once(',').is_some_and(|(clause, after)| {
        let first = after.split_whitespace().next().unwrap_or_default();
        let asks = clause.split_whitespace().next().is_some_and(|w| {
            matches!(
                w,
                "did" | "does" | "do" | "was" | "is" | "were" | "are" | "will" | "has" | "had"
            )
        });
        !asks && matches!(first, "how" | "what" | "which")
    });
    if !asks_after_comma {
        return question.into();
    }
    let start = question.len() - question.trim_start().len() + "when ".len();
    question[start..].to_owned().into()
}

/// "how many times did Räikkönen not finish": a negation before a word
/// that, negated, is what the ontology calls something ("did not finish",
/// the DNFs) is that thing, not an exclusion of the word's rows.
pub(super) fn negated_phrase(lexicon: &Lexicon, pieces: &mut Vec<Piece>) {
    for at in 0..pieces.len().saturating_sub(1) {
        let (
            Piece::Op(Op::Negation),
            Piece::Concept {
                entries,
                text,
                scoped,
            },
        ) = (&pieces[at], &pieces[at + 1])
        else {
            continue;
        };
        // "whose status is not 'Finished'": a value, excluded. "did not
        // finish on the podium", "never finished a race": the podium, the
        // race is what did not happen.
        let measured_after = matches!(pieces.get(at + 2), Some(Piece::Concept { entries, .. })
            if entries.iter().any(|e| matches!(e.concept, Concept::Metric(_) | Concept::Filter { .. } | Concept::Object(_))));
        let never = at
            .checked_sub(1)
            .is_some_and(|b| matches!(pieces[b], Piece::Op(Op::Never | Op::Ever)));
        if measured_after
            || never
            || entries
                .iter()
                .any(|e| matches!(e.concept, Concept::Value { .. }))
        {
            continue;
        }
        let Some((entries, said)) = ["not", "did not"].into_iter().find_map(|before| {
            let said = format!("{before} {text}");
            let entries = lexicon.lookup(&text::key(&said));
            let whole = !entries.is_empty()
                && entries
                    .iter()
                    .all(|e| matches!(e.concept, Concept::Metric(_) | Concept::Filter { .. }));
            whole.then(|| (entries.to_vec(), said))
        }) else {
            continue;
        };
        let scoped = *scoped;
        pieces[at] = Piece::Concept {
            entries,
            text: said,
            scoped,
        };
        pieces.remove(at + 1);
        return;
    }
}

/// "net units (shipped minus returned) for Brand#23 parts": beside a
/// metric made of others, the words either side of a spelled-out operator
/// only say how it is made, so they are read as nothing (and reported as
/// not used). A value there ("Brand#23") still counts.
pub(super) fn explanation_dropped(ontology: &Ontology, pieces: &mut [Piece]) {
    let derived = |entries: &[Entry]| {
        entries.iter().any(|e| {
            matches!(e.concept, Concept::Metric(m)
                if ontology.metrics[m].kind == MetricKind::Derived)
        })
    };
    let operators: Vec<usize> = (0..pieces.len())
        .filter(|&i| {
            matches!(&pieces[i], Piece::Unknown { word, .. } if grammar::is_spelled_operator(word))
        })
        .collect();
    if operators.is_empty()
        || !pieces
            .iter()
            .any(|p| matches!(p, Piece::Concept { entries, .. } if derived(entries)))
    {
        return;
    }
    for i in operators
        .iter()
        .flat_map(|&at| [at.wrapping_sub(1), at + 1])
    {
        if let Some(piece @ Piece::Concept { .. }) = pieces.get_mut(i)
            && let Piece::Concept { entries, text, .. } = &*piece
            && !derived(entries)
            && !entries
                .iter()
                .any(|e| matches!(e.concept, Concept::Value { .. }))
        {
            *piece = Piece::Unknown {
                word: text.clone(),
                blocks: false,
            };
        }
    }
}

/// "How many line items went out by TRUCK in 1996, by ship date?": a date
/// named by "by" right after a year, closing the question, says which date
/// the year is of ("with a ship date in 1996"); a grouping by it would be
/// a count per day of a year already named.
pub(super) fn year_dated_by(ontology: &Ontology, pieces: &mut Vec<Piece>) {
    let Some(at) = pieces.windows(3).position(|w| {
        matches!(w[0], Piece::Number(year) if (1900..=2100).contains(&year))
            && w[1] == Piece::Op(Op::GroupBy)
            && matches!(&w[2], Piece::Concept { entries, .. } if entries.len() == 1
                && matches!(entries[0].concept, Concept::Attribute { object, attribute }
                    if super::time::is_dated(&ontology.objects[object].attributes[attribute])))
    }) else {
        return;
    };
    if at + 3 != pieces.len() {
        return;
    }
    let date = pieces.remove(at + 2);
    pieces.remove(at + 1);
    // "since the start of 1997, by ship date": before the word that
    // bounds the year, which stays with it.
    let mut before = at;
    while before > 0
        && matches!(
            pieces[before - 1],
            Piece::Op(
                Op::Since | Op::After | Op::Before | Op::Until | Op::Between | Op::From | Op::To
            )
        )
    {
        before -= 1;
    }
    pieces.insert(before, date);
}

/// "seb vettel", "fred alonso": an unknown word right before a word of a
/// longer value, that opens the value's first word, is that word cut
/// short, so the two name the whole value ("Sebastian Vettel").
pub(super) fn shortened_first_word(question: &str, pieces: &mut Vec<Piece>) {
    let question = text::fold(&question.to_lowercase());
    let mut at = 0;
    while at + 1 < pieces.len() {
        let (
            Piece::Unknown { word, .. },
            Piece::Concept {
                entries,
                text,
                scoped,
            },
        ) = (&pieces[at], &pieces[at + 1])
        else {
            at += 1;
            continue;
        };
        let short = text::fold(word);
        let opened: Vec<Entry> = entries
            .iter()
            .filter(|e| {
                e.strength == Strength::ValuePart
                    && matches!(&e.concept, Concept::Value { value, .. }
                    if value.split_whitespace().next().is_some_and(|first| {
                        let first = text::fold(first);
                        short.len() >= 3 && first.len() > short.len() && first.starts_with(&short)
                    }))
            })
            .cloned()
            .collect();
        let text = format!("{word} {text}");
        // Written together: "car" in "what car did Sainz drive" is no name.
        if opened.is_empty() || !question.contains(&text::fold(&text)) {
            at += 1;
            continue;
        }
        let scoped = *scoped;
        pieces[at + 1] = Piece::Concept {
            entries: opened
                .into_iter()
                .map(|e| Entry {
                    strength: Strength::Value,
                    ..e
                })
                .collect(),
            text,
            scoped,
        };
        pieces.remove(at);
    }
}

/// "Where did Verstappen start the 2023 Hungarian GP?": after "where", a
/// verb the ontology counts (starts) asks for the attribute its "-ing"
/// form names ("starting position", the grid), not a count or a place.
pub(super) fn where_by_verb(ontology: &Ontology, pieces: &mut Vec<Piece>) {
    let Some(at_where) = pieces
        .iter()
        .take(2)
        .position(|p| *p == Piece::Op(Op::Where))
    else {
        return;
    };
    // Where someone started, not where a season did.
    let of_someone = pieces.iter().any(|p| match p {
        Piece::Op(Op::Refer { person }) => *person,
        Piece::Concept { entries, .. } => entries.iter().any(|e| {
            matches!(e.concept, Concept::Value { object, .. } if is_person(&ontology.objects[object]))
        }),
        _ => false,
    });
    if !of_someone {
        return;
    }
    for piece in pieces.iter_mut() {
        let Piece::Concept { entries, text, .. } = piece else {
            continue;
        };
        let Some(Concept::Metric(m)) = only_concept(entries) else {
            continue;
        };
        let metric = &ontology.metrics[*m];
        if metric.aggregate != Aggregate::Count || text.contains(' ') {
            continue;
        }
        let doing = format!("{}ing ", text.strip_suffix('e').unwrap_or(text));
        let Some(object) = ontology
            .objects
            .iter()
            .position(|o| o.name == metric.object)
        else {
            continue;
        };
        let named = ontology.objects[object].attributes.iter().position(|a| {
            a.synonyms
                .iter()
                .any(|s| s.to_lowercase().starts_with(&doing))
        });
        if let Some(attribute) = named {
            *entries = vec![read_as_attribute(object, attribute)];
            // The attribute is the answer; "where" asks no place.
            pieces.remove(at_where);
            return;
        }
    }
}

/// "Who set the fastest lap?" → "what was the time, and on which lap did
/// he do it?": in a follow-up, a word that after a phrase of the last
/// question's things names one of their attributes ("fastest lap" and
/// "time", the fastest lap time) is that attribute.
pub(super) fn composed_with_last(
    ontology: &Ontology,
    previous: Option<&SemanticPlan>,
    pieces: &mut [Piece],
) {
    let Some(previous) = previous else {
        return;
    };
    let spoken = |name: &str, label: &str, synonyms: &[String]| -> Vec<String> {
        std::iter::once(name.replace('_', " "))
            .chain(std::iter::once(label.to_owned()))
            .chain(synonyms.iter().cloned())
            .map(|p| p.to_lowercase())
            .collect()
    };
    let mut phrases = Vec::new();
    let mut objects = Vec::new();
    for measure in &previous.measures {
        if let Measure::Metric { metric, .. } = measure
            && let Some(m) = ontology.metrics.iter().find(|m| m.name == *metric)
        {
            phrases.extend(spoken(&m.name, &m.label, &m.synonyms));
            objects.push(m.object.as_str());
        }
    }
    // Not what it was filtered by, nor the names it showed: after a race,
    // "start" and "time" are still the race's.
    for attribute in previous
        .dimensions
        .iter()
        .filter(|d| !is_display(ontology, d))
    {
        if let Some(a) = ontology.attribute(&attribute.object, &attribute.attribute) {
            phrases.extend(spoken(&a.name, &a.label, &a.synonyms));
            objects.push(attribute.object.as_str());
        }
    }
    // "fastest laps" is also said of one: "fastest lap".
    let phrases: Vec<String> = phrases
        .into_iter()
        .flat_map(|p| {
            let one = p.strip_suffix('s').map(str::to_owned);
            std::iter::once(p).chain(one)
        })
        .collect();
    for piece in pieces.iter_mut() {
        let Piece::Concept { entries, text, .. } = piece else {
            continue;
        };
        if text.contains(' ') {
            continue;
        }
        // What the last question measured comes before what it showed.
        let named = phrases.iter().find_map(|phrase| {
            ontology.objects.iter().enumerate().find_map(|(o, object)| {
                if !objects.contains(&object.name.as_str()) {
                    return None;
                }
                object
                    .attributes
                    .iter()
                    .position(|a| {
                        spoken(&a.name, &a.label, &a.synonyms).iter().any(|name| {
                            name.strip_suffix(text.as_str())
                                .and_then(|p| p.strip_suffix(' '))
                                .is_some_and(|p| p == phrase)
                        })
                    })
                    .map(|a| (o, a))
            })
        });
        if let Some((object, attribute)) = named {
            *entries = vec![read_as_attribute(object, attribute)];
        }
    }
}

/// "Hamilton's best finish at Monza": a superlative before one of a thing
/// with a finishing position of its own, named alone and singular, is the
/// best of that position, not a ranking of the things.
pub(super) fn best_of_a_finish(ontology: &Ontology, pieces: &mut [Piece]) {
    for at in 1..pieces.len() {
        // The thing ends the phrase: "the most qualifying appearances" ranks
        // ("best finish at Monza" names a value after it).
        let named_after = matches!(pieces.get(at + 1), Some(Piece::Concept { entries, .. })
            if entries.iter().any(|e| !matches!(e.concept, Concept::Value { .. })));
        if !matches!(pieces[at - 1], Piece::Op(Op::Most | Op::Least)) || named_after {
            continue;
        }
        let Piece::Concept { entries, text, .. } = &mut pieces[at] else {
            continue;
        };
        let Some(&Concept::Object(o)) = only_concept(entries) else {
            continue;
        };
        let object = &ontology.objects[o];
        let position = position_attribute(ontology, Some(&object.name), &[])
            .filter(|p| p.object == object.name)
            .and_then(|p| object.attributes.iter().position(|a| a.name == p.attribute));
        if let Some(attribute) = position
            && !grammar::looks_plural(text)
        {
            *entries = vec![read_as_attribute(o, attribute)];
        }
    }
}
