//! Ontologies written for other semantic layers, read into a Cassis draft:
//! a dbt project's semantic models and metrics (MetricFlow's YAML), and a
//! Snowflake Cortex Analyst semantic model. What Cassis has no equivalent for
//! is never dropped silently: each such item becomes one [`ImportWarning`]
//! naming the file, the line and what was left out or changed.
//!
//! Inputs are bounded like an ontology document: each file by the same byte
//! limit, a project by a number of files and a total, and every document by
//! the same budget on what anchors and aliases expand to (nesting is bounded
//! by the YAML reader's own recursion limit).

pub mod cortex;
pub mod dbt;
mod text;

pub(crate) use text::join_and as text_join_and;
pub(crate) use text::replace_identifiers;

use super::model::Ontology;
use serde::de::DeserializeOwned;
use std::fmt;

/// A semantic layer Cassis reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// dbt's semantic models, metrics and saved queries (MetricFlow).
    Dbt,
    /// A Snowflake Cortex Analyst semantic model.
    Snowflake,
    /// Cassis's own ontology YAML.
    Cassis,
}

impl Format {
    /// Tells the three apart by their top-level keys: Cortex has `tables`
    /// with `base_table`, dbt has `semantic_models`, `metrics` with
    /// `type_params`, `saved_queries` or `models` with a `semantic_model`
    /// (the latest spec), Cassis has `objects`.
    pub fn detect(text: &str) -> Option<Format> {
        let top: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with([' ', '\t', '#', '-']) && l.contains(':'))
            .filter_map(|l| l.split(':').next())
            .map(str::trim)
            .collect();
        let has = |key: &str| top.contains(&key);
        if has("tables") && text.contains("base_table") {
            Some(Format::Snowflake)
        } else if has("semantic_models")
            || has("saved_queries")
            || (has("metrics") && text.contains("type_params"))
            || (has("models") && text.contains("semantic_model:"))
        {
            Some(Format::Dbt)
        } else if has("objects") || has("metrics") || has("rules") || has("description") {
            Some(Format::Cassis)
        } else {
            None
        }
    }
}

/// A draft read from another semantic layer, with what did not carry over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    pub ontology: Ontology,
    pub warnings: Vec<ImportWarning>,
    /// dbt saved queries, to become verified questions once compiled (the
    /// compiler lives above the ontology: see `service::imports`).
    pub saved_queries: Vec<SavedQuery>,
}

/// One item of the source that Cassis keeps differently or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportWarning {
    /// The file it was read from, as the user named it.
    pub file: String,
    pub line: Option<usize>,
    /// What it is about: `metrics.revenue_growth`.
    pub item: String,
    pub message: String,
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}: {}", self.file, self.item, self.message),
            None => write!(f, "{}: {}: {}", self.file, self.item, self.message),
        }
    }
}

/// A dbt saved query, in the ontology's terms: its metrics and groupings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedQuery {
    pub file: String,
    pub line: Option<usize>,
    pub name: String,
    pub question: String,
    pub description: String,
    pub metrics: Vec<String>,
    pub group_by: Vec<GroupBy>,
    /// Its `where`, as conditions on dimensions, all of which hold.
    pub filters: Vec<SavedFilter>,
}

/// One condition of a saved query's `where`: a dimension (a date at a
/// grain) compared with values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedFilter {
    pub on: GroupBy,
    pub comparison: Comparison,
}

/// How a saved query's condition compares its dimension, as SQL wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `= v` or `IN (...)`.
    OneOf(Vec<Literal>),
    /// `<> v` or `NOT IN (...)`.
    NoneOf(Vec<Literal>),
    /// `>= v`.
    AtLeast(Literal),
    /// `<= v`.
    AtMost(Literal),
    /// `> v`.
    Above(Literal),
    /// `< v`.
    Below(Literal),
    /// `BETWEEN low AND high`, both included.
    Between(Literal, Literal),
    /// `IS NULL`.
    Missing,
}

/// A value a saved query's condition compares with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    Integer(i64),
    Text(String),
}

/// One grouping of a saved query: an object's attribute, a date at a grain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupBy {
    pub object: String,
    pub attribute: String,
    pub grain: Option<Grain>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grain {
    Month,
    Year,
}

