//! `ask`: the one entry point the MCP tool, the playground and `cassis ask`
//! share. Ground, plan, decide, compile, execute, answer, and record the turn.

use crate::account::User;
use crate::engine::admission::{Admission, Busy};
use crate::engine::answer::{answer_text, filter_phrase, written_sql_text};
use crate::engine::compile::{self, CompiledQuery};
use crate::engine::execute::{self, ExecuteError};
use crate::engine::lexicon::{AttributeValues, Lexicon};
use crate::engine::llm::{
    Conversation, DataValues, KnownValues, LlmError, LlmPlanner, LlmReply, ModelPlan,
    PlanningContext, PriorTurn,
};
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use crate::engine::planner::{self, Planned, attribute_label, measure_label};
use crate::engine::response::{AskResponse, AskStatus, PlanView, ResultSet};
use crate::engine::written_sql;
use crate::ontology::{AttributeRole, DataType, Names, Ontology, OntologyIndex};
use crate::project::Project;
use crate::project::dialect_of;
use crate::store::{Chat, ChatTurn, Store, StoreError};
use crate::time::Timestamp;
use crate::warehouse::{Cost, HousekeepingBudget, Warehouse};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;
use uuid::Uuid;

/// Longer questions are refused before any work: no business question needs more.
pub const MAX_QUESTION_CHARS: usize = 4_000;
/// Attributes with more distinct values than this are not indexed as known values.
const MAX_INDEXED_VALUES: usize = 5_000;
pub const DEFAULT_QUESTION_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// How long one rehearsal of the verified questions (half a regression
/// check) may take in all; its questions share it, each stopping at what is
/// left, and those it does not reach are reported as not run.
pub const REHEARSAL_BUDGET: Duration = Duration::from_secs(90);
/// What a question is told when its project has no slot or no connection free.
const PROJECT_BUSY: &str = "The project is busy; try again in a moment.";

/// What a caller asks, as the MCP tool receives it.
#[derive(Clone, Debug, Default)]
pub struct AskRequest {
    /// As sent: checked here, so every client gets the same error.
    pub project_id: String,
    pub question: String,
    pub chat_id: Option<String>,
    pub execute_pending_plan: bool,
    /// The published version a new chat pins; the latest when `None`. The
    /// playground offers it, to try an older version; MCP always uses the latest.
    pub version: Option<u32>,
}

pub use crate::chat::Client;

#[derive(Clone, Debug)]
pub struct EngineSettings {
    pub question_timeout: Duration,
    /// Queries the source estimates above this cost (PostgreSQL's EXPLAIN
    /// units) wait for approval.
    pub max_query_cost: f64,
    /// Queries the source estimates to read more bytes than this
    /// (BigQuery's dry run, Snowflake's EXPLAIN) wait for approval.
    pub max_query_bytes: u64,
    /// A language model that plans instead of the built-in planner.
    pub planner: Option<LlmPlanner>,
}

pub const DEFAULT_MAX_QUERY_COST: f64 = 10_000_000.0;
/// 10 GiB: a few cents of on-demand BigQuery, and far more than the
/// questions a curated ontology answers usually read.
pub const DEFAULT_MAX_QUERY_BYTES: u64 = 10 * 1024 * 1024 * 1024;

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            question_timeout: DEFAULT_QUESTION_TIMEOUT,
            max_query_cost: DEFAULT_MAX_QUERY_COST,
            max_query_bytes: DEFAULT_MAX_QUERY_BYTES,
            planner: None,
        }
    }
}

/// A project's published version.
type VersionKey = (Uuid, u32);

/// A version's grounding, filled once by whichever question needs it first.
type GroundingCell = Arc<OnceCell<Arc<Grounding>>>;

/// Chat turns a model is shown: enough for follow-ups, bounded for the prompt.
const HISTORY_TURNS: usize = 10;

/// A published version ready for questions: its ontology, lexicon and
/// verified questions read as exemplars.
struct Grounding {
    ontology: Ontology,
    /// The ontology's names, indexed once for every plan compiled over it.
    names: Names,
    lexicon: Lexicon,
    exemplars: planner::Exemplars,
    /// The known values a model looks up; empty without a model planner.
    values: KnownValues,
}

/// The question engine. Cheap to clone; clones share caches of lexicons and
/// warehouse connections, which only save work: any instance can rebuild them.
#[derive(Clone)]
pub struct Engine {
    store: Store,
    settings: EngineSettings,
    /// Built once per version even when its first questions arrive together.
    groundings: Arc<Mutex<HashMap<VersionKey, GroundingCell>>>,
    groundings_built: Arc<AtomicUsize>,
    warehouses: Arc<Mutex<Pools>>,
    admission: Arc<Admission>,
}

/// The open pool of each project's data source, with the URL it connects
/// to, and how often each project was forgotten: a pool that finished
/// connecting after its project was forgotten (deleted, or given another
/// source) is closed instead of kept, since nothing would ever close it.
#[derive(Default)]
struct Pools {
    open: HashMap<Uuid, (String, Warehouse)>,
    forgotten: HashMap<Uuid, u64>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("settings", &self.settings)
            .finish()
    }
}

/// A response that is not an answer, with the reason in `error`.
fn refusal(chat_id: &str, status: AskStatus, message: String, version: Option<i64>) -> AskResponse {
    AskResponse {
        chat_id: chat_id.to_owned(),
        status,
        answer: message.clone(),
        sql: None,
        results: None,
        objects_used: Vec::new(),
        plan: None,
        ontology_version: version,
        error: Some(message),
    }
}

/// An answer: the SQL run (or only written, for a schema-only source,
/// `results` then `None`) and the tables it read.
fn answered(
    chat_id: &str,
    answer: String,
    compiled: &CompiledQuery,
    results: Option<ResultSet>,
    version: Option<i64>,
) -> AskResponse {
    AskResponse {
        chat_id: chat_id.to_owned(),
        status: AskStatus::Answered,
        answer,
        sql: Some(compiled.sql.clone()),
        results,
        objects_used: compiled.objects.clone(),
        plan: None,
        ontology_version: version,
        error: None,
    }
}

