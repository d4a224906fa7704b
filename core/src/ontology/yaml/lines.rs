//! Where in the YAML a validation problem is.

use crate::ontology::{Ontology, Problem, validate};
use crate::project::Dialect;

/// Lists whose elements a validation path names by their `name`.
const NAMED_LISTS: [&str; 8] = [
    "objects",
    "attributes",
    "filters",
    "relationships",
    "peers",
    "metrics",
    "rules",
    "variants",
];

/// The lines of a YAML document, split once so that locating each of many
/// problems does not split the text again.
pub struct LineIndex<'a> {
    lines: Vec<&'a str>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            lines: text.lines().collect(),
        }
    }

    /// The 1-based line of the element a validation path such as
    /// `objects.driver.attributes.full_name.expr` names, found by following
    /// the names along the path; `None` when the text does not show it.
    pub fn locate(&self, path: &str) -> Option<usize> {
        locate(&self.lines, path)
    }
}

/// A validation problem and the line of the YAML it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocatedProblem {
    pub problem: Problem,
    pub line: Option<usize>,
}

/// How many problems are listed at most; the rest are counted. Nobody reads
/// thousands, and locating each one costs a walk over the text.
pub const MAX_LISTED_PROBLEMS: usize = 200;

/// The problems of `ontology` read from `text`, the first
/// [`MAX_LISTED_PROBLEMS`] with their lines, and how many there are in all.
pub fn located_problems(
    ontology: &Ontology,
    dialect: Dialect,
    text: &str,
) -> (Vec<LocatedProblem>, usize) {
    let problems = validate(ontology, dialect);
    let total = problems.len();
    let index = LineIndex::new(text);
    let listed = problems
        .into_iter()
        .take(MAX_LISTED_PROBLEMS)
        .map(|problem| LocatedProblem {
            line: index.locate(&problem.path),
            problem,
        })
        .collect();
    (listed, total)
}

fn locate(lines: &[&str], path: &str) -> Option<usize> {
    // The lines searched: the whole file, then the block of the element found.
    let (mut cursor, mut scope_end) = (0, lines.len());
    let mut parts = path.split('.');
    while let Some(part) = parts.next() {
        let (key, index) = match part.split_once('[') {
            Some((key, rest)) => (key, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some(key_line) = find_line(lines, cursor..scope_end, |line| {
            line.starts_with(&format!("{key}:"))
        }) else {
            // The key is missing (say, a required `expr`): point at its element.
            return (cursor > 0 || scope_end < lines.len()).then_some(cursor + 1);
        };
        cursor = key_line;
        let item = if let Some(index) = index {
            nth_item(lines, key_line, index)
        } else if NAMED_LISTS.contains(&key)
            && let Some(name) = parts.next()
        {
            let wanted = [
                format!("name: {name}"),
                format!("name: \"{name}\""),
                format!("name: '{name}'"),
            ];
            find_line(lines, key_line..scope_end, |line| {
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
    use super::LineIndex;

    fn locate(text: &str, path: &str) -> Option<usize> {
        LineIndex::new(text).locate(path)
    }

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
