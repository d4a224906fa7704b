//! "How many career wins does the winner of the 2012 Monaco Grand Prix
//! have?", "what region is the supplier with the highest account balance
//! in?": a thing named by what it did is a question of its own, whose
//! first answer the rest of the question is about. The inner question is
//! planned on its own, the outer one as a follow-up about its leader, and
//! the compiler reads the leader in a subquery.

use super::words::{Piece, read};
use super::{Planned, plan_one};
use crate::engine::compile::display_attribute;
use crate::engine::grammar::{self, Op};
use crate::engine::lexicon::Lexicon;
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, PlanAssumption, SemanticPlan,
};
use crate::engine::text::capitalised;
use crate::ontology::{AttributeRole, Ontology};
use crate::time::Day;

/// A question split around the thing it names by what it did.
#[derive(Debug, PartialEq)]
pub(super) struct Nested {
    /// The phrase as typed: "the winner of the 2012 Monaco Grand Prix".
    said: String,
    /// The question that finds the thing: "Who won the 2012 Monaco Grand Prix".
    inner: String,
    /// The question about it: "How many career race wins does him have".
    outer: String,
    /// "the same nation as Customer#000000100": the outer question is about
    /// other things than the one the inner question names. Holds the words
    /// before "the same" ("Which customers are in"), which ask for them
    /// where the inner answer is a value rather than a thing ("drivers with
    /// the same nationality as Kimi Räikkönen").
    alike: Option<String>,
    /// "the winner of the 2019 Singapore Grand Prix": the thing is picked by
    /// one event, so another measure asked of it ("how many laps did …
    /// complete") is of that event.
    one_event: bool,
}

/// Words that may open a question without saying what it asks.
const OPENING: &[&str] = &[
    "what", "which", "who", "whom", "how", "many", "much", "is", "was", "are", "were", "does",
    "did", "do", "has", "have", "had", "the", "of", "for", "name", "tell", "me", "show", "list",
    "give", "find", "in", "total", "whats", "what's",
];

/// Words that end the question after the thing: its verb or preposition
/// ("what region is the supplier with the highest balance in?").
const CLOSING: &[&str] = &[
    "in",
    "from",
    "at",
    "for",
    "have",
    "has",
    "had",
    "placed",
    "ordered",
    "born",
    "located",
    "based",
    "drive",
    "drove",
    "driven",
    "race",
    "raced",
    "win",
    "won",
    "score",
    "scored",
    "get",
    "got",
    "earn",
    "earned",
    "belong",
    "to",
    "made",
    "make",
    "supply",
    "supplied",
    "complete",
    "completed",
    "start",
    "started",
    "finish",
    "finished",
    "lead",
    "led",
    "set",
    "do",
];

/// Words that make a clause pick one thing out of many.
const PICKING: &[&str] = &[
    "most", "highest", "lowest", "largest", "biggest", "smallest", "least", "fewest", "best",
    "worst", "fastest", "quickest", "slowest", "youngest", "oldest", "earliest", "latest",
    "cheapest", "top", "first", "last", "priciest",
];

/// A token as compared: lowercase, without the punctuation around it
/// (apostrophes kept: "drivers'").
pub(super) fn bare(token: &str) -> String {
    token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_lowercase()
}

