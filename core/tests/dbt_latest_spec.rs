//! A dbt project in the latest YAML spec (dbt 1.12: semantic models on
//! models, `examples/wholesale/dbt_latest/`), imported and compiled over
//! the demo's TPC-H data on SQLite, against SQL written by hand.

mod support;

use cassis_core::demo;
use cassis_core::engine::compile::compile;
use cassis_core::engine::execute::all_rows;
use cassis_core::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use cassis_core::ontology::DEFAULT_MAX_YAML_BYTES;
use cassis_core::ontology::import::Format;
use cassis_core::ontology::import::dbt::read_project;
use cassis_core::project::Dialect;
use cassis_core::service::imports::convert_files;
use cassis_core::warehouse::Warehouse;
use std::path::Path;
use std::time::Duration;

fn metric(name: &str) -> Measure {
    Measure::Metric {
        metric: name.into(),
        variant: None,
    }
}

#[tokio::test]
async fn the_latest_spec_project_answers_with_the_hand_written_figures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/wholesale/dbt_latest");
    let files = read_project(&dir, DEFAULT_MAX_YAML_BYTES).unwrap();
    // Its models file alone reads as dbt's, not as a Cassis ontology.
    let models = files
        .iter()
        .find(|f| f.name.ends_with("wholesale.yml"))
        .unwrap();
    assert_eq!(Format::detect(&models.text), Some(Format::Dbt));
    let imported = convert_files(&files, Dialect::Sqlite, DEFAULT_MAX_YAML_BYTES)
        .unwrap()
        .unwrap();
    assert_eq!(imported.warnings, vec![]);
    // The saved query became a verified question.
    assert_eq!(
        imported.ontology.verified_questions[0].question,
        "What is revenue by region?"
    );
    let ontology = imported.ontology;

    let data = tempfile::tempdir().unwrap();
    let path = data.path().join("wholesale.sqlite");
    demo::generate_warehouse(&path, 0.01, &mut |_: &str, _: u64| {})
        .await
        .unwrap();
    let warehouse = Warehouse::connect(&demo::warehouse_url(&path))
        .await
        .unwrap();
    let in_1995 = Filter {
        attribute: AttributeRef::new("order", "order_date"),
        condition: Condition::OneOf(vec![Literal::Integer(1995)]),
    };
    let cases = [
        (
            "revenue by region",
            SemanticPlan {
                measures: vec![metric("revenue")],
                dimensions: vec![AttributeRef::new("region", "region_name")],
                ..SemanticPlan::default()
            },
            "SELECT r.r_name, SUM(l.l_extendedprice * (1 - l.l_discount)) AS revenue \
             FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey \
             JOIN customer c ON c.c_custkey = o.o_custkey JOIN nation n ON n.n_nationkey = c.c_nationkey \
             JOIN region r ON r.r_regionkey = n.n_regionkey GROUP BY r.r_name ORDER BY revenue DESC",
        ),
        (
            "urgent orders in 1995 (a metric's filter)",
            SemanticPlan {
                measures: vec![metric("urgent_order_count")],
                filters: vec![in_1995],
                ..SemanticPlan::default()
            },
            "SELECT COUNT(*) FROM orders WHERE o_orderpriority = '1-URGENT' \
             AND o_orderdate BETWEEN '1995-01-01' AND '1995-12-31'",
        ),
        (
            "average revenue per order by market segment (a top-level ratio)",
            SemanticPlan {
                measures: vec![metric("average_revenue_per_order")],
                dimensions: vec![AttributeRef::new("customer", "market_segment")],
                ..SemanticPlan::default()
            },
            "SELECT c.c_mktsegment, 1.0 * rev.r / cnt.n AS a FROM customer c \
             JOIN (SELECT c2.c_mktsegment AS s, SUM(l.l_extendedprice * (1 - l.l_discount)) AS r \
                   FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey \
                   JOIN customer c2 ON c2.c_custkey = o.o_custkey GROUP BY c2.c_mktsegment) rev ON rev.s = c.c_mktsegment \
             JOIN (SELECT c3.c_mktsegment AS s, COUNT(*) AS n FROM orders o JOIN customer c3 ON c3.c_custkey = o.o_custkey \
                   GROUP BY c3.c_mktsegment) cnt ON cnt.s = c.c_mktsegment \
             GROUP BY c.c_mktsegment ORDER BY a DESC",
        ),
    ];
    let timeout = Duration::from_secs(60);
    for (what, plan, hand) in cases {
        let compiled =
            compile(&ontology, &plan, Dialect::Sqlite).unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = all_rows(&warehouse, &compiled.sql, timeout).await.unwrap();
        let want = all_rows(&warehouse, hand, timeout).await.unwrap();
        assert!(!want.is_empty(), "{what}");
        assert_eq!(
            support::normal(got),
            support::normal(want),
            "{what}:\n{}",
            compiled.sql
        );
    }
}
