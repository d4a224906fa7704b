//! `cassis`: the server and its command line.

use cassis::cli::{
    ApiKeyCommand, Cli, Command, OntologyCommand, ProjectCommand, UserCommand, WarehouseCommand,
};
use cassis::config::Settings;
use cassis::{commands, telemetry};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse_scoped();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::resolve(&cli.settings)?;
    telemetry::init(settings.log_format);
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => commands::serve::run(settings).await,
        Command::Migrate => {
            commands::open_store(&settings).await?.close().await;
            println!("the metadata database is up to date");
            Ok(())
        }
        Command::Backup { file, force } => commands::backup::back_up(&settings, &file, force).await,
        Command::Restore { file, force } => {
            commands::backup::restore(&settings, &file, force).await
        }
        Command::CheckConfig => {
            print!("{}", settings.to_redacted_toml());
            Ok(())
        }
        Command::User(UserCommand::Create { email, role }) => {
            commands::user::create(&settings, &email, role).await
        }
        Command::User(UserCommand::List) => commands::user::list(&settings).await,
        Command::Project(ProjectCommand::List { json }) => {
            commands::project::list(&settings, json).await
        }
        Command::Project(ProjectCommand::Create {
            name,
            warehouse,
            dialect,
            description,
            introspect,
            schema,
            ddl,
            ..
        }) => {
            let bootstrap = match (introspect, ddl) {
                (true, _) => commands::project::Bootstrap::Introspect { schema },
                (false, Some(file)) => commands::project::Bootstrap::Ddl(file),
                (false, None) => commands::project::Bootstrap::None,
            };
            let source = commands::project::NewSource { warehouse, dialect };
            commands::project::create(&settings, &name, source, &description, bootstrap).await
        }
        Command::Warehouse(WarehouseCommand::LoadCsv {
            warehouse,
            dir,
            schema,
            snake_case,
            replace,
        }) => {
            let options = cassis_core::warehouse::csv_load::LoadOptions {
                schema,
                snake_case,
                replace,
            };
            commands::warehouse::load_csv(&warehouse, &dir, &options).await
        }
        Command::Ontology(command) => ontology(&settings, command).await,
        Command::Apikey(ApiKeyCommand::Create {
            user,
            name,
            expires,
        }) => commands::apikey::create(&settings, &user, &name, expires.as_deref()).await,
        Command::Apikey(ApiKeyCommand::List) => commands::apikey::list(&settings).await,
        Command::Apikey(ApiKeyCommand::Revoke { id }) => {
            commands::apikey::revoke(&settings, &id).await
        }
        Command::Ask {
            project,
            chat,
            execute_pending_plan,
            user,
            question,
        } => {
            let args = commands::ask::AskArgs {
                project,
                chat,
                execute_pending_plan,
                user,
                question,
            };
            commands::ask::run(&settings, args).await
        }
        Command::Eval {
            project,
            user,
            min_accuracy,
            verbose,
            file,
        } => {
            let args = commands::eval::EvalArgs {
                project: &project,
                user: user.as_deref(),
                file: &file,
                min_accuracy,
                verbose,
            };
            commands::eval::run(&settings, args).await
        }
    }
}

/// `--force` is the command line's "publish even if verified questions would
/// get a different answer".
fn regression_policy(force: bool) -> cassis_core::service::publishing::RegressionPolicy {
    use cassis_core::service::publishing::RegressionPolicy;
    if force {
        RegressionPolicy::Force
    } else {
        RegressionPolicy::Refuse
    }
}

async fn ontology(settings: &Settings, command: OntologyCommand) -> anyhow::Result<()> {
    use commands::ontology as o;
    match command {
        OntologyCommand::Import {
            project,
            file,
            from,
            publish,
            force,
            note,
            as_user,
        } => {
            let publish = publish.then_some(regression_policy(force));
            o::import(
                settings,
                &project,
                &file,
                from,
                publish,
                &note,
                as_user.as_deref(),
            )
            .await
        }
        OntologyCommand::Export {
            project,
            version,
            draft,
            to,
            database,
            schema,
        } => o::export(settings, &project, version, draft, to, (database, schema)).await,
        OntologyCommand::Publish {
            project,
            note,
            force,
            as_user,
        } => {
            let policy = regression_policy(force);
            o::publish(settings, &project, &note, policy, as_user.as_deref()).await
        }
        OntologyCommand::Versions { project } => o::versions(settings, &project).await,
        OntologyCommand::Diff { project, from, to } => o::diff(settings, &project, from, to).await,
        OntologyCommand::Rollback {
            project,
            to,
            note,
            as_user,
        } => o::roll_back(settings, &project, to, &note, as_user.as_deref()).await,
        OntologyCommand::History { project } => o::history(settings, &project).await,
        OntologyCommand::Restore {
            project,
            revision,
            as_user,
        } => o::restore(settings, &project, revision, as_user.as_deref()).await,
    }
}
