//! The answer in words: the result with its numbers, then the assumptions it
//! rests on. Numbers are formatted here and only here.

use crate::engine::compile::display_attribute;
use crate::engine::lexicon::code_meanings;
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan};
use crate::engine::planner::{attribute_label, measure_label, plural};
use crate::engine::response::ResultSet;
use crate::ontology::{Aggregate, AttributeRole, Metric, MetricFormat, Ontology};
use serde_json::Value as Json;

mod periods;
mod within;

/// Rows named in a list before "…".
const LISTED: usize = 5;

/// 2458 as "2,458", 12.345 as "12.35", text as is.
pub fn format_value(value: &Json) -> String {
    match value {
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => group_thousands(i),
            (None, Some(x)) => {
                let rounded = format!("{x:.2}");
                let (whole, fraction) = rounded.split_once('.').unwrap_or((&rounded, ""));
                let whole = whole
                    .parse::<i64>()
                    .map_or(whole.to_owned(), group_thousands);
                let fraction = fraction.trim_end_matches('0');
                if fraction.is_empty() {
                    whole
                } else {
                    format!("{whole}.{fraction}")
                }
            }
            _ => n.to_string(),
        },
        Json::String(s) => s.clone(),
        Json::Null => "none".to_owned(),
        other => other.to_string(),
    }
}

/// A value that names a group (a year, a round, a name): no thousands separator.
fn format_key(value: &Json) -> String {
    match value {
        Json::Number(n) if n.is_i64() => n.to_string(),
        other => format_value(other),
    }
}

fn group_thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// "in 2023", "for Ferrari", "since 2015 for British drivers".
pub fn filter_phrase(ontology: &Ontology, plan: &SemanticPlan) -> String {
    // A share's own filters say whose part it is ("for Max Verstappen").
    let part_only = plan.measures.iter().flat_map(|m| match m {
        Measure::Share { only, .. } => only.as_slice(),
        _ => &[],
    });
    let filters: Vec<&Filter> = plan.filters.iter().chain(part_only).collect();
    let mut phrase = filters_phrase(ontology, &filters);
    // "with more than 50 wins".
    for threshold in &plan.having {
        let Some(measure) = plan.measures.get(threshold.measure) else {
            continue;
        };
        // "both Ferrari and McLaren" (`OneOf`): the filters already say so.
        let Some((how, value)) = threshold.condition.bound_words() else {
            continue;
        };
        let label = measure_label(ontology, measure).to_lowercase();
        // "more than 50 drivers", not "more than 50 number of drivers".
        let label = label.strip_prefix("number of ").unwrap_or(&label);
        let gap = if phrase.is_empty() { "" } else { " " };
        phrase.push_str(&format!("{gap}with {how} {value} {label}"));
    }
    phrase
}

