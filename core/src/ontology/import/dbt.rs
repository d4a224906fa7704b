//! A dbt project's semantic layer (MetricFlow's YAML: top-level
//! `semantic_models`, `metrics` and `saved_queries`, or dbt 1.12's latest
//! spec with a `semantic_model` on each model) read as a draft.
//!
//! A semantic model becomes an object on the table of the model it refers to
//! (`ref('orders')` reads `orders`); its primary entity gives the primary
//! key, each foreign entity a many-to-one relationship to the semantic model
//! whose primary entity has that name; dimensions become attributes (time
//! dimensions dated, at day grain or finer); measures become measure
//! attributes when they read a column. Simple metrics become metrics with
//! their measure's aggregate and expression and their filters written over
//! the object's columns; ratio metrics become ratios. Saved queries become
//! verified questions once compiled, their `where` applied. A measure's
//! `non_additive_dimension` makes its metrics semi-additive (`window_choice:
//! max` reads the last value, `min` the first; `window_groupings` name the
//! entities each keeps its own time for).
//!
//! In the latest spec a model's columns carry its entities and dimensions
//! and its simple metrics stand for the legacy spec's measures; such a
//! model is read as the legacy semantic model it amounts to, and what is
//! said about it names the model, its columns and metrics where they are
//! written. Top-level metrics take their parameters as direct keys there
//! (`numerator`, `input_metric`, ...).
//!
//! Derived metrics become derived metrics (an input's `alias` read as its
//! metric's name), cumulative ones running totals of the metric of their
//! measure's name (`grain_to_date` their `to_date`). Offsets in time
//! (period-over-period), filtered inputs, fixed cumulative windows,
//! conversion metrics, percentiles and medians, natural entities and
//! filters that reach another semantic model have no Cassis equivalent yet:
//! each is a warning.

use super::text::{bare_column, humanize};
use super::{
    Comparison, Grain, GroupBy, ImportError, Imported, Literal, SavedFilter, SavedQuery, Warnings,
    read_yaml,
};
use crate::ontology::model::*;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// At most this many YAML files are read from a project.
pub const MAX_FILES: usize = 2_000;
/// Folders dbt writes or installs into, never the project's own semantic layer.
const SKIPPED_DIRS: [&str; 5] = [
    "target",
    "dbt_packages",
    "dbt_modules",
    "logs",
    "node_modules",
];
/// Folders deeper than this are not read.
const MAX_DEPTH: usize = 16;

#[derive(Debug, Default, Deserialize)]
struct DbtFile {
    #[serde(default)]
    semantic_models: Vec<DbtSemanticModel>,
    #[serde(default, deserialize_with = "latest_metrics")]
    metrics: Vec<DbtMetric>,
    #[serde(default)]
    saved_queries: Vec<DbtSavedQuery>,
    #[serde(default)]
    models: Vec<Value>,
}

/// Top-level metrics, the latest spec's direct keys moved where the legacy
/// spec has them.
fn latest_metrics<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<DbtMetric>, D::Error> {
    let metrics: Vec<DbtMetric> = Deserialize::deserialize(d)?;
    Ok(metrics
        .into_iter()
        .map(DbtMetric::with_type_params)
        .collect())
}

#[derive(Debug, Deserialize)]
struct DbtSemanticModel {
    name: String,
    model: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    defaults: Option<Defaults>,
    #[serde(default)]
    primary_entity: Option<String>,
    #[serde(default)]
    entities: Vec<Entity>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    #[serde(default)]
    measures: Vec<DbtMeasure>,
}

