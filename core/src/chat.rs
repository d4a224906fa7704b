//! What a chat records of each question: where it came from and how it
//! ended. Below the store, which keeps them as text, and the engine, which
//! decides them, so both name the same enums.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// How a question ended, as `ask_question` reports it and a chat's turn
/// records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AskStatus {
    /// The SQL ran (or, on a schema-only source, was written) and `answer` states the result.
    Answered,
    /// A plan with a genuine fork waits for the user's approval.
    NeedsExecution,
    /// The question cannot be answered from this ontology or data; rephrasing is needed.
    NotAnswerable,
    /// Bad input, a timeout or a failure; `error` says which.
    Error,
}

impl AskStatus {
    pub const ALL: [AskStatus; 4] = [
        AskStatus::Answered,
        AskStatus::NeedsExecution,
        AskStatus::NotAnswerable,
        AskStatus::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AskStatus::Answered => "answered",
            AskStatus::NeedsExecution => "needs_execution",
            AskStatus::NotAnswerable => "not_answerable",
            AskStatus::Error => "error",
        }
    }
}

/// Where a question came from, for the activity view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Client {
    Mcp,
    Playground,
    Cli,
    /// A verified question asked again before publishing; its chat is
    /// never stored.
    Rehearsal,
}

impl Client {
    pub const ALL: [Client; 4] = [
        Client::Mcp,
        Client::Playground,
        Client::Cli,
        Client::Rehearsal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Client::Mcp => "mcp",
            Client::Playground => "playground",
            Client::Cli => "cli",
            Client::Rehearsal => "rehearsal",
        }
    }
}

/// Text that names no status or client: a row written by something else.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not one of {1}")]
pub struct Unknown(pub String, pub &'static str);

impl FromStr for AskStatus {
    type Err = Unknown;

    fn from_str(text: &str) -> Result<Self, Unknown> {
        AskStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or_else(|| {
                Unknown(
                    text.to_owned(),
                    "answered, needs_execution, not_answerable, error",
                )
            })
    }
}

impl FromStr for Client {
    type Err = Unknown;

    fn from_str(text: &str) -> Result<Self, Unknown> {
        Client::ALL
            .into_iter()
            .find(|client| client.as_str() == text)
            .ok_or_else(|| Unknown(text.to_owned(), "mcp, playground, cli, rehearsal"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_and_client_reads_back_from_its_text() {
        for status in AskStatus::ALL {
            assert_eq!(status.as_str().parse(), Ok(status));
            // The text stored is the text on the wire.
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::Value::from(status.as_str())
            );
        }
        for client in Client::ALL {
            assert_eq!(client.as_str().parse(), Ok(client));
        }
        assert!("Answered".parse::<AskStatus>().is_err());
        assert!("api".parse::<Client>().is_err());
    }
}
