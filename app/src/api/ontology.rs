//! The ontology editor: a project's draft as YAML and as a model, checked as
//! it is typed, saved whole or edited in small steps, bootstrapped from the
//! data source or from DDL.

use super::ontology_form::{OntologyForm, ontology_form};
use crate::error::AppError;
use cassis_core::ontology::Ontology;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// One validation problem, with the line of the YAML it points at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemView {
    pub path: String,
    pub message: String,
    pub line: Option<usize>,
}

/// A project's draft as the editor shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftView {
    pub project_name: String,
    pub yaml: String,
    pub ontology: Ontology,
    pub problems: Vec<ProblemView>,
    pub latest_version: Option<u32>,
    /// When the draft was last saved, `YYYY-MM-DD HH:MM UTC`.
    pub updated_at: Option<String>,
    pub updated_by: Option<String>,
    /// The revision read, which a save from the editor sends back: 0 when
    /// there is no draft yet.
    pub revision: u64,
    pub can_edit: bool,
}

/// What saving from the editor answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedDraft {
    pub problems: Vec<ProblemView>,
    /// The revision saved, which the next save replaces.
    pub revision: u64,
}

/// One replaced draft the history keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftHistoryRow {
    pub revision: u64,
    pub saved_by: String,
    /// `YYYY-MM-DD HH:MM UTC`.
    pub saved_at: String,
    pub reason: String,
}

#[cfg(feature = "ssr")]
fn problems_of(
    ontology: &Ontology,
    yaml: &str,
    dialect: cassis_core::project::Dialect,
) -> Vec<ProblemView> {
    let (listed, total) = cassis_core::ontology::located_problems(ontology, dialect, yaml);
    let unlisted = total - listed.len();
    let mut problems: Vec<ProblemView> = listed
        .into_iter()
        .map(|p| ProblemView {
            line: p.line,
            path: p.problem.path,
            message: p.problem.message,
        })
        .collect();
    if unlisted > 0 {
        problems.push(ProblemView {
            path: String::new(),
            message: format!("and {unlisted} more problems"),
            line: None,
        });
    }
    problems
}

/// Reads YAML typed in the editor and lists its problems; a syntax error is
/// one problem at its line. Runs on an ontology worker: a document of a few
/// megabytes takes long enough to read and check to stall the async workers,
/// and holds many times its size while it is read.
#[cfg(feature = "ssr")]
async fn read_draft(
    yaml: String,
    dialect: cassis_core::project::Dialect,
) -> Result<Result<(Ontology, Vec<ProblemView>), ProblemView>, AppError> {
    let max_bytes = crate::ssr::context()?.max_ontology_bytes;
    Ok(cassis_core::ontology::on_ontology_worker(move || {
        if yaml.trim().is_empty() {
            return Ok((Ontology::default(), Vec::new()));
        }
        let ontology =
            cassis_core::ontology::from_yaml_within(&yaml, max_bytes).map_err(|error| {
                ProblemView {
                    path: String::new(),
                    message: error.message.clone(),
                    line: error.line,
                }
            })?;
        let problems = problems_of(&ontology, &yaml, dialect);
        Ok((ontology, problems))
    })
    .await)
}

#[server(endpoint = "get_draft")]
pub async fn get_draft(project_id: String) -> Result<DraftView, AppError> {
    use cassis_core::account::Role;
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let store = crate::ssr::context()?.store;
    let draft = store.draft(project.id).await?;
    let latest_version = store.latest_version_number(project.id).await?;
    let ontology = draft
        .as_ref()
        .map(|d| d.ontology.clone())
        .unwrap_or_default();
    let dialect = dialect_of(&project);
    // Writing and checking a stored draft of megabytes is worker work too.
    let (ontology, yaml, problems) = cassis_core::ontology::on_ontology_worker(move || {
        let yaml = cassis_core::ontology::to_yaml(&ontology);
        let problems = problems_of(&ontology, &yaml, dialect);
        (ontology, yaml, problems)
    })
    .await;
    Ok(DraftView {
        problems,
        project_name: project.name,
        yaml,
        ontology,
        latest_version,
        updated_at: draft.as_ref().map(|d| d.updated_at.to_utc_minutes()),
        updated_by: draft.as_ref().and_then(|d| d.updated_by_email.clone()),
        revision: draft.map_or(0, |d| d.revision),
        can_edit: user.role != Role::Viewer,
    })
}

