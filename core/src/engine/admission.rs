//! How many questions run at once. A project's pool has a few connections and
//! a slow question holds one until its timeout; without a cap, one user firing
//! questions in parallel queues everyone else behind them for minutes. A
//! question waits briefly for a slot, then is told the project is busy.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

/// Questions one user may have running at once, across projects: fewer than
/// a pool's connections, so one user's slow questions never hold all of a
/// project's connections and leave others waiting for one.
pub const QUESTIONS_PER_USER: usize = 2;
const _: () = assert!(QUESTIONS_PER_USER < crate::warehouse::POOL_CONNECTIONS as usize);
/// Questions one project may have running at once, across users: twice its
/// pool, so a question can be planned while others hold connections.
pub const QUESTIONS_PER_PROJECT: usize = 8;
/// How long a question waits for a slot before it is refused.
pub const ADMISSION_WAIT: Duration = Duration::from_secs(5);

/// Each user's or project's slots, while any question holds or waits for
/// them: the last question to leave takes its key's entry with it, so the
/// maps hold only what is in use, and a deleted project or user leaves
/// nothing behind.
type SlotMap = Arc<Mutex<HashMap<Uuid, Arc<Semaphore>>>>;

/// Slots per user and per project, shared by the engine's clones.
#[derive(Debug)]
pub(crate) struct Admission {
    wait: Duration,
    users: SlotMap,
    projects: SlotMap,
}

/// A question's slots, given back when it is dropped.
#[derive(Debug)]
pub(crate) struct Admitted {
    _user: Held,
    _project: Held,
}

/// One slot of one key, and the map to leave when it is given back.
#[derive(Debug)]
struct Held {
    map: SlotMap,
    key: Uuid,
    permit: Option<OwnedSemaphorePermit>,
}

impl Drop for Held {
    fn drop(&mut self) {
        // The permit first: it holds a reference to the semaphore.
        drop(self.permit.take());
        leave(&self.map, self.key);
    }
}

/// Which limit a refused question met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Busy {
    User,
    Project,
}

impl Default for Admission {
    fn default() -> Self {
        Self::new(ADMISSION_WAIT)
    }
}

impl Admission {
    pub(crate) fn new(wait: Duration) -> Self {
        Self {
            wait,
            users: SlotMap::default(),
            projects: SlotMap::default(),
        }
    }

    /// Slots for one question of `user` on `project`, waiting at most the
    /// admission wait for each.
    pub(crate) async fn admit(&self, user: Uuid, project: Uuid) -> Result<Admitted, Busy> {
        let user = self
            .acquire(&self.users, user, QUESTIONS_PER_USER)
            .await
            .ok_or(Busy::User)?;
        let project = self
            .acquire(&self.projects, project, QUESTIONS_PER_PROJECT)
            .await
            .ok_or(Busy::Project)?;
        Ok(Admitted {
            _user: user,
            _project: project,
        })
    }

    /// One slot of `key`, or `None` when none freed up within the wait.
    async fn acquire(&self, map: &SlotMap, key: Uuid, permits: usize) -> Option<Held> {
        // Held before waiting, so a refused wait also leaves the map clean.
        let mut held = Held {
            map: map.clone(),
            key,
            permit: None,
        };
        let slots = slots(map, key, permits);
        held.permit = Some(
            tokio::time::timeout(self.wait, slots.acquire_owned())
                .await
                .ok()?
                .ok()?,
        );
        Some(held)
    }

    /// Whether any question of `project` holds or waits for its slots.
    pub(crate) fn holds_project(&self, project: Uuid) -> bool {
        lock(&self.projects).contains_key(&project)
    }
}

fn lock(map: &SlotMap) -> std::sync::MutexGuard<'_, HashMap<Uuid, Arc<Semaphore>>> {
    map.lock().unwrap_or_else(|e| e.into_inner())
}

/// The semaphore of `key`, created on first use.
fn slots(map: &SlotMap, key: Uuid, permits: usize) -> Arc<Semaphore> {
    lock(map)
        .entry(key)
        .or_insert_with(|| Arc::new(Semaphore::new(permits)))
        .clone()
}

/// Removes `key`'s semaphore once only the map refers to it. References are
/// taken only under the lock, so none can appear while it is checked here.
fn leave(map: &SlotMap, key: Uuid) {
    let mut map = lock(map);
    if map
        .get(&key)
        .is_some_and(|slots| Arc::strong_count(slots) == 1)
    {
        map.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_user_gets_their_slots_then_waits_then_is_refused() {
        let admission = Admission::new(Duration::from_millis(300));
        let (ada, bob, project) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut held = Vec::new();
        for _ in 0..QUESTIONS_PER_USER {
            held.push(admission.admit(ada, project).await.unwrap());
        }
        assert_eq!(admission.admit(ada, project).await.unwrap_err(), Busy::User);
        // Others still get in, on this project and any other.
        for _ in 0..QUESTIONS_PER_USER {
            held.push(admission.admit(bob, Uuid::nil()).await.unwrap());
        }
        held.push(admission.admit(Uuid::new_v4(), project).await.unwrap());
        // A slot given back within the wait admits the waiting question.
        let freed = held.remove(0);
        let waiting = admission.admit(ada, project);
        let release = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(freed);
        };
        let (admitted, ()) = tokio::join!(waiting, release);
        assert!(admitted.is_ok());
    }

    #[tokio::test]
    async fn a_full_project_refuses_every_user() {
        let admission = Admission::new(Duration::from_millis(300));
        let project = Uuid::new_v4();
        let held: Vec<_> = fill(&admission, project).await;
        assert_eq!(held.len(), QUESTIONS_PER_PROJECT);
        assert_eq!(
            admission.admit(Uuid::new_v4(), project).await.unwrap_err(),
            Busy::Project
        );
    }

    #[tokio::test]
    async fn slots_are_forgotten_when_their_last_question_leaves() {
        let admission = Admission::new(Duration::from_millis(100));
        let (ada, project) = (Uuid::new_v4(), Uuid::new_v4());
        let first = admission.admit(ada, project).await.unwrap();
        let second = admission.admit(ada, project).await.unwrap();
        // Refused while waiting: the refusal leaves the held entries alone.
        assert_eq!(admission.admit(ada, project).await.unwrap_err(), Busy::User);
        assert!(admission.holds_project(project));
        drop(first);
        assert!(admission.holds_project(project));
        drop(second);
        assert!(!admission.holds_project(project));
        assert!(lock(&admission.users).is_empty());
        // A project refused for being full is left clean too.
        let held = fill(&admission, project).await;
        assert_eq!(
            admission.admit(Uuid::new_v4(), project).await.unwrap_err(),
            Busy::Project
        );
        drop(held);
        assert!(lock(&admission.projects).is_empty() && lock(&admission.users).is_empty());
    }

    /// Fills a project with one question from each of as many users.
    async fn fill(admission: &Admission, project: Uuid) -> Vec<Admitted> {
        let mut held = Vec::new();
        for _ in 0..QUESTIONS_PER_PROJECT {
            held.push(admission.admit(Uuid::new_v4(), project).await.unwrap());
        }
        held
    }
}
