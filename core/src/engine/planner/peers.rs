//! Peers: "Hamilton's teammate", "his teammates in 2013", "the teammate of
//! Lando Norris". The peer's words are taken out of the question with the
//! words that say whose ("his teammate" becomes "he"), the question is
//! planned about that one, and its conditions on them then become a
//! condition on their peers, who the rows are shown by.

use super::Planned;
use super::attributes::is_a_name;
use super::labels::plural;
use crate::engine::compile::display_attribute;
use crate::engine::plan::{AttributeRef, Condition, Filter, Order, PlanAssumption, SemanticPlan};
use crate::ontology::{Ontology, Peer};

/// Words after which "his teammate" stands beside him, as a second
/// subject or one he is compared with ("Hamilton and his teammate",
/// "compared with his teammate"): read as the teammate alone, the answer
/// would lose him, so the question is left as it is.
const BESIDE: [&str; 11] = [
    "and", "with", "to", "than", "against", "versus", "vs", "by", "over", "behind", "beat",
];

/// The words of a follow-up that only says who next: "and", "what about".
const CONTINUATIONS: [&str; 6] = ["and", "what", "how", "about", "for", "then"];

/// The one of the peer's kind a plan named or led with, by name.
fn named_one(ontology: &Ontology, peer: &Peer, plan: &SemanticPlan) -> Option<String> {
    let display = ontology
        .objects
        .iter()
        .find(|o| o.name == peer.of)
        .and_then(display_attribute)?;
    let names = |f: &Filter| {
        f.attribute.object == peer.of && f.attribute.attribute == display && f.is_one_value()
    };
    let filter = plan
        .answered
        .as_deref()
        .filter(|f| names(f))
        .or_else(|| plan.filters.iter().find(|f| names(f)))?;
    match &filter.condition {
        Condition::OneOf(values) => values.first().map(ToString::to_string),
        _ => None,
    }
}

/// A peer the question asks about, with the question as it reads about
/// the one whose peer it is.
#[derive(Debug, PartialEq)]
pub(super) struct PeerAsked {
    pub question: String,
    /// The peer's position in the ontology's peers.
    pub peer: usize,
}

/// A token as compared: lowercase, without the punctuation around it.
fn bare(token: &str) -> String {
    token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'' && c != '’')
        .trim_end_matches(['\'', '’'])
        .to_lowercase()
}

/// `word` without a possessive ending ("teammate's", "teammates'"), and
/// whether it had one.
fn without_possessive(word: &str) -> (&str, bool) {
    for ending in ["'s", "’s"] {
        if let Some(stem) = word.strip_suffix(ending) {
            return (stem, true);
        }
    }
    (word, false)
}

/// The words a peer is called by, longest first: its name and synonyms.
fn terms(peer: &Peer) -> Vec<Vec<String>> {
    let mut terms: Vec<Vec<String>> = std::iter::once(peer.name.replace('_', " "))
        .chain(peer.synonyms.iter().cloned())
        .map(|t| {
            t.to_lowercase()
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        })
        .filter(|t: &Vec<String>| !t.is_empty())
        .collect();
    terms.sort_by_key(|t| std::cmp::Reverse(t.len()));
    terms
}

/// Where a peer's words are in `tokens` from `at`: how many tokens, and
/// whether the last is possessive ("teammate's points").
fn term_at(tokens: &[&str], at: usize, terms: &[Vec<String>]) -> Option<(usize, bool)> {
    terms.iter().find_map(|term| {
        let words = tokens.get(at..at + term.len())?;
        let (last, rest) = words.split_last()?;
        let same = rest.iter().zip(term).all(|(t, w)| bare(t) == *w);
        // "teammates'": the plural's possessive, which `bare` trims.
        let plural_possessive = last
            .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
            .ends_with(['\'', '’']);
        let last = bare(last);
        let (last, possessive) = without_possessive(&last);
        let possessive = possessive || plural_possessive;
        let wanted = term.last()?;
        (same && (last == wanted || last == plural(wanted))).then_some((term.len(), possessive))
    })
}

/// The punctuation a token ends with, kept where the words go: "teammate?".
fn trailing(token: &str) -> &str {
    let word = token.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
    &token[word.len()..]
}

