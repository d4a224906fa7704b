//! Errors that server functions return to the browser.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

/// What the browser learns when a server function fails. Internal failures
/// are logged on the server and shown only as [`AppError::Internal`], so no
/// database detail or credential reaches a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("Incorrect email or password.")]
    InvalidCredentials,
    #[error("Too many sign-in attempts. Try again in {retry_after_secs} seconds.")]
    TooManyAttempts { retry_after_secs: u64 },
    #[error("Your session has ended. Please sign in again.")]
    Unauthenticated,
    #[error("Only an admin can see this.")]
    Forbidden,
    #[error("Only an editor or an admin can change this.")]
    EditorsOnly,
    #[error("There is no such {0} in your organization.")]
    NotFound(String),
    #[error("Something went wrong on the server. The details are in its log.")]
    Internal,
    /// The metadata database could not be reached (a restart, a network
    /// break); nothing was changed, and trying again shortly is safe.
    #[error("Cassis could not reach its database. Try again in a moment.")]
    Unavailable,
    #[error("The request did not reach the server function: {0}")]
    Transport(String),
    /// The draft was saved by someone else since the page read it; saving
    /// again with `overwrite` replaces their save (kept in the history).
    #[error(
        "The draft was changed by {by} at {at} since you opened it; reload, or save again to overwrite."
    )]
    DraftChanged { by: String, at: String },
    /// Input the user can fix; the message says how.
    #[error("{0}")]
    Invalid(String),
}

impl AppError {
    /// The HTTP status a server function answers with when it fails this way.
    pub fn status_code(&self) -> u16 {
        match self {
            AppError::InvalidCredentials | AppError::Unauthenticated => 401,
            AppError::Forbidden | AppError::EditorsOnly => 403,
            AppError::NotFound(_) => 404,
            AppError::Transport(_) | AppError::Invalid(_) => 400,
            AppError::DraftChanged { .. } => 409,
            AppError::TooManyAttempts { .. } => 429,
            AppError::Internal => 500,
            AppError::Unavailable => 503,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}

#[cfg(feature = "ssr")]
impl From<cassis_core::store::StoreError> for AppError {
    fn from(error: cassis_core::store::StoreError) -> Self {
        use cassis_core::store::StoreError;
        match error {
            // Not a failure: another editor saved first, and the page says who.
            StoreError::StaleDraft(stamp) => crate::ssr::respond_with(AppError::DraftChanged {
                by: stamp.saved_by().to_owned(),
                at: stamp.saved_at.to_utc_minutes(),
            }),
            error if error.is_unreachable() => {
                tracing::error!(%error, "the metadata database is unreachable");
                crate::ssr::respond_with(AppError::Unavailable)
            }
            error => {
                tracing::error!(%error, "metadata store failed");
                AppError::Internal
            }
        }
    }
}

#[cfg(feature = "ssr")]
impl From<cassis_core::service::credentials::SignInError> for AppError {
    fn from(error: cassis_core::service::credentials::SignInError) -> Self {
        match error {
            cassis_core::service::credentials::SignInError::InvalidCredentials => {
                AppError::InvalidCredentials
            }
            cassis_core::service::credentials::SignInError::TooManyAttempts(wait) => {
                AppError::TooManyAttempts {
                    retry_after_secs: wait.retry_after_secs(),
                }
            }
            cassis_core::service::credentials::SignInError::Store(error) => error.into(),
        }
    }
}