/// Why a plan does not compile, every problem listed with the name the
/// user (or the model, `capital` false) may have meant: "The plan does not
/// fit this ontology version: (1) the ontology has no metric `wnis`; did
/// you mean `wins`? (2) …".
fn does_not_fit(problems: &[compile::Problem], capital: bool) -> String {
    let sentence = |problem: &compile::Problem| {
        let text = problem.to_string();
        if text.ends_with('?') {
            text
        } else {
            format!("{text}.")
        }
    };
    let listed = match problems {
        [one] => sentence(one),
        several => several
            .iter()
            .enumerate()
            .map(|(n, problem)| format!("({}) {}", n + 1, sentence(problem)))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let the = if capital { "The" } else { "the" };
    format!("{the} plan does not fit this ontology version: {listed}")
}

/// A fresh chat id: `chat_` and a ULID, so ids sort by creation time.
fn new_chat_id(now: Timestamp) -> String {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).expect("the operating system's random source is available");
    let ulid = ulid::Ulid::from_parts(now.as_millis() as u64, u128::from_be_bytes(random));
    format!("chat_{ulid}")
}

fn is_chat_id(text: &str) -> bool {
    text.strip_prefix("chat_").is_some_and(|rest| {
        (1..=64).contains(&rest.len()) && rest.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

impl Engine {
    pub fn new(store: Store, settings: EngineSettings) -> Self {
        Self {
            store,
            settings,
            groundings: Arc::default(),
            groundings_built: Arc::default(),
            warehouses: Arc::default(),
            admission: Arc::default(),
        }
    }

    /// How many versions' groundings (ontology, lexicon and the values read
    /// from the data) this engine has built.
    pub fn groundings_built(&self) -> usize {
        self.groundings_built.load(Ordering::Relaxed)
    }

    /// The connection pool of every project's data source this engine has
    /// connected, for the metrics.
    pub fn warehouse_pools(&self) -> Vec<(Uuid, crate::warehouse::PoolUsage)> {
        self.warehouses
            .lock()
            .expect("not poisoned")
            .open
            .iter()
            .map(|(project, (_, warehouse))| (*project, warehouse.pool_usage()))
            .collect()
    }

    /// Whether the engine holds anything for `project`: a grounding of one
    /// of its versions, an open pool, or question slots.
    pub fn holds_project(&self, project: Uuid) -> bool {
        self.groundings
            .lock()
            .expect("not poisoned")
            .keys()
            .any(|(id, _)| *id == project)
            || self
                .warehouses
                .lock()
                .expect("not poisoned")
                .open
                .contains_key(&project)
            || self.admission.holds_project(project)
    }

    /// Drops what the engine holds for a project whose data source changed or
    /// which was deleted: its open pool is closed and its groundings rebuilt
    /// on the next question. Its question slots leave with its last
    /// question. What stays is one counter of how often it was forgotten,
    /// which a pool that was connecting meanwhile compares (see `warehouse`):
    /// removing it would let such a pool stay open for a deleted project.
    pub async fn forget_project(&self, project: Uuid) {
        let warehouse = {
            let mut pools = self.warehouses.lock().expect("not poisoned");
            *pools.forgotten.entry(project).or_default() += 1;
            pools.open.remove(&project)
        };
        self.groundings
            .lock()
            .expect("not poisoned")
            .retain(|(id, _), _| *id != project);
        if let Some((_, warehouse)) = warehouse {
            warehouse.close().await;
        }
    }

    /// Answers `request` for `caller`. Every outcome is a response; failures
    /// of Cassis itself are `error` responses with a plain message, logged.
    pub async fn ask(
        &self,
        caller: &User,
        client: Client,
        request: AskRequest,
        now: Timestamp,
    ) -> AskResponse {
        match self.try_ask(caller, client, request, now).await {
            Ok(response) => response,
            Err(Unavailable { chat_id, .. }) => refusal(
                &chat_id,
                AskStatus::Error,
                "Cassis could not reach its database; please try again in a moment.".to_owned(),
                None,
            ),
        }
    }

    /// Answers `request` for `caller`, or says the metadata database could
    /// not be reached at all, so an HTTP caller can answer 503: nothing of
    /// the turn was acknowledged, and asking again is safe.
    pub async fn try_ask(
        &self,
        caller: &User,
        client: Client,
        request: AskRequest,
        now: Timestamp,
    ) -> Result<AskResponse, Unavailable> {
        let started = Instant::now();
        let chat_id = match request.chat_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => new_chat_id(now),
        };
        let outcome = match self
            .turn(caller, client, &request, &chat_id, now, started)
            .await
        {
            Ok(response) => Ok(response),
            Err(TurnError::Refused(response)) => Ok(*response),
            Err(TurnError::Store(error)) if error.is_unreachable() => {
                tracing::error!(%error, "the question engine could not reach the metadata database");
                Err(Unavailable { error, chat_id })
            }
            // Reached, but a statement failed (the project was deleted under
            // the question): an answer that says so, as before.
            Err(TurnError::Store(error)) => {
                tracing::error!(%error, "the question engine's metadata work failed");
                Ok(refusal(
                    &chat_id,
                    AskStatus::Error,
                    "Cassis could not reach its database; please try again in a moment.".to_owned(),
                    None,
                ))
            }
        };
        metrics::histogram!(
            "cassis_question_duration_seconds",
            "status" => outcome.as_ref().map_or("error", |r| r.status.as_str()),
            "planner" => self.planner_label(),
        )
        .record(started.elapsed().as_secs_f64());
        outcome
    }

    /// The configured planner, as metrics label it: `builtin` or the model's
    /// provider.
    fn planner_label(&self) -> &'static str {
        self.settings
            .planner
            .as_ref()
            .map_or("builtin", |model| model.provider().as_str())
    }

    async fn turn(
        &self,
        caller: &User,
        client: Client,
        request: &AskRequest,
        chat_id: &str,
        now: Timestamp,
        started: Instant,
    ) -> Result<AskResponse, TurnError> {
        let refuse = |message: &str| {
            TurnError::Refused(Box::new(refusal(
                chat_id,
                AskStatus::Error,
                message.to_owned(),
                None,
            )))
        };
        let not_available = || {
            refuse(&format!(
                "No project with id `{}` is available to you; list_projects shows the ones you can query.",
                request.project_id.trim()
            ))
        };
        let project_id = Uuid::parse_str(request.project_id.trim()).map_err(|_| {
            refuse(&format!(
                "`{}` is not a project id: pass the `id` of a project from list_projects.",
                request
                    .project_id
                    .trim()
                    .chars()
                    .take(80)
                    .collect::<String>()
            ))
        })?;
        let project = self
            .store
            .accessible_project(caller, project_id)
            .await?
            .ok_or_else(not_available)?;
        let _admitted = self
            .admission
            .admit(caller.id, project.id)
            .await
            .map_err(|busy| {
                refuse(match busy {
                    Busy::User => "You have several questions running already; try again when one has finished.",
                    Busy::Project => PROJECT_BUSY,
                })
            })?;

        let question = request.question.trim();
        if !request.execute_pending_plan {
            if question.is_empty() {
                return Err(refuse(
                    "The question is empty: ask something about the project's data.",
                ));
            }
            if question.chars().count() > MAX_QUESTION_CHARS {
                return Err(refuse(&format!(
                    "The question is too long ({} characters; at most {MAX_QUESTION_CHARS}). Ask one thing at a time.",
                    question.chars().count()
                )));
            }
        }

        // The chat: an existing one keeps its pinned version.
        let existing = match &request.chat_id {
            Some(id) if !id.trim().is_empty() => {
                if !is_chat_id(chat_id) {
                    return Err(refuse(
                        "`chat_id` must be a chat id returned by an earlier answer, such as chat_01J…",
                    ));
                }
                let chat = self.store.chat(chat_id).await?;
                match chat {
                    // Someone else's chat is refused as if it did not exist,
                    // so chat ids cannot be probed.
                    Some(chat) if chat.project_id == project.id && chat.continuable_by(caller) => {
                        Some(chat)
                    }
                    _ => {
                        return Err(refuse(&format!(
                            "There is no chat `{chat_id}` in this project; omit chat_id to start a new chat."
                        )));
                    }
                }
            }
            _ => None,
        };
        let version = match &existing {
            Some(chat) => u32::try_from(chat.ontology_version).unwrap_or(0),
            None => {
                let latest = self.store.latest_version_number(project.id).await?.ok_or_else(|| {
                    refuse(&format!(
                        "The project {} has no published ontology yet; its data team needs to publish one first.",
                        project.name
                    ))
                })?;
                match request.version {
                    Some(wanted) if wanted == 0 || wanted > latest => {
                        return Err(refuse(&format!(
                            "The project {} has no version {wanted}; its versions are 1 to {latest}.",
                            project.name
                        )));
                    }
                    Some(wanted) => wanted,
                    None => latest,
                }
            }
        };
        let chat = existing.clone().unwrap_or(Chat {
            id: chat_id.to_owned(),
            organization_id: caller.organization_id,
            project_id: project.id,
            user_id: caller.id,
            ontology_version: i64::from(version),
            client,
            created_at: now,
        });
        let turns = match &existing {
            Some(chat) => self.store.chat_turns(&chat.id).await?,
            None => Vec::new(),
        };
        let pinned = Some(i64::from(version));
        let grounding = self.grounding(&project, version).await?;

        let (response, plan, approval) = self
            .respond(
                &project, &grounding, request, question, &chat, &turns, pinned, now,
            )
            .await;
        let turn = ChatTurn {
            turn: turns.last().map_or(1, |t| t.turn + 1),
            question: if request.execute_pending_plan {
                super::APPROVED_PLAN.to_owned()
            } else {
                question.to_owned()
            },
            status: response.status,
            plan: plan.and_then(|p| serde_json::to_string(&p).ok()),
            approval,
            response: serde_json::to_string(&response).unwrap_or_default(),
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            created_at: now,
        };
        match self
            .store
            .append_chat_turn(&chat, existing.is_none(), &turn)
            .await
        {
            Ok(()) => Ok(response),
            Err(StoreError::Conflict(_)) => Err(refuse(
                "Another question in this chat was answered at the same moment; ask again.",
            )),
            Err(error) => Err(TurnError::Store(error)),
        }
    }

    /// Plans, decides, compiles and executes; returns the response, the plan
    /// to keep for follow-ups and whether this turn executed an approval.
    #[allow(clippy::too_many_arguments)]
    async fn respond(
        &self,
        project: &Project,
        grounding: &Grounding,
        request: &AskRequest,
        question: &str,
        chat: &Chat,
        turns: &[ChatTurn],
        pinned: Option<i64>,
        now: Timestamp,
    ) -> (AskResponse, Option<SemanticPlan>, bool) {
        let last_plan = turns
            .iter()
            .rev()
            .find(|t| matches!(t.status, AskStatus::Answered | AskStatus::NeedsExecution))
            .and_then(|t| {
                let mut plan = serde_json::from_str::<SemanticPlan>(t.plan.as_deref()?).ok()?;
                let rows = first_column(&plan, &t.response);
                plan.answered = rows.as_ref().and_then(|(attribute, values)| {
                    planner::answered_filter(attribute, values.first()?.clone()?).map(Box::new)
                });
                // Only a ranking chose its rows by more than its filters.
                plan.listed = rows
                    .filter(|(attribute, _)| attribute.bucket.is_none())
                    .filter(|(_, values)| plan.limit.is_some_and(|n| values.len() <= n as usize))
                    .and_then(|(attribute, values)| {
                        Some(Box::new(Filter {
                            attribute,
                            condition: Condition::OneOf(values.into_iter().collect::<Option<_>>()?),
                        }))
                    });
                Some(plan)
            });
        let error = |status: AskStatus, message: String| {
            (refusal(&chat.id, status, message, pinned), None, false)
        };

        let (planning, approved) = if request.execute_pending_plan {
            let pending = turns
                .last()
                .filter(|t| t.status == AskStatus::NeedsExecution)
                .and_then(|t| t.plan.as_deref())
                .and_then(|p| serde_json::from_str::<SemanticPlan>(p).ok());
            match (request.chat_id.is_some(), pending) {
                (false, _) => {
                    return error(
                        AskStatus::Error,
                        "execute_pending_plan needs the chat_id of the chat whose plan was approved.".to_owned(),
                    );
                }
                (true, None) => {
                    return error(
                        AskStatus::Error,
                        "There is no plan waiting for approval in this chat; ask a question first."
                            .to_owned(),
                    );
                }
                (true, Some(plan)) => (
                    Planning::Plan {
                        plan,
                        by: self.settings.planner.as_ref().map(|p| p.name().to_owned()),
                        repair: None,
                    },
                    true,
                ),
            }
        } else {
            let planning = self
                .plan_question(project, grounding, question, turns, last_plan.as_ref(), now)
                .await;
            (planning, false)
        };
        let carried = self
            .carry_out(
                project,
                grounding,
                planning,
                approved,
                chat,
                turns,
                last_plan.as_ref(),
                pinned,
            )
            .await;
        let (failure, repair, plan) = match carried {
            Carried::Done(done) => return *done,
            Carried::Failed {
                failure,
                repair,
                plan,
            } => (failure, repair, plan.map(|p| *p)),
        };
        // SQL a model planned or wrote that the data source could not run
        // goes back to the model once; the corrected plan is carried out
        // like the first, and its failure reported as any other.
        let Some(repaired) = self
            .repaired(project, grounding, question, turns, repair, &failure)
            .await
        else {
            return (
                refusal(&chat.id, AskStatus::Error, failure.message, pinned),
                plan,
                approved,
            );
        };
        match self
            .carry_out(
                project,
                grounding,
                repaired,
                false,
                chat,
                turns,
                last_plan.as_ref(),
                pinned,
            )
            .await
        {
            Carried::Done(done) => *done,
            Carried::Failed { failure, plan, .. } => (
                refusal(&chat.id, AskStatus::Error, failure.message, pinned),
                plan.map(|p| *p),
                false,
            ),
        }
    }

    /// Compiles, decides and executes what was planned; a query the data
    /// source could not run comes back as `Failed`, for a repair.
    #[allow(clippy::too_many_arguments)]
    async fn carry_out(
        &self,
        project: &Project,
        grounding: &Grounding,
        planning: Planning,
        approved: bool,
        chat: &Chat,
        turns: &[ChatTurn],
        last_plan: Option<&SemanticPlan>,
        pinned: Option<i64>,
    ) -> Carried {
        let ontology = &grounding.ontology;
        let error = |status: AskStatus, message: String| {
            Carried::Done(Box::new((
                refusal(&chat.id, status, message, pinned),
                None,
                false,
            )))
        };
        let (plan, planned_by, repair) = match planning {
            Planning::Plan { plan, by, repair } => (plan, by, repair),
            Planning::Sql {
                compiled,
                explanation,
                by,
                repair,
            } => {
                return match self
                    .answer_written_sql(project, chat, &compiled, &explanation, &by, pinned)
                    .await
                {
                    Ok(response) => Carried::Done(Box::new((response, None, false))),
                    Err(failure) => Carried::Failed {
                        failure,
                        repair,
                        plan: None,
                    },
                };
            }
            Planning::NotAnswerable(message) => {
                return error(AskStatus::NotAnswerable, message);
            }
            Planning::Failed(message) => return error(AskStatus::Error, message),
        };

        let dialect = dialect_of(project);
        let index = OntologyIndex::new(ontology, &grounding.names);
        let compiled = match compile::compile_reporting(index, &plan, dialect) {
            Ok(compiled) => compiled,
            Err(problems) => {
                return error(AskStatus::NotAnswerable, does_not_fit(&problems, true));
            }
        };

        // Decide: a genuine fork, or a plan combining several measured
        // objects, waits for approval unless this chat already approved it.
        let combines =
            combines_objects(index, &plan) && planner::combination_waits(ontology, &plan);
        let forks = plan.assumptions.iter().any(|a| a.is_fork());
        let chat_approved_combination = turns.iter().any(|t| t.approval)
            && last_plan.is_some_and(|p| p.measures == plan.measures);
        let mut plan = plan;
        let waits = forks || (combines && !chat_approved_combination);
        let costly = if approved || waits {
            None
        } else {
            self.expensive(project, &compiled).await
        };
        if let Some(cost) = &costly {
            plan.assumptions
                .push(crate::engine::plan::PlanAssumption::stated(format!(
                    "The query is estimated to be expensive ({cost}); it runs only once approved"
                )));
        }
        if !approved && (waits || costly.is_some()) {
            let view = PlanView {
                intent: intent(index, &plan),
                assumptions: plan.assumptions.clone(),
                objects: compiled.objects.clone(),
            };
            let response = AskResponse {
                chat_id: chat.id.clone(),
                status: AskStatus::NeedsExecution,
                answer: format!(
                    "{} Approve the plan to run it, or ask again naming a different option.",
                    view.intent
                ),
                sql: None,
                results: None,
                objects_used: compiled.objects.clone(),
                plan: Some(view),
                ontology_version: pinned,
                error: None,
            };
            return Carried::Done(Box::new((response, Some(plan), false)));
        }

        let results = match self.run(project, &compiled).await {
            Ok(results) => results,
            Err(failure) => {
                return Carried::Failed {
                    failure,
                    repair,
                    plan: Some(Box::new(plan)),
                };
            }
        };
        let mut answer = match &results {
            Some(results) => answer_text(ontology, &plan, results),
            None => format!(
                "Here is the SQL for {}; the project's data source is schema-only, so Cassis wrote it without running it.",
                describe(ontology, &plan)
            ),
        };
        if let Some(model) = planned_by {
            answer.push_str(&format!(
                " Planned by {model} from the ontology; Cassis compiled the SQL."
            ));
        }
        let response = answered(&chat.id, answer, &compiled, results, pinned);
        Carried::Done(Box::new((response, Some(plan), approved)))
    }

    /// Turns a question into a plan with the configured planner: the built-in
    /// one, or a model whose reply is checked against the ontology.
    async fn plan_question(
        &self,
        project: &Project,
        grounding: &Grounding,
        question: &str,
        turns: &[ChatTurn],
        last_plan: Option<&SemanticPlan>,
        now: Timestamp,
    ) -> Planning {
        let ontology = &grounding.ontology;
        let Some(model) = &self.settings.planner else {
            let today = Some(now.utc_day());
            return match planner::plan(ontology, &grounding.lexicon, question, last_plan, today) {
                Planned::Plan(plan) => Planning::Plan {
                    plan,
                    by: None,
                    repair: None,
                },
                // What the planner cannot read, a verified question that
                // reads the same up to its values may answer.
                Planned::NotAnswerable(reason) => {
                    match self.follow_verified(project, grounding, question, last_plan.is_some()) {
                        Some(followed) => followed,
                        None => Planning::NotAnswerable(format!(
                            "This project's ontology cannot answer that: {reason}."
                        )),
                    }
                }
            };
        };
        let context = planning_context(project, grounding, question, turns);
        let planned = model.plan(&context).await;
        self.model_planning(model, project, &context, planned, true)
            .await
    }

    /// What a model's reply becomes. A plan or SQL that fits the ontology
    /// keeps its conversation for one repair if the data source cannot run
    /// it, while `may_repair`; one that does not fit goes back to the model
    /// once with the reason, and a second misfit is refused as the first
    /// would be.
    async fn model_planning(
        &self,
        model: &LlmPlanner,
        project: &Project,
        context: &PlanningContext<'_>,
        mut planned: Result<ModelPlan, LlmError>,
        mut may_repair: bool,
    ) -> Planning {
        let ontology = context.ontology;
        let dialect = context.dialect;
        let name = model.name().to_owned();
        loop {
            let ModelPlan {
                reply,
                conversation,
            } = match planned {
                Ok(planned) => planned,
                Err(error) => {
                    tracing::warn!(project = %project.id, %error, "the LLM planner failed");
                    return Planning::Failed(error.user_message(&name));
                }
            };
            let repair = may_repair.then(|| Box::new(conversation.clone()));
            let (failure, refused) = match reply {
                LlmReply::Plan(mut plan) => {
                    // Cassis, not the model, decides which forks need the user:
                    // the model's assumptions are kept as statements, and a
                    // metric variant the model left open becomes the fork.
                    for assumption in &mut plan.assumptions {
                        assumption.options.clear();
                        assumption.selected = None;
                    }
                    plan.assumptions
                        .extend(planner::variant_assumptions(ontology, &plan.measures));
                    planner::settle_routes(ontology, &mut plan, &[]);
                    match compile::compile_reporting(context.index(), &plan, dialect) {
                        Ok(_) => {
                            return Planning::Plan {
                                plan,
                                by: Some(name),
                                repair,
                            };
                        }
                        Err(problems) => (
                            does_not_fit(&problems, false),
                            does_not_fit(&problems, true),
                        ),
                    }
                }
                LlmReply::Sql { sql, explanation } => {
                    match written_sql::check(ontology, dialect, &sql) {
                        Ok(compiled) => {
                            return Planning::Sql {
                                compiled: Box::new(compiled),
                                explanation,
                                by: name,
                                repair,
                            };
                        }
                        Err(rejection) => {
                            tracing::warn!(project = %project.id, %rejection, %sql, "refused SQL written by the LLM planner");
                            (
                                format!("Cassis will not run this SQL: {rejection}"),
                                format!(
                                    "{name} answered with SQL that Cassis will not run: {rejection}. Try rephrasing the question in the ontology's terms."
                                ),
                            )
                        }
                    }
                }
                LlmReply::CannotAnswer { missing } => {
                    return Planning::NotAnswerable(format!(
                        "This project's ontology cannot answer that: the ontology has no concept for \"{}\", so {name} could not plan it.",
                        missing.trim()
                    ));
                }
            };
            if !may_repair {
                return Planning::NotAnswerable(refused);
            }
            may_repair = false;
            tracing::info!(project = %project.id, %failure, "the LLM planner's reply goes back to it for one repair");
            planned = model.repair(context, conversation, &failure).await;
        }
    }

    /// The model's correction of a plan or SQL whose query the data source
    /// could not run: only with a model, only once (`repair` is the
    /// conversation while the repair is unused), and only for an error of
    /// the query itself, not a timeout, a busy source or a too-large result.
    async fn repaired(
        &self,
        project: &Project,
        grounding: &Grounding,
        question: &str,
        turns: &[ChatTurn],
        repair: Option<Box<Conversation>>,
        failure: &RunFailure,
    ) -> Option<Planning> {
        let model = self.settings.planner.as_ref()?;
        let conversation = repair?;
        let error = failure.query_error.as_deref()?;
        tracing::info!(project = %project.id, %error, "the LLM planner's query failed and goes back to it for one repair");
        let context = planning_context(project, grounding, question, turns);
        let planned = model
            .repair(
                &context,
                *conversation,
                &format!("the data source could not run the query: {error}"),
            )
            .await;
        Some(
            self.model_planning(model, project, &context, planned, false)
                .await,
        )
    }

    /// The verified question `question` follows, with its SQL adapted and
    /// checked as any written SQL is. Only a chat's first question: a
    /// follow-up refines a plan, which a verified question's SQL is not.
    fn follow_verified(
        &self,
        project: &Project,
        grounding: &Grounding,
        question: &str,
        follow_up: bool,
    ) -> Option<Planning> {
        if follow_up {
            return None;
        }
        let dialect = dialect_of(project);
        let followed = grounding.exemplars.follow(&grounding.lexicon, question)?;
        match written_sql::check(&grounding.ontology, dialect, &followed.query.to_string()) {
            Ok(compiled) => {
                let with = followed
                    .substitutions
                    .iter()
                    .map(|(new, old)| format!("{new} for {old}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let explanation = if with.is_empty() {
                    format!(
                        "Answered as the verified question \"{}\"",
                        followed.question
                    )
                } else {
                    format!(
                        "Answered as the verified question \"{}\", with {with}",
                        followed.question
                    )
                };
                Some(Planning::Sql {
                    compiled: Box::new(compiled),
                    explanation,
                    by: VERIFIED.to_owned(),
                    repair: None,
                })
            }
            Err(rejection) => {
                tracing::warn!(project = %project.id, %rejection, question = %followed.question, "a verified question's SQL, adapted, was refused");
                None
            }
        }
    }

    /// Runs SQL a model wrote (already checked) and words its result.
    async fn answer_written_sql(
        &self,
        project: &Project,
        chat: &Chat,
        compiled: &CompiledQuery,
        explanation: &str,
        model: &str,
        pinned: Option<i64>,
    ) -> Result<AskResponse, RunFailure> {
        if let Some(cost) = self.expensive(project, compiled).await {
            return Ok(refusal(
                &chat.id,
                AskStatus::Error,
                format!(
                    "The query {model} wrote is estimated to be expensive ({cost}); ask a narrower question."
                ),
                pinned,
            ));
        }
        let results = self.run(project, compiled).await?;
        let provenance = if model == VERIFIED {
            "Cassis followed the data team's verified SQL, checked that it reads only the ontology's tables and ran it read-only.".to_owned()
        } else {
            format!(
                "{model} wrote this SQL because no plan fit; Cassis checked that it reads only the ontology's tables and ran it read-only."
            )
        };
        let answer = match &results {
            Some(results) => format!("{} {provenance}", written_sql_text(explanation, results)),
            None if model == VERIFIED => format!(
                "{explanation}. The project's data source is schema-only, so the SQL was not run."
            ),
            None => format!(
                "{model} wrote this SQL because no plan fit; the project's data source is schema-only, so it was not run."
            ),
        };
        Ok(answered(&chat.id, answer, compiled, results, pinned))
    }

    /// The estimated cost and the limit it passes, when it passes one.
    async fn expensive(&self, project: &Project, compiled: &CompiledQuery) -> Option<String> {
        let warehouse = self.warehouse_of(project).await.ok()??;
        match warehouse.estimated_cost(&compiled.sql).await {
            Ok(Some(cost @ Cost::PlannerUnits(units))) if units > self.settings.max_query_cost => {
                Some(format!(
                    "{cost}, above this server's limit of {:.0}",
                    self.settings.max_query_cost
                ))
            }
            Ok(Some(cost @ Cost::BytesScanned(bytes))) if bytes > self.settings.max_query_bytes => {
                Some(format!(
                    "{cost}, above this server's limit of {}",
                    crate::warehouse::connector::bytes_text(self.settings.max_query_bytes)
                ))
            }
            Ok(_) => None,
            Err(error) => {
                tracing::debug!(%error, "estimating a query's cost failed");
                None
            }
        }
    }

    /// Executes on an executable source; `None` on a schema-only one.
    async fn run(
        &self,
        project: &Project,
        compiled: &CompiledQuery,
    ) -> Result<Option<ResultSet>, RunFailure> {
        let connected = self.warehouse_of(project).await.map_err(|e| {
            tracing::warn!(project = %project.id, error = %e, "connecting to a data source failed");
            RunFailure::from(format!(
                "Cassis could not connect to the project's data source: {e}"
            ))
        })?;
        let Some(warehouse) = connected else {
            return Ok(None);
        };
        let started = Instant::now();
        let executed = execute::execute(&warehouse, compiled, self.settings.question_timeout).await;
        let outcome = match &executed {
            Ok(_) => "ok",
            Err(ExecuteError::Timeout(_)) => "timeout",
            Err(_) => "error",
        };
        // Per project: a slow source shows as that project, not as a slower
        // Cassis. Project ids are few; the label set stays small.
        metrics::histogram!(
            "cassis_warehouse_query_duration_seconds",
            "project" => project.id.to_string(),
            "outcome" => outcome,
        )
        .record(started.elapsed().as_secs_f64());
        match executed {
            Ok(results) => Ok(Some(results)),
            Err(ExecuteError::Timeout(limit)) => Err(RunFailure::from(format!(
                "The question took longer than the limit of {} and was cancelled; narrow it (a shorter period, fewer groups) and ask again.",
                humanize(limit)
            ))),
            Err(ExecuteError::TooLarge(too_large)) => Err(RunFailure::from(format!(
                "Cassis did not show the answer because {too_large}; ask for fewer or shorter columns."
            ))),
            // Every connection stayed taken for the pool's whole wait.
            Err(ExecuteError::Query(sqlx::Error::PoolTimedOut)) => {
                Err(RunFailure::from(PROJECT_BUSY.to_owned()))
            }
            Err(ExecuteError::Refused(rejection)) => {
                tracing::warn!(project = %project.id, %rejection, sql = %compiled.sql, "refused to run a query");
                Err(RunFailure::from(format!(
                    "Cassis refused to run the query: {rejection}."
                )))
            }
            Err(error) => {
                tracing::warn!(project = %project.id, %error, sql = %compiled.sql, "a compiled query failed");
                Err(RunFailure {
                    message: format!("The data source could not run the query: {error}"),
                    query_error: Some(error.to_string()),
                })
            }
        }
    }

    /// The project's data source, connected read-only; `None` when schema-only.
    pub async fn warehouse_of(
        &self,
        project: &Project,
    ) -> Result<Option<Warehouse>, crate::warehouse::WarehouseError> {
        match project
            .data_source
            .as_ref()
            .and_then(|s| s.connection_url.clone())
        {
            Some(url) => self.warehouse(project, &url).await.map(Some),
            None => Ok(None),
        }
    }

    async fn warehouse(
        &self,
        project: &Project,
        url: &str,
    ) -> Result<Warehouse, crate::warehouse::WarehouseError> {
        let forgotten = {
            let pools = self.warehouses.lock().expect("not poisoned");
            if let Some((known_url, warehouse)) = pools.open.get(&project.id)
                && known_url == url
            {
                return Ok(warehouse.clone());
            }
            pools.forgotten.get(&project.id).copied().unwrap_or(0)
        };
        let warehouse = Warehouse::connect(url).await?;
        // A question may hold its project from before it was deleted or
        // reconnected: its pool is kept only if the project, as stored now,
        // still has this source and was not forgotten while it connected
        // (the store is read first, so a forget after that shows here).
        let current = self
            .store
            .project(project.organization_id, project.id)
            .await
            .ok()
            .flatten();
        let still_its_source = current
            .as_ref()
            .and_then(|p| p.data_source.as_ref())
            .and_then(|s| s.connection_url.as_deref())
            == Some(url);
        let kept = {
            let mut pools = self.warehouses.lock().expect("not poisoned");
            let unchanged = pools.forgotten.get(&project.id).copied().unwrap_or(0) == forgotten;
            (still_its_source && unchanged).then(|| {
                pools
                    .open
                    .insert(project.id, (url.to_owned(), warehouse.clone()))
            })
        };
        match kept {
            // The project was reconnected: its old pool holds connections to a
            // source nobody asks any more.
            Some(Some((_, old))) => old.close().await,
            Some(None) => {}
            None => {
                warehouse.close().await;
                return Err(crate::warehouse::WarehouseError::SourceChanged);
            }
        }
        Ok(warehouse)
    }

    /// The ontology and lexicon of a version, with the values of its text
    /// attributes read from the data once, so questions can name them.
    async fn grounding(
        &self,
        project: &Project,
        version: u32,
    ) -> Result<Arc<Grounding>, TurnError> {
        let key = (project.id, version);
        let cell = self
            .groundings
            .lock()
            .expect("not poisoned")
            .entry(key)
            .or_default()
            .clone();
        let grounding = cell
            .get_or_try_init(|| async {
                let published =
                    self.store
                        .version(project.id, version)
                        .await?
                        .ok_or(TurnError::Store(StoreError::NotFound(
                            "the chat's ontology version",
                        )))?;
                Ok::<_, TurnError>(Arc::new(self.ground(project, published.ontology).await))
            })
            .await;
        match grounding {
            Ok(grounding) => Ok(grounding.clone()),
            Err(error) => {
                // An empty cell would stay forever for a version that is not
                // there: one of a project deleted since this question read
                // it (after `forget_project` ran, so nothing else removes it).
                let mut groundings = self.groundings.lock().expect("not poisoned");
                if groundings
                    .get(&key)
                    .is_some_and(|kept| Arc::ptr_eq(kept, &cell) && kept.get().is_none())
                {
                    groundings.remove(&key);
                }
                Err(error)
            }
        }
    }

    async fn ground(&self, project: &Project, ontology: Ontology) -> Grounding {
        self.groundings_built.fetch_add(1, Ordering::Relaxed);
        let names = Names::of(&ontology);
        let values = self
            .data_values(project, OntologyIndex::new(&ontology, &names))
            .await;
        let borrowed: Vec<AttributeValues<'_>> = values
            .iter()
            .map(|(object, attribute, values)| AttributeValues {
                object: *object,
                attribute: *attribute,
                values,
            })
            .collect();
        let lexicon = Lexicon::build(&ontology, &borrowed);
        drop(borrowed);
        // The same values, by attribute, for a model's lookups.
        let known = if self.settings.planner.is_some() {
            let data: Vec<DataValues<'_>> = values
                .iter()
                .map(|(object, attribute, values)| DataValues {
                    object: *object,
                    attribute: *attribute,
                    values,
                })
                .collect();
            KnownValues::build(&ontology, &data)
        } else {
            KnownValues::default()
        };
        let exemplars =
            planner::Exemplars::build(&lexicon, dialect_of(project), &ontology.verified_questions);
        Grounding {
            names,
            ontology,
            lexicon,
            exemplars,
            values: known,
        }
    }

    /// Answers each question, as a new chat would, against `ontology`, which
    /// need not be published (a draft): how a publish is checked for
    /// regressions. Nothing is recorded and nothing waits for approval: a
    /// fork answers `needs_execution` as it would for a user.
    ///
    /// A rehearsal is a question of `caller`'s as far as the limits go: it
    /// takes one of their slots and one of the project's, or answers every
    /// question with the busy message. Its questions run one after another
    /// within [`REHEARSAL_BUDGET`], and the latest version's grounding is
    /// reused when `ontology` is that version's.
    pub async fn rehearse(
        &self,
        caller: &User,
        project: &Project,
        ontology: Ontology,
        questions: &[String],
        now: Timestamp,
    ) -> Vec<AskResponse> {
        let not_run = |message: &str| {
            refusal(
                &new_chat_id(now),
                AskStatus::Error,
                message.to_owned(),
                None,
            )
        };
        let Ok(_admitted) = self.admission.admit(caller.id, project.id).await else {
            return questions.iter().map(|_| not_run(PROJECT_BUSY)).collect();
        };
        let deadline = Instant::now() + REHEARSAL_BUDGET;
        let latest = match self.store.latest_version_number(project.id).await {
            Ok(Some(latest)) => self.grounding(project, latest).await.ok(),
            _ => None,
        };
        let grounding = match latest {
            Some(latest) if latest.ontology == ontology => latest,
            _ => Arc::new(self.ground(project, ontology).await),
        };
        let out_of_time = format!(
            "The regression check ran out of its {} before this question; run it again when the data source is less busy.",
            humanize(REHEARSAL_BUDGET)
        );
        let mut responses = Vec::with_capacity(questions.len());
        for question in questions {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                responses.push(not_run(&out_of_time));
                continue;
            }
            // The same engine, whose queries stop at what is left.
            let mut engine = self.clone();
            engine.settings.question_timeout = engine.settings.question_timeout.min(left);
            let chat = Chat {
                id: new_chat_id(now),
                organization_id: caller.organization_id,
                project_id: project.id,
                user_id: caller.id,
                ontology_version: 0,
                client: Client::Rehearsal,
                created_at: now,
            };
            let request = AskRequest {
                project_id: project.id.to_string(),
                question: question.clone(),
                chat_id: None,
                execute_pending_plan: false,
                version: None,
            };
            let respond = engine.respond(
                project,
                &grounding,
                &request,
                question.trim(),
                &chat,
                &[],
                None,
                now,
            );
            // A model's planning has timeouts of its own; the budget bounds it too.
            match tokio::time::timeout(left, respond).await {
                Ok((response, _, _)) => responses.push(response),
                Err(_) => responses.push(not_run(&out_of_time)),
            }
        }
        responses
    }

    async fn data_values(
        &self,
        project: &Project,
        index: OntologyIndex<'_>,
    ) -> Vec<(usize, usize, Vec<String>)> {
        let ontology = index.ontology();
        let Ok(Some(warehouse)) = self.warehouse_of(project).await else {
            return Vec::new();
        };
        let dialect = dialect_of(project);
        let budget = HousekeepingBudget::start();
        let mut found = Vec::new();
        for (o, object) in ontology.objects.iter().enumerate() {
            for (a, attribute) in object.attributes.iter().enumerate() {
                if attribute.data_type != DataType::Text
                    || attribute.role != AttributeRole::Dimension
                {
                    continue;
                }
                let Some(timeout) = budget.next_timeout() else {
                    tracing::warn!(project = %project.id, "reading known values ran out of time; later attributes have none");
                    return found;
                };
                let plan = SemanticPlan {
                    dimensions: vec![crate::engine::plan::AttributeRef::new(
                        &object.name,
                        &attribute.name,
                    )],
                    limit: Some(MAX_INDEXED_VALUES as u32 + 1),
                    ..SemanticPlan::default()
                };
                let Ok(compiled) = compile::compile_indexed(index, &plan, dialect) else {
                    continue;
                };
                match execute::all_rows(&warehouse, &compiled.sql, timeout)
                    .await
                    .map(texts)
                {
                    Ok(values) if values.len() <= MAX_INDEXED_VALUES => found.push((o, a, values)),
                    Ok(_) => {}
                    Err(error) => {
                        tracing::debug!(%error, object = %object.name, attribute = %attribute.name, "reading values failed")
                    }
                }
            }
        }
        found
    }
}

/// The non-empty text values in the first column of `rows`.
fn texts(rows: Vec<Vec<serde_json::Value>>) -> Vec<String> {
    rows.into_iter()
        .filter_map(|row| match row.into_iter().next() {
            Some(serde_json::Value::String(text)) if !text.trim().is_empty() => Some(text),
            _ => None,
        })
        .collect()
}

/// Who "wrote" SQL that came from a verified question.
const VERIFIED: &str = "a verified question";

/// How a question became something to run, or why it did not. `repair` is
/// the model's conversation while its one repair is unused.
enum Planning {
    /// `by` names the model when one planned.
    Plan {
        plan: SemanticPlan,
        by: Option<String>,
        repair: Option<Box<Conversation>>,
    },
    /// SQL a model wrote, checked against the ontology.
    Sql {
        compiled: Box<CompiledQuery>,
        explanation: String,
        by: String,
        repair: Option<Box<Conversation>>,
    },
    /// The whole message for the user.
    NotAnswerable(String),
    Failed(String),
}

/// What carrying out a planning came to.
enum Carried {
    /// The response, the plan to keep and whether an approval ran.
    Done(Box<(AskResponse, Option<SemanticPlan>, bool)>),
    /// The data source could not run the query.
    Failed {
        failure: RunFailure,
        repair: Option<Box<Conversation>>,
        plan: Option<Box<SemanticPlan>>,
    },
}

/// Why a query gave no results: the message for the user, and the data
/// source's own error when the query itself failed (what a model can fix).
struct RunFailure {
    message: String,
    query_error: Option<String>,
}

impl From<String> for RunFailure {
    fn from(message: String) -> Self {
        Self {
            message,
            query_error: None,
        }
    }
}

/// What the model is given to plan `question`.
fn planning_context<'a>(
    project: &Project,
    grounding: &'a Grounding,
    question: &'a str,
    turns: &[ChatTurn],
) -> PlanningContext<'a> {
    PlanningContext {
        ontology: &grounding.ontology,
        names: &grounding.names,
        dialect: dialect_of(project),
        history: prior_turns(turns),
        question,
        values: &grounding.values,
    }
}

