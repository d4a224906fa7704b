//! A Snowflake Cortex Analyst semantic model read as a draft.
//!
//! Logical tables become objects on their base table (qualified as far as
//! the project's dialect names tables), dimensions, time dimensions and
//! facts (or the older `measures`) become attributes with their synonyms and
//! sample values, metrics that are one aggregate become metrics (a `CASE
//! WHEN` inside the aggregate becomes the metric's filter), a model-level
//! metric dividing one metric by another becomes a ratio, relationships
//! become joins, verified queries become verified questions and custom
//! instructions become business rules, named filters the object's named
//! filters. Access modifiers, Cortex Search services and onboarding flags
//! have no Cassis equivalent yet and are warned about.
//!
//! Cassis's own fields that Cortex cannot hold (labels, formats, variants,
//! which dimensions are identifiers, attribute order) travel in one comment
//! line at the end, `# cassis: {...}`, which Cortex ignores; with it an
//! exported model reads back as the same ontology.

use super::text::{self, aggregate_expr, bare_column, ratio_of_names};
use super::{ImportError, Imported, Warnings, read_yaml};
use crate::ontology::model::*;
use crate::project::Dialect;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// The comment line that carries Cassis's own fields.
pub(crate) const EXTRAS_PREFIX: &str = "# cassis: ";

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct SemanticModel {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<Table>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relationships: Vec<Relationship>,
    /// Model-level (derived) metrics over the tables' metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<CortexMetric>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verified_queries: Vec<VerifiedQuery>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub custom_instructions: String,
    #[serde(default, skip_serializing)]
    pub module_custom_instructions: Option<serde_yaml_ng::Value>,
    #[serde(default, skip_serializing)]
    pub comments: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Table {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    pub base_table: BaseTable,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<PrimaryKey>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dimensions: Vec<Column>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time_dimensions: Vec<Column>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<Column>,
    /// The older name of `facts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measures: Vec<Column>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<CortexMetric>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<NamedFilter>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct BaseTable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub table: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct PrimaryKey {
    pub columns: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Column {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub expr: String,
    pub data_type: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sample_values: Vec<serde_yaml_ng::Value>,
    #[serde(default, skip_serializing)]
    pub is_enum: Option<bool>,
    #[serde(default, skip_serializing)]
    pub default_aggregation: Option<String>,
    #[serde(default, skip_serializing)]
    pub access_modifier: Option<String>,
    #[serde(default, skip_serializing)]
    pub cortex_search_service: Option<serde_yaml_ng::Value>,
    #[serde(default, skip_serializing)]
    pub cortex_search_service_name: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct CortexMetric {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub expr: String,
    #[serde(default, skip_serializing)]
    pub access_modifier: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct NamedFilter {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub expr: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Relationship {
    pub name: String,
    pub left_table: String,
    pub right_table: String,
    pub relationship_columns: Vec<RelationshipColumn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship_type: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct RelationshipColumn {
    pub left_column: String,
    pub right_column: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct VerifiedQuery {
    pub name: String,
    pub question: String,
    pub sql: String,
    #[serde(default, skip_serializing)]
    pub verified_at: Option<i64>,
    #[serde(default, skip_serializing)]
    pub verified_by: Option<String>,
    #[serde(default, skip_serializing)]
    pub use_as_onboarding_question: Option<bool>,
}

/// What Cassis keeps that a Cortex model has no field for.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Extras {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub objects: BTreeMap<String, ObjectExtras>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, MetricExtras>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub relationships: BTreeMap<String, RelationshipExtras>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rule_synonyms: BTreeMap<String, Vec<String>>,
    /// Metric names in their order (Cortex keeps them per table).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metric_order: Vec<String>,
    /// Verified questions' descriptions, by question.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verified: BTreeMap<String, String>,
    /// Metrics Cortex has no kind for (growth, running totals, derived),
    /// whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexported: Vec<crate::ontology::Metric>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fiscal_year_start: Option<Month>,
    /// Peers ("teammate"), which Cortex has no concept for, whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<Peer>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ObjectExtras {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Attribute names in their order (Cortex groups them by kind).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identifiers: Vec<String>,
    /// Attributes that name their column even though it is their own name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns_named: Vec<String>,
    /// Named filters' labels, by filter.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub filter_labels: BTreeMap<String, String>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct MetricExtras {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<MetricFormat>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<MetricVariant>,
    /// A ratio's object, when it is its denominator's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Its filters as written, where they name a named filter (Cortex sees
    /// the filter's condition in their place).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RelationshipExtras {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

/// Snowflake's type names as Cassis's types; `None` for one it does not know.
pub(crate) fn data_type(snowflake: &str) -> Option<DataType> {
    let upper = snowflake.trim().to_uppercase();
    let (base, args) = match upper.split_once('(') {
        Some((base, args)) => (base.trim(), Some(args.trim_end_matches(')'))),
        None => (upper.as_str(), None),
    };
    let scale = args
        .and_then(|a| a.split(',').nth(1))
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(0);
    Some(match base {
        "NUMBER" | "DECIMAL" | "NUMERIC" if scale > 0 => DataType::Decimal,
        "NUMBER" | "DECIMAL" | "NUMERIC" | "INT" | "INTEGER" | "BIGINT" | "SMALLINT"
        | "TINYINT" | "BYTEINT" => DataType::Integer,
        "FLOAT" | "FLOAT4" | "FLOAT8" | "DOUBLE" | "DOUBLE PRECISION" | "REAL" => DataType::Decimal,
        "VARCHAR" | "CHAR" | "CHARACTER" | "STRING" | "TEXT" | "NVARCHAR" | "NCHAR" => {
            DataType::Text
        }
        "BOOLEAN" | "BOOL" => DataType::Boolean,
        "DATE" => DataType::Date,
        "DATETIME" | "TIMESTAMP" | "TIMESTAMP_NTZ" | "TIMESTAMP_LTZ" | "TIMESTAMP_TZ" => {
            DataType::Timestamp
        }
        _ => return None,
    })
}

/// The name a table is queried by in `dialect`: by its database and schema
/// where the dialect names them
/// ([`names_database`](crate::sql::SqlDialect::names_database),
/// [`names_schema`](crate::sql::SqlDialect::names_schema)); the parts
/// dropped are returned for a warning.
fn qualified(base: &BaseTable, dialect: Dialect) -> (String, Vec<&'static str>) {
    let mut dropped = Vec::new();
    let mut parts = Vec::new();
    let rules = dialect.sql();
    if let Some(database) = base.database.as_deref().filter(|d| !d.is_empty()) {
        if rules.names_database() {
            parts.push(database);
        } else {
            dropped.push("database");
        }
    }
    if let Some(schema) = base.schema.as_deref().filter(|s| !s.is_empty()) {
        if rules.names_schema() {
            parts.push(schema);
        } else {
            dropped.push("schema");
        }
    }
    parts.push(&base.table);
    (parts.join("."), dropped)
}

/// Reads a Cortex Analyst semantic model from `text` (named `file` in
/// messages) for a project in `dialect`.
pub fn from_cortex(
    file: &str,
    text: &str,
    dialect: Dialect,
    max_bytes: usize,
) -> Result<Imported, ImportError> {
    let model: SemanticModel = read_yaml(file, text, max_bytes)?;
    let mut warnings = Warnings::new(file, text);
    let extras = read_extras(file, text)?;
    let ontology = read_model(&model, &extras, dialect, &mut warnings)?;
    Ok(Imported {
        ontology,
        warnings: warnings.list,
        saved_queries: Vec::new(),
    })
}

fn read_extras(file: &str, text: &str) -> Result<Extras, ImportError> {
    let Some((index, line)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(EXTRAS_PREFIX))
    else {
        return Ok(Extras::default());
    };
    serde_json::from_str(&line[EXTRAS_PREFIX.len()..]).map_err(|e| ImportError::Invalid {
        file: file.to_owned(),
        line: Some(index + 1),
        item: "the `# cassis:` comment".to_owned(),
        message: format!("{e}; remove the line to import without Cassis's own fields"),
    })
}

fn sample_values(values: &[serde_yaml_ng::Value]) -> Vec<String> {
    values
        .iter()
        .filter_map(|v| match v {
            serde_yaml_ng::Value::String(s) => Some(s.clone()),
            serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
            serde_yaml_ng::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        })
        .collect()
}

fn read_model(
    model: &SemanticModel,
    extras: &Extras,
    dialect: Dialect,
    w: &mut Warnings,
) -> Result<Ontology, ImportError> {
    let mut ontology = Ontology {
        description: model.description.clone(),
        fiscal_year_start: extras.fiscal_year_start,
        peers: extras.peers.clone(),
        ..Ontology::default()
    };
    if model
        .comments
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty())
    {
        w.add(
            &["comments"],
            "comments",
            "the model's comments are for its authors; not imported",
        );
    }
    if model.module_custom_instructions.is_some() {
        w.add(
            &["module_custom_instructions"],
            "module_custom_instructions",
            "instructions per Cortex module (SQL generation, question categorization) have no Cassis equivalent; not imported",
        );
    }
    // Columns that join or identify rows, which Cortex lists as dimensions.
    let mut keys: HashSet<(String, String)> = HashSet::new();
    for r in &model.relationships {
        for c in &r.relationship_columns {
            keys.insert((r.left_table.clone(), c.left_column.clone()));
            keys.insert((r.right_table.clone(), c.right_column.clone()));
        }
    }
    let mut seen = HashSet::new();
    for table in &model.tables {
        if !seen.insert(table.name.as_str()) {
            return Err(w.invalid(
                &["tables", &table.name],
                format!("tables.{}", table.name),
                "the logical table is defined twice",
            ));
        }
        let object = read_table(table, extras, &keys, dialect, w, &mut ontology.metrics)?;
        ontology.objects.push(object);
    }
    for r in &model.relationships {
        ontology
            .relationships
            .push(read_relationship(r, &ontology, extras, w)?);
    }
    for m in &model.metrics {
        read_model_metric(m, &mut ontology, extras, w);
    }
    ontology.metrics.extend(extras.unexported.iter().cloned());
    if !extras.metric_order.is_empty() {
        let order = &extras.metric_order;
        ontology.metrics.sort_by_key(|m| {
            order
                .iter()
                .position(|n| *n == m.name)
                .unwrap_or(usize::MAX)
        });
    }
    for m in &mut ontology.metrics {
        if let Some(extra) = extras.metrics.get(&m.name) {
            m.label = extra.label.clone();
            m.format = extra.format;
            m.variants = extra.variants.clone();
            if !extra.filters.is_empty() {
                m.filters = extra.filters.clone();
            }
        }
    }
    ontology.rules = read_instructions(&model.custom_instructions, extras);
    for q in &model.verified_queries {
        let item = format!("verified_queries.{}", q.name);
        if q.verified_at.is_some() || q.verified_by.is_some() {
            w.add(
                &["verified_queries", &q.name],
                &item,
                "who verified it and when are not kept (the draft's history records who imported it)",
            );
        }
        if q.use_as_onboarding_question == Some(true) {
            w.add(
                &["verified_queries", &q.name],
                &item,
                "onboarding questions are not shown to users in Cassis; imported as a verified question",
            );
        }
        let sql = physical_sql(&q.sql, model, dialect);
        if sql != q.sql {
            w.add(
                &["verified_queries", &q.name],
                &item,
                "its SQL reads logical tables (`__name`): each is defined over its base table in a WITH clause so the SQL runs as written",
            );
        }
        ontology.verified_questions.push(VerifiedQuestion {
            question: q.question.clone(),
            sql,
            description: extras
                .verified
                .get(&q.question)
                .cloned()
                .unwrap_or_default(),
        });
    }
    Ok(ontology)
}

fn read_table(
    table: &Table,
    extras: &Extras,
    keys: &HashSet<(String, String)>,
    dialect: Dialect,
    w: &mut Warnings,
    metrics: &mut Vec<Metric>,
) -> Result<Object, ImportError> {
    let t = table.name.as_str();
    let (name_in_source, dropped) = qualified(&table.base_table, dialect);
    if !dropped.is_empty() {
        w.add(
            &["tables", t, "base_table"],
            format!("tables.{t}.base_table"),
            format!(
                "its {} {} not used: a {dialect} source names the table `{name_in_source}`",
                dropped.join(" and "),
                if dropped.len() == 1 { "is" } else { "are" }
            ),
        );
    }
    let none = ObjectExtras::default();
    let extra = extras.objects.get(t).unwrap_or(&none);
    let mut attributes = Vec::new();
    let kinds = [
        ("dimensions", &table.dimensions, AttributeRole::Dimension),
        (
            "time_dimensions",
            &table.time_dimensions,
            AttributeRole::Time,
        ),
        ("facts", &table.facts, AttributeRole::Measure),
        ("measures", &table.measures, AttributeRole::Measure),
    ];
    for (kind, columns, role) in kinds {
        for c in columns.iter() {
            let item = format!("tables.{t}.{kind}.{}", c.name);
            let at = ["tables", t, kind, c.name.as_str()];
            let data_type = data_type(&c.data_type).unwrap_or_else(|| {
                w.add(
                    &at,
                    &item,
                    format!(
                        "the data type `{}` is not one Cassis knows; read as text",
                        c.data_type
                    ),
                );
                DataType::Text
            });
            let column = bare_column(&c.expr);
            let is_key = column.is_some_and(|col| {
                keys.contains(&(t.to_owned(), c.name.clone()))
                    || keys.contains(&(t.to_owned(), col.to_owned()))
            }) || table
                .primary_key
                .as_ref()
                .is_some_and(|pk| pk.columns.contains(&c.name));
            let role = if extra.identifiers.contains(&c.name)
                || (extra.order.is_empty() && role == AttributeRole::Dimension && is_key)
            {
                AttributeRole::Identifier
            } else {
                role
            };
            for (present, what) in [
                (
                    c.cortex_search_service.is_some() || c.cortex_search_service_name.is_some(),
                    "its Cortex Search service",
                ),
                (
                    c.access_modifier.as_deref() == Some("private_access"),
                    "private access (Cassis shows every attribute)",
                ),
                (
                    c.is_enum == Some(true),
                    "is_enum (Cassis reads sample values as values questions may name, not as all there are)",
                ),
            ] {
                if present {
                    w.add(
                        &at,
                        &item,
                        format!("{what} has no Cassis equivalent; not imported"),
                    );
                }
            }
            if let Some(aggregation) = &c.default_aggregation {
                w.add(&at, &item, format!("its default aggregation `{aggregation}` is not kept: questions say how to aggregate an attribute, metrics are named aggregates"));
            }
            attributes.push(Attribute {
                name: c.name.clone(),
                column: match column {
                    Some(col) if col == c.name && !extra.columns_named.contains(&c.name) => None,
                    Some(col) => Some(col.to_owned()),
                    None => None,
                },
                expr: column.is_none().then(|| c.expr.clone()),
                data_type,
                role,
                label: extra.labels.get(&c.name).cloned().unwrap_or_default(),
                description: c.description.clone(),
                synonyms: c.synonyms.clone(),
                known_values: sample_values(&c.sample_values),
            });
        }
    }
    if !extra.order.is_empty() {
        attributes.sort_by_key(|a| {
            extra
                .order
                .iter()
                .position(|n| *n == a.name)
                .unwrap_or(usize::MAX)
        });
    }
    let primary_key = match &table.primary_key {
        Some(pk) => pk
            .columns
            .iter()
            .map(|name| {
                attributes
                    .iter()
                    .find(|a| a.name == *name)
                    .and_then(|a| a.column_name())
                    .unwrap_or(name)
                    .to_owned()
            })
            .collect(),
        None => Vec::new(),
    };
    // A table's metrics, each one aggregate over its columns.
    let logical: BTreeMap<&str, &Attribute> =
        attributes.iter().map(|a| (a.name.as_str(), a)).collect();
    // Logical names in an expression as the table's own columns.
    let to_columns = |expr: &str| {
        text::replace_identifiers(expr, |word| {
            let word = word.strip_prefix(&format!("{t}.")).unwrap_or(word);
            let a = logical.get(word)?;
            match (&a.expr, a.column_name()) {
                (Some(expr), _) => Some(format!("({expr})")),
                (None, Some(column)) if column != word => Some(column.to_owned()),
                _ => None,
            }
        })
    };
    for m in &table.metrics {
        let item = format!("tables.{t}.metrics.{}", m.name);
        let at = ["tables", t, "metrics", m.name.as_str()];
        if m.access_modifier.as_deref() == Some("private_access") {
            w.add(
                &at,
                &item,
                "private access has no Cassis equivalent: the metric is imported and visible",
            );
        }
        let physical = to_columns(&m.expr);
        let Some(read) = aggregate_expr(&physical) else {
            w.add(&at, &item, format!("`{}` is not one aggregate (SUM, COUNT, COUNT(DISTINCT), AVG, MIN or MAX) over the table's columns; not imported", m.expr));
            continue;
        };
        metrics.push(Metric {
            name: m.name.clone(),
            object: t.to_owned(),
            aggregate: read.aggregate,
            kind: MetricKind::Simple,
            expr: read.expr,
            filters: read.filters,
            description: m.description.clone(),
            synonyms: m.synonyms.clone(),
            ..Metric::default()
        });
    }
    // Named filters, over the table's columns like its metrics.
    let filters = table
        .filters
        .iter()
        .map(|f| crate::ontology::model::NamedFilter {
            name: f.name.clone(),
            expr: to_columns(&f.expr),
            label: extra
                .filter_labels
                .get(&f.name)
                .cloned()
                .unwrap_or_default(),
            description: f.description.clone(),
            synonyms: f.synonyms.clone(),
        })
        .collect();
    Ok(Object {
        name: t.to_owned(),
        table: name_in_source,
        label: extra.label.clone(),
        description: table.description.clone(),
        synonyms: table.synonyms.clone(),
        primary_key,
        attributes,
        filters,
    })
}

fn read_relationship(
    r: &Relationship,
    ontology: &Ontology,
    extras: &Extras,
    w: &mut Warnings,
) -> Result<super::super::Relationship, ImportError> {
    let item = format!("relationships.{}", r.name);
    let at = ["relationships", r.name.as_str()];
    let column = |table: &str, name: &str| {
        ontology
            .attribute(table, name)
            .and_then(|a| a.column_name())
            .unwrap_or(name)
            .to_owned()
    };
    let cardinality = match r.relationship_type.as_deref() {
        None | Some("many_to_one") => Cardinality::ManyToOne,
        Some("one_to_one") => Cardinality::OneToOne,
        Some(other) => {
            return Err(w.invalid(
                &at,
                item,
                format!("relationship_type `{other}` is not many_to_one or one_to_one"),
            ));
        }
    };
    if let Some(join) = r.join_type.as_deref().filter(|j| *j != "left_outer") {
        w.add(
            &at,
            &item,
            format!(
                "join_type `{join}` is not kept: Cassis joins from the many side and keeps its rows"
            ),
        );
    }
    let extra = extras.relationships.get(&r.name);
    Ok(super::super::Relationship {
        name: r.name.clone(),
        from: r.left_table.clone(),
        to: r.right_table.clone(),
        keys: r
            .relationship_columns
            .iter()
            .map(|c| KeyPair {
                from: column(&r.left_table, &c.left_column),
                to: column(&r.right_table, &c.right_column),
            })
            .collect(),
        cardinality,
        description: extra.map(|e| e.description.clone()).unwrap_or_default(),
        synonyms: extra.map(|e| e.synonyms.clone()).unwrap_or_default(),
    })
}

/// A model-level metric: a ratio of two table metrics, or a warning.
fn read_model_metric(m: &CortexMetric, ontology: &mut Ontology, extras: &Extras, w: &mut Warnings) {
    let item = format!("metrics.{}", m.name);
    let at = ["metrics", m.name.as_str()];
    let ratio = ratio_of_names(&m.expr).filter(|(n, d)| {
        let simple = |name: &str| {
            ontology
                .metrics
                .iter()
                .any(|x| x.name == name && !x.is_ratio())
        };
        simple(n) && simple(d)
    });
    let Some((numerator, denominator)) = ratio else {
        w.add(&at, &item, format!("`{}` is not one metric divided by another; derived metrics are not in Cassis yet, not imported", m.expr));
        return;
    };
    let object = extras
        .metrics
        .get(&m.name)
        .and_then(|e| e.object.clone())
        .or_else(|| {
            ontology
                .metrics
                .iter()
                .find(|x| x.name == numerator)
                .map(|x| x.object.clone())
        })
        .unwrap_or_default();
    ontology.metrics.push(Metric {
        name: m.name.clone(),
        object,
        aggregate: Aggregate::Avg,
        kind: MetricKind::Ratio,
        numerator: Some(numerator),
        denominator: Some(denominator),
        description: m.description.clone(),
        synonyms: m.synonyms.clone(),
        ..Metric::default()
    });
}

/// Custom instructions as business rules: `name: text` lines as written by
/// the export, or the whole text as one rule.
fn read_instructions(text: &str, extras: &Extras) -> Vec<BusinessRule> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let named: Option<Vec<(&str, &str)>> = lines
        .iter()
        .map(|l| {
            let (name, rest) = l.split_once(": ")?;
            bare_column(name).map(|n| (n, rest.trim()))
        })
        .collect();
    let rule = |name: &str, text: &str| BusinessRule {
        name: name.to_owned(),
        text: text.to_owned(),
        synonyms: extras.rule_synonyms.get(name).cloned().unwrap_or_default(),
    };
    match named {
        Some(named) => named.into_iter().map(|(n, t)| rule(n, t)).collect(),
        None => vec![rule("custom_instructions", text.trim())],
    }
}

/// Verified SQL over logical tables (`__orders`, with logical column names)
/// made to run on the base tables: each logical table it reads becomes a
/// WITH query that names its columns as the model does.
fn physical_sql(sql: &str, model: &SemanticModel, dialect: Dialect) -> String {
    let used: Vec<&Table> = model
        .tables
        .iter()
        .filter(|t| {
            let needle = format!("__{}", t.name).to_lowercase();
            let lower = sql.to_lowercase();
            lower.match_indices(&needle).any(|(i, _)| {
                let after = lower[i + needle.len()..].chars().next();
                let before = lower[..i].chars().next_back();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect();
    if used.is_empty() {
        return sql.to_owned();
    }
    let definitions: Vec<String> = used
        .iter()
        .map(|t| {
            let columns: Vec<String> = t
                .dimensions
                .iter()
                .chain(&t.time_dimensions)
                .chain(&t.facts)
                .chain(&t.measures)
                .map(|c| format!("{} AS {}", c.expr, c.name))
                .collect();
            let (table, _) = qualified(&t.base_table, dialect);
            format!(
                "__{} AS (SELECT {} FROM {table})",
                t.name,
                columns.join(", ")
            )
        })
        .collect();
    let trimmed = sql.trim();
    match trimmed.get(..5) {
        Some(head) if head.eq_ignore_ascii_case("WITH ") => {
            format!("WITH {}, {}", definitions.join(", "), &trimmed[5..])
        }
        _ => format!("WITH {}\n{trimmed}", definitions.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::DEFAULT_MAX_YAML_BYTES;

    const WHOLESALE: &str = include_str!("../../../../examples/wholesale/cortex.yaml");

    fn read(text: &str) -> Result<Imported, ImportError> {
        from_cortex("model.yaml", text, Dialect::Sqlite, DEFAULT_MAX_YAML_BYTES)
    }

    #[test]
    fn the_wholesale_model_reads_with_a_warning_per_item_left_out() {
        let imported = read(WHOLESALE).unwrap();
        let o = &imported.ontology;
        assert!(crate::ontology::validate(o, Dialect::Sqlite).is_empty());
        let items: Vec<&str> = imported.warnings.iter().map(|w| w.item.as_str()).collect();
        for item in [
            "tables.region.base_table",
            "tables.nation.dimensions.nation_name",
            "tables.customer.dimensions.market_segment",
            "tables.line_item.facts.net_amount",
            "tables.line_item.metrics.revenue_margin_estimate",
            "relationships.order_customer",
            "metrics.revenue_per_customer_squared",
            "verified_queries.orders_in_1995",
        ] {
            assert!(items.contains(&item), "{item} in {items:?}");
        }
        let margin = imported
            .warnings
            .iter()
            .find(|w| w.item == "tables.line_item.metrics.revenue_margin_estimate")
            .unwrap();
        assert_eq!(
            margin.to_string(),
            "model.yaml:194: tables.line_item.metrics.revenue_margin_estimate: `SUM(net_amount) - SUM(quantity) * 10` is not one aggregate (SUM, COUNT, COUNT(DISTINCT), AVG, MIN or MAX) over the table's columns; not imported"
        );
        let metric = |name: &str| o.metrics.iter().find(|m| m.name == name).unwrap();
        // Logical names in a metric read the columns they stand for.
        assert_eq!(
            metric("revenue").expr.as_deref(),
            Some("(l_extendedprice * (1 - l_discount))")
        );
        assert_eq!(
            metric("returned_quantity").filters,
            vec!["l_returnflag = 'R'"]
        );
        assert_eq!(
            metric("urgent_orders").filters,
            vec!["o_orderpriority = '1-URGENT'"]
        );
        let ratio = metric("average_revenue_per_order");
        assert_eq!(
            (
                ratio.numerator.as_deref(),
                ratio.denominator.as_deref(),
                ratio.object.as_str()
            ),
            (Some("revenue"), Some("order_count"), "line_item")
        );
        let line_item = o.objects.iter().find(|x| x.name == "line_item").unwrap();
        assert_eq!(line_item.table, "lineitem");
        assert_eq!(line_item.primary_key, ["l_orderkey", "l_linenumber"]);
        let key = line_item
            .attributes
            .iter()
            .find(|a| a.name == "order_key")
            .unwrap();
        assert_eq!(
            (key.role, key.column.as_deref()),
            (AttributeRole::Identifier, Some("l_orderkey"))
        );
        let joins: Vec<(&str, &str)> = o
            .relationships
            .iter()
            .map(|r| (r.keys[0].from.as_str(), r.keys[0].to.as_str()))
            .collect();
        assert_eq!(
            joins,
            [
                ("n_regionkey", "r_regionkey"),
                ("c_nationkey", "n_nationkey"),
                ("o_custkey", "c_custkey"),
                ("l_orderkey", "o_orderkey")
            ]
        );
        let segment = o.attribute("customer", "market_segment").unwrap();
        assert_eq!(segment.known_values.len(), 5);
        let rules: Vec<&str> = o.rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(rules, ["revenue_is_net", "dates_are_text"]);
        // A named filter is the object's, applied by name.
        let urgent = o.named_filter("orders", "urgent").unwrap();
        assert_eq!(urgent.expr, "o_orderpriority = '1-URGENT'");
        assert_eq!(urgent.synonyms, ["urgent orders", "rush orders"]);
        // Verified SQL over logical tables runs on the base tables.
        assert_eq!(
            o.verified_questions[0].sql,
            "WITH __orders AS (SELECT o_orderkey AS order_key, o_custkey AS customer_key, o_orderstatus AS order_status, o_orderpriority AS order_priority, o_orderdate AS order_date, o_totalprice AS total_price FROM orders)\nSELECT COUNT(*) AS orders FROM __orders WHERE order_date >= '1995-01-01' AND order_date < '1996-01-01'"
        );
        // Tables keep their database and schema where the dialect names them.
        let snowflake = from_cortex(
            "m.yaml",
            WHOLESALE,
            Dialect::Snowflake,
            DEFAULT_MAX_YAML_BYTES,
        )
        .unwrap();
        assert_eq!(
            snowflake.ontology.objects[0].table,
            "WHOLESALE.PUBLIC.region"
        );
        assert!(
            !snowflake
                .warnings
                .iter()
                .any(|w| w.item.ends_with("base_table"))
        );
    }

    #[test]
    fn bad_input_is_refused_with_its_line_and_what_is_wrong() {
        let error = |text: &str| read(text).unwrap_err().to_string();
        let e = error("name: m\ntables:\n  - name: t\n    dimensions: []\n");
        assert!(
            e.starts_with("model.yaml:3:") && e.contains("missing field `base_table`"),
            "{e}"
        );
        let e = error(
            "name: m\ntables:\n  - name: t\n    base_table: {table: t}\n    dimensions:\n      - name: d\n        expr: d\n",
        );
        assert!(
            e.starts_with("model.yaml:6:") && e.contains("missing field `data_type`"),
            "{e}"
        );
        let e = error(
            "name: m\ntables:\n  - name: t\n    base_table: {table: t}\n  - name: t\n    base_table: {table: u}\n",
        );
        assert_eq!(
            e,
            "model.yaml:3: tables.t: the logical table is defined twice"
        );
        let e = error(
            "name: m\ntables:\n  - name: t\n    base_table: {table: t}\nrelationships:\n  - name: r\n    left_table: t\n    right_table: t\n    relationship_columns: []\n    relationship_type: many_to_many\n",
        );
        assert_eq!(
            e,
            "model.yaml:6: relationships.r: relationship_type `many_to_many` is not many_to_one or one_to_one"
        );
        let e = error("name: m\n# cassis: {not json\n");
        assert!(
            e.starts_with("model.yaml:2: the `# cassis:` comment:"),
            "{e}"
        );
        let e = from_cortex("m.yaml", WHOLESALE, Dialect::Sqlite, 1_000)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "m.yaml: the file is {} bytes; a file may be at most 1000 bytes",
                WHOLESALE.len()
            )
        );
        let unknown = read("name: m\ntables:\n  - name: t\n    base_table: {table: t}\n    dimensions:\n      - name: d\n        expr: d\n        data_type: GEOGRAPHY\n").unwrap();
        assert_eq!(
            unknown.warnings[0].to_string(),
            "model.yaml:6: tables.t.dimensions.d: the data type `GEOGRAPHY` is not one Cassis knows; read as text"
        );
    }
}
