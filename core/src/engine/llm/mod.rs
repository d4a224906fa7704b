//! The LLM planner, chosen by configuration instead of the built-in one: a
//! model reads the question with the pinned ontology, its rules, verified
//! questions and the chat so far, and answers through one of three tools
//! (a semantic plan, one SELECT, or "cannot answer"). Whatever it returns is
//! checked against the ontology before anything runs; overload and rate
//! limits are retried with backoff and end in a plain message, never a raw
//! provider error.

mod anthropic;
mod openai;
mod prompt;

pub use prompt::{PlanningContext, PriorTurn};

use crate::engine::plan::SemanticPlan;
use serde::{Deserialize, Serialize};
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

    /// Asks the model for a plan, retrying overloads, rate limits, timeouts
    /// and lost connections.
    pub async fn plan(&self, context: &PlanningContext<'_>) -> Result<LlmReply, LlmError> {
        let request = match self.settings.provider {
            LlmProvider::Anthropic => anthropic::request(&self.settings, context),
            LlmProvider::Openai => openai::request(&self.settings, context),
        };
        let attempts = self.settings.attempts.max(1);
        let mut wait = self.settings.backoff;
        for attempt in 1..=attempts {
            let retry_after = match self.send(&request).await {
                Attempt::Done(body) => {
                    let tool_call = match self.settings.provider {
                        LlmProvider::Anthropic => anthropic::tool_call(&body),
                        LlmProvider::Openai => openai::tool_call(&body),
                    }?;
                    return prompt::reply_of(tool_call);
                }
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

/// A tool the model called: its name and arguments.
struct ToolCall {
    name: String,
    input: serde_json::Value,
}
