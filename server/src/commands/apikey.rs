//! `cassis apikey`: keys for agents and scripts.

use super::open_store;
use crate::config::Settings;
use crate::{clock, startup};
use anyhow::{Context, bail};
use cassis_core::account::Email;
use cassis_core::auth::{ApiKeySecret, parse_lifetime};
use cassis_core::store::NewApiKey;
use uuid::Uuid;

/// Creates a key acting for `user` and prints it: the only time it is shown.
pub async fn create(
    settings: &Settings,
    user: &str,
    name: &str,
    expires: Option<&str>,
) -> anyhow::Result<()> {
    if name.trim().is_empty() {
        bail!("an API key needs a --name, so its owner can recognise it later");
    }
    let lifetime = expires.map(parse_lifetime).transpose()?;
    let store = open_store(settings).await?;
    let email = Email::parse(user)?;
    let (user, _) = store
        .user_credentials(&email)
        .await?
        .with_context(|| format!("no user {email}"))?;
    if user.disabled_at.is_some() {
        bail!("{email} is disabled");
    }
    let now = clock::now();
    let secret = ApiKeySecret::generate();
    let new = NewApiKey {
        organization_id: user.organization_id,
        user_id: user.id,
        name,
        expires_at: lifetime.map(|l| now.saturating_add(l)),
    };
    let id = store.create_api_key(new, &secret, now).await?;
    eprintln!("created API key {id} for {email}; it is shown only once:");
    println!("{}", secret.expose());
    Ok(())
}

pub async fn list(settings: &Settings) -> anyhow::Result<()> {
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    let keys = store.list_api_keys(org.id).await?;
    if keys.is_empty() {
        println!("no API keys");
    }
    let now = clock::now();
    for key in keys {
        let state = match (key.revoked_at, key.expires_at) {
            (Some(_), _) => "revoked",
            (None, Some(end)) if end <= now => "expired",
            _ => "active",
        };
        let last_used = key.last_used_at.map_or("never used".to_owned(), |t| {
            format!("last used {}", t.as_millis())
        });
        println!(
            "{}\t{}…\t{}\t{}\t{state}\t{last_used}",
            key.id, key.display_prefix, key.name, key.user_email
        );
    }
    Ok(())
}

pub async fn revoke(settings: &Settings, id: &str) -> anyhow::Result<()> {
    let id = Uuid::parse_str(id.trim())
        .with_context(|| format!("`{id}` is not an API key id: `cassis apikey list` shows them"))?;
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    if !store.revoke_api_key(org.id, id, clock::now()).await? {
        bail!("no active API key {id}");
    }
    println!("revoked {id}");
    Ok(())
}
