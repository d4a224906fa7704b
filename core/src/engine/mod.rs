//! The question engine: ground a question in a published ontology version,
//! plan it, decide whether to answer or ask, compile one SELECT, execute it
//! read-only and say what it found.

pub mod answer;
pub mod compile;
pub mod demonyms;
pub mod eval;
pub mod grammar;
pub mod graph;
pub mod lexicon;
pub mod plan;
pub mod planner;
pub mod regression;
pub mod response;
pub mod text;
pub mod written_sql;

#[cfg(feature = "ssr")]
mod admission;
#[cfg(feature = "ssr")]
mod ask;
#[cfg(feature = "ssr")]
pub mod execute;
#[cfg(feature = "ssr")]
pub mod llm;

#[cfg(feature = "ssr")]
pub use admission::{ADMISSION_WAIT, QUESTIONS_PER_PROJECT, QUESTIONS_PER_USER};
#[cfg(feature = "ssr")]
pub use ask::{
    AskRequest, Client, DEFAULT_MAX_QUERY_BYTES, DEFAULT_MAX_QUERY_COST, DEFAULT_QUESTION_TIMEOUT,
    Engine, EngineSettings, MAX_QUESTION_CHARS, Unavailable,
};
pub use response::{APPROVED_PLAN, AskResponse, AskStatus, PlanView, ResultSet};
