//! Fiscal years: "revenue in fiscal 1996", "FY1996", "orders by fiscal
//! year", "fiscal year to date". The words are taken out of the question
//! first ("fiscal 1996" reads as "1996"), the question is planned as for
//! calendar years, and then its years of dates become fiscal years of the
//! ontology's `fiscal_year_start`, with the months they cover stated.

use super::Planned;
use crate::engine::grammar;
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, PlanAssumption, SemanticPlan,
};
use crate::ontology::{AttributeRole, DataType, Grain, Month, Ontology};
use crate::time::Day;

/// "Our fiscal year starts in July. What was revenue for …": a sentence
/// that states when the fiscal year starts is taken out where it agrees
/// with the ontology; where it does not, the question is refused rather
/// than read on another calendar than the one it states.
pub(super) fn stated_start(ontology: &Ontology, question: &str) -> Result<String, String> {
    let mut kept: Vec<&str> = Vec::new();
    for sentence in question.split_inclusive(['.', ';']) {
        let words: Vec<String> = sentence
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_ascii_lowercase()
            })
            .collect();
        let states = words.windows(2).any(|w| w == ["fiscal", "year"])
            && words
                .iter()
                .any(|w| matches!(w.as_str(), "starts" | "begins" | "start" | "begin"));
        // "starts in July", "begins in Jul": the month right after "in".
        let month = words.windows(2).find_map(|w| {
            let number = grammar::month(&w[1]).filter(|_| w[0] == "in")?;
            Month::ALL.get(number as usize - 1).copied()
        });
        // A sentence of its own, not the question.
        let own_sentence = sentence.trim_end().ends_with(['.', ';'])
            && words.len() <= 8
            && !sentence.contains('?');
        match month {
            Some(month) if states && own_sentence => {
                if ontology.fiscal_year_start != Some(month) {
                    let ours = match ontology.fiscal_year_start {
                        Some(start) => format!("starts in {}", start.title()),
                        None => "is the calendar year".to_owned(),
                    };
                    return Err(format!(
                        "the question says the fiscal year starts in {}, but this ontology's fiscal year {ours}",
                        month.title()
                    ));
                }
            }
            _ => kept.push(sentence),
        }
    }
    let rest = kept.concat().trim().to_owned();
    // Only the statement, with nothing asked: left as typed.
    Ok(if rest.is_empty() {
        question.to_owned()
    } else {
        rest
    })
}

/// "the fiscal year ending June 1997", "the fiscal year that ended in
/// June 1996": fiscal years are named by the year they end in, so this is
/// "fiscal 1997" where the ontology's fiscal years end in June, and a
/// question about a fiscal calendar the ontology does not keep otherwise.
pub(super) fn stated_end(ontology: &Ontology, question: &str) -> Result<String, String> {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase()
    };
    let Some(at) = tokens
        .windows(2)
        .position(|w| bare(w[0]) == "fiscal" && bare(w[1]) == "year")
    else {
        return Ok(question.to_owned());
    };
    let mut next = at + 2;
    if tokens.get(next).is_some_and(|t| bare(t) == "that") {
        next += 1;
    }
    if !tokens
        .get(next)
        .is_some_and(|t| matches!(bare(t).as_str(), "ending" | "ended" | "ends"))
    {
        return Ok(question.to_owned());
    }
    next += 1;
    if tokens
        .get(next)
        .is_some_and(|t| matches!(bare(t).as_str(), "in" | "on"))
    {
        next += 1;
    }
    let Some(month) = tokens.get(next).and_then(|t| grammar::month(&bare(t))) else {
        return Ok(question.to_owned());
    };
    next += 1;
    // "June 30, 1997": the day the year ends on, said too.
    if tokens
        .get(next)
        .is_some_and(|t| bare(t).parse::<u32>().is_ok_and(|d| (1..=31).contains(&d)))
    {
        next += 1;
    }
    let Some(year) = tokens
        .get(next)
        .map(|t| bare(t))
        .filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()))
    else {
        return Ok(question.to_owned());
    };
    let last = last_month(ontology.fiscal_start());
    if month != last.number() {
        let ours = match ontology.fiscal_year_start {
            Some(_) => format!("fiscal years end in {}", last.title()),
            None => "fiscal year is the calendar year".to_owned(),
        };
        return Err(format!(
            "the question asks for a fiscal year ending in {}, but this ontology's {ours}",
            Month::ALL[month as usize - 1].title(),
        ));
    }
    // What followed the year ("1997?") stays.
    let after = tokens[next].trim_start_matches(|c: char| c.is_alphanumeric());
    let mut out: Vec<String> = tokens[..at].iter().map(|t| (*t).to_owned()).collect();
    out.push("fiscal".to_owned());
    out.push(format!("{year}{after}"));
    out.extend(tokens[next + 1..].iter().map(|t| (*t).to_owned()));
    Ok(out.join(" "))
}

