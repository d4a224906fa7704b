//! The question engine: ground a question in a published ontology version,
//! plan it, decide whether to answer or ask, compile one SELECT, execute it
//! read-only and say what it found.

pub mod compile;
pub mod grammar;
pub mod graph;
pub mod lexicon;
pub mod plan;
pub mod planner;
pub mod response;
pub mod text;
