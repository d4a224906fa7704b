//! OpenAI-compatible chat completions: `POST /chat/completions` with
//! function tools, answered by `tool_calls` entries whose arguments are a
//! JSON string; Cassis answers a lookup or reports a failure with a `tool`
//! message per call.

use super::prompt::{self, PlanningContext};
use super::{LlmError, LlmSettings, ModelMessage, ToolCall, ToolResult, WireRequest};
use serde::Deserialize;
use serde_json::{Value, json};

pub(super) fn request(
    settings: &LlmSettings,
    context: &PlanningContext<'_>,
    turns: &[Value],
) -> WireRequest {
    let tools: Vec<Value> = prompt::tools()
        .into_iter()
        .map(|tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.schema,
                },
            })
        })
        .collect();
    let mut messages = vec![json!({"role": "system", "content": prompt::system_prompt(context)})];
    messages.extend(
        prompt::messages(context)
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content})),
    );
    messages.extend(turns.iter().cloned());
    WireRequest {
        url: format!("{}/chat/completions", settings.url.trim_end_matches('/')),
        headers: vec![("authorization", format!("Bearer {}", settings.api_key))],
        body: json!({
            "model": settings.model,
            "messages": messages,
            "tools": tools,
            "tool_choice": "required",
        }),
    }
}

#[derive(Deserialize)]
struct ChatCompletion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Value,
    /// Absent or null when the model answered in prose.
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct FunctionCall {
    id: String,
    function: Function,
}

#[derive(Deserialize)]
struct Function {
    name: String,
    /// JSON text, as the API sends it.
    arguments: String,
}

pub(super) fn message(body: &Value) -> Result<ModelMessage, LlmError> {
    let completion = ChatCompletion::deserialize(body)
        .map_err(|e| LlmError::Unusable(format!("not a chat completion: {e}")))?;
    let message = completion
        .choices
        .into_iter()
        .next()
        .map(|choice| choice.message)
        .ok_or_else(|| LlmError::Unusable("the reply has no choice".to_owned()))?;
    let raw = message.tool_calls.unwrap_or_default();
    let mut calls = Vec::with_capacity(raw.len());
    for call in &raw {
        let FunctionCall { id, function } = FunctionCall::deserialize(call)
            .map_err(|e| LlmError::Unusable(format!("not a function call: {e}")))?;
        let input = serde_json::from_str(&function.arguments)
            .map_err(|e| LlmError::Unusable(format!("the function arguments are not JSON: {e}")))?;
        calls.push(ToolCall {
            id,
            name: function.name,
            input,
        });
    }
    if calls.is_empty() {
        return Err(LlmError::Unusable(
            "the reply called no function".to_owned(),
        ));
    }
    Ok(ModelMessage {
        echo: json!({"role": "assistant", "content": message.content, "tool_calls": raw}),
        calls,
    })
}

/// A `tool` message for each call, as the API requires after a reply with
/// `tool_calls`; the format has no error flag, so an error says so.
pub(super) fn results(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|result| {
            let content = if result.is_error {
                format!("Error: {}", result.content)
            } else {
                result.content.clone()
            };
            json!({"role": "tool", "tool_call_id": result.id, "content": content})
        })
        .collect()
}
