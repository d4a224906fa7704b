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
        "peers.teammate.of: there is no object named `driver`",
        "peers.teammate.sharing: needs at least one object",
        "peers.rival.sharing[0]: there is no object named `season`",
        "peers.rival.through: `race` has no one-column relationship to `Driver`",
        "metrics.points.expr: a sum metric needs `expr`",
        "metrics.wins.filters[0]: the SQL expression `position = 1; DROP TABLE races` has text left over",
        "metrics.wins.variants: more than one variant is marked `default`",
        "metrics.wins.variants.a.plus: a metric cannot add itself",
        "metrics.wins.variants.b.plus: there is no metric named `laps`",
        "metrics.wins.variants.c.plus: `win_rate` is a ratio, which does not add up",
        "metrics.win_rate.denominator: there is no metric named `laps`",
        "metrics.win_rate.filters: a ratio takes no `filters`",
        "metrics.rate_of_rates.numerator: `win_rate` is itself a ratio",
        "metrics.rate_of_rates.denominator: a ratio cannot divide itself",
        "metrics.half.numerator: only a ratio has a `numerator`",
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

    // A ratio divides two metrics; an aggregate of its own is a mistake,
    // as a simple metric without one is.
    let ratio_aggregate = "metrics:\n  - name: r\n    object: o\n    type: ratio\n    aggregate: sum\n    numerator: a\n    denominator: b\n";
    let error = ontology::from_yaml(ratio_aggregate).unwrap_err();
    assert!(error.message.contains("takes no `aggregate`"), "{error}");
    assert!(error.line.is_some(), "{error:?}");
    let no_aggregate = "metrics:\n  - name: m\n    object: o\n";
    let error = ontology::from_yaml(no_aggregate).unwrap_err();
    assert!(error.message.contains("needs `aggregate`"), "{error}");
}

#[test]
fn a_ratio_is_written_without_an_aggregate_and_read_back() {
    let ontology = ontology::from_yaml(SMALL).unwrap();
    let ratio = ontology
        .metrics
        .iter()
        .find(|m| m.name == "win_rate")
        .unwrap();
    assert_eq!(ratio.kind, ontology::MetricKind::Ratio);
    assert_eq!(ratio.numerator.as_deref(), Some("wins"));
    assert_eq!(ratio.denominator.as_deref(), Some("starts"));
    let exported = ontology::to_yaml(&ontology);
    let written = &exported[exported.find("- name: win_rate").unwrap()..];
    // The last metric: its text ends where the rules begin.
    let written = &written[..written.find("rules:").unwrap()];
    assert!(written.contains("type: ratio"), "{written}");
    assert!(written.contains("numerator: wins"), "{written}");
    assert!(!written.contains("aggregate"), "{written}");
    // A simple metric keeps saying how it aggregates.
    assert!(exported.contains("aggregate: count"), "{exported}");
}

mod round_trip {
    //! Export then import gives back the same ontology, whatever text the
    //! data team typed: YAML-significant characters, words YAML would read as
    //! booleans or numbers, line breaks, unicode.

