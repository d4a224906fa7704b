//! The ontology: objects, attributes, relationships, metrics, business rules
//! and verified questions, with validation. YAML import and export come with
//! the `ssr` feature.

pub mod bootstrap;
mod diff;
mod edit;
#[cfg(feature = "ssr")]
pub mod export;
#[cfg(feature = "ssr")]
pub mod import;
mod index;
mod model;
mod validate;
#[cfg(feature = "ssr")]
mod workers;
#[cfg(feature = "ssr")]
mod yaml;

pub use diff::{Change, ChangeKind, Concept, diff};
pub use edit::{Element, tidy_synonyms};
pub use index::{AttributeId, MetricId, Names, ObjectId, OntologyIndex, RelationshipId};
pub use model::*;
pub use validate::{Problem, problems_of_added, validate};
#[cfg(feature = "ssr")]
pub use workers::on_ontology_worker;
#[cfg(feature = "ssr")]
pub use yaml::{
    DEFAULT_MAX_YAML_BYTES, LineIndex, LocatedProblem, MAX_LISTED_PROBLEMS, YamlError, from_yaml,
    from_yaml_within, located_problems, to_yaml,
};
