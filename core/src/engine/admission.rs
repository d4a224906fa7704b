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

/// Slots per user and per project, shared by the engine's clones.
#[derive(Debug)]
pub(crate) struct Admission {
    wait: Duration,
    users: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
    projects: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
}

/// A question's slots, given back when it is dropped.
#[derive(Debug)]
pub(crate) struct Admitted {
    _user: OwnedSemaphorePermit,
    _project: OwnedSemaphorePermit,
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
            users: Mutex::default(),
            projects: Mutex::default(),
        }
    }

    /// Slots for one question of `user` on `project`, waiting at most the
    /// admission wait for each.
    pub(crate) async fn admit(&self, user: Uuid, project: Uuid) -> Result<Admitted, Busy> {
        let user_slots = slots(&self.users, user, QUESTIONS_PER_USER);
        let project_slots = slots(&self.projects, project, QUESTIONS_PER_PROJECT);
        let acquire =
            |slots: Arc<Semaphore>| tokio::time::timeout(self.wait, slots.acquire_owned());
        let user = match acquire(user_slots).await {
            Ok(Ok(permit)) => permit,
            _ => return Err(Busy::User),
        };
        let project = match acquire(project_slots).await {
            Ok(Ok(permit)) => permit,
            _ => return Err(Busy::Project),
        };
        Ok(Admitted {
            _user: user,
            _project: project,
        })
    }
}

/// The semaphore of `key`, created on first use. Users and projects are rows
/// of the metadata database, so the map grows no larger than they are.
fn slots(map: &Mutex<HashMap<Uuid, Arc<Semaphore>>>, key: Uuid, permits: usize) -> Arc<Semaphore> {
    map.lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert_with(|| Arc::new(Semaphore::new(permits)))
        .clone()
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

    /// Fills a project with one question from each of as many users.
    async fn fill(admission: &Admission, project: Uuid) -> Vec<Admitted> {
        let mut held = Vec::new();
        for _ in 0..QUESTIONS_PER_PROJECT {
            held.push(admission.admit(Uuid::new_v4(), project).await.unwrap());
        }
        held
    }
}
