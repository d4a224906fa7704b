//! Publishing: what the draft changes, whether verified questions still get
//! the same answers, the version history, and rolling back.

use crate::error::AppError;
use cassis_core::engine::regression::RegressionCheck;
use cassis_core::ontology::Change;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The draft against the latest version, before publishing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublishPreview {
    pub latest_version: Option<u32>,
    pub has_draft: bool,
    pub changes: Vec<Change>,
    /// Validation problems: any one blocks publishing.
    pub problems: Vec<String>,
    pub verified_questions: usize,
    pub can_publish: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionRow {
    pub number: u32,
    pub published_by: String,
    /// `YYYY-MM-DD HH:MM UTC`.
    pub published_at: String,
    pub note: String,
}

#[server(endpoint = "preview_publish")]
pub async fn preview_publish(project_id: String) -> Result<PublishPreview, AppError> {
    use cassis_core::account::Role;
    use cassis_core::ontology::{diff, validate};
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let store = crate::ssr::context()?.store;
    let draft = store.draft(project.id).await?.map(|d| d.ontology);
    let latest = store.latest_version(project.id).await?;
    let latest_version = latest.as_ref().map(|v| v.number);
    let has_draft = draft.is_some();
    let dialect = dialect_of(&project);
    // Comparing and checking drafts of megabytes is ontology worker work.
    let (changes, problems, verified_questions) =
        cassis_core::ontology::on_ontology_worker(move || {
            let empty = cassis_core::ontology::Ontology::default();
            let base = latest.as_ref().map_or(&empty, |v| &v.ontology);
            match &draft {
                Some(draft) => (
                    diff(base, draft),
                    validate(draft, dialect)
                        .into_iter()
                        .map(|p| p.to_string())
                        .collect(),
                    draft.verified_questions.len(),
                ),
                None => (Vec::new(), Vec::new(), 0),
            }
        })
        .await;
    Ok(PublishPreview {
        latest_version,
        has_draft,
        changes,
        problems,
        verified_questions,
        can_publish: user.role != Role::Viewer,
    })
}

/// Answers the verified questions under the draft and the latest version.
#[server(endpoint = "check_regressions")]
pub async fn check_regressions(project_id: String) -> Result<Vec<RegressionCheck>, AppError> {
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let services = crate::ssr::context()?.services();
    let Some(draft) = services.store.draft(project.id).await? else {
        return Ok(Vec::new());
    };
    Ok(services
        .check_regressions(&user, &project, &draft.ontology, crate::ssr::now())
        .await?)
}

/// Publishes the draft as the next version. Unless `confirm_regressions`,
/// the verified questions run first and any regression refuses the publish.
#[server(endpoint = "publish_draft")]
pub async fn publish_draft(
    project_id: String,
    #[server(default)] note: String,
    #[server(default)] confirm_regressions: bool,
) -> Result<u32, AppError> {
    use cassis_core::service::publishing::{PublishError, RegressionPolicy};
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let policy = if confirm_regressions {
        RegressionPolicy::Force
    } else {
        RegressionPolicy::Refuse
    };
    let published = crate::ssr::context()?
        .services()
        .publish_draft(&user, &project, &note, policy, crate::ssr::now())
        .await;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    match published {
        Ok(number) => {
            tracing::info!(user = %user.id, project = %project.id, version = number, "published a version");
            Ok(number)
        }
        Err(PublishError::NoDraft) => Err(invalid("There is no draft to publish yet.".to_owned())),
        Err(PublishError::Regressions(regressions)) => Err(invalid(format!(
            "{} verified question(s) would get a different answer or none; confirm to publish anyway.",
            regressions.len()
        ))),
        Err(PublishError::Invalid(problems)) => Err(invalid(format!(
            "The draft has {} problem(s); fix them in the editor first. Nothing was published.",
            problems.len()
        ))),
        Err(PublishError::Store(error)) => Err(error.into()),
        Err(error) => Err(invalid(error.to_string())),
    }
}

#[server(endpoint = "list_versions")]
pub async fn list_versions(project_id: String) -> Result<Vec<VersionRow>, AppError> {
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let versions = crate::ssr::context()?
        .store
        .list_versions(project.id)
        .await?;
    Ok(versions
        .into_iter()
        .map(|v| VersionRow {
            number: v.number,
            published_by: v.published_by_email,
            published_at: v.published_at.to_utc_minutes(),
            note: v.note,
        })
        .collect())
}

/// What changed from version `from` to version `to` (0 means the draft).
#[server(endpoint = "compare_versions")]
pub async fn compare_versions(
    project_id: String,
    from: u32,
    to: u32,
) -> Result<Vec<Change>, AppError> {
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let store = crate::ssr::context()?.store;
    let missing = |n: u32| crate::ssr::respond_with(AppError::NotFound(format!("version {n}")));
    let load = |number: u32| {
        let store = store.clone();
        async move {
            if number == 0 {
                return Ok::<_, AppError>(
                    store
                        .draft(project.id)
                        .await?
                        .map(|d| d.ontology)
                        .unwrap_or_default(),
                );
            }
            store
                .version(project.id, number)
                .await?
                .map(|v| v.ontology)
                .ok_or_else(|| missing(number))
        }
    };
    let old = load(from).await?;
    let new = load(to).await?;
    Ok(cassis_core::ontology::diff(&old, &new))
}

/// Publishes an old version's content as the next version; the draft follows.
#[server(endpoint = "roll_back")]
pub async fn roll_back(
    project_id: String,
    to: u32,
    #[server(default)] note: String,
) -> Result<u32, AppError> {
    use cassis_core::service::publishing::PublishError;
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let services = crate::ssr::context()?.services();
    match services
        .roll_back(&user, &project, to, &note, crate::ssr::now())
        .await
    {
        Ok(number) => {
            tracing::info!(user = %user.id, project = %project.id, to, version = number, "rolled back");
            Ok(number)
        }
        Err(PublishError::Store(error)) => Err(error.into()),
        Err(error) => Err(crate::ssr::respond_with(AppError::Invalid(format!(
            "{}.",
            error
        )))),
    }
}
