//! Measures over periods. Period over period: "revenue growth in 1996 vs
//! 1995", "orders year over year", "how did revenue change compared to
//! last year". Running totals: "running total of orders in 1995",
//! "year-to-date revenue by month". The plan the reading made becomes a
//! growth or a running total of its one measure, with the periods it reads
//! said as an assumption.

use super::Planned;
use super::attributes::base_object;
use super::time::{by_year_if_date, day_attribute, year_attribute};
use crate::engine::plan::{
    AttributeRef, Condition, Literal, Measure, PlanAssumption, SemanticPlan,
};
use crate::ontology::{Aggregate, AttributeRole, DataType, Grain, Metric, Ontology};

/// The one metric `measures` names, when it is of the kind `is`.
fn named_metric<'o>(
    ontology: &'o Ontology,
    measures: &[Measure],
    is: fn(&Metric) -> bool,
) -> Option<&'o Metric> {
    match measures {
        [Measure::Metric { metric, .. }] => {
            ontology.metrics.iter().find(|m| m.name == *metric && is(m))
        }
        _ => None,
    }
}

/// "By how much did revenue grow in 1996 compared with 1995?" then "and
/// 1997 vs 1996?": two years compared after a yearly growth ask for that
/// growth again between them. `planned` with the growth unwrapped to what
/// grows, and the growth asked; otherwise as it is, with none asked.
pub(super) fn growth_carried(
    planned: Planned,
    previous: Option<&SemanticPlan>,
) -> (Planned, Option<Option<Grain>>) {
    let Planned::Plan(mut plan) = planned else {
        return (planned, None);
    };
    let carried = previous.is_some_and(|p| {
        matches!(
            p.measures.as_slice(),
            [Measure::Growth {
                period: Grain::Year,
                ..
            }]
        ) && p.measures == plan.measures
    });
    let two_years = plan.filters.iter().any(|f| {
        matches!(&f.condition, Condition::OneOf(list)
            if list.len() == 2 && list.iter().all(|v| matches!(v, Literal::Integer(_))))
    });
    match plan.measures.as_slice() {
        [Measure::Growth { of, .. }] if carried && two_years => {
            plan.measures = vec![(**of).clone()];
            (Planned::Plan(plan), Some(Some(Grain::Year)))
        }
        _ => (Planned::Plan(plan), None),
    }
}

