//! Which verified questions the model is shown: the few of the pinned
//! version most like the question, by the words they share (stemmed, with
//! function words left out, rarer words weighing more). Deterministic and
//! local: the same question against the same version always gets the same
//! examples, and a version with hundreds of verified questions does not put
//! them all in every prompt.

use crate::engine::{grammar, text};
use crate::ontology::VerifiedQuestion;
use std::collections::{HashMap, HashSet};

/// How many verified questions a prompt shows at most.
pub const MAX_EXEMPLARS: usize = 3;

/// The content words of `question`, stemmed.
fn terms(question: &str) -> HashSet<String> {
    text::words(question)
        .into_iter()
        .filter(|word| !grammar::is_stop_word(&word.plain))
        .map(|word| word.stem)
        .collect()
}

/// The verified questions most like `question`, most alike first; only those
/// that share a content word with it, at most [`MAX_EXEMPLARS`].
pub fn most_alike<'a>(
    verified: &'a [VerifiedQuestion],
    question: &str,
) -> Vec<&'a VerifiedQuestion> {
    let asked = terms(question);
    if asked.is_empty() {
        return Vec::new();
    }
    let candidates: Vec<HashSet<String>> = verified.iter().map(|v| terms(&v.question)).collect();
    // Inverse document frequency over the verified questions: a word in all
    // of them ("race" in a Formula 1 project) tells them apart least.
    let mut spread: HashMap<&str, usize> = HashMap::new();
    for words in &candidates {
        for word in words {
            *spread.entry(word.as_str()).or_default() += 1;
        }
    }
    let total = verified.len() as f64;
    let weight = |word: &str| (1.0 + total / spread.get(word).copied().unwrap_or(1) as f64).ln();
    let mut scored: Vec<(f64, usize)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, words)| {
            let shared: f64 = words.intersection(&asked).map(|w| weight(w)).sum();
            if shared == 0.0 {
                return None;
            }
            // Shared weight over the union's: a long verified question does
            // not win by having more words.
            let all: f64 = words.union(&asked).map(|w| weight(w)).sum();
            Some((shared / all, i))
        })
        .collect();
    // Best first; among equals, the data team's order.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_EXEMPLARS)
        .map(|(_, i)| &verified[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verified(questions: &[&str]) -> Vec<VerifiedQuestion> {
        questions
            .iter()
            .map(|q| VerifiedQuestion {
                question: (*q).to_owned(),
                sql: format!("SELECT '{q}'"),
                description: String::new(),
            })
            .collect()
    }

    #[test]
    fn the_most_alike_come_first_and_unrelated_ones_not_at_all() {
        let all = verified(&[
            "Who won the most races in 2023?",
            "Compare total points scored by all drivers in 2022 vs 2023",
            "How many races were held in 2023?",
            "Points by constructor in 2023",
        ]);
        let found: Vec<&str> = most_alike(&all, "How many races were held in 2021?")
            .iter()
            .map(|v| v.question.as_str())
            .collect();
        assert_eq!(
            found,
            [
                "How many races were held in 2023?",
                "Who won the most races in 2023?"
            ]
        );
        let found: Vec<&str> = most_alike(&all, "points per constructor")
            .iter()
            .map(|v| v.question.as_str())
            .collect();
        assert_eq!(
            found[0], "Points by constructor in 2023",
            "the rarer shared word weighs more"
        );
        assert!(most_alike(&all, "what is the weather").is_empty());
        assert!(most_alike(&all, "the of and").is_empty());
    }

    #[test]
    fn at_most_a_few_are_shown() {
        let many: Vec<String> = (0..20).map(|i| format!("Wins of driver {i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let all = verified(&many);
        let found = most_alike(&all, "wins of driver 7");
        assert_eq!(found.len(), MAX_EXEMPLARS);
        assert_eq!(found[0].question, "Wins of driver 7");
    }
}
