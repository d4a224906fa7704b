//! `cassis ontology`: the ontology as code.

use super::open_store;
use super::semantic_layers::{self, ExportFormat, ImportFormat};
use crate::config::Settings;
use crate::{clock, startup};
use anyhow::{Context, bail};
use cassis_core::account::{Email, User};
use cassis_core::engine::Engine;
use cassis_core::engine::regression::{RegressionCheck, Verdict};
use cassis_core::ontology::{self, LocatedProblem, Ontology};
use cassis_core::project::{Project, dialect_of};
use cassis_core::service::Services;
use cassis_core::service::drafts;
use cassis_core::service::publishing::{PublishError, RegressionPolicy};
use cassis_core::store::{DraftBase, Store};
use std::path::Path;
use uuid::Uuid;

/// Finds a project of the organization by id or exact name.
pub async fn find_project(
    store: &Store,
    organization_id: Uuid,
    reference: &str,
) -> anyhow::Result<Project> {
    let found = match Uuid::parse_str(reference.trim()) {
        Ok(id) => store.project(organization_id, id).await?,
        Err(_) => store.project_by_name(organization_id, reference).await?,
    };
    found.with_context(|| format!("no project `{reference}`: `cassis project list` shows them"))
}

/// The store and the project a command works on.
pub async fn open_project(
    settings: &Settings,
    reference: &str,
) -> anyhow::Result<(Store, Project)> {
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    let project = find_project(&store, org.id, reference).await?;
    Ok((store, project))
}

/// The use cases on a command's store, with the engine the settings describe.
fn services(settings: &Settings, store: &Store) -> anyhow::Result<Services> {
    let engine = Engine::new(store.clone(), settings.engine()?);
    Ok(Services::new(store.clone(), engine))
}

/// The user a command acts as: the one named, or the first admin.
pub async fn acting_user(
    store: &Store,
    organization_id: Uuid,
    email: Option<&str>,
) -> anyhow::Result<User> {
    match email {
        Some(email) => {
            let email = Email::parse(email)?;
            let (user, _) = store
                .user_credentials(&email)
                .await?
                .with_context(|| format!("no user {email}"))?;
            Ok(user)
        }
        None => store
            .first_admin(organization_id)
            .await?
            .context("no admin exists: create one with `cassis user create`"),
    }
}

fn report(problems: &[LocatedProblem], total: usize, file: &Path) -> String {
    let mut lines: Vec<String> = problems
        .iter()
        .map(|p| match p.line {
            Some(line) => format!("  {}:{line}: {}", file.display(), p.problem),
            None => format!("  {}: {}", file.display(), p.problem),
        })
        .collect();
    if total > problems.len() {
        lines.push(format!("  and {} more", total - problems.len()));
    }
    format!(
        "{} has {total} problem(s):\n{}",
        file.display(),
        lines.join("\n")
    )
}

/// Makes `file` the draft and, with `publish`, publishes it under that policy.
#[allow(clippy::too_many_arguments)]
pub async fn import(
    settings: &Settings,
    project: &str,
    file: &Path,
    from: ImportFormat,
    publish: Option<RegressionPolicy>,
    note: &str,
    as_user: Option<&str>,
) -> anyhow::Result<()> {
    let file_name = file.file_name().unwrap_or(file.as_os_str());
    let (parsed, text, reason) = if from == ImportFormat::Cassis {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        // Read and checked on ontology workers, like a draft saved in the app.
        let text = std::sync::Arc::<str>::from(text);
        let (read, max_bytes) = (text.clone(), settings.max_ontology_bytes);
        let parsed =
            ontology::on_ontology_worker(move || ontology::from_yaml_within(&read, max_bytes))
                .await
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let reason = format!("imported from {}", file_name.to_string_lossy());
        (parsed, text, reason)
    } else {
        let (_, project) = open_project(settings, project).await?;
        let imported = semantic_layers::read(settings, from, file, dialect_of(&project)).await?;
        let reason = semantic_layers::reason(from, file, &imported);
        let text = std::sync::Arc::<str>::from(ontology::to_yaml(&imported.ontology));
        (imported.ontology, text, reason)
    };
    let (store, project) = open_project(settings, project).await?;
    let user = acting_user(&store, project.organization_id, as_user).await?;
    let dialect = dialect_of(&project);
    let (parsed, problems, total) = ontology::on_ontology_worker(move || {
        let (problems, total) = ontology::located_problems(&parsed, dialect, &text);
        (parsed, problems, total)
    })
    .await;
    if total > 0 {
        // Lines of a converted file would be those of the YAML it became.
        let problems: Vec<LocatedProblem> = problems
            .into_iter()
            .map(|p| LocatedProblem {
                line: p.line.filter(|_| from == ImportFormat::Cassis),
                ..p
            })
            .collect();
        bail!("{}\nnothing was imported", report(&problems, total, file));
    }
    // The file replaces the draft as a whole; the replaced one stays in the
    // draft history (`cassis ontology history`).
    store
        .save_draft(
            project.id,
            &parsed,
            DraftBase::Current,
            user.id,
            &reason,
            clock::now(),
        )
        .await?;
    println!(
        "imported {} into the draft of {}",
        file.display(),
        project.name
    );
    if let Some(policy) = publish {
        let published = services(settings, &store)?
            .publish(&user, &project, &parsed, note, policy, clock::now())
            .await;
        println!("published version {}", published_or_why(published)?);
    }
    Ok(())
}

