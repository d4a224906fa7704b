//! The data source part of the project forms: connect or schema-only, the
//! dialect, the connection URL, and a connection test.

use crate::api::projects::TestConnection;
use crate::components::page::ErrorNotice;
use crate::components::style::{INPUT, LABEL, SECONDARY, SUCCESS};
use cassis_core::project::Dialect;
use leptos::prelude::*;

#[component]
pub fn SourceFields(
    /// The project whose stored connection a blank URL stands for.
    #[prop(optional)]
    project_id: String,
    #[prop(optional)] dialect: Option<Dialect>,
    /// What the URL field shows when empty: the stored URL, password hidden.
    #[prop(optional)]
    stored_url: Option<String>,
    #[prop(optional)] schema_only: bool,
) -> impl IntoView {
    // The radios keep their own state once rendered; the attribute sets it
    // the same on the server and in the browser.
    let initially_schema_only = schema_only;
    let schema_only = RwSignal::new(schema_only);
    let chosen = RwSignal::new(dialect.map(|d| d.as_str().to_owned()).unwrap_or_default());
    let url = RwSignal::new(String::new());
    let test = ServerAction::<TestConnection>::new();
    let placeholder = stored_url
        .clone()
        .map(|stored| format!("{stored} (leave blank to keep)"))
        .unwrap_or_else(|| {
            "sqlite:///data/f1.sqlite, postgres://user:password@host/db, mysql://user:password@host/db, snowflake://user:secret@account/database/schema?warehouse=W&role=R or bigquery://project/dataset?credentials=KEY (the service account's JSON key in base64)".to_owned()
        });
    let run_test = move |_| {
        test.dispatch(TestConnection {
            project_id: project_id.clone(),
            dialect: chosen.get_untracked(),
            connection_url: url.get_untracked(),
        });
    };

    view! {
        <fieldset class="space-y-4">
            <legend class=LABEL>"Data source"</legend>
            <div class="flex gap-6 text-sm">
                <label class="flex items-center gap-2">
                    <input type="radio" name="source" value="connect" checked=!initially_schema_only
                        on:change=move |_| schema_only.set(false) />
                    "Connect (Cassis runs the SQL, read-only)"
                </label>
                <label class="flex items-center gap-2">
                    <input type="radio" name="source" value="schema_only" checked=initially_schema_only
                        on:change=move |_| schema_only.set(true) />
                    "Schema only (Cassis writes SQL, never runs it)"
                </label>
            </div>
            <div>
                <label for="dialect" class=LABEL>"SQL dialect"</label>
                <select id="dialect" name="dialect" class=INPUT on:change=move |ev| chosen.set(event_target_value(&ev))>
                    <option value="" selected=dialect.is_none()>"From the connection URL"</option>
                    {Dialect::ALL.iter().map(|d| view! {
                        <option value=d.as_str() selected=Some(*d) == dialect>{d.as_str()}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class:hidden=move || schema_only.get()>
                <label for="connection-url" class=LABEL>"Connection URL"</label>
                <div class="flex items-end gap-2">
                    <input id="connection-url" name="connection_url" type="text" autocomplete="off" class=INPUT
                        placeholder=placeholder prop:value=move || url.get()
                        on:input=move |ev| url.set(event_target_value(&ev)) />
                    <button type="button" class=format!("{SECONDARY} whitespace-nowrap") disabled=move || test.pending().get() on:click=run_test>
                        {move || if test.pending().get() { "Testing…" } else { "Test connection" }}
                    </button>
                </div>
                <p class="mt-1 text-xs text-slate-500">"SQLite files are opened read-only; PostgreSQL, MySQL and MariaDB sessions are read-only; Snowflake and BigQuery need a role or service account that may only read (BigQuery: roles/bigquery.dataViewer and roles/bigquery.jobUser). The password, token or key is never shown again."</p>
            </div>
            {move || test.value().get().map(|result| match result {
                Ok(report) => {
                    let count = report.tables.len();
                    let names = report.tables.iter().take(12).cloned().collect::<Vec<_>>().join(", ");
                    let more = if count > 12 { ", …" } else { "" };
                    view! {
                        <p class=SUCCESS data-testid="connection-result">
                            {format!("Connected to {}: {count} table(s) readable — {names}{more}", report.dialect)}
                        </p>
                    }.into_any()
                }
                Err(error) => view! { <ErrorNotice error /> }.into_any(),
            })}
        </fieldset>
    }
}
