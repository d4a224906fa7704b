//! An ontology as a Cortex Analyst semantic model: an object is a logical
//! table on its base table, identifiers and dimensions are dimensions, time
//! attributes time dimensions, measure attributes facts, a simple metric an
//! aggregate in its table's metrics (its filters a `CASE WHEN` inside the
//! aggregate), a ratio a model-level metric dividing two of them, rules the
//! custom instructions. What Cortex has no field for travels in one comment
//! line Cortex ignores (see `import::cortex`), so the file reads back as the
//! same ontology; each such loss for Cortex itself is a note.

use crate::ontology::import::cortex::NamedFilter as CortexFilter;
use crate::ontology::import::cortex::{
    BaseTable, Column, CortexMetric, EXTRAS_PREFIX, Extras, MetricExtras, ObjectExtras, PrimaryKey,
    Relationship as CortexRelationship, RelationshipColumn, RelationshipExtras, SemanticModel,
    Table, VerifiedQuery,
};
use crate::ontology::import::{replace_identifiers, text_join_and};
use crate::ontology::model::*;
use std::collections::HashSet;

/// How the model is named and where its tables live in Snowflake.
#[derive(Clone, Debug, Default)]
pub struct CortexOptions {
    pub name: String,
    /// For tables the ontology names without a database or schema.
    pub database: Option<String>,
    pub schema: Option<String>,
}

/// The semantic model's YAML, and what Cortex will not see of the ontology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CortexExport {
    pub yaml: String,
    pub notes: Vec<String>,
}

fn snowflake_type(data_type: DataType) -> &'static str {
    match data_type {
        DataType::Integer => "NUMBER(38,0)",
        DataType::Decimal => "NUMBER(38,2)",
        DataType::Text => "VARCHAR",
        DataType::Boolean => "BOOLEAN",
        DataType::Date => "DATE",
        DataType::Timestamp => "TIMESTAMP_NTZ",
    }
}

/// A metric's filters as Cortex reads them: a named filter's name (`urgent_orders`)
/// replaced by its condition.
fn filters_expanded(metric: &Metric, ontology: &Ontology) -> Vec<String> {
    let named = ontology
        .objects
        .iter()
        .find(|o| o.name == metric.object)
        .map_or(&[][..], |o| o.filters.as_slice());
    metric
        .filters
        .iter()
        .map(|f| {
            replace_identifiers(f, |word| {
                named
                    .iter()
                    .find(|n| n.name == word)
                    .map(|n| format!("({})", n.expr))
            })
        })
        .collect()
}

fn aggregate_sql(metric: &Metric, filters: &[String]) -> String {
    let value = metric.expr.clone();
    let function = match metric.aggregate {
        Aggregate::Count | Aggregate::CountDistinct => "COUNT",
        Aggregate::Sum => "SUM",
        Aggregate::Avg => "AVG",
        Aggregate::Min => "MIN",
        Aggregate::Max => "MAX",
    };
    let distinct = if metric.aggregate == Aggregate::CountDistinct {
        "DISTINCT "
    } else {
        ""
    };
    let inner = match (filters.is_empty(), value) {
        (true, Some(value)) => value,
        (true, None) => "*".to_owned(),
        (false, value) => format!(
            "CASE WHEN {} THEN {} END",
            text_join_and(filters),
            value.unwrap_or_else(|| "1".to_owned())
        ),
    };
    format!("{function}({distinct}{inner})")
}

fn slug(text: &str) -> String {
    let slug: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let slug: Vec<&str> = slug.split('_').filter(|s| !s.is_empty()).collect();
    slug.join("_")
}

