//! `cassis`: the server and its command line.

mod cli;
mod clock;
mod commands;
mod config;
mod health;
mod page_guard;
mod request_log;
mod router;
mod startup;
mod telemetry;

use clap::Parser;
use cli::{Cli, Command, ProjectCommand, UserCommand};
use config::Settings;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
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
    }
}