/// The question about the one whose peer it asks for, when it asks for one
/// of the ontology's peers by whose it is: "his teammate" (he), "Lando
/// Norris's teammate" (Lando Norris), "the teammate of Hamilton"
/// (Hamilton). A peer word that says no one's is left as it is.
pub(super) fn read(
    ontology: &Ontology,
    question: &str,
    previous: Option<&SemanticPlan>,
) -> Option<PeerAsked> {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    for (peer, definition) in ontology.peers.iter().enumerate() {
        let terms = terms(definition);
        for at in 0..tokens.len() {
            let Some((len, possessive)) = term_at(&tokens, at, &terms) else {
                continue;
            };
            let end = at + len;
            let tail = trailing(tokens[end - 1]);
            let before = at.checked_sub(1).map(|i| bare(tokens[i]));
            let mut out: Vec<String> = Vec::new();
            match before.as_deref() {
                // "his teammate" → "he"; "his teammate's points" → "his points".
                Some(pronoun @ ("his" | "her" | "their")) => {
                    // "And his teammate?" opens a follow-up; "Hamilton and
                    // his teammate" names two.
                    let beside = at.checked_sub(2).is_some_and(|i| {
                        let word = bare(tokens[i]);
                        BESIDE.contains(&word.as_str()) && (i > 0 || word != "and")
                    });
                    if beside {
                        return None;
                    }
                    let word = match (pronoun, possessive) {
                        (_, true) => pronoun,
                        ("his", false) => "he",
                        ("her", false) => "she",
                        _ => "they",
                    };
                    out.extend(tokens[..at - 1].iter().map(|t| (*t).to_owned()));
                    // "And his teammate?": the last question again, about
                    // the one it named, as "and Oscar Piastri?" would be.
                    let continues = end == tokens.len()
                        && out
                            .iter()
                            .all(|t| CONTINUATIONS.contains(&bare(t).as_str()));
                    let named = previous.and_then(|p| named_one(ontology, definition, p));
                    match named {
                        Some(name) if continues => out.push(format!("{name}{tail}")),
                        _ => out.push(format!("{word}{tail}")),
                    }
                }
                // "Lando Norris's teammate" → "Lando Norris".
                Some(_)
                    if without_possessive(tokens[at - 1]).1
                        || tokens[at - 1].ends_with("s'")
                        || tokens[at - 1].ends_with("s’") =>
                {
                    out.extend(tokens[..at - 1].iter().map(|t| (*t).to_owned()));
                    let owner = without_possessive(tokens[at - 1]).0;
                    let owner = owner.trim_end_matches(['\'', '’']);
                    let ending = if possessive { "'s" } else { "" };
                    out.push(format!("{owner}{ending}{tail}"));
                }
                // "the teammate of Hamilton" → "Hamilton".
                _ if !possessive
                    && tokens
                        .get(end)
                        .is_some_and(|t| matches!(bare(t).as_str(), "of" | "to"))
                    && tail.is_empty() =>
                {
                    let start = match before.as_deref() {
                        Some("the" | "a") => at - 1,
                        _ => at,
                    };
                    out.extend(tokens[..start].iter().map(|t| (*t).to_owned()));
                    out.extend(tokens[end + 1..].iter().map(|t| (*t).to_owned()));
                    return Some(PeerAsked {
                        question: out.join(" "),
                        peer,
                    });
                }
                _ => continue,
            }
            out.extend(tokens[end..].iter().map(|t| (*t).to_owned()));
            return Some(PeerAsked {
                question: out.join(" "),
                peer,
            });
        }
    }
    None
}

