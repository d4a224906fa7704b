//! Rolling totals: "rolling 3-month revenue", "revenue over a moving
//! 3-month window", "trailing 4-quarter orders". The window's words are
//! taken out of the question first (a grouping by its period put in their
//! place when the question has none), the question is planned as the plain
//! measure by period, and its measure then becomes a rolling total over
//! that many periods, with what each figure covers stated.

use super::Planned;
use crate::engine::plan::{Measure, PlanAssumption};
use crate::ontology::{Aggregate, Grain, Ontology};

const NUMBERS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

fn count(word: &str) -> Option<u32> {
    word.parse::<u32>()
        .ok()
        .or_else(|| NUMBERS.iter().position(|n| *n == word).map(|n| n as u32))
        .filter(|n| (2..=36).contains(n))
}

fn grain(word: &str) -> Option<Grain> {
    match word.trim_end_matches('s') {
        "month" => Some(Grain::Month),
        "quarter" => Some(Grain::Quarter),
        "year" => Some(Grain::Year),
        _ => None,
    }
}

/// The question without its rolling window's words, and the window: how
/// many periods of which grain.
pub(super) fn read(question: &str) -> (String, Option<(u32, Grain)>) {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
            .to_ascii_lowercase()
    };
    let Some(at) = tokens
        .iter()
        .position(|t| matches!(bare(t).as_str(), "rolling" | "moving" | "trailing"))
    else {
        return (question.to_owned(), None);
    };
    // "3-month" or "3 months", right after the word or right before it.
    let span = |from: usize| -> Option<(usize, usize, u32, Grain)> {
        let first = bare(tokens.get(from)?);
        if let Some((n, g)) = first.split_once('-') {
            return Some((from, from + 1, count(n)?, grain(g)?));
        }
        let second = bare(tokens.get(from + 1)?);
        Some((from, from + 2, count(&first)?, grain(&second)?))
    };
    let found = span(at + 1)
        .map(|(_, end, n, g)| (at, end, n, g))
        .or_else(|| {
            let before = |len: usize| at.checked_sub(len).and_then(span).filter(|s| s.1 == at);
            before(1)
                .or_else(|| before(2))
                .map(|(start, _, n, g)| (start, at + 1, n, g))
        });
    let Some((mut start, end, n, g)) = found else {
        return (question.to_owned(), None);
    };
    // "over a rolling 3-month window": the words leading to it go too.
    while start > 0
        && matches!(
            bare(tokens[start - 1]).as_str(),
            "a" | "an" | "the" | "over" | "on"
        )
    {
        start -= 1;
    }
    let mut words: Vec<String> = tokens[..start].iter().map(|t| (*t).to_owned()).collect();
    words.extend(tokens[end..].iter().map(|t| (*t).to_owned()));
    // "window" and "total" said nothing more once the window is read.
    words.retain(|w| !matches!(bare(w).as_str(), "window" | "total" | "sum"));
    let text = words.join(" ");
    let grouped = words.iter().any(|w| {
        let w = bare(w);
        w == "by" || w == "per" || w == "each" || w == "monthly" || w == "quarterly"
    });
    let text = if grouped {
        text
    } else {
        format!("{} by {}", text.trim_end_matches(['?', '.', ' ']), g.name())
    };
    (text, Some((n, g)))
}

/// The plan's one measure as a rolling total over `periods` periods, when
/// it adds up (a sum or a count) and the plan groups by a period.
pub(super) fn rolling_total(
    ontology: &Ontology,
    planned: Planned,
    window: (u32, Grain),
) -> Planned {
    let Planned::Plan(mut plan) = planned else {
        return planned;
    };
    let (periods, grain) = window;
    let adds_up = |measure: &Measure| match measure {
        Measure::Metric { metric, .. } => ontology.metrics.iter().any(|m| {
            m.name == *metric
                && !m.is_composed()
                && matches!(m.aggregate, Aggregate::Sum | Aggregate::Count)
        }),
        Measure::CountOf { .. } => true,
        _ => false,
    };
    let by_period = plan.dimensions.iter().any(|d| d.bucket.is_some());
    if let [measure] = plan.measures.as_slice()
        && adds_up(measure)
        && by_period
    {
        plan.measures = vec![Measure::Cumulative {
            of: Box::new(measure.clone()),
            to_date: None,
            window: Some(periods),
        }];
        let shown = plan
            .dimensions
            .iter()
            .find_map(|d| d.bucket)
            .unwrap_or(grain)
            .name()
            .replace('_', " ");
        plan.assumptions.push(PlanAssumption::stated(format!(
            "Each {shown}'s rolling figure adds up that {shown} and the {} before it, whether or not they have rows or are among the periods asked about",
            match periods - 1 {
                1 => shown.clone(),
                n => format!("{n} {shown}s"),
            }
        )));
    }
    Planned::Plan(plan)
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::read;
    use crate::engine::lexicon::Lexicon;
    use crate::engine::plan::Measure;
    use crate::engine::planner::{Planned, plan};
    use crate::ontology::Grain;

    #[test]
    fn a_rolling_question_plans_a_rolling_total_by_its_period() {
        let ontology = crate::ontology::from_yaml(include_str!(
            "../../../../examples/wholesale/ontology.yaml"
        ))
        .unwrap();
        let lexicon = Lexicon::build(&ontology, &[]);
        let Planned::Plan(p) = plan(
            &ontology,
            &lexicon,
            "rolling 3-month revenue in 1996",
            None,
            None,
        ) else {
            panic!("not planned");
        };
        assert!(
            matches!(
                &p.measures[..],
                [Measure::Cumulative {
                    window: Some(3),
                    to_date: None,
                    ..
                }]
            ),
            "{p:?}"
        );
        assert_eq!(p.dimensions[0].bucket, Some(Grain::Month), "{p:?}");
        assert!(
            p.assumptions.iter().any(|a| a.text.starts_with(
                "Each month's rolling figure adds up that month and the 2 months before it"
            )),
            "{:?}",
            p.assumptions
        );
    }

    #[test]
    fn a_window_is_read_and_its_words_taken_out() {
        assert_eq!(
            read("rolling 3-month revenue"),
            ("revenue by month".to_owned(), Some((3, Grain::Month)))
        );
        assert_eq!(
            read("3-month rolling revenue by month in 1996"),
            (
                "revenue by month in 1996".to_owned(),
                Some((3, Grain::Month))
            )
        );
        assert_eq!(
            read("number of orders over a moving 2 quarters window"),
            (
                "number of orders by quarter".to_owned(),
                Some((2, Grain::Quarter))
            )
        );
        assert_eq!(read("rolling stock"), ("rolling stock".to_owned(), None));
        assert_eq!(
            read("revenue on a trailing three-month basis"),
            ("revenue basis by month".to_owned(), Some((3, Grain::Month)))
        );
        assert_eq!(
            read("revenue by month"),
            ("revenue by month".to_owned(), None)
        );
    }
}
