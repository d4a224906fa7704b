//! The compiler's SQL for a dozen canonical plans, one snapshot per dialect
//! (`snapshots/compile_snapshots__<dialect>.snap`): a change to any dialect's
//! rules, or to how a plan is resolved and lowered, shows as a reviewed diff
//! of the SQL a warehouse would run. Each SQL also reads back unchanged in
//! its dialect, as the round-trip tests in `compile.rs` require.
//!
//! `cargo insta review` (or `INSTA_UPDATE=always`) accepts a deliberate change.

use cassis_core::engine::compile::compile;
use cassis_core::engine::compile::resolve::{Shape, resolve};
use cassis_core::engine::graph::JoinTree;
use cassis_core::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan,
};
use cassis_core::ontology::{Grain, Names, Ontology, OntologyIndex, from_yaml};
use cassis_core::project::Dialect;
use std::fmt::Write;
use std::path::Path;

fn example(name: &str) -> Ontology {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/{name}/ontology.yaml"));
    from_yaml(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn metric(name: &str) -> Measure {
    Measure::Metric {
        metric: name.into(),
        variant: None,
    }
}

fn by_measure() -> Option<Order> {
    Some(Order::Measure {
        index: 0,
        descending: true,
    })
}

fn is(object: &str, attribute: &str, value: Literal) -> Filter {
    Filter {
        attribute: AttributeRef::new(object, attribute),
        condition: Condition::OneOf(vec![value]),
    }
}

/// The canonical plans over the wholesale example: every kind of measure
/// the compiler has a shape for.
fn wholesale_plans() -> Vec<(&'static str, SemanticPlan)> {
    let in_1996 = is("order", "order_date", Literal::Integer(1996));
    vec![
        (
            "count",
            SemanticPlan {
                measures: vec![metric("order_count")],
                ..SemanticPlan::default()
            },
        ),
        (
            "sum with filter",
            SemanticPlan {
                measures: vec![metric("revenue")],
                filters: vec![
                    in_1996.clone(),
                    is(
                        "customer",
                        "market_segment",
                        Literal::Text("BUILDING".into()),
                    ),
                ],
                ..SemanticPlan::default()
            },
        ),
        (
            "grouping with join",
            SemanticPlan {
                measures: vec![metric("revenue")],
                dimensions: vec![AttributeRef::new("region", "region_name")],
                ..SemanticPlan::default()
            },
        ),
        (
            "top n",
            SemanticPlan {
                measures: vec![metric("revenue")],
                dimensions: vec![AttributeRef::new("customer", "customer_name")],
                filters: vec![in_1996.clone()],
                order: by_measure(),
                limit: Some(5),
                ..SemanticPlan::default()
            },
        ),
        (
            "time grain by month",
            SemanticPlan {
                measures: vec![metric("order_count")],
                dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Month)],
                filters: vec![in_1996.clone()],
                ..SemanticPlan::default()
            },
        ),
        (
            "growth",
            SemanticPlan {
                measures: vec![metric("revenue_growth")],
                dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Year)],
                ..SemanticPlan::default()
            },
        ),
        (
            "running total",
            SemanticPlan {
                measures: vec![metric("revenue_year_to_date")],
                dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Quarter)],
                ..SemanticPlan::default()
            },
        ),
        (
            "ratio",
            SemanticPlan {
                measures: vec![metric("average_revenue_per_order")],
                dimensions: vec![AttributeRef::new("customer", "market_segment")],
                ..SemanticPlan::default()
            },
        ),
        (
            "share",
            SemanticPlan {
                measures: vec![Measure::Share {
                    part: Box::new(metric("revenue")),
                    whole: Box::new(metric("revenue")),
                    only: vec![is("region", "region_name", Literal::Text("EUROPE".into()))],
                }],
                filters: vec![in_1996.clone()],
                ..SemanticPlan::default()
            },
        ),
        (
            "distinct count",
            SemanticPlan {
                measures: vec![Measure::DistinctOf {
                    object: "customer".into(),
                    metric: "order_count".into(),
                }],
                filters: vec![in_1996],
                ..SemanticPlan::default()
            },
        ),
        (
            "count of the groups that pass",
            SemanticPlan {
                measures: vec![Measure::CountPassing {
                    of: Box::new(metric("order_count")),
                    per: AttributeRef::new("customer", "customer_name"),
                    condition: Condition::After(Literal::Integer(30)),
                }],
                ..SemanticPlan::default()
            },
        ),
        (
            "a month of every year",
            SemanticPlan {
                measures: vec![metric("revenue")],
                filters: vec![Filter {
                    attribute: AttributeRef::new("order", "order_date").by(Grain::MonthOfYear),
                    condition: Condition::OneOf(vec![Literal::Integer(12)]),
                }],
                ..SemanticPlan::default()
            },
        ),
        (
            "derived by week",
            SemanticPlan {
                measures: vec![metric("net_quantity")],
                dimensions: vec![AttributeRef::new("order", "order_date").by(Grain::Week)],
                limit: Some(3),
                ..SemanticPlan::default()
            },
        ),
    ]
}