pub fn to_cortex(ontology: &Ontology, options: &CortexOptions) -> CortexExport {
    let mut notes = Vec::new();
    let mut extras = Extras::default();
    let mut model = SemanticModel {
        name: options.name.clone(),
        description: ontology.description.clone(),
        ..SemanticModel::default()
    };
    for object in &ontology.objects {
        model
            .tables
            .push(table(object, ontology, options, &mut extras, &mut notes));
    }
    for r in &ontology.relationships {
        let logical = |object: &str, column: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == object)
                .and_then(|o| {
                    o.attributes
                        .iter()
                        .find(|a| a.column_name() == Some(column))
                })
                .map_or(column.to_owned(), |a| a.name.clone())
        };
        model.relationships.push(CortexRelationship {
            name: r.name.clone(),
            left_table: r.from.clone(),
            right_table: r.to.clone(),
            relationship_columns: r
                .keys
                .iter()
                .map(|k| RelationshipColumn {
                    left_column: logical(&r.from, &k.from),
                    right_column: logical(&r.to, &k.to),
                })
                .collect(),
            join_type: Some("left_outer".to_owned()),
            relationship_type: Some(
                match r.cardinality {
                    Cardinality::ManyToOne => "many_to_one",
                    Cardinality::OneToOne => "one_to_one",
                }
                .to_owned(),
            ),
        });
        if !r.description.is_empty() || !r.synonyms.is_empty() {
            extras.relationships.insert(
                r.name.clone(),
                RelationshipExtras {
                    description: r.description.clone(),
                    synonyms: r.synonyms.clone(),
                },
            );
        }
    }
    for m in &ontology.metrics {
        let mut extra = MetricExtras {
            label: m.label.clone(),
            format: m.format,
            variants: m.variants.clone(),
            object: None,
            filters: Vec::new(),
        };
        if filters_expanded(m, ontology) != m.filters {
            extra.filters = m.filters.clone();
        }
        if !m.variants.is_empty() {
            notes.push(format!(
                "metrics.{}: Cortex sees only its own definition; its variants ({}) are kept in the `# cassis:` comment",
                m.name,
                m.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        if m.is_semi_additive() {
            // Cortex would add the level up over time: a wrong figure, not a lesser one.
            notes.push(format!(
                "metrics.{}: Cortex's semantic model has no semi-additive metric (Snowflake's `NON ADDITIVE BY` exists only in CREATE SEMANTIC VIEW), and as a plain aggregate it would add the level up over time; it is left out for Cortex and kept whole in the `# cassis:` comment",
                m.name
            ));
            extras.unexported.push(m.clone());
            continue;
        }
        if !matches!(m.kind, MetricKind::Simple | MetricKind::Ratio) {
            notes.push(format!(
                "metrics.{}: Cortex has no metric of its kind ({:?}); it is kept whole in the `# cassis:` comment",
                m.name, m.kind
            ));
            extras.unexported.push(m.clone());
            continue;
        }
        if m.is_ratio() {
            let (numerator, denominator) = (
                m.numerator.clone().unwrap_or_default(),
                m.denominator.clone().unwrap_or_default(),
            );
            let object_of = |name: &str| {
                ontology
                    .metrics
                    .iter()
                    .find(|x| x.name == name)
                    .map_or(String::new(), |x| x.object.clone())
            };
            if object_of(&numerator) != m.object {
                extra.object = Some(m.object.clone());
            }
            model.metrics.push(CortexMetric {
                name: m.name.clone(),
                synonyms: m.synonyms.clone(),
                description: m.description.clone(),
                expr: format!(
                    "{}.{numerator} / {}.{denominator}",
                    object_of(&numerator),
                    object_of(&denominator)
                ),
                access_modifier: None,
            });
        }
        if extra != MetricExtras::default() {
            extras.metrics.insert(m.name.clone(), extra);
        }
    }
    extras.metric_order = ontology.metrics.iter().map(|m| m.name.clone()).collect();
    extras.fiscal_year_start = ontology.fiscal_year_start;
    extras.peers = ontology.peers.clone();
    for peer in &ontology.peers {
        notes.push(format!(
            "peers.{}: Cortex has no concept of peers; it is kept in the `# cassis:` comment",
            peer.name
        ));
    }
    if let Some(start) = ontology.fiscal_year_start {
        notes.push(format!(
            "fiscal_year_start: Cortex has no fiscal calendar; the year starting in {} is kept in the `# cassis:` comment",
            start.title()
        ));
    }
    model.custom_instructions = ontology
        .rules
        .iter()
        .map(|r| format!("{}: {}", r.name, r.text.replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n");
    for r in ontology.rules.iter().filter(|r| !r.synonyms.is_empty()) {
        extras
            .rule_synonyms
            .insert(r.name.clone(), r.synonyms.clone());
    }
    let mut names = HashSet::new();
    for (i, v) in ontology.verified_questions.iter().enumerate() {
        let mut name = slug(&v.question);
        if name.is_empty() || !names.insert(name.clone()) {
            name = format!("verified_question_{}", i + 1);
            names.insert(name.clone());
        }
        model.verified_queries.push(VerifiedQuery {
            name,
            question: v.question.clone(),
            sql: v.sql.clone(),
            ..VerifiedQuery::default()
        });
        if !v.description.is_empty() {
            extras
                .verified
                .insert(v.question.clone(), v.description.clone());
        }
    }
    if !ontology.verified_questions.is_empty() {
        notes.push(
            "verified_queries: their SQL reads the base tables and columns; Cortex expects logical tables (`__name`) and logical column names, so check them in Snowflake".to_owned(),
        );
    }
    let mut yaml = serde_yaml_ng::to_string(&model).expect("a semantic model always serializes");
    if extras != Extras::default() {
        let json = serde_json::to_string(&extras).expect("extras always serialize");
        yaml.push_str("# Cassis's own fields, which Cortex has none for; `cassis ontology import --from snowflake` reads them back:\n");
        yaml.push_str(EXTRAS_PREFIX);
        yaml.push_str(&json);
        yaml.push('\n');
    }
    CortexExport { yaml, notes }
}

fn table(
    object: &Object,
    ontology: &Ontology,
    options: &CortexOptions,
    extras: &mut Extras,
    notes: &mut Vec<String>,
) -> Table {
    let parts: Vec<&str> = object.table.split('.').collect();
    let base_table = match parts.as_slice() {
        [database, schema, table] => BaseTable {
            database: Some((*database).to_owned()),
            schema: Some((*schema).to_owned()),
            table: (*table).to_owned(),
        },
        [schema, table] => BaseTable {
            database: options.database.clone(),
            schema: Some((*schema).to_owned()),
            table: (*table).to_owned(),
        },
        _ => BaseTable {
            database: options.database.clone(),
            schema: options.schema.clone(),
            table: object.table.clone(),
        },
    };
    if base_table.database.is_none() || base_table.schema.is_none() {
        notes.push(format!(
            "objects.{}: Cortex needs the database and schema of `{}`; give them with --database and --schema",
            object.name, object.table
        ));
    }
    let mut extra = ObjectExtras {
        label: object.label.clone(),
        order: object.attributes.iter().map(|a| a.name.clone()).collect(),
        ..ObjectExtras::default()
    };
    let mut table = Table {
        name: object.name.clone(),
        description: object.description.clone(),
        synonyms: object.synonyms.clone(),
        base_table,
        ..Table::default()
    };
    for a in &object.attributes {
        if !a.label.is_empty() {
            extra.labels.insert(a.name.clone(), a.label.clone());
        }
        if a.role == AttributeRole::Identifier {
            extra.identifiers.push(a.name.clone());
        }
        if a.column.as_deref() == Some(a.name.as_str()) {
            extra.columns_named.push(a.name.clone());
        }
        let column = Column {
            name: a.name.clone(),
            synonyms: a.synonyms.clone(),
            description: a.description.clone(),
            expr: match (&a.expr, a.column_name()) {
                (Some(expr), _) => expr.clone(),
                (None, Some(column)) => column.to_owned(),
                (None, None) => a.name.clone(),
            },
            data_type: snowflake_type(a.data_type).to_owned(),
            unique: a.role == AttributeRole::Identifier
                && object.primary_key.len() == 1
                && a.column_name() == object.primary_key.first().map(String::as_str),
            sample_values: a
                .known_values
                .iter()
                .map(|v| serde_yaml_ng::Value::String(v.clone()))
                .collect(),
            ..Column::default()
        };
        match a.role {
            AttributeRole::Identifier | AttributeRole::Dimension => table.dimensions.push(column),
            AttributeRole::Time => table.time_dimensions.push(column),
            AttributeRole::Measure => table.facts.push(column),
        }
    }
    if !object.primary_key.is_empty() {
        let columns = object
            .primary_key
            .iter()
            .map(|column| {
                object
                    .attributes
                    .iter()
                    .find(|a| a.column_name() == Some(column))
                    .map_or(column.clone(), |a| a.name.clone())
            })
            .collect();
        table.primary_key = Some(PrimaryKey { columns });
    }
    for m in ontology.metrics.iter().filter(|m| {
        m.object == object.name && m.kind == MetricKind::Simple && !m.is_semi_additive()
    }) {
        table.metrics.push(CortexMetric {
            name: m.name.clone(),
            synonyms: m.synonyms.clone(),
            description: m.description.clone(),
            expr: aggregate_sql(m, &filters_expanded(m, ontology)),
            access_modifier: None,
        });
    }
    for f in &object.filters {
        if !f.label.is_empty() {
            extra.filter_labels.insert(f.name.clone(), f.label.clone());
        }
        table.filters.push(CortexFilter {
            name: f.name.clone(),
            synonyms: f.synonyms.clone(),
            description: f.description.clone(),
            expr: f.expr.clone(),
        });
    }
    if extra != ObjectExtras::default() {
        extras.objects.insert(object.name.clone(), extra);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::import::cortex::from_cortex;
    use crate::ontology::{DEFAULT_MAX_YAML_BYTES, from_yaml};
    use crate::project::Dialect;

    fn round_trip(yaml: &str, dialect: Dialect) -> (Ontology, Ontology, CortexExport) {
        let ontology = from_yaml(yaml).unwrap();
        let options = CortexOptions {
            name: "example".to_owned(),
            database: Some("ANALYTICS".to_owned()),
            schema: Some("PUBLIC".to_owned()),
        };
        let export = to_cortex(&ontology, &options);
        let back = from_cortex("model.yaml", &export.yaml, dialect, DEFAULT_MAX_YAML_BYTES)
            .unwrap_or_else(|e| panic!("{e}\n{}", export.yaml));
        (ontology, back.ontology, export)
    }

    /// Equal, or the first YAML line that differs.
    fn assert_same(read: &Ontology, written: &Ontology) {
        let (read_yaml, written_yaml) = (
            crate::ontology::to_yaml(read),
            crate::ontology::to_yaml(written),
        );
        let first = read_yaml
            .lines()
            .zip(written_yaml.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b);
        assert!(first.is_none(), "differs at line {first:?}");
        assert_eq!(read, written);
    }

    #[test]
    fn the_examples_read_back_as_the_same_ontology() {
        let wholesale = include_str!("../../../../examples/wholesale/ontology.yaml");
        let (ontology, back, export) = round_trip(wholesale, Dialect::Sqlite);
        assert_same(&back, &ontology);
        // Cortex itself sees the metrics, with filters inside the aggregate.
        assert!(
            export
                .yaml
                .contains("expr: COUNT(CASE WHEN l_receiptdate > l_commitdate THEN 1 END)"),
            "{}",
            export.yaml
        );
        assert!(
            export
                .yaml
                .contains("expr: order.revenue / order.order_count")
                || export
                    .yaml
                    .contains("expr: line_item.revenue / order.order_count"),
            "{}",
            export.yaml
        );
        assert!(
            export
                .notes
                .iter()
                .any(|n| n.contains("metrics.revenue") && n.contains("net, gross")),
            "{:?}",
            export.notes
        );
        let f1 = include_str!("../../../../examples/f1/ontology.yaml");
        let (ontology, back, export) = round_trip(f1, Dialect::Postgres);
        assert_same(&back, &ontology);
        assert!(export.yaml.contains("schema: public"), "{}", export.yaml);
    }

    #[test]
    fn without_the_comment_cortex_fields_alone_still_read() {
        let wholesale = include_str!("../../../../examples/wholesale/ontology.yaml");
        let ontology = from_yaml(wholesale).unwrap();
        let export = to_cortex(&ontology, &CortexOptions::default());
        let plain: String = export
            .yaml
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let back = from_cortex("m.yaml", &plain, Dialect::Sqlite, DEFAULT_MAX_YAML_BYTES).unwrap();
        let back = back.ontology;
        assert_eq!(back.objects.len(), ontology.objects.len());
        assert_eq!(back.relationships, ontology.relationships);
        let names = |o: &Ontology| o.metrics.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
        // Metrics of a kind Cortex lacks travel in the comment alone.
        let mut expected: Vec<String> = ontology
            .metrics
            .iter()
            .filter(|m| matches!(m.kind, MetricKind::Simple | MetricKind::Ratio))
            .map(|m| m.name.clone())
            .collect();
        assert!(expected.len() < ontology.metrics.len());
        expected.sort();
        let mut read = names(&back);
        read.sort();
        assert_eq!(read, expected);
        // Keys still read as identifiers, from the primary keys and joins.
        let order = back.objects.iter().find(|o| o.name == "order").unwrap();
        let customer_key = order
            .attributes
            .iter()
            .find(|a| a.name == "customer_key")
            .unwrap();
        assert_eq!(customer_key.role, AttributeRole::Identifier);
        assert!(
            export
                .notes
                .iter()
                .any(|n| n.contains("--database and --schema"))
        );
    }

    #[test]
    fn a_metric_filtered_by_a_named_filter_shows_cortex_its_condition_and_reads_back() {
        let yaml = r#"
fiscal_year_start: april
objects:
  - name: order
    table: orders
    attributes:
      - {name: order_key, column: o_orderkey, type: integer, role: identifier}
      - {name: total_price, column: o_totalprice, type: decimal, role: measure}
    filters:
      - {name: urgent_orders, expr: "o_orderpriority = '1-URGENT'", label: Urgent orders, synonyms: [rush orders]}
metrics:
  - {name: urgent_revenue, object: order, aggregate: sum, expr: o_totalprice, filters: [urgent_orders]}
"#;
        let (ontology, back, export) = round_trip(yaml, Dialect::Sqlite);
        assert_same(&back, &ontology);
        // Cortex reads the filter's condition where the metric names it,
        // and the filter itself among the table's.
        assert!(
            export.yaml.contains(
                "expr: SUM(CASE WHEN (o_orderpriority = '1-URGENT') THEN o_totalprice END)"
            ),
            "{}",
            export.yaml
        );
        assert!(
            export.yaml.contains("- name: urgent_orders"),
            "{}",
            export.yaml
        );
        assert!(
            export.notes.iter().any(|n| n.contains("fiscal_year_start")),
            "{:?}",
            export.notes
        );
    }

    /// A level Cortex would add up over time is not shown to Cortex as an
    /// aggregate; it travels in the comment and reads back whole.
    #[test]
    fn a_semi_additive_metric_is_kept_from_cortex_and_reads_back() {
        let yaml = r#"
objects:
  - name: snapshot
    table: balances
    attributes:
      - {name: account, column: account_id, type: text}
      - {name: snapshot_date, type: date, role: time}
      - {name: balance, type: decimal, role: measure}
metrics:
  - name: closing_balance
    object: snapshot
    aggregate: sum
    expr: balance
    semi_additive: {time: snapshot_date, per: [account]}
  - {name: snapshots, object: snapshot, aggregate: count}
"#;
        let (ontology, back, export) = round_trip(yaml, Dialect::Sqlite);
        assert_same(&back, &ontology);
        assert!(!export.yaml.contains("SUM(balance)"), "{}", export.yaml);
        assert!(export.yaml.contains("expr: COUNT(*)"), "{}", export.yaml);
        assert!(
            export
                .notes
                .iter()
                .any(|n| n.starts_with("metrics.closing_balance") && n.contains("semi-additive")),
            "{:?}",
            export.notes
        );
    }
}
