//! What the planner's unit tests share: the Wholesale demo ontology and a
//! question planned over it.

use crate::engine::lexicon::Lexicon;
use crate::engine::plan::SemanticPlan;
use crate::engine::planner::{Planned, plan};
use crate::ontology::Ontology;

/// The Wholesale demo ontology, with no values from data.
pub(super) fn wholesale() -> (Ontology, Lexicon) {
    let ontology =
        crate::ontology::from_yaml(include_str!("../../../../examples/wholesale/ontology.yaml"))
            .unwrap();
    let lexicon = Lexicon::build(&ontology, &[]);
    (ontology, lexicon)
}

/// The plan for `question` over the Wholesale ontology, which must have one.
pub(super) fn planned(question: &str) -> SemanticPlan {
    let (ontology, lexicon) = wholesale();
    match plan(&ontology, &lexicon, question, None, None) {
        Planned::Plan(p) => p,
        Planned::NotAnswerable(reason) => panic!("{question}: {reason}"),
    }
}
