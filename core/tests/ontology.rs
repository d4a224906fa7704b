//! The ontology as data teams write it: YAML in, every problem out, YAML back.

use cassis_core::ontology::{self, Aggregate, Ontology};
use cassis_core::project::Dialect;

const SMALL: &str = include_str!("fixtures/small.yaml");
const BROKEN: &str = include_str!("fixtures/broken.yaml");

#[test]
fn a_valid_ontology_has_no_problems_in_any_dialect() {
    let ontology = ontology::from_yaml(SMALL).unwrap();
    assert_eq!(ontology.objects.len(), 3);
    assert_eq!(ontology.metrics[0].aggregate, Aggregate::Count);
    for dialect in [
        Dialect::Postgres,
        Dialect::Sqlite,
        Dialect::Snowflake,
        Dialect::BigQuery,
    ] {
        assert_eq!(ontology::validate(&ontology, dialect), vec![], "{dialect}");
    }
}

#[test]
fn export_then_import_is_the_identity() {
    let ontology = ontology::from_yaml(SMALL).unwrap();
    let exported = ontology::to_yaml(&ontology);
    assert_eq!(ontology::from_yaml(&exported).unwrap(), ontology);
    // Stable: exporting the re-imported ontology gives the same text.
    assert_eq!(
        ontology::to_yaml(&ontology::from_yaml(&exported).unwrap()),
        exported
    );
    assert_eq!(
        ontology::from_yaml(&ontology::to_yaml(&Ontology::default())).unwrap(),
        Ontology::default()
    );
}

#[test]
fn every_seeded_mistake_is_reported_with_its_path() {
    let ontology = ontology::from_yaml(BROKEN).unwrap();
    let problems: Vec<String> = ontology::validate(&ontology, Dialect::Postgres)
        .iter()
        .map(ToString::to_string)
        .collect();
    let expected = [
        "objects.Driver.name: `Driver` is not a valid name",
        "objects.Driver.synonyms: the synonym `Racer` is listed twice",
        "objects.Driver.attributes.full_name: two attributes are named `full_name`",
        "objects.Driver.attributes.full_name.expr: the SQL expression `forename ||` does not parse",
        "objects.Driver.attributes.full_name: has both `column` and `expr`",
        "objects.Driver.primary_key: `driver_key` is not a column",
        "objects.race.table: the table `public races x` has text left over",
        "relationships.result_race.from: there is no object named `race_result`",
        "relationships.result_race.keys[0].to: `race_key` is not a column",
        "metrics.points.expr: a sum metric needs `expr`",
        "metrics.wins.filters[0]: the SQL expression `position = 1; DROP TABLE races` has text left over",
        "metrics.wins.variants: more than one variant is marked `default`",
        "metrics.wins.variants.a.plus: a metric cannot add itself",
        "metrics.wins.variants.b.plus: there is no metric named `laps`",
        "rules.season.text: is empty",
        "verified_questions[0].sql: the approved SQL must be a read-only SELECT query",
    ];
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "missing problem `{want}` in:\n{}",
            problems.join("\n")
        );
    }
    // Only mistakes are reported: Driver's table is fine.
    assert!(
        !problems
            .iter()
            .any(|p| p.starts_with("objects.Driver.table")),
        "{problems:?}"
    );
    assert_eq!(
        problems.len(),
        expected.len(),
        "unexpected problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn yaml_errors_point_at_the_line() {
    let typo = "objects:\n  - name: driver\n    tabel: public.drivers\n";
    let error = ontology::from_yaml(typo).unwrap_err();
    assert_eq!(error.line, Some(3));
    assert!(error.to_string().starts_with("line 3"), "{error}");
    assert!(error.message.contains("tabel"), "{error}");

    let bad_enum = "metrics:\n  - name: m\n    object: o\n    aggregate: median\n";
    let error = ontology::from_yaml(bad_enum).unwrap_err();
    assert_eq!(error.line, Some(4));
    assert!(error.message.contains("median"), "{error}");
}
