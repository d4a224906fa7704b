use super::{Store, StoreError, parsed_column, uuid_column};
use crate::account::{Email, Role, User};
use crate::auth::PasswordHash;
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

pub struct NewUser {
    pub organization_id: Uuid,
    pub email: Email,
    pub password_hash: PasswordHash,
    pub role: Role,
}

/// The columns [`user_from_row`] reads; a macro so queries stay `&'static str`.
macro_rules! user_columns {
    () => {
        "id, organization_id, email, role, created_at, disabled_at"
    };
}

impl Store {
    pub async fn create_user(&self, new: NewUser, now: Timestamp) -> Result<User, StoreError> {
        let user = User {
            id: Uuid::new_v4(),
            organization_id: new.organization_id,
            email: new.email,
            role: new.role,
            created_at: now,
            disabled_at: None,
        };
        sqlx::query(
            "INSERT INTO users (id, organization_id, email, password_hash, role, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(user.id.to_string())
        .bind(user.organization_id.to_string())
        .bind(user.email.as_str())
        .bind(new.password_hash.as_phc())
        .bind(user.role.as_str())
        .bind(now.as_millis())
        .execute(&self.pool)
        .await
        .map_err(|e| StoreError::conflict_or(e, "a user with this email"))?;
        Ok(user)
    }

    pub async fn count_users(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM users")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?)
    }

    pub async fn user(&self, id: Uuid) -> Result<Option<User>, StoreError> {
        sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE id = $1"
        ))
        .bind(id.to_string())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| user_from_row(&row))
        .transpose()
    }

    /// The user with this email and their password hash, for signing in.
    pub async fn user_credentials(
        &self,
        email: &Email,
    ) -> Result<Option<(User, PasswordHash)>, StoreError> {
        let Some(row) = sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            ", password_hash FROM users WHERE email = $1"
        ))
        .bind(email.as_str())
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let hash = PasswordHash::from_phc(row.try_get("password_hash")?).map_err(|e| {
            StoreError::Corrupt {
                column: "users.password_hash",
                detail: e.to_string(),
            }
        })?;
        Ok(Some((user_from_row(&row)?, hash)))
    }

    /// The organization's longest-standing enabled admin: who the command
    /// line acts as when no user is named.
    pub async fn first_admin(&self, organization_id: Uuid) -> Result<Option<User>, StoreError> {
        sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE organization_id = $1 AND role = 'admin' AND disabled_at IS NULL \
             ORDER BY created_at, id LIMIT 1"
        ))
        .bind(organization_id.to_string())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| user_from_row(&row))
        .transpose()
    }

    pub async fn list_users(&self, organization_id: Uuid) -> Result<Vec<User>, StoreError> {
        sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE organization_id = $1 ORDER BY email"
        ))
        .bind(organization_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(user_from_row)
        .collect()
    }

    /// Changes a user's role, unless that leaves the organization without an
    /// enabled admin.
    pub async fn set_user_role(
        &self,
        organization_id: Uuid,
        id: Uuid,
        role: crate::account::Role,
    ) -> Result<UserUpdate, StoreError> {
        self.update_user(organization_id, id, UserChange::Role(role))
            .await
    }

    /// Disables a user (`Some(when)`) or enables one again (`None`), unless
    /// that leaves the organization without an enabled admin. A disabled
    /// user's sessions, API keys and OAuth tokens stop working: every check
    /// of them reads this column.
    pub async fn set_user_disabled(
        &self,
        organization_id: Uuid,
        id: Uuid,
        disabled_at: Option<Timestamp>,
    ) -> Result<UserUpdate, StoreError> {
        self.update_user(organization_id, id, UserChange::Disabled(disabled_at))
            .await
    }

    /// Applies `change` in a transaction that first locks the organization's
    /// row, so two admins demoting or disabling each other at once are
    /// serialized and the second sees the first's change.
    async fn update_user(
        &self,
        organization_id: Uuid,
        id: Uuid,
        change: UserChange,
    ) -> Result<UserUpdate, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE organizations SET name = name WHERE id = $1")
            .bind(organization_id.to_string())
            .execute(&mut *tx)
            .await?;
        let removes_an_admin = match change {
            UserChange::Role(role) => role != crate::account::Role::Admin,
            UserChange::Disabled(when) => when.is_some(),
        };
        if removes_an_admin {
            let others: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM users WHERE organization_id = $1 AND id <> $2 \
                 AND role = 'admin' AND disabled_at IS NULL",
            )
            .bind(organization_id.to_string())
            .bind(id.to_string())
            .fetch_one(&mut *tx)
            .await?;
            if others == 0 {
                return Ok(UserUpdate::WouldLeaveNoAdmin);
            }
        }
        let update = match change {
            UserChange::Role(role) => {
                sqlx::query("UPDATE users SET role = $1 WHERE id = $2 AND organization_id = $3")
                    .bind(role.as_str())
            }
            UserChange::Disabled(when) => sqlx::query(
                "UPDATE users SET disabled_at = $1 WHERE id = $2 AND organization_id = $3",
            )
            .bind(when.map(Timestamp::as_millis)),
        };
        let done = update
            .bind(id.to_string())
            .bind(organization_id.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(UserUpdate::NoSuchUser);
        }
        tx.commit().await?;
        Ok(UserUpdate::Done)
    }
}

#[derive(Clone, Copy)]
enum UserChange {
    Role(crate::account::Role),
    Disabled(Option<Timestamp>),
}

/// What became of a change to a user's role or sign-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserUpdate {
    Done,
    /// The organization has no such user.
    NoSuchUser,
    /// The change would leave the organization without an enabled admin.
    WouldLeaveNoAdmin,
}

pub(super) fn user_from_row(row: &AnyRow) -> Result<User, StoreError> {
    let email: String = row.try_get("email")?;
    Ok(User {
        id: uuid_column(row, "id")?,
        organization_id: uuid_column(row, "organization_id")?,
        email: Email::parse(&email).map_err(|e| StoreError::Corrupt {
            column: "users.email",
            detail: e.to_string(),
        })?,
        role: parsed_column::<Role>(row, "role")?,
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
        disabled_at: row
            .try_get::<Option<i64>, _>("disabled_at")?
            .map(Timestamp::from_millis),
    })
}