/// The question without its fiscal words, and whether it had any.
pub(super) fn read(question: &str) -> (String, bool) {
    let mut fiscal = false;
    let mut words: Vec<String> = Vec::new();
    let mut tokens = question.split_whitespace().peekable();
    while let Some(token) = tokens.next() {
        let bare = token
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        // "FY1996", "FY 1996", "by FY".
        if let Some(year) = bare.strip_prefix("fy")
            && (year.is_empty() || (year.len() == 4 && year.chars().all(|c| c.is_ascii_digit())))
        {
            fiscal = true;
            words.push(if year.is_empty() {
                let next_is_year = tokens.peek().is_some_and(|next| {
                    next.trim_matches(|c: char| !c.is_alphanumeric())
                        .chars()
                        .all(|c| c.is_ascii_digit())
                });
                if next_is_year {
                    String::new()
                } else {
                    token.to_ascii_lowercase().replace("fy", "year")
                }
            } else {
                token.to_ascii_lowercase().replace("fy", "")
            });
            continue;
        }
        // "fiscal 1996", "fiscal year 1996", "by fiscal year".
        if bare == "fiscal" {
            fiscal = true;
            continue;
        }
        words.push(token.to_owned());
    }
    let words: Vec<String> = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(|w| {
            if fiscal {
                spanned_year(&w).unwrap_or(w)
            } else {
                w
            }
        })
        .collect();
    (words.join(" "), fiscal)
}

/// "1996/97", "1996-97", "1996/1997": a fiscal year written as the two
/// calendar years it spans is the one it ends in, as fiscal years are named
/// here. "1996-1997" is a range of two fiscal years, and stays one.
fn spanned_year(word: &str) -> Option<String> {
    let bare = word.trim_end_matches(|c: char| !c.is_ascii_digit());
    let rest = &word[bare.len()..];
    let (first, second) = bare.split_once(['/', '-'])?;
    let first: i64 = first.parse().ok().filter(|_| first.len() == 4)?;
    let next = first + 1;
    let matches = match second.len() {
        2 => second.parse::<i64>().ok() == Some(next % 100),
        4 => bare.contains('/') && second.parse::<i64>().ok() == Some(next),
        _ => false,
    };
    matches.then(|| format!("{next}{rest}"))
}

/// `day` with its year replaced by the fiscal year it falls in (named by
/// the calendar year that year ends in), for reading "this fiscal year" or
/// "the last 2 fiscal years" against the clock.
pub(super) fn fiscal_day(ontology: &Ontology, day: Day) -> Day {
    let start = ontology.fiscal_start().number();
    let year = if start > 1 && day.month >= start {
        day.year + 1
    } else {
        day.year
    };
    Day { year, ..day }
}