/// The plan about the one whose peers the question asked for, about the
/// peers instead: its conditions on that one become the peer condition,
/// and the rows are shown by the peer, since the question did not say who
/// that is.
pub(super) fn of_peers(ontology: &Ontology, peer: usize, planned: Planned) -> Planned {
    let Planned::Plan(mut plan) = planned else {
        return planned;
    };
    let peer = &ontology.peers[peer];
    // The one named ("Alonso", or "Verstappen" by his surname) is whose
    // peers; other conditions on the kind ("which of Alonso's teammates
    // were British") are the peers'.
    let names_one = |f: &Filter| {
        f.attribute.object == peer.of
            && (matches!(f.condition, Condition::Leader { .. })
                || (is_a_name(ontology, &f.attribute) && f.is_one_value()))
    };
    let (whose, rest): (Vec<Filter>, Vec<Filter>) = plan.filters.into_iter().partition(names_one);
    if whose.is_empty() {
        return Planned::NotAnswerable(format!(
            "the question asks for {} without saying whose, and Cassis could not tell",
            plural(&peer.name.replace('_', " "))
        ));
    }
    plan.filters = rest;
    plan.filters.push(Filter {
        attribute: AttributeRef::new(&peer.through, &peer.name),
        condition: Condition::PeerOf { of: whose },
    });
    show_peer(ontology, peer, &mut plan);
    let explained = if peer.description.is_empty() {
        format!(
            "A {} is another {} with a {} sharing its {}",
            peer.name.replace('_', " "),
            peer.of.replace('_', " "),
            peer.through.replace('_', " "),
            peer.sharing.join(" and ").replace('_', " ")
        )
    } else {
        peer.description.trim_end_matches('.').to_owned()
    };
    plan.assumptions.push(PlanAssumption::stated(explained));
    Planned::Plan(plan)
}

/// Shows the rows by the peer, first, unless the plan already does.
fn show_peer(ontology: &Ontology, peer: &Peer, plan: &mut SemanticPlan) {
    if plan.dimensions.iter().any(|d| d.object == peer.of) {
        return;
    }
    let Some(name) = ontology
        .objects
        .iter()
        .find(|o| o.name == peer.of)
        .and_then(display_attribute)
    else {
        return;
    };
    plan.dimensions.insert(0, AttributeRef::new(&peer.of, name));
    // Orders by a dimension point at it by position.
    if let Some(Order::Dimension { index, .. }) = &mut plan.order {
        *index += 1;
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn f1() -> Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/f1/ontology.yaml")).unwrap()
    }

    fn asked(question: &str) -> Option<String> {
        read(&f1(), question, None).map(|a| a.question)
    }

    #[test]
    fn whose_peer_is_read_from_the_words_around_it() {
        for (question, about) in [
            (
                "how many podiums did his teammate get in 2013?",
                "how many podiums did he get in 2013?",
            ),
            ("Where did his team mate finish?", "Where did he finish?"),
            (
                "Who were Lewis Hamilton's teammates in 2007?",
                "Who were Lewis Hamilton in 2007?",
            ),
            (
                "what were Norris' team-mate's points",
                "what were Norris's points",
            ),
            (
                "who was the teammate of Fernando Alonso in 2010",
                "who was Fernando Alonso in 2010",
            ),
            ("his teammate's points in 2019", "his points in 2019"),
        ] {
            assert_eq!(asked(question).as_deref(), Some(about), "{question}");
        }
        // Beside the one named, read alone, he would be lost: left be.
        assert_eq!(asked("how did Hamilton compare with his teammate"), None);
        assert_eq!(
            asked("How many points did Hamilton and his teammate score in 2016?"),
            None
        );
        assert_eq!(
            asked("his teammates' points in 2019").as_deref(),
            Some("his points in 2019")
        );
        assert_eq!(
            asked("Norris’ teammate in 2024").as_deref(),
            Some("Norris in 2024")
        );
        // A peer nobody owns, and no peer at all, leave the question be.
        assert_eq!(asked("who were teammates in 2010"), None);
        assert_eq!(asked("who won the 2010 Monaco Grand Prix"), None);
    }

    #[test]
    fn and_his_peer_after_a_question_about_one_is_that_question_about_them() {
        let ontology = f1();
        let previous = SemanticPlan {
            filters: vec![Filter {
                attribute: AttributeRef::new("driver", "full_name"),
                condition: Condition::OneOf(vec![crate::engine::plan::Literal::Text(
                    "Lando Norris".into(),
                )]),
            }],
            ..SemanticPlan::default()
        };
        let read = |q: &str| read(&ontology, q, Some(&previous)).map(|a| a.question);
        assert_eq!(
            read("and his teammate?").as_deref(),
            Some("and Lando Norris?")
        );
        assert_eq!(
            read("what about his teammate").as_deref(),
            Some("what about Lando Norris")
        );
        // A question of its own keeps the pronoun the chat resolves.
        assert_eq!(
            read("and where did his teammate finish").as_deref(),
            Some("and where did he finish")
        );
    }
}
