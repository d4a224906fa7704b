//! What the server makes sure of before it listens: the organization, the
//! first admin, and the demo project.

use crate::clock;
use anyhow::Context;
use cassis_core::account::{Email, Organization, Role};
use cassis_core::auth::Password;
use cassis_core::demo;
use cassis_core::engine::Engine;
use cassis_core::ontology;
use cassis_core::project::{DataSource, Dialect, Project, ProjectName};
use cassis_core::service::Services;
use cassis_core::service::publishing::RegressionPolicy;
use cassis_core::store::{DraftBase, InstanceFlag, NewUser, Store};
use std::path::Path;
use std::time::Instant;

pub const DEFAULT_ADMIN_EMAIL: &str = "admin@cassis.local";
pub const DEMO_PROJECT_NAME: &str = "Wholesale";

/// The organization of this installation, created on first use.
pub async fn organization(store: &Store) -> anyhow::Result<Organization> {
    if let Some(org) = store.first_organization().await? {
        return Ok(org);
    }
    Ok(store.create_organization("Default", clock::now()).await?)
}

/// Who the first admin is and how their password is chosen.
pub struct FirstAdmin {
    pub email: Option<String>,
    pub password: Option<String>,
}

impl FirstAdmin {
    pub fn from_env() -> Self {
        Self {
            email: std::env::var("CASSIS_ADMIN_EMAIL")
                .ok()
                .filter(|s| !s.trim().is_empty()),
            password: std::env::var("CASSIS_ADMIN_PASSWORD")
                .ok()
                .filter(|s| !s.is_empty()),
        }
    }
}

/// Creates the first admin when there are no users yet. A generated password
/// is printed once to standard output, never to the log.
pub async fn first_admin(
    store: &Store,
    org: &Organization,
    admin: FirstAdmin,
) -> anyhow::Result<()> {
    if store.count_users().await? > 0 {
        return Ok(());
    }
    let email = Email::parse(admin.email.as_deref().unwrap_or(DEFAULT_ADMIN_EMAIL))
        .context("CASSIS_ADMIN_EMAIL")?;
    let (password, generated) = match admin.password {
        Some(password) => (password, false),
        None => (cassis_core::auth::generate_password(), true),
    };
    let password_hash = Password::new(&password)
        .context("CASSIS_ADMIN_PASSWORD")?
        .hash()?;
    let new = NewUser {
        organization_id: org.id,
        email: email.clone(),
        password_hash,
        role: Role::Admin,
    };
    store.create_user(new, clock::now()).await?;
    tracing::info!(%email, "created the first admin");
    if generated {
        println!(
            "\n  First admin created. Sign in with:\n    email:    {email}\n    password: {password}\n  \
             This password is shown only once.\n"
        );
    }
    Ok(())
}

/// Makes the embedded Wholesale ontology the demo project's draft and version 1.
async fn publish_demo_ontology(
    store: &Store,
    org: &Organization,
    project: &Project,
) -> anyhow::Result<()> {
    let ontology =
        ontology::from_yaml(demo::WHOLESALE_ONTOLOGY).context("the embedded demo ontology")?;
    let admin = store
        .first_admin(org.id)
        .await?
        .context("no admin to publish the demo ontology")?;
    store
        .save_draft(
            project.id,
            &ontology,
            DraftBase::Current,
            admin.id,
            "the demo ontology",
            clock::now(),
        )
        .await?;
    // The first version of a new project: there is nothing to regress from.
    let engine = Engine::new(store.clone(), Default::default());
    let version = Services::new(store.clone(), engine)
        .publish(
            &admin,
            project,
            &ontology,
            "Demo ontology",
            RegressionPolicy::Force,
            clock::now(),
        )
        .await?;
    tracing::info!(version, "published the demo ontology");
    Ok(())
}

/// Creates the demo project with its generated warehouse, once per
/// installation: deleting it later does not bring it back.
pub async fn demo_project(
    store: &Store,
    org: &Organization,
    warehouse_dir: &Path,
    scale_factor: f64,
) -> anyhow::Result<()> {
    if store.flag_is_set(InstanceFlag::DemoProjectCreated).await? {
        return Ok(());
    }
    let warehouse_dir =
        std::path::absolute(warehouse_dir).context("resolving the warehouse folder")?;
    let path = warehouse_dir.join("wholesale.sqlite");
    if !path.exists() {
        tracing::info!(scale_factor, path = %path.display(), "generating the demo TPC-H warehouse");
        let started = Instant::now();
        let mut progress =
            |table: &str, rows: u64| tracing::info!(table, rows, "demo warehouse: table written");
        demo::generate_warehouse(&path, scale_factor, &mut progress).await?;
        // Generation used hundreds of megabytes the server never needs again.
        crate::return_freed_memory();
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "demo warehouse ready"
        );
    }
    let source = DataSource {
        dialect: Dialect::Sqlite,
        connection_url: Some(demo::warehouse_url(&path)),
    };
    let name = ProjectName::parse(DEMO_PROJECT_NAME)?;
    let description =
        "Demo: a wholesale supplier's customers, orders, line items, parts and suppliers (TPC-H).";
    match store
        .create_project(org.id, &name, description, Some(source), clock::now())
        .await
    {
        Ok(project) => {
            tracing::info!(project = %project.id, "created the demo project");
            publish_demo_ontology(store, org, &project).await?;
        }
        // A project of that name already exists: keep it rather than fail start-up.
        Err(cassis_core::store::StoreError::Conflict(_)) => {
            tracing::warn!(
                "a project named {DEMO_PROJECT_NAME} already exists; not creating the demo project"
            )
        }
        Err(e) => return Err(e.into()),
    }
    store.set_flag(InstanceFlag::DemoProjectCreated).await?;
    Ok(())
}

/// Where a generated signing key secret is kept, in the data directory.
pub const SIGNING_KEY_SECRET_FILE: &str = "signing-key.secret";

/// The key the OAuth signing keys are sealed with in the database: from
/// `CASSIS_SIGNING_KEY_SECRET` when it is set (the same on every instance
/// sharing a database), otherwise from the data directory's key file, made
/// on first start and readable by the server's user only.
pub fn sealing_key(data_dir: &Path) -> anyhow::Result<cassis_core::auth::oauth::SealingKey> {
    use cassis_core::auth::oauth::SealingKey;
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if let Some(secret) = std::env::var("CASSIS_SIGNING_KEY_SECRET")
        .ok()
        .filter(|s| !s.trim().is_empty())
    {
        return SealingKey::from_secret(&secret).context("CASSIS_SIGNING_KEY_SECRET");
    }
    let path = data_dir.join(SIGNING_KEY_SECRET_FILE);
    match std::fs::metadata(&path) {
        Ok(metadata) => {
            let mode = metadata.permissions().mode();
            if mode & 0o077 != 0 {
                anyhow::bail!(
                    "{} can be read by other users (mode {:o}): it unseals the OAuth signing keys; run chmod 600 on it",
                    path.display(),
                    mode & 0o777
                );
            }
            let secret = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            SealingKey::from_secret(&secret).with_context(|| path.display().to_string())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(data_dir)
                .with_context(|| format!("creating {}", data_dir.display()))?;
            let secret = SealingKey::generate_secret();
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("creating {}", path.display()))?;
            writeln!(file, "{secret}").with_context(|| format!("writing {}", path.display()))?;
            tracing::info!(path = %path.display(), "generated the secret that seals the OAuth signing keys; back it up apart from the database");
            Ok(SealingKey::from_secret(&secret).expect("a generated secret is long enough"))
        }
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}
