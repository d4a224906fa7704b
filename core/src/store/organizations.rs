use super::{Store, StoreError, uuid_column};
use crate::account::Organization;
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

impl Store {
    pub async fn create_organization(
        &self,
        name: &str,
        now: Timestamp,
    ) -> Result<Organization, StoreError> {
        let organization = Organization {
            id: Uuid::new_v4(),
            name: name.to_owned(),
            created_at: now,
        };
        sqlx::query("INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)")
            .bind(organization.id.to_string())
            .bind(&organization.name)
            .bind(now.as_millis())
            .execute(&self.pool)
            .await?;
        Ok(organization)
    }

    /// The oldest organization: the one a single-tenant installation uses.
    pub async fn first_organization(&self) -> Result<Option<Organization>, StoreError> {
        sqlx::query(
            "SELECT id, name, created_at FROM organizations ORDER BY created_at, id LIMIT 1",
        )
        .fetch_optional(&self.pool)
        .await?
        .map(|row| organization_from_row(&row))
        .transpose()
    }
}

fn organization_from_row(row: &AnyRow) -> Result<Organization, StoreError> {
    Ok(Organization {
        id: uuid_column(row, "id")?,
        name: row.try_get("name")?,
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
    })
}