/// The plan with its years of dates read as fiscal years, and the months
/// a fiscal year covers stated; a plan with no year of a date is as it was.
pub(super) fn fiscal_years(ontology: &Ontology, planned: Planned) -> Planned {
    let Planned::Plan(mut plan) = planned else {
        return planned;
    };
    let mut years = Vec::new();
    let changed = to_fiscal(ontology, &mut plan, &mut years);
    if changed {
        plan.assumptions.push(PlanAssumption::stated(assumption(
            ontology,
            years.first().copied(),
        )));
    }
    Planned::Plan(plan)
}

/// The month a fiscal year starting in `start` ends in: June for July.
fn last_month(start: Month) -> Month {
    Month::ALL[(start.number() as usize + 10) % 12]
}

/// "Fiscal years start in July: fiscal 1996 is July 1995 to June 1996".
pub(crate) fn assumption(ontology: &Ontology, year: Option<i64>) -> String {
    let Some(start) = ontology.fiscal_year_start.filter(|m| *m != Month::January) else {
        return "The ontology sets no fiscal year start, so a fiscal year is a calendar year"
            .to_owned();
    };
    let year = year.unwrap_or(2000);
    let end = last_month(start);
    format!(
        "Fiscal years start in {0}, each named by the year it ends in: fiscal {year} is {0} {1} to {2} {year}",
        start.title(),
        year - 1,
        end.title()
    )
}

/// Whether `reference` holds dates a fiscal year can be read of.
fn holds_dates(ontology: &Ontology, reference: &AttributeRef) -> bool {
    ontology
        .attribute(&reference.object, &reference.attribute)
        .is_some_and(|a| match a.data_type {
            DataType::Date | DataType::Timestamp => true,
            DataType::Text => a.role == AttributeRole::Time,
            _ => false,
        })
}

fn to_fiscal(ontology: &Ontology, plan: &mut SemanticPlan, years: &mut Vec<i64>) -> bool {
    let mut changed = false;
    for dimension in &mut plan.dimensions {
        if dimension.bucket == Some(Grain::Year) && holds_dates(ontology, dimension) {
            dimension.bucket = Some(Grain::FiscalYear);
            changed = true;
        }
    }
    changed |= filters_to_fiscal(ontology, &mut plan.filters, years);
    let mut restarts = false;
    for measure in &mut plan.measures {
        let running = measure_to_fiscal(ontology, measure, years);
        restarts |= running;
        changed |= running;
    }
    // "Each month's figure adds to the ones before it in the same year".
    if restarts {
        for assumption in &mut plan.assumptions {
            assumption.text = assumption
                .text
                .replace("the same year", "the same fiscal year");
        }
    }
    changed
}

fn measure_to_fiscal(ontology: &Ontology, measure: &mut Measure, years: &mut Vec<i64>) -> bool {
    // A running total to date of the calendar year, named in the ontology
    // ("revenue year to date"), runs over fiscal years instead.
    if let Measure::Metric {
        metric,
        variant: None,
    } = measure
        && let Some(found) = ontology.metrics.iter().find(|m| m.name == *metric)
        && found.is_cumulative()
        && found.to_date == Some(Grain::Year)
        && let Some(of) = &found.of
    {
        *measure = Measure::Cumulative {
            of: Box::new(Measure::Metric {
                metric: of.clone(),
                variant: None,
            }),
            to_date: Some(Grain::FiscalYear),
            window: None,
        };
        return true;
    }
    match measure {
        Measure::Cumulative { to_date, .. } if *to_date == Some(Grain::Year) => {
            *to_date = Some(Grain::FiscalYear);
            true
        }
        Measure::Share { only, .. } => filters_to_fiscal(ontology, only, years),
        Measure::Difference { from, minus, .. } => {
            let a = filters_to_fiscal(ontology, from, years);
            filters_to_fiscal(ontology, minus, years) || a
        }
        _ => false,
    }
}