/// The words for some filters, in order.
pub(crate) fn filters_phrase(ontology: &Ontology, filters: &[&Filter]) -> String {
    let mut parts = Vec::new();
    for filter in filters {
        let is_year = |v: &Literal| matches!(v, Literal::Integer(n) if (1900..=2100).contains(n));
        let is_time = |f: &Filter| {
            ontology
                .attribute(&f.attribute.object, &f.attribute.attribute)
                .is_some_and(|a| a.role == crate::ontology::AttributeRole::Time)
        };
        // "O (open)": a code with the meaning its description gives it.
        let attribute = ontology.attribute(&filter.attribute.object, &filter.attribute.attribute);
        let meanings = attribute
            .map(|a| code_meanings(&a.description, &a.known_values))
            .unwrap_or_default();
        let list = |values: &[Literal]| {
            let names: Vec<String> = values
                .iter()
                .map(|value| {
                    let value = value.to_string();
                    match meanings.iter().find(|(code, _)| *code == value) {
                        Some((_, meaning)) => format!("{value} ({meaning})"),
                        None => value,
                    }
                })
                .collect();
            join_and(&names)
        };
        let phrase = match &filter.condition {
            // "(urgent orders only)", "(excluding urgent orders)".
            Condition::Named | Condition::NotNamed => {
                let title = ontology
                    .named_filter(&filter.attribute.object, &filter.attribute.attribute)
                    .map_or_else(
                        || filter.attribute.attribute.replace('_', " "),
                        |f| f.title(),
                    )
                    .to_lowercase();
                if filter.condition == Condition::Named {
                    format!("({title} only)")
                } else {
                    format!("(excluding {title})")
                }
            }
            Condition::OneOf(values)
                if filter.attribute.bucket == Some(crate::ontology::Grain::FiscalYear) =>
            {
                format!("in fiscal {}", list(values))
            }
            Condition::OneOf(values)
                if filter.attribute.bucket == Some(crate::ontology::Grain::MonthOfYear) =>
            {
                let months: Vec<Literal> = values
                    .iter()
                    .map(|v| match v {
                        Literal::Integer(m) => Literal::Text(month_name(*m).to_owned()),
                        other => other.clone(),
                    })
                    .collect();
                format!("in {}", list(&months))
            }
            Condition::OneOf(values) if values.iter().all(is_year) => {
                format!("in {}", list(values))
            }
            Condition::OneOf(values) => {
                let names_rows = ontology
                    .objects
                    .iter()
                    .find(|o| o.name == filter.attribute.object)
                    .and_then(display_attribute)
                    == Some(filter.attribute.attribute.as_str());
                if names_rows {
                    format!("for {}", list(values))
                } else {
                    format!(
                        "with {} {}",
                        attribute_label(ontology, &filter.attribute).to_lowercase(),
                        list(values)
                    )
                }
            }
            // "for the winner of the 2012 Monaco Grand Prix".
            // "with the same nationality as Kimi Räikkönen".
            Condition::Leader { said, .. } if said.starts_with("the same ") => {
                format!("with {said}")
            }
            Condition::Leader { said, .. } => format!("for {said}"),
            // "for teammates of Lewis Hamilton".
            Condition::PeerOf { of } => {
                // "teammates of Verstappen": a surname names him as well.
                let whose = match of.as_slice() {
                    [
                        f @ Filter {
                            condition: Condition::OneOf(values),
                            ..
                        },
                    ] if crate::engine::planner::is_a_name(ontology, &f.attribute) => list(values),
                    _ => filters_phrase(ontology, &of.iter().collect::<Vec<_>>()),
                };
                let whose = whose.strip_prefix("for ").unwrap_or(&whose);
                format!(
                    "for {} of {whose}",
                    plural(&filter.attribute.attribute.replace('_', " "))
                )
            }
            Condition::NoneOf(values) => format!(
                "excluding {} {}",
                attribute_label(ontology, &filter.attribute).to_lowercase(),
                list(values)
            ),
            Condition::Extreme { latest, .. } => {
                let dated = ontology
                    .attribute(&filter.attribute.object, &filter.attribute.attribute)
                    .is_none_or(|a| a.role == AttributeRole::Time || !a.data_type.is_numeric());
                let which = match (dated, *latest) {
                    (true, true) => "latest",
                    (true, false) => "earliest",
                    (false, true) => "highest",
                    (false, false) => "lowest",
                };
                format!(
                    "at the {which} {}",
                    attribute_label(ontology, &filter.attribute).to_lowercase()
                )
            }
            Condition::NotAmong { metric, within } => {
                // "with no wins for Red Bull": what the excluded rows were,
                // beyond the conditions the things themselves meet.
                let own: Vec<&Filter> = within.iter().filter(|f| !filters.contains(f)).collect();
                let scope = filters_phrase(ontology, &own);
                let label = measure_label(
                    ontology,
                    &Measure::Metric {
                        metric: metric.clone(),
                        variant: None,
                    },
                )
                .to_lowercase();
                // "Constructors with no wins ever in 2023": the things are
                // of 2023, what they never did is of any time.
                let ever = filters.iter().any(|f| is_time(f) && !within.contains(f));
                if scope.is_empty() && ever {
                    format!("with no {label} ever")
                } else if scope.is_empty() {
                    format!("with no {label}")
                } else {
                    format!("with no {label} {scope}")
                }
            }
            Condition::AtLeast(v) if is_time(filter) || is_year(v) => format!("since {v}"),
            Condition::AtLeast(v) => {
                format!(
                    "with {} at least {v}",
                    attribute_label(ontology, &filter.attribute).to_lowercase()
                )
            }
            Condition::After(v) | Condition::Before(v) if !is_time(filter) => {
                format!(
                    "with {} {} {v}",
                    attribute_label(ontology, &filter.attribute).to_lowercase(),
                    if matches!(filter.condition, Condition::After(_)) {
                        "above"
                    } else {
                        "below"
                    }
                )
            }
            Condition::After(v) => format!("after {v}"),
            Condition::Before(v) => format!("before {v}"),
            Condition::AtMost(v) if is_year(v) => format!("up to {v}"),
            Condition::AtMost(v) => {
                format!(
                    "with {} at most {v}",
                    attribute_label(ontology, &filter.attribute).to_lowercase()
                )
            }
            Condition::Between(a, b) => format!("from {a} to {b}"),
            Condition::Missing => format!(
                "with no {}",
                attribute_label(ontology, &filter.attribute).to_lowercase()
            ),
            Condition::Present => format!(
                "with a recorded {}",
                attribute_label(ontology, &filter.attribute).to_lowercase()
            ),
            Condition::AboveAttribute(other) | Condition::BelowAttribute(other) => {
                let above = matches!(filter.condition, Condition::AboveAttribute(_));
                let word = match (is_time(filter), above) {
                    (true, true) => "after",
                    (true, false) => "before",
                    (false, true) => "above",
                    (false, false) => "below",
                };
                format!(
                    "with {} {word} {}",
                    attribute_label(ontology, &filter.attribute).to_lowercase(),
                    attribute_label(ontology, other).to_lowercase()
                )
            }
            Condition::AboveAverage
            | Condition::BelowAverage
            | Condition::AboveAverageOfAll
            | Condition::BelowAverageOfAll => format!(
                "with {} {} the average{}",
                attribute_label(ontology, &filter.attribute).to_lowercase(),
                if matches!(
                    filter.condition,
                    Condition::AboveAverage | Condition::AboveAverageOfAll
                ) {
                    "above"
                } else {
                    "below"
                },
                if matches!(
                    filter.condition,
                    Condition::AboveAverageOfAll | Condition::BelowAverageOfAll
                ) {
                    " of all"
                } else {
                    ""
                }
            ),
        };
        parts.push(phrase);
    }
    parts.join(" ")
}

