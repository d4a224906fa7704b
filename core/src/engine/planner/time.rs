//! Time in a question: years, days and month ranges, the attribute each is
//! read against, and the conditions they become.

use crate::engine::grammar::Op;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, SemanticPlan};
use crate::ontology::{AttributeRole, DataType, Grain, Ontology};

/// Days from `first` to `last`, inclusive, as ISO dates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DateRange {
    pub(super) first: String,
    pub(super) last: String,
}

impl DateRange {
    pub(super) fn day(year: i64, month: u32, day: i64) -> Option<Self> {
        (day >= 1 && i64::from(days_in_month(year, month)) >= day).then(|| {
            let iso = format!("{year:04}-{month:02}-{day:02}");
            DateRange {
                first: iso.clone(),
                last: iso,
            }
        })
    }

    pub(super) fn months(year: i64, first: u32, last: u32) -> Self {
        DateRange {
            first: format!("{year:04}-{first:02}-01"),
            last: format!("{year:04}-{last:02}-{:02}", days_in_month(year, last)),
        }
    }
}

/// The filter a follow-up keeps for the value a chat's last answer led
/// with ("that driver", "that month"): the value itself, or a period of a
/// date grouped by year, quarter, month or day read as the days it spans,
/// since the grouped value is not a value of the date.
pub fn answered_filter(attribute: &AttributeRef, value: Literal) -> Option<Filter> {
    let Some(grain) = attribute.bucket else {
        return Some(Filter {
            attribute: attribute.clone(),
            condition: Condition::OneOf(vec![value]),
        });
    };
    let date = AttributeRef {
        bucket: None,
        ..attribute.clone()
    };
    let text = match &value {
        Literal::Text(text) => text.as_str(),
        _ => "",
    };
    let number = |s: &str| s.parse::<i64>().ok();
    let condition = match (grain, &value) {
        (Grain::Year, Literal::Integer(year)) => Condition::OneOf(vec![Literal::Integer(*year)]),
        (Grain::Month, _) => {
            let (year, month) = text.split_once('-')?;
            let (year, month) = (number(year)?, u32::try_from(number(month)?).ok()?);
            if !(1..=12).contains(&month) {
                return None;
            }
            let range = DateRange::months(year, month, month);
            Condition::Between(Literal::Text(range.first), Literal::Text(range.last))
        }
        (Grain::Quarter, _) => {
            let (year, quarter) = text.split_once("-Q")?;
            let (year, quarter) = (number(year)?, u32::try_from(number(quarter)?).ok()?);
            if !(1..=4).contains(&quarter) {
                return None;
            }
            let range = DateRange::months(year, quarter * 3 - 2, quarter * 3);
            Condition::Between(Literal::Text(range.first), Literal::Text(range.last))
        }
        (Grain::Day, _) if text.len() == 10 => Condition::Between(value.clone(), value.clone()),
        _ => return None,
    };
    Some(Filter {
        attribute: date,
        condition,
    })
}

pub(super) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The year to filter on: a year or season attribute of `anchor` or of an
/// object it looks up, else a date.
pub(super) fn year_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    year_attribute_reaching(ontology, anchor, false)
}

/// The year attribute in reach of `anchor`; with `through_many`, also on an
/// object with many rows per anchor row ("teams in 2025": the races they
/// raced), which only a question that lists or counts distinct values may
/// filter on without multiplying what it measures.
pub(super) fn year_attribute_reaching(
    ontology: &Ontology,
    anchor: &str,
    through_many: bool,
) -> Option<AttributeRef> {
    let mut candidates: Vec<(usize, u8, AttributeRef)> = Vec::new();
    let paths = graph::Paths::from(ontology, anchor);
    for object in &ontology.objects {
        let has_time = object
            .attributes
            .iter()
            .any(|a| a.role == AttributeRole::Time);
        let Some((distance, fans_out)) = has_time.then(|| paths.distance(&object.name)).flatten()
        else {
            continue;
        };
        if fans_out && !through_many {
            continue;
        }
        for attribute in &object.attributes {
            if attribute.role != AttributeRole::Time || is_birth_date(attribute) {
                continue;
            }
            let named_year = attribute.naming_words();
            let plain_date = is_plain_date(attribute);
            let rank = match attribute.data_type {
                DataType::Integer
                    if named_year.contains("year") || named_year.contains("season") =>
                {
                    0
                }
                DataType::Date | DataType::Timestamp if plain_date => 1,
                DataType::Date | DataType::Timestamp => 2,
                _ => continue,
            };
            candidates.push((
                distance,
                rank,
                AttributeRef::new(&object.name, &attribute.name),
            ));
        }
    }
    candidates.sort_by_key(|c| (c.1, c.0));
    candidates.into_iter().next().map(|c| c.2)
}

