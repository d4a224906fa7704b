use crate::api::projects::{ProjectSummary, list_projects};
use crate::api::session::current_user;
use crate::components::page::{ErrorNotice, Loading, Page};
use crate::components::style::BUTTON;
use cassis_core::account::Role;
use leptos::prelude::*;

#[component]
pub fn ProjectsPage() -> impl IntoView {
    let projects = Resource::new(|| (), |_| list_projects());
    let user = Resource::new(|| (), |_| current_user());

    view! {
        <Page title="Projects" subtitle="Each project is one data source and the ontology that describes it.">
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let admin = user.await.ok().flatten().is_some_and(|u| u.role == Role::Admin);
                    admin.then(|| view! {
                        <div class="mb-4 flex justify-end">
                            <a href="/projects/new" class=BUTTON>"New project"</a>
                        </div>
                    })
                })}
            </Transition>
            <Suspense fallback=Loading>
                {move || Suspend::new(async move {
                    match projects.await {
                        Ok(projects) if projects.is_empty() => view! {
                            <p class="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500">
                                "No projects yet."
                            </p>
                        }.into_any(),
                        Ok(projects) => view! { <ProjectTable projects /> }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })}
            </Suspense>
        </Page>
    }
}

#[component]
fn ProjectTable(projects: Vec<ProjectSummary>) -> impl IntoView {
    view! {
        <div class="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-sm" data-testid="projects">
                <thead class="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                    <tr>
                        <th class="px-4 py-3">"Name"</th>
                        <th class="px-4 py-3">"Data source"</th>
                        <th class="px-4 py-3">"Connection"</th>
                    </tr>
                </thead>
                <tbody class="divide-y divide-slate-100">
                    {projects.into_iter().map(|project| view! { <ProjectRow project /> }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[component]
fn ProjectRow(project: ProjectSummary) -> impl IntoView {
    let source = match (project.dialect, project.executable) {
        (Some(dialect), true) => format!("{dialect} · connected"),
        (Some(dialect), false) => format!("{dialect} · schema only"),
        (None, _) => "none yet".to_owned(),
    };
    view! {
        <tr>
            <td class="px-4 py-3">
                <a href=format!("/projects/{}", project.id) class="font-medium text-purple-800 hover:underline">{project.name}</a>
                <div class="text-slate-500">{project.description}</div>
            </td>
            <td class="px-4 py-3 text-slate-700">{source}</td>
            <td class="px-4 py-3 font-mono text-xs text-slate-500 break-all">{project.connection.unwrap_or_default()}</td>
        </tr>
    }
}
