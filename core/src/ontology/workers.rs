//! Where ontology documents are read, checked and written: on blocking
//! threads, a core's worth at a time.
//!
//! Reading a document of a few megabytes, validating it and locating its
//! problems takes long enough to stall an async worker, and holds the whole
//! document's YAML events in memory meanwhile (a 2 MB list of one-character
//! items reads into more than a hundred megabytes). Any signed-in viewer can
//! send such a document to the draft check as fast as they type, so every
//! path that reads, validates, locates or writes a whole ontology waits here
//! for one of as many slots as the machine has cores: the memory held at
//! once stays a few documents' worth, and the async workers stay free for
//! MCP and the pages.

use std::sync::LazyLock;
use tokio::sync::Semaphore;

static SLOTS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(slots()));

/// One per core: the work is CPU-bound, so more at once only holds more
/// memory without finishing sooner.
fn slots() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get())
}

/// Runs `work` on a blocking thread once a slot is free and returns what it
/// returned; a panic in `work` carries on in the caller, as if it ran inline.
pub async fn on_ontology_worker<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    // The semaphore is never closed, so acquiring only waits.
    let _slot = SLOTS.acquire().await.expect("the slots are never closed");
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(error) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(error) => panic!("an ontology worker was cancelled: {error}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_documents_are_worked_on_at_once_than_there_are_cores() {
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let jobs: Vec<_> = (0..4 * slots())
            .map(|_| {
                let (running, most) = (running.clone(), most.clone());
                tokio::spawn(on_ontology_worker(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for job in jobs {
            job.await.unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert!((1..=slots()).contains(&most), "{most} at once");
    }
}