/// `planned` as a growth when the question asks for one (`asked`, with
/// the period it named) or names a growth metric; otherwise as it is.
pub(super) fn compare_periods(
    ontology: &Ontology,
    planned: Planned,
    asked: Option<Option<Grain>>,
) -> Planned {
    let Planned::Plan(mut plan) = planned else {
        return planned;
    };
    let metric_growth = named_metric(ontology, &plan.measures, Metric::is_growth)
        .map(|m| (m.of.clone().unwrap_or_default(), m.period));
    if metric_growth.is_none() && asked.is_none() {
        return Planned::Plan(plan);
    }
    let of = match (&metric_growth, plan.measures.as_slice()) {
        (Some((of, _)), _) => Measure::Metric {
            metric: of.clone(),
            variant: None,
        },
        // "what changed": nothing measured, nothing to compare.
        (None, []) => return Planned::Plan(plan),
        (None, [one]) if !one.is_composite() => one.clone(),
        (None, _) => {
            return Planned::NotAnswerable(
                "Cassis compares one measure with an earlier period at a time; ask for the growth of one measure".to_owned(),
            );
        }
    };
    let grouped_grain = time_grouping(ontology, &plan).map(|d| d.bucket.unwrap_or(Grain::Year));
    let metric_period = metric_growth.as_ref().and_then(|(_, period)| *period);
    let mut period = asked
        .flatten()
        .or(metric_period)
        .or(grouped_grain)
        .unwrap_or(Grain::Year);
    let mut periods = 1;
    let years = plan.filters.iter().position(|f| {
        is_time(ontology, &f.attribute)
            && match &f.condition {
                Condition::OneOf(list) => {
                    !list.is_empty() && list.iter().all(|v| matches!(v, Literal::Integer(_)))
                }
                Condition::Between(Literal::Integer(_), Literal::Integer(_)) => true,
                _ => false,
            }
    });
    let said = match years.map(|at| (at, year_list(&plan.filters[at].condition))) {
        // "growth in 1996 vs 1995": the later year against the earlier.
        // "growth from 1995 to 1996", "between 1993 and 1994": the same,
        // unless the years are asked for one by one ("by year").
        Some((at, list))
            if period == Grain::Year
                && list.len() == 2
                && match plan.filters[at].condition {
                    Condition::Between(..) => grouped_grain.is_none(),
                    _ => matches!(grouped_grain, None | Some(Grain::Year)),
                } =>
        {
            let (earlier, later) = (list[0], list[1]);
            let attribute = plan.filters[at].attribute.clone();
            plan.filters[at].condition = Condition::OneOf(vec![Literal::Integer(later)]);
            plan.dimensions
                .retain(|d| !(d.object == attribute.object && d.attribute == attribute.attribute));
            periods = u32::try_from(later - earlier).unwrap_or(1).max(1);
            format!("Growth compares {later} with {earlier}")
        }
        Some((_, list)) if period == Grain::Year && list.len() == 1 && grouped_grain.is_none() => {
            format!("Growth compares {} with {}", list[0], list[0] - 1)
        }
        _ => {
            // "orders quarter over quarter in 1996": each quarter of the
            // time asked about against the one before, on the date a time
            // filter reads, else the date of what is measured.
            if grouped_grain.is_none() {
                let filtered = plan
                    .filters
                    .iter()
                    .map(|f| f.attribute.clone())
                    .find(|a| super::time::names_date(ontology, a));
                let base = base_object(ontology, &plan);
                let time = match period {
                    Grain::Year => filtered
                        .or_else(|| base.as_deref().and_then(|b| year_attribute(ontology, b)))
                        .map(|t| by_year_if_date(ontology, t)),
                    grain => filtered
                        .or_else(|| base.as_deref().and_then(|b| day_attribute(ontology, b)))
                        .map(|t| t.by(grain)),
                };
                let Some(time) = time else {
                    return Planned::NotAnswerable(
                        "a growth compares periods, but what is measured has no date in the ontology".to_owned(),
                    );
                };
                plan.dimensions.insert(0, time);
            }
            each_period(grouped_grain.unwrap_or(period), period)
        }
    };
    // A year held as a number moves by years alone.
    if period != Grain::Year
        && plan
            .dimensions
            .iter()
            .chain(plan.filters.iter().map(|f| &f.attribute))
            .any(|a| {
                ontology
                    .attribute(&a.object, &a.attribute)
                    .is_some_and(|a| {
                        a.role == AttributeRole::Time && a.data_type == DataType::Integer
                    })
            })
    {
        period = Grain::Year;
    }
    let same_as_metric = metric_growth.is_some() && metric_period == Some(period) && periods == 1;
    if !same_as_metric {
        plan.measures = vec![Measure::Growth {
            of: Box::new(of),
            period,
            periods,
        }];
    }
    // "order growth by month": against the month before, or against the
    // same month a year before? Neither the question nor a metric says: a
    // fork, the month before selected.
    let unsaid = asked.flatten().is_none() && metric_period.is_none();
    let assumption = match grouped_grain.filter(|g| unsaid && *g != Grain::Year) {
        Some(grain) => {
            let name = grain.name();
            let before = format!("the {name} before");
            let a_year = format!("the same {name} a year before");
            PlanAssumption {
                text: format!(
                    "Growth can compare each {name} with {before} or with {a_year}; using {before}"
                ),
                options: vec![before.clone(), a_year],
                selected: Some(before),
            }
        }
        None => PlanAssumption::stated(said),
    };
    plan.assumptions.push(assumption);
    Planned::Plan(plan)
}