/// A measure that counts rows or things, rather than adding up an amount.
fn counts_rows(ontology: &Ontology, measure: &Measure) -> bool {
    match measure {
        Measure::CountOf { .. } | Measure::DistinctOf { .. } => true,
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .is_some_and(|m| matches!(m.aggregate, Aggregate::Count | Aggregate::CountDistinct)),
        Measure::Aggregate { aggregate, .. } => {
            matches!(aggregate, Aggregate::Count | Aggregate::CountDistinct)
        }
        Measure::CountPassing { .. } => true,
        Measure::AveragePer { .. }
        | Measure::Share { .. }
        | Measure::Difference { .. }
        | Measure::Growth { .. }
        | Measure::Cumulative { .. } => false,
    }
}

/// The ontology's metric a measure names, if it names one.
fn metric_of<'o>(ontology: &'o Ontology, measure: &Measure) -> Option<&'o Metric> {
    match measure {
        Measure::Metric { metric, .. } => ontology.metrics.iter().find(|m| m.name == *metric),
        _ => None,
    }
}

fn is_ratio(ontology: &Ontology, measure: &Measure) -> bool {
    metric_of(ontology, measure).is_some_and(Metric::is_ratio)
}

fn in_percent(ontology: &Ontology, measure: &Measure) -> bool {
    metric_of(ontology, measure).is_some_and(Metric::in_percent)
}

/// An average: "the highest average discount", not "the most".
fn is_average(ontology: &Ontology, measure: &Measure) -> bool {
    match measure {
        Measure::Aggregate { aggregate, .. } => *aggregate == Aggregate::Avg,
        Measure::AveragePer { .. } => true,
        _ => metric_of(ontology, measure).is_some_and(|m| m.aggregate == Aggregate::Avg),
    }
}

/// A metric kept as a fraction but shown in percent ("average discount":
/// 0.0503 is 5.03%).
fn is_fraction(ontology: &Ontology, measure: &Measure) -> bool {
    metric_of(ontology, measure)
        .is_some_and(|m| m.format == Some(MetricFormat::Percent) && !m.is_ratio())
}

/// A row's values of its `dims` dimensions, as an answer names the row:
/// "GERMANY, 1995".
fn row_key(row: &[Json], dims: usize) -> String {
    row[..dims.min(row.len())]
        .iter()
        .map(format_key)
        .collect::<Vec<_>>()
        .join(", ")
}

/// ", … (1,234 in all)" after the `listed` first rows, when the result has
/// more.
fn more_than(listed: usize, results: &ResultSet) -> String {
    if results.total_rows as usize > listed {
        format!(
            ", … ({} in all)",
            group_thousands(results.total_rows as i64)
        )
    } else {
        String::new()
    }
}

/// How many rows lead level with the first: rows that share the top are
/// said to tie, never that one of them wins.
fn level_with_first(rows: &[Vec<Json>], value_of: impl Fn(&Vec<Json>) -> String) -> usize {
    rows.iter()
        .take_while(|row| value_of(row) == value_of(&rows[0]))
        .count()
}