/// The chat so far as the model sees it: each question with what Cassis
/// answered and the plan or SQL behind it.
fn prior_turns(turns: &[ChatTurn]) -> Vec<PriorTurn> {
    let skip = turns.len().saturating_sub(HISTORY_TURNS);
    turns
        .iter()
        .skip(skip)
        .map(|turn| {
            let response = serde_json::from_str::<AskResponse>(&turn.response).ok();
            let mut outcome = format!("[{}]", turn.status.as_str());
            if let Some(response) = &response {
                outcome.push(' ');
                outcome.push_str(&response.answer);
            }
            if let Some(plan) = &turn.plan {
                outcome.push_str("\nPlan: ");
                outcome.push_str(plan);
            }
            if let Some(sql) = response.as_ref().and_then(|r| r.sql.as_deref()) {
                outcome.push_str("\nSQL: ");
                outcome.push_str(sql);
            }
            PriorTurn {
                question: turn.question.clone(),
                outcome,
            }
        })
        .collect()
}

/// A question that failed because the metadata database could not be
/// reached: no turn of it was stored.
#[derive(Debug, thiserror::Error)]
#[error("the metadata database could not be reached: {error}")]
pub struct Unavailable {
    pub error: StoreError,
    /// The chat the question was asked in (a new one's id is not stored).
    pub chat_id: String,
}