/// `planned` as a running total when the question asks for one (`asked`,
/// with the period it starts again at) or names a running total metric.
pub(super) fn running_total(
    ontology: &Ontology,
    planned: Planned,
    asked: Option<Option<Grain>>,
) -> Planned {
    let Planned::Plan(mut plan) = planned else {
        return planned;
    };
    let metric_running = named_metric(ontology, &plan.measures, Metric::is_cumulative)
        .map(|m| (m.of.clone().unwrap_or_default(), m.to_date));
    if metric_running.is_none() && asked.is_none() {
        return Planned::Plan(plan);
    }
    let of = match (&metric_running, plan.measures.as_slice()) {
        (Some((of, _)), _) => Measure::Metric {
            metric: of.clone(),
            variant: None,
        },
        (None, []) => return Planned::Plan(plan),
        (None, [one]) if !one.is_composite() && adds_up(ontology, one) => one.clone(),
        (None, [one]) if !one.is_composite() => {
            return Planned::NotAnswerable(format!(
                "a running total adds up sums and counts, and {} does not add up",
                super::measure_label(ontology, one).to_lowercase()
            ));
        }
        (None, _) => {
            return Planned::NotAnswerable(
                "Cassis adds up one measure over periods at a time; ask for the running total of one measure".to_owned(),
            );
        }
    };
    let metric_to_date = metric_running.as_ref().and_then(|(_, to_date)| *to_date);
    let to_date = asked.flatten().or(metric_to_date);
    if let Some(period) = to_date
        && let Some(plan) = to_date_at(ontology, &mut plan, &of, period)
    {
        return Planned::Plan(plan);
    }
    let grain = match time_grouping(ontology, &plan) {
        Some(time) => time.bucket.unwrap_or(Grain::Year),
        None => {
            // "running total of orders in 1995": month by month, on the
            // date a time filter reads, else the date of what is measured;
            // day by day within a month.
            let grain = match to_date {
                Some(Grain::Month | Grain::Week | Grain::Day) => Grain::Day,
                _ => Grain::Month,
            };
            let filtered = plan
                .filters
                .iter()
                .map(|f| f.attribute.clone())
                .find(|a| super::time::names_date(ontology, a));
            let base = base_object(ontology, &plan);
            let Some(time) =
                filtered.or_else(|| base.as_deref().and_then(|b| day_attribute(ontology, b)))
            else {
                return Planned::NotAnswerable(
                    "a running total adds up over dates, but what is measured has no date in the ontology".to_owned(),
                );
            };
            plan.dimensions.insert(0, time.by(grain));
            grain
        }
    };
    let said = match to_date.filter(|period| *period != grain) {
        Some(period) => format!(
            "Each {}'s figure adds to the ones before it in the same {}",
            grain.name(),
            period.name()
        ),
        None => format!(
            "The running total adds each {0} to the ones before it, from the first {0} asked about",
            grain.name()
        ),
    };
    let same_as_metric = metric_running.is_some() && metric_to_date == to_date;
    if !same_as_metric {
        plan.measures = vec![Measure::Cumulative {
            of: Box::new(of),
            to_date,
            window: None,
        }];
    }
    plan.assumptions.push(PlanAssumption::stated(said));
    Planned::Plan(plan)
}

/// "Year-to-date revenue at the end of March 1996": with no grouping by
/// period, a to-date total as of a day named is one figure, from the start
/// of that day's period up to it.
fn to_date_at(
    ontology: &Ontology,
    plan: &mut SemanticPlan,
    of: &Measure,
    period: Grain,
) -> Option<SemanticPlan> {
    if time_grouping(ontology, plan).is_some() {
        return None;
    }
    let filter = plan.filters.iter_mut().find(|f| {
        f.attribute.bucket.is_none()
            && super::time::names_date(ontology, &f.attribute)
            && matches!(
                &f.condition,
                Condition::Between(_, Literal::Text(_)) | Condition::AtMost(Literal::Text(_))
            )
    })?;
    // A day, or a month named whole ("at the end of March 1996"); a span
    // with a start of its own keeps it.
    let last = match &filter.condition {
        Condition::Between(Literal::Text(first), Literal::Text(last))
            if first == last || period_start(last, Grain::Month).as_ref() == Some(first) =>
        {
            last.clone()
        }
        Condition::AtMost(Literal::Text(last)) => last.clone(),
        _ => return None,
    };
    let start = period_start(&last, period)?;
    filter.condition =
        Condition::Between(Literal::Text(start.clone()), Literal::Text(last.clone()));
    let mut plan = std::mem::take(plan);
    plan.measures = vec![of.clone()];
    plan.assumptions.push(PlanAssumption::stated(format!(
        "{} to date: from {start} to {last}",
        crate::engine::text::capitalised(period.name())
    )));
    Some(plan)
}