/// Splits `question` around "the winner of …" or "the <thing> who/that/with
/// … <superlative> …", where the rest of the question asks something of it.
pub(super) fn split(question: &str) -> Option<Nested> {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let words: Vec<String> = tokens.iter().map(|t| bare(t)).collect();
    // The thing ends the question but for its last verb or preposition
    // ("drive for").
    let mut end = words.len();
    while end > words.len().saturating_sub(2)
        && end > 1
        && CLOSING.contains(&words[end - 1].as_str())
    {
        end -= 1;
    }
    let asks_more = |at: usize| {
        words[..at]
            .iter()
            .any(|w| !w.is_empty() && !OPENING.contains(&w.as_str()))
    };
    let joined = |range: std::ops::Range<usize>| {
        tokens[range]
            .join(" ")
            .trim_end_matches(['?', '.', '!'])
            .to_owned()
    };
    if let Some(nested) = split_introduced(&tokens, &words).or_else(|| split_taken(&tokens, &words))
    {
        return Some(nested);
    }
    for at in 0..words.len() {
        if words[at] != "the" || !asks_more(at) {
            continue;
        }
        // "in the same nation as Customer#000000100": the nation that
        // customer is in.
        if words.get(at + 1).map(String::as_str) == Some("same")
            && let Some(as_at) = (at + 3..(at + 5).min(words.len())).find(|&i| words[i] == "as")
            && as_at + 1 < words.len()
        {
            let thing = joined(at + 2..as_at);
            return Some(Nested {
                said: joined(at..words.len()),
                inner: format!("Which {thing} is {} in", joined(as_at + 1..words.len())),
                outer: format!("{} that {thing}", joined(0..at)).trim().to_owned(),
                alike: Some(joined(0..at)),
                one_event: false,
            });
        }
        // "the 2008 world drivers' champion": who won that championship.
        // "the 2016 world champion's teammate": his.
        // A champion of no season named is no one in particular.
        if let Some(champion) = (at + 1..(at + 6).min(end))
            .find(|&i| matches!(words[i].as_str(), "champion" | "champion's" | "champion’s"))
            .filter(|&i| {
                words[at + 1..i]
                    .iter()
                    .any(|w| w.chars().any(|c| c.is_ascii_digit()))
            })
        {
            let whose = if words[champion] == "champion" {
                "him"
            } else {
                "his"
            };
            let title = super::words::champion_title(&words[at + 1..champion]);
            return Some(Nested {
                said: joined(at..champion + 1)
                    .trim_end_matches("'s")
                    .trim_end_matches("’s")
                    .to_owned(),
                inner: format!("Who won {} {title}", joined(at..champion)),
                outer: format!(
                    "{} {whose} {}",
                    joined(0..at),
                    joined(champion + 1..tokens.len())
                )
                .trim()
                .to_owned(),
                alike: None,
                one_event: false,
            });
        }
        // "the winner of the 2012 Monaco Grand Prix".
        if matches!(
            words.get(at + 1).map(String::as_str),
            Some("winner" | "victor")
        ) && words.get(at + 2).map(String::as_str) == Some("of")
            && at + 3 < end
        {
            return Some(Nested {
                said: joined(at..end),
                inner: format!("Who won {}", joined(at + 3..end)),
                outer: format!("{} him {}", joined(0..at), joined(end..tokens.len()))
                    .trim()
                    .to_owned(),
                alike: None,
                one_event: true,
            });
        }
        // "the supplier with the highest account balance", "the customer
        // who placed the highest-value order".
        // "the customer behind the single most expensive order": the one
        // who had it.
        let Some(relative) = (at + 2..(at + 4).min(end)).find(|&i| {
            matches!(
                words[i].as_str(),
                "who" | "that" | "which" | "with" | "whose" | "behind"
            )
        }) else {
            continue;
        };
        let clause = &words[relative + 1..end];
        if !clause.iter().any(|w| {
            PICKING.contains(&w.as_str()) || w.starts_with("highest") || w.starts_with("lowest")
        }) {
            continue;
        }
        // One thing: "the drivers with a recorded fastest lap speed" are
        // a list, not one of them.
        let thing = joined(at + 1..relative);
        if grammar::looks_plural(&words[relative - 1]) {
            continue;
        }
        let opener = if words[relative] == "with" || words[relative] == "whose" {
            format!("Which {thing} {}", joined(relative..end))
        } else if words[relative] == "behind" {
            format!("Which {thing} had {}", joined(relative + 1..end))
        } else {
            format!("Which {thing} {}", joined(relative + 1..end))
        };
        return Some(Nested {
            said: joined(at..end),
            inner: opener,
            outer: format!(
                "{} that {thing} {}",
                joined(0..at),
                joined(end..tokens.len())
            )
            .trim()
            .to_owned(),
            alike: None,
            one_event: false,
        });
    }
    None
}