/// "A, B and C", or "A, …, E and 2 more": the rows tied at the top.
fn tied_names(rows: &[Vec<Json>], tied: usize, key_of: impl Fn(&Vec<Json>) -> String) -> String {
    let names: Vec<String> = rows.iter().take(tied.min(LISTED)).map(key_of).collect();
    let more = if tied > LISTED {
        format!(" and {} more", tied - LISTED)
    } else {
        String::new()
    };
    format!("{}{more}", join_and(&names))
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn with_space(phrase: &str) -> String {
    if phrase.is_empty() {
        String::new()
    } else {
        format!(" {phrase}")
    }
}

/// The sentence(s) that answer the question from `results`.
pub fn answer_text(ontology: &Ontology, plan: &SemanticPlan, results: &ResultSet) -> String {
    let filters = with_space(&filter_phrase(ontology, plan));
    let rows = &results.rows;
    let mut text = if let [Measure::Share { part, whole, only }] = plan.measures.as_slice()
        && let [row] = rows.as_slice()
        && let [value] = row.as_slice()
    {
        share_text(ontology, plan, (part, whole, only), value)
    } else if let [Measure::Difference { of, from, minus }] = plan.measures.as_slice()
        && let [row] = rows.as_slice()
        && let [value] = row.as_slice()
    {
        difference_text(ontology, of, (from, minus), value, &filters)
    } else if rows.is_empty() {
        format!("Nothing matched{filters}: the query ran and returned no rows.")
    } else if let Some(text) = periods::growth_text(ontology, plan, results, &filters) {
        text
    } else if let Some(text) = periods::running_text(ontology, plan, results, &filters) {
        text
    } else if let Some(text) = within::within_text(ontology, plan, results, &filters) {
        text
    } else if let Some(text) = ranked_lookup_text(ontology, plan, results) {
        text
    } else if plan.measures.is_empty() {
        lookup_text(ontology, plan, results, &filters)
    } else {
        measure_text(ontology, plan, results, &filters)
    };
    for assumption in &plan.assumptions {
        text.push(' ');
        text.push_str(&sentence(&assumption.text));
    }
    text
}

/// "Races: 5 more in 2024 than in 2014"; a negative difference is said as
/// fewer (things counted) or less (an amount).
fn difference_text(
    ontology: &Ontology,
    of: &Measure,
    (from, minus): (&[Filter], &[Filter]),
    value: &Json,
    filters: &str,
) -> String {
    let phrase = |filters: &[Filter]| {
        with_space(&filters_phrase(
            ontology,
            &filters.iter().collect::<Vec<_>>(),
        ))
    };
    let label = measure_label(ontology, of);
    let negative = value.as_f64().is_some_and(|x| x < 0.0);
    let size = match value {
        Json::Number(n) if negative => match n.as_i64() {
            Some(i) => format_value(&Json::from(-i)),
            None => format_value(&Json::from(-n.as_f64().unwrap_or_default())),
        },
        other => format_value(other),
    };
    let word = match (negative, counts_rows(ontology, of)) {
        (false, _) => "more",
        (true, true) => "fewer",
        (true, false) => "less",
    };
    format!(
        "{label}{filters}: {size} {word}{} than{}.",
        phrase(from),
        phrase(minus)
    )
}

/// "Orders with priority 1-URGENT as a percentage of orders: 20.13%": the
/// part's own conditions with the part, the shared ones with the whole.
fn share_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    (part, whole, only): (&Measure, &Measure, &[Filter]),
    value: &Json,
) -> String {
    let phrase = |filters: &[Filter]| {
        with_space(&filters_phrase(
            ontology,
            &filters.iter().collect::<Vec<_>>(),
        ))
    };
    let figure = match value {
        Json::Null => "none (the whole is empty)".to_owned(),
        value => format!("{}%", format_value(value)),
    };
    format!(
        "{}{} as a percentage of {}{}: {figure}.",
        measure_label(ontology, part),
        phrase(only),
        measure_label(ontology, whole).to_lowercase(),
        phrase(&plan.filters),
    )
}

/// The answer to SQL a model wrote, which has no plan to word it by: what
/// the query computes, then its result; rows as "first (rest, …)".
pub fn written_sql_text(explanation: &str, results: &ResultSet) -> String {
    let what = if explanation.trim().is_empty() {
        String::new()
    } else {
        format!("{} ", sentence(explanation.trim()))
    };
    let row_text = |row: &[Json]| match row {
        [] => String::new(),
        [one] => format_value(one),
        [key, rest @ ..] => format!(
            "{} ({})",
            format_key(key),
            rest.iter().map(format_value).collect::<Vec<_>>().join(", ")
        ),
    };
    let found = match results.rows.as_slice() {
        [] => "The query ran and returned no rows.".to_owned(),
        [row] if row.len() == 1 => format!("The result is {}.", format_value(&row[0])),
        [row] => format!("The result is {}.", row_text(row)),
        rows => {
            let listed: Vec<String> = rows.iter().take(LISTED).map(|r| row_text(r)).collect();
            let more = if results.total_rows > listed.len() as u64 {
                format!(
                    ", … ({} rows in all)",
                    group_thousands(results.total_rows as i64)
                )
            } else {
                String::new()
            };
            format!("The query returned {}{more}.", listed.join(", "))
        }
    };
    format!("{what}{found}")
}

fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let first = chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>())
        .unwrap_or_default();
    let body = format!("{first}{}", chars.as_str());
    if body.ends_with('.') {
        body
    } else {
        format!("{body}.")
    }
}