    use cassis_core::ontology::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_]{1,12}",
            "[ -~]{0,24}",
            "\\PC{0,16}",
            Just("yes".to_owned()),
            Just("null".to_owned()),
            Just("1.50".to_owned()),
            Just("- dash: colon # hash".to_owned()),
            Just("two\nlines\n".to_owned()),
            Just("  padded ".to_owned()),
        ]
    }

    fn texts() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec(text(), 0..3)
    }

    fn data_type() -> impl Strategy<Value = DataType> {
        prop_oneof![
            Just(DataType::Integer),
            Just(DataType::Decimal),
            Just(DataType::Text),
            Just(DataType::Boolean),
            Just(DataType::Date),
            Just(DataType::Timestamp)
        ]
    }

    fn role() -> impl Strategy<Value = AttributeRole> {
        prop_oneof![
            Just(AttributeRole::Identifier),
            Just(AttributeRole::Dimension),
            Just(AttributeRole::Time),
            Just(AttributeRole::Measure)
        ]
    }

    fn attribute() -> impl Strategy<Value = Attribute> {
        (
            text(),
            prop::option::of(text()),
            prop::option::of(text()),
            data_type(),
            role(),
            text(),
            texts(),
            texts(),
        )
            .prop_map(
                |(name, column, expr, data_type, role, description, synonyms, known_values)| {
                    Attribute {
                        name,
                        column,
                        expr,
                        data_type,
                        role,
                        label: String::new(),
                        description,
                        synonyms,
                        known_values,
                    }
                },
            )
    }

    fn object() -> impl Strategy<Value = Object> {
        (
            text(),
            text(),
            text(),
            texts(),
            texts(),
            prop::collection::vec(attribute(), 0..3),
            prop::collection::vec(named_filter(), 0..2),
        )
            .prop_map(
                |(name, table, label, synonyms, primary_key, attributes, filters)| Object {
                    name,
                    table,
                    label,
                    description: String::new(),
                    synonyms,
                    primary_key,
                    attributes,
                    filters,
                },
            )
    }

    fn named_filter() -> impl Strategy<Value = NamedFilter> {
        (text(), text(), text(), texts()).prop_map(|(name, expr, label, synonyms)| NamedFilter {
            name,
            expr,
            label,
            description: String::new(),
            synonyms,
        })
    }

    fn metric() -> impl Strategy<Value = Metric> {
        let aggregate = prop_oneof![
            Just(Aggregate::Count),
            Just(Aggregate::CountDistinct),
            Just(Aggregate::Sum),
            Just(Aggregate::Avg),
            Just(Aggregate::Min),
            Just(Aggregate::Max)
        ];
        let variant = (
            text(),
            any::<bool>(),
            prop::option::of(text()),
            prop::option::of(texts()),
            texts(),
        )
            .prop_map(|(name, default, expr, filters, plus)| MetricVariant {
                name,
                default,
                expr,
                filters,
                plus,
                ..Default::default()
            });
        (
            text(),
            text(),
            aggregate,
            prop::option::of(text()),
            texts(),
            prop::collection::vec(variant, 0..2),
        )
            .prop_map(
                |(name, object, aggregate, expr, filters, variants)| Metric {
                    name,
                    object,
                    aggregate,
                    expr,
                    filters,
                    format: Some(MetricFormat::Currency),
                    variants,
                    ..Default::default()
                },
            )
    }

    /// A ratio as read back: its aggregate is always `avg`, never written.
    fn ratio() -> impl Strategy<Value = Metric> {
        (
            text(),
            text(),
            prop::option::of(text()),
            prop::option::of(text()),
            texts(),
        )
            .prop_map(|(name, object, numerator, denominator, synonyms)| Metric {
                name,
                object,
                kind: MetricKind::Ratio,
                aggregate: Aggregate::Avg,
                numerator,
                denominator,
                synonyms,
                ..Default::default()
            })
    }

    /// A growth or a running total as read back: its aggregate is never
    /// written (`avg` for a growth, `sum` for a running total).
    fn over_periods() -> impl Strategy<Value = Metric> {
        let grain = prop_oneof![
            Just(Grain::Day),
            Just(Grain::Week),
            Just(Grain::Month),
            Just(Grain::Quarter),
            Just(Grain::Year)
        ];
        (
            text(),
            text(),
            prop::option::of(text()),
            prop::option::of(grain),
            any::<bool>(),
        )
            .prop_map(|(name, object, of, grain, growth)| Metric {
                name,
                object,
                kind: if growth {
                    MetricKind::Growth
                } else {
                    MetricKind::Cumulative
                },
                aggregate: if growth {
                    Aggregate::Avg
                } else {
                    Aggregate::Sum
                },
                of,
                period: grain.filter(|_| growth),
                to_date: grain.filter(|_| !growth),
                ..Default::default()
            })
    }

    fn ontology() -> impl Strategy<Value = Ontology> {
        let relationship =
            (text(), text(), text(), text(), text()).prop_map(|(name, from, to, a, b)| {
                Relationship {
                    name,
                    from,
                    to,
                    keys: vec![KeyPair { from: a, to: b }],
                    cardinality: Cardinality::OneToOne,
                    ..Default::default()
                }
            });
        let peer = (text(), text(), text(), texts(), text(), texts()).prop_map(
            |(name, of, through, sharing, description, synonyms)| Peer {
                name,
                of,
                through,
                sharing,
                description,
                synonyms,
            },
        );
        let rule = (text(), text(), texts()).prop_map(|(name, text, synonyms)| BusinessRule {
            name,
            text,
            synonyms,
        });
        let verified = (text(), text()).prop_map(|(question, sql)| VerifiedQuestion {
            question,
            sql,
            description: String::new(),
        });
        (
            text(),
            prop::collection::vec(object(), 0..3),
            prop::collection::vec(relationship, 0..2),
            prop::collection::vec(peer, 0..2),
            prop::collection::vec(prop_oneof![metric(), ratio(), over_periods()], 0..3),
            prop::collection::vec(rule, 0..2),
            prop::collection::vec(verified, 0..2),
            prop::option::of(prop::sample::select(Month::ALL.to_vec())),
        )
            .prop_map(
                |(
                    description,
                    objects,
                    relationships,
                    peers,
                    metrics,
                    rules,
                    verified_questions,
                    fiscal_year_start,
                )| {
                    Ontology {
                        description,
                        fiscal_year_start,
                        objects,
                        relationships,
                        peers,
                        metrics,
                        rules,
                        verified_questions,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn export_then_import_is_the_identity(ontology in ontology()) {
            let exported = to_yaml(&ontology);
            let imported = from_yaml(&exported).map_err(|e| TestCaseError::fail(format!("{e}\n{exported}")))?;
            prop_assert_eq!(imported, ontology);
        }
    }
}

#[test]
fn an_added_element_gets_its_own_problems_by_field() {
    let before = ontology::from_yaml(SMALL).unwrap();
    let mut after = before.clone();
    let mut metric = before.metrics[0].clone();
    metric.filters = vec!["position <=".to_owned()];
    after.metrics.push(metric.clone());
    let problems = ontology::problems_of_added(
        &before,
        &after,
        Dialect::Postgres,
        &format!("metrics.{}", metric.name),
        &format!("metrics[{}]", before.metrics.len()),
    );
    let fields: Vec<&str> = problems.iter().map(|(field, _)| field.as_str()).collect();
    // The same name twice, and a condition that is not SQL.
    assert_eq!(fields, ["name", "filters"], "{problems:?}");

    let mut unnamed = before.clone();
    unnamed.rules.push(ontology::BusinessRule::default());
    let index = format!("rules[{}]", before.rules.len());
    let problems =
        ontology::problems_of_added(&before, &unnamed, Dialect::Postgres, &index, &index);
    assert!(
        problems.iter().any(|(field, _)| field == "name"),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|(field, _)| field == "text"),
        "{problems:?}"
    );
}

#[test]
fn an_expression_may_name_another_objects_attribute_and_nothing_else_qualified() {
    let with = |expr: &str| {
        let mut ontology = ontology::from_yaml(SMALL).unwrap();
        let result = ontology
            .objects
            .iter_mut()
            .find(|o| o.name == "race_result")
            .unwrap();
        let points = result
            .attributes
            .iter_mut()
            .find(|a| a.name == "points")
            .unwrap();
        points.column = None;
        points.expr = Some(expr.to_owned());
        ontology::validate(&ontology, Dialect::Postgres)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    // A race's year and a driver's name, read from the result.
    assert_eq!(with("race.year - 1950"), Vec::<String>::new());
    assert_eq!(
        with("driver.full_name || ' ' || race.year"),
        Vec::<String>::new()
    );
    for (expr, says) in [
        ("season.year", "there is no object `season`"),
        ("race.round", "`race` has no attribute `round`"),
        (
            "pg_catalog.pg_user.passwd",
            "names `pg_catalog.pg_user.passwd`",
        ),
        ("(SELECT count(*) FROM pg_user)", "holds a query of its own"),
        ("points IN (SELECT 1)", "holds a query of its own"),
    ] {
        let problems = with(expr);
        assert!(
            problems.len() == 1 && problems[0].contains(says),
            "{expr}: {problems:?}"
        );
    }
}

#[test]
fn a_reference_reads_one_value_per_row() {
    // A race has many results: no one result's points belong to it.
    let mut ontology = ontology::from_yaml(SMALL).unwrap();
    let race = ontology
        .objects
        .iter_mut()
        .find(|o| o.name == "race")
        .unwrap();
    let year = race
        .attributes
        .iter_mut()
        .find(|a| a.name == "year")
        .unwrap();
    year.column = None;
    year.expr = Some("race_result.points".to_owned());
    let problems: Vec<String> = ontology::validate(&ontology, Dialect::Postgres)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        problems.len() == 1 && problems[0].contains("each race does not lead to one race_result"),
        "{problems:?}"
    );
}