#[derive(Debug, Deserialize)]
struct Defaults {
    #[serde(default)]
    agg_time_dimension: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Entity {
    name: String,
    #[serde(rename = "type")]
    kind: EntityKind,
    #[serde(default)]
    expr: Option<Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum EntityKind {
    Primary,
    Unique,
    Foreign,
    Natural,
}

#[derive(Debug, Deserialize)]
struct Dimension {
    name: String,
    #[serde(rename = "type")]
    kind: DimensionKind,
    #[serde(default)]
    expr: Option<Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    type_params: Option<DimensionParams>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DimensionKind {
    Categorical,
    Time,
}

#[derive(Debug, Deserialize)]
struct DimensionParams {
    #[serde(default)]
    time_granularity: Option<String>,
    #[serde(default)]
    validity_params: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct DbtMeasure {
    name: String,
    agg: String,
    #[serde(default)]
    expr: Option<Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    create_metric: bool,
    #[serde(default)]
    non_additive_dimension: Option<Value>,
    #[serde(default)]
    agg_params: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct DbtMetric {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    type_params: TypeParams,
    #[serde(default)]
    filter: Option<Filters>,
    /// A simple metric written on a model (the latest spec): its measure,
    /// when refused, was warned about already.
    #[serde(skip)]
    on_model: bool,
    /// The latest spec (dbt 1.12) writes `type_params`' keys on the metric.
    #[serde(default)]
    numerator: Option<Input>,
    #[serde(default)]
    denominator: Option<Input>,
    #[serde(default)]
    expr: Option<String>,
    #[serde(default)]
    input_metrics: Option<Vec<Value>>,
    #[serde(default)]
    input_metric: Option<Input>,
    #[serde(default)]
    window: Option<Value>,
    #[serde(default)]
    grain_to_date: Option<Value>,
}

impl DbtMetric {
    /// The latest spec's direct keys moved into `type_params`, where the
    /// legacy spec has them (a cumulative metric's `input_metric` is its
    /// `measure`).
    fn with_type_params(mut self) -> Self {
        let t = &mut self.type_params;
        t.numerator = t.numerator.take().or(self.numerator.take());
        t.denominator = t.denominator.take().or(self.denominator.take());
        t.expr = t.expr.take().or(self.expr.take());
        t.metrics = t.metrics.take().or(self.input_metrics.take());
        t.measure = t.measure.take().or(self.input_metric.take());
        t.window = t.window.take().or(self.window.take());
        t.grain_to_date = t.grain_to_date.take().or(self.grain_to_date.take());
        self
    }
}

#[derive(Debug, Default, Deserialize)]
struct TypeParams {
    #[serde(default)]
    measure: Option<Input>,
    #[serde(default)]
    numerator: Option<Input>,
    #[serde(default)]
    denominator: Option<Input>,
    #[serde(default)]
    expr: Option<String>,
    #[serde(default)]
    metrics: Option<Vec<Value>>,
    #[serde(default)]
    window: Option<Value>,
    #[serde(default)]
    grain_to_date: Option<Value>,
    /// A cumulative metric's `window` and `grain_to_date`, as newer legacy
    /// files nest them.
    #[serde(default)]
    cumulative_type_params: Option<Value>,
}

/// A measure or metric named alone or with a filter.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Input {
    Name(String),
    Detailed {
        name: String,
        #[serde(default)]
        filter: Option<Filters>,
        #[serde(default)]
        fill_nulls_with: Option<Value>,
        #[serde(default)]
        join_to_timespine: Option<bool>,
    },
}

impl Input {
    fn name(&self) -> &str {
        match self {
            Input::Name(name) | Input::Detailed { name, .. } => name,
        }
    }

    fn filters(&self) -> Vec<String> {
        match self {
            Input::Detailed {
                filter: Some(f), ..
            } => f.list(),
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Filters {
    One(String),
    Many(Vec<String>),
}

impl Filters {
    fn list(&self) -> Vec<String> {
        match self {
            Filters::One(f) => vec![f.clone()],
            Filters::Many(fs) => fs.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct DbtSavedQuery {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    query_params: QueryParams,
    #[serde(default)]
    exports: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct QueryParams {
    #[serde(default)]
    metrics: Vec<String>,
    #[serde(default)]
    group_by: Vec<String>,
    #[serde(default, rename = "where")]
    filter: Option<Filters>,
    #[serde(default)]
    order_by: Option<Value>,
    #[serde(default)]
    limit: Option<Value>,
}

/// A model with a semantic model on it (dbt 1.12's latest spec): entities
/// and dimensions on its columns, simple metrics beside them.
#[derive(Debug, Deserialize)]
struct LatestModel {
    name: String,
    #[serde(default)]
    description: Option<String>,
    /// `true`, or a mapping with `enabled` and an optional `name`.
    #[serde(default)]
    semantic_model: Option<Value>,
    #[serde(default)]
    agg_time_dimension: Option<String>,
    #[serde(default)]
    primary_entity: Option<String>,
    #[serde(default)]
    columns: Vec<LatestColumn>,
    #[serde(default)]
    derived_semantics: Option<DerivedSemantics>,
    #[serde(default)]
    metrics: Vec<Value>,
}

#[derive(Debug, Deserialize)]
struct LatestColumn {
    name: String,
    #[serde(default)]
    description: Option<String>,
    /// A time dimension's native grain.
    #[serde(default)]
    granularity: Option<String>,
    /// Its type alone (`entity: primary`) or a mapping.
    #[serde(default)]
    entity: Option<Value>,
    #[serde(default)]
    dimension: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct ColumnEntity {
    #[serde(rename = "type")]
    kind: EntityKind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ColumnDimension {
    #[serde(rename = "type")]
    kind: DimensionKind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    validity_params: Option<Value>,
}

/// Dimensions and entities over expressions rather than one column.
#[derive(Debug, Default, Deserialize)]
struct DerivedSemantics {
    #[serde(default)]
    dimensions: Vec<DerivedDimension>,
    #[serde(default)]
    entities: Vec<Entity>,
}

#[derive(Debug, Deserialize)]
struct DerivedDimension {
    name: String,
    #[serde(rename = "type")]
    kind: DimensionKind,
    #[serde(default)]
    expr: Option<Value>,
    #[serde(default)]
    granularity: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

/// A simple metric on a model: the legacy spec's measure and its metric in one.
#[derive(Debug, Deserialize)]
struct ModelMetric {
    name: String,
    // `type: simple`, which the caller checked; other types read as `DbtMetric`.
    agg: String,
    #[serde(default)]
    expr: Option<Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    filter: Option<Filters>,
    #[serde(default)]
    non_additive_dimension: Option<Value>,
    #[serde(default)]
    agg_time_dimension: Option<String>,
    #[serde(default)]
    percentile: Option<Value>,
    #[serde(default)]
    fill_nulls_with: Option<Value>,
    #[serde(default)]
    join_to_timespine: Option<bool>,
}

/// A model's semantic model in the legacy spec's shape, with its metrics:
/// the same reader then reads both specs.
struct Lowered {
    semantic_model: DbtSemanticModel,
    metrics: Vec<DbtMetric>,
    /// Each entity's and dimension's column, by its name.
    columns: BTreeMap<String, String>,
}

/// Where a lowered semantic model's items are in the file, and what the
/// user calls them: `models.orders.metrics.revenue`, not
/// `semantic_models.orders.measures.revenue`.
#[derive(Clone)]
pub(super) struct Rename {
    pub(super) semantic_model: String,
    pub(super) model: String,
    /// Each entity's and dimension's column, by its name.
    pub(super) columns: BTreeMap<String, String>,
}

impl LatestModel {
    /// Whether `semantic_model` turns the semantic model on, and its name.
    fn semantic_name(&self) -> Option<String> {
        match self.semantic_model.as_ref()? {
            Value::Bool(true) => Some(self.name.clone()),
            Value::Mapping(m) => {
                let enabled = m.get("enabled").is_none_or(|e| e.as_bool() == Some(true));
                enabled.then(|| {
                    m.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or(&self.name)
                        .to_owned()
                })
            }
            _ => None,
        }
    }

    /// The semantic model and metrics the legacy spec would write for it;
    /// a column block or metric that does not read is an error naming it.
    fn lower(&self, name: String, w: &mut Warnings) -> Result<Lowered, ImportError> {
        let item = format!("models.{}", self.name);
        let column_expr =
            |column: &str, name: &str| (column != name).then(|| Value::String(column.to_owned()));
        let mut entities = Vec::new();
        let mut dimensions = Vec::new();
        let mut columns = BTreeMap::new();
        for c in &self.columns {
            let at = ["models", self.name.as_str(), c.name.as_str()];
            let item = format!("{item}.columns.{}", c.name);
            if let Some(entity) = &c.entity {
                let entity: ColumnEntity = match entity {
                    Value::String(kind) => serde_yaml_ng::from_value(Value::Mapping(
                        [(Value::from("type"), Value::from(kind.as_str()))]
                            .into_iter()
                            .collect(),
                    )),
                    other => serde_yaml_ng::from_value(other.clone()),
                }
                .map_err(|e| w.invalid(&at, &item, format!("its `entity` does not read: {e}")))?;
                let name = entity.name.unwrap_or_else(|| c.name.clone());
                columns.insert(name.clone(), c.name.clone());
                entities.push(Entity {
                    expr: column_expr(&c.name, &name),
                    name,
                    kind: entity.kind,
                    description: entity.description.or_else(|| c.description.clone()),
                    label: entity.label,
                });
            }
            if let Some(dimension) = &c.dimension {
                let dimension: ColumnDimension = match dimension {
                    Value::String(kind) => serde_yaml_ng::from_value(Value::Mapping(
                        [(Value::from("type"), Value::from(kind.as_str()))]
                            .into_iter()
                            .collect(),
                    )),
                    other => serde_yaml_ng::from_value(other.clone()),
                }
                .map_err(|e| {
                    w.invalid(&at, &item, format!("its `dimension` does not read: {e}"))
                })?;
                let name = dimension.name.unwrap_or_else(|| c.name.clone());
                columns.insert(name.clone(), c.name.clone());
                dimensions.push(Dimension {
                    expr: column_expr(&c.name, &name),
                    name,
                    kind: dimension.kind,
                    description: dimension.description.or_else(|| c.description.clone()),
                    label: dimension.label,
                    type_params: Some(DimensionParams {
                        time_granularity: c.granularity.clone(),
                        validity_params: dimension.validity_params,
                    }),
                });
            }
        }
        let derived = self.derived_semantics.as_ref();
        for d in derived.map(|d| d.dimensions.as_slice()).unwrap_or_default() {
            dimensions.push(Dimension {
                name: d.name.clone(),
                kind: d.kind,
                expr: d.expr.clone(),
                description: d.description.clone(),
                label: d.label.clone(),
                type_params: Some(DimensionParams {
                    time_granularity: d.granularity.clone(),
                    validity_params: None,
                }),
            });
        }
        for e in derived.map(|d| d.entities.as_slice()).unwrap_or_default() {
            entities.push(Entity {
                name: e.name.clone(),
                kind: e.kind,
                expr: e.expr.clone(),
                description: e.description.clone(),
                label: e.label.clone(),
            });
        }
        let mut measures = Vec::new();
        let mut metrics = Vec::new();
        for value in &self.metrics {
            let metric_name = value.get("name").and_then(Value::as_str).unwrap_or("?");
            let at = ["models", self.name.as_str(), "metrics", metric_name];
            let item = format!("{item}.metrics.{metric_name}");
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("simple");
            if kind != "simple" {
                // A ratio, derived or cumulative metric reads as a top-level one.
                let metric: DbtMetric = serde_yaml_ng::from_value(value.clone())
                    .map_err(|e| w.invalid(&at, &item, format!("it does not read: {e}")))?;
                metrics.push(metric.with_type_params());
                continue;
            }
            let m: ModelMetric = serde_yaml_ng::from_value(value.clone())
                .map_err(|e| w.invalid(&at, &item, format!("it does not read: {e}")))?;
            if m.agg_time_dimension
                .as_ref()
                .is_some_and(|t| Some(t) != self.agg_time_dimension.as_ref())
            {
                w.add(&at, &item, "its own agg_time_dimension is not kept: Cassis dates an object's metrics by the model's");
            }
            measures.push(DbtMeasure {
                name: m.name.clone(),
                agg: m.agg.clone(),
                expr: m.expr.clone(),
                description: m.description.clone(),
                label: m.label.clone(),
                create_metric: false,
                non_additive_dimension: m.non_additive_dimension.clone(),
                agg_params: m.percentile.clone(),
            });
            metrics.push(DbtMetric {
                name: m.name.clone(),
                kind: "simple".to_owned(),
                description: m.description.clone(),
                label: m.label.clone(),
                type_params: TypeParams {
                    measure: Some(Input::Detailed {
                        name: m.name.clone(),
                        filter: None,
                        fill_nulls_with: m.fill_nulls_with.clone(),
                        join_to_timespine: m.join_to_timespine,
                    }),
                    ..TypeParams::default()
                },
                filter: m.filter,
                on_model: true,
                numerator: None,
                denominator: None,
                expr: None,
                input_metrics: None,
                input_metric: None,
                window: None,
                grain_to_date: None,
            });
        }
        Ok(Lowered {
            semantic_model: DbtSemanticModel {
                name,
                model: format!("ref('{}')", self.name),
                description: self.description.clone(),
                label: None,
                defaults: Some(Defaults {
                    agg_time_dimension: self.agg_time_dimension.clone(),
                }),
                primary_entity: self.primary_entity.clone(),
                entities,
                dimensions,
                measures,
            },
            metrics,
            columns,
        })
    }
}

/// A file of the project: its name as shown in messages, and its text.
#[derive(Debug)]
pub struct ProjectFile {
    pub name: String,
    pub text: String,
}

impl ProjectFile {
    pub fn new(name: &str, text: &str) -> Self {
        ProjectFile {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    }
}

/// Reads the YAML files of the dbt project in `dir` (skipping what dbt
/// writes and installs), each of at most `max_bytes` and `4 × max_bytes` in
/// all, at most [`MAX_FILES`] of them.
pub fn read_project(dir: &Path, max_bytes: usize) -> Result<Vec<ProjectFile>, ImportError> {
    let shown = dir.display().to_string();
    let io = |path: &Path, source| ImportError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut pending = vec![(dir.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = pending.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&folder)
            .map_err(|e| io(&folder, e))?
            .collect::<Result<_, _>>()
            .map_err(|e| io(&folder, e))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries.into_iter().rev() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Symbolic links are not followed: a link may lead out of the project.
            let kind = entry.file_type().map_err(|e| io(&path, e))?;
            if kind.is_dir() {
                if !name.starts_with('.')
                    && !SKIPPED_DIRS.contains(&name.as_str())
                    && depth < MAX_DEPTH
                {
                    pending.push((path, depth + 1));
                }
            } else if kind.is_file() && (name.ends_with(".yml") || name.ends_with(".yaml")) {
                if files.len() == MAX_FILES {
                    return Err(ImportError::TooManyFiles {
                        dir: shown,
                        max: MAX_FILES,
                    });
                }
                let size = entry.metadata().map_err(|e| io(&path, e))?.len();
                let file = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                if size > max_bytes as u64 {
                    return Err(ImportError::FileTooLarge {
                        file,
                        bytes: size,
                        max: max_bytes,
                    });
                }
                total += size;
                if total > 4 * max_bytes as u64 {
                    return Err(ImportError::ProjectTooLarge {
                        dir: shown,
                        max: 4 * max_bytes,
                    });
                }
                let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
                files.push(ProjectFile { name: file, text });
            }
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Where each semantic model, measure and metric was defined.
struct Parsed<'a> {
    file: &'a ProjectFile,
    content: DbtFile,
}

/// Reads the semantic layer of a dbt project's files.
pub fn from_dbt(files: &[ProjectFile], max_bytes: usize) -> Result<Imported, ImportError> {
    let mut parsed = Vec::new();
    for file in files {
        // dbt's own files (dbt_project.yml, profiles, packages) and schema
        // files without a semantic layer are read too, and give nothing.
        let content: DbtFile = if file.text.trim().is_empty() {
            DbtFile::default()
        } else {
            read_yaml(&file.name, &file.text, max_bytes).or_else(|e| {
                // A file whose top level is not a mapping is not a schema file.
                match serde_yaml_ng::from_str::<Value>(&file.text) {
                    Ok(Value::Mapping(_)) | Err(_) => Err(e),
                    Ok(_) => Ok(DbtFile::default()),
                }
            })?
        };
        parsed.push(Parsed { file, content });
    }
    let mut importer = Importer::default();
    for p in &mut parsed {
        let mut w = Warnings::new(&p.file.name, &p.file.text);
        for model in &p.content.semantic_models {
            importer.semantic_model(model, &mut w)?;
        }
        // dbt 1.12's latest spec: a semantic model on a model, read as the
        // legacy spec's, its items named where they are written.
        let mut metrics = Vec::new();
        for value in &p.content.models {
            if value.get("semantic_model").is_none() {
                continue;
            }
            let name = value.get("name").and_then(Value::as_str).unwrap_or("?");
            let model: LatestModel = serde_yaml_ng::from_value(value.clone()).map_err(|e| {
                w.invalid(
                    &["models", name],
                    format!("models.{name}"),
                    format!("it does not read: {e}"),
                )
            })?;
            let Some(semantic_name) = model.semantic_name() else {
                continue;
            };
            let lowered = model.lower(semantic_name.clone(), &mut w)?;
            w.rename = Some(Rename {
                semantic_model: semantic_name,
                model: model.name.clone(),
                columns: lowered.columns.clone(),
            });
            importer.semantic_model(&lowered.semantic_model, &mut w)?;
            w.rename = None;
            metrics.extend(lowered.metrics);
        }
        p.content.metrics.extend(metrics);
        importer.warnings.append(&mut w.list);
    }
    if importer.ontology.objects.is_empty()
        && parsed
            .iter()
            .all(|p| p.content.metrics.is_empty() && p.content.saved_queries.is_empty())
    {
        return Err(ImportError::NothingToImport(
            files
                .first()
                .map_or("the project".to_owned(), |f| f.name.clone()),
        ));
    }
    importer.relationships();
    // Metrics may refer to metrics of later files: simple ones first.
    for pass in [Pass::Simple, Pass::Composite] {
        for p in &parsed {
            let mut w = Warnings::new(&p.file.name, &p.file.text);
            for metric in &p.content.metrics {
                importer.metric(metric, pass, &mut w)?;
            }
            importer.warnings.append(&mut w.list);
        }
    }
    importer.measures_as_metrics();
    for p in &parsed {
        let mut w = Warnings::new(&p.file.name, &p.file.text);
        for query in &p.content.saved_queries {
            importer.saved_query(query, &mut w);
        }
        importer.warnings.append(&mut w.list);
    }
    Ok(Imported {
        ontology: importer.ontology,
        warnings: importer.warnings,
        saved_queries: importer.saved_queries,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Simple,
    Composite,
}

/// A measure as defined, with its semantic model.
#[derive(Clone)]
struct MeasureDef {
    object: String,
    aggregate: Aggregate,
    expr: Option<String>,
    label: String,
    description: String,
    create_metric: bool,
    used: bool,
    /// Its `non_additive_dimension`, as its metrics read it.
    semi_additive: Option<SemiAdditive>,
    /// How a warning names it: `semantic_models.order.measures.revenue`.
    item: String,
    /// Where it was defined, for a warning about it.
    file: String,
    line: Option<usize>,
}

/// MetricFlow's `non_additive_dimension` on a measure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NonAdditiveDimension {
    name: String,
    /// `min` (dbt's default) reads each period's first value, `max` its
    /// last; the latest spec calls it `window_agg`.
    #[serde(default, alias = "window_agg")]
    window_choice: Option<String>,
    /// `group_by` in the latest spec.
    #[serde(default, alias = "group_by")]
    window_groupings: Vec<String>,
}

/// What a Jinja reference in a saved query's `where` is read as, numbered.
const REFERENCE: &str = "cassis_reference_";

/// A saved query's condition as comparisons of references with values,
/// all of which hold; anything else is refused, named.
fn read_comparisons(
    expr: &sqlparser::ast::Expr,
    references: &[GroupBy],
    filters: &mut Vec<SavedFilter>,
) -> Result<(), String> {
    use sqlparser::ast::{BinaryOperator as Op, Expr};
    let reference = |e: &Expr| match e {
        Expr::Identifier(ident) => ident
            .value
            .strip_prefix(REFERENCE)
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| references.get(n)),
        _ => None,
    };
    let unreadable = || {
        "it is not a dimension compared with values (=, <>, <, <=, >, >=, IN, BETWEEN, IS NULL, joined by AND), which is what Cassis reads".to_owned()
    };
    let mut push = |on: &GroupBy, comparison| {
        filters.push(SavedFilter {
            on: on.clone(),
            comparison,
        })
    };
    match expr {
        Expr::Nested(inner) => read_comparisons(inner, references, filters),
        Expr::BinaryOp {
            left,
            op: Op::And,
            right,
        } => {
            read_comparisons(left, references, filters)?;
            read_comparisons(right, references, filters)
        }
        Expr::BinaryOp { left, op, right } => {
            // `'1995-01-01' <= date` reads as `date >= '1995-01-01'`.
            let (on, value, op) = match (reference(left), reference(right)) {
                (Some(on), None) => (on, literal(right).ok_or_else(unreadable)?, op.clone()),
                (None, Some(on)) => {
                    let flipped = match op {
                        Op::Gt => Op::Lt,
                        Op::Lt => Op::Gt,
                        Op::GtEq => Op::LtEq,
                        Op::LtEq => Op::GtEq,
                        other => other.clone(),
                    };
                    (on, literal(left).ok_or_else(unreadable)?, flipped)
                }
                _ => return Err(unreadable()),
            };
            let comparison = match op {
                Op::Eq => Comparison::OneOf(vec![value]),
                Op::NotEq => Comparison::NoneOf(vec![value]),
                Op::GtEq => Comparison::AtLeast(value),
                Op::LtEq => Comparison::AtMost(value),
                Op::Gt => Comparison::Above(value),
                Op::Lt => Comparison::Below(value),
                _ => return Err(unreadable()),
            };
            push(on, comparison);
            Ok(())
        }
        Expr::In {
            expr: inner,
            target: sqlparser::ast::InTarget::List(list),
            negated,
            ..
        } => {
            let on = reference(inner).ok_or_else(unreadable)?;
            let values = list
                .iter()
                .map(literal)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(unreadable)?;
            push(
                on,
                if *negated {
                    Comparison::NoneOf(values)
                } else {
                    Comparison::OneOf(values)
                },
            );
            Ok(())
        }
        Expr::Between {
            expr: inner,
            negated: false,
            low,
            high,
        } => {
            let on = reference(inner).ok_or_else(unreadable)?;
            let (low, high) = (literal(low), literal(high));
            let (Some(low), Some(high)) = (low, high) else {
                return Err(unreadable());
            };
            push(on, Comparison::Between(low, high));
            Ok(())
        }
        Expr::IsNull(inner) => {
            push(
                reference(inner).ok_or_else(unreadable)?,
                Comparison::Missing,
            );
            Ok(())
        }
        _ => Err(unreadable()),
    }
}

/// A whole number or a quoted text; anything else (a decimal, a function
/// call) is no value a condition of Cassis's holds.
fn literal(expr: &sqlparser::ast::Expr) -> Option<Literal> {
    use sqlparser::ast::{Expr, UnaryOperator, Value};
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok().map(Literal::Integer),
            Value::SingleQuotedString(s) => Some(Literal::Text(s.clone())),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Integer(n) => Some(Literal::Integer(-n)),
            Literal::Text(_) => None,
        },
        _ => None,
    }
}

/// The attribute an entity's key is held in: `customer_key` for `customer`.
fn entity_attribute(entity: &str) -> String {
    if entity.ends_with("_id") || entity.ends_with("_key") {
        entity.to_owned()
    } else {
        format!("{entity}_key")
    }
}

#[derive(Clone)]
struct EntityDef {
    object: String,
    kind: EntityKind,
    column: Option<String>,
    /// How a warning names it: `semantic_models.order.entities.customer`.
    item: String,
    /// Where it was defined, for a warning about it.
    file: String,
    line: Option<usize>,
}

#[derive(Default)]
struct Importer {
    ontology: Ontology,
    warnings: Vec<super::ImportWarning>,
    saved_queries: Vec<SavedQuery>,
    measures: BTreeMap<String, MeasureDef>,
    /// Entities by name: the semantic models they are on.
    entities: BTreeMap<String, Vec<EntityDef>>,
    /// Each object's time attribute that metrics are dated by.
    agg_time: BTreeMap<String, String>,
    /// Each object's dimensions by dbt name: its SQL over the object's columns.
    dimension_sql: BTreeMap<(String, String), String>,
}

fn scalar(value: &Option<Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

/// `ref('orders')`, `ref("pkg", "orders")`, `source('tpch', 'orders')`: the
/// table the model or source names.
fn table_of(model: &str) -> Option<String> {
    let model = model
        .trim()
        .trim_start_matches("{{")
        .trim_end_matches("}}")
        .trim();
    let (function, args) = model.split_once('(')?;
    let args = args.strip_suffix(')')?;
    let names: Vec<&str> = args
        .split(',')
        .map(|a| a.trim().trim_matches(['\'', '"']))
        .filter(|a| !a.contains('='))
        .collect();
    match function.trim() {
        "ref" | "source" => names
            .last()
            .filter(|n| bare_column(n).is_some())
            .map(|n| (*n).to_owned()),
        _ => None,
    }
}

impl Importer {
    fn semantic_model(
        &mut self,
        m: &DbtSemanticModel,
        w: &mut Warnings,
    ) -> Result<(), ImportError> {
        let at = ["semantic_models", m.name.as_str()];
        let item = format!("semantic_models.{}", m.name);
        if self.ontology.objects.iter().any(|o| o.name == m.name) {
            return Err(w.invalid(&at, item, "the semantic model is defined twice"));
        }
        let table = table_of(&m.model).ok_or_else(|| {
            w.invalid(
                &at,
                &item,
                format!(
                    "`model: {}` should be `ref('a_model')` (or `source('a_source', 'a_table')`)",
                    m.model
                ),
            )
        })?;
        let mut object = Object {
            name: m.name.clone(),
            table,
            label: m.label.clone().unwrap_or_default(),
            description: m.description.clone().unwrap_or_default(),
            ..Object::default()
        };
        for e in &m.entities {
            let at = [
                "semantic_models",
                m.name.as_str(),
                "entities",
                e.name.as_str(),
            ];
            let item = format!("{item}.entities.{}", e.name);
            let sql = scalar(&e.expr).unwrap_or_else(|| e.name.clone());
            let column = bare_column(&sql).map(str::to_owned);
            if e.kind == EntityKind::Natural {
                w.add(&at, &item, "natural entities (slowly changing dimensions) have no Cassis equivalent; kept as an identifier attribute that joins nothing");
            }
            if matches!(e.kind, EntityKind::Primary | EntityKind::Unique) {
                match &column {
                    Some(c) if object.primary_key.is_empty() && e.kind == EntityKind::Primary => object.primary_key = vec![c.clone()],
                    Some(_) => {}
                    None => w.add(&at, &item, format!("its expression `{sql}` is not a column: Cassis keys are columns, so the object has no primary key and nothing joins to it through this entity")),
                }
            }
            self.entities
                .entry(e.name.clone())
                .or_default()
                .push(EntityDef {
                    object: m.name.clone(),
                    kind: e.kind,
                    column: column.clone(),
                    file: w.file.to_owned(),
                    line: w.place(&at, item.clone()).0,
                    item: w.place(&at, item.clone()).1,
                });
            // An entity is reached by its own name (customer) through the
            // relationship; the attribute holds the key.
            let name = entity_attribute(&e.name);
            self.dimension_sql
                .insert((m.name.clone(), e.name.clone()), sql.clone());
            object.attributes.push(Attribute {
                name,
                column: column.clone(),
                expr: column.is_none().then_some(sql),
                // dbt does not say; a text literal compares with a number
                // column on every engine, a number with a text one not.
                data_type: DataType::Text,
                role: AttributeRole::Identifier,
                label: e.label.clone().unwrap_or_default(),
                description: e.description.clone().unwrap_or_default(),
                ..Attribute::default()
            });
        }
        if let Some(primary) = &m.primary_entity
            && !m.entities.iter().any(|e| &e.name == primary)
        {
            self.entities
                .entry(primary.clone())
                .or_default()
                .push(EntityDef {
                    object: m.name.clone(),
                    kind: EntityKind::Primary,
                    column: None,
                    file: w.file.to_owned(),
                    line: w
                        .place(
                            &["semantic_models", m.name.as_str(), "primary_entity"],
                            String::new(),
                        )
                        .0,
                    item: w.place(&at, format!("{item}.entities.{primary}")).1,
                });
        }
        for d in &m.dimensions {
            let at = [
                "semantic_models",
                m.name.as_str(),
                "dimensions",
                d.name.as_str(),
            ];
            let item = format!("{item}.dimensions.{}", d.name);
            let sql = scalar(&d.expr).unwrap_or_else(|| d.name.clone());
            let column = bare_column(&sql).map(str::to_owned);
            let (role, data_type) = match d.kind {
                DimensionKind::Categorical => (AttributeRole::Dimension, DataType::Text),
                DimensionKind::Time => {
                    let grain = d
                        .type_params
                        .as_ref()
                        .and_then(|p| p.time_granularity.as_deref())
                        .unwrap_or("day")
                        .to_lowercase();
                    let data_type = match grain.as_str() {
                        "day" => DataType::Date,
                        "nanosecond" | "microsecond" | "millisecond" | "second" | "minute"
                        | "hour" => DataType::Timestamp,
                        "week" | "month" | "quarter" | "year" => {
                            w.add(&at, &item, format!("its granularity `{grain}` is not kept: Cassis reads it as a date, which questions group by month or year"));
                            DataType::Date
                        }
                        other => {
                            return Err(w.invalid(&at, item, format!("time_granularity `{other}` is not one of day, week, month, quarter, year or finer")));
                        }
                    };
                    (AttributeRole::Time, data_type)
                }
            };
            if d.type_params
                .as_ref()
                .is_some_and(|p| p.validity_params.is_some())
            {
                w.add(&at, &item, "validity_params (slowly changing dimensions) have no Cassis equivalent; read as a plain date");
            }
            if d.kind == DimensionKind::Categorical
                && d.type_params
                    .as_ref()
                    .is_some_and(|p| p.time_granularity.is_some())
            {
                w.add(
                    &at,
                    &item,
                    "a granularity on a categorical dimension means nothing; ignored",
                );
            }
            self.dimension_sql
                .insert((m.name.clone(), d.name.clone()), sql.clone());
            object.attributes.push(Attribute {
                name: d.name.clone(),
                column: column.clone().filter(|c| *c != d.name),
                expr: column.is_none().then_some(sql),
                data_type,
                role,
                label: d.label.clone().unwrap_or_default(),
                description: d.description.clone().unwrap_or_default(),
                ..Attribute::default()
            });
        }
        let agg_time = m
            .defaults
            .as_ref()
            .and_then(|d| d.agg_time_dimension.clone())
            .or_else(|| {
                m.dimensions
                    .iter()
                    .find(|d| d.kind == DimensionKind::Time)
                    .map(|d| d.name.clone())
            });
        if let Some(agg_time) = agg_time {
            // The planner dates an object's rows by its first time attribute.
            if let Some(i) = object
                .attributes
                .iter()
                .position(|a| a.name == agg_time && a.role == AttributeRole::Time)
                && let Some(first) = object
                    .attributes
                    .iter()
                    .position(|a| a.role == AttributeRole::Time)
                && first < i
            {
                let attribute = object.attributes.remove(i);
                object.attributes.insert(first, attribute);
            }
            self.agg_time.insert(m.name.clone(), agg_time);
        }
        for measure in &m.measures {
            let at = [
                "semantic_models",
                m.name.as_str(),
                "measures",
                measure.name.as_str(),
            ];
            let item = format!("{item}.measures.{}", measure.name);
            if self.measures.contains_key(&measure.name) {
                return Err(w.invalid(&at, item, "a measure of this name is defined twice; dbt needs measure names unique across the project"));
            }
            let sql = scalar(&measure.expr).unwrap_or_else(|| measure.name.clone());
            let (aggregate, expr) = match measure.agg.to_lowercase().as_str() {
                "sum" => (Aggregate::Sum, Some(sql.clone())),
                "sum_boolean" => (
                    Aggregate::Sum,
                    Some(format!("CASE WHEN {sql} THEN 1 ELSE 0 END")),
                ),
                "count" if sql == "1" || sql == "*" => (Aggregate::Count, None),
                "count" => (Aggregate::Count, Some(sql.clone())),
                "count_distinct" => (Aggregate::CountDistinct, Some(sql.clone())),
                "average" | "avg" => (Aggregate::Avg, Some(sql.clone())),
                "min" => (Aggregate::Min, Some(sql.clone())),
                "max" => (Aggregate::Max, Some(sql.clone())),
                "median" | "percentile" => {
                    w.add(&at, &item, format!("`agg: {}` has no Cassis aggregate yet; the measure and the metrics on it are not imported", measure.agg));
                    continue;
                }
                other => {
                    return Err(w.invalid(&at, item, format!("`agg: {other}` is not one of sum, count, count_distinct, average, min, max, sum_boolean, median or percentile")));
                }
            };
            let semi_additive = match &measure.non_additive_dimension {
                None => None,
                Some(value) => match self.non_additive(value, m, &object, aggregate) {
                    Ok(levels) => Some(levels),
                    Err(why) => {
                        w.add(&at, &item, format!("non_additive_dimension (a semi-additive measure such as a balance) is not kept: {why}; metrics on it add up across time"));
                        None
                    }
                },
            };
            if measure.agg_params.is_some() && !matches!(measure.agg.as_str(), "percentile") {
                w.add(&at, &item, "agg_params are not kept");
            }
            if let Some(column) = bare_column(&sql)
                && matches!(
                    aggregate,
                    Aggregate::Sum | Aggregate::Avg | Aggregate::Min | Aggregate::Max
                )
                && !object
                    .attributes
                    .iter()
                    .any(|a| a.column_name() == Some(column) || a.name == column)
            {
                object.attributes.push(Attribute {
                    name: column.to_owned(),
                    data_type: DataType::Decimal,
                    role: AttributeRole::Measure,
                    label: measure.label.clone().unwrap_or_default(),
                    description: measure.description.clone().unwrap_or_default(),
                    ..Attribute::default()
                });
            }
            self.measures.insert(
                measure.name.clone(),
                MeasureDef {
                    object: m.name.clone(),
                    aggregate,
                    expr,
                    label: measure.label.clone().unwrap_or_default(),
                    description: measure.description.clone().unwrap_or_default(),
                    create_metric: measure.create_metric,
                    used: false,
                    semi_additive,
                    file: w.file.to_owned(),
                    line: w.place(&at, item.clone()).0,
                    item: w.place(&at, item.clone()).1,
                },
            );
        }
        self.ontology.objects.push(object);
        Ok(())
    }

    /// A measure's `non_additive_dimension` as a metric's `semi_additive`:
    /// its dimension a time attribute of the object (`metric_time` its
    /// aggregation time), its groupings entities of the same semantic model.
    fn non_additive(
        &self,
        value: &Value,
        m: &DbtSemanticModel,
        object: &Object,
        aggregate: Aggregate,
    ) -> Result<SemiAdditive, String> {
        let read: NonAdditiveDimension = serde_yaml_ng::from_value(value.clone())
            .map_err(|e| format!("it does not read: {e}"))?;
        let time = if read.name == "metric_time" {
            self.agg_time
                .get(&m.name)
                .cloned()
                .ok_or("the semantic model has no time dimension for `metric_time`")?
        } else {
            read.name.clone()
        };
        if !object
            .attributes
            .iter()
            .any(|a| a.name == time && a.role == AttributeRole::Time)
        {
            return Err(format!(
                "`{time}` is not a time dimension of the semantic model `{}`",
                m.name
            ));
        }
        let take = match read
            .window_choice
            .as_deref()
            .map(str::to_lowercase)
            .as_deref()
        {
            None | Some("min") => Take::First,
            Some("max") => Take::Last,
            Some(other) => return Err(format!("`window_choice: {other}` is neither min nor max")),
        };
        let mut per = Vec::new();
        for entity in &read.window_groupings {
            if !m.entities.iter().any(|e| e.name == *entity) {
                return Err(format!(
                    "its window grouping `{entity}` is not an entity of the semantic model `{}`",
                    m.name
                ));
            }
            per.push(entity_attribute(entity));
        }
        if !per.is_empty() && matches!(aggregate, Aggregate::Avg | Aggregate::CountDistinct) {
            return Err("with window_groupings, each one's value is added up, which an average or a distinct count cannot be".to_owned());
        }
        Ok(SemiAdditive { time, take, per })
    }

    /// Each foreign entity joins its object to the one whose primary (or
    /// unique) entity has its name.
    fn relationships(&mut self) {
        let mut warnings = Vec::new();
        for (name, defs) in &self.entities {
            let targets: Vec<&EntityDef> = defs
                .iter()
                .filter(|d| matches!(d.kind, EntityKind::Primary | EntityKind::Unique))
                .collect();
            for from in defs.iter().filter(|d| d.kind == EntityKind::Foreign) {
                let Some(to) = targets.first() else {
                    warnings.push((from, name.clone(), "no semantic model has it as its primary or unique entity: it joins nothing".to_owned()));
                    continue;
                };
                let (Some(fk), Some(pk)) = (&from.column, &to.column) else {
                    warnings.push((from, name.clone(), "one side of the join is an expression, not a column: Cassis joins on columns, so it joins nothing".to_owned()));
                    continue;
                };
                self.ontology.relationships.push(Relationship {
                    // Named for the entity: two foreign entities may reach the same model.
                    name: format!("{}_{name}", from.object),
                    from: from.object.clone(),
                    to: to.object.clone(),
                    keys: vec![KeyPair {
                        from: fk.clone(),
                        to: pk.clone(),
                    }],
                    cardinality: Cardinality::ManyToOne,
                    ..Relationship::default()
                });
            }
        }
        let warnings: Vec<_> = warnings
            .into_iter()
            .map(|(from, entity, message)| super::ImportWarning {
                file: from.file.clone(),
                line: from.line,
                item: if from.item.is_empty() {
                    format!("semantic_models.{}.entities.{entity}", from.object)
                } else {
                    from.item.clone()
                },
                message,
            })
            .collect();
        self.warnings.extend(warnings);
    }

    /// A dbt filter (`{{ Dimension('order__status') }} = 'F'`) as SQL over
    /// `object`'s columns, or why it cannot be.
    fn filter_sql(&self, filter: &str, object: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = filter;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").ok_or("an unclosed `{{`")? + start;
            let call = rest[start + 2..end].trim();
            out.push_str(&self.reference_sql(call, object)?);
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        Ok(out.trim().to_owned())
    }

    fn reference_sql(&self, call: &str, object: &str) -> Result<String, String> {
        let (function, args) = call
            .split_once('(')
            .ok_or_else(|| format!("`{call}` is not a Dimension, TimeDimension or Entity"))?;
        let (args, tail) = args
            .split_once(')')
            .ok_or_else(|| format!("`{call}` is not closed"))?;
        if !tail.trim().is_empty() {
            return Err(format!(
                "`{call}`: methods on a reference ({}) are not read",
                tail.trim()
            ));
        }
        let first = args
            .split(',')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['\'', '"']);
        let (entity, name) = match function.trim() {
            "Dimension" | "TimeDimension" => first
                .rsplit_once("__")
                .map_or((None, first), |(e, n)| (Some(e), n)),
            "Entity" => (None, first),
            other => return Err(format!("`{other}(...)` in a filter is not read")),
        };
        if let Some(entity) = entity.and_then(|e| e.rsplit("__").next()) {
            let on_object = self.entities.get(entity).is_some_and(|defs| {
                defs.iter().any(|d| {
                    d.object == object && matches!(d.kind, EntityKind::Primary | EntityKind::Unique)
                })
            });
            if !on_object {
                return Err(format!(
                    "`{first}` is reached through the entity `{entity}`, not on the metric's own semantic model `{object}`; Cassis metric filters read their object's columns"
                ));
            }
        }
        self.dimension_sql
            .get(&(object.to_owned(), name.to_owned()))
            .cloned()
            .ok_or_else(|| format!("`{name}` is not a dimension or entity of `{object}`"))
    }

    fn metric(&mut self, m: &DbtMetric, pass: Pass, w: &mut Warnings) -> Result<(), ImportError> {
        let at = ["metrics", m.name.as_str()];
        let item = format!("metrics.{}", m.name);
        let kind = m.kind.to_lowercase();
        match (kind.as_str(), pass) {
            ("simple", Pass::Simple) => self.simple_metric(m, &at, &item, w),
            ("ratio", Pass::Composite) => {
                self.ratio_metric(m, &at, &item, w);
                Ok(())
            }
            ("derived", Pass::Composite) => {
                self.derived_metric(m, &at, &item, w);
                Ok(())
            }
            ("cumulative", Pass::Composite) => {
                self.cumulative_metric(m, &at, &item, w);
                Ok(())
            }
            ("conversion", Pass::Composite) => {
                w.add(
                    &at,
                    &item,
                    "a conversion metric has no Cassis equivalent; not imported",
                );
                Ok(())
            }
            ("simple" | "ratio" | "derived" | "cumulative" | "conversion", _) => Ok(()),
            (other, Pass::Simple) => Err(w.invalid(
                &at,
                item,
                format!("`type: {other}` is not simple, ratio, derived, cumulative or conversion"),
            )),
            (_, Pass::Composite) => Ok(()),
        }
    }

    /// A derived metric: its `expr` over the metrics it names, an input's
    /// `alias` read as the metric's own name. An input offset in time (a
    /// period-over-period metric) or filtered has no Cassis equivalent.
    fn derived_metric(&mut self, m: &DbtMetric, at: &[&str], item: &str, w: &mut Warnings) {
        let expr = m.type_params.expr.clone().unwrap_or_default();
        let mut aliases: BTreeMap<String, String> = BTreeMap::new();
        let mut object = None;
        for input in m.type_params.metrics.iter().flatten() {
            let (name, alias) = match input {
                Value::String(name) => (name.clone(), None),
                other => {
                    let field =
                        |key: &str| other.get(key).and_then(Value::as_str).map(str::to_owned);
                    if other.get("offset_window").is_some()
                        || other.get("offset_to_grain").is_some()
                    {
                        w.add(at, item, format!("a period-over-period metric (offset_window) `{expr}` has no Cassis equivalent yet (a growth metric compares a period with the one before, as a percentage); not imported"));
                        return;
                    }
                    if other.get("filter").is_some() {
                        w.add(at, item, "an input metric with its own filter has no Cassis equivalent in a derived metric: give the filter to a metric of its own; not imported");
                        return;
                    }
                    (field("name").unwrap_or_default(), field("alias"))
                }
            };
            let Some(found) = self.ontology.metrics.iter().find(|x| x.name == name) else {
                w.add(at, item, format!("its metric `{name}` is not an imported simple or ratio metric; not imported"));
                return;
            };
            if !matches!(found.kind, MetricKind::Simple | MetricKind::Ratio) {
                w.add(at, item, format!("its metric `{name}` is itself derived or over periods; Cassis derives from metrics that aggregate rows or divide two; not imported"));
                return;
            }
            object.get_or_insert_with(|| found.object.clone());
            if let Some(alias) = alias {
                aliases.insert(alias, name);
            }
        }
        let Some(object) = object else {
            w.add(
                at,
                item,
                "a derived metric needs the metrics its `expr` combines; not imported",
            );
            return;
        };
        let expr = super::replace_identifiers(&expr, |word| aliases.get(word).cloned());
        if m.filter.is_some() {
            w.add(at, item, "a filter on a derived metric has no Cassis equivalent: give it to the metrics it uses; not imported");
            return;
        }
        self.ontology.metrics.push(Metric {
            name: m.name.clone(),
            object,
            aggregate: Aggregate::Avg,
            kind: MetricKind::Derived,
            expr: Some(expr),
            label: m.label.clone().unwrap_or_default(),
            description: m.description.clone().unwrap_or_default(),
            ..Metric::default()
        });
    }

    /// A cumulative metric: a running total of its measure's (or, in the
    /// latest spec, its input metric's) metric, from the first period asked
    /// about or again each `grain_to_date`. A `window` of a fixed span has
    /// no Cassis equivalent: Cassis rolls over periods of the question's
    /// grouping.
    fn cumulative_metric(&mut self, m: &DbtMetric, at: &[&str], item: &str, w: &mut Warnings) {
        let nested = |key: &str| {
            m.type_params
                .cumulative_type_params
                .as_ref()
                .and_then(|c| c.get(key))
                .cloned()
        };
        let window = m.type_params.window.clone().or_else(|| nested("window"));
        let grain_to_date = m
            .type_params
            .grain_to_date
            .clone()
            .or_else(|| nested("grain_to_date"));
        if let Some(window) = window {
            w.add(at, item, format!("a cumulative metric over a window of {} has no Cassis equivalent (a rolling total counts periods of the question's grouping, not a fixed span); not imported", serde_yaml_ng::to_string(&window).unwrap_or_default().trim()));
            return;
        }
        let to_date = match grain_to_date
            .as_ref()
            .and_then(Value::as_str)
            .map(str::to_lowercase)
        {
            None => None,
            Some(grain) => match grain.as_str() {
                "year" => Some(crate::ontology::Grain::Year),
                "quarter" => Some(crate::ontology::Grain::Quarter),
                "month" => Some(crate::ontology::Grain::Month),
                "week" => Some(crate::ontology::Grain::Week),
                "day" => Some(crate::ontology::Grain::Day),
                other => {
                    w.add(
                        at,
                        item,
                        format!("`grain_to_date: {other}` is not a grain Cassis has; not imported"),
                    );
                    return;
                }
            },
        };
        let Some(input) = &m.type_params.measure else {
            w.add(
                at,
                item,
                "a cumulative metric needs the measure (or metric) it adds up; not imported",
            );
            return;
        };
        // The metric of the measure's name, as the legacy spec's simple
        // metrics usually are, or the latest spec's input metric.
        let Some(of) = self
            .ontology
            .metrics
            .iter()
            .find(|x| x.name == input.name() && x.kind == MetricKind::Simple)
        else {
            w.add(at, item, format!("`{}` is no imported simple metric of that name (Cassis adds up a metric, and dbt names a measure); not imported", input.name()));
            return;
        };
        if !matches!(of.aggregate, Aggregate::Sum | Aggregate::Count) || of.semi_additive.is_some()
        {
            w.add(
                at,
                item,
                format!(
                    "`{}` does not add up (only a sum or a count does); not imported",
                    of.name
                ),
            );
            return;
        }
        if m.filter.is_some() || !input.filters().is_empty() {
            w.add(at, item, "a filter on a cumulative metric has no Cassis equivalent: give it to the metric it adds up; not imported");
            return;
        }
        let object = of.object.clone();
        let of = of.name.clone();
        self.ontology.metrics.push(Metric {
            name: m.name.clone(),
            object,
            aggregate: Aggregate::Sum,
            kind: MetricKind::Cumulative,
            of: Some(of),
            to_date,
            label: m.label.clone().unwrap_or_default(),
            description: m.description.clone().unwrap_or_default(),
            ..Metric::default()
        });
    }

    fn simple_metric(
        &mut self,
        m: &DbtMetric,
        at: &[&str],
        item: &str,
        w: &mut Warnings,
    ) -> Result<(), ImportError> {
        let Some(input) = &m.type_params.measure else {
            return Err(w.invalid(at, item, "a simple metric needs `type_params: measure:`"));
        };
        let Some(measure) = self.measures.get_mut(input.name()) else {
            if m.on_model {
                return Ok(());
            }
            w.add(
                at,
                item,
                format!(
                    "its measure `{}` is not defined (or was not imported); not imported",
                    input.name()
                ),
            );
            return Ok(());
        };
        measure.used = true;
        let measure = measure.clone();
        if let Input::Detailed {
            fill_nulls_with,
            join_to_timespine,
            ..
        } = input
            && (fill_nulls_with.is_some() || join_to_timespine == &Some(true))
        {
            w.add(at, item, "fill_nulls_with and join_to_timespine are not kept: periods without rows are absent from answers");
        }
        let mut filters = Vec::new();
        for filter in m
            .filter
            .iter()
            .flat_map(Filters::list)
            .chain(input.filters())
        {
            match self.filter_sql(&filter, &measure.object) {
                Ok(sql) => filters.push(sql),
                Err(why) => {
                    w.add(at, item, format!("its filter cannot be written over `{}`: {why}; the metric is not imported", measure.object));
                    return Ok(());
                }
            }
        }
        self.ontology.metrics.push(Metric {
            name: m.name.clone(),
            object: measure.object.clone(),
            aggregate: measure.aggregate,
            kind: MetricKind::Simple,
            expr: measure.expr.clone(),
            filters,
            semi_additive: measure.semi_additive.clone(),
            label: m.label.clone().unwrap_or_default(),
            description: m
                .description
                .clone()
                .or_else(|| Some(measure.description.clone()).filter(|d| !d.is_empty()))
                .unwrap_or_default(),
            ..Metric::default()
        });
        Ok(())
    }

    fn ratio_metric(&mut self, m: &DbtMetric, at: &[&str], item: &str, w: &mut Warnings) {
        let (Some(numerator), Some(denominator)) =
            (&m.type_params.numerator, &m.type_params.denominator)
        else {
            w.add(
                at,
                item,
                "a ratio metric needs `numerator` and `denominator`; not imported",
            );
            return;
        };
        let shared = m.filter.as_ref().map(Filters::list).unwrap_or_default();
        let mut sides = Vec::new();
        for (side, input) in [("numerator", numerator), ("denominator", denominator)] {
            let Some(base) = self
                .ontology
                .metrics
                .iter()
                .find(|x| x.name == input.name())
                .cloned()
            else {
                w.add(
                    at,
                    item,
                    format!(
                        "its {side} `{}` is not an imported simple metric; not imported",
                        input.name()
                    ),
                );
                return;
            };
            if base.is_ratio() {
                w.add(at, item, format!("its {side} `{}` is a ratio; Cassis divides simple metrics only; not imported", base.name));
                return;
            }
            let extra: Vec<String> = shared.iter().cloned().chain(input.filters()).collect();
            if extra.is_empty() {
                sides.push(base.name);
                continue;
            }
            // A side with its own filter is a metric of its own.
            let mut filtered = base.clone();
            filtered.name = format!("{}_{side}", m.name);
            filtered.label = String::new();
            filtered.synonyms = Vec::new();
            filtered.variants = Vec::new();
            filtered.description = format!(
                "The {side} of {}: {} where the ratio's filter holds.",
                m.name, base.name
            );
            for filter in extra {
                match self.filter_sql(&filter, &base.object) {
                    Ok(sql) => filtered.filters.push(sql),
                    Err(why) => {
                        w.add(at, item, format!("the filter of its {side} cannot be written over `{}`: {why}; not imported", base.object));
                        return;
                    }
                }
            }
            sides.push(filtered.name.clone());
            self.ontology.metrics.push(filtered);
        }
        let object = self
            .ontology
            .metrics
            .iter()
            .find(|x| x.name == sides[0])
            .map(|x| x.object.clone())
            .unwrap_or_default();
        self.ontology.metrics.push(Metric {
            name: m.name.clone(),
            object,
            aggregate: Aggregate::Avg,
            kind: MetricKind::Ratio,
            numerator: Some(sides[0].clone()),
            denominator: Some(sides[1].clone()),
            label: m.label.clone().unwrap_or_default(),
            description: m.description.clone().unwrap_or_default(),
            ..Metric::default()
        });
    }

    /// Measures with `create_metric: true` that no metric of their name exists for.
    fn measures_as_metrics(&mut self) {
        for (name, measure) in &self.measures {
            if self.ontology.metrics.iter().any(|m| m.name == *name) {
                continue;
            }
            if measure.create_metric {
                self.ontology.metrics.push(Metric {
                    name: name.clone(),
                    object: measure.object.clone(),
                    aggregate: measure.aggregate,
                    expr: measure.expr.clone(),
                    semi_additive: measure.semi_additive.clone(),
                    label: measure.label.clone(),
                    description: measure.description.clone(),
                    ..Metric::default()
                });
            } else if !measure.used {
                self.warnings.push(super::ImportWarning {
                    file: measure.file.clone(),
                    line: measure.line,
                    item: measure.item.clone(),
                    message: "no metric uses this measure and it does not create one: only its column is kept, as a measure attribute".to_owned(),
                });
            }
        }
    }

    fn saved_query(&mut self, q: &DbtSavedQuery, w: &mut Warnings) {
        let at = ["saved_queries", q.name.as_str()];
        let item = format!("saved_queries.{}", q.name);
        if q.query_params.order_by.is_some() || q.query_params.limit.is_some() {
            w.add(
                &at,
                &item,
                "its order_by and limit are not kept: the verified question lists every group",
            );
        }
        if q.exports.is_some() {
            w.add(
                &at,
                &item,
                "exports (tables dbt writes) have no Cassis equivalent; not imported",
            );
        }
        let mut objects = Vec::new();
        for metric in &q.query_params.metrics {
            match self.ontology.metrics.iter().find(|m| m.name == *metric) {
                Some(m) => objects.push(m.object.clone()),
                None => {
                    w.add(
                        &at,
                        &item,
                        format!("its metric `{metric}` was not imported; not imported"),
                    );
                    return;
                }
            }
        }
        let mut filters = Vec::new();
        for condition in q.query_params.filter.iter().flat_map(Filters::list) {
            match self.saved_filters(&condition, objects.first().map(String::as_str)) {
                Ok(mut read) => filters.append(&mut read),
                Err(why) => {
                    w.add(
                        &at,
                        &item,
                        format!("its where `{}`: {why}; not imported", condition.trim()),
                    );
                    return;
                }
            }
        }
        let mut group_by = Vec::new();
        for by in &q.query_params.group_by {
            match self.group_by(by, objects.first().map(String::as_str)) {
                Ok(g) => group_by.push(g),
                Err(why) => {
                    w.add(
                        &at,
                        &item,
                        format!("its grouping `{by}`: {why}; not imported"),
                    );
                    return;
                }
            }
        }
        self.saved_queries.push(SavedQuery {
            file: w.file.to_owned(),
            line: w.lines.locate(&at),
            name: q.name.clone(),
            question: q
                .label
                .clone()
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| humanize(&q.name)),
            description: q.description.clone().unwrap_or_default(),
            metrics: q.query_params.metrics.clone(),
            group_by,
            filters,
        });
    }

    /// A saved query's `where` as conditions on dimensions (`{{
    /// TimeDimension('metric_time', 'day') }} >= '1995-01-01'`): each Jinja
    /// reference read as a grouping is, then the SQL read as comparisons of
    /// one with values, joined by AND.
    fn saved_filters(
        &self,
        condition: &str,
        metric_object: Option<&str>,
    ) -> Result<Vec<SavedFilter>, String> {
        let mut references = Vec::new();
        let mut sql = String::new();
        let mut rest = condition;
        while let Some(start) = rest.find("{{") {
            let end = rest[start..].find("}}").ok_or("a `{{` is not closed")? + start;
            sql.push_str(&rest[..start]);
            references.push(self.group_by(&rest[start..end + 2], metric_object)?);
            sql.push_str(&format!(" {REFERENCE}{} ", references.len() - 1));
            rest = &rest[end + 2..];
        }
        sql.push_str(rest);
        let expr = crate::sql::parse_expression(crate::project::Dialect::Postgres, &sql)
            .map_err(|e| e.to_string())?;
        let mut filters = Vec::new();
        read_comparisons(&expr, &references, &mut filters)?;
        Ok(filters)
    }

    fn group_by(&self, by: &str, metric_object: Option<&str>) -> Result<GroupBy, String> {
        let call = by
            .trim()
            .trim_start_matches("{{")
            .trim_end_matches("}}")
            .trim();
        let (function, args) = call
            .split_once('(')
            .ok_or("not a Dimension or TimeDimension")?;
        let args = args.strip_suffix(')').ok_or("not closed")?;
        let args: Vec<&str> = args
            .split(',')
            .map(|a| a.trim().trim_matches(['\'', '"']))
            .collect();
        let grain = match (function.trim(), args.get(1)) {
            ("TimeDimension", Some(&"year")) => Some(Grain::Year),
            ("TimeDimension", Some(&"month")) => Some(Grain::Month),
            ("TimeDimension", Some(&"day") | None) | ("Dimension", None) => None,
            ("TimeDimension", Some(other)) => {
                return Err(format!(
                    "Cassis groups dates by day, month or year, not by {other}"
                ));
            }
            (other, _) => return Err(format!("`{other}` is not Dimension or TimeDimension")),
        };
        if args[0] == "metric_time" {
            let object = metric_object.ok_or("metric_time needs a metric")?;
            let attribute = self
                .agg_time
                .get(object)
                .ok_or_else(|| format!("`{object}` has no time dimension"))?;
            return Ok(GroupBy {
                object: object.to_owned(),
                attribute: attribute.clone(),
                grain,
            });
        }
        let (entity, name) = args[0]
            .rsplit_once("__")
            .ok_or("a dimension is named through its entity: `entity__dimension`")?;
        let entity = entity.rsplit("__").next().unwrap_or(entity);
        let object = self
            .entities
            .get(entity)
            .and_then(|defs| {
                defs.iter()
                    .find(|d| matches!(d.kind, EntityKind::Primary | EntityKind::Unique))
            })
            .map(|d| d.object.clone())
            .ok_or_else(|| format!("no semantic model has `{entity}` as its primary entity"))?;
        let attribute = self
            .ontology
            .objects
            .iter()
            .find(|o| o.name == object)
            .and_then(|o| o.attributes.iter().find(|a| a.name == name))
            .map(|a| a.name.clone())
            .ok_or_else(|| format!("`{name}` is not a dimension of `{object}`"))?;
        Ok(GroupBy {
            object,
            attribute,
            grain,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::DEFAULT_MAX_YAML_BYTES;

    fn wholesale() -> Vec<ProjectFile> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/wholesale/dbt");
        read_project(&dir, DEFAULT_MAX_YAML_BYTES).unwrap()
    }

    fn warning<'a>(imported: &'a Imported, item: &str) -> &'a super::super::ImportWarning {
        imported
            .warnings
            .iter()
            .find(|w| w.item == item)
            .unwrap_or_else(|| panic!("no warning about {item}: {:#?}", imported.warnings))
    }

    #[test]
    fn the_wholesale_project_reads_with_a_warning_per_item_left_out() {
        let files = wholesale();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names.len(), 7, "{names:?}");
        let imported = from_dbt(&files, DEFAULT_MAX_YAML_BYTES).unwrap();
        let o = &imported.ontology;
        let metric = |name: &str| o.metrics.iter().find(|m| m.name == name);
        let revenue = metric("revenue").unwrap();
        assert_eq!(
            (revenue.object.as_str(), revenue.aggregate),
            ("line_item", Aggregate::Sum)
        );
        assert_eq!(
            revenue.expr.as_deref(),
            Some("l_extendedprice * (1 - l_discount)")
        );
        assert_eq!(
            metric("returned_quantity").unwrap().filters,
            vec!["l_returnflag = 'R'"]
        );
        assert_eq!(
            metric("urgent_orders").unwrap().filters,
            vec!["o_orderpriority = '1-URGENT'"]
        );
        assert_eq!(
            metric("late_line_items").unwrap().expr.as_deref(),
            Some("CASE WHEN l_receiptdate > l_commitdate THEN 1 ELSE 0 END")
        );
        let order_count = metric("order_count").unwrap();
        assert_eq!(
            (order_count.aggregate, order_count.expr.clone()),
            (Aggregate::Count, None)
        );
        let per_order = metric("average_revenue_per_order").unwrap();
        assert!(per_order.is_ratio());
        assert_eq!(per_order.numerator.as_deref(), Some("revenue"));
        let share = metric("urgent_order_share").unwrap();
        assert_eq!(
            share.numerator.as_deref(),
            Some("urgent_order_share_numerator")
        );
        assert_eq!(
            metric("urgent_order_share_numerator").unwrap().filters,
            vec!["o_orderpriority = '1-URGENT'"]
        );
        // create_metric: true
        assert_eq!(metric("order_value").unwrap().aggregate, Aggregate::Avg);
        // A running total to date by year, of the metric of its measure's name.
        let running = metric("cumulative_revenue").unwrap();
        assert_eq!(
            (running.kind, running.of.as_deref(), running.to_date),
            (
                MetricKind::Cumulative,
                Some("revenue"),
                Some(crate::ontology::Grain::Year)
            )
        );
        for left_out in [
            "revenue_growth_yoy",
            "furniture_revenue",
            "order_to_return",
            "median_order_value",
        ] {
            assert!(metric(left_out).is_none(), "{left_out}");
            let w = warning(&imported, &format!("metrics.{left_out}"));
            assert_eq!(w.file, "models/semantic/metrics.yml");
            assert!(w.line.is_some(), "{w}");
        }
        assert!(
            warning(&imported, "metrics.revenue_growth_yoy")
                .message
                .contains("offset_window")
        );
        assert!(
            warning(&imported, "metrics.furniture_revenue")
                .message
                .contains("customer__market_segment")
        );
        let median = warning(
            &imported,
            "semantic_models.order.measures.median_order_value",
        );
        assert_eq!(
            (median.file.as_str(), median.line),
            ("models/semantic/orders.yml", Some(50))
        );
        assert!(
            warning(
                &imported,
                "semantic_models.customer.measures.account_balance"
            )
            .message
            .contains("non_additive_dimension")
        );
        assert!(
            warning(&imported, "semantic_models.order.dimensions.order_month")
                .message
                .contains("month")
        );
        let part = warning(&imported, "semantic_models.line_item.entities.part");
        assert_eq!(part.file, "models/semantic/line_items.yml");
        assert!(
            warning(&imported, "saved_queries.high_priority_revenue")
                .message
                .contains("LIKE")
        );
        // Joins from foreign entities to primary ones.
        let joins: Vec<(&str, &str, &str, &str)> = o
            .relationships
            .iter()
            .map(|r| {
                (
                    r.from.as_str(),
                    r.to.as_str(),
                    r.keys[0].from.as_str(),
                    r.keys[0].to.as_str(),
                )
            })
            .collect();
        for join in [
            ("line_item", "order", "l_orderkey", "o_orderkey"),
            ("order", "customer", "o_custkey", "c_custkey"),
            ("customer", "nation", "c_nationkey", "n_nationkey"),
            ("nation", "region", "n_regionkey", "r_regionkey"),
        ] {
            assert!(joins.contains(&join), "{join:?} in {joins:?}");
        }
        let order = o.objects.iter().find(|o| o.name == "order").unwrap();
        assert_eq!(
            (order.table.as_str(), order.primary_key.as_slice()),
            ("orders", &["o_orderkey".to_owned()][..])
        );
        let date = order
            .attributes
            .iter()
            .find(|a| a.name == "order_date")
            .unwrap();
        assert_eq!(
            (date.role, date.data_type, date.column.as_deref()),
            (AttributeRole::Time, DataType::Date, Some("o_orderdate"))
        );
        // Saved queries wait for the compiler.
        let queries: Vec<&str> = imported
            .saved_queries
            .iter()
            .map(|q| q.question.as_str())
            .collect();
        assert_eq!(
            queries,
            [
                "How many orders were placed each year?",
                "What is revenue by region?",
                "What was the revenue of line items shipped in 1995?"
            ]
        );
        // Its `where`, as conditions on the line item's ship date: the
        // metric's time.
        let text = |t: &str| Literal::Text(t.to_owned());
        let on = |object: &str, attribute: &str| GroupBy {
            object: object.into(),
            attribute: attribute.into(),
            grain: None,
        };
        assert_eq!(
            imported.saved_queries[2].filters,
            [
                SavedFilter {
                    on: on("line_item", "ship_date"),
                    comparison: Comparison::AtLeast(text("1995-01-01"))
                },
                SavedFilter {
                    on: on("line_item", "ship_date"),
                    comparison: Comparison::Below(text("1996-01-01"))
                },
            ]
        );
        assert_eq!(
            imported.saved_queries[0].group_by,
            vec![GroupBy {
                object: "order".into(),
                attribute: "order_date".into(),
                grain: Some(Grain::Year)
            }]
        );
        assert!(crate::ontology::validate(o, crate::project::Dialect::Sqlite).is_empty());
    }

    /// Derived metrics over other metrics (an input's alias read as its
    /// name) and cumulative ones (to date, or from the first period) import;
    /// a fixed window or a filtered input stays a warning.
    #[test]
    fn derived_and_cumulative_metrics_import_where_cassis_has_them() {
        let mut files = wholesale();
        files.push(ProjectFile::new(
            "models/more_metrics.yml",
            r#"
metrics:
  - name: revenue_per_item
    type: derived
    type_params:
      expr: takings / order_count
      metrics:
        - {name: revenue, alias: takings}
        - order_count
  - name: orders_to_date
    type: cumulative
    type_params:
      measure: order_count
      cumulative_type_params: {grain_to_date: month}
  - name: all_orders
    type: cumulative
    type_params:
      measure: {name: order_count}
  - name: orders_last_week
    type: cumulative
    type_params:
      measure: order_count
      window: 7 days
  - name: urgent_less_all
    type: derived
    type_params:
      expr: urgent - order_count
      metrics:
        - {name: order_count, alias: urgent, filter: "{{ Dimension('order__order_priority') }} = '1-URGENT'"}
        - order_count
"#,
        ));
        let imported = from_dbt(&files, DEFAULT_MAX_YAML_BYTES).unwrap();
        let o = &imported.ontology;
        let metric = |name: &str| o.metrics.iter().find(|m| m.name == name);
        let derived = metric("revenue_per_item").unwrap();
        assert_eq!(
            (derived.kind, derived.expr.as_deref()),
            (MetricKind::Derived, Some("revenue / order_count"))
        );
        let to_date = metric("orders_to_date").unwrap();
        assert_eq!(
            (to_date.of.as_deref(), to_date.to_date),
            (Some("order_count"), Some(crate::ontology::Grain::Month))
        );
        assert_eq!(metric("all_orders").unwrap().to_date, None);
        for (left_out, why) in [
            ("orders_last_week", "window of 7 days"),
            ("urgent_less_all", "its own filter"),
        ] {
            assert!(metric(left_out).is_none(), "{left_out}");
            let w = warning(&imported, &format!("metrics.{left_out}"));
            assert!(w.message.contains(why), "{w}");
        }
        assert_eq!(
            crate::ontology::validate(o, crate::project::Dialect::Sqlite),
            vec![]
        );
    }

    /// dbt 1.12's latest spec (semantic models on models, entities and
    /// dimensions on columns, simple metrics beside them, ratios at the top
    /// level) reads as the same draft the legacy spec gives.
    #[test]
    fn the_latest_spec_reads_semantic_models_from_models() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/wholesale/dbt_latest");
        let files = read_project(&dir, DEFAULT_MAX_YAML_BYTES).unwrap();
        let imported = from_dbt(&files, DEFAULT_MAX_YAML_BYTES).unwrap();
        assert_eq!(imported.warnings, vec![]);
        let o = &imported.ontology;
        assert_eq!(
            crate::ontology::validate(o, crate::project::Dialect::Sqlite),
            vec![]
        );
        let objects: Vec<(&str, &str)> = o
            .objects
            .iter()
            .map(|o| (o.name.as_str(), o.table.as_str()))
            .collect();
        assert_eq!(
            objects,
            [
                ("region", "region"),
                ("nation", "nation"),
                ("customer", "customer"),
                ("order", "orders"),
                ("line_item", "lineitem")
            ]
        );
        let order = o.objects.iter().find(|o| o.name == "order").unwrap();
        assert_eq!(order.primary_key, ["o_orderkey"]);
        let date = order
            .attributes
            .iter()
            .find(|a| a.name == "order_date")
            .unwrap();
        assert_eq!(
            (date.role, date.data_type, date.column.as_deref()),
            (AttributeRole::Time, DataType::Date, Some("o_orderdate"))
        );
        let joins: Vec<(&str, &str)> = o
            .relationships
            .iter()
            .map(|r| (r.from.as_str(), r.to.as_str()))
            .collect();
        for join in [
            ("nation", "region"),
            ("customer", "nation"),
            ("order", "customer"),
            ("line_item", "order"),
        ] {
            assert!(joins.contains(&join), "{join:?} in {joins:?}");
        }
        let metric = |name: &str| o.metrics.iter().find(|m| m.name == name).unwrap();
        assert_eq!(
            (
                metric("revenue").aggregate,
                metric("revenue").expr.as_deref()
            ),
            (Aggregate::Sum, Some("l_extendedprice * (1 - l_discount)"))
        );
        assert_eq!(
            metric("urgent_order_count").filters,
            ["o_orderpriority = '1-URGENT'"]
        );
        assert_eq!(metric("customer_count").aggregate, Aggregate::CountDistinct);
        let ratio = metric("average_revenue_per_order");
        assert_eq!(
            (
                ratio.kind,
                ratio.numerator.as_deref(),
                ratio.denominator.as_deref()
            ),
            (MetricKind::Ratio, Some("revenue"), Some("order_count"))
        );
        assert_eq!(imported.saved_queries.len(), 1);
    }

    /// The latest spec's names for a level (`window_agg`, `group_by`), and
    /// its items named where the model writes them.
    #[test]
    fn the_latest_spec_names_its_items_where_they_are_written() {
        let project = ProjectFile::new(
            "models/balances.yml",
            r#"
models:
  - name: account_balances
    semantic_model: {enabled: true, name: balance}
    agg_time_dimension: snapshot_date
    columns:
      - name: balance_id
        entity: primary
      - name: account_id
        entity: {type: foreign, name: account}
      - name: snapshot_date
        granularity: day
        dimension: time
      - name: opened_month
        granularity: month
        dimension: {type: time}
    metrics:
      - name: closing_balance
        type: simple
        agg: sum
        expr: amount
        non_additive_dimension: {name: snapshot_date, window_agg: max, group_by: [account]}
      - name: median_balance
        type: simple
        agg: median
        expr: amount
  - name: not_semantic
    semantic_model: false
"#,
        );
        let imported = from_dbt(&[project], DEFAULT_MAX_YAML_BYTES).unwrap();
        let closing = imported
            .ontology
            .metrics
            .iter()
            .find(|m| m.name == "closing_balance")
            .unwrap();
        assert_eq!(
            closing.semi_additive,
            Some(SemiAdditive {
                time: "snapshot_date".into(),
                take: Take::Last,
                per: vec!["account_key".into()],
            })
        );
        let table: Vec<&str> = imported
            .ontology
            .objects
            .iter()
            .map(|o| o.table.as_str())
            .collect();
        assert_eq!(table, ["account_balances"]);
        let shown: Vec<(String, Option<usize>)> = imported
            .warnings
            .iter()
            .map(|w| (w.item.clone(), w.line))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "models.account_balances.columns.opened_month".to_owned(),
                    Some(14)
                ),
                (
                    "models.account_balances.metrics.median_balance".to_owned(),
                    Some(23)
                ),
                // No model has `account` as its primary entity.
                (
                    "models.account_balances.columns.account_id".to_owned(),
                    Some(9)
                ),
            ],
            "{:#?}",
            imported.warnings
        );
    }

    /// MetricFlow's `non_additive_dimension` becomes `semi_additive`: `max`
    /// the last value, `min` (and no choice, dbt's default) the first,
    /// window groupings the entities' key attributes; one that names no time
    /// dimension stays a warning and its metric adds up.
    #[test]
    fn a_non_additive_dimension_makes_its_metrics_semi_additive() {
        let project = ProjectFile::new(
            "models/balances.yml",
            r#"
semantic_models:
  - name: balance
    model: ref('account_balances')
    defaults: {agg_time_dimension: snapshot_date}
    entities:
      - {name: balance_id, type: primary}
      - {name: account, type: foreign, expr: account_id}
    dimensions:
      - {name: snapshot_date, type: time, type_params: {time_granularity: day}}
      - {name: branch, type: categorical}
    measures:
      - name: closing
        agg: sum
        expr: amount
        create_metric: true
        non_additive_dimension: {name: snapshot_date, window_choice: max, window_groupings: [account]}
      - name: opening
        agg: sum
        expr: amount
        create_metric: true
        non_additive_dimension: {name: metric_time}
      - name: broken
        agg: sum
        expr: amount
        create_metric: true
        non_additive_dimension: {name: branch, window_choice: max}
metrics:
  - {name: closing_balance, type: simple, type_params: {measure: closing}}
"#,
        );
        let imported = from_dbt(&[project], DEFAULT_MAX_YAML_BYTES).unwrap();
        let levels = |name: &str| {
            imported
                .ontology
                .metrics
                .iter()
                .find(|m| m.name == name)
                .unwrap_or_else(|| panic!("no metric {name}"))
                .semi_additive
                .clone()
        };
        let at = |take, per: &[&str]| {
            Some(SemiAdditive {
                time: "snapshot_date".into(),
                take,
                per: per.iter().map(|p| p.to_string()).collect(),
            })
        };
        assert_eq!(levels("closing_balance"), at(Take::Last, &["account_key"]));
        assert_eq!(levels("opening"), at(Take::First, &[]));
        assert_eq!(levels("broken"), None);
        assert!(
            warning(&imported, "semantic_models.balance.measures.broken")
                .message
                .contains("`branch` is not a time dimension")
        );
        assert!(
            !imported
                .warnings
                .iter()
                .any(|w| w.item.ends_with("measures.closing")
                    || w.item.ends_with("measures.opening")),
            "{:#?}",
            imported.warnings
        );
        assert_eq!(
            crate::ontology::validate(&imported.ontology, crate::project::Dialect::Postgres),
            vec![]
        );
    }

    /// A `where` reads as comparisons of dimensions with values, whichever
    /// side the dimension is on, joined by AND; a year compares as a
    /// number. What is no such comparison is named in a warning.
    #[test]
    fn a_saved_query_where_reads_as_conditions_on_dimensions() {
        let mut files = wholesale();
        files.push(ProjectFile::new(
            "models/more_queries.yml",
            r#"
saved_queries:
  - name: late_nineties
    query_params:
      metrics: [order_count]
      where:
        - "{{ TimeDimension('metric_time', 'year') }} BETWEEN 1996 AND 1998 AND '2-HIGH' <> {{ Dimension('order__order_priority') }}"
        - "{{ Dimension('order__order_status') }} IN ('F', 'O')"
        - "({{ Dimension('order__order_status') }} NOT IN ('P')) AND {{ Dimension('order__order_priority') }} IS NULL"
  - name: either
    query_params:
      metrics: [order_count]
      where: "{{ Dimension('order__order_status') }} = 'F' OR {{ Dimension('order__order_status') }} = 'O'"
  - name: unknown
    query_params:
      metrics: [order_count]
      where: "{{ Dimension('order__order_colour') }} = 'red'"
"#,
        ));
        let imported = from_dbt(&files, DEFAULT_MAX_YAML_BYTES).unwrap();
        let query = imported
            .saved_queries
            .iter()
            .find(|q| q.name == "late_nineties")
            .unwrap();
        let on = |attribute: &str, grain| GroupBy {
            object: "order".into(),
            attribute: attribute.into(),
            grain,
        };
        let text = |t: &str| Literal::Text(t.to_owned());
        let read: Vec<(GroupBy, Comparison)> = query
            .filters
            .iter()
            .map(|f| (f.on.clone(), f.comparison.clone()))
            .collect();
        assert_eq!(
            read,
            [
                (
                    on("order_date", Some(Grain::Year)),
                    Comparison::Between(Literal::Integer(1996), Literal::Integer(1998))
                ),
                (
                    on("order_priority", None),
                    Comparison::NoneOf(vec![text("2-HIGH")])
                ),
                (
                    on("order_status", None),
                    Comparison::OneOf(vec![text("F"), text("O")])
                ),
                (
                    on("order_status", None),
                    Comparison::NoneOf(vec![text("P")])
                ),
                (on("order_priority", None), Comparison::Missing),
            ]
        );
        assert!(
            warning(&imported, "saved_queries.either")
                .message
                .contains("it is not a dimension compared with values")
        );
        assert!(
            warning(&imported, "saved_queries.unknown")
                .message
                .contains("`order_colour` is not a dimension of `order`")
        );
        assert!(
            !imported
                .saved_queries
                .iter()
                .any(|q| q.name == "either" || q.name == "unknown")
        );
    }

    #[test]
    fn bad_input_is_refused_with_its_file_line_and_what_is_wrong() {
        let error = |text: &str| {
            from_dbt(&[ProjectFile::new("m.yml", text)], DEFAULT_MAX_YAML_BYTES)
                .unwrap_err()
                .to_string()
        };
        let e = error(
            "semantic_models:\n  - name: orders\n    model: ref('orders')\n    measures:\n      - name: n\n        agg: total\n",
        );
        assert_eq!(
            e,
            "m.yml:5: semantic_models.orders.measures.n: `agg: total` is not one of sum, count, count_distinct, average, min, max, sum_boolean, median or percentile"
        );
        let e = error("semantic_models:\n  - name: orders\n    model: orders\n");
        assert!(
            e.starts_with(
                "m.yml:2: semantic_models.orders: `model: orders` should be `ref('a_model')`"
            ),
            "{e}"
        );
        let e = error(
            "semantic_models:\n  - name: orders\n    model: ref('orders')\n    entities:\n      - name: order\n        type: primary_key\n",
        );
        assert!(
            e.starts_with("m.yml:6:") && e.contains("unknown variant `primary_key`"),
            "{e}"
        );
        let e = error("semantic_models:\n  - model: ref('orders')\n");
        assert!(
            e.starts_with("m.yml:2:") && e.contains("missing field `name`"),
            "{e}"
        );
        let e = error("metrics:\n  - name: m\n    type: magic\n    type_params: {}\n");
        assert_eq!(
            e,
            "m.yml:2: metrics.m: `type: magic` is not simple, ratio, derived, cumulative or conversion"
        );
        let e = error("version: 2\nmodels:\n  - name: orders\n");
        assert!(e.contains("no dbt semantic_models"), "{e}");
        // Bounded: size, and what aliases expand to.
        let big = format!("semantic_models: []\n# {}\n", "x".repeat(200));
        let e = from_dbt(&[ProjectFile::new("big.yml", &big)], 100)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "big.yml: the file is {} bytes; a file may be at most 100 bytes",
                big.len()
            )
        );
        let mut bomb = format!("a: &a \"{}\"\nsemantic_models: [", "x".repeat(10_000));
        bomb.push_str(&vec!["*a"; 500].join(", "));
        bomb.push_str("]\n");
        let e = error(&bomb);
        assert!(e.contains("anchors and aliases"), "{e}");
    }

    #[test]
    fn a_project_folder_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        std::fs::write(dir.path().join("target/manifest.yml"), "x: 1\n").unwrap();
        std::fs::write(dir.path().join("a.yml"), "semantic_models: []\n").unwrap();
        let files = read_project(dir.path(), 1_000).unwrap();
        assert_eq!(
            files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["a.yml"]
        );
        std::fs::write(dir.path().join("b.yaml"), "x".repeat(2_000)).unwrap();
        let e = read_project(dir.path(), 1_000).unwrap_err().to_string();
        assert_eq!(
            e,
            "b.yaml: the file is 2000 bytes; a file may be at most 1000 bytes"
        );
        std::fs::write(dir.path().join("b.yaml"), "x".repeat(900)).unwrap();
        for i in 0..4 {
            std::fs::write(dir.path().join(format!("c{i}.yml")), "x".repeat(900)).unwrap();
        }
        let e = read_project(dir.path(), 1_000).unwrap_err().to_string();
        assert!(
            e.ends_with("the YAML files hold more than 4000 bytes in all"),
            "{e}"
        );
    }
}
