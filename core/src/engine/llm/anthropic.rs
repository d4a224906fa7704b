//! The Anthropic Messages API: `POST /v1/messages` with tools, answered by a
//! `tool_use` content block.

use super::prompt::{self, PlanningContext};
use super::{LlmError, LlmSettings, ToolCall, WireRequest};
use serde::Deserialize;
use serde_json::{Value, json};

const API_VERSION: &str = "2023-06-01";
const MAX_TOKENS: u32 = 2_048;

pub(super) fn request(settings: &LlmSettings, context: &PlanningContext<'_>) -> WireRequest {
    let tools: Vec<Value> = prompt::tools()
        .into_iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.schema,
            })
        })
        .collect();
    let messages: Vec<Value> = prompt::messages(context)
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    WireRequest {
        url: format!("{}/v1/messages", settings.url.trim_end_matches('/')),
        headers: vec![
            ("x-api-key", settings.api_key.clone()),
            ("anthropic-version", API_VERSION.to_owned()),
        ],
        body: json!({
            "model": settings.model,
            "max_tokens": MAX_TOKENS,
            "system": prompt::system_prompt(context),
            "messages": messages,
            "tools": tools,
            // The model must call one of the tools rather than answer in prose.
            "tool_choice": {"type": "any"},
        }),
    }
}

#[derive(Deserialize)]
struct MessagesResponse {
    content: Vec<ContentBlock>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    ToolUse {
        name: String,
        input: Value,
    },
    #[serde(other)]
    Other,
}

pub(super) fn tool_call(body: &Value) -> Result<ToolCall, LlmError> {
    let response = MessagesResponse::deserialize(body)
        .map_err(|e| LlmError::Unusable(format!("not a Messages API response: {e}")))?;
    response
        .content
        .into_iter()
        .find_map(|block| match block {
            ContentBlock::ToolUse { name, input } => Some(ToolCall { name, input }),
            ContentBlock::Other => None,
        })
        .ok_or_else(|| LlmError::Unusable("the reply called no tool".to_owned()))
}
