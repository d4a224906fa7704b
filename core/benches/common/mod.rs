//! Set-up the benchmarks share.

use cassis_core::account::{Email, Role, User};
use cassis_core::auth::Password;
use cassis_core::store::{NewUser, Store};
use cassis_core::time::Timestamp;
use std::path::Path;

/// A migrated SQLite store in `dir` with one organization and its admin.
pub async fn store_with_admin(dir: &Path, now: Timestamp) -> (Store, User) {
    let store = Store::connect(&format!("sqlite://{}", dir.join("meta.sqlite").display()))
        .await
        .expect("the store opens");
    store.migrate().await.expect("the schema applies");
    let org = store.create_organization("Bench", now).await.unwrap();
    let user = store
        .create_user(
            NewUser {
                organization_id: org.id,
                email: Email::parse("bench@example.com").unwrap(),
                password_hash: Password::new("bench password").unwrap().hash().unwrap(),
                role: Role::Admin,
            },
            now,
        )
        .await
        .unwrap();
    (store, user)
}
