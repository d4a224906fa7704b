//! `cassis ask`: the question engine from scripts, without MCP. Prints the
//! response exactly as the MCP tool returns it.

use super::ontology::{acting_user, open_project};
use crate::clock;
use crate::config::Settings;
use anyhow::Context;
use cassis_core::engine::{AskRequest, Client, Engine};
use std::io::Read;

pub struct AskArgs {
    pub project: String,
    pub chat: Option<String>,
    pub execute_pending_plan: bool,
    pub user: Option<String>,
    pub question: Option<String>,
}

pub async fn run(settings: &Settings, args: AskArgs) -> anyhow::Result<()> {
    let (store, project) = open_project(settings, &args.project).await?;
    let user = acting_user(&store, project.organization_id, args.user.as_deref()).await?;
    let question = match args.question {
        Some(question) => question,
        None if args.execute_pending_plan => String::new(),
        None => {
            let mut question = String::new();
            std::io::stdin()
                .read_to_string(&mut question)
                .context("reading the question from standard input")?;
            question
        }
    };
    let engine = Engine::new(store.clone(), settings.engine()?);
    let request = AskRequest {
        project_id: project.id.to_string(),
        question,
        chat_id: args.chat,
        execute_pending_plan: args.execute_pending_plan,
        version: None,
    };
    let response = engine.ask(&user, Client::Cli, request, clock::now()).await;
    println!("{}", serde_json::to_string_pretty(&response)?);
    store.close().await;
    Ok(())
}