/// "For the driver who won the race held on 29 November 2015, what is his
/// date of birth?": the thing introduced before a comma, and the question
/// about it after.
fn split_introduced(tokens: &[&str], words: &[String]) -> Option<Nested> {
    let at = match words {
        [first, the, ..] if matches!(first.as_str(), "for" | "regarding") && the == "the" => 1,
        // "the guy who won the 2012 singapore gp - when was he born?"
        [the, ..] if the == "the" => 0,
        _ => return None,
    };
    // The clause ends at a comma or colon, or before a dash on its own.
    // Without "for" to open it, only where a question opens after it ("the
    // driver who won most races 2010 - 2012, where is he from?").
    let asks = |next: usize| {
        words.get(next).is_some_and(|w| {
            matches!(
                w.as_str(),
                "what"
                    | "whats"
                    | "what's"
                    | "which"
                    | "who"
                    | "when"
                    | "where"
                    | "how"
                    | "is"
                    | "was"
                    | "are"
                    | "were"
                    | "did"
                    | "does"
                    | "do"
                    | "has"
                    | "have"
            )
        })
    };
    let (comma, after) = tokens.iter().enumerate().find_map(|(i, t)| {
        let (end, after) = if t.ends_with([',', ':']) {
            (i, i + 1)
        } else if matches!(*t, "-" | "–" | "—") && i > 0 {
            (i - 1, i + 1)
        } else {
            return None;
        };
        (at == 1 || asks(after)).then_some((end, after))
    })?;
    let relative = (at + 2..(at + 4).min(comma + 1)).find(|&i| {
        matches!(
            words[i].as_str(),
            "who" | "that" | "which" | "with" | "whose"
        )
    })?;
    // One thing: "for the drivers who ..." introduces a list.
    if grammar::looks_plural(&words[relative - 1]) {
        return None;
    }
    let joined = |range: std::ops::Range<usize>| {
        tokens[range]
            .join(" ")
            .trim_end_matches(['?', '.', '!', ',', ':'])
            .to_owned()
    };
    // "which market segment are they in": one thing, so "they" is it.
    let outer = grammar::as_one_person(&joined(after..tokens.len()), true);
    if relative >= comma || outer.is_empty() {
        return None;
    }
    let thing = joined(at + 1..relative);
    let clause = match words[relative].as_str() {
        "with" | "whose" => joined(relative..comma + 1),
        _ => joined(relative + 1..comma + 1),
    };
    Some(Nested {
        said: joined(at..comma + 1),
        inner: format!("Which {thing} {clause}"),
        outer,
        alike: None,
        one_event: false,
    })
}

/// "Take the customer in the MACHINERY segment with the largest account
/// balance. How many orders have they placed?": a sentence that only picks
/// the thing, and a question about it after.
fn split_taken(tokens: &[&str], words: &[String]) -> Option<Nested> {
    let at = match words {
        [first, the, ..]
            if matches!(first.as_str(), "take" | "consider" | "pick") && the == "the" =>
        {
            1
        }
        [look, at, the, ..] if look == "look" && at == "at" && the == "the" => 2,
        _ => return None,
    };
    let end = tokens
        .iter()
        .position(|t| t.ends_with(['.', ':', ';']))
        .filter(|&end| end > at + 1)?;
    let joined = |range: std::ops::Range<usize>| {
        tokens[range]
            .join(" ")
            .trim_end_matches(['?', '.', '!', ',', ':', ';'])
            .to_owned()
    };
    let outer = grammar::as_one_person(&joined(end + 1..tokens.len()), true);
    // One thing: "take the drivers who …" is a list.
    if outer.is_empty() || grammar::looks_plural(&words[at + 1]) {
        return None;
    }
    // "the driver who won …" asks "which driver won …".
    let description = (at + 1..=end)
        .filter(|&i| !(i == at + 2 && matches!(words[i].as_str(), "who" | "that" | "which")))
        .map(|i| tokens[i])
        .collect::<Vec<_>>()
        .join(" ");
    Some(Nested {
        said: joined(at..end + 1),
        inner: format!("Which {}", description.trim_end_matches(['.', ':', ';'])),
        outer,
        alike: None,
        one_event: false,
    })
}

