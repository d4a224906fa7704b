use crate::components::layout::AdminLayout;
use crate::pages::{
    activity::ActivityPage, api_keys::ApiKeysPage, clients::ConnectedClientsPage,
    connect::ConnectPage, login::LoginPage, not_found::NotFound, ontology::OntologyPage,
    playground::PlaygroundPage, project_new::NewProjectPage, project_settings::ProjectSettingsPage,
    projects::ProjectsPage, publish::PublishPage, settings::SettingsPage, users::UsersPage,
};
use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{ParentRoute, Route, Router, Routes};
use leptos_router::{SsrMode, path};

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en" class="h-full bg-slate-50">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
                <MetaTags />
            </head>
            <body class="h-full text-slate-900 antialiased">
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Effects run only in the browser: the attribute tells people and tests
    // that the page is hydrated and interactive.
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });

    view! {
        <Stylesheet id="leptos" href="/pkg/cassis.css" />
        <Title formatter=|page: String| if page.is_empty() { "Cassis".to_owned() } else { format!("{page} · Cassis") } />
        <Router>
            <Routes fallback=NotFound>
                <Route path=path!("/login") view=LoginPage />
                <ParentRoute path=path!("") view=AdminLayout>
                    <Route path=path!("") view=ProjectsPage />
                    <Route path=path!("projects") view=ProjectsPage />
                    <Route path=path!("projects/new") view=NewProjectPage />
                    <Route path=path!("projects/:id") view=OntologyPage />
                    <Route path=path!("projects/:id/publish") view=PublishPage />
                    <Route path=path!("projects/:id/settings") view=ProjectSettingsPage />
                    // In order: the chat hydrates against the page as the server
                    // finished it. Streamed out of order, a full load could hydrate
                    // before the project list's chunk was swapped in, and the
                    // browser then lost the whole form's reactivity.
                    <Route path=path!("playground") view=PlaygroundPage ssr=SsrMode::InOrder />
                    <Route path=path!("activity") view=ActivityPage />
                    <Route path=path!("keys") view=ApiKeysPage />
                    <Route path=path!("clients") view=ConnectedClientsPage />
                    <Route path=path!("connect") view=ConnectPage />
                    <Route path=path!("users") view=UsersPage />
                    <Route path=path!("settings") view=SettingsPage />
                </ParentRoute>
            </Routes>
        </Router>
    }
}