fn filters_to_fiscal(ontology: &Ontology, filters: &mut [Filter], years: &mut Vec<i64>) -> bool {
    let mut changed = false;
    for filter in filters {
        let of_years = match &filter.condition {
            Condition::OneOf(list) => list.iter().all(is_year).then(|| list.clone()),
            Condition::Between(a, b) if is_year(a) && is_year(b) => {
                Some(vec![a.clone(), b.clone()])
            }
            Condition::AtLeast(y)
            | Condition::AtMost(y)
            | Condition::After(y)
            | Condition::Before(y)
                if is_year(y) =>
            {
                Some(vec![y.clone()])
            }
            _ => None,
        };
        let Some(list) = of_years else { continue };
        if filter.attribute.bucket.is_some() || !holds_dates(ontology, &filter.attribute) {
            continue;
        }
        filter.attribute.bucket = Some(Grain::FiscalYear);
        years.extend(list.iter().filter_map(|l| match l {
            Literal::Integer(y) => Some(*y),
            Literal::Text(_) => None,
        }));
        changed = true;
    }
    changed
}

fn is_year(literal: &Literal) -> bool {
    matches!(literal, Literal::Integer(y) if (1000..=9999).contains(y))
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::read;
    use crate::engine::compile::compile;
    use crate::engine::plan::{Condition, Literal, Measure};
    use crate::engine::planner::test_support::{planned, wholesale};
    use crate::ontology::Grain;
    use crate::project::Dialect;

    #[test]
    fn fiscal_years_are_read_and_their_months_stated() {
        for question in [
            "revenue in fiscal 1996",
            "revenue in FY1996",
            "What was revenue in FY 1996?",
        ] {
            let p = planned(question);
            let fiscal = p
                .filters
                .iter()
                .find(|f| f.attribute.bucket == Some(Grain::FiscalYear))
                .unwrap_or_else(|| panic!("{question}: {p:?}"));
            assert_eq!(
                fiscal.condition,
                Condition::OneOf(vec![Literal::Integer(1996)])
            );
            assert!(
                p.assumptions.iter().any(|a| a.text
                    == "Fiscal years start in July, each named by the year it ends in: fiscal 1996 is July 1995 to June 1996"),
                "{question}: {:?}",
                p.assumptions
            );
            let (ontology, _) = wholesale();
            let sql = compile(&ontology, &p, Dialect::Sqlite).unwrap().sql;
            assert!(
                sql.contains("o.o_orderdate >= '1995-07-01' AND o.o_orderdate < '1996-07-01'"),
                "{sql}"
            );
        }
        let by_year = planned("revenue by fiscal year");
        assert_eq!(
            by_year.dimensions[0].bucket,
            Some(Grain::FiscalYear),
            "{by_year:?}"
        );
        let to_date = planned("fiscal year to date revenue by month in fiscal 1996");
        assert!(
            matches!(
                &to_date.measures[0],
                Measure::Cumulative {
                    to_date: Some(Grain::FiscalYear),
                    ..
                }
            ),
            "{to_date:?}"
        );
        // Calendar years are as they were.
        let calendar = planned("revenue in 1996");
        assert!(
            calendar
                .filters
                .iter()
                .all(|f| f.attribute.bucket.is_none())
        );
        assert!(
            !calendar
                .assumptions
                .iter()
                .any(|a| a.text.contains("Fiscal"))
        );
    }

    #[test]
    fn fiscal_words_leave_the_question_as_for_calendar_years() {
        assert_eq!(
            read("revenue in fiscal 1996"),
            ("revenue in 1996".to_owned(), true)
        );
        assert_eq!(
            read("Revenue in FY1996?"),
            ("Revenue in 1996?".to_owned(), true)
        );
        assert_eq!(
            read("orders in FY 1997"),
            ("orders in 1997".to_owned(), true)
        );
        assert_eq!(
            read("revenue by fiscal year"),
            ("revenue by year".to_owned(), true)
        );
        assert_eq!(read("revenue by FY"), ("revenue by year".to_owned(), true));
        assert_eq!(
            read("revenue by year"),
            ("revenue by year".to_owned(), false)
        );
        assert_eq!(
            read("the fyodor case"),
            ("the fyodor case".to_owned(), false)
        );
    }
}
