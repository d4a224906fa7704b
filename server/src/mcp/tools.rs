//! The tools agents call. Descriptions are written for the model that picks
//! a tool; every result is structured content with a JSON copy as text.

use super::{AuditLog, Caller};
use crate::clock;
use cassis_app::ssr::AppContext;
use cassis_core::engine::{AskRequest, AskResponse, Client};
use cassis_core::store::ToolCall;
use http::request::Parts;
use rmcp::handler::server::tool::{Extension, ToolRouter};
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Instant;

const INSTRUCTIONS: &str = "Cassis answers business questions about a company's data, \
grounded in an ontology its data team curates. Call list_projects to find the project, \
then ask_question with the user's question in their own words. When ask_question returns \
status needs_execution, show the plan and its assumptions to the user and call again with \
execute_pending_plan=true only after they approve. Keep chat_id for follow-ups.";

/// Handed out once per request by the stateless transport, so a clone is one
/// reference count.
#[derive(Clone)]
pub struct CassisTools(Arc<Shared>);

struct Shared {
    app: AppContext,
    audit: AuditLog,
    tool_router: ToolRouter<CassisTools>,
}

/// The arguments of ask_question, exactly as the product pages name them.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AskQuestionInput {
    /// The Cassis project to query: an `id` from list_projects (a UUID).
    pub project_id: String,
    /// The user's question in natural language. For follow-ups it can refer to earlier turns ("now group by circuit"). Ignored when execute_pending_plan is true.
    #[serde(default)]
    pub question: Option<String>,
    /// The chat_id of an earlier answer, to follow up, refine a plan or execute it. Omit to start a new chat on the latest published ontology version.
    #[serde(default)]
    pub chat_id: Option<String>,
    /// True to execute the plan the previous turn returned with status needs_execution. Requires chat_id and the user's explicit approval.
    #[serde(default)]
    pub execute_pending_plan: Option<bool>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Pong {
    /// Always `ok`: the server is reachable and the credential is valid.
    pub status: &'static str,
    /// Always `cassis`.
    pub server: &'static str,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProjectList {
    pub projects: Vec<ProjectSummary>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProjectSummary {
    /// Pass this as `project_id` to ask_question.
    pub id: String,
    pub name: String,
    pub description: String,
    /// True when Cassis can run SQL on the project's data and return results;
    /// false when it only writes SQL (schema-only) or has no data source.
    pub data_source_connected: bool,
    /// The SQL dialect of the data source, if there is one.
    pub dialect: Option<String>,
}

/// The tool's wire names for core's summary.
impl From<cassis_core::project::ProjectSummary> for ProjectSummary {
    fn from(project: cassis_core::project::ProjectSummary) -> Self {
        ProjectSummary {
            id: project.id.to_string(),
            name: project.name,
            description: project.description,
            data_source_connected: project.executable,
            dialect: project.dialect.map(|d| d.as_str().to_owned()),
        }
    }
}

fn caller(parts: &Parts) -> Result<&Caller, ErrorData> {
    // The credential layer runs before every MCP request, so a missing caller
    // means the router was assembled wrongly.
    parts.extensions.get::<Caller>().ok_or_else(|| {
        tracing::error!("an MCP request reached a tool without an authenticated caller");
        ErrorData::internal_error("the request was not authenticated", None)
    })
}

#[tool_router]
impl CassisTools {
    pub fn new(app: AppContext, audit: AuditLog) -> Self {
        Self(Arc::new(Shared {
            app,
            audit,
            tool_router: Self::tool_router(),
        }))
    }

    #[tool(
        description = "Checks that the Cassis server is reachable and that the credential is valid. Takes no input and returns {status: \"ok\", server: \"cassis\"}.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ping(&self, Extension(parts): Extension<Parts>) -> Result<Json<Pong>, ErrorData> {
        self.pong(caller(&parts)?).await.map(Json)
    }

    #[tool(
        description = "Lists the Cassis projects the user can query, each with its id (pass it to ask_question as project_id), name, description and whether a data source is connected (connected projects return results; others return SQL only). Takes no input.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_projects(
        &self,
        Extension(parts): Extension<Parts>,
    ) -> Result<Json<ProjectList>, ErrorData> {
        self.projects(caller(&parts)?).await.map(Json)
    }

    #[tool(
        description = "Answers a natural-language question about a Cassis project's data. Cassis grounds the question in the project's curated ontology, plans it, writes one SQL query, runs it read-only on connected projects and returns the answer, the SQL, columnar results (at most 100 rows) and the objects used. Pass the user's question in their own words; for a follow-up (\"and in 2021?\", \"now by team\") pass the chat_id of the previous answer and only the new words. When status is needs_execution, show the plan's intent and assumptions to the user and, only after they approve, call again with the same chat_id and execute_pending_plan=true; to choose a different option, ask a revised question instead. not_answerable means the ontology lacks a concept the question needs: retrying will not help. Each chat stays on the ontology version it started on.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ask_question(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(input): Parameters<AskQuestionInput>,
    ) -> Result<Json<AskResponse>, ErrorData> {
        let started = Instant::now();
        let caller = caller(&parts)?;
        let project_id = uuid::Uuid::parse_str(input.project_id.trim()).ok();
        let request = AskRequest {
            project_id: input.project_id,
            question: input.question.unwrap_or_default(),
            chat_id: input.chat_id,
            execute_pending_plan: input.execute_pending_plan.unwrap_or(false),
            version: None,
        };
        let response = match self
            .0
            .app
            .engine
            .try_ask(&caller.user, Client::Mcp, request, clock::now())
            .await
        {
            Ok(response) => response,
            // Answered 503 by the credential layer; not a call to record.
            Err(_) => return Err(unreachable(caller, "ask_question")),
        };
        self.record(
            caller,
            "ask_question",
            project_id,
            response.status.as_str(),
            started,
        )
        .await;
        Ok(Json(response))
    }
}