/// The date the ontology calls plain "date" is the one the business dates
/// things by ("orders in 1995" means the order date).
pub(super) fn is_plain_date(attribute: &crate::ontology::Attribute) -> bool {
    attribute.name == "date"
        || attribute.label.eq_ignore_ascii_case("date")
        || attribute
            .synonyms
            .iter()
            .any(|s| s.eq_ignore_ascii_case("date"))
}

/// The date a day or month filters on: a date of `anchor` or of an object
/// it looks up, the one called plain "date" first.
pub(super) fn day_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    let paths = graph::Paths::from(ontology, anchor);
    let mut candidates: Vec<(u8, usize, AttributeRef)> = Vec::new();
    for object in &ontology.objects {
        let Some((distance, false)) = paths.distance(&object.name) else {
            continue;
        };
        for attribute in &object.attributes {
            if attribute.role != AttributeRole::Time
                || !matches!(attribute.data_type, DataType::Date | DataType::Timestamp)
            {
                continue;
            }
            candidates.push((
                u8::from(!is_plain_date(attribute)),
                distance,
                AttributeRef::new(&object.name, &attribute.name),
            ));
        }
    }
    candidates.sort_by_key(|c| (c.0, c.1));
    candidates.into_iter().next().map(|c| c.2)
}

pub(super) fn date_condition(dates: &[(Op, DateRange)]) -> Condition {
    let text = |s: &str| Literal::Text(s.to_owned());
    match dates {
        [(Op::Since, d)] => Condition::AtLeast(text(&d.first)),
        [(Op::After, d)] => Condition::After(text(&d.last)),
        [(Op::Before, d)] => Condition::Before(text(&d.first)),
        [(Op::Until | Op::To, d)] => Condition::AtMost(text(&d.last)),
        [
            (Op::Between | Op::From | Op::Since, a),
            (Op::And | Op::To | Op::Until, b),
        ] => Condition::Between(text(&a.first), text(&b.last)),
        [(_, d)] if d.first == d.last => Condition::OneOf(vec![text(&d.first)]),
        [(_, d), ..] => Condition::Between(text(&d.first), text(&d.last)),
        [] => Condition::OneOf(Vec::new()),
    }
}

/// A date attribute grouped by year; a year attribute as it is.
pub(super) fn by_year_if_date(ontology: &Ontology, attribute: AttributeRef) -> AttributeRef {
    let is_date = ontology
        .attribute(&attribute.object, &attribute.attribute)
        .is_some_and(|a| matches!(a.data_type, DataType::Date | DataType::Timestamp));
    if is_date {
        attribute.by_year()
    } else {
        attribute
    }
}

/// A time attribute that holds days, not a year number.
pub(super) fn is_dated(attribute: &crate::ontology::Attribute) -> bool {
    attribute.role == AttributeRole::Time
        && matches!(attribute.data_type, DataType::Date | DataType::Timestamp)
}

/// Whether `reference` names a time of the rows (a race's year, an order's
/// date), not a birth date.
pub(super) fn names_row_time(ontology: &Ontology, reference: &AttributeRef) -> bool {
    ontology
        .attribute(&reference.object, &reference.attribute)
        .is_some_and(|a| a.role == AttributeRole::Time && !is_birth_date(a))
}

/// Whether `reference` names a dated time attribute.
pub(super) fn names_date(ontology: &Ontology, reference: &AttributeRef) -> bool {
    ontology
        .attribute(&reference.object, &reference.attribute)
        .is_some_and(is_dated)
}

