//! SQL a model writes: the check never panics, and what it accepts parses
//! again from its own text.
#![no_main]

use cassis_core::engine::written_sql::check;
use cassis_core::ontology::{Ontology, from_yaml};
use cassis_core::project::Dialect;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static F1: LazyLock<Ontology> =
    LazyLock::new(|| from_yaml(include_str!("../../examples/f1/ontology.yaml")).unwrap());

fuzz_target!(|text: &str| {
    for dialect in [Dialect::Postgres, Dialect::Sqlite, Dialect::MySql] {
        if let Ok(accepted) = check(&F1, dialect, text) {
            assert!(check(&F1, dialect, &accepted.sql).is_ok(), "{}", accepted.sql);
        }
    }
});