enum TurnError {
    Refused(Box<AskResponse>),
    Store(StoreError),
}

impl From<StoreError> for TurnError {
    fn from(error: StoreError) -> Self {
        TurnError::Store(error)
    }
}

/// The values an answer shows of the plan's first grouping, row by row:
/// the first is the thing it led with, which "he" or "there" in the next
/// question refers to.
fn first_column(
    plan: &SemanticPlan,
    response: &str,
) -> Option<(AttributeRef, Vec<Option<Literal>>)> {
    let attribute = plan.dimensions.first()?;
    let response: AskResponse = serde_json::from_str(response).ok()?;
    let values = response
        .results?
        .rows
        .into_iter()
        .map(|row| match row.into_iter().next()? {
            serde_json::Value::String(text) => Some(Literal::Text(text)),
            serde_json::Value::Number(n) => Some(Literal::Integer(n.as_i64()?)),
            _ => None,
        })
        .collect::<Vec<_>>();
    (!values.is_empty()).then(|| (attribute.clone(), values))
}

/// Whether a measure adds metrics over other objects (a UNION of fact tables).
fn combines_objects(index: OntologyIndex<'_>, plan: &SemanticPlan) -> bool {
    plan.measures.iter().any(|m| match m {
        Measure::Metric { metric, variant } => index
            .metric(metric)
            .and_then(|x| x.reading(variant.as_deref()))
            .is_some_and(|reading| !reading.plus.is_empty()),
        Measure::CountOf { .. }
        | Measure::DistinctOf { .. }
        | Measure::Aggregate { .. }
        | Measure::Share { .. }
        | Measure::AveragePer { .. }
        | Measure::CountPassing { .. }
        | Measure::Difference { .. }
        | Measure::Growth { .. }
        | Measure::Cumulative { .. } => false,
    })
}

