//! The Anthropic Messages API: `POST /v1/messages` with tools, answered by
//! `tool_use` content blocks; Cassis answers a lookup or reports a failure
//! with `tool_result` blocks in the next user message.

use super::prompt::{self, PlanningContext};
use super::{LlmError, LlmSettings, ModelMessage, ToolCall, ToolResult, WireRequest};
use serde::Deserialize;
use serde_json::{Value, json};

const API_VERSION: &str = "2023-06-01";
const MAX_TOKENS: u32 = 2_048;

pub(super) fn request(
    settings: &LlmSettings,
    context: &PlanningContext<'_>,
    turns: &[Value],
) -> WireRequest {
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
    let mut messages: Vec<Value> = prompt::messages(context)
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    messages.extend(turns.iter().cloned());
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
    content: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    #[serde(other)]
    Other,
}

pub(super) fn message(body: &Value) -> Result<ModelMessage, LlmError> {
    let response = MessagesResponse::deserialize(body)
        .map_err(|e| LlmError::Unusable(format!("not a Messages API response: {e}")))?;
    let calls: Vec<ToolCall> = response
        .content
        .iter()
        .filter_map(|block| match ContentBlock::deserialize(block) {
            Ok(ContentBlock::ToolUse { id, name, input }) => Some(ToolCall { id, name, input }),
            _ => None,
        })
        .collect();
    if calls.is_empty() {
        return Err(LlmError::Unusable("the reply called no tool".to_owned()));
    }
    Ok(ModelMessage {
        // The assistant turn is repeated as it came, text blocks included.
        echo: json!({"role": "assistant", "content": response.content}),
        calls,
    })
}

/// One user message with a `tool_result` block for each call, as the API
/// requires right after a reply with `tool_use` blocks.
pub(super) fn results(results: &[ToolResult]) -> Vec<Value> {
    let blocks: Vec<Value> = results
        .iter()
        .map(|result| {
            json!({
                "type": "tool_result",
                "tool_use_id": result.id,
                "content": result.content,
                "is_error": result.is_error,
            })
        })
        .collect();
    vec![json!({"role": "user", "content": blocks})]
}