/// The version published, or why nothing was: every problem, or every
/// verified question that would change or fail.
fn published_or_why(published: Result<u32, PublishError>) -> anyhow::Result<u32> {
    match published {
        Ok(number) => Ok(number),
        Err(PublishError::Invalid(problems)) => {
            let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
            bail!(
                "the draft has {} problem(s); nothing was published:\n{}",
                problems.len(),
                lines.join("\n")
            )
        }
        Err(PublishError::Regressions(regressions)) => {
            let lines: Vec<String> = regressions.iter().map(regression_line).collect();
            bail!(
                "{} verified question(s) would get a different answer or none; nothing was published:\n{}\npublish anyway with --force",
                regressions.len(),
                lines.join("\n")
            )
        }
        Err(e) => Err(e.into()),
    }
}

fn regression_line(check: &RegressionCheck) -> String {
    let how = match &check.verdict {
        Verdict::Changed(how) => format!("changes: {how}"),
        Verdict::Fails(why) => format!("fails: {why}"),
        Verdict::StillFails(why) => format!("still fails: {why}"),
        Verdict::Unchanged | Verdict::Fixed | Verdict::New => "answered".to_owned(),
    };
    format!("  {}: {how}", check.question)
}

pub async fn export(
    settings: &Settings,
    project: &str,
    version: Option<u32>,
    draft: bool,
    to: ExportFormat,
    snowflake: (Option<String>, Option<String>),
) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let ontology = if draft {
        store
            .draft(project.id)
            .await?
            .context("the project has no draft")?
            .ontology
    } else {
        let number = match version {
            Some(n) => n,
            None => store.latest_version_number(project.id).await?.context(
                "the project has no published version yet: export the draft with --draft",
            )?,
        };
        store
            .version(project.id, number)
            .await?
            .with_context(|| format!("version {number} does not exist"))?
            .ontology
    };
    match to {
        ExportFormat::Cassis => print!("{}", ontology::to_yaml(&ontology)),
        ExportFormat::Snowflake => {
            let (database, schema) = snowflake;
            semantic_layers::print_cortex(&ontology, &project.name, database, schema);
        }
    }
    Ok(())
}

pub async fn publish(
    settings: &Settings,
    project: &str,
    note: &str,
    policy: RegressionPolicy,
    as_user: Option<&str>,
) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let user = acting_user(&store, project.organization_id, as_user).await?;
    let published = services(settings, &store)?
        .publish_draft(&user, &project, note, policy, clock::now())
        .await;
    println!("published version {}", published_or_why(published)?);
    Ok(())
}

pub async fn versions(settings: &Settings, project: &str) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let versions = store.list_versions(project.id).await?;
    if versions.is_empty() {
        println!("no published versions");
    }
    for v in versions {
        println!(
            "{}\t{}\t{}\t{}",
            v.number,
            v.published_at.as_millis(),
            v.published_by_email,
            v.note
        );
    }
    Ok(())
}

/// Prints what changed from `from` (default: latest version) to `to`
/// (default: the draft).
pub async fn diff(
    settings: &Settings,
    project: &str,
    from: Option<u32>,
    to: Option<u32>,
) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let load = |number: u32| {
        let store = store.clone();
        async move {
            store
                .version(project.id, number)
                .await?
                .map(|v| v.ontology)
                .with_context(|| format!("version {number} does not exist"))
        }
    };
    let old = match from.or(store.latest_version_number(project.id).await?) {
        Some(n) => load(n).await?,
        None => Ontology::default(),
    };
    let new = match to {
        Some(n) => load(n).await?,
        None => store
            .draft(project.id)
            .await?
            .map(|d| d.ontology)
            .unwrap_or_default(),
    };
    let changes = ontology::diff(&old, &new);
    if changes.is_empty() {
        println!("no changes");
    }
    for change in changes {
        println!("{change}");
    }
    Ok(())
}

pub async fn roll_back(
    settings: &Settings,
    project: &str,
    to: u32,
    note: &str,
    as_user: Option<&str>,
) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let user = acting_user(&store, project.organization_id, as_user).await?;
    let number = services(settings, &store)?
        .roll_back(&user, &project, to, note, clock::now())
        .await?;
    println!("published version {number} with the content of version {to}");
    Ok(())
}

/// Prints the current draft and the replaced drafts kept, newest first:
/// revision, time (milliseconds, like `versions`), who, why.
pub async fn history(settings: &Settings, project: &str) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let Some(draft) = store.draft(project.id).await? else {
        println!("no draft");
        return Ok(());
    };
    let line = |revision, at: cassis_core::time::Timestamp, by: Option<String>, reason| {
        let by = by.unwrap_or_else(|| "-".to_owned());
        format!("{revision}\t{}\t{by}\t{reason}", at.as_millis())
    };
    println!(
        "{} (current)",
        line(
            draft.revision,
            draft.updated_at,
            draft.updated_by_email,
            draft.reason
        )
    );
    for saved in store.draft_history(project.id).await? {
        println!(
            "{}",
            line(
                saved.revision,
                saved.saved_at,
                saved.saved_by_email,
                saved.reason
            )
        );
    }
    Ok(())
}

pub async fn restore(
    settings: &Settings,
    project: &str,
    revision: u64,
    as_user: Option<&str>,
) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, project).await?;
    let user = acting_user(&store, project.organization_id, as_user).await?;
    let saved = drafts::restore(&store, project.id, revision, user.id, clock::now()).await?;
    println!("restored revision {revision} as revision {saved} of the draft");
    Ok(())
}