/// Plans over Formula 1 for what wholesale has no case of: a dimension on
/// the many side (one row per measured row first), a variant that adds a
/// second metric (a union), and a lookup without measures.
fn f1_plans() -> Vec<(&'static str, SemanticPlan)> {
    vec![
        (
            "fan-out kept at grain",
            SemanticPlan {
                measures: vec![metric("races")],
                dimensions: vec![AttributeRef::new("driver", "full_name")],
                order: by_measure(),
                limit: Some(10),
                ..SemanticPlan::default()
            },
        ),
        (
            "variant adding a metric",
            SemanticPlan {
                measures: vec![Measure::Metric {
                    metric: "points".into(),
                    variant: Some("race_and_sprint".into()),
                }],
                dimensions: vec![AttributeRef::new("race", "year")],
                filters: vec![Filter {
                    attribute: AttributeRef::new("race", "year"),
                    condition: Condition::Between(Literal::Integer(2021), Literal::Integer(2023)),
                }],
                ..SemanticPlan::default()
            },
        ),
        (
            "lookup",
            SemanticPlan {
                dimensions: vec![AttributeRef::new("driver", "full_name")],
                filters: vec![is("driver", "nationality", Literal::Text("O'Brien".into()))],
                ..SemanticPlan::default()
            },
        ),
    ]
}

fn rendered(dialect: Dialect) -> String {
    let mut out = String::new();
    for (ontology, plans) in [("wholesale", wholesale_plans()), ("f1", f1_plans())] {
        let ontology_model = example(ontology);
        for (name, plan) in plans {
            let compiled = compile(&ontology_model, &plan, dialect)
                .unwrap_or_else(|e| panic!("{ontology} {name} in {dialect:?}: {e}"));
            let reparsed = cassis_core::sql::parse_select(dialect, &compiled.sql)
                .unwrap_or_else(|e| panic!("{name} in {dialect:?} reads back: {e}"));
            assert_eq!(reparsed.to_string(), compiled.sql, "{name} in {dialect:?}");
            writeln!(out, "-- {ontology}: {name}").unwrap();
            writeln!(out, "-- columns: {}", compiled.columns.join(", ")).unwrap();
            writeln!(out, "-- reads: {}", compiled.objects.join(", ")).unwrap();
            writeln!(out, "{}\n", compiled.sql).unwrap();
        }
    }
    out
}

#[test]
fn canonical_plans_per_dialect() {
    for dialect in Dialect::ALL {
        insta::assert_snapshot!(dialect.as_str(), rendered(dialect));
    }
}

/// `driver <- results (many) -> race`: the base, then each step with `*`
/// where it fans out from the measured rows.
fn joins(tree: &JoinTree) -> String {
    let mut out = tree.base.clone();
    for step in &tree.steps {
        let many = if step.fans_out { "*" } else { "" };
        write!(out, ", {} -> {}{many}", step.from, step.to).unwrap();
    }
    out
}

/// The resolved form of each canonical plan, the same in every dialect:
/// its shape, and for a lookup or an aggregate its join tree and whether
/// it keeps one row per measured row first.
#[test]
fn canonical_plans_resolve() {
    let mut out = String::new();
    for (ontology, plans) in [("wholesale", wholesale_plans()), ("f1", f1_plans())] {
        let ontology_model = example(ontology);
        let names = Names::of(&ontology_model);
        let index = OntologyIndex::new(&ontology_model, &names);
        for (name, plan) in plans {
            let resolved = resolve(index, &plan)
                .unwrap_or_else(|problems| panic!("{ontology} {name}: {problems:?}"));
            let shape = match resolved.shape {
                Shape::Lookup { tree, dimensions } => {
                    let shown: Vec<String> = dimensions.iter().map(|d| d.column()).collect();
                    format!("lookup of {} over {}", shown.join(", "), joins(&tree))
                }
                Shape::Aggregate {
                    measures,
                    tree,
                    fanning,
                } => {
                    let measured: Vec<&str> = measures.iter().map(|m| m.name.as_str()).collect();
                    format!(
                        "aggregate {} over {}, {fanning:?}",
                        measured.join(", "),
                        joins(&tree)
                    )
                }
                Shape::Combined { measure } => {
                    let added: Vec<&str> = measure.plus.iter().map(|m| m.name.as_str()).collect();
                    format!("union of {} plus {}", measure.name, added.join(", "))
                }
                Shape::Ratio { metric } => format!("ratio {metric}"),
                Shape::Derived { metric } => format!("derived {metric}"),
                Shape::SemiAdditive { metric, .. } => format!("semi-additive {metric}"),
                Shape::Growth {
                    of, period, named, ..
                } => format!("growth {named:?} of {of:?} by {}", period.name()),
                Shape::Cumulative {
                    of, to_date, named, ..
                } => {
                    format!("running total {named:?} of {of:?} to date {to_date:?}")
                }
                Shape::Share { .. } => "share".to_owned(),
                Shape::AveragePer { .. } => "average per".to_owned(),
                Shape::CountPassing { .. } => "count of the groups that pass".to_owned(),
                Shape::Difference { .. } => "difference".to_owned(),
                Shape::Across { groups } => format!("measures of different objects {groups:?}"),
            };
            writeln!(out, "{ontology}: {name}: {shape}").unwrap();
        }
    }
    insta::assert_snapshot!(out);
}
