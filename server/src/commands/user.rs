use super::open_store;
use crate::config::Settings;
use crate::{clock, startup};
use anyhow::{Context, bail};
use cassis_core::account::{Email, Role};
use cassis_core::auth::Password;
use cassis_core::store::{NewUser, StoreError};
use std::io::BufRead;

/// Creates a user; the password is the first line of standard input, so it
/// never appears in the shell history or the process list.
pub async fn create(settings: &Settings, email: &str, role: Role) -> anyhow::Result<()> {
    let email = Email::parse(email)?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']);
    if password.is_empty() {
        bail!(
            "no password on standard input: pipe one in, e.g. `printf '%s' \"$PASSWORD\" | cassis user create ...`"
        );
    }
    let password_hash = Password::new(password)?.hash()?;

    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    let new = NewUser {
        organization_id: org.id,
        email,
        password_hash,
        role,
    };
    match store.create_user(new, clock::now()).await {
        Ok(user) => {
            println!("created {} ({}) {}", user.email, user.role, user.id);
            Ok(())
        }
        Err(StoreError::Conflict(what)) => bail!("{what} already exists"),
        Err(e) => Err(e.into()),
    }
}

pub async fn list(settings: &Settings) -> anyhow::Result<()> {
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    for user in store.list_users(org.id).await? {
        let status = if user.disabled_at.is_some() {
            "disabled"
        } else {
            "active"
        };
        println!("{}\t{}\t{}", user.email, user.role, status);
    }
    Ok(())
}
