//! `GET /projects/{id}/ontology.yaml[?version=N]`: a project's draft, or one
//! published version, as a YAML file to download. Signed-in users of the
//! project's organization only.

use crate::page_guard::signed_in_user;
use crate::router::AppState;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use cassis_core::ontology::{Ontology, on_ontology_worker, to_yaml};
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize)]
pub struct Which {
    version: Option<u32>,
}

pub async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(which): Query<Which>,
    headers: HeaderMap,
) -> Response {
    match export(&state, &id, which.version, &headers).await {
        Ok(Some((name, yaml))) => (
            [
                (CONTENT_TYPE, "application/yaml; charset=utf-8".to_owned()),
                (
                    CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{name}\""),
                ),
                (CACHE_CONTROL, "no-store".to_owned()),
            ],
            yaml,
        )
            .into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "no such project or version").into_response(),
        Err(Refused::SignedOut) => (StatusCode::UNAUTHORIZED, "sign in first").into_response(),
        Err(Refused::Store(error)) => {
            crate::error::ApiError::unavailable("exporting an ontology", error).into_response()
        }
    }
}

enum Refused {
    SignedOut,
    Store(cassis_core::store::StoreError),
}

impl From<cassis_core::store::StoreError> for Refused {
    fn from(error: cassis_core::store::StoreError) -> Self {
        Refused::Store(error)
    }
}

/// The file name and the YAML, or `None` when there is nothing to export.
async fn export(
    state: &AppState,
    id: &str,
    version: Option<u32>,
    headers: &HeaderMap,
) -> Result<Option<(String, String)>, Refused> {
    let user = signed_in_user(state, headers)
        .await?
        .ok_or(Refused::SignedOut)?;
    let Ok(id) = Uuid::parse_str(id) else {
        return Ok(None);
    };
    let store = state.store();
    let Some(project) = store.accessible_project(&user, id).await? else {
        return Ok(None);
    };
    let (ontology, suffix) = match version {
        Some(number) => match store.version(project.id, number).await? {
            Some(published) => (published.ontology, format!("v{number}")),
            None => return Ok(None),
        },
        None => (
            store
                .draft(project.id)
                .await?
                .map_or_else(Ontology::default, |d| d.ontology),
            "draft".to_owned(),
        ),
    };
    let slug: String = project
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    // Writing out a draft of megabytes is ontology worker work.
    let yaml = on_ontology_worker(move || to_yaml(&ontology)).await;
    Ok(Some((format!("{slug}-{suffix}.yaml"), yaml)))
}
