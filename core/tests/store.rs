//! The store's behaviour, run against every backend: SQLite always, and
//! PostgreSQL when `CASSIS_TEST_PG_URL` names a server whose user may create
//! databases (`scripts/test` starts one). Each test gets a fresh database.

use cassis_core::account::{Email, Role};
use cassis_core::auth::Password;
use cassis_core::engine::{Engine, EngineSettings};
use cassis_core::ontology::{Object, Ontology};
use cassis_core::project::{DataSource, Dialect, ProjectAccess, ProjectName};
use cassis_core::service::Services;
use cassis_core::service::credentials::{self, SignInError};
use cassis_core::service::drafts::{self, RestoreError};
use cassis_core::service::publishing::{PublishError, RegressionPolicy};
use cassis_core::store::{
    Backend, DRAFT_HISTORY_KEPT, DraftBase, InstanceFlag, NewUser, Store, StoreError, UserUpdate,
};
use cassis_core::time::Timestamp;
use sqlx::{AnyConnection, AssertSqlSafe, Connection, PgConnection};
use std::time::Duration;
use uuid::Uuid;

const NOW: Timestamp = Timestamp::from_millis(1_790_000_000_000);

/// A fresh, migrated store on one backend; dropped databases are left to the
/// throwaway server.
struct TestStore {
    store: Store,
    url: String,
    _dir: Option<tempfile::TempDir>,
}

async fn sqlite() -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("meta.sqlite").display());
    let store = Store::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    TestStore {
        store,
        url,
        _dir: Some(dir),
    }
}

async fn postgres() -> Option<TestStore> {
    let Ok(admin_url) = std::env::var("CASSIS_TEST_PG_URL") else {
        assert!(
            std::env::var_os("CASSIS_TEST_PG_REQUIRED").is_none(),
            "CASSIS_TEST_PG_REQUIRED is set but CASSIS_TEST_PG_URL is not"
        );
        eprintln!("CASSIS_TEST_PG_URL is not set: skipping the PostgreSQL backend");
        return None;
    };
    let mut admin = PgConnection::connect(&admin_url)
        .await
        .expect("CASSIS_TEST_PG_URL is reachable");
    let name = format!("cassis_test_{}", Uuid::new_v4().simple());
    // The name is ours (a UUID), not input: safe to splice.
    sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.unwrap();
    let (base, _) = admin_url
        .rsplit_once('/')
        .expect("CASSIS_TEST_PG_URL ends in /DATABASE");
    let url = format!("{base}/{name}");
    let store = Store::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    Some(TestStore {
        store,
        url,
        _dir: None,
    })
}

/// Runs one async test body against each backend.
macro_rules! on_every_backend {
    ($(async fn $name:ident($store:ident: &Store) $body:block)*) => {$(
        #[tokio::test]
        async fn $name() {
            async fn body($store: &Store) $body
            let sqlite = sqlite().await;
            assert_eq!(sqlite.store.backend(), Backend::Sqlite);
            body(&sqlite.store).await;
            if let Some(pg) = postgres().await {
                assert_eq!(pg.store.backend(), Backend::Postgres);
                body(&pg.store).await;
            }
        }
    )*};
}

async fn user(
    store: &Store,
    email: &str,
    password: &str,
    role: Role,
) -> cassis_core::account::User {
    let org = match store.first_organization().await.unwrap() {
        Some(org) => org,
        None => store.create_organization("Acme", NOW).await.unwrap(),
    };
    let new = NewUser {
        organization_id: org.id,
        email: Email::parse(email).unwrap(),
        password_hash: Password::new(password).unwrap().hash().unwrap(),
        role,
    };
    store.create_user(new, NOW).await.unwrap()
}

