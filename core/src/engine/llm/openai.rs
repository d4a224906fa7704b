//! OpenAI-compatible chat completions: `POST /chat/completions` with
//! function tools, answered by a `tool_calls` entry whose arguments are a
//! JSON string.

use super::prompt::{self, PlanningContext};
use super::{LlmError, LlmSettings, ToolCall, WireRequest};
use serde::Deserialize;
use serde_json::{Value, json};

pub(super) fn request(settings: &LlmSettings, context: &PlanningContext<'_>) -> WireRequest {
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
    /// Absent or null when the model answered in prose.
    #[serde(default)]
    tool_calls: Option<Vec<FunctionCall>>,
}

#[derive(Deserialize)]
struct FunctionCall {
    function: Function,
}

#[derive(Deserialize)]
struct Function {
    name: String,
    /// JSON text, as the API sends it.
    arguments: String,
}

pub(super) fn tool_call(body: &Value) -> Result<ToolCall, LlmError> {
    let completion = ChatCompletion::deserialize(body)
        .map_err(|e| LlmError::Unusable(format!("not a chat completion: {e}")))?;
    let call = completion
        .choices
        .into_iter()
        .next()
        .and_then(|choice| choice.message.tool_calls?.into_iter().next())
        .ok_or_else(|| LlmError::Unusable("the reply called no function".to_owned()))?;
    let input = serde_json::from_str(&call.function.arguments)
        .map_err(|e| LlmError::Unusable(format!("the function arguments are not JSON: {e}")))?;
    Ok(ToolCall {
        name: call.function.name,
        input,
    })
}
