//! The response of `ask_question`, exactly as the reference describes it.
//! Every field is always present (null when it does not apply), so clients
//! can rely on the shape.

use crate::engine::plan::PlanAssumption;
use serde::{Deserialize, Serialize};

/// What a chat records as the question of a turn that ran an approved plan.
pub const APPROVED_PLAN: &str = "(approved the pending plan)";

pub use crate::chat::AskStatus;

/// What `ask_question` returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AskResponse {
    /// Always set; pass it back to continue the chat.
    pub chat_id: String,
    pub status: AskStatus,
    /// The answer in words; on `needs_execution`, the plan's intent.
    pub answer: String,
    /// The generated SQL, when answered.
    pub sql: Option<String>,
    /// Null when the SQL was not executed; always null on a schema-only source.
    pub results: Option<ResultSet>,
    /// Qualified names of the objects (tables) the answer used.
    pub objects_used: Vec<String>,
    /// The plan awaiting approval, when `needs_execution`.
    pub plan: Option<PlanView>,
    /// The published ontology version this chat is pinned to.
    pub ontology_version: Option<i64>,
    /// Why, when `error` or `not_answerable`.
    pub error: Option<String>,
}

/// Query results in columns: at most 100 rows inline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResultSet {
    pub columns: Vec<String>,
    /// Positional rows; numbers, strings or nulls.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// All rows the query matched, including those not returned.
    pub total_rows: u64,
    /// True when `total_rows` exceeds the rows returned.
    pub truncated: bool,
}

/// A plan as the user sees it before approving it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanView {
    pub intent: String,
    pub assumptions: Vec<PlanAssumption>,
    /// Qualified names of the objects the plan reads.
    pub objects: Vec<String>,
}
