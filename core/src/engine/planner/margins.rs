//! Margins: how far one side finished ahead of another, read as "how many
//! more … did A have than B", the difference the reading already plans.

use super::nested::bare;
use super::words::champion_title;
use crate::engine::grammar;
use crate::engine::plan::{Measure, SemanticPlan};
use crate::ontology::Ontology;

/// "By how many points did Vettel beat Alonso in 2010?": a margin is how
/// many more points the winner had than the one beaten, which "how many
/// more … than" reads as a difference.
pub(super) fn margin_as_difference(question: &str) -> String {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let [by, how, many, _, did, ..] = lower.as_slice() else {
        return question.to_owned();
    };
    if [by, how, many, did].map(String::as_str) != ["by", "how", "many", "did"] {
        return question.to_owned();
    }
    // "beat Alonso", or "finish ahead of Mercedes": where the winner ends
    // and the one beaten starts.
    let Some((winner_ends, beaten)) = (5..tokens.len()).find_map(|i| match lower[i].as_str() {
        "beat" | "outscore" | "outscored" | "lead" | "led" | "edge" | "edged" => Some((i, i + 1)),
        "ahead" if lower.get(i + 1).is_some_and(|of| of == "of") => {
            let verb = matches!(
                lower[i - 1].as_str(),
                "finish" | "finished" | "end" | "ended" | "come" | "came" | "be" | "stay"
            );
            Some((i - usize::from(verb), i + 2))
        }
        _ => None,
    }) else {
        return question.to_owned();
    };
    if winner_ends <= 5 || beaten >= tokens.len() {
        return question.to_owned();
    }
    format!(
        "how many more {} did {} have than {}",
        tokens[3],
        tokens[5..winner_ends].join(" "),
        tokens[beaten..].join(" ")
    )
}

/// "how many points separated first and second", "how far behind the
/// champion was he", "by how many points did the 2021 world champion beat
/// the runner-up", "by how many points did he miss out on the title": a gap
/// between places of a championship, or between a place and the one the
/// chat answered with, said as "how many more … did 1st have than him",
/// the side ahead first ("fewer" where the person is ahead, so the place
/// still comes first). A place is said "1st", since "first" alone may be
/// the earliest. A champion's season and title move after the sides ("… in
/// the 2021 world championship"), where they filter and name the measure;
/// `standings` says the chat is already about a championship's standings.
/// None unless a side is a place.
pub(super) fn gap_between_places(question: &str, standings: bool) -> Option<String> {
    let question = margin_as_difference(question);
    // "and how far behind the champion was he?": the same question.
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let tokens = match tokens.first().map(|t| bare(t)).as_deref() {
        Some("and" | "so") => &tokens[1..],
        _ => &tokens[..],
    };
    let words: Vec<String> = tokens.iter().map(|t| bare(t).replace('’', "'")).collect();
    let gap = missed_title(&words).or_else(|| gap_said(&words))?;
    if !gap.ahead.place && !gap.behind.place {
        return None;
    }
    // "how many more wins did the 2021 champion have": a champion of
    // another measure is the nested question's.
    let champion = gap.ahead.champion || gap.behind.champion;
    let measure = &tokens[gap.measure.clone()];
    if champion
        && !measure.is_empty()
        && !words[gap.measure.clone()]
            .iter()
            .any(|w| matches!(w.as_str(), "point" | "points" | "pts"))
    {
        return None;
    }
    Some(gap.said(tokens, standings))
}

/// Whether the chat's last question measured a balance as it stood (a
/// championship's standings points), whose places a gap is between.
pub(super) fn on_standings(ontology: &Ontology, previous: Option<&SemanticPlan>) -> bool {
    previous.is_some_and(|p| {
        p.measures.iter().any(|m| {
            matches!(m, Measure::Metric { metric, .. }
                if ontology.metrics.iter().any(|x| x.name == *metric && x.semi_additive.is_some()))
        })
    })
}

