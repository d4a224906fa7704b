use leptos::prelude::*;
use leptos_meta::Title;

const TAB: &str = "border-b-2 border-transparent px-1 pb-2 text-sm font-medium text-slate-500 hover:text-slate-800 \
                   aria-[current=page]:border-purple-700 aria-[current=page]:text-purple-800";

/// The header of a project's pages: its name and the tabs between them.
#[component]
pub fn ProjectTabs(project_id: String, name: String, page: &'static str) -> impl IntoView {
    let tab = |href: String, label: &'static str| {
        let current = (label == page).then_some("page");
        view! { <a href=href class=TAB aria-current=current>{label}</a> }
    };
    view! {
        <Title text=format!("{name} · {page}") />
        <div class="mb-6">
            <p class="text-sm text-slate-500"><a href="/projects" class="hover:underline">"Projects"</a>" /"</p>
            <h1 class="text-2xl font-semibold tracking-tight">{name}</h1>
            <nav class="mt-4 flex gap-6 border-b border-slate-200" aria-label="Project">
                {tab(format!("/projects/{project_id}"), "Ontology")}
                {tab(format!("/projects/{project_id}/publish"), "Publish")}
                {tab(format!("/projects/{project_id}/settings"), "Settings")}
            </nav>
        </div>
    }
}