/// "Revenue by quarter", "weekly orders", "daily revenue in March 1996":
/// the date a time filter already reads, else the date of what is
/// measured, grouped at `grain` in place of any other reading of it.
pub(super) fn group_by_grain(
    ontology: &Ontology,
    plan: &mut SemanticPlan,
    grain: Grain,
    base: Option<&str>,
) {
    let filtered = plan
        .filters
        .iter()
        .map(|f| &f.attribute)
        .find(|a| a.bucket.is_none() && names_date(ontology, a))
        .cloned();
    let Some(time) = filtered.or_else(|| base.and_then(|b| day_attribute(ontology, b))) else {
        return;
    };
    plan.dimensions
        .retain(|d| !(d.object == time.object && d.attribute == time.attribute));
    let grouped = time.by(grain);
    if !plan.dimensions.contains(&grouped) {
        plan.dimensions.push(grouped);
    }
}

/// The date "when" asks for.
pub(super) fn date_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    let object = ontology.objects.iter().find(|o| o.name == anchor)?;
    object
        .attributes
        .iter()
        .find(|a| is_dated(a))
        .map(|a| AttributeRef::new(&object.name, &a.name))
}

pub(super) fn year_condition(years: &[(Op, i64)]) -> Condition {
    let year = |y: i64| Literal::Integer(y);
    // "the 2010s (2010-2019)": a range said twice is one range.
    let years = match years {
        [(_, a), (_, b), (_, c), (_, d)] if (a, b) == (c, d) => {
            let first = year_condition(&years[..2]);
            let second = year_condition(&years[2..]);
            return match (&first, &second) {
                (Condition::Between(..), _) => first,
                _ => second,
            };
        }
        years => years,
    };
    match years {
        [(Op::Since, y)] => Condition::AtLeast(year(*y)),
        [(Op::After, y)] => Condition::After(year(*y)),
        [(Op::Before, y)] => Condition::Before(year(*y)),
        [(Op::Until, y)] | [(Op::To, y)] => Condition::AtMost(year(*y)),
        [
            (Op::Between | Op::From | Op::Since, a),
            (Op::And | Op::To | Op::Until, b),
        ]
        | [(_, a), (Op::To | Op::Until, b)] => Condition::Between(year(*a.min(b)), year(*a.max(b))),
        _ => {
            let mut list: Vec<i64> = years.iter().map(|(_, y)| *y).collect();
            list.sort();
            list.dedup();
            Condition::OneOf(list.into_iter().map(year).collect())
        }
    }
}

/// A date of birth: a year filters on it only where the question names it
/// ("born in 1980"), never as the default date of a person ("drivers in
/// 2023" are the ones who raced then, not the ones born then).
pub(super) fn is_birth_date(attribute: &crate::ontology::Attribute) -> bool {
    let words = attribute.naming_words();
    words.contains("birth") || words.contains("born") || words.split([' ', '_']).any(|w| w == "dob")
}

/// "and the year after?", "what about the previous year?": the year next
/// to the one year the chat's last answer was about, written out.
pub(super) fn year_beside<'q>(
    ontology: &Ontology,
    question: &'q str,
    previous: Option<&SemanticPlan>,
) -> std::borrow::Cow<'q, str> {
    const PHRASES: &[(&str, i64)] = &[
        ("the year after", 1),
        ("the following year", 1),
        ("the next year", 1),
        ("the year later", 1),
        ("a year later", 1),
        ("one year later", 1),
        ("the season after", 1),
        ("the following season", 1),
        ("the next season", 1),
        ("the year before", -1),
        ("the previous year", -1),
        ("the prior year", -1),
        ("the preceding year", -1),
        ("a year earlier", -1),
        ("one year earlier", -1),
        ("the season before", -1),
        ("the previous season", -1),
        ("the fiscal year after", 1),
        ("the following fiscal year", 1),
        ("the next fiscal year", 1),
        ("the fiscal year before", -1),
        ("the previous fiscal year", -1),
        ("the prior fiscal year", -1),
        ("the preceding fiscal year", -1),
    ];
    let lower = question.to_lowercase();
    let Some((at, phrase, step)) = PHRASES
        .iter()
        .find_map(|(phrase, step)| lower.find(phrase).map(|at| (at, *phrase, *step)))
    else {
        return question.into();
    };
    // "growth compared with the year before" compares each year with its
    // own; only a year said alone moves the chat's year.
    let before: Vec<&str> = lower[..at].split_whitespace().collect();
    let compares = before.last().is_some_and(|w| {
        matches!(
            *w,
            "to" | "with" | "from" | "over" | "than" | "vs" | "versus" | "against" | "on"
        )
    });
    if compares || lower.len() != question.len() {
        return question.into();
    }
    let Some(year) = previous.and_then(|p| one_year(ontology, p)) else {
        return question.into();
    };
    let in_ = if before.last() == Some(&"in") {
        ""
    } else {
        "in "
    };
    // "the fiscal year before": fiscal again, which the fiscal reading
    // takes out after.
    let fiscal = if phrase.contains("fiscal") {
        "fiscal "
    } else {
        ""
    };
    let mut out = question.to_owned();
    out.replace_range(
        at..at + phrase.len(),
        &format!("{in_}{fiscal}{}", year + step),
    );
    out.into()
}