/// "Wins by driver in 2023": what the plan computes, in words.
fn describe(ontology: &Ontology, plan: &SemanticPlan) -> String {
    let what = plan
        .measures
        .iter()
        .map(|m| measure_label(ontology, m))
        .collect::<Vec<_>>()
        .join(" and ");
    let what = if what.is_empty() {
        plan.dimensions
            .iter()
            .map(|d| attribute_label(ontology, d))
            .collect::<Vec<_>>()
            .join(", ")
    } else if plan.dimensions.is_empty() {
        what
    } else {
        format!(
            "{what} by {}",
            plan.dimensions
                .iter()
                .map(|d| attribute_label(ontology, d).to_lowercase())
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    let filters = filter_phrase(ontology, plan);
    if filters.is_empty() {
        what
    } else {
        format!("{what} {filters}")
    }
}

/// The plan's intent as the approval prompt shows it.
fn intent(index: OntologyIndex<'_>, plan: &SemanticPlan) -> String {
    let ontology = index.ontology();
    let grouped = if plan.dimensions.is_empty() {
        String::new()
    } else {
        format!(
            ", grouped by {}",
            plan.dimensions
                .iter()
                .map(|d| attribute_label(ontology, d).to_lowercase())
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    if combines_objects(index, plan) {
        let measured = measured_tables(index, plan);
        let filters = filter_phrase(ontology, plan);
        let filters = if filters.is_empty() {
            String::new()
        } else {
            format!(", {filters}")
        };
        format!(
            "UNION query combining {}{grouped}{filters}.",
            measured.join(" and ")
        )
    } else {
        format!("{}.", describe(ontology, plan))
    }
}

/// The tables of the objects a plan's measures aggregate, plus-metrics included.
fn measured_tables(index: OntologyIndex<'_>, plan: &SemanticPlan) -> Vec<String> {
    let table_of_metric = |name: &str| {
        let metric = index.metric(name)?;
        index.object(&metric.object).map(|o| o.table.clone())
    };
    let mut tables = Vec::new();
    for measure in &plan.measures {
        let Measure::Metric { metric, variant } = measure else {
            continue;
        };
        let mut names = vec![metric.clone()];
        if let Some(reading) = index
            .metric(metric)
            .and_then(|m| m.reading(variant.as_deref()))
        {
            names.extend(reading.plus.iter().cloned());
        }
        for name in names {
            if let Some(table) = table_of_metric(&name)
                && !tables.contains(&table)
            {
                tables.push(table);
            }
        }
    }
    tables
}

fn humanize(limit: Duration) -> String {
    let seconds = limit.as_secs();
    if seconds >= 60 && seconds.is_multiple_of(60) {
        let minutes = seconds / 60;
        format!("{minutes} minute{}", if minutes == 1 { "" } else { "s" })
    } else {
        format!("{seconds} second{}", if seconds == 1 { "" } else { "s" })
    }
}