/// Whether the attribute is a time (a date or a year).
fn is_time(ontology: &Ontology, attribute: &AttributeRef) -> bool {
    ontology
        .attribute(&attribute.object, &attribute.attribute)
        .is_some_and(|a| a.role == AttributeRole::Time)
}

/// The plan's grouping by a time attribute, if it has one.
fn time_grouping<'p>(ontology: &Ontology, plan: &'p SemanticPlan) -> Option<&'p AttributeRef> {
    plan.dimensions.iter().find(|d| is_time(ontology, d))
}

/// The first day of the period (year, quarter or month) the day `day`
/// ("1996-03-31") falls in.
fn period_start(day: &str, period: Grain) -> Option<String> {
    let (year, rest) = day.split_once('-')?;
    let month: u32 = rest
        .get(..2)?
        .parse()
        .ok()
        .filter(|m| (1..=12).contains(m))?;
    let first_month = match period {
        Grain::Year => 1,
        Grain::Quarter => (month - 1) / 3 * 3 + 1,
        Grain::Month => month,
        _ => return None,
    };
    Some(format!("{year}-{first_month:02}-01"))
}

/// A measure whose figures for two periods add up to the figure for both:
/// a sum or a count of rows.
fn adds_up(ontology: &Ontology, measure: &Measure) -> bool {
    match measure {
        Measure::Metric { metric, .. } => ontology.metrics.iter().any(|m| {
            m.name == *metric
                && m.kind == crate::ontology::MetricKind::Simple
                && matches!(m.aggregate, Aggregate::Sum | Aggregate::Count)
        }),
        Measure::CountOf { .. } => true,
        Measure::Aggregate { aggregate, .. } => {
            matches!(aggregate, Aggregate::Sum | Aggregate::Count)
        }
        _ => false,
    }
}

/// The years a filter names, in order.
fn year_list(condition: &Condition) -> Vec<i64> {
    let mut list: Vec<i64> = match condition {
        Condition::OneOf(values) => values
            .iter()
            .filter_map(|v| match v {
                Literal::Integer(y) => Some(*y),
                Literal::Text(_) => None,
            })
            .collect(),
        Condition::Between(Literal::Integer(from), Literal::Integer(to)) => vec![*from, *to],
        _ => Vec::new(),
    };
    list.sort_unstable();
    list
}