on_every_backend! {
    async fn migrating_twice_is_a_no_op(store: &Store) {
        store.migrate().await.unwrap();
        store.ping().await.unwrap();
        assert_eq!(store.count_users().await.unwrap(), 0);
    }

    async fn the_first_organization_is_the_oldest(store: &Store) {
        assert!(store.first_organization().await.unwrap().is_none());
        let first = store.create_organization("First", NOW).await.unwrap();
        store.create_organization("Second", Timestamp::from_millis(NOW.as_millis() + 1)).await.unwrap();
        assert_eq!(store.first_organization().await.unwrap(), Some(first));
    }

    async fn users_round_trip_and_emails_are_unique_whatever_the_case(store: &Store) {
        let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
        assert_eq!(store.user(ada.id).await.unwrap(), Some(ada.clone()));
        assert_eq!(store.count_users().await.unwrap(), 1);

        let again = NewUser {
            organization_id: ada.organization_id,
            email: Email::parse("ADA@example.com").unwrap(),
            password_hash: Password::new("another one").unwrap().hash().unwrap(),
            role: Role::Viewer,
        };
        let err = store.create_user(again, NOW).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err}");
        assert_eq!(err.to_string(), "a user with this email already exists");

        let (found, hash) = store.user_credentials(&Email::parse("Ada@Example.com").unwrap()).await.unwrap().unwrap();
        assert_eq!(found.id, ada.id);
        assert!(hash.verify("analytical engine"));
        assert_eq!(store.list_users(ada.organization_id).await.unwrap(), vec![ada]);
    }

    async fn signing_in_opens_a_session_that_expires_and_can_be_ended(store: &Store) {
        let grace = user(store, "grace@example.com", "compilers rock", Role::Editor).await;

        let wrong = credentials::sign_in(store, &Default::default(), None, "grace@example.com", "compilers suck", NOW).await.unwrap_err();
        assert!(matches!(wrong, SignInError::InvalidCredentials));
        let unknown = credentials::sign_in(store, &Default::default(), None, "nobody@example.com", "compilers rock", NOW).await.unwrap_err();
        assert!(matches!(unknown, SignInError::InvalidCredentials));

        let signed_in = credentials::sign_in(store, &Default::default(), None, " GRACE@example.com", "compilers rock", NOW).await.unwrap();
        assert_eq!(signed_in.user.id, grace.id);
        let token = signed_in.token.expose().to_owned();

        let seen = credentials::session_user(store, &token, NOW).await.unwrap();
        assert_eq!(seen.map(|u| u.id), Some(grace.id));
        assert_eq!(credentials::session_user(store, "forged-token", NOW).await.unwrap(), None);

        let just_before_expiry = Timestamp::from_millis(signed_in.expires_at.as_millis() - 1);
        assert!(credentials::session_user(store, &token, just_before_expiry).await.unwrap().is_some());
        assert!(credentials::session_user(store, &token, signed_in.expires_at).await.unwrap().is_none());
        assert_eq!(store.delete_expired_sessions(signed_in.expires_at).await.unwrap(), 1);

        let second = credentials::sign_in(store, &Default::default(), None, "grace@example.com", "compilers rock", NOW).await.unwrap();
        credentials::sign_out(store, second.token.expose()).await.unwrap();
        assert!(credentials::session_user(store, second.token.expose(), NOW).await.unwrap().is_none());
        // Ending a session twice is harmless.
        credentials::sign_out(store, second.token.expose()).await.unwrap();
    }

    async fn projects_keep_their_data_source_and_names_are_unique_per_organization(store: &Store) {
        let org = store.create_organization("Acme", NOW).await.unwrap();
        let other = store.create_organization("Other", NOW).await.unwrap();
        let source = DataSource { dialect: Dialect::Sqlite, connection_url: Some("sqlite:///tmp/w.sqlite?mode=ro".into()) };
        let name = ProjectName::parse("Wholesale").unwrap();
        let wholesale = store.create_project(org.id, &name, " TPC-H ", Some(source.clone()), NOW).await.unwrap();
        assert_eq!(wholesale.description, "TPC-H");
        let schema_only = store
            .create_project(org.id, &ProjectName::parse("Analytics").unwrap(), "", Some(DataSource { dialect: Dialect::Snowflake, connection_url: None }), NOW)
            .await
            .unwrap();
        let bare = store.create_project(org.id, &ProjectName::parse("Bare").unwrap(), "", None, NOW).await.unwrap();

        let err = store.create_project(org.id, &name, "", None, NOW).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err}");
        // The failed insert left nothing behind, and another organization may reuse the name.
        assert_eq!(store.list_projects(org.id).await.unwrap(), vec![schema_only.clone(), bare, wholesale.clone()]);
        store.create_project(other.id, &name, "", None, NOW).await.unwrap();

        assert_eq!(store.project(org.id, wholesale.id).await.unwrap(), Some(wholesale.clone()));
        assert_eq!(store.project(other.id, wholesale.id).await.unwrap(), None, "projects never leak across organizations");
        assert!(!schema_only.data_source.unwrap().is_executable());
    }

    async fn instance_flags_start_unset_and_stay_set(store: &Store) {
        assert!(!store.flag_is_set(InstanceFlag::DemoProjectCreated).await.unwrap());
        store.set_flag(InstanceFlag::DemoProjectCreated).await.unwrap();
        store.set_flag(InstanceFlag::DemoProjectCreated).await.unwrap();
        assert!(store.flag_is_set(InstanceFlag::DemoProjectCreated).await.unwrap());
    }

    async fn two_admins_demoting_each_other_at_once_leave_one_admin(store: &Store) {
        let ada = user(store, "ada@example.com", "a long password", Role::Admin).await;
        let bob = user(store, "bob@example.com", "a long password", Role::Admin).await;
        let org = ada.organization_id;
        for round in 0..10 {
            // Demote each other (even rounds) or disable each other (odd ones) at once.
            let (a, b) = if round % 2 == 0 {
                tokio::join!(
                    store.set_user_role(org, bob.id, Role::Viewer),
                    store.set_user_role(org, ada.id, Role::Editor),
                )
            } else {
                tokio::join!(
                    store.set_user_disabled(org, bob.id, Some(NOW)),
                    store.set_user_disabled(org, ada.id, Some(NOW)),
                )
            };
            let outcomes = [a.unwrap(), b.unwrap()];
            assert!(outcomes.contains(&UserUpdate::Done), "{outcomes:?}");
            assert!(outcomes.contains(&UserUpdate::WouldLeaveNoAdmin), "{outcomes:?}");
            let admins = store
                .list_users(org)
                .await
                .unwrap()
                .into_iter()
                .filter(|u| u.role == Role::Admin && u.disabled_at.is_none())
                .count();
            assert_eq!(admins, 1, "round {round}");
            // Both admins again for the next round.
            for id in [ada.id, bob.id] {
                store.set_user_role(org, id, Role::Admin).await.unwrap();
                store.set_user_disabled(org, id, None).await.unwrap();
            }
        }
        assert_eq!(
            store.set_user_role(org, Uuid::new_v4(), Role::Viewer).await.unwrap(),
            UserUpdate::NoSuchUser
        );
    }

    async fn concurrent_sign_ins_each_get_their_own_session(store: &Store) {
        user(store, "linus@example.com", "many eyes make", Role::Viewer).await;
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let now = NOW.saturating_add(Duration::from_millis(i));
                    credentials::sign_in(&store, &Default::default(), None, "linus@example.com", "many eyes make", now).await.unwrap().token.expose().to_owned()
                })
            })
            .collect();
        let mut tokens = Vec::new();
        for task in tasks {
            tokens.push(task.await.unwrap());
        }
        tokens.sort();
        tokens.dedup();
        assert_eq!(tokens.len(), 8);
        for token in &tokens {
            assert!(credentials::session_user(store, token, NOW).await.unwrap().is_some());
        }
    }
}

/// Every backend this run can reach.
async fn backends() -> Vec<TestStore> {
    let mut all = vec![sqlite().await];
    all.extend(postgres().await);
    all
}

