//! What the model is told and offered: the instructions with the pinned
//! ontology (rules included) as YAML, the verified questions most like the
//! question as examples, the chat so far, a tool to look up how the data
//! spells a value, and three tools whose arguments become the reply.

use super::exemplars;
use super::values::{KnownValues, MAX_LOOKUP_RESULTS, MAX_LOOKUP_TEXT_CHARS};
use super::{LlmError, LlmReply, MAX_LOOKUP_ROUNDS, ToolCall};
use crate::engine::plan::SemanticPlan;
use crate::ontology::{Names, Ontology, OntologyIndex, to_yaml};
use crate::project::Dialect;
use serde_json::{Value, json};

/// Everything the model needs to plan one question.
#[derive(Clone, Debug)]
pub struct PlanningContext<'a> {
    pub ontology: &'a Ontology,
    /// The ontology's names, indexed once per version.
    pub names: &'a Names,
    pub dialect: Dialect,
    /// The chat's earlier turns, oldest first.
    pub history: Vec<PriorTurn>,
    pub question: &'a str,
    /// What `lookup_values` searches.
    pub values: &'a KnownValues,
}

impl<'a> PlanningContext<'a> {
    /// The ontology with its names, for compiling what the model planned.
    pub fn index(&self) -> OntologyIndex<'a> {
        OntologyIndex::new(self.ontology, self.names)
    }
}

/// An earlier turn of the chat as the model sees it.
#[derive(Clone, Debug)]
pub struct PriorTurn {
    pub question: String,
    /// What Cassis answered, with the plan or SQL it used.
    pub outcome: String,
}

pub const SUBMIT_PLAN: &str = "submit_plan";
pub const SUBMIT_SQL: &str = "submit_sql";
pub const CANNOT_ANSWER: &str = "cannot_answer";
pub const LOOKUP_VALUES: &str = "lookup_values";

/// A tool as both wire formats describe one.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

pub fn system_prompt(context: &PlanningContext<'_>) -> String {
    // Verified questions are shown as examples below, the closest few only.
    let ontology = Ontology {
        verified_questions: Vec::new(),
        ..context.ontology.clone()
    };
    let mut prompt = format!(
        "You are the planner of Cassis, which answers business questions about one company's data.\n\
         Ground every question in the ontology below: objects are tables, attributes are their columns \
         or SQL expressions, relationships are the only joins allowed, metrics are the governed definitions \
         of business measures, rules must be respected and verified questions show approved readings.\n\
         \n\
         Reply by calling exactly one tool:\n\
         - {SUBMIT_PLAN} (preferred): a semantic plan in the ontology's names; Cassis compiles it to SQL.\n\
         - {SUBMIT_SQL}: only when no plan can express the question: one read-only SELECT in the {dialect} \
         dialect that reads only the ontology's tables and columns and names every output column.\n\
         - {CANNOT_ANSWER}: when the question needs a concept the ontology does not have; name that concept. \
         Never guess a concept that is not there.\n\
         Before you answer, you may call {LOOKUP_VALUES} to find how the data spells a value the question \
         names (a person, a place, a team, a category): give the attribute as object.attribute and the text \
         as the question has it; it returns up to {MAX_LOOKUP_RESULTS} known values closest to it. Filter on \
         the value it returns, not on the question's spelling. At most {MAX_LOOKUP_ROUNDS} rounds of lookups.\n\
         If Cassis reports that your plan or SQL failed, correct it once with the reason given.\n\
         \n\
         Plans: measure with a metric whenever one fits; leave a metric's variant null unless the question \
         settles it (Cassis then asks the user); count_of counts an object's rows; aggregate applies sum, avg, \
         min, max or count to a numeric attribute no metric covers. A metric with `semi_additive` is a level \
         (a balance, a headcount) Cassis reads at one time per period: measure it alone, never in a running total. Dimensions group (with measures) or list \
         (without); give a date the bucket \"year\", \"quarter\", \"month\", \"week\" or \"day\" to group by it. Filters compare an attribute with literal \
         values: one_of for equality (names exactly as the data spells them), at_least, at_most, before, after, \
         between (inclusive), none_of to exclude values, missing (no value at all). Order refers to a measure or dimension by its index; limit is the N of \"top N\". \
         Assumptions are short sentences stating what you assumed.\n\
         A follow-up starts from the previous turn's plan and changes only what the new question changes.\n\
         \n\
         The ontology (YAML):\n{ontology}",
        dialect = context.dialect,
        ontology = to_yaml(&ontology),
    );
    let attributes: Vec<&str> = context.values.attributes().collect();
    if !attributes.is_empty() {
        prompt.push_str(&format!(
            "\nAttributes whose values {LOOKUP_VALUES} knows: {}.\n",
            attributes.join(", ")
        ));
    }
    let alike = exemplars::most_alike(&context.ontology.verified_questions, context.question);
    if !alike.is_empty() {
        prompt.push_str(
            "\nVerified questions like this one, with the SQL the data team approved \
             (follow their reading; write a plan in the ontology's names where one fits):\n",
        );
        for verified in alike {
            prompt.push_str(&format!(
                "\nQuestion: {}\nSQL:\n{}\n",
                verified.question.trim(),
                verified.sql.trim()
            ));
        }
    }
    prompt
}