/// "Which circuit sits at the highest altitude": things ranked by a number
/// of their own lead with the first, "Autódromo Hermanos Rodríguez has the
/// highest altitude: 2,227, ahead of …"; rows level with it are said to
/// tie, never that one of them wins.
fn ranked_lookup_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
) -> Option<String> {
    let Some(Order::Dimension { index, descending }) = plan.order else {
        return None;
    };
    let by = plan.dimensions.get(index)?;
    let amount = ontology
        .attribute(&by.object, &by.attribute)
        .is_some_and(|a| a.role == AttributeRole::Measure && a.data_type.is_numeric());
    // "Which circuit sits at the highest altitude" keeps only the rows at
    // the extreme: one of them is still said to have it.
    let at_extreme = plan
        .filters
        .iter()
        .any(|f| f.attribute == *by && matches!(f.condition, Condition::Extreme { .. }));
    if !plan.measures.is_empty()
        || plan.dimensions.len() < 2
        || !amount
        || results.rows.is_empty()
        || (results.rows.len() < 2 && !at_extreme)
    {
        return None;
    }
    // That the ranked number is recorded, and is the extreme, goes without
    // saying.
    let mut said = plan.clone();
    said.filters.retain(|f| {
        !(f.attribute == *by
            && matches!(f.condition, Condition::Present | Condition::Extreme { .. }))
    });
    let filters = &with_space(&filter_phrase(ontology, &said));
    let value_of = |row: &Vec<Json>| row.get(index).map(format_value).unwrap_or_default();
    let key_of = |row: &Vec<Json>| {
        row.iter()
            .enumerate()
            .filter(|(i, _)| *i != index)
            .map(|(_, cell)| format_key(cell))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows = &results.rows;
    let most = if descending {
        "the highest"
    } else {
        "the lowest"
    };
    let what = attribute_label(ontology, by).to_lowercase();
    let tied = level_with_first(rows, value_of);
    let next: Vec<String> = rows
        .iter()
        .skip(tied)
        .take(if tied > 1 { 2 } else { LISTED - 1 })
        .map(|row| format!("{} ({})", key_of(row), value_of(row)))
        .collect();
    let after = match (next.is_empty(), tied > 1 || !descending) {
        (true, _) => String::new(),
        (false, true) => format!(", then {}", join_and(&next)),
        (false, false) => format!(", ahead of {}", join_and(&next)),
    };
    let all = if results.total_rows as usize > tied + next.len() {
        format!(" ({} in all)", group_thousands(results.total_rows as i64))
    } else {
        String::new()
    };
    Some(if tied > 1 {
        format!(
            "{} tie for {most} {what}{filters} at {}{after}{all}.",
            tied_names(rows, tied, key_of),
            value_of(&rows[0])
        )
    } else {
        format!(
            "{} has {most} {what}{filters}: {}{after}{all}.",
            key_of(&rows[0]),
            value_of(&rows[0])
        )
    })
}

fn lookup_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
    filters: &str,
) -> String {
    // "Market segment and nation for Customer#000000042: BUILDING, ETHIOPIA".
    // The rows show the customer's name too, so a reader of the table sees
    // whose they are; the sentence has already said it.
    // A year on a date ("races in 2022 with their dates") leaves each day
    // to say.
    let year_on_date = |d: &AttributeRef| {
        plan.filters.iter().any(|f| {
            f.attribute == *d
                && f.is_one_number()
                && ontology
                    .attribute(&d.object, &d.attribute)
                    .is_some_and(|a| a.role == AttributeRole::Time && d.bucket.is_none())
        })
    };
    let echoed: Vec<bool> = plan
        .dimensions
        .iter()
        .map(|d| plan.fixes(d) && !year_on_date(d))
        .collect();
    let all_echoed = echoed.iter().all(|e| *e);
    let said_column = |i: usize| all_echoed || !echoed.get(i).copied().unwrap_or(false);
    let said: Vec<AttributeRef> = plan
        .dimensions
        .iter()
        .enumerate()
        .filter(|(i, _)| said_column(*i))
        .map(|(_, d)| d.clone())
        .collect();
    let label = match said.as_slice() {
        [] => results.columns.first().cloned().unwrap_or_default(),
        [first, rest @ ..] if rest.len() == 1 && results.rows.len() == 1 => format!(
            "{} and {}",
            attribute_label(ontology, first),
            attribute_label(ontology, &rest[0]).to_lowercase()
        ),
        [first, ..] => attribute_label(ontology, first),
    };
    // A year, a round or an id shown is a name, "2018" not "2,018"; only
    // an amount gets thousands separators.
    let amount: Vec<bool> = plan
        .dimensions
        .iter()
        .map(|d| {
            ontology
                .attribute(&d.object, &d.attribute)
                .is_some_and(|a| a.role == AttributeRole::Measure)
        })
        .collect();
    let values: Vec<String> = results
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .filter(|(i, _)| said_column(*i))
                .map(|(i, cell)| {
                    if amount.get(i).copied().unwrap_or(true) {
                        format_value(cell)
                    } else {
                        format_key(cell)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    if values.len() == 1 {
        return format!("{label}{filters}: {}.", values[0]);
    }
    let shown: Vec<String> = values.iter().take(LISTED * 2).cloned().collect();
    let more = more_than(shown.len(), results);
    format!("{}{filters}: {}{more}.", plural(&label), shown.join("; "))
}

fn measure_text(
    ontology: &Ontology,
    plan: &SemanticPlan,
    results: &ResultSet,
    filters: &str,
) -> String {
    let label = measure_label(ontology, &plan.measures[0]);
    let dims = plan.dimensions.len();
    let rows = &results.rows;
    let value_of = |row: &Vec<Json>| {
        row.get(dims)
            .map(|value| measure_value(ontology, &plan.measures[0], value))
            .unwrap_or_default()
    };
    let key_of = |row: &Vec<Json>| row_key(row, dims);
    if dims == 0 {
        return format!("{label}{filters}: {}.", value_of(&rows[0]));
    }
    // "up from" reads a change over time; two places or teams are only set
    // side by side.
    let over_time = dims == 1
        && (plan.dimensions[0].bucket.is_some()
            || ontology
                .attribute(&plan.dimensions[0].object, &plan.dimensions[0].attribute)
                .is_some_and(|a| a.role == AttributeRole::Time));
    let is_comparison = dims == 1
        && over_time
        && rows.len() == 2
        && plan.filters.iter().any(|f| {
            f.attribute == plan.dimensions[0]
                && matches!(&f.condition, Condition::OneOf(list) if list.len() == 2)
        });
    if is_comparison {
        let (first, second) = (&rows[0], &rows[1]);
        let a = first.get(1).and_then(Json::as_f64).unwrap_or(0.0);
        let b = second.get(1).and_then(Json::as_f64).unwrap_or(0.0);
        let direction = if b > a {
            "up from"
        } else if b < a {
            "down from"
        } else {
            "the same as"
        };
        return format!(
            "{label}: {} in {}, {direction} {} in {}.",
            value_of(second),
            key_of(second),
            value_of(first),
            key_of(first)
        );
    }
    let ranked = matches!(plan.order, Some(Order::Measure { .. }));
    let descending = !matches!(
        plan.order,
        Some(Order::Measure {
            descending: false,
            ..
        })
    );
    let dimension_label = plan
        .dimensions
        .iter()
        .map(|d| attribute_label(ontology, d).to_lowercase())
        .collect::<Vec<_>>()
        .join(" and ");
    if ranked && dims == 1 && plan.limit.is_none_or(|l| l > 1) || ranked && plan.limit == Some(1) {
        let most = most_word(ontology, &plan.measures[0], descending);
        // "Sebastian Vettel had the second most wins": one row, the rows
        // before it skipped.
        let most = match plan.offset.filter(|n| *n > 0) {
            Some(skipped) => format!("the {} {most}", ordinal_word(skipped + 1)),
            None => format!("the {most}"),
        };
        let what = label
            .strip_prefix("Number of ")
            .unwrap_or(&label)
            .to_lowercase();
        let tied = level_with_first(rows, value_of);
        if tied > 1 && results.total_rows as usize >= tied {
            let names = tied_names(rows, tied, key_of);
            let next: Vec<String> = rows
                .iter()
                .skip(tied)
                .take(2)
                .map(|row| format!("{} ({})", key_of(row), value_of(row)))
                .collect();
            let then = if next.is_empty() {
                String::new()
            } else {
                format!(", then {}", join_and(&next))
            };
            return format!(
                "{names} tie for {most} {what}{filters} with {} each{then}.",
                value_of(&rows[0])
            );
        }
        let others: Vec<String> = rows
            .iter()
            .skip(1)
            .take(LISTED - 1)
            .map(|row| format!("{} ({})", key_of(row), value_of(row)))
            .collect();
        let ahead = if others.is_empty() {
            String::new()
        } else if descending {
            format!(", ahead of {}", join_and(&others))
        } else {
            format!(", then {}", join_and(&others))
        };
        let more = if results.total_rows as usize > others.len() + 1 && !others.is_empty() {
            format!(" ({} in all)", group_thousands(results.total_rows as i64))
        } else {
            String::new()
        };
        return format!(
            "{} had {most} {what}{filters}: {}{ahead}{more}.",
            key_of(&rows[0]),
            value_of(&rows[0])
        );
    }
    let listed: Vec<String> = rows
        .iter()
        .take(LISTED * 2)
        .map(|row| format!("{} {}", key_of(row), value_of(row)))
        .collect();
    let more = more_than(listed.len(), results);
    format!(
        "{label} by {dimension_label}{filters}: {}{more}.",
        listed.join(", ")
    )
}

/// A measure's value as the answer says it: "5.03%" for a fraction kept
/// as 0.0503, "12.5%" for a rate already in percent.
fn measure_value(ontology: &Ontology, measure: &Measure, value: &Json) -> String {
    match value.as_f64() {
        Some(x) if is_fraction(ontology, measure) => {
            format!("{}%", format_value(&Json::from(100.0 * x)))
        }
        _ if in_percent(ontology, measure) => format!("{}%", format_value(value)),
        _ => format_value(value),
    }
}

/// "most" or "fewest" races, "highest" or "lowest" revenue: fewer is for
/// things counted, and a rate or an average is high or low, never "the
/// most win rate".
fn most_word(ontology: &Ontology, measure: &Measure, descending: bool) -> &'static str {
    let counted = counts_rows(ontology, measure);
    let rate = is_ratio(ontology, measure) || is_average(ontology, measure);
    match (descending, counted || rate) {
        (true, _) if rate => "highest",
        (true, _) => "most",
        (false, true) if !rate => "fewest",
        (false, _) => "lowest",
    }
}

/// "second" for 2, "12th" for 12.
fn ordinal_word(n: u32) -> String {
    match crate::engine::grammar::ORDINAL_WORDS.get((n as usize).wrapping_sub(1)) {
        Some(word) => (*word).to_owned(),
        None => crate::engine::grammar::numbered_ordinal(i64::from(n)),
    }
}

/// "April" for 4.
fn month_name(number: i64) -> &'static str {
    usize::try_from(number - 1)
        .ok()
        .and_then(|i| crate::ontology::Month::ALL.get(i))
        .map_or("an unknown month", |m| m.title())
}

#[cfg(test)]
mod tests {
    use super::format_value;
    use serde_json::json;

    #[cfg(feature = "ssr")]
    #[test]
    fn things_ranked_by_a_number_of_their_own_lead_with_the_first_or_the_tie() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Order, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let plan = SemanticPlan {
            dimensions: vec![
                AttributeRef::new("customer", "customer_name"),
                AttributeRef::new("customer", "account_balance"),
            ],
            order: Some(Order::Dimension {
                index: 1,
                descending: true,
            }),
            ..SemanticPlan::default()
        };
        let results = |rows: Vec<Vec<serde_json::Value>>| ResultSet {
            columns: vec!["customer_name".to_owned(), "account_balance".to_owned()],
            total_rows: rows.len() as u64,
            rows,
            truncated: false,
        };
        let led = results(vec![
            vec![json!("Customer#1"), json!(9987.71)],
            vec![json!("Customer#2"), json!(9983.38)],
        ]);
        assert_eq!(
            answer_text(&ontology, &plan, &led),
            "Customer#1 has the highest account balance: 9,987.71, ahead of Customer#2 (9,983.38)."
        );
        let tied = results(vec![
            vec![json!("Customer#1"), json!(9987.71)],
            vec![json!("Customer#2"), json!(9987.71)],
            vec![json!("Customer#3"), json!(9000)],
        ]);
        assert_eq!(
            answer_text(&ontology, &plan, &tied),
            "Customer#1 and Customer#2 tie for the highest account balance at 9,987.71, then Customer#3 (9,000)."
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn each_groups_leaders_are_said_group_by_group_with_ties_as_ties() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Measure, Order, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let region = AttributeRef::new("region", "region_name");
        let plan = |limit| SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "order_count".to_owned(),
                variant: None,
            }],
            dimensions: vec![region.clone(), AttributeRef::new("nation", "nation_name")],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            limit: Some(limit),
            limit_within: vec![region.clone()],
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec![
                "region_name".to_owned(),
                "nation_name".to_owned(),
                "order_count".to_owned(),
            ],
            rows: vec![
                vec![json!("AFRICA"), json!("ALGERIA"), json!(691)],
                vec![json!("EUROPE"), json!("ROMANIA"), json!(655)],
                vec![json!("EUROPE"), json!("UNITED KINGDOM"), json!(655)],
            ],
            total_rows: 3,
            truncated: false,
        };
        assert_eq!(
            answer_text(&ontology, &plan(1), &results),
            "The nation with the most orders in each region: AFRICA: ALGERIA (691); EUROPE: ROMANIA and UNITED KINGDOM tie (655)."
        );
        assert_eq!(
            answer_text(&ontology, &plan(2), &results),
            "The 2 nations with the most orders in each region: AFRICA: ALGERIA (691); EUROPE: ROMANIA (655) and UNITED KINGDOM (655)."
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_tie_at_the_top_is_said_to_be_one() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Measure, Order, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let plan = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "customer_count".to_owned(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("nation", "nation_name")],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec!["nation_name".to_owned(), "customer_count".to_owned()],
            rows: vec![
                vec![json!("IRAN"), json!(72)],
                vec![json!("MOROCCO"), json!(72)],
                vec![json!("CANADA"), json!(69)],
            ],
            total_rows: 3,
            truncated: false,
        };
        assert_eq!(
            answer_text(&ontology, &plan, &results),
            "IRAN and MOROCCO tie for the most customers with 72 each, then CANADA (69)."
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_lookup_shows_whose_values_they_are_but_says_it_once() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let name = AttributeRef::new("customer", "customer_name");
        let plan = SemanticPlan {
            dimensions: vec![
                name.clone(),
                AttributeRef::new("customer", "market_segment"),
            ],
            filters: vec![Filter {
                attribute: name,
                condition: Condition::OneOf(vec![Literal::Text("Customer#000000742".to_owned())]),
            }],
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec!["customer_name".to_owned(), "market_segment".to_owned()],
            rows: vec![vec![json!("Customer#000000742"), json!("HOUSEHOLD")]],
            total_rows: 1,
            truncated: false,
        };
        assert_eq!(
            answer_text(&ontology, &plan, &results),
            "Market segment for Customer#000000742: HOUSEHOLD."
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_ratio_is_the_highest_not_the_most() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Measure, Order, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let plan = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "average_revenue_per_order".to_owned(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("customer", "market_segment")],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            limit: Some(1),
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec![
                "market_segment".to_owned(),
                "average_revenue_per_order".to_owned(),
            ],
            rows: vec![vec![json!("HOUSEHOLD"), json!(142294.73)]],
            total_rows: 1,
            truncated: false,
        };
        let text = answer_text(&ontology, &plan, &results);
        assert!(
            text.contains("the highest average revenue per order"),
            "{text}"
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_fraction_kept_in_percent_is_shown_in_percent_and_is_highest() {
        use super::answer_text;
        use crate::engine::plan::{AttributeRef, Measure, Order, SemanticPlan};
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let plan = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "average_discount".to_owned(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("line_item", "ship_mode")],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec!["ship_mode".to_owned(), "average_discount".to_owned()],
            rows: vec![
                vec![json!("REG AIR"), json!(0.050512)],
                vec![json!("AIR"), json!(0.050299)],
            ],
            total_rows: 2,
            truncated: false,
        };
        let text = answer_text(&ontology, &plan, &results);
        assert!(
            text.starts_with(
                "REG AIR had the highest average discount: 5.05%, ahead of AIR (5.03%)"
            ),
            "{text}"
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn an_amount_is_lowest_and_two_places_are_set_side_by_side() {
        use super::answer_text;
        use crate::engine::plan::{
            AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan,
        };
        use crate::engine::response::ResultSet;

        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let nation = AttributeRef::new("nation", "nation_name");
        let measure = |metric: &str| Measure::Metric {
            metric: metric.to_owned(),
            variant: None,
        };
        let results = |rows: Vec<Vec<serde_json::Value>>| ResultSet {
            columns: vec!["nation_name".to_owned(), "value".to_owned()],
            total_rows: rows.len() as u64,
            rows,
            truncated: false,
        };
        // Revenue is an amount: the lowest, not the fewest.
        let lowest = SemanticPlan {
            measures: vec![measure("revenue")],
            dimensions: vec![nation.clone()],
            order: Some(Order::Measure {
                index: 0,
                descending: false,
            }),
            ..SemanticPlan::default()
        };
        let text = answer_text(
            &ontology,
            &lowest,
            &results(vec![
                vec![json!("FRANCE"), json!(7.5)],
                vec![json!("GERMANY"), json!(9.25)],
            ]),
        );
        assert!(text.starts_with("FRANCE had the lowest revenue"), "{text}");
        // Two nations compared are not a change from one to the other.
        let compared = SemanticPlan {
            measures: vec![measure("order_count")],
            dimensions: vec![nation.clone()],
            filters: vec![Filter {
                attribute: nation,
                condition: Condition::OneOf(vec![
                    Literal::Text("GERMANY".to_owned()),
                    Literal::Text("FRANCE".to_owned()),
                ]),
            }],
            ..SemanticPlan::default()
        };
        let text = answer_text(
            &ontology,
            &compared,
            &results(vec![
                vec![json!("GERMANY"), json!(86)],
                vec![json!("FRANCE"), json!(71)],
            ]),
        );
        assert!(
            text.contains("GERMANY 86, FRANCE 71") && !text.contains("down from"),
            "{text}"
        );
    }

    #[test]
    fn numbers_read_the_same_everywhere() {
        assert_eq!(format_value(&json!(2458)), "2,458");
        assert_eq!(format_value(&json!(-1234567)), "-1,234,567");
        assert_eq!(format_value(&json!(12.345)), "12.35");
        assert_eq!(format_value(&json!(860.0)), "860");
        assert_eq!(format_value(&json!(1234.5)), "1,234.5");
        assert_eq!(format_value(&json!("Ferrari")), "Ferrari");
    }

    #[test]
    fn a_share_puts_its_own_conditions_with_the_part() {
        use crate::engine::plan::{
            AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan,
        };
        use crate::engine::response::ResultSet;
        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let count = Measure::Metric {
            metric: "order_count".to_owned(),
            variant: None,
        };
        let plan = SemanticPlan {
            measures: vec![Measure::Share {
                part: Box::new(count.clone()),
                whole: Box::new(count),
                only: vec![Filter {
                    attribute: AttributeRef::new("order", "order_priority"),
                    condition: Condition::OneOf(vec![Literal::Text("1-URGENT".to_owned())]),
                }],
            }],
            ..SemanticPlan::default()
        };
        let results = ResultSet {
            columns: vec!["order_count_percentage".to_owned()],
            rows: vec![vec![serde_json::json!(20.13)]],
            total_rows: 1,
            truncated: false,
        };
        assert_eq!(
            super::answer_text(&ontology, &plan, &results),
            "Orders with priority 1-URGENT as a percentage of orders: 20.13%."
        );
    }
}
