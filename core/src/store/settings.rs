use super::{Store, StoreError};
use sqlx::Row;

/// A one-off fact about this installation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceFlag {
    /// The demo project was created once; deleting it must not bring it back.
    DemoProjectCreated,
}

impl InstanceFlag {
    fn key(self) -> &'static str {
        match self {
            InstanceFlag::DemoProjectCreated => "demo_project_created",
        }
    }
}

impl Store {
    pub async fn flag_is_set(&self, flag: InstanceFlag) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT value FROM instance_settings WHERE key = $1")
            .bind(flag.key())
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get::<String, _>("value")? == "true",
            None => false,
        })
    }

    pub async fn set_flag(&self, flag: InstanceFlag) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO instance_settings (key, value) VALUES ($1, 'true') \
             ON CONFLICT (key) DO UPDATE SET value = 'true'",
        )
        .bind(flag.key())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
