//! What several test files of core share.

use cassis_core::ontology::{self, Ontology};
use cassis_core::project::Dialect;

/// Asserts that validating `ontology` (for PostgreSQL) reports exactly the
/// `expected` problems: each begins one reported problem, and none is left
/// over. A problem is matched by its start, so a test names the path and
/// the gist without repeating every word of the message.
pub fn assert_problems(ontology: &Ontology, expected: &[&str]) {
    let problems: Vec<String> = ontology::validate(ontology, Dialect::Postgres)
        .iter()
        .map(ToString::to_string)
        .collect();
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "missing `{want}` in:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expected.len(), "{}", problems.join("\n"));
}
