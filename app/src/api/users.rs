//! Users of the organization: admins list them, add them with a role and a
//! password shown once, change roles, and disable or enable them.

use crate::error::AppError;
use cassis_core::account::Role;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRow {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub disabled: bool,
    /// The admin looking at the list: they cannot demote or disable themselves.
    pub is_you: bool,
}

/// A user just added, with the password to hand over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedUser {
    pub email: String,
    pub password: String,
}

/// Every user of the caller's organization; admins only.
#[server(endpoint = "list_users")]
pub async fn list_users() -> Result<Vec<UserRow>, AppError> {
    let admin = crate::ssr::require_admin().await?;
    let users = crate::ssr::context()?
        .store
        .list_users(admin.organization_id)
        .await?;
    Ok(users
        .into_iter()
        .map(|u| UserRow {
            id: u.id.to_string(),
            is_you: u.id == admin.id,
            email: u.email.to_string(),
            role: u.role,
            disabled: u.disabled_at.is_some(),
        })
        .collect())
}

#[server(endpoint = "add_user")]
pub async fn add_user(email: String, role: String) -> Result<AddedUser, AppError> {
    use cassis_core::account::Email;
    use cassis_core::auth::{Password, generate_password};
    use cassis_core::store::{NewUser, StoreError};
    let admin = crate::ssr::require_admin().await?;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    let email = Email::parse(&email).map_err(|e| invalid(e.to_string()))?;
    let role: Role = role
        .parse()
        .map_err(|e: cassis_core::account::UnknownRole| invalid(e.to_string()))?;
    let password = generate_password();
    let password_hash = Password::new(&password)
        .and_then(|p| p.hash())
        .map_err(|_| AppError::Internal)?;
    let new = NewUser {
        organization_id: admin.organization_id,
        email: email.clone(),
        password_hash,
        role,
    };
    match crate::ssr::context()?
        .store
        .create_user(new, crate::ssr::now())
        .await
    {
        Ok(user) => {
            tracing::info!(admin = %admin.id, user = %user.id, role = %role, "added a user");
            Ok(AddedUser {
                email: email.to_string(),
                password,
            })
        }
        Err(StoreError::Conflict(_)) => Err(invalid(format!("{email} already has an account."))),
        Err(error) => Err(error.into()),
    }
}

#[cfg(feature = "ssr")]
fn other_user(admin: &cassis_core::account::User, id: &str) -> Result<uuid::Uuid, AppError> {
    let id = uuid::Uuid::parse_str(id.trim()).map_err(|_| {
        crate::ssr::respond_with(AppError::Invalid("That is not a user id.".to_owned()))
    })?;
    if id == admin.id {
        return Err(crate::ssr::respond_with(AppError::Invalid(
            "You cannot change your own role or disable yourself; ask another admin.".to_owned(),
        )));
    }
    Ok(id)
}

#[cfg(feature = "ssr")]
fn refuse_unless_done(update: cassis_core::store::UserUpdate) -> Result<(), AppError> {
    use cassis_core::store::UserUpdate;
    match update {
        UserUpdate::Done => Ok(()),
        UserUpdate::NoSuchUser => Err(crate::ssr::respond_with(AppError::NotFound(
            "user".to_owned(),
        ))),
        UserUpdate::WouldLeaveNoAdmin => Err(crate::ssr::respond_with(AppError::Invalid(
            "That would leave the organization without an admin; make someone else an admin first."
                .to_owned(),
        ))),
    }
}

#[server(endpoint = "set_user_role")]
pub async fn set_user_role(id: String, role: String) -> Result<(), AppError> {
    let admin = crate::ssr::require_admin().await?;
    let id = other_user(&admin, &id)?;
    let role: Role = role
        .parse()
        .map_err(|e: cassis_core::account::UnknownRole| {
            crate::ssr::respond_with(AppError::Invalid(e.to_string()))
        })?;
    let update = crate::ssr::context()?
        .store
        .set_user_role(admin.organization_id, id, role)
        .await?;
    refuse_unless_done(update)?;
    tracing::info!(admin = %admin.id, user = %id, %role, "changed a user's role");
    Ok(())
}

#[server(endpoint = "set_user_disabled")]
pub async fn set_user_disabled(id: String, disabled: bool) -> Result<(), AppError> {
    let admin = crate::ssr::require_admin().await?;
    let id = other_user(&admin, &id)?;
    let when = disabled.then(crate::ssr::now);
    let update = crate::ssr::context()?
        .store
        .set_user_disabled(admin.organization_id, id, when)
        .await?;
    refuse_unless_done(update)?;
    tracing::info!(admin = %admin.id, user = %id, disabled, "changed whether a user may sign in");
    Ok(())
}
