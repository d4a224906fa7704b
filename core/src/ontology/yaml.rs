//! Ontology as code: YAML that round-trips losslessly, with errors that point
//! at the line.

use super::model::Ontology;

pub(super) mod expansion;
mod lines;

pub use lines::{LineIndex, LocatedProblem, MAX_LISTED_PROBLEMS, located_problems};

/// A YAML file that is not an ontology, located where the reader stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(*.line, *.column))]
pub struct YamlError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}: "),
        (Some(line), None) => format!("line {line}: "),
        _ => String::new(),
    }
}

/// The largest ontology document read unless a setting says otherwise. The
/// F1 example is 40 KB; 1,000 objects with ten attributes each take about 2 MB.
pub const DEFAULT_MAX_YAML_BYTES: usize = 4 * 1024 * 1024;

/// Reads an ontology of at most [`DEFAULT_MAX_YAML_BYTES`].
pub fn from_yaml(text: &str) -> Result<Ontology, YamlError> {
    from_yaml_within(text, DEFAULT_MAX_YAML_BYTES)
}

/// Reads an ontology from `text` of at most `max_bytes`, refusing anchors and
/// aliases that repeat more than the document itself holds: a few hundred
/// bytes of aliases can otherwise expand into gigabytes of strings.
pub fn from_yaml_within(text: &str, max_bytes: usize) -> Result<Ontology, YamlError> {
    if text.len() > max_bytes {
        return Err(YamlError {
            line: None,
            column: None,
            message: format!(
                "the document is {}; an ontology may be at most {}",
                megabytes(text.len()),
                megabytes(max_bytes)
            ),
        });
    }
    let error = |error: serde_yaml_ng::Error| {
        let at = error.location();
        // The library appends "at line L column C"; we lead with it instead.
        let message = error.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) if at.is_some() => message[..cut].to_owned(),
            _ => message,
        };
        YamlError {
            line: at.as_ref().map(|l| l.line()),
            column: at.as_ref().map(|l| l.column()),
            message,
        }
    };
    expansion::check(text).map_err(error)?;
    serde_yaml_ng::from_str(text).map_err(error)
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

pub fn to_yaml(ontology: &Ontology) -> String {
    serde_yaml_ng::to_string(ontology).expect("an ontology always serializes to YAML")
}
