//! The LLM planner, chosen by configuration instead of the built-in one: a
//! model reads the question with the pinned ontology, its rules, the
//! verified questions most like it and the chat so far, may look up how the
//! data spells a value (`lookup_values`, a few rounds at most), and answers
//! through one of three tools (a semantic plan, one SELECT, or "cannot
//! answer"). Whatever it returns is checked against the ontology before
//! anything runs, and a plan or SQL that fails is sent back once for the
//! model to correct; overload and rate limits are retried with backoff and
//! end in a plain message, never a raw provider error.

mod anthropic;
mod exemplars;
mod openai;
mod prompt;
mod values;

pub use exemplars::MAX_EXEMPLARS;
pub use prompt::{PlanningContext, PriorTurn};
pub use values::{DataValues, KnownValues, LookupError, MAX_LOOKUP_RESULTS, MAX_LOOKUP_TEXT_CHARS};

use crate::engine::plan::SemanticPlan;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// The wire format the configured endpoint speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmProvider {
    /// The Anthropic Messages API, with tool use.
    Anthropic,
    /// Any OpenAI-compatible chat completions endpoint, with function calling.
    Openai,
}

impl LlmProvider {
    /// The provider as the `--planner` setting and the metrics name it.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmProvider::Anthropic => "anthropic",
            LlmProvider::Openai => "openai",
        }
    }

    pub fn default_url(self) -> &'static str {
        match self {
            LlmProvider::Anthropic => "https://api.anthropic.com",
            LlmProvider::Openai => "https://api.openai.com/v1",
        }
    }

    /// How answers and messages name the model by default.
    pub fn default_name(self) -> &'static str {
        match self {
            LlmProvider::Anthropic => "Claude",
            LlmProvider::Openai => "The model",
        }
    }
}

/// Retries after an overload or rate limit, and the first wait; each further
/// wait doubles, unless the provider says how long (`retry-after`).
pub const DEFAULT_ATTEMPTS: u32 = 3;
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(500);
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// A `retry-after` longer than this is not waited for: the user is waiting.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);
/// Replies of lookups a model may make before it must plan, per planning
/// (the first, and the repair's): enough to check a few names, bounded so a
/// model that keeps looking ends in an error rather than a long wait.
pub const MAX_LOOKUP_ROUNDS: usize = 3;
/// Lookups answered in one reply; further ones in the same reply are told
/// to wait.
pub const MAX_LOOKUPS_PER_ROUND: usize = 5;

#[derive(Clone)]
pub struct LlmSettings {
    pub provider: LlmProvider,
    /// The API's base URL, such as `https://api.anthropic.com`.
    pub url: String,
    pub model: String,
    pub api_key: String,
    /// How answers and errors name the model: "Claude".
    pub name: String,
    /// How long one request may take before it counts as a timeout.
    pub request_timeout: Duration,
    pub attempts: u32,
    pub backoff: Duration,
}

impl std::fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSettings")
            .field("provider", &self.provider)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &"<redacted>")
            .field("name", &self.name)
            .field("request_timeout", &self.request_timeout)
            .field("attempts", &self.attempts)
            .finish()
    }
}

/// What the model made of a question.
#[derive(Clone, Debug, PartialEq)]
pub enum LlmReply {
    Plan(SemanticPlan),
    Sql { sql: String, explanation: String },
    CannotAnswer { missing: String },
}

/// Why no reply came; `user_message` words each for the person asking.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("still overloaded or rate limited after {0} attempts")]
    Overloaded(u32),
    #[error("the provider rejected the API key (HTTP {0})")]
    Unauthorized(u16),
    #[error("the provider refused the request (HTTP {status}): {message}")]
    Refused { status: u16, message: String },
    #[error("the provider could not be reached: {0}")]
    Unreachable(String),
    #[error("the model's reply was not usable: {0}")]
    Unusable(String),
}

impl LlmError {
    pub fn user_message(&self, name: &str) -> String {
        match self {
            LlmError::Overloaded(_) => {
                format!("{name} is temporarily overloaded. Please try again in a moment.")
            }
            LlmError::Unauthorized(_) | LlmError::Refused { .. } => format!(
                "{name} could not be used to plan this question because of how this server is configured; an admin can see why in the server log."
            ),
            LlmError::Unreachable(_) => {
                format!("{name} could not be reached. Please try again in a moment.")
            }
            LlmError::Unusable(_) => {
                format!("{name} did not return a usable plan for this question; try rephrasing it.")
            }
        }
    }
}