/// The plan of a question split by [`split`], or `None` where either half
/// does not plan as one thing and the rest asked of it: the question is
/// then read whole.
pub(super) fn plan(
    ontology: &Ontology,
    lexicon: &Lexicon,
    nested: &Nested,
    today: Option<Day>,
) -> Option<Planned> {
    let Planned::Plan(mut inner) = plan_one(ontology, lexicon, &nested.inner, None, today) else {
        return None;
    };
    // The thing is what the inner answer leads with: its first column, the
    // name of what it ranks, past the name of a thing the inner question
    // named itself ("which nation is Customer#000000100 in"). A value that
    // many share ("in the MACHINERY segment") names none of them.
    let identifies = |f: &Filter| {
        let object = ontology
            .objects
            .iter()
            .find(|o| o.name == f.attribute.object);
        object.is_some_and(|o| display_attribute(o) == Some(f.attribute.attribute.as_str()))
            || ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| a.role == AttributeRole::Identifier)
    };
    let names_one = |d: &AttributeRef| {
        inner
            .filters
            .iter()
            .any(|f| f.attribute.object == d.object && f.is_one_value() && identifies(f))
    };
    // "the same nationality as Kimi Räikkönen": a value of the thing the
    // inner question names, other than its name.
    let value_of_named = || {
        nested.alike.as_ref()?;
        inner.dimensions.iter().find(|d| !inner.fixes(d))
    };
    let thing = inner
        .dimensions
        .iter()
        .find(|d| !names_one(d))
        .or_else(value_of_named)?
        .clone();
    let object = ontology.objects.iter().find(|o| o.name == thing.object)?;
    if display_attribute(object) != Some(thing.attribute.as_str()) {
        let before = nested.alike.as_deref()?;
        return same_value(ontology, lexicon, nested, before, inner, &thing, today);
    }
    // The name the inner question gave ("Customer#000000100") is neither
    // what its answer leads with nor a scope of the outer question.
    let named: Vec<AttributeRef> = inner
        .dimensions
        .iter()
        .filter(|d| names_one(d))
        .cloned()
        .collect();
    if !named.is_empty() && inner.measures.is_empty() {
        inner.dimensions.retain(|d| !named.contains(d));
        if let Some(Order::Dimension { descending, .. }) = inner.order {
            inner.order = Some(Order::Dimension {
                index: 0,
                descending,
            });
        }
    }
    let scope: Vec<Filter> = inner
        .filters
        .iter()
        .filter(|f| !named.iter().any(|n| n.object == f.attribute.object))
        .filter(|f| {
            nested.alike.is_none()
                || ontology
                    .objects
                    .iter()
                    .find(|o| o.name == f.attribute.object)
                    .is_none_or(|o| display_attribute(o) != Some(f.attribute.attribute.as_str()))
        })
        .cloned()
        .collect();
    let placeholder = Filter {
        attribute: thing,
        condition: Condition::OneOf(vec![Literal::Text(nested.said.clone())]),
    };
    // As after that answer in a chat: "which team did he drive for" is
    // asked in the inner question's scope (that race).
    let about_it = SemanticPlan {
        answered: Some(Box::new(placeholder.clone())),
        filters: scope,
        ..SemanticPlan::default()
    };
    let Planned::Plan(mut outer) =
        plan_one(ontology, lexicon, &nested.outer, Some(&about_it), today)
    else {
        return None;
    };
    // A measure of it is not: "how many wins does the winner of the 2012
    // Monaco Grand Prix have" counts all of his. Unless "that year" keeps
    // the inner question's time, or the thing was picked by one event and
    // is asked another measure of it ("how many laps did the winner of the
    // 2019 Singapore Grand Prix complete": in that race).
    let of_the_event = nested.one_event
        && !outer.measures.iter().any(|m| inner.measures.contains(m))
        && !read(lexicon, &nested.outer, today).contains(&Piece::Op(Op::AllTime));
    if !outer.measures.is_empty() && !of_the_event {
        let same_time = read(lexicon, &nested.outer, today).contains(&Piece::Op(Op::SameTime));
        let is_time = |f: &Filter| {
            ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| a.role == AttributeRole::Time)
        };
        outer
            .filters
            .retain(|f| !inner.filters.contains(f) || (same_time && is_time(f)));
    }
    // "Which team did the winner of … drive for", "how many orders has the
    // customer with the largest balance placed": who that was, beside it.
    if (outer.measures.is_empty() || nested.alike.is_none())
        && !outer.dimensions.contains(&placeholder.attribute)
    {
        outer.dimensions.insert(0, placeholder.attribute.clone());
    }
    // "the 2016 world champion's teammate": the thing says whose peers.
    let filter = outer.filters.iter_mut().find_map(|f| {
        if *f == placeholder {
            return Some(f);
        }
        match &mut f.condition {
            Condition::PeerOf { of } => of.iter_mut().find(|w| **w == placeholder),
            _ => None,
        }
    })?;
    filter.condition = Condition::Leader {
        plan: Box::new(inner),
        said: nested.said.clone(),
    };
    states_inner(&mut outer, nested, "the first answer");
    Some(Planned::Plan(outer))
}

