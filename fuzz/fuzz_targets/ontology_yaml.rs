//! Ontology YAML as an editor or an import sends it: reading it and locating
//! every problem never panics, whatever the text.
#![no_main]

use cassis_core::ontology::{from_yaml, located_problems, to_yaml};
use cassis_core::project::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(ontology) = from_yaml(text) {
        let _ = located_problems(&ontology, Dialect::Postgres, text);
        // What Cassis writes, it reads back the same.
        let written = to_yaml(&ontology);
        assert_eq!(from_yaml(&written).ok().as_ref(), Some(&ontology));
    }
});
