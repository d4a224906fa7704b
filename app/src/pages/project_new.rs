//! A new project: its name, its data source, and where its first draft
//! comes from.

use crate::api::projects::CreateProject;
use crate::components::page::{ErrorNotice, Page};
use crate::components::source_fields::SourceFields;
use crate::components::style::{BUTTON, CARD, INPUT, LABEL};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

#[component]
pub fn NewProjectPage() -> impl IntoView {
    let create = ServerAction::<CreateProject>::new();
    let bootstrap = RwSignal::new("source".to_owned());
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(id)) = create.value().get() {
            navigate(&format!("/projects/{id}"), Default::default());
        }
    });

    view! {
        <Page title="New project" subtitle="Connect a data source; Cassis reads its tables to start the ontology.">
            <ActionForm action=create attr:class=format!("{CARD} space-y-5")>
                <div>
                    <label for="project-name" class=LABEL>"Name"</label>
                    <input id="project-name" name="name" type="text" required class=INPUT placeholder="Formula 1" />
                </div>
                <div>
                    <label for="project-description" class=LABEL>"Description"</label>
                    <input id="project-description" name="description" type="text" class=INPUT
                        placeholder="What the data covers, for people and agents choosing a project" />
                </div>
                <SourceFields />
                <fieldset>
                    <legend class=LABEL>"First draft of the ontology"</legend>
                    <select name="bootstrap" class=INPUT aria-label="First draft" on:change=move |ev| bootstrap.set(event_target_value(&ev))>
                        <option value="source" selected=true>"Read the tables, columns and foreign keys of the data source"</option>
                        <option value="ddl">"Read CREATE TABLE statements (DDL)"</option>
                        <option value="none">"Start empty"</option>
                    </select>
                    <div class:hidden=move || bootstrap.get() != "ddl" class="mt-3">
                        <label for="ddl" class=LABEL>"DDL"</label>
                        <textarea id="ddl" name="ddl" rows="8" class=format!("{INPUT} font-mono text-xs")
                            placeholder="CREATE TABLE drivers (driver_id INTEGER PRIMARY KEY, ...);"></textarea>
                    </div>
                </fieldset>
                {move || create.value().get().and_then(Result::err).map(|error| view! { <ErrorNotice error /> })}
                <div class="flex items-center gap-3">
                    <button type="submit" class=BUTTON disabled=move || create.pending().get()>"Create project"</button>
                    {move || create.pending().get().then(|| view! {
                        <span class="text-sm text-slate-600" role="status">"Creating the project and reading its data source…"</span>
                    })}
                </div>
            </ActionForm>
        </Page>
    }
}