/// Says in the answer which question found the thing: "The 2009 world
/// champion is the first answer to \"Who won …\"".
fn states_inner(outer: &mut SemanticPlan, nested: &Nested, answer: &str) {
    outer.assumptions.push(PlanAssumption::stated(format!(
        "{} is {answer} to \"{}\".",
        capitalised(&nested.said),
        nested.inner
    )));
}

/// Words that end the outer question before "the same …" without asking
/// anything of their own ("drivers who share", "customers with").
const BEFORE_SAME: &[&str] = &[
    "have", "has", "had", "share", "shares", "shared", "sharing", "with", "of", "the", "are", "is",
    "were", "was", "hold", "holds", "from", "in", "at", "for",
];

/// "Which drivers have the same nationality as Kimi Räikkönen": the things
/// the words before "the same" ask for, whose own attribute of that name
/// holds the value the inner question answers.
fn same_value(
    ontology: &Ontology,
    lexicon: &Lexicon,
    nested: &Nested,
    before: &str,
    mut inner: SemanticPlan,
    value: &AttributeRef,
    today: Option<Day>,
) -> Option<Planned> {
    let mut words: Vec<&str> = before.split_whitespace().collect();
    while words
        .last()
        .is_some_and(|w| BEFORE_SAME.contains(&w.to_lowercase().as_str()))
    {
        words.pop();
    }
    let Planned::Plan(mut outer) = plan_one(ontology, lexicon, &words.join(" "), None, today)
    else {
        return None;
    };
    // The things listed or counted have the attribute themselves, or reach
    // the inner question's.
    let listed = outer
        .dimensions
        .first()
        .map(|d| d.object.clone())
        .or_else(|| {
            outer.measures.iter().find_map(|m| match m {
                Measure::CountOf { object } => Some(object.clone()),
                _ => None,
            })
        })?;
    let attribute = ontology.attribute(&listed, &value.attribute).map_or_else(
        || value.clone(),
        |_| AttributeRef::new(&listed, &value.attribute),
    );
    inner.dimensions.retain(|d| d == value);
    inner.order = None;
    outer.filters.push(Filter {
        attribute,
        condition: Condition::Leader {
            plan: Box::new(inner),
            said: nested.said.clone(),
        },
    });
    states_inner(&mut outer, nested, "the answer");
    Some(Planned::Plan(outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thing_named_by_what_it_did_is_a_question_of_its_own() {
        let nested =
            split("How many career race wins does the winner of the 2012 Monaco Grand Prix have?")
                .unwrap();
        assert_eq!(nested.said, "the winner of the 2012 Monaco Grand Prix");
        assert_eq!(nested.inner, "Who won the 2012 Monaco Grand Prix");
        assert_eq!(nested.outer, "How many career race wins does him have");
        let nested =
            split("what region is the supplier with the highest acct balance in?").unwrap();
        assert_eq!(nested.inner, "Which supplier with the highest acct balance");
        assert_eq!(nested.outer, "what region is that supplier in");
        // Nothing else asked of it: the question is the ranking itself.
        assert_eq!(split("Who is the driver with the most wins?"), None);
        // Several things: a list.
        assert_eq!(
            split("For race id 1100, list the drivers with a recorded fastest lap speed"),
            None
        );
        // Introduced before a comma, and asked about after it.
        let nested = split(
            "For the driver who won the race held on 29 November 2015, what is his date of birth?",
        )
        .unwrap();
        assert_eq!(
            nested.inner,
            "Which driver won the race held on 29 November 2015"
        );
        assert_eq!(nested.outer, "what is his date of birth");
        // A sentence that only picks the thing, and the question after it.
        let nested = split(
            "Take the customer in the MACHINERY segment with the largest account balance. How many orders have they placed in total?",
        )
        .unwrap();
        assert_eq!(
            nested.inner,
            "Which customer in the MACHINERY segment with the largest account balance"
        );
        assert_eq!(nested.outer, "How many orders have he placed in total");
        assert_eq!(split("Take the drivers of Ferrari. How many wins?"), None);
        // No superlative: a plain relative clause.
        assert_eq!(
            split("How many points did the drivers who raced for Ferrari score?"),
            None
        );
    }
}