/// The one year a plan is about: "in 2016", on a year or on a date.
fn one_year(ontology: &Ontology, plan: &SemanticPlan) -> Option<i64> {
    let mut years = plan.filters.iter().filter_map(|f| {
        let Condition::OneOf(list) = &f.condition else {
            return None;
        };
        let [Literal::Integer(year)] = list.as_slice() else {
            return None;
        };
        let timely = f.attribute.bucket.is_some()
            || ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| a.role == AttributeRole::Time || a.name.contains("year"));
        (timely && (1900..=2100).contains(year)).then_some(*year)
    });
    let year = years.next()?;
    years.all(|y| y == year).then_some(year)
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::compile;
    use crate::engine::plan::AttributeRef;
    use crate::engine::planner::test_support::{planned, wholesale};
    use crate::engine::planner::{Planned, plan};
    use crate::ontology::Grain;
    use crate::project::Dialect;

    fn order_date(grain: Grain) -> AttributeRef {
        AttributeRef::new("order", "order_date").by(grain)
    }

    #[test]
    fn grouping_words_name_the_grain() {
        for (question, grain) in [
            ("revenue by quarter in 1996", Grain::Quarter),
            ("quarterly revenue in 1996", Grain::Quarter),
            ("number of orders per week in 1995", Grain::Week),
            ("weekly orders in 1995", Grain::Week),
            ("daily revenue in March 1996", Grain::Day),
            ("orders by day in 1996", Grain::Day),
            ("revenue for each quarter", Grain::Quarter),
        ] {
            let plan = planned(question);
            assert_eq!(plan.dimensions, [order_date(grain)], "{question}");
        }
    }

    #[test]
    fn a_grain_replaces_the_date_it_reads_and_keeps_other_groupings() {
        for question in [
            "revenue by market segment and quarter in 1996",
            "revenue by quarter and market segment in 1996",
        ] {
            let plan = planned(question);
            assert!(
                plan.dimensions.contains(&order_date(Grain::Quarter)),
                "{question}: {plan:?}"
            );
            assert_eq!(plan.dimensions.len(), 2, "{question}: {plan:?}");
        }
    }

    #[test]
    fn a_follow_up_changes_the_grain() {
        let (ontology, lexicon) = wholesale();
        let first = planned("revenue by month in 1996");
        let Planned::Plan(next) = plan(&ontology, &lexicon, "and by quarter?", Some(&first), None)
        else {
            panic!("the follow-up is answered")
        };
        assert_eq!(next.dimensions, [order_date(Grain::Quarter)], "{next:?}");
        assert_eq!(next.filters, first.filters);
    }

    #[test]
    fn quarterly_revenue_compiles_per_quarter() {
        let (ontology, _) = wholesale();
        let plan = planned("quarterly revenue in 1996");
        let sql = compile(&ontology, &plan, Dialect::Sqlite).unwrap().sql;
        assert!(sql.contains("AS order_date_quarter"), "{sql}");
        assert!(sql.ends_with("ORDER BY order_date_quarter ASC"), "{sql}");
    }
}