/// The chat as alternating user and assistant messages, ending with the question.
pub fn messages(context: &PlanningContext<'_>) -> Vec<(&'static str, String)> {
    let mut messages = Vec::with_capacity(context.history.len() * 2 + 1);
    for turn in &context.history {
        messages.push(("user", turn.question.clone()));
        messages.push(("assistant", turn.outcome.clone()));
    }
    messages.push(("user", context.question.to_owned()));
    messages
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: SUBMIT_PLAN,
            description: "Answer the question with a semantic plan over the ontology's objects, attributes and metrics.",
            schema: plan_schema(),
        },
        ToolSpec {
            name: SUBMIT_SQL,
            description: "Answer the question with one read-only SELECT over the ontology's tables, when no plan can express it.",
            schema: json!({
                "type": "object",
                "properties": {
                    "sql": {"type": "string", "description": "One SELECT statement; no other statement kinds."},
                    "explanation": {"type": "string", "description": "One sentence saying what the query computes."}
                },
                "required": ["sql", "explanation"]
            }),
        },
        ToolSpec {
            name: LOOKUP_VALUES,
            description: "Find how the data spells a value before filtering on it: the known values of one attribute closest to a text, best first.",
            schema: json!({
                "type": "object",
                "properties": {
                    "attribute": {"type": "string", "description": "The attribute as object.attribute, such as driver.full_name."},
                    "text": {"type": "string", "maxLength": MAX_LOOKUP_TEXT_CHARS, "description": "The value as the question spells it, such as \"Verstapen\"."}
                },
                "required": ["attribute", "text"]
            }),
        },
        ToolSpec {
            name: CANNOT_ANSWER,
            description: "Say that the ontology has no concept for something the question needs.",
            schema: json!({
                "type": "object",
                "properties": {
                    "missing": {"type": "string", "description": "The word or concept from the question that the ontology lacks, such as \"temperature\"."}
                },
                "required": ["missing"]
            }),
        },
    ]
}

/// The plan's JSON Schema, as serde reads a plan.
fn plan_schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(SemanticPlan))
        .expect("a JSON Schema serializes");
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

/// The reply a tool call stands for.
pub(super) fn reply_of(call: &ToolCall) -> Result<LlmReply, LlmError> {
    let unusable = |e: serde_json::Error| {
        LlmError::Unusable(format!("the arguments of {} do not fit: {e}", call.name))
    };
    match call.name.as_str() {
        SUBMIT_PLAN => serde_json::from_value(call.input.clone())
            .map(LlmReply::Plan)
            .map_err(unusable),
        SUBMIT_SQL => {
            #[derive(serde::Deserialize)]
            struct Sql {
                sql: String,
                #[serde(default)]
                explanation: String,
            }
            let Sql { sql, explanation } =
                serde_json::from_value(call.input.clone()).map_err(unusable)?;
            Ok(LlmReply::Sql { sql, explanation })
        }
        CANNOT_ANSWER => {
            #[derive(serde::Deserialize)]
            struct Missing {
                missing: String,
            }
            let Missing { missing } =
                serde_json::from_value(call.input.clone()).map_err(unusable)?;
            Ok(LlmReply::CannotAnswer { missing })
        }
        other => Err(LlmError::Unusable(format!(
            "it called an unknown tool `{other}`"
        ))),
    }
}
