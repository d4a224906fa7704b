//! The audit trail of MCP tool calls, written off the request path: calls go
//! into a bounded queue and one task stores them in batches, one transaction
//! each, so a busy agent does not wait on a database write per call. A full
//! queue slows callers down rather than dropping records.

use cassis_core::store::{Store, ToolCall};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

const QUEUE: usize = 4_096;
const BATCH: usize = 1_024;
/// The longest a record waits before it is written.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// How often a batch is tried again while the database is unreachable.
const RETRY_EVERY: Duration = Duration::from_millis(250);
/// A batch the database refuses outright (not for being away) is tried this
/// many times before it is given up, logged with its size.
const REFUSED_ATTEMPTS: u32 = 3;
/// While finishing for a shutdown, an unreachable database is waited for
/// this long: the process has to end some time.
const FINISH_PATIENCE: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
pub struct AuditLog(mpsc::Sender<ToolCall>);

/// The task that writes the log, and how to tell it to finish.
#[derive(Debug)]
pub struct AuditWriter {
    task: JoinHandle<()>,
    finish: oneshot::Sender<()>,
}

impl AuditLog {
    /// The log and the task that writes it; the task ends, having written
    /// everything, once every clone of the log is dropped or it is told to
    /// finish.
    pub fn start(store: Store) -> (Self, AuditWriter) {
        let (sender, receiver) = mpsc::channel(QUEUE);
        let (finish, finished) = oneshot::channel();
        let task = tokio::spawn(write_batches(store, receiver, finished));
        (Self(sender), AuditWriter { task, finish })
    }

    pub async fn record(&self, call: ToolCall) {
        if self.0.send(call).await.is_err() {
            tracing::error!("the audit writer has stopped; a tool call was not recorded");
        }
    }

    /// Records waiting to be written.
    pub fn queued(&self) -> usize {
        self.0.max_capacity() - self.0.capacity()
    }
}

impl AuditWriter {
    /// Stops taking records, writes every queued one and waits until they
    /// are stored. Requests cut off by the drain timeout may still hold the
    /// log, so the writer cannot wait for every clone to be dropped.
    pub async fn finish(self) {
        let _ = self.finish.send(());
        if let Err(error) = self.task.await {
            tracing::error!(%error, "the audit writer failed");
        }
    }
}

async fn write_batches(
    store: Store,
    mut receiver: mpsc::Receiver<ToolCall>,
    finished: oneshot::Receiver<()>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut finished = std::pin::pin!(finished);
    let mut finishing = false;
    loop {
        let received = if finishing {
            receiver.recv_many(&mut batch, BATCH).await
        } else {
            tokio::select! {
                received = receiver.recv_many(&mut batch, BATCH) => received,
                // A writer dropped without `finish` leaves the task running.
                Ok(()) = &mut finished => {
                    // What is queued is still received, then `recv_many`
                    // answers 0 and the loop ends.
                    receiver.close();
                    finishing = true;
                    continue;
                }
            }
        };
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
        store_batch(&store, &batch, finishing).await;
        batch.clear();
    }
}

/// Stores one batch. The calls were answered, so their records are not
/// dropped because the database is away for a while (a PostgreSQL restart):
/// the batch is tried again until it is back, while the queue holds the
/// records behind it and, once full, slows callers down.
async fn store_batch(store: &Store, batch: &[ToolCall], finishing: bool) {
    let started = tokio::time::Instant::now();
    let (mut refused, mut attempts) = (0, 0);
    loop {
        attempts += 1;
        let Err(error) = store.record_tool_calls(batch).await else {
            return;
        };
        let unreachable = error.is_unreachable();
        refused += u32::from(!unreachable);
        let patience_left = !finishing || started.elapsed() < FINISH_PATIENCE;
        if refused >= REFUSED_ATTEMPTS || !patience_left {
            tracing::error!(%error, calls = batch.len(), "recording MCP tool calls failed; they are not in the audit trail");
            return;
        }
        if attempts == 1 {
            tracing::warn!(%error, calls = batch.len(), "recording MCP tool calls failed; trying again until the database is back");
        }
        tokio::time::sleep(RETRY_EVERY).await;
    }
}
