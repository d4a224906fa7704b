//! Margins: how far one side finished ahead of another, read as "how many
//! more … did A have than B", the difference the reading already plans.

use super::words::champion_title;

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
/// chat answered with, said as "how many more … did 1st have than him"
/// ("first" alone may be the earliest).
/// A champion's season and title move after the sides ("… in the 2021
/// world championship"), where they filter and name the measure. Left as
/// it is unless a side is a place.
pub(super) fn gap_between_places(question: &str) -> String {
    let question = margin_as_difference(question);
    // "and how far behind the champion was he?": the same question.
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let tokens = match tokens.first().map(|t| bare(t)).as_deref() {
        Some("and" | "so") => &tokens[1..],
        _ => &tokens[..],
    };
    let lower: Vec<String> = tokens.iter().map(|t| bare(t)).collect();
    let word = |i: usize| lower.get(i).map_or("", String::as_str);
    // Where the measure's words are, and where the first side starts.
    let (measure, ahead_at) = if word(0) == "how" && word(1) == "far" && word(2) == "behind" {
        (2..2, 3)
    } else if word(0) == "how" && word(1) == "many" && word(2) == "more" {
        match (3..lower.len()).find(|&i| word(i) == "did") {
            Some(did) => (3..did, did + 1),
            None => return question,
        }
    } else if word(0) == "how" && word(1) == "many" {
        match (2..lower.len()).find(|&i| matches!(word(i), "separated" | "behind" | "between")) {
            Some(i) => (2..i, i + 1),
            None => return question,
        }
    } else if word(0) == "by" && word(1) == "how" && word(2) == "many" {
        // "by how many points did he miss out on the title".
        let Some(did) = (3..lower.len()).find(|&i| word(i) == "did") else {
            return question;
        };
        let Some(behind) = Side::read(&lower, did + 1) else {
            return question;
        };
        let missed = word(behind.end) == "miss"
            && word(behind.end + 1) == "out"
            && word(behind.end + 2) == "on"
            && matches!(word(behind.end + 4), "title" | "championship" | "crown");
        if !missed {
            return question;
        }
        let ahead = Side::first();
        return said(tokens, 3..did, &ahead, &behind, behind.end + 5);
    } else {
        return question;
    };
    let Some(ahead) = Side::read(&lower, ahead_at) else {
        return question;
    };
    // "separated first and second", "behind the champion was he", "did the
    // champion have than the runner-up".
    let joiner = word(ahead.end);
    let behind_at = match joiner {
        "and" if matches!(word(ahead_at - 1), "separated" | "between") => ahead.end + 1,
        "was" | "were" | "is" if word(ahead_at - 1) == "behind" => ahead.end + 1,
        "have" | "had" if word(ahead.end + 1) == "than" && word(ahead_at - 1) == "did" => {
            ahead.end + 2
        }
        _ => return question,
    };
    let Some(behind) = Side::read(&lower, behind_at) else {
        return question;
    };
    if !ahead.place && !behind.place {
        return question;
    }
    said(tokens, measure, &ahead, &behind, behind.end)
}

/// One side of a margin: a place ("the champion", "second", "P2") with the
/// words that qualified it, or a person the chat knows ("he").
struct Side {
    /// How the side is said in the rewritten question: "1st", "him".
    said: &'static str,
    /// A place, not a person the chat knows.
    place: bool,
    /// The season and title words a champion was named with: "2021 world".
    qualifiers: Vec<String>,
    /// Whether the side was a champion, whose title names the measure.
    champion: bool,
    /// "the runner-up": second in a championship where the other side
    /// is a champion or the one the chat answered with, else in a race.
    runner_up: bool,
    end: usize,
}

impl Side {
    fn first() -> Self {
        Side {
            said: "1st",
            place: true,
            qualifiers: Vec::new(),
            champion: true,
            runner_up: false,
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
                said,
                place: false,
                qualifiers: Vec::new(),
                champion: false,
                runner_up: false,
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
                        | "f1"
                ))
        {
            qualifiers.push(w.clone());
            i += 1;
        }
        let (said, champion, len) = match words.get(i)?.as_str() {
            "champion" | "champions" | "leader" => ("1st", true, 1),
            // "the winner" of a race: a place in it, said by what follows.
            "winner" if qualifiers.is_empty() => ("1st", false, 1),
            "title" if words.get(i + 1).is_some_and(|w| w == "winner") => ("1st", true, 2),
            "runner-up" => ("2nd", false, 1),
            "runner" if words.get(i + 1).is_some_and(|w| w == "up") => ("2nd", false, 2),
            "first" | "1st" | "p1" => ("1st", false, 1),
            "second" | "2nd" | "p2" => ("2nd", false, 1),
            "third" | "3rd" | "p3" => ("3rd", false, 1),
            _ => return None,
        };
        Some(Side {
            said,
            place: true,
            runner_up: words[i].starts_with("runner"),
            qualifiers,
            champion,
            end: i + len,
        })
    }
}

/// The margin said as "how many more <measure> did <ahead> have than
/// <behind> <rest>", with a champion's season and title after.
fn said(
    tokens: &[&str],
    measure: std::ops::Range<usize>,
    ahead: &Side,
    behind: &Side,
    rest_at: usize,
) -> String {
    let rest = tokens.get(rest_at..).unwrap_or_default().join(" ");
    let rest = rest.trim_end_matches(['?', '.', '!']).trim();
    let mut question = format!(
        "how many more {} did {} have than {}",
        tokens[measure].join(" "),
        ahead.said,
        behind.said
    );
    question = question.split_whitespace().collect::<Vec<_>>().join(" ");
    if !rest.is_empty() {
        question = format!("{question} {rest}");
    }
    let qualifiers: Vec<String> = ahead
        .qualifiers
        .iter()
        .chain(&behind.qualifiers)
        .cloned()
        .collect();
    let titled = [
        "championship",
        "standings",
        "title",
        "constructors",
        "drivers",
    ]
    .iter()
    .any(|w| rest.to_lowercase().contains(w));
    let titles = |side: &Side, other: &Side| {
        side.champion || (side.runner_up && (!other.place || other.champion))
    };
    if (titles(ahead, behind) || titles(behind, ahead)) && !(titled && qualifiers.is_empty()) {
        question = format!(
            "{question} in the {} {}",
            qualifiers.join(" "),
            champion_title(&qualifiers)
        );
    }
    format!(
        "{}?",
        question.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

/// A word without the punctuation around it, in lower case; an apostrophe
/// inside or closing it stays ("drivers'").
fn bare(token: &str) -> String {
    token
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .replace('’', "'")
        .to_lowercase()
}
