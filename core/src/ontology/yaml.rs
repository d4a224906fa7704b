//! Ontology as code: YAML that round-trips losslessly, with errors that point
//! at the line.

use super::model::Ontology;

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

pub fn from_yaml(text: &str) -> Result<Ontology, YamlError> {
    serde_yaml_ng::from_str(text).map_err(|error| {
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
    })
}

pub fn to_yaml(ontology: &Ontology) -> String {
    serde_yaml_ng::to_string(ontology).expect("an ontology always serializes to YAML")
}

/// Lists whose elements a validation path names by their `name`.
const NAMED_LISTS: [&str; 6] = [
    "objects",
    "attributes",
    "relationships",
    "metrics",
    "rules",
    "variants",
];

/// The 1-based line in YAML `text` of the element a validation path such as
/// `objects.driver.attributes.full_name.expr` names, found by following the
/// names along the path; `None` when the text does not show it.
pub fn locate(text: &str, path: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    // The lines searched: the whole file, then the block of the element found.
    let (mut cursor, mut scope_end) = (0, lines.len());
    let mut parts = path.split('.');
    while let Some(part) = parts.next() {
        let (key, index) = match part.split_once('[') {
            Some((key, rest)) => (key, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some(key_line) = find_line(&lines, cursor..scope_end, |line| {
            line.starts_with(&format!("{key}:"))
        }) else {
            // The key is missing (say, a required `expr`): point at its element.
            return (cursor > 0 || scope_end < lines.len()).then_some(cursor + 1);
        };
        cursor = key_line;
        let item = if let Some(index) = index {
            nth_item(&lines, key_line, index)
        } else if NAMED_LISTS.contains(&key)
            && let Some(name) = parts.next()
        {
            let wanted = [
                format!("name: {name}"),
                format!("name: \"{name}\""),
                format!("name: '{name}'"),
            ];
            find_line(&lines, key_line..scope_end, |line| {
                wanted.iter().any(|w| line == w)
            })
        } else {
            continue;
        };
        let item = item?;
        // An element's block is every following line indented past its dash.
        let dash_indent = indent(lines[item]);
        scope_end = (item + 1..scope_end)
            .find(|&i| !lines[i].trim().is_empty() && indent(lines[i]) <= dash_indent)
            .unwrap_or(scope_end);
        cursor = item;
    }
    Some(cursor + 1)
}

/// The first line in `range` that matches once indentation and a list dash
/// are stripped.
fn find_line(
    lines: &[&str],
    range: std::ops::Range<usize>,
    matches: impl Fn(&str) -> bool,
) -> Option<usize> {
    range.into_iter().find(|&i| {
        let line = lines[i].trim_start();
        matches(line.strip_prefix("- ").unwrap_or(line).trim_end())
    })
}

/// The line of the `index`th item of the block list under the key on line `key_line`.
fn nth_item(lines: &[&str], key_line: usize, index: usize) -> Option<usize> {
    if lines[key_line].trim_end().ends_with(']') {
        return Some(key_line); // an inline [a, b] list
    }
    let key_indent = indent(lines[key_line]);
    let items: Vec<usize> = (key_line + 1..lines.len())
        .take_while(|&i| {
            lines[i].trim().is_empty()
                || indent(lines[i]) > key_indent
                || lines[i].trim_start().starts_with("- ")
        })
        .filter(|&i| lines[i].trim_start().starts_with("- "))
        .collect();
    let item_indent = items.first().map(|&i| indent(lines[i]))?;
    items
        .into_iter()
        .filter(|&i| indent(lines[i]) == item_indent)
        .nth(index)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::locate;

    const TEXT: &str = "objects:
  - name: driver
    table: public.drivers
    attributes:
      - name: driver_id
        type: integer
      - name: full_name
        expr: forename ||
        type: text
metrics:
  - name: wins
    object: driver
    filters:
      - position = 1
      - bad =
verified_questions:
  - question: a
    sql: SELECT 1
  - question: b
    sql: DELETE FROM x
";

    #[test]
    fn paths_lead_to_their_lines() {
        assert_eq!(locate(TEXT, "objects.driver.table"), Some(3));
        assert_eq!(
            locate(TEXT, "objects.driver.attributes.full_name.expr"),
            Some(8)
        );
        assert_eq!(locate(TEXT, "metrics.wins.filters[1]"), Some(15));
        assert_eq!(locate(TEXT, "verified_questions[1].sql"), Some(20));
        assert_eq!(locate(TEXT, "objects.driver.attributes.full_name"), Some(7));
        assert_eq!(locate(TEXT, "objects.circuit.table"), None);
        // A missing key points at its element, never at a later element's key.
        assert_eq!(locate(TEXT, "metrics.wins.expr"), Some(11));
        assert_eq!(
            locate(TEXT, "objects.driver.attributes.driver_id.expr"),
            Some(5)
        );
    }
}