fn ontology_with(objects: &[&str]) -> Ontology {
    Ontology {
        objects: objects
            .iter()
            .map(|name| Object {
                name: (*name).into(),
                table: format!("public.{name}s"),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The use cases on `store`, with the built-in planner.
fn services(store: &Store) -> Services {
    Services::new(
        store.clone(),
        Engine::new(store.clone(), EngineSettings::default()),
    )
}

async fn project_and_editor(
    store: &Store,
) -> (cassis_core::project::Project, cassis_core::account::User) {
    let editor = user(store, "editor@example.com", "ontologies!", Role::Editor).await;
    let source = DataSource {
        dialect: Dialect::Postgres,
        connection_url: None,
    };
    let project = store
        .create_project(
            editor.organization_id,
            &ProjectName::parse("F1").unwrap(),
            "",
            Some(source),
            NOW,
        )
        .await
        .unwrap();
    (project, editor)
}

on_every_backend! {
    async fn drafts_are_edited_freely_and_versions_count_up(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        assert!(store.draft(project.id).await.unwrap().is_none());
        assert_eq!(
            services(store).publish_draft(&editor, &project, "", RegressionPolicy::Refuse, NOW).await.unwrap_err().to_string(),
            "the project has no draft to publish"
        );

        store.save_draft(project.id, &ontology_with(&["driver"]), DraftBase::Current, editor.id, "saved", NOW).await.unwrap();
        store.save_draft(project.id, &ontology_with(&["driver", "race"]), DraftBase::Current, editor.id, "saved", NOW).await.unwrap();
        let draft = store.draft(project.id).await.unwrap().unwrap();
        assert_eq!(draft.ontology, ontology_with(&["driver", "race"]));
        assert_eq!(draft.updated_by, Some(editor.id));

        assert_eq!(services(store).publish_draft(&editor, &project, " first ", RegressionPolicy::Refuse, NOW).await.unwrap(), 1);
        store.save_draft(project.id, &ontology_with(&["driver", "race", "circuit"]), DraftBase::Current, editor.id, "saved", NOW).await.unwrap();
        assert_eq!(services(store).publish_draft(&editor, &project, "second", RegressionPolicy::Refuse, NOW).await.unwrap(), 2);

        let versions = store.list_versions(project.id).await.unwrap();
        assert_eq!(versions.iter().map(|v| v.number).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(versions[1].note, "first");
        assert_eq!(versions[1].published_by_email, "editor@example.com");
        assert_eq!(store.version(project.id, 1).await.unwrap().unwrap().ontology, ontology_with(&["driver", "race"]));
        assert_eq!(store.latest_version_number(project.id).await.unwrap(), Some(2));
        assert!(store.version(project.id, 3).await.unwrap().is_none());
    }

    async fn an_invalid_draft_is_never_published(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        store.save_draft(project.id, &ontology_with(&["Bad Name"]), DraftBase::Current, editor.id, "saved", NOW).await.unwrap();
        match services(store).publish_draft(&editor, &project, "", RegressionPolicy::Refuse, NOW).await {
            Err(PublishError::Invalid(problems)) => assert_eq!(problems[0].path, "objects.Bad Name.name"),
            other => panic!("expected problems, got {other:?}"),
        }
        assert_eq!(store.latest_version_number(project.id).await.unwrap(), None);
    }

    async fn a_project_is_renamed_reconnected_and_deleted_with_what_it_owns(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let other_org = store.create_organization("Elsewhere", NOW).await.unwrap();
        let connected = DataSource {
            dialect: Dialect::Sqlite,
            connection_url: Some("sqlite:///data/f1.sqlite".to_owned()),
        };
        let renamed = ProjectName::parse("Formula 1").unwrap();
        // Another organization cannot touch it.
        assert!(!store.update_project(other_org.id, project.id, &renamed, "", &connected, NOW).await.unwrap());
        assert!(!store.delete_project(other_org.id, project.id).await.unwrap());
        assert!(store.update_project(editor.organization_id, project.id, &renamed, " Races ", &connected, NOW).await.unwrap());
        let stored = store.project(editor.organization_id, project.id).await.unwrap().unwrap();
        assert_eq!((stored.name.as_str(), stored.description.as_str()), ("Formula 1", "Races"));
        assert_eq!(stored.data_source, Some(connected.clone()));

        // Names stay unique within the organization.
        let second = store
            .create_project(editor.organization_id, &ProjectName::parse("Second").unwrap(), "", None, NOW)
            .await
            .unwrap();
        assert!(matches!(
            store.update_project(editor.organization_id, second.id, &renamed, "", &connected, NOW).await,
            Err(StoreError::Conflict(_))
        ));

        // Deleting takes the draft and the (otherwise immutable) versions along.
        store.save_draft(project.id, &ontology_with(&["driver"]), DraftBase::Current, editor.id, "saved", NOW).await.unwrap();
        services(store).publish_draft(&editor, &project, "", RegressionPolicy::Refuse, NOW).await.unwrap();
        assert!(store.delete_project(editor.organization_id, project.id).await.unwrap());
        assert!(store.project(editor.organization_id, project.id).await.unwrap().is_none());
        assert!(store.draft(project.id).await.unwrap().is_none());
        assert!(store.list_versions(project.id).await.unwrap().is_empty());
        assert!(!store.delete_project(editor.organization_id, project.id).await.unwrap());
        assert!(store.project(editor.organization_id, second.id).await.unwrap().is_some());
    }

    async fn a_members_only_project_is_hidden_from_everyone_else(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let admin = user(store, "admin@example.com", "admin password", Role::Admin).await;
        let viewer = user(store, "viewer@example.com", "viewer password", Role::Viewer).await;
        let names = |projects: Vec<cassis_core::project::Project>| projects.into_iter().map(|p| p.name).collect::<Vec<_>>();
        assert_eq!(names(store.accessible_projects(&viewer).await.unwrap()), ["F1"]);

        assert!(store.set_project_access(editor.organization_id, project.id, ProjectAccess::Members).await.unwrap());
        store.set_project_members(&project, &[editor.id], NOW).await.unwrap();
        assert_eq!(store.project_members(project.id).await.unwrap(), [editor.id]);
        assert_eq!(store.project(editor.organization_id, project.id).await.unwrap().unwrap().access, ProjectAccess::Members);
        assert_eq!(names(store.accessible_projects(&editor).await.unwrap()), ["F1"]);
        assert_eq!(names(store.accessible_projects(&admin).await.unwrap()), ["F1"]);
        assert!(store.accessible_projects(&viewer).await.unwrap().is_empty());
        assert!(store.accessible_project(&viewer, project.id).await.unwrap().is_none());
        assert!(store.accessible_project(&editor, project.id).await.unwrap().is_some());
        assert!(store.accessible_project(&admin, project.id).await.unwrap().is_some());

        // Membership is replaced as a whole; strangers cannot be listed.
        let other_org = store.create_organization("Elsewhere", NOW).await.unwrap();
        let stranger = store
            .create_user(
                NewUser {
                    organization_id: other_org.id,
                    email: Email::parse("stranger@elsewhere.example").unwrap(),
                    password_hash: Password::new("a stranger's password").unwrap().hash().unwrap(),
                    role: Role::Admin,
                },
                NOW,
            )
            .await
            .unwrap();
        store.set_project_members(&project, &[viewer.id, stranger.id], NOW).await.unwrap();
        assert_eq!(store.project_members(project.id).await.unwrap(), [viewer.id]);
        assert!(store.accessible_project(&viewer, project.id).await.unwrap().is_some());
        assert!(store.accessible_project(&editor, project.id).await.unwrap().is_none());
        assert!(store.accessible_project(&stranger, project.id).await.unwrap().is_none());

        store.set_project_access(editor.organization_id, project.id, ProjectAccess::Organization).await.unwrap();
        assert!(store.accessible_project(&editor, project.id).await.unwrap().is_some());
    }

    async fn of_two_saves_over_the_same_revision_exactly_one_wins(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let ada = user(store, "ada@example.com", "ada's password", Role::Editor).await;
        let later = Timestamp::from_millis(NOW.as_millis() + 60_000);
        let first = store.save_draft(project.id, &ontology_with(&["driver"]), DraftBase::Revision(0), editor.id, "saved in the editor", NOW).await.unwrap();
        assert_eq!(first, 1);
        // A second "first draft" finds the first one in its way.
        match store.save_draft(project.id, &ontology_with(&["race"]), DraftBase::Revision(0), ada.id, "", NOW).await {
            Err(StoreError::StaleDraft(stamp)) => assert_eq!((stamp.revision, stamp.saved_by()), (1, "editor@example.com")),
            other => panic!("expected a stale draft, got {other:?}"),
        }

        // Both opened revision 1; Ada saves first, the editor's save is refused
        // with who and when, and Ada's work is still the draft.
        let read = store.draft(project.id).await.unwrap().unwrap();
        assert_eq!((read.revision, read.reason.as_str()), (1, "saved in the editor"));
        assert_eq!(read.updated_by_email.as_deref(), Some("editor@example.com"));
        let adas = ontology_with(&["driver", "race"]);
        assert_eq!(store.save_draft(project.id, &adas, DraftBase::Revision(read.revision), ada.id, "saved in the editor", later).await.unwrap(), 2);
        let err = store
            .save_draft(project.id, &ontology_with(&["driver", "circuit"]), DraftBase::Revision(read.revision), editor.id, "saved in the editor", later)
            .await
            .unwrap_err();
        match &err {
            StoreError::StaleDraft(stamp) => {
                assert_eq!(stamp.revision, 2);
                assert_eq!(stamp.saved_by_email.as_deref(), Some("ada@example.com"));
                assert_eq!(stamp.saved_at, later);
            }
            other => panic!("expected a stale draft, got {other:?}"),
        }
        assert!(err.to_string().contains("changed by ada@example.com at "), "{err}");
        assert_eq!(store.draft(project.id).await.unwrap().unwrap().ontology, adas);

        // Saves racing over one revision: exactly one wins each round.
        for round in 0..5u64 {
            let base = DraftBase::Revision(2 + round);
            let (mine, theirs) = (ontology_with(&["a"]), ontology_with(&["b"]));
            let (a, b) = tokio::join!(
                store.save_draft(project.id, &mine, base, ada.id, "race", NOW),
                store.save_draft(project.id, &theirs, base, editor.id, "race", NOW),
            );
            assert!(a.is_ok() != b.is_ok(), "round {round}: {a:?} {b:?}");
            let lost = if a.is_ok() { b } else { a };
            assert!(matches!(lost, Err(StoreError::StaleDraft(_))), "{lost:?}");
        }
        assert_eq!(store.draft(project.id).await.unwrap().unwrap().revision, 7);

        // Overwriting takes whatever the draft is, and keeps it in the history.
        assert_eq!(store.save_draft(project.id, &ontology_with(&["mine"]), DraftBase::Current, editor.id, "overwrote", NOW).await.unwrap(), 8);
        let history = store.draft_history(project.id).await.unwrap();
        assert_eq!(history.iter().map(|h| h.revision).collect::<Vec<_>>(), [7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(history[5].saved_by_email.as_deref(), Some("ada@example.com"));
        assert_eq!(history[5].reason, "saved in the editor");
        assert_eq!(store.draft_revision(project.id, 2).await.unwrap(), Some(adas));
    }

    async fn the_history_keeps_the_last_fifty_saves(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let saves = DRAFT_HISTORY_KEPT + 10;
        for n in 0..=saves {
            let name = format!("object{n}");
            let revision = store
                .save_draft(project.id, &ontology_with(&[&name]), DraftBase::Revision(n), editor.id, &format!("save {n}"), NOW)
                .await
                .unwrap();
            assert_eq!(revision, n + 1);
        }
        let history = store.draft_history(project.id).await.unwrap();
        assert_eq!(history.len() as u64, DRAFT_HISTORY_KEPT);
        assert_eq!(history.first().unwrap().revision, saves);
        assert_eq!(history.last().unwrap().revision, saves - DRAFT_HISTORY_KEPT + 1);
        assert_eq!(history.last().unwrap().reason, format!("save {}", saves - DRAFT_HISTORY_KEPT));
        assert!(store.draft_revision(project.id, saves - DRAFT_HISTORY_KEPT).await.unwrap().is_none());
        assert_eq!(
            store.draft_revision(project.id, saves).await.unwrap(),
            Some(ontology_with(&[&format!("object{}", saves - 1)]))
        );
    }

    async fn a_restore_brings_back_a_replaced_draft_and_is_itself_kept(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let work = ontology_with(&["driver", "race"]);
        store.save_draft(project.id, &work, DraftBase::Revision(0), editor.id, "saved in the editor", NOW).await.unwrap();
        // Rolling back replaces the draft outright; the work stays in the history.
        services(store).publish(&editor, &project, &ontology_with(&["driver"]), "", RegressionPolicy::Refuse, NOW).await.unwrap();
        services(store).roll_back(&editor, &project, 1, "", NOW).await.unwrap();
        let draft = store.draft(project.id).await.unwrap().unwrap();
        assert_eq!((draft.revision, draft.reason.as_str()), (2, "rolled back to version 1"));
        let history = store.draft_history(project.id).await.unwrap();
        assert_eq!((history[0].revision, history[0].reason.as_str()), (1, "saved in the editor"));

        assert_eq!(drafts::restore(store, project.id, 1, editor.id, NOW).await.unwrap(), 3);
        let draft = store.draft(project.id).await.unwrap().unwrap();
        assert_eq!(draft.ontology, work);
        assert_eq!(draft.reason, "restored revision 1");
        // The rolled-back draft the restore replaced can come back in turn.
        assert_eq!(store.draft_history(project.id).await.unwrap()[0].revision, 2);
        assert_eq!(drafts::restore(store, project.id, 2, editor.id, NOW).await.unwrap(), 4);
        assert_eq!(store.draft(project.id).await.unwrap().unwrap().ontology, ontology_with(&["driver"]));
        assert!(matches!(
            drafts::restore(store, project.id, 99, editor.id, NOW).await,
            Err(RestoreError::NoSuchRevision(99))
        ));
    }

    async fn a_small_edit_is_applied_to_the_draft_as_saved(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let added = drafts::edit(store, project.id, editor.id, "added driver", NOW, |o| {
            o.objects.extend(ontology_with(&["driver"]).objects);
            Ok::<_, StoreError>(1)
        })
        .await
        .unwrap();
        assert_eq!(added, 1);
        // An edit that changes nothing saves nothing.
        drafts::edit(store, project.id, editor.id, "nothing", NOW, |_| Ok::<_, StoreError>(())).await.unwrap();
        let draft = store.draft(project.id).await.unwrap().unwrap();
        assert_eq!((draft.revision, draft.reason.as_str()), (1, "added driver"));
        assert_eq!(draft.ontology, ontology_with(&["driver"]));
    }

    async fn rolling_back_publishes_old_content_anew(store: &Store) {
        let (project, editor) = project_and_editor(store).await;
        let first = ontology_with(&["driver"]);
        services(store).publish(&editor, &project, &first, "", RegressionPolicy::Refuse, NOW).await.unwrap();
        services(store).publish(&editor, &project, &ontology_with(&["race"]), "", RegressionPolicy::Refuse, NOW).await.unwrap();
        assert_eq!(services(store).roll_back(&editor, &project, 1, "", NOW).await.unwrap(), 3);
        let third = store.version(project.id, 3).await.unwrap().unwrap();
        assert_eq!(third.ontology, first);
        assert_eq!(third.info.note, "Roll back to version 1");
        assert_eq!(store.draft(project.id).await.unwrap().unwrap().ontology, first);
        assert!(matches!(
            services(store).roll_back(&editor, &project, 9, "", NOW).await,
            Err(PublishError::NoSuchVersion(9))
        ));
    }
}

/// A metadata database (this server's, or a copy) is never a data source:
/// its password hashes and signing keys would become known values.
#[tokio::test]
async fn a_metadata_database_is_refused_as_a_data_source() {
    use cassis_core::warehouse::{Warehouse, WarehouseError};
    for backend in backends().await {
        let outcome = Warehouse::connect(&backend.url).await;
        assert!(
            matches!(outcome, Err(WarehouseError::MetadataDatabase)),
            "{:?}: {outcome:?}",
            backend.store.backend()
        );
    }
}

/// A metadata database from before the signing keys (no `oauth_signing_keys`,
/// but users with their password hashes) is refused too; an application's own
/// `users` and `sessions` are not taken for one.
#[tokio::test]
async fn an_older_metadata_database_is_refused_and_an_application_database_is_not() {
    use cassis_core::warehouse::{Warehouse, WarehouseError};
    let dir = tempfile::tempdir().unwrap();
    let database = |name: &str, tables: &[&str]| {
        let url = format!("sqlite://{}", dir.path().join(name).display());
        let tables: Vec<String> = tables.iter().map(|t| (*t).to_owned()).collect();
        async move {
            let pool = sqlx::SqlitePool::connect(&format!("{url}?mode=rwc"))
                .await
                .unwrap();
            for table in tables {
                sqlx::raw_sql(AssertSqlSafe(format!("CREATE TABLE {table} (id TEXT)")))
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            pool.close().await;
            url
        }
    };
    // The tables of the first two migrations.
    let older = database(
        "older.sqlite",
        &[
            "organizations",
            "users",
            "sessions",
            "projects",
            "data_sources",
            "instance_settings",
            "ontology_drafts",
            "ontology_versions",
        ],
    )
    .await;
    let refused = Warehouse::connect(&older).await;
    assert!(
        matches!(refused, Err(WarehouseError::MetadataDatabase)),
        "{refused:?}"
    );
    let application = database("app.sqlite", &["users", "sessions", "orders"]).await;
    let accepted = Warehouse::connect(&application).await;
    assert!(accepted.is_ok(), "{accepted:?}");
}

/// Credentials come from the URL alone, never from PGPASSWORD or ~/.pgpass
/// (`tests/postgres_environment.rs` shows the password sent).
#[tokio::test]
async fn a_postgres_source_uses_only_the_credentials_in_its_url() {
    use cassis_core::warehouse::{Warehouse, WarehouseError};
    let no_user = Warehouse::connect("postgres://127.0.0.1:1/db").await;
    assert!(
        matches!(no_user, Err(WarehouseError::NoUser(_))),
        "{no_user:?}"
    );
}

/// A source's URL cannot have Cassis connect over the server's local socket
/// (where PostgreSQL may trust its operating-system user) or present the
/// server's own key files or session options.
#[tokio::test]
async fn a_postgres_source_names_no_socket_file_or_session_option_of_the_server() {
    use cassis_core::warehouse::{Warehouse, WarehouseError};
    for parameter in [
        "host=/var/run/postgresql",
        "host=localhost",
        "hostaddr=127.0.0.1",
        "sslcert=/etc/ssl/certs/server.crt",
        "ssl-cert=/etc/ssl/certs/server.crt",
        "sslkey=/etc/ssl/private/server.key",
        "ssl-key=/etc/ssl/private/server.key",
        "sslrootcert=/etc/passwd",
        "ssl-root-cert=/etc/passwd",
        "ssl-ca=/etc/passwd",
        "options=-c%20default_transaction_read_only%3Doff",
        "options%5Bdefault_transaction_read_only%5D=off",
        "user=postgres",
        "password=x",
    ] {
        let url = format!("postgres://ana:pw@127.0.0.1:1/db?sslmode=prefer&{parameter}");
        let refused = Warehouse::connect(&url).await;
        assert!(
            matches!(refused, Err(WarehouseError::RefusedParameter { .. })),
            "{parameter}: {refused:?}"
        );
        let message = refused.unwrap_err().to_string();
        assert!(!message.contains(":pw@"), "{message}");
    }
    for socket in [
        "postgres://ana:pw@%2Fvar%2Frun%2Fpostgresql/db",
        "postgres:///db",
        "postgres://ana:pw@/db",
    ] {
        let refused = Warehouse::connect(socket).await;
        assert!(
            matches!(
                refused,
                Err(WarehouseError::NoHost(_) | WarehouseError::UnsupportedUrl(_))
            ),
            "{socket}: {refused:?}"
        );
    }
    // What a source may set still reaches the connection attempt.
    let allowed = Warehouse::connect(
        "postgres://ana:pw@127.0.0.1:1/db?sslmode=disable&application_name=reports",
    )
    .await;
    assert!(
        matches!(allowed, Err(WarehouseError::Connect(_))),
        "{allowed:?}"
    );
}

#[tokio::test]
async fn concurrent_publishers_get_distinct_consecutive_versions() {
    for backend in backends().await {
        let store = &backend.store;
        let (project, editor) = project_and_editor(store).await;
        let tasks: Vec<_> = (0..10)
            .map(|i| {
                let (services, project, editor) =
                    (services(store), project.clone(), editor.clone());
                tokio::spawn(async move {
                    let ontology = ontology_with(&[&format!("object_{i}")]);
                    services
                        .publish(
                            &editor,
                            &project,
                            &ontology,
                            &format!("task {i}"),
                            RegressionPolicy::Refuse,
                            NOW,
                        )
                        .await
                        .unwrap()
                })
            })
            .collect();
        let mut numbers = Vec::new();
        for task in tasks {
            numbers.push(task.await.unwrap());
        }
        numbers.sort();
        assert_eq!(
            numbers,
            (1..=10).collect::<Vec<u32>>(),
            "{:?}",
            store.backend()
        );
        // Every publish kept its own content: nothing was lost or overwritten.
        let mut notes: Vec<String> = store
            .list_versions(project.id)
            .await
            .unwrap()
            .into_iter()
            .map(|v| v.note)
            .collect();
        notes.sort();
        notes.dedup();
        assert_eq!(notes.len(), 10);
    }
}

#[tokio::test]
async fn published_versions_cannot_be_changed_by_any_write() {
    for backend in backends().await {
        let store = &backend.store;
        let (project, editor) = project_and_editor(store).await;
        services(store)
            .publish(
                &editor,
                &project,
                &ontology_with(&["driver"]),
                "v1",
                RegressionPolicy::Refuse,
                NOW,
            )
            .await
            .unwrap();

        sqlx::any::install_default_drivers();
        let mut raw = AnyConnection::connect(&backend.url).await.unwrap();
        for sql in [
            "UPDATE ontology_versions SET body = '{}'",
            "UPDATE ontology_versions SET note = 'rewritten'",
            "DELETE FROM ontology_versions",
        ] {
            let refused = sqlx::query(sql).execute(&mut raw).await.unwrap_err();
            assert!(
                refused
                    .to_string()
                    .contains("published ontology versions are immutable"),
                "{sql}: {refused}"
            );
        }
        let v1 = store.version(project.id, 1).await.unwrap().unwrap();
        assert_eq!(
            (v1.ontology, v1.info.note.as_str()),
            (ontology_with(&["driver"]), "v1")
        );
    }
}

on_every_backend! {
    async fn api_keys_act_for_their_creator_until_revoked_or_expired(store: &Store) {
        use cassis_core::auth::ApiKeySecret;
        use cassis_core::service::credentials::ApiKeyRejected;
        use cassis_core::store::NewApiKey;

        let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
        let secret = ApiKeySecret::generate();
        let expires = NOW.saturating_add(Duration::from_secs(3600));
        let new = NewApiKey { organization_id: ada.organization_id, user_id: ada.id, name: " ci ", expires_at: Some(expires) };
        let id = store.create_api_key(new, &secret, NOW).await.unwrap();

        let (key, acting) = credentials::authenticate_api_key(store, secret.expose(), NOW).await.unwrap();
        assert_eq!((key.id, acting.id, key.name.as_str()), (id, ada.id, "ci"));
        let listed = store.list_api_keys(ada.organization_id).await.unwrap();
        assert_eq!(listed[0].last_used_at, Some(NOW), "the use is recorded");
        assert_eq!(listed[0].display_prefix, secret.expose()[..10]);
        assert_eq!(listed[0].user_email, "ada@example.com");

        let unknown = credentials::authenticate_api_key(store, ApiKeySecret::generate().expose(), NOW).await;
        assert!(matches!(unknown, Err(ApiKeyRejected::Unknown)), "{unknown:?}");
        let malformed = credentials::authenticate_api_key(store, "sk-k6-nope", NOW).await;
        assert!(matches!(malformed, Err(ApiKeyRejected::Malformed)), "{malformed:?}");
        let expired = credentials::authenticate_api_key(store, secret.expose(), expires).await;
        assert!(matches!(expired, Err(ApiKeyRejected::Expired)), "{expired:?}");

        assert!(store.revoke_api_key(ada.organization_id, id, NOW).await.unwrap());
        assert!(!store.revoke_api_key(ada.organization_id, id, NOW).await.unwrap(), "revoking twice changes nothing");
        let revoked = credentials::authenticate_api_key(store, secret.expose(), NOW).await;
        assert!(matches!(revoked, Err(ApiKeyRejected::Revoked)), "{revoked:?}");
    }
}

on_every_backend! {
    async fn activity_lists_chats_by_their_latest_turn_with_filters(store: &Store) {
        use cassis_core::chat::{AskStatus, Client};
        use cassis_core::store::{ActivityFilter, Chat, ChatTurn};

        let (project, editor) = project_and_editor(store).await;
        let turn = |n: i64, question: &str, status: AskStatus, at: i64| ChatTurn {
            turn: n,
            question: question.to_owned(),
            status,
            plan: None,
            approval: false,
            response: "{}".to_owned(),
            duration_ms: 7,
            created_at: cassis_core::time::Timestamp::from_millis(at),
        };
        let chat = |id: &str| Chat {
            id: id.to_owned(),
            organization_id: editor.organization_id,
            project_id: project.id,
            user_id: editor.id,
            ontology_version: 1,
            client: Client::Mcp,
            created_at: NOW,
        };
        let first = chat("chat_A");
        store.append_chat_turn(&first, true, &turn(1, "wins in 2023", AskStatus::NeedsExecution, 1_000)).await.unwrap();
        store.append_chat_turn(&first, false, &turn(2, "(approved the pending plan)", AskStatus::Answered, 3_000)).await.unwrap();
        let second = chat("chat_B");
        store.append_chat_turn(&second, true, &turn(1, "temperature?", AskStatus::NotAnswerable, 2_000)).await.unwrap();

        let all = store.recent_chats(editor.organization_id, &ActivityFilter::default(), 10).await.unwrap();
        let listed: Vec<(&str, i64, AskStatus, &str)> = all
            .iter()
            .map(|c| (c.chat.id.as_str(), c.turns, c.last_status, c.project_name.as_str()))
            .collect();
        assert_eq!(listed, [("chat_A", 2, AskStatus::Answered, "F1"), ("chat_B", 1, AskStatus::NotAnswerable, "F1")]);
        assert_eq!(all[0].chat.client, Client::Mcp);
        assert_eq!(all[0].user_email, "editor@example.com");
        assert_eq!(all[0].first_question, "wins in 2023");

        let refused = ActivityFilter { status: Some(AskStatus::NotAnswerable), ..Default::default() };
        let only = store.recent_chats(editor.organization_id, &refused, 10).await.unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].last_question, "temperature?");
        let elsewhere = ActivityFilter { project_id: Some(uuid::Uuid::new_v4()), ..Default::default() };
        assert!(store.recent_chats(editor.organization_id, &elsewhere, 10).await.unwrap().is_empty());
        let someone_else = ActivityFilter { user_id: Some(uuid::Uuid::new_v4()), ..Default::default() };
        assert!(store.recent_chats(editor.organization_id, &someone_else, 10).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn tool_calls_are_recorded_in_multi_row_batches() {
    use cassis_core::store::ToolCall;

    for backend in backends().await {
        let store = &backend.store;
        let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
        // 250 calls: two full statements of 100 rows and one of 50.
        let calls: Vec<ToolCall> = (0..250)
            .map(|i| ToolCall {
                organization_id: ada.organization_id,
                user_id: ada.id,
                api_key_id: None,
                tool: if i % 2 == 0 { "ping" } else { "list_projects" },
                project_id: (i == 7).then_some(Uuid::from_u128(7)),
                status: "ok",
                duration_ms: i,
                created_at: NOW,
            })
            .collect();
        store.record_tool_calls(&calls).await.unwrap();
        store.record_tool_calls(&[]).await.unwrap();

        let pool = sqlx::AnyPool::connect(&backend.url).await.unwrap();
        let (rows, durations, distinct_ids): (i64, i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), CAST(SUM(duration_ms) AS BIGINT), COUNT(DISTINCT id) FROM tool_calls",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!((rows, durations, distinct_ids), (250, (0..250).sum(), 250));
        let project: String =
            sqlx::query_scalar("SELECT project_id FROM tool_calls WHERE duration_ms = 7")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(project, Uuid::from_u128(7).to_string());
        pool.close().await;
    }
}

on_every_backend! {
    async fn registered_clients_that_never_got_a_code_are_counted_and_forgotten(store: &Store) {
        use cassis_core::auth::oauth::{AuthorizationCode, ClientKind, OAuthClient};
        let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
        let hour = Duration::from_secs(3600);
        let client = |id: &str, kind: ClientKind, created_at: Timestamp| OAuthClient {
            id: id.to_owned(),
            name: id.to_owned(),
            redirect_uris: vec!["http://127.0.0.1:45454/callback".to_owned()],
            kind,
            created_at,
        };
        let old = Timestamp::from_millis(NOW.as_millis() - (hour * 48).as_millis() as i64);
        for saved in [
            client("old-unused", ClientKind::Registered, old),
            client("old-used", ClientKind::Registered, old),
            client("new-unused", ClientKind::Registered, NOW),
            client("https://client.example/meta.json", ClientKind::MetadataDocument, old),
        ] {
            store.save_oauth_client(&saved, NOW).await.unwrap();
        }
        let code = AuthorizationCode {
            client_id: "old-used".to_owned(),
            organization_id: ada.organization_id,
            user_id: ada.id,
            redirect_uri: "http://127.0.0.1:45454/callback".to_owned(),
            code_challenge: "c".repeat(43),
            resource: "http://127.0.0.1:3000/mcp/".to_owned(),
            scope: "mcp".to_owned(),
            expires_at: NOW,
        };
        store.create_authorization_code("hash", &code, NOW).await.unwrap();
        assert_eq!(store.count_unused_oauth_clients().await.unwrap(), 2);

        let day_ago = Timestamp::from_millis(NOW.as_millis() - (hour * 24).as_millis() as i64);
        assert_eq!(store.delete_unused_oauth_clients(day_ago).await.unwrap(), 1);
        assert!(store.oauth_client("old-unused").await.unwrap().is_none());
        for kept in ["old-used", "new-unused", "https://client.example/meta.json"] {
            assert!(store.oauth_client(kept).await.unwrap().is_some(), "{kept}");
        }
        assert_eq!(store.count_unused_oauth_clients().await.unwrap(), 1);
    }
}

on_every_backend! {
    async fn clients_from_metadata_documents_are_kept_only_while_used_or_recent(store: &Store) {
        use cassis_core::auth::oauth::{AuthorizationCode, ClientKind, OAuthClient};
        let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
        let hour = Duration::from_secs(3600);
        let at = |hours_ago: u64| {
            Timestamp::from_millis(NOW.as_millis() - (hour * hours_ago as u32).as_millis() as i64)
        };
        let document = |n: usize, created_at: Timestamp| OAuthClient {
            id: format!("https://client.example/{n}.json"),
            name: format!("client {n}"),
            redirect_uris: vec!["http://127.0.0.1:45454/callback".to_owned()],
            kind: ClientKind::MetadataDocument,
            created_at,
        };
        // One used long ago, one unused from two days ago, and twelve recent
        // ones, as one host naming URL after URL would leave.
        store.save_oauth_client(&document(0, at(48)), NOW).await.unwrap();
        store.save_oauth_client(&document(1, at(48)), NOW).await.unwrap();
        for n in 2..14 {
            store.save_oauth_client(&document(n, at(14 - n as u64)), NOW).await.unwrap();
        }
        let code = AuthorizationCode {
            client_id: document(0, NOW).id,
            organization_id: ada.organization_id,
            user_id: ada.id,
            redirect_uri: "http://127.0.0.1:45454/callback".to_owned(),
            code_challenge: "c".repeat(43),
            resource: "http://127.0.0.1:3000/mcp/".to_owned(),
            scope: "mcp".to_owned(),
            expires_at: NOW,
        };
        store.create_authorization_code("hash", &code, NOW).await.unwrap();

        let forgotten = store.forget_unused_metadata_clients(at(24), 10).await.unwrap();
        // The stale one, and the two oldest beyond the ten newest unused.
        assert_eq!(forgotten, 3);
        for gone in [1, 2, 3] {
            assert!(store.oauth_client(&document(gone, NOW).id).await.unwrap().is_none(), "{gone}");
        }
        for kept in [0, 4, 13] {
            assert!(store.oauth_client(&document(kept, NOW).id).await.unwrap().is_some(), "{kept}");
        }
        // Registered clients are left to their own limit.
        assert_eq!(store.count_unused_oauth_clients().await.unwrap(), 0);
    }
}

/// A small edit that finds another save in its way is applied again to the
/// newer draft: both changes stay. The other save comes from a second
/// connection on its own thread, in the middle of the edit.
#[tokio::test]
async fn a_small_edit_racing_another_save_keeps_both() {
    let test = sqlite().await;
    let store = &test.store;
    let (project, editor) = project_and_editor(store).await;
    store
        .save_draft(
            project.id,
            &ontology_with(&["driver"]),
            DraftBase::Revision(0),
            editor.id,
            "saved",
            NOW,
        )
        .await
        .unwrap();
    // The edit runs on an ontology worker thread, so it counts in a shared cell.
    let applied = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (counted, url) = (applied.clone(), test.url.clone());
    drafts::edit(
        store,
        project.id,
        editor.id,
        "added race",
        NOW,
        move |ontology| {
            if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                let url = url.clone();
                std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    runtime.block_on(async {
                        let other = Store::connect(&url).await.unwrap();
                        let mut draft = other.draft(project.id).await.unwrap().unwrap();
                        draft
                            .ontology
                            .objects
                            .extend(ontology_with(&["circuit"]).objects);
                        other
                            .save_draft(
                                project.id,
                                &draft.ontology,
                                DraftBase::Revision(draft.revision),
                                editor.id,
                                "added circuit",
                                NOW,
                            )
                            .await
                            .unwrap();
                        other.close().await;
                    });
                })
                .join()
                .unwrap();
            }
            ontology.objects.extend(ontology_with(&["race"]).objects);
            Ok::<_, StoreError>(())
        },
    )
    .await
    .unwrap();
    assert_eq!(
        applied.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "applied again after the other save"
    );
    let draft = store.draft(project.id).await.unwrap().unwrap();
    assert_eq!(
        draft.ontology,
        ontology_with(&["driver", "circuit", "race"])
    );
    assert_eq!((draft.revision, draft.reason.as_str()), (3, "added race"));
}

/// A client with one authorization code for `user`, whose PKCE verifier is
/// `VERIFIER`; returns the code.
async fn client_with_code(
    store: &Store,
    client_id: &str,
    user: &cassis_core::account::User,
) -> String {
    use cassis_core::auth::oauth::{
        AuthorizationCode, ClientKind, OAuthClient, OAuthSecret, challenge_of,
    };
    let client = OAuthClient {
        id: client_id.to_owned(),
        name: client_id.to_owned(),
        redirect_uris: vec![REDIRECT.to_owned()],
        kind: ClientKind::Registered,
        created_at: NOW,
    };
    store.save_oauth_client(&client, NOW).await.unwrap();
    let code = OAuthSecret::generate();
    let approved = AuthorizationCode {
        client_id: client_id.to_owned(),
        organization_id: user.organization_id,
        user_id: user.id,
        redirect_uri: REDIRECT.to_owned(),
        code_challenge: challenge_of(VERIFIER),
        resource: "http://127.0.0.1:3000/mcp/".to_owned(),
        scope: "mcp".to_owned(),
        expires_at: NOW.saturating_add(Duration::from_secs(60)),
    };
    store
        .create_authorization_code(&code.hash(), &approved, NOW)
        .await
        .unwrap();
    code.expose().to_owned()
}

const REDIRECT: &str = "http://127.0.0.1:45454/callback";
const VERIFIER: &str = "a-verifier-of-at-least-forty-three-characters-0123";

on_every_backend! {
    async fn an_authorization_code_is_redeemed_once_and_its_replay_revokes_the_grant(store: &Store) {
        use cassis_core::service::oauth_grants::GrantRefused;
        let ada = user(store, "ada@example.com", "analytical engine", Role::Editor).await;
        let services = services(store);
        let code = client_with_code(store, "claude", &ada).await;
        let refused = services.redeem_code("claude", &code, REDIRECT, "another-verifier-of-at-least-forty-three-chars-9", NOW).await;
        assert!(
            matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the PKCE code_verifier does not match the challenge"),
            "{refused:?}"
        );
        // A failed exchange used the code up, and started nothing.
        let refused = services.redeem_code("claude", &code, REDIRECT, VERIFIER, NOW).await;
        assert!(matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the authorization code is not valid"), "{refused:?}");

        let code = client_with_code(store, "cursor", &ada).await;
        let refused = services.redeem_code("claude", &code, REDIRECT, VERIFIER, NOW).await;
        assert!(matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the authorization code was issued to another client"), "{refused:?}");
        let code = {
            use cassis_core::auth::oauth::{AuthorizationCode, OAuthSecret, challenge_of};
            let code = OAuthSecret::generate();
            let approved = AuthorizationCode {
                client_id: "cursor".to_owned(),
                organization_id: ada.organization_id,
                user_id: ada.id,
                redirect_uri: REDIRECT.to_owned(),
                code_challenge: challenge_of(VERIFIER),
                resource: "http://127.0.0.1:3000/mcp/".to_owned(),
                scope: "mcp".to_owned(),
                expires_at: NOW.saturating_add(Duration::from_secs(60)),
            };
            store.create_authorization_code(&code.hash(), &approved, NOW).await.unwrap();
            code.expose().to_owned()
        };
        let issued = services.redeem_code("cursor", &code, REDIRECT, VERIFIER, NOW).await.unwrap();
        assert_eq!((issued.user_id, issued.client_id.as_str(), issued.scope.as_str()), (ada.id, "cursor", "mcp"));
        let grant = store.oauth_grant(issued.grant).await.unwrap().unwrap();
        assert_eq!((grant.user_id, grant.revoked_at), (ada.id, None));

        // Presented again, the code ends the grant it started.
        match services.redeem_code("cursor", &code, REDIRECT, VERIFIER, NOW).await {
            Err(GrantRefused::Replayed { grant, reason }) => {
                assert_eq!(grant, issued.grant);
                assert_eq!(reason, "the authorization code was already used");
            }
            other => panic!("expected a replay, got {other:?}"),
        }
        assert!(store.oauth_grant(issued.grant).await.unwrap().unwrap().revoked_at.is_some());
        // Revoking retired its refresh token, so the client must sign in again.
        let refused = services.refresh_grant("cursor", issued.refresh_token.expose(), NOW).await;
        assert!(matches!(&refused, Err(GrantRefused::Replayed { grant, .. }) if *grant == issued.grant), "{refused:?}");
    }

    async fn refresh_tokens_rotate_and_a_retired_one_revokes_the_grant(store: &Store) {
        use cassis_core::service::oauth_grants::GrantRefused;
        let ada = user(store, "ada@example.com", "analytical engine", Role::Editor).await;
        let services = services(store);
        let code = client_with_code(store, "claude", &ada).await;
        client_with_code(store, "cursor", &ada).await;
        let first = services.redeem_code("claude", &code, REDIRECT, VERIFIER, NOW).await.unwrap();
        let later = NOW.saturating_add(Duration::from_secs(60));

        let refused = services.refresh_grant("cursor", first.refresh_token.expose(), later).await;
        assert!(matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the refresh token was issued to another client"), "{refused:?}");
        let second = services.refresh_grant("claude", first.refresh_token.expose(), later).await.unwrap();
        assert_eq!(second.grant, first.grant);
        assert_ne!(second.refresh_token.expose(), first.refresh_token.expose());
        assert_eq!(store.oauth_grant(first.grant).await.unwrap().unwrap().last_used_at, later);

        // A disabled user's client gets nothing, and can again once enabled.
        let admin = user(store, "grace@example.com", "compilers compile", Role::Admin).await;
        assert_eq!(admin.organization_id, ada.organization_id);
        store.set_user_disabled(ada.organization_id, ada.id, Some(later)).await.unwrap();
        let refused = services.refresh_grant("claude", second.refresh_token.expose(), later).await;
        assert!(matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the user's account is disabled"), "{refused:?}");
        store.set_user_disabled(ada.organization_id, ada.id, None).await.unwrap();

        // The first token is retired: presenting it again revokes the grant.
        match services.refresh_grant("claude", first.refresh_token.expose(), later).await {
            Err(GrantRefused::Replayed { grant, .. }) => assert_eq!(grant, first.grant),
            other => panic!("expected a replay, got {other:?}"),
        }
        assert!(store.oauth_grant(first.grant).await.unwrap().unwrap().revoked_at.is_some());
        let refused = services.refresh_grant("claude", "not a token", later).await;
        assert!(matches!(&refused, Err(GrantRefused::Invalid(why)) if why == "the refresh token is not valid"), "{refused:?}");
    }
}

/// Reading and writing a stored ontology of megabytes leaves the async
/// workers free: its JSON is encoded and decoded on an ontology worker. One
/// async thread here, so a decode on it would stop the ticker for as long.
#[tokio::test(flavor = "current_thread")]
async fn a_large_stored_ontology_is_read_and_written_off_the_async_workers() {
    let backend = sqlite().await;
    let store = &backend.store;
    let (project, editor) = project_and_editor(store).await;
    let names: Vec<String> = (0..80_000).map(|n| format!("object_{n}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ontology = ontology_with(&names);
    // What the same work costs inline, so the bound below means something.
    let started = std::time::Instant::now();
    let body = serde_json::to_string(&ontology).unwrap();
    let decoded: Ontology = serde_json::from_str(&body).unwrap();
    let inline = started.elapsed() / 2;
    assert!(body.len() > 3_000_000, "{} bytes", body.len());
    assert!(
        inline >= Duration::from_millis(20),
        "{inline:?}: too fast to tell"
    );

    let longest = std::sync::Arc::new(std::sync::Mutex::new(Duration::ZERO));
    let ticker = tokio::spawn({
        let longest = longest.clone();
        async move {
            let mut last = std::time::Instant::now();
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
                let gap = last.elapsed();
                let mut longest = longest.lock().unwrap();
                *longest = (*longest).max(gap);
                last = std::time::Instant::now();
            }
        }
    });
    tokio::task::yield_now().await;
    let revision = store
        .save_draft(
            project.id,
            &decoded,
            DraftBase::Current,
            editor.id,
            "large",
            NOW,
        )
        .await
        .unwrap();
    let draft = store.draft(project.id).await.unwrap().unwrap();
    // The ticker's next tick measures the gap the read left, if any.
    tokio::time::sleep(Duration::from_millis(5)).await;
    ticker.abort();
    assert_eq!(
        (draft.revision, draft.ontology.objects.len()),
        (revision, 80_000)
    );
    let longest = *longest.lock().unwrap();
    assert!(
        longest < inline / 2,
        "the async thread stalled {longest:?}; encoding or decoding inline takes {inline:?}"
    );
}

/// The next change within `wait`.
async fn heard(
    feed: &mut cassis_core::store::ChangeFeed,
    wait: Duration,
) -> Option<cassis_core::store::Change> {
    tokio::time::timeout(wait, feed.next()).await.ok()
}

/// What instances on one PostgreSQL database hear of each other's changes:
/// what decides whether a credential is accepted, and a project's source,
/// but not a key's use, which every first request writes and which would
/// otherwise empty every instance's credential cache each time.
#[tokio::test]
async fn instances_hear_credential_and_source_changes_but_not_a_key_s_use() {
    use cassis_core::auth::ApiKeySecret;
    use cassis_core::store::{Change, NewApiKey};

    assert!(
        sqlite().await.store.changes().await.unwrap().is_none(),
        "one SQLite instance has no one to hear"
    );
    let Some(pg) = postgres().await else {
        return;
    };
    let store = &pg.store;
    let mut feed = store
        .changes()
        .await
        .unwrap()
        .expect("PostgreSQL has a feed");

    let ada = user(store, "ada@example.com", "analytical engine", Role::Admin).await;
    let secret = ApiKeySecret::generate();
    let new = NewApiKey {
        organization_id: ada.organization_id,
        user_id: ada.id,
        name: "agent",
        expires_at: None,
    };
    let key = store.create_api_key(new, &secret, NOW).await.unwrap();
    credentials::authenticate_api_key(store, secret.expose(), NOW)
        .await
        .unwrap();
    assert_eq!(
        heard(&mut feed, Duration::from_millis(300)).await,
        None,
        "a new user, a new key, a use"
    );

    assert!(
        store
            .revoke_api_key(ada.organization_id, key, NOW)
            .await
            .unwrap()
    );
    assert_eq!(
        heard(&mut feed, Duration::from_secs(10)).await,
        Some(Change::Credentials)
    );
    let bob = user(store, "bob@example.com", "difference engine", Role::Viewer).await;
    store
        .set_user_disabled(ada.organization_id, bob.id, Some(NOW))
        .await
        .unwrap();
    assert_eq!(
        heard(&mut feed, Duration::from_secs(10)).await,
        Some(Change::Credentials)
    );

    let source = DataSource {
        dialect: Dialect::Snowflake,
        connection_url: None,
    };
    let project = store
        .create_project(
            ada.organization_id,
            &ProjectName::parse("Sales").unwrap(),
            "",
            Some(source),
            NOW,
        )
        .await
        .unwrap();
    assert_eq!(
        heard(&mut feed, Duration::from_secs(10)).await,
        Some(Change::Project(project.id))
    );
    // Nothing else: a wrongly heard change would show here or above, where
    // nothing is expected (what was committed is heard within milliseconds).
    assert_eq!(heard(&mut feed, Duration::from_millis(300)).await, None);
}