impl Pong {
    pub const OK: Pong = Pong {
        status: "ok",
        server: "cassis",
    };
}

impl CassisTools {
    /// The `ping` result, recorded.
    pub async fn pong(&self, caller: &Caller) -> Result<Pong, ErrorData> {
        let started = Instant::now();
        self.record(caller, "ping", None, "ok", started).await;
        Ok(Pong::OK)
    }

    /// The `list_projects` result, recorded.
    pub async fn projects(&self, caller: &Caller) -> Result<ProjectList, ErrorData> {
        let started = Instant::now();
        let projects = self
            .0
            .app
            .services()
            .projects_of(&caller.user)
            .await
            .map_err(|error| {
                tracing::error!(%error, "listing projects for MCP failed");
                if error.is_unreachable() {
                    return unreachable(caller, "list_projects");
                }
                metrics::counter!("cassis_mcp_tool_calls_total", "tool" => "list_projects", "status" => "error")
                    .increment(1);
                ErrorData::internal_error("the project list is unavailable right now", None)
            })?;
        self.record(caller, "list_projects", None, "ok", started)
            .await;
        Ok(ProjectList {
            projects: projects.into_iter().map(ProjectSummary::from).collect(),
        })
    }

    /// Queues the audit record; a failure is logged, never shown to the agent.
    async fn record(
        &self,
        caller: &Caller,
        tool: &'static str,
        project_id: Option<uuid::Uuid>,
        status: &'static str,
        started: Instant,
    ) {
        metrics::counter!("cassis_mcp_tool_calls_total", "tool" => tool, "status" => status)
            .increment(1);
        let call = ToolCall {
            organization_id: caller.user.organization_id,
            user_id: caller.user.id,
            api_key_id: caller.api_key_id,
            tool,
            project_id,
            status,
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            created_at: clock::now(),
        };
        self.0.audit.record(call).await;
    }
}

/// The metadata database could not be reached: the request is marked, so
/// the credential layer answers it 503, and the error is what rmcp would
/// have sent had it not.
fn unreachable(caller: &Caller, tool: &'static str) -> ErrorData {
    metrics::counter!("cassis_mcp_tool_calls_total", "tool" => tool, "status" => "unavailable")
        .increment(1);
    caller.unreachable.set();
    ErrorData::internal_error("the metadata database is unavailable right now", None)
}

#[tool_handler(router = self.0.tool_router)]
impl ServerHandler for CassisTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cassis", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
