//! Metrics over periods as data teams write them: a growth (a metric
//! against itself a period earlier) and a running total (a metric added up
//! period after period), in YAML, validated, written back, and named by the
//! diff.

mod support;

use cassis_core::ontology::{self, Aggregate, Grain, MetricKind};
use cassis_core::project::Dialect;
use support::assert_problems;

const WHOLESALE: &str = include_str!("../../examples/wholesale/ontology.yaml");

#[test]
fn growth_and_running_totals_round_trip_without_an_aggregate() {
    let ontology = ontology::from_yaml(WHOLESALE).unwrap();
    assert_eq!(ontology::validate(&ontology, Dialect::Sqlite), vec![]);
    let growth = ontology
        .metrics
        .iter()
        .find(|m| m.name == "revenue_growth")
        .unwrap();
    assert_eq!(growth.kind, MetricKind::Growth);
    assert_eq!(growth.of.as_deref(), Some("revenue"));
    assert_eq!(growth.period, Some(Grain::Year));
    assert_eq!(growth.aggregate, Aggregate::Avg);
    let running = ontology
        .metrics
        .iter()
        .find(|m| m.name == "revenue_year_to_date")
        .unwrap();
    assert_eq!(running.kind, MetricKind::Cumulative);
    assert_eq!(running.to_date, Some(Grain::Year));

    let exported = ontology::to_yaml(&ontology);
    let written = &exported[exported.find("- name: revenue_growth").unwrap()..];
    let written = &written[..written.find("- name: revenue_year_to_date").unwrap()];
    assert!(
        written.contains("type: growth\n  of: revenue\n  period: year\n"),
        "{written}"
    );
    assert!(!written.contains("aggregate"), "{written}");
    assert_eq!(ontology::from_yaml(&exported).unwrap(), ontology);
}

#[test]
fn each_mistake_over_periods_is_named_by_its_field() {
    let yaml = r#"
objects:
  - name: sale
    table: sales
    primary_key: [id]
    attributes:
      - {name: id, type: integer, role: identifier}
      - {name: amount, type: decimal, role: measure}
      - {name: sold_on, type: date, role: time}
metrics:
  - {name: revenue, object: sale, aggregate: sum, expr: amount}
  - {name: average_sale, object: sale, aggregate: avg, expr: amount}
  - {name: no_of, object: sale, type: growth, period: year}
  - {name: no_period, object: sale, type: growth, of: revenue}
  - {name: growth_of_growth, object: sale, type: growth, of: no_period, period: month}
  - {name: running_average, object: sale, type: cumulative, of: average_sale}
  - {name: running_with_period, object: sale, type: cumulative, of: revenue, period: year}
  - {name: simple_with_of, object: sale, aggregate: count, of: revenue, to_date: year}
  - {name: growth_by_month_of_year, object: sale, type: growth, of: revenue, period: month_of_year}
"#;
    let ontology = ontology::from_yaml(yaml).unwrap();
    assert_problems(
        &ontology,
        &[
            "metrics.no_of.of: a growth needs `of`",
            "metrics.no_period.period: a growth needs `period`",
            "metrics.growth_of_growth.of: `no_period` is itself computed over periods",
            "metrics.running_average.of: `average_sale` does not add up",
            "metrics.running_with_period.period: a running total takes no `period`",
            "metrics.simple_with_of.of: only a metric of `type: growth` or `type: cumulative` has `of`",
            "metrics.simple_with_of.to_date: only a metric of `type: cumulative` has `to_date`",
            "metrics.growth_by_month_of_year.period: `month_of_year` is a month of every year, not a period",
        ],
    );

    let aggregate = "metrics:\n  - name: g\n    object: o\n    type: growth\n    aggregate: sum\n    of: a\n    period: year\n";
    let error = ontology::from_yaml(aggregate).unwrap_err();
    assert!(error.message.contains("takes no `aggregate`"), "{error}");
    let grain = "metrics:\n  - name: g\n    object: o\n    type: growth\n    of: a\n    period: fortnight\n";
    let error = ontology::from_yaml(grain).unwrap_err();
    assert!(error.message.contains("fortnight"), "{error}");
}

#[test]
fn the_diff_names_a_growth_whose_period_changed() {
    let old = ontology::from_yaml(WHOLESALE).unwrap();
    let mut new = old.clone();
    let growth = new
        .metrics
        .iter_mut()
        .find(|m| m.name == "revenue_growth")
        .unwrap();
    growth.period = Some(Grain::Quarter);
    let changes: Vec<String> = ontology::diff(&old, &new)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(changes, ["~ metric revenue_growth"]);
}

#[test]
fn a_derived_metric_names_metrics_that_aggregate_rows() {
    let yaml = r#"
objects:
  - name: sale
    table: sales
    attributes:
      - {name: amount, type: decimal, role: measure}
      - {name: cost, type: decimal, role: measure}
metrics:
  - {name: revenue, object: sale, aggregate: sum, expr: amount}
  - {name: cost, object: sale, aggregate: sum, expr: cost}
  - {name: margin, object: sale, type: derived, expr: revenue - cost}
  - {name: broken, object: sale, type: derived, expr: revenue - laps - broken}
  - {name: empty, object: sale, type: derived}
  - {name: of_margin, object: sale, type: derived, expr: margin * 2, filters: [amount > 0]}
"#;
    let ontology = ontology::from_yaml(yaml).unwrap();
    assert_problems(
        &ontology,
        &[
            "metrics.broken.expr: `laps` is not a metric",
            "metrics.broken.expr: a derived metric cannot use itself",
            "metrics.empty.expr: a derived metric needs `expr`",
            "metrics.of_margin.expr: `margin` is computed over periods or derived",
            "metrics.of_margin.filters: a derived metric takes no `filters`",
        ],
    );
    let margin = &ontology.metrics[2];
    assert_eq!(margin.kind, MetricKind::Derived);
    assert_eq!(margin.metrics_used().unwrap(), ["revenue", "cost"]);
    assert_eq!(
        ontology::from_yaml(&ontology::to_yaml(&ontology)).unwrap(),
        ontology
    );
}