/// "how far behind X was Y", "how many points behind X was Y", "how many
/// points separated X and Y", "how many more points did X have than Y".
fn gap_said(words: &[String]) -> Option<Gap> {
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    if word(0) != "how" {
        return None;
    }
    let (measure, ahead_at, fewer) = match (word(1), word(2)) {
        ("far", "behind") => (2..2, 3, false),
        ("many", more @ ("more" | "fewer" | "less")) => {
            let did = (3..words.len()).find(|&i| word(i) == "did")?;
            (3..did, did + 1, more != "more")
        }
        ("many", _) => {
            let at = (2..words.len())
                .find(|&i| matches!(word(i), "separated" | "behind" | "between"))?;
            (2..at, at + 1, false)
        }
        _ => return None,
    };
    // "how many orders were placed between the first and second of March":
    // the measure is a thing, not a clause.
    let clause = words[measure.clone()].iter().any(|w| {
        matches!(
            w.as_str(),
            "was" | "were" | "is" | "are" | "did" | "do" | "does" | "have" | "had" | "been"
        ) || w.ends_with("ed")
    });
    if clause {
        return None;
    }
    let ahead = Side::read(words, ahead_at)?;
    let before = word(ahead_at - 1);
    let behind_at = match word(ahead.end) {
        "and" if matches!(before, "separated" | "between") => ahead.end + 1,
        "was" | "were" | "is" if before == "behind" => ahead.end + 1,
        "have" | "had" if before == "did" && word(ahead.end + 1) == "than" => ahead.end + 2,
        _ => return None,
    };
    let behind = Side::read(words, behind_at)?;
    // "between the first and second of March": a place ends the question
    // or a phrase of where or when.
    let rest = behind.end;
    if !matches!(
        word(rest),
        "" | "in" | "at" | "on" | "after" | "during" | "for"
    ) {
        return None;
    }
    let (ahead, behind) = if fewer {
        (behind, ahead)
    } else {
        (ahead, behind)
    };
    Some(Gap {
        measure,
        ahead,
        behind,
        rest,
    })
}

/// "by how many points did he miss out on the (2008) title": the first
/// place was ahead of him.
fn missed_title(words: &[String]) -> Option<Gap> {
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    if (word(0), word(1), word(2)) != ("by", "how", "many") {
        return None;
    }
    let did = (3..words.len()).find(|&i| word(i) == "did")?;
    let behind = Side::read(words, did + 1)?;
    let on = behind.end + 2;
    if (word(behind.end), word(behind.end + 1), word(on)) != ("miss", "out", "on") {
        return None;
    }
    let title = (on + 1..(on + 5).min(words.len()))
        .find(|&i| matches!(word(i), "title" | "championship" | "crown"))?;
    let mut ahead = Side::champion();
    ahead.qualifiers = words[on + 1..title]
        .iter()
        .filter(|w| *w != "the")
        .cloned()
        .collect();
    Some(Gap {
        measure: 3..did,
        ahead,
        behind,
        rest: title + 1,
    })
}

/// A margin read: the measure's words, the side ahead and the side behind,
/// and where the rest of the question starts.
struct Gap {
    measure: std::ops::Range<usize>,
    ahead: Side,
    behind: Side,
    rest: usize,
}