// Their arguments are read on an ontology worker (see `ontology_form`).
ontology_form!(CheckDraft, SaveDraft);

/// Every problem of the YAML as typed, without saving it.
#[server(endpoint = "check_draft", input = OntologyForm)]
pub async fn check_draft(project_id: String, yaml: String) -> Result<Vec<ProblemView>, AppError> {
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    Ok(match read_draft(yaml, dialect_of(&project)).await? {
        Ok((_, problems)) => problems,
        Err(problem) => vec![problem],
    })
}

/// Saves the YAML as the draft. A draft may keep validation problems (they
/// block only publishing); YAML that is not an ontology is refused.
///
/// `revision` is the draft the editor opened (0: none): when someone saved
/// since, nothing is saved and [`AppError::DraftChanged`] says who. With
/// `overwrite` the save replaces whatever the draft is; the replaced draft
/// stays in the history either way.
#[server(endpoint = "save_draft", input = OntologyForm)]
pub async fn save_draft(
    project_id: String,
    yaml: String,
    #[server(default)] revision: u64,
    #[server(default)] overwrite: bool,
) -> Result<SavedDraft, AppError> {
    use cassis_core::project::dialect_of;
    use cassis_core::store::DraftBase;
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let (ontology, problems) =
        read_draft(yaml, dialect_of(&project))
            .await?
            .map_err(|problem| {
                crate::ssr::respond_with(AppError::Invalid(match problem.line {
                    Some(line) => format!("Nothing was saved: line {line}: {}", problem.message),
                    None => format!("Nothing was saved: {}", problem.message),
                }))
            })?;
    let (base, reason) = if overwrite {
        (DraftBase::Current, "saved in the editor over another save")
    } else {
        (DraftBase::Revision(revision), "saved in the editor")
    };
    let revision = crate::ssr::context()?
        .store
        .save_draft(
            project.id,
            &ontology,
            base,
            user.id,
            reason,
            crate::ssr::now(),
        )
        .await?;
    tracing::info!(user = %user.id, project = %project.id, revision, overwrite, "saved a draft");
    Ok(SavedDraft { problems, revision })
}

/// Replaces the draft with one read from the data source's tables or from
/// DDL; returns how many objects and relationships it has.
#[server(endpoint = "bootstrap_draft")]
pub async fn bootstrap_draft(
    project_id: String,
    from: String,
    #[server(default)] ddl: String,
) -> Result<(usize, usize), AppError> {
    use cassis_core::ontology::bootstrap::{catalog_from_ddl, draft_from_catalog};
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    let dialect = dialect_of(&project);
    let catalog = if from == "ddl" {
        let catalog =
            catalog_from_ddl(dialect, &ddl).map_err(|e| invalid(format!("The DDL {e}.")))?;
        if catalog.tables.is_empty() {
            return Err(invalid("The DDL has no CREATE TABLE statement.".to_owned()));
        }
        catalog
    } else {
        let url = project
            .data_source
            .as_ref()
            .and_then(|s| s.connection_url.as_deref())
            .ok_or_else(|| {
                invalid(
                    "This project's source is schema-only: bootstrap from DDL instead.".to_owned(),
                )
            })?;
        cassis_core::warehouse::Warehouse::read_catalog(url, None)
            .await
            .map_err(|e| invalid(format!("{e}.")))?
    };
    let draft = draft_from_catalog(&catalog, dialect);
    let reason = if from == "ddl" {
        "bootstrapped from DDL"
    } else {
        "bootstrapped from the data source"
    };
    // Replaces the draft outright; the one replaced stays in the history.
    crate::ssr::context()?
        .store
        .save_draft(
            project.id,
            &draft,
            cassis_core::store::DraftBase::Current,
            user.id,
            reason,
            crate::ssr::now(),
        )
        .await?;
    tracing::info!(user = %user.id, project = %project.id, tables = catalog.tables.len(), "bootstrapped a draft");
    Ok((draft.objects.len(), draft.relationships.len()))
}

