//! Before a publish, the verified questions are answered by the draft and by
//! the latest version side by side, so a change that alters or breaks an
//! answer people rely on is seen before it goes live.

use crate::engine::eval::same_results;
use crate::engine::response::{AskResponse, AskStatus};
use serde::{Deserialize, Serialize};

/// How one verified question fares under the draft, compared with the latest version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "detail", rename_all = "snake_case")]
pub enum Verdict {
    /// The same status and the same rows.
    Unchanged,
    /// Answered both times, differently; the detail says how.
    Changed(String),
    /// The latest version answers it and the draft does not; the detail says why.
    Fails(String),
    /// Neither answers it.
    StillFails(String),
    /// The draft answers what the latest version could not.
    Fixed,
    /// No published version to compare with; the draft answers it.
    New,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionCheck {
    pub question: String,
    pub verdict: Verdict,
    pub draft_status: AskStatus,
    pub latest_status: Option<AskStatus>,
}

impl RegressionCheck {
    /// Publishing over this needs the publisher's explicit confirmation.
    pub fn is_regression(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Changed(_) | Verdict::Fails(_) | Verdict::StillFails(_)
        )
    }
}

/// A question counts as answered when it ran, or waits only for approval.
fn usable(response: &AskResponse) -> bool {
    matches!(
        response.status,
        AskStatus::Answered | AskStatus::NeedsExecution
    )
}

fn reason(response: &AskResponse) -> String {
    response
        .error
        .clone()
        .unwrap_or_else(|| response.answer.clone())
}

/// Compares the draft's response to a question with the latest version's.
pub fn compare(
    question: &str,
    draft: &AskResponse,
    latest: Option<&AskResponse>,
) -> RegressionCheck {
    let verdict = match latest {
        None if usable(draft) => Verdict::New,
        None => Verdict::Fails(reason(draft)),
        Some(latest) => match (usable(latest), usable(draft)) {
            (true, false) => Verdict::Fails(reason(draft)),
            (false, false) => Verdict::StillFails(reason(draft)),
            (false, true) => Verdict::Fixed,
            (true, true) => match difference(draft, latest) {
                Some(how) => Verdict::Changed(how),
                None => Verdict::Unchanged,
            },
        },
    };
    RegressionCheck {
        question: question.to_owned(),
        verdict,
        draft_status: draft.status,
        latest_status: latest.map(|l| l.status),
    }
}

/// How two usable answers differ, if they do.
fn difference(draft: &AskResponse, latest: &AskResponse) -> Option<String> {
    if draft.status != latest.status {
        return Some(match draft.status {
            AskStatus::NeedsExecution => "now waits for the user to approve a plan".to_owned(),
            _ => "now answers without waiting for approval".to_owned(),
        });
    }
    match (&draft.results, &latest.results) {
        (Some(new), Some(old)) => {
            if new.columns.len() != old.columns.len() {
                return Some(format!(
                    "{} columns instead of {}",
                    new.columns.len(),
                    old.columns.len()
                ));
            }
            same_results(&new.rows, new.total_rows, &old.rows, false)
                .err()
                .map(|how| format!("different rows: {how}"))
        }
        // Schema-only sources, or plans waiting for approval: the SQL is what
        // the user would get.
        _ => (draft.sql != latest.sql).then(|| "different SQL".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::response::ResultSet;
    use serde_json::json;

    fn answered(rows: Vec<Vec<serde_json::Value>>) -> AskResponse {
        AskResponse {
            chat_id: "chat_1".to_owned(),
            status: AskStatus::Answered,
            answer: "ok".to_owned(),
            sql: Some("SELECT 1".to_owned()),
            results: Some(ResultSet {
                columns: vec!["driver".to_owned(), "wins".to_owned()],
                total_rows: rows.len() as u64,
                rows,
                truncated: false,
            }),
            objects_used: Vec::new(),
            plan: None,
            ontology_version: None,
            error: None,
        }
    }

    fn refused(message: &str) -> AskResponse {
        AskResponse {
            status: AskStatus::NotAnswerable,
            error: Some(message.to_owned()),
            results: None,
            sql: None,
            ..answered(Vec::new())
        }
    }

    #[test]
    fn the_same_rows_in_another_order_are_unchanged() {
        let old = answered(vec![
            vec![json!("Hamilton"), json!(11)],
            vec![json!("Bottas"), json!(2)],
        ]);
        let new = answered(vec![
            vec![json!("Bottas"), json!(2)],
            vec![json!("Hamilton"), json!(11)],
        ]);
        let check = compare("wins in 2020", &new, Some(&old));
        assert_eq!(check.verdict, Verdict::Unchanged);
        assert!(!check.is_regression());
    }

    #[test]
    fn other_rows_or_a_refusal_are_regressions() {
        let old = answered(vec![vec![json!("Hamilton"), json!(11)]]);
        let new = answered(vec![vec![json!("Hamilton"), json!(12)]]);
        let changed = compare("wins", &new, Some(&old));
        assert!(
            matches!(changed.verdict, Verdict::Changed(_)),
            "{changed:?}"
        );
        assert!(changed.is_regression());

        let broken = compare("wins", &refused("no concept for \"wins\""), Some(&old));
        assert_eq!(
            broken.verdict,
            Verdict::Fails("no concept for \"wins\"".to_owned())
        );
        assert!(broken.is_regression());
    }

    #[test]
    fn answering_what_could_not_be_answered_is_no_regression() {
        let fixed = compare("wins", &answered(Vec::new()), Some(&refused("no")));
        assert_eq!(fixed.verdict, Verdict::Fixed);
        assert!(!fixed.is_regression());
        let first = compare("wins", &answered(Vec::new()), None);
        assert_eq!(first.verdict, Verdict::New);
        assert!(compare("wins", &refused("no"), None).is_regression());
    }
}