/// A configured model, ready to plan. Cheap to clone.
#[derive(Clone, Debug)]
pub struct LlmPlanner {
    settings: LlmSettings,
    http: reqwest::Client,
}

/// One HTTP request to the provider, built by its wire module.
struct WireRequest {
    url: String,
    headers: Vec<(&'static str, String)>,
    body: serde_json::Value,
}

impl LlmPlanner {
    pub fn new(settings: LlmSettings) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .timeout(settings.request_timeout)
            .user_agent(concat!("cassis/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Unreachable(e.to_string()))?;
        Ok(Self { settings, http })
    }

    pub fn name(&self) -> &str {
        &self.settings.name
    }

    pub fn provider(&self) -> LlmProvider {
        self.settings.provider
    }

    /// Asks the model for a plan, answering its value lookups on the way.
    pub async fn plan(&self, context: &PlanningContext<'_>) -> Result<ModelPlan, LlmError> {
        self.converse(context, Conversation::default()).await
    }

    /// Sends `failure` (why the plan or SQL of `conversation`'s last reply
    /// could not be compiled or run) back to the model, and asks for a
    /// corrected one. Continues the same conversation, in each wire format's
    /// own way: a tool result marked as an error.
    pub async fn repair(
        &self,
        context: &PlanningContext<'_>,
        mut conversation: Conversation,
        failure: &str,
    ) -> Result<ModelPlan, LlmError> {
        // A failure that lists problems may end in a question ("did you
        // mean `wins`?") or a full stop already.
        let stop = if failure.ends_with(['?', '.']) {
            ""
        } else {
            "."
        };
        let results: Vec<ToolResult> = std::mem::take(&mut conversation.pending)
            .into_iter()
            .map(|call| ToolResult {
                content: if call.name == prompt::LOOKUP_VALUES {
                    "Not run.".to_owned()
                } else {
                    format!(
                        "Cassis could not use this: {failure}{stop} Correct it and call one of the tools again."
                    )
                },
                id: call.id,
                is_error: true,
            })
            .collect();
        conversation.turns.extend(self.results(&results));
        self.converse(context, conversation).await
    }

    /// Requests until the model calls a tool that answers, answering its
    /// lookups in between, at most [`MAX_LOOKUP_ROUNDS`] times.
    async fn converse(
        &self,
        context: &PlanningContext<'_>,
        mut conversation: Conversation,
    ) -> Result<ModelPlan, LlmError> {
        for round in 0..=MAX_LOOKUP_ROUNDS {
            let request = match self.settings.provider {
                LlmProvider::Anthropic => {
                    anthropic::request(&self.settings, context, &conversation.turns)
                }
                LlmProvider::Openai => {
                    openai::request(&self.settings, context, &conversation.turns)
                }
            };
            let body = self.exchange(&request).await?;
            let message = match self.settings.provider {
                LlmProvider::Anthropic => anthropic::message(&body),
                LlmProvider::Openai => openai::message(&body),
            }?;
            conversation.turns.push(message.echo);
            if let Some(answer) = message
                .calls
                .iter()
                .find(|call| call.name != prompt::LOOKUP_VALUES)
            {
                let reply = prompt::reply_of(answer)?;
                conversation.pending = message.calls;
                return Ok(ModelPlan {
                    reply,
                    conversation,
                });
            }
            if round == MAX_LOOKUP_ROUNDS {
                break;
            }
            let last = round + 1 == MAX_LOOKUP_ROUNDS;
            let results: Vec<ToolResult> = message
                .calls
                .into_iter()
                .enumerate()
                .map(|(i, call)| {
                    let (mut content, is_error) = if i < MAX_LOOKUPS_PER_ROUND {
                        context.values.answer(&call.input, context.ontology)
                    } else {
                        (
                            format!("Not looked up: at most {MAX_LOOKUPS_PER_ROUND} lookups are answered at once."),
                            true,
                        )
                    };
                    // The values themselves are the project's data: not logged.
                    tracing::debug!(input = %call.input, is_error, "the LLM planner looked up values");
                    if last {
                        content.push_str(
                            "\nThat was the last lookup for this question: now answer with submit_plan, submit_sql or cannot_answer.",
                        );
                    }
                    ToolResult {
                        id: call.id,
                        content,
                        is_error,
                    }
                })
                .collect();
            conversation.turns.extend(self.results(&results));
        }
        Err(LlmError::Unusable(format!(
            "it kept looking up values after {MAX_LOOKUP_ROUNDS} rounds"
        )))
    }

    /// Tool results as the provider reads them.
    fn results(&self, results: &[ToolResult]) -> Vec<Value> {
        match self.settings.provider {
            LlmProvider::Anthropic => anthropic::results(results),
            LlmProvider::Openai => openai::results(results),
        }
    }

    /// One request, retrying overloads, rate limits, timeouts and lost
    /// connections; the response's body.
    async fn exchange(&self, request: &WireRequest) -> Result<Value, LlmError> {
        let attempts = self.settings.attempts.max(1);
        let mut wait = self.settings.backoff;
        for attempt in 1..=attempts {
            let retry_after = match self.send(request).await {
                Attempt::Done(body) => return Ok(body),
                Attempt::Failed(error) => return Err(error),
                Attempt::Retry { after, reason } => {
                    tracing::warn!(
                        provider = ?self.settings.provider,
                        attempt,
                        attempts,
                        %reason,
                        "the LLM planner's request will be retried"
                    );
                    after
                }
            };
            if attempt < attempts {
                let pause = retry_after.map_or(wait, |after| after.min(MAX_RETRY_AFTER));
                tokio::time::sleep(pause).await;
                wait *= 2;
            }
        }
        Err(LlmError::Overloaded(attempts))
    }

    async fn send(&self, request: &WireRequest) -> Attempt {
        let mut builder = self
            .http
            .post(&request.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(request.body.to_string());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        let response = match builder.send().await {
            Ok(response) => response,
            Err(error) if error.is_timeout() || error.is_connect() || error.is_request() => {
                return Attempt::Retry {
                    after: None,
                    reason: error.to_string(),
                };
            }
            Err(error) => return Attempt::Failed(LlmError::Unreachable(error.to_string())),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(error) => {
                return Attempt::Retry {
                    after: None,
                    reason: error.to_string(),
                };
            }
        };
        match status {
            200..=299 => match serde_json::from_slice(&body) {
                Ok(json) => Attempt::Done(json),
                Err(error) => Attempt::Failed(LlmError::Unusable(format!(
                    "the response is not JSON: {error}"
                ))),
            },
            // 529 is Anthropic's "overloaded"; 408, 429 and 5xx are worth another try.
            408 | 429 | 500 | 502 | 503 | 504 | 529 => Attempt::Retry {
                after: retry_after,
                reason: format!("HTTP {status}: {}", error_message(&body)),
            },
            401 | 403 => {
                tracing::error!(status, message = %error_message(&body), "the LLM provider rejected the API key");
                Attempt::Failed(LlmError::Unauthorized(status))
            }
            _ => {
                let message = error_message(&body);
                tracing::error!(status, %message, "the LLM provider refused the request");
                Attempt::Failed(LlmError::Refused { status, message })
            }
        }
    }
}

enum Attempt {
    Done(serde_json::Value),
    Retry {
        after: Option<Duration>,
        reason: String,
    },
    Failed(LlmError),
}

/// The `error.message` both providers put in error bodies, else the body's start.
fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|json| json["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned())
}

/// A tool the model called: the id its result must carry, its name and
/// arguments.
#[derive(Clone, Debug)]
struct ToolCall {
    id: String,
    name: String,
    input: Value,
}

/// One reply of the model: the assistant message as the conversation must
/// repeat it, and the tools it called.
struct ModelMessage {
    echo: Value,
    calls: Vec<ToolCall>,
}

/// What Cassis answers to one tool call.
struct ToolResult {
    id: String,
    content: String,
    is_error: bool,
}

/// The messages after the question, in the provider's wire format: the
/// model's replies and Cassis's tool results. Kept with a plan so that a
/// repair continues the same conversation.
#[derive(Clone, Debug, Default)]
pub struct Conversation {
    turns: Vec<Value>,
    /// The calls of the last reply, which a repair answers.
    pending: Vec<ToolCall>,
}

/// The model's reply, with the conversation that led to it.
#[derive(Clone, Debug)]
pub struct ModelPlan {
    pub reply: LlmReply,
    pub conversation: Conversation,
}
