//! Any question against the F1 ontology: planning never panics, and every
//! plan it makes compiles.
#![no_main]

use cassis_core::engine::compile::compile;
use cassis_core::engine::lexicon::Lexicon;
use cassis_core::engine::planner::{Planned, plan};
use cassis_core::ontology::{Ontology, from_yaml};
use cassis_core::project::Dialect;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static F1: LazyLock<(Ontology, Lexicon)> = LazyLock::new(|| {
    let ontology = from_yaml(include_str!("../../examples/f1/ontology.yaml")).unwrap();
    let lexicon = Lexicon::build(&ontology, &[]);
    (ontology, lexicon)
});

fuzz_target!(|question: &str| {
    let (ontology, lexicon) = &*F1;
    if question.chars().count() > 4_000 {
        return;
    }
    if let Planned::Plan(planned) = plan(ontology, lexicon, question, None, None) {
        let _ = compile(ontology, &planned, Dialect::Postgres);
    }
});
