//! Publishing: a draft becomes an immutable version only when it validates
//! and, unless the publisher says otherwise, when the verified questions
//! people rely on get the same answers under it. The app's publish button,
//! `cassis ontology publish` and `cassis ontology import --publish` all pass
//! through [`Services::publish`], so none of them skips the gate.

use super::Services;
use crate::account::User;
use crate::engine::regression::{self, RegressionCheck};
use crate::ontology::{Ontology, Problem, on_ontology_worker, validate};
use crate::project::{Project, dialect_of};
use crate::store::{DraftBase, StoreError};
use crate::time::Timestamp;

/// What a publish does about verified questions that would get a different
/// answer, or none, under the new version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegressionPolicy {
    /// Answer them under the draft and the latest version first, and refuse
    /// the publish if any regresses.
    Refuse,
    /// Publish without asking them: the publisher has confirmed (the app's
    /// checkbox, the command line's `--force`).
    Force,
}

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("the project has no draft to publish")]
    NoDraft,
    #[error("version {0} does not exist")]
    NoSuchVersion(u32),
    #[error("the ontology has {} problem(s); nothing was published", .0.len())]
    Invalid(Vec<Problem>),
    /// The checks that regress, only those; nothing was published.
    #[error(
        "{} verified question(s) would get a different answer or none; nothing was published",
        .0.len()
    )]
    Regressions(Vec<RegressionCheck>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Services {
    /// Validates `ontology` against the project, applies `policy` to the
    /// verified questions, and stores it as the next version.
    pub async fn publish(
        &self,
        publisher: &User,
        project: &Project,
        ontology: &Ontology,
        note: &str,
        policy: RegressionPolicy,
        now: Timestamp,
    ) -> Result<u32, PublishError> {
        // Validation is CPU work on a document of up to a few MiB: off the
        // executor, a few at a time.
        let (checked, dialect) = (ontology.clone(), dialect_of(project));
        let problems = on_ontology_worker(move || validate(&checked, dialect)).await;
        if !problems.is_empty() {
            return Err(PublishError::Invalid(problems));
        }
        if policy == RegressionPolicy::Refuse {
            let regressions: Vec<RegressionCheck> = self
                .check_regressions(publisher, project, ontology, now)
                .await?
                .into_iter()
                .filter(RegressionCheck::is_regression)
                .collect();
            if !regressions.is_empty() {
                return Err(PublishError::Regressions(regressions));
            }
        }
        Ok(self
            .store
            .publish_version(project.id, ontology, publisher.id, note, now)
            .await?)
    }

    /// Publishes the project's draft as it stands.
    pub async fn publish_draft(
        &self,
        publisher: &User,
        project: &Project,
        note: &str,
        policy: RegressionPolicy,
        now: Timestamp,
    ) -> Result<u32, PublishError> {
        let draft = self
            .store
            .draft(project.id)
            .await?
            .ok_or(PublishError::NoDraft)?;
        self.publish(publisher, project, &draft.ontology, note, policy, now)
            .await
    }

    /// Rolling back is publishing an old version's content as a new version; the
    /// draft follows, so the next edit starts from what is live, and the draft it
    /// replaces can be restored from the draft history. The content was live
    /// once, so its verified questions are not asked again.
    pub async fn roll_back(
        &self,
        publisher: &User,
        project: &Project,
        to: u32,
        note: &str,
        now: Timestamp,
    ) -> Result<u32, PublishError> {
        let old = self
            .store
            .version(project.id, to)
            .await?
            .ok_or(PublishError::NoSuchVersion(to))?;
        let note = if note.trim().is_empty() {
            format!("Roll back to version {to}")
        } else {
            note.to_owned()
        };
        let number = self
            .publish(
                publisher,
                project,
                &old.ontology,
                &note,
                RegressionPolicy::Force,
                now,
            )
            .await?;
        // Over whatever the draft is: the replaced draft stays in its history.
        self.store
            .save_draft(
                project.id,
                &old.ontology,
                DraftBase::Current,
                publisher.id,
                &format!("rolled back to version {to}"),
                now,
            )
            .await?;
        Ok(number)
    }

    /// The verified questions of `draft` and of the latest version, each
    /// answered under both, compared: what a publish would change for people who
    /// rely on them. Questions the latest version verified and the draft dropped
    /// are checked too.
    pub async fn check_regressions(
        &self,
        caller: &User,
        project: &Project,
        draft: &Ontology,
        now: Timestamp,
    ) -> Result<Vec<RegressionCheck>, StoreError> {
        let latest = self
            .store
            .latest_version(project.id)
            .await?
            .map(|v| v.ontology);
        let mut questions: Vec<String> = Vec::new();
        let verified = draft
            .verified_questions
            .iter()
            .chain(latest.iter().flat_map(|l| &l.verified_questions));
        for question in verified {
            if !questions
                .iter()
                .any(|q| q.eq_ignore_ascii_case(question.question.trim()))
            {
                questions.push(question.question.trim().to_owned());
            }
        }
        if questions.is_empty() {
            // Nothing to compare: no need to ground the draft on the data.
            return Ok(Vec::new());
        }
        let under_draft = self
            .engine
            .rehearse(caller, project, draft.clone(), &questions, now)
            .await;
        let under_latest = match latest {
            Some(latest) => Some(
                self.engine
                    .rehearse(caller, project, latest, &questions, now)
                    .await,
            ),
            None => None,
        };
        Ok(questions
            .iter()
            .enumerate()
            .map(|(i, question)| {
                regression::compare(
                    question,
                    &under_draft[i],
                    under_latest.as_ref().map(|responses| &responses[i]),
                )
            })
            .collect())
    }
}