impl Gap {
    /// "how many more <measure> did <place> have than <other> <rest>", or
    /// "fewer" where the person is ahead of the place, with a champion's
    /// season and title after.
    fn said(&self, tokens: &[&str], standings: bool) -> String {
        let (more, first, second) = if self.ahead.place {
            ("more", &self.ahead, &self.behind)
        } else {
            ("fewer", &self.behind, &self.ahead)
        };
        let rest = tokens.get(self.rest..).unwrap_or_default().join(" ");
        let rest = rest.trim_end_matches(['?', '.', '!']).trim().to_owned();
        let mut said = format!(
            "how many {more} {} did {} have than {} {rest}",
            tokens[self.measure.clone()].join(" "),
            first.said,
            second.said
        );
        let qualifiers: Vec<String> = first
            .qualifiers
            .iter()
            .chain(&second.qualifiers)
            .cloned()
            .collect();
        let years: Vec<&String> = qualifiers
            .iter()
            .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
            .collect();
        let rest = rest.to_lowercase();
        let titled = ["championship", "standings", "title", "wdc", "wcc"]
            .iter()
            .any(|w| rest.contains(w));
        // The runner-up, the leader or third, of a championship where a
        // champion is the other side or the chat is about the standings;
        // else of a race.
        let names_title = self.ahead.champion || self.behind.champion || standings;
        if titled {
            for year in years {
                said = format!("{said} in {year}");
            }
        } else if names_title {
            said = format!(
                "{said} in the {} {}",
                qualifiers.join(" "),
                champion_title(&qualifiers)
            );
        }
        format!("{}?", said.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// One side of a margin: a place ("the champion", "second", "P2") with the
/// words that qualified it, or a person the chat knows ("he").
struct Side {
    /// How the side is said in the rewritten question: "1st", "him".
    said: String,
    /// A place, not a person the chat knows.
    place: bool,
    /// The season and title words a champion was named with: "2021 world".
    qualifiers: Vec<String>,
    /// A champion, whose title names the measure.
    champion: bool,
    end: usize,
}

impl Side {
    fn champion() -> Self {
        Side {
            said: "1st".to_owned(),
            place: true,
            qualifiers: Vec::new(),
            champion: true,
            end: 0,
        }
    }

    fn read(words: &[String], at: usize) -> Option<Self> {
        let pronoun = match words.get(at)?.as_str() {
            "he" | "him" => Some("him"),
            "she" | "her" => Some("her"),
            _ => None,
        };
        if let Some(said) = pronoun {
            return Some(Side {
                said: said.to_owned(),
                place: false,
                qualifiers: Vec::new(),
                champion: false,
                end: at + 1,
            });
        }
        let mut i = at + usize::from(words[at] == "the");
        let mut qualifiers = Vec::new();
        while let Some(w) = words.get(i)
            && (w.parse::<u16>().is_ok_and(|y| (1900..=2100).contains(&y))
                || matches!(
                    w.as_str(),
                    "world"
                        | "drivers"
                        | "driver's"
                        | "drivers'"
                        | "constructors"
                        | "constructor's"
                        | "constructors'"
                        | "team"
                        | "championship"
                        | "f1"
                ))
        {
            qualifiers.push(w.clone());
            i += 1;
        }
        let head = words.get(i)?.as_str();
        let two = words.get(i + 1).map(String::as_str);
        let (place, len) = match (head, two) {
            ("champion" | "winner" | "leader", _) => (1, 1),
            ("title", Some("winner")) => (1, 2),
            ("runner-up", _) => (2, 1),
            ("runner", Some("up")) => (2, 2),
            _ => (grammar::ordinal(head)?, 1),
        };
        let champion =
            head == "champion" || head == "title" || (head == "leader" && !qualifiers.is_empty());
        // "the 2021 winner", "second in 2021" name no title: left alone.
        if !champion && !qualifiers.is_empty() {
            return None;
        }
        Some(Side {
            said: grammar::numbered_ordinal(place),
            place: true,
            qualifiers,
            champion,
            end: i + len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::gap_between_places;

    #[test]
    fn a_gap_between_places_is_said_with_the_side_ahead_first() {
        for (question, standings, said) in [
            (
                "By how many points did the 2021 world champion beat the runner-up?",
                false,
                "how many more points did 1st have than 2nd in the 2021 world championship?",
            ),
            (
                "and how far behind the champion was he?",
                false,
                "how many more did 1st have than him in the drivers championship?",
            ),
            (
                "by how many points did he beat the runner-up?",
                true,
                "how many fewer points did 2nd have than him in the drivers championship?",
            ),
            (
                "By how many points did he miss out on the 2008 constructors' title?",
                false,
                "how many more points did 1st have than him in the 2008 constructors' championship?",
            ),
            (
                "how many points separated P3 and P4 in the 2010 drivers' standings",
                false,
                "how many more points did 3rd have than 4th in the 2010 drivers' standings?",
            ),
        ] {
            assert_eq!(
                gap_between_places(question, standings).as_deref(),
                Some(said),
                "{question}"
            );
        }
    }

    #[test]
    fn questions_that_compare_no_places_are_left_alone() {
        for question in [
            "How many orders were placed between the first and second of March 1995?",
            "By how many points did Vettel beat Alonso in 2010?",
            "how many more wins did the 2021 champion have than the runner-up",
            "how many",
            "by how many points did",
            "how far behind",
        ] {
            assert_eq!(gap_between_places(question, false), None, "{question}");
        }
    }
}