fn each_period(grain: Grain, period: Grain) -> String {
    let name = grain.name();
    if grain == period {
        format!("Growth compares each {name} with the {name} before")
    } else {
        format!(
            "Growth compares each {name} with the same {name} one {} before",
            period.name()
        )
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::engine::compile::compile;
    use crate::engine::plan::{AttributeRef, Condition, Literal, Measure, SemanticPlan};
    use crate::engine::planner::test_support::{planned, wholesale};
    use crate::engine::planner::{Planned, plan};
    use crate::ontology::Grain;
    use crate::project::Dialect;

    fn said(plan: &SemanticPlan) -> Vec<&str> {
        plan.assumptions.iter().map(|a| a.text.as_str()).collect()
    }

    fn revenue_growth() -> Vec<Measure> {
        vec![Measure::Metric {
            metric: "revenue_growth".into(),
            variant: None,
        }]
    }

    #[test]
    fn a_named_year_is_compared_with_the_one_before() {
        for question in [
            "revenue growth in 1996 vs 1995",
            "revenue growth in 1996",
            "how did revenue change in 1996 compared to last year",
        ] {
            let plan = planned(question);
            assert_eq!(plan.measures, revenue_growth(), "{question}");
            assert!(plan.dimensions.is_empty(), "{question}: {plan:?}");
            assert_eq!(
                plan.filters[0].condition,
                Condition::OneOf(vec![Literal::Integer(1996)]),
                "{question}"
            );
            assert!(
                said(&plan).contains(&"Growth compares 1996 with 1995"),
                "{question}: {plan:?}"
            );
        }
    }

    #[test]
    fn year_over_year_is_every_year_against_the_one_before() {
        for question in [
            "revenue growth year over year",
            "how did revenue change compared to last year",
            "revenue growth by year",
        ] {
            let plan = planned(question);
            assert_eq!(plan.measures, revenue_growth(), "{question}");
            assert_eq!(
                plan.dimensions,
                [AttributeRef::new("order", "order_date").by(Grain::Year)],
                "{question}"
            );
            assert!(
                said(&plan).contains(&"Growth compares each year with the year before"),
                "{question}: {plan:?}"
            );
        }
    }

    #[test]
    fn any_measure_grows_over_the_period_named() {
        let plan = planned("number of orders quarter over quarter in 1996");
        assert_eq!(
            plan.measures,
            [Measure::Growth {
                of: Box::new(Measure::Metric {
                    metric: "order_count".into(),
                    variant: None
                }),
                period: Grain::Quarter,
                periods: 1,
            }],
            "{plan:?}"
        );
        let (ontology, _) = wholesale();
        let sql = compile(&ontology, &plan, Dialect::Sqlite).unwrap().sql;
        assert!(sql.contains("'+3 months'"), "{sql}");
        let monthly = planned("quarterly revenue growth in 1996");
        assert!(
            said(&monthly)
                .contains(&"Growth compares each quarter with the same quarter one year before"),
            "{monthly:?}"
        );
    }

    #[test]
    fn growth_by_month_without_a_period_is_a_fork() {
        let fork = planned("order growth by month");
        let asked = fork
            .assumptions
            .iter()
            .find(|a| a.is_fork())
            .expect("a fork");
        assert_eq!(
            asked.options,
            ["the month before", "the same month a year before"]
        );
        assert_eq!(asked.selected.as_deref(), Some("the month before"));
        // Said by the question or by the metric, it is settled.
        for settled in [
            "order growth by month year over year",
            "revenue growth by month",
            "order growth by month against the same month a year before",
            "order growth by month against the month before",
        ] {
            let plan = planned(settled);
            assert!(
                plan.assumptions.iter().all(|a| !a.is_fork()),
                "{settled}: {plan:?}"
            );
        }
        let same_month = planned("order growth by month against the same month a year before");
        assert!(
            matches!(
                &same_month.measures[..],
                [Measure::Growth {
                    period: Grain::Year,
                    ..
                }]
            ),
            "{same_month:?}"
        );
    }

    #[test]
    fn running_totals_run_month_by_month_or_to_date() {
        let running = planned("running total of orders in 1995");
        assert_eq!(
            running.measures,
            [Measure::Cumulative {
                of: Box::new(Measure::Metric {
                    metric: "order_count".into(),
                    variant: None
                }),
                to_date: None,
                window: None,
            }],
            "{running:?}"
        );
        assert_eq!(
            running.dimensions,
            [AttributeRef::new("order", "order_date").by(Grain::Month)]
        );
        assert!(
            said(&running).contains(&"The running total adds each month to the ones before it, from the first month asked about"),
            "{running:?}"
        );
        let monthly = planned("cumulative revenue by month");
        assert!(matches!(
            &monthly.measures[..],
            [Measure::Cumulative { to_date: None, .. }]
        ));
        let ytd = planned("year to date revenue by quarter in 1996");
        assert_eq!(
            ytd.measures,
            [Measure::Metric {
                metric: "revenue_year_to_date".into(),
                variant: None
            }],
            "{ytd:?}"
        );
        assert_eq!(
            ytd.dimensions,
            [AttributeRef::new("order", "order_date").by(Grain::Quarter)]
        );
        let (ontology, _) = wholesale();
        let sql = compile(&ontology, &ytd, Dialect::Sqlite).unwrap().sql;
        assert!(
            sql.contains("PARTITION BY per_period.order_date_year"),
            "{sql}"
        );
        let average = {
            let (ontology, lexicon) = wholesale();
            plan(
                &ontology,
                &lexicon,
                "running total of the average discount by month",
                None,
                None,
            )
        };
        assert!(
            matches!(average, Planned::NotAnswerable(ref why) if why.contains("does not add up")),
            "{average:?}"
        );
    }
}