/// Applies `edit` to the draft and saves it. When another save got in
/// between, `edit` runs again on the newer draft (see
/// [`cassis_core::service::drafts::edit`]), so neither change is lost.
#[cfg(feature = "ssr")]
async fn edit_draft<T: Send + 'static>(
    project_id: &str,
    reason: &str,
    edit: impl FnMut(&mut Ontology) -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, project_id).await?;
    let store = crate::ssr::context()?.store;
    cassis_core::service::drafts::edit(&store, project.id, user.id, reason, crate::ssr::now(), edit)
        .await
        // The edit ran on a worker thread, away from the response it refuses.
        .map_err(crate::ssr::respond_with)
}

/// Sets the synonyms of one element, named by its path (`objects.driver`).
#[server(endpoint = "set_synonyms")]
pub async fn set_synonyms(
    project_id: String,
    element: String,
    #[server(default)] synonyms: Vec<String>,
) -> Result<(), AppError> {
    use cassis_core::ontology::{Element, tidy_synonyms};
    let reason = format!("set the synonyms of {element}");
    edit_draft(&project_id, &reason, move |ontology| {
        let target = Element::parse(&element)
            .and_then(|e| ontology.synonyms_mut(&e))
            .ok_or_else(|| {
                crate::ssr::respond_with(AppError::NotFound("element of the draft".to_owned()))
            })?;
        *target = tidy_synonyms(synonyms.clone());
        Ok(())
    })
    .await
}

/// A metric as the editor's form sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricForm {
    pub name: String,
    pub label: String,
    pub object: String,
    /// What it computes: `simple` (or empty), `ratio`, `derived`, `growth`
    /// or `cumulative`, as the YAML's `type` says it.
    #[serde(default)]
    pub kind: String,
    /// A simple metric's aggregate; the other kinds ignore it.
    #[serde(default)]
    pub aggregate: String,
    /// SQL over the object's columns; for a derived metric, over metrics'
    /// names.
    pub expr: String,
    /// SQL conditions, one per line.
    pub filters: String,
    pub description: String,
    /// Comma-separated.
    pub synonyms: String,
    /// A ratio's metrics.
    #[serde(default)]
    pub numerator: String,
    #[serde(default)]
    pub denominator: String,
    /// A growth's or a running total's metric.
    #[serde(default)]
    pub of: String,
    /// The period a growth compares with the one before (`year`, ...).
    #[serde(default)]
    pub period: String,
    /// The period a running total starts again at; empty for none.
    #[serde(default)]
    pub to_date: String,
    /// A rolling total's span in periods (`3`); empty for a running total.
    #[serde(default)]
    pub window: String,
    /// The time attribute a level (a balance) is read at; empty for a
    /// metric that adds up over time.
    #[serde(default)]
    pub semi_additive_time: String,
    /// `last` (or empty), `first` or `average`.
    #[serde(default)]
    pub semi_additive_take: String,
    /// Comma-separated attributes each keeping its own last time.
    #[serde(default)]
    pub semi_additive_per: String,
}