/// Input that cannot be imported at all; nothing is saved.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: the file is {bytes} bytes; a file may be at most {max} bytes")]
    FileTooLarge {
        file: String,
        bytes: u64,
        max: usize,
    },
    #[error(
        "{dir}: more than {max} YAML files; import a smaller project or its semantic layer's folder"
    )]
    TooManyFiles { dir: String, max: usize },
    #[error("{dir}: the YAML files hold more than {max} bytes in all")]
    ProjectTooLarge { dir: String, max: usize },
    #[error("{file}:{}{message}", location(*.line, *.column))]
    Yaml {
        file: String,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    #[error("{file}:{}{item}: {message}", location(*.line, None))]
    Invalid {
        file: String,
        line: Option<usize>,
        item: String,
        message: String,
    },
    #[error(
        "{0}: neither a Cassis ontology, a dbt semantic layer nor a Snowflake Cortex Analyst semantic model (choose one Cassis or Cortex file, or the YAML files of a dbt project)"
    )]
    Unrecognized(String),
    #[error("{0}: no dbt semantic_models, metrics or saved_queries were found")]
    NothingToImport(String),
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!("{line}:{column}: "),
        (Some(line), None) => format!("{line}: "),
        _ => " ".to_owned(),
    }
}

/// Reads one YAML document of at most `max_bytes` into `T`, refusing alias
/// expansion beyond what the text holds, with errors located in `file`.
fn read_yaml<T: DeserializeOwned>(
    file: &str,
    text: &str,
    max_bytes: usize,
) -> Result<T, ImportError> {
    if text.len() > max_bytes {
        return Err(ImportError::FileTooLarge {
            file: file.to_owned(),
            bytes: text.len() as u64,
            max: max_bytes,
        });
    }
    let located = |error: serde_yaml_ng::Error| {
        let at = error.location();
        let message = error.to_string();
        // The library appends "at line L column C"; the file name leads with it.
        let message = match message.rfind(" at line ") {
            Some(cut) if at.is_some() => message[..cut].to_owned(),
            _ => message,
        };
        ImportError::Yaml {
            file: file.to_owned(),
            line: at.as_ref().map(|l| l.line()),
            column: at.as_ref().map(|l| l.column()),
            message,
        }
    };
    super::yaml::expansion::check(text).map_err(located)?;
    serde_yaml_ng::from_str(text).map_err(located)
}

/// Collects warnings for one file.
struct Warnings<'a> {
    file: &'a str,
    lines: text::Lines<'a>,
    list: Vec<ImportWarning>,
    /// A dbt semantic model written on a model (the latest spec), whose
    /// items are named and found where the model writes them.
    rename: Option<dbt::Rename>,
}

impl<'a> Warnings<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        Self {
            file,
            lines: text::Lines::new(text),
            list: Vec::new(),
            rename: None,
        }
    }

    /// `path` and `item` as the file writes them: a lowered semantic model's
    /// `semantic_models.orders.measures.revenue` is `models.orders.metrics.revenue`.
    fn place(&self, path: &[&str], item: String) -> (Option<usize>, String) {
        let Some(r) = &self.rename else {
            return (self.lines.locate(path), item);
        };
        let mut names: Vec<&str> = Vec::new();
        for (i, name) in path.iter().enumerate() {
            match (i, *name) {
                (0, "semantic_models") => names.push("models"),
                (1, n) if n == r.semantic_model => names.push(&r.model),
                (2, "measures") => names.push("metrics"),
                (2, "entities" | "dimensions") => {}
                (3, n) if matches!(path[2], "entities" | "dimensions") => {
                    names.push(r.columns.get(n).map_or(n, String::as_str));
                }
                (_, n) => names.push(n),
            }
        }
        let prefix = format!("semantic_models.{}", r.semantic_model);
        let item = match item.strip_prefix(&prefix) {
            Some(rest) => {
                let rest = rest.replacen(".measures.", ".metrics.", 1);
                let column = [".entities.", ".dimensions."]
                    .iter()
                    .find_map(|kind| rest.strip_prefix(kind))
                    .map(|name| {
                        let (name, more) = name.split_once('.').unwrap_or((name, ""));
                        let column = r.columns.get(name).map_or(name, String::as_str);
                        let more = if more.is_empty() {
                            String::new()
                        } else {
                            format!(".{more}")
                        };
                        format!(".columns.{column}{more}")
                    });
                format!("models.{}{}", r.model, column.unwrap_or(rest))
            }
            None => item,
        };
        (self.lines.locate(&names), item)
    }

    /// Warns about `item`, located at the line of the names in `path` (each
    /// found after the previous one).
    fn add(&mut self, path: &[&str], item: impl Into<String>, message: impl Into<String>) {
        let (line, item) = self.place(path, item.into());
        self.list.push(ImportWarning {
            file: self.file.to_owned(),
            line,
            item,
            message: message.into(),
        });
    }

    fn invalid(
        &self,
        path: &[&str],
        item: impl Into<String>,
        message: impl Into<String>,
    ) -> ImportError {
        let (line, item) = self.place(path, item.into());
        ImportError::Invalid {
            file: self.file.to_owned(),
            line,
            item,
            message: message.into(),
        }
    }
}
