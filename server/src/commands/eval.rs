//! `cassis eval`: a question set through the engine, scored per category.

use super::ontology::{acting_user, open_project};
use crate::clock;
use crate::config::Settings;
use anyhow::{Context, bail};
use cassis_core::engine::Engine;
use cassis_core::engine::eval::{QuestionSet, run_eval};
use std::path::Path;
use std::time::Instant;

pub struct EvalArgs<'a> {
    pub project: &'a str,
    pub user: Option<&'a str>,
    pub file: &'a Path,
    pub min_accuracy: Option<f64>,
    pub verbose: bool,
}

pub async fn run(settings: &Settings, args: EvalArgs<'_>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let set = QuestionSet::from_yaml(&text)
        .map_err(|e| anyhow::anyhow!("{} is not a question set: {e}", args.file.display()))?;
    let (store, project) = open_project(settings, args.project).await?;
    let user = acting_user(&store, project.organization_id, args.user).await?;
    let engine = Engine::new(store.clone(), settings.engine()?);
    let Some(warehouse) = engine.warehouse_of(&project).await? else {
        bail!(
            "the project {} is schema-only: gold SQL needs a data source to run on",
            project.name
        );
    };
    let started = Instant::now();
    eprintln!(
        "evaluating {} items on {}",
        set.questions.len(),
        project.name
    );
    let report = run_eval(
        &engine,
        &user,
        &project,
        &warehouse,
        &set,
        clock::now,
        &mut |outcome| {
            if !outcome.correct && args.verbose {
                eprintln!(
                    "✗ [{}] {}\n      {}",
                    outcome.category, outcome.question, outcome.detail
                );
            }
        },
    )
    .await;
    print!("{}", report.table());
    eprintln!("evaluated in {:.1} s", started.elapsed().as_secs_f64());
    store.close().await;
    if let Some(min) = args.min_accuracy
        && report.accuracy() < min
    {
        bail!(
            "accuracy {:.1}% is below the required {:.1}%",
            100.0 * report.accuracy(),
            100.0 * min
        );
    }
    Ok(())
}
