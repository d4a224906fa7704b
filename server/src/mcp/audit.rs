//! The audit trail of MCP tool calls, written off the request path: calls go
//! into a bounded queue and one task stores them in batches, one transaction
//! each, so a busy agent does not wait on a database write per call. A full
//! queue slows callers down rather than dropping records.

use cassis_core::store::{Store, ToolCall};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

const QUEUE: usize = 4_096;
const BATCH: usize = 1_024;
/// The longest a record waits before it is written.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

#[derive(Clone, Debug)]
pub struct AuditLog(mpsc::Sender<ToolCall>);

impl AuditLog {
    /// The log and the task that writes it; the task ends, having written
    /// everything, once every clone of the log is dropped.
    pub fn start(store: Store) -> (Self, JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel(QUEUE);
        (Self(sender), tokio::spawn(write_batches(store, receiver)))
    }

    pub async fn record(&self, call: ToolCall) {
        if self.0.send(call).await.is_err() {
            tracing::error!("the audit writer has stopped; a tool call was not recorded");
        }
    }
}

async fn write_batches(store: Store, mut receiver: mpsc::Receiver<ToolCall>) {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        let received = receiver.recv_many(&mut batch, BATCH).await;
        if received == 0 {
            break;
        }
        // Gather what arrives in the next moment into the same transaction.
        let deadline = tokio::time::Instant::now() + FLUSH_EVERY;
        while batch.len() < BATCH {
            let room = BATCH - batch.len();
            match tokio::time::timeout_at(deadline, receiver.recv_many(&mut batch, room)).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        if let Err(error) = store.record_tool_calls(&batch).await {
            tracing::error!(%error, calls = batch.len(), "recording MCP tool calls failed");
        }
        batch.clear();
    }
}