/// Adds one element to the draft with `add`, which returns the element's
/// validation path (`metrics.wins`, `verified_questions[3]`). When the new
/// element has problems nothing is saved and they come back, each with the
/// field it belongs to (`name`, `object`, `expr`, `filters`, `sql`, ...).
/// Like [`edit_draft`], `add` runs again on a newer draft when someone saved
/// in between, and is checked against that one.
#[cfg(feature = "ssr")]
async fn add_to_draft(
    project_id: &str,
    what: &str,
    label: &str,
    mut add: impl FnMut(&mut Ontology) -> Result<(String, String), AppError> + Send + 'static,
) -> Result<Vec<(String, String)>, AppError> {
    use cassis_core::ontology::problems_of_added;
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, project_id).await?;
    let store = crate::ssr::context()?.store;
    let dialect = dialect_of(&project);
    let reason = format!("added the {what} {}", label.trim());
    let field_problems = cassis_core::service::drafts::edit(
        &store,
        project.id,
        user.id,
        reason.trim(),
        crate::ssr::now(),
        move |ontology| {
            let before = ontology.clone();
            let (by_name, by_index) = add(ontology)?;
            let problems = problems_of_added(&before, ontology, dialect, &by_name, &by_index);
            if !problems.is_empty() {
                // Left as it was, the draft is not saved.
                *ontology = before;
            }
            Ok::<_, AppError>(problems)
        },
    )
    .await
    // The edit ran on a worker thread, away from the response it refuses.
    .map_err(crate::ssr::respond_with)?;
    if field_problems.is_empty() {
        tracing::info!(user = %user.id, project = %project.id, what, "added to a draft");
    }
    Ok(field_problems)
}

/// Adds a metric to the draft; see [`add_to_draft`] for what comes back.
#[server(endpoint = "add_metric")]
pub async fn add_metric(
    project_id: String,
    metric: MetricForm,
) -> Result<Vec<(String, String)>, AppError> {
    let label = metric.name.clone();
    let built = match metric.to_metric() {
        Ok(built) => built,
        Err(MetricFormError::Field(field, message)) => {
            return Ok(vec![(field.to_owned(), message)]);
        }
        Err(MetricFormError::NotFromTheForm(error)) => {
            return Err(crate::ssr::respond_with(AppError::Invalid(error)));
        }
    };
    add_to_draft(&project_id, "metric", &label, move |ontology| {
        let index = ontology.metrics.len();
        let name = built.name.clone();
        ontology.metrics.push(built.clone());
        Ok((format!("metrics.{name}"), format!("metrics[{index}]")))
    })
    .await
}

/// Why a metric form cannot become a metric before the draft is asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetricFormError {
    /// A select sent a value it does not offer: not the form's doing.
    #[error("{0}")]
    NotFromTheForm(String),
    /// A field typed in does not read, shown next to it.
    #[error("{1}")]
    Field(&'static str, String),
}

impl MetricForm {
    /// The metric the form describes. A field the form hides for the
    /// chosen type is not sent on as part of it: it would only be refused
    /// as out of place.
    pub fn to_metric(&self) -> Result<cassis_core::ontology::Metric, MetricFormError> {
        use cassis_core::ontology::{
            Aggregate, Grain, Metric, MetricKind, SemiAdditive, Take, tidy_synonyms,
        };
        // The selects send these names; anything else did not come from the form.
        fn named<T: serde::de::DeserializeOwned>(
            value: &str,
            what: &str,
        ) -> Result<T, MetricFormError> {
            serde_json::from_value(serde_json::Value::String(value.to_owned()))
                .map_err(|_| MetricFormError::NotFromTheForm(format!("`{value}` is not {what}.")))
        }
        let kind = match self.kind.trim() {
            "" => MetricKind::Simple,
            kind => named(kind, "a metric type")?,
        };
        // Only a simple metric aggregates rows itself; the others take the
        // aggregate the YAML reader gives them (a running total adds up).
        let aggregate = match kind {
            MetricKind::Simple => named(&self.aggregate, "an aggregate")?,
            MetricKind::Cumulative => Aggregate::Sum,
            MetricKind::Ratio | MetricKind::Growth | MetricKind::Derived => Aggregate::Avg,
        };
        let grain = |value: &str| -> Result<Option<Grain>, MetricFormError> {
            match value.trim() {
                "" => Ok(None),
                value => named(value, "a period").map(Some),
            }
        };
        let uses = move |field: &str| match kind {
            MetricKind::Simple => matches!(field, "expr" | "filters" | "semi_additive"),
            MetricKind::Ratio => matches!(field, "numerator" | "denominator"),
            MetricKind::Derived => field == "expr",
            MetricKind::Growth => matches!(field, "of" | "period"),
            MetricKind::Cumulative => matches!(field, "of" | "to_date" | "window"),
        };
        let text = move |field: &str, value: &str| {
            Some(value.trim().to_owned()).filter(|v| uses(field) && !v.is_empty())
        };
        let window = match text("window", &self.window) {
            None => None,
            Some(periods) => Some(periods.parse::<u32>().map_err(|_| {
                MetricFormError::Field(
                    "window",
                    format!("`{periods}` is not a number of periods: a rolling window spans a whole number of them, such as 3"),
                )
            })?),
        };
        let list = |value: &str| -> Vec<String> {
            value
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let semi_additive = match text("semi_additive", &self.semi_additive_time) {
            Some(time) => Some(SemiAdditive {
                time,
                take: match self.semi_additive_take.trim() {
                    "" => Take::default(),
                    take => named(take, "a value a level is read at")?,
                },
                per: list(&self.semi_additive_per),
            }),
            None if uses("semi_additive") && !list(&self.semi_additive_per).is_empty() => {
                return Err(MetricFormError::Field(
                    "semi_additive",
                    "name the time attribute the level is recorded at, or leave \"per\" empty"
                        .to_owned(),
                ));
            }
            None => None,
        };
        Ok(Metric {
            name: self.name.trim().to_owned(),
            label: self.label.trim().to_owned(),
            object: self.object.trim().to_owned(),
            aggregate,
            kind,
            numerator: text("numerator", &self.numerator),
            denominator: text("denominator", &self.denominator),
            of: text("of", &self.of),
            period: grain(&self.period)?.filter(|_| uses("period")),
            to_date: grain(&self.to_date)?.filter(|_| uses("to_date")),
            window,
            semi_additive,
            expr: text("expr", &self.expr),
            filters: self
                .filters
                .lines()
                .map(str::trim)
                .filter(|f| uses("filters") && !f.is_empty())
                .map(str::to_owned)
                .collect(),
            description: self.description.trim().to_owned(),
            synonyms: tidy_synonyms(self.synonyms.split(',').map(str::to_owned)),
            ..Metric::default()
        })
    }
}

/// Adds a business rule to the draft; see [`add_to_draft`].
#[server(endpoint = "add_rule")]
pub async fn add_rule(
    project_id: String,
    name: String,
    #[server(default)] text: String,
    #[server(default)] synonyms: String,
) -> Result<Vec<(String, String)>, AppError> {
    use cassis_core::ontology::{BusinessRule, tidy_synonyms};
    add_to_draft(&project_id, "rule", &name.clone(), move |ontology| {
        let name = name.trim().to_owned();
        let index = ontology.rules.len();
        ontology.rules.push(BusinessRule {
            name: name.clone(),
            text: text.trim().to_owned(),
            synonyms: tidy_synonyms(synonyms.split(',').map(str::to_owned)),
        });
        Ok((format!("rules.{name}"), format!("rules[{index}]")))
    })
    .await
}

/// Adds a verified question with its approved SQL; see [`add_to_draft`].
#[server(endpoint = "add_verified_question")]
pub async fn add_verified_question(
    project_id: String,
    question: String,
    #[server(default)] sql: String,
    #[server(default)] description: String,
) -> Result<Vec<(String, String)>, AppError> {
    use cassis_core::ontology::VerifiedQuestion;
    add_to_draft(
        &project_id,
        "verified question",
        &question.clone(),
        move |ontology| {
            let index = ontology.verified_questions.len();
            ontology.verified_questions.push(VerifiedQuestion {
                question: question.trim().to_owned(),
                sql: sql.trim().to_owned(),
                description: description.trim().to_owned(),
            });
            let path = format!("verified_questions[{index}]");
            Ok((path.clone(), path))
        },
    )
    .await
}

/// Sets the label and description (a rule's text) of one element.
#[server(endpoint = "update_element")]
pub async fn update_element(
    project_id: String,
    element: String,
    #[server(default)] label: String,
    #[server(default)] description: String,
) -> Result<(), AppError> {
    use cassis_core::ontology::Element;
    let reason = format!("edited {element}");
    edit_draft(&project_id, &reason, move |ontology| {
        let missing =
            || crate::ssr::respond_with(AppError::NotFound("element of the draft".to_owned()));
        let element = Element::parse(&element).ok_or_else(missing)?;
        if matches!(element, Element::Rule(_)) && description.trim().is_empty() {
            return Err(crate::ssr::respond_with(AppError::Invalid(
                "A business rule needs its text.".to_owned(),
            )));
        }
        let (current_label, current_description) =
            ontology.texts_mut(&element).ok_or_else(missing)?;
        if let Some(current_label) = current_label {
            *current_label = label.trim().to_owned();
        }
        *current_description = description.trim().to_owned();
        Ok(())
    })
    .await
}

/// Removes one element from the draft.
#[server(endpoint = "remove_element")]
pub async fn remove_element(project_id: String, element: String) -> Result<(), AppError> {
    use cassis_core::ontology::Element;
    let reason = format!("removed {element}");
    edit_draft(&project_id, &reason, move |ontology| {
        let missing =
            || crate::ssr::respond_with(AppError::NotFound("element of the draft".to_owned()));
        let element = Element::parse(&element).ok_or_else(missing)?;
        if ontology.remove(&element) {
            Ok(())
        } else {
            Err(missing())
        }
    })
    .await
}

/// The replaced drafts the history keeps, newest first. Whoever may read the
/// draft may read what it was.
#[server(endpoint = "draft_history")]
pub async fn draft_history(project_id: String) -> Result<Vec<DraftHistoryRow>, AppError> {
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let history = crate::ssr::context()?
        .store
        .draft_history(project.id)
        .await?;
    Ok(history
        .into_iter()
        .map(|h| DraftHistoryRow {
            revision: h.revision,
            saved_by: h.saved_by_email.unwrap_or_else(|| "someone".to_owned()),
            saved_at: h.saved_at.to_utc_minutes(),
            reason: h.reason,
        })
        .collect())
}

/// Makes a revision from the history the draft again; returns the new
/// revision. Changing the draft, it needs an editor like saving does.
#[server(endpoint = "restore_draft")]
pub async fn restore_draft(project_id: String, revision: u64) -> Result<u64, AppError> {
    use cassis_core::service::drafts::{self, RestoreError};
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let store = crate::ssr::context()?.store;
    match drafts::restore(&store, project.id, revision, user.id, crate::ssr::now()).await {
        Ok(saved) => {
            tracing::info!(user = %user.id, project = %project.id, revision, saved, "restored a draft");
            Ok(saved)
        }
        Err(RestoreError::NoSuchRevision(_)) => Err(crate::ssr::respond_with(AppError::NotFound(
            format!("revision {revision} in the draft history"),
        ))),
        Err(RestoreError::Store(error)) => Err(error.into()),
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use cassis_core::ontology::{Ontology, SemiAdditive, Take, from_yaml, problems_of_added};
    use cassis_core::project::Dialect;

    /// The form's fields as the browser posts them, read as the server
    /// function reads them, then turned into a metric.
    fn posted(fields: &[(&str, &str)]) -> Result<cassis_core::ontology::Metric, MetricFormError> {
        let mut body = vec!["project_id=p".to_owned()];
        for (field, value) in fields {
            body.push(format!("metric%5B{field}%5D={}", value.replace(' ', "+")));
        }
        let read: AddMetric = crate::api::ontology_form::read_form(&body.join("&")).unwrap();
        read.metric.to_metric()
    }

    const EMPTY: [(&str, &str); 12] = [
        ("name", ""),
        ("label", ""),
        ("object", "snapshot"),
        ("aggregate", "sum"),
        ("expr", ""),
        ("filters", ""),
        ("description", ""),
        ("synonyms", ""),
        ("of", ""),
        ("to_date", ""),
        ("window", ""),
        ("semi_additive_time", ""),
    ];

    fn form(set: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut fields: Vec<(&str, &str)> = EMPTY
            .iter()
            .filter(|(f, _)| !set.iter().any(|(g, _)| g == f))
            .copied()
            .collect();
        fields.extend_from_slice(set);
        fields
    }

    #[test]
    fn a_running_total_sends_its_rolling_window() {
        let rolling = posted(&form(&[
            ("name", "rolling_balance_count"),
            ("kind", "cumulative"),
            ("of", "snapshots"),
            ("window", "3"),
            // Typed before the type was changed: hidden, so not sent on.
            ("semi_additive_time", "snapshot_date"),
        ]))
        .unwrap();
        assert_eq!((rolling.window, rolling.semi_additive), (Some(3), None));
        assert_eq!(
            posted(&form(&[("kind", "cumulative"), ("window", "three")])),
            Err(MetricFormError::Field(
                "window",
                "`three` is not a number of periods: a rolling window spans a whole number of them, such as 3".to_owned()
            ))
        );
    }

    #[test]
    fn a_simple_metric_sends_the_level_it_reads() {
        let closing = posted(&form(&[
            ("name", "closing_balance"),
            ("expr", "balance"),
            ("semi_additive_time", "snapshot_date"),
            ("semi_additive_take", "first"),
            ("semi_additive_per", "account, branch"),
        ]))
        .unwrap();
        assert_eq!(
            closing.semi_additive,
            Some(SemiAdditive {
                time: "snapshot_date".into(),
                take: Take::First,
                per: vec!["account".into(), "branch".into()],
            })
        );
        assert!(matches!(
            posted(&form(&[("semi_additive_per", "account")])),
            Err(MetricFormError::Field("semi_additive", _))
        ));
    }

    /// What validation finds wrong with the new fields comes back under
    /// the field the form shows it by.
    #[test]
    fn problems_with_the_new_fields_are_shown_by_their_field() {
        let before: Ontology = from_yaml(
            r#"
objects:
  - name: snapshot
    table: balances
    attributes:
      - {name: account, type: text}
      - {name: snapshot_date, type: date, role: time}
      - {name: balance, type: decimal, role: measure}
metrics:
  - {name: snapshots, object: snapshot, aggregate: count}
"#,
        )
        .unwrap();
        let added = |metric: cassis_core::ontology::Metric| {
            let mut after = before.clone();
            let path = format!("metrics.{}", metric.name);
            after.metrics.push(metric);
            problems_of_added(&before, &after, Dialect::Postgres, &path, "metrics[1]")
        };
        let short = posted(&form(&[
            ("name", "short"),
            ("kind", "cumulative"),
            ("of", "snapshots"),
            ("window", "1"),
        ]))
        .unwrap();
        assert_eq!(
            added(short),
            [(
                "window".to_owned(),
                "a rolling window spans at least 2 periods".to_owned()
            )]
        );
        let misread = posted(&form(&[
            ("name", "closing"),
            ("expr", "balance"),
            ("semi_additive_time", "account"),
        ]))
        .unwrap();
        let problems = added(misread);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, "semi_additive");
        assert!(
            problems[0].1.contains("not a time attribute"),
            "{problems:?}"
        );
    }
}
