//! A project's name, description and data source; deleting it.

use crate::api::projects::{
    AccessView, DeleteProject, ProjectDetail, SetProjectAccess, UpdateProject, get_project,
};
use crate::components::page::{ErrorNotice, Loading};
use crate::components::project_tabs::ProjectTabs;
use crate::components::source_fields::SourceFields;
use crate::components::style::{BUTTON, CARD, CARD_TITLE, DANGER, INPUT, LABEL, SUCCESS};
use cassis_core::project::ProjectAccess;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map};

/// The `:id` of a project page.
pub fn project_id_param() -> Memo<String> {
    let params = use_params_map();
    Memo::new(move |_| params.read().get("id").unwrap_or_default())
}

#[component]
pub fn ProjectSettingsPage() -> impl IntoView {
    let id = project_id_param();
    let update = ServerAction::<UpdateProject>::new();
    let project = Resource::new(
        move || (id.get(), update.version().get()),
        |(id, _)| get_project(id),
    );

    view! {
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                match project.await {
                    Ok(project) => view! { <Settings project update /> }.into_any(),
                    Err(error) => view! { <ErrorNotice error /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Settings(project: ProjectDetail, update: ServerAction<UpdateProject>) -> impl IntoView {
    let ProjectDetail {
        id,
        name,
        description,
        dialect,
        connection,
        can_manage,
        access,
        ..
    } = project;
    let id = id.to_string();
    let schema_only = connection.is_none();
    let (delete_id, delete_name) = (id.clone(), name.clone());
    view! {
        <ProjectTabs project_id=id.clone() name=name.clone() page="Settings" />
        {if can_manage {
            view! {
                <ActionForm action=update attr:class=format!("{CARD} space-y-5")>
                    <input type="hidden" name="id" value=id.clone() />
                    <div>
                        <label for="project-name" class=LABEL>"Name"</label>
                        <input id="project-name" name="name" type="text" required class=INPUT value=name.clone() />
                    </div>
                    <div>
                        <label for="project-description" class=LABEL>"Description"</label>
                        <input id="project-description" name="description" type="text" class=INPUT value=description />
                    </div>
                    <SourceFields project_id=id.clone() dialect stored_url=connection.clone().unwrap_or_default() schema_only />
                    {move || update.value().get().map(|result| match result {
                        Ok(()) => view! { <p class=SUCCESS role="status">"Saved."</p> }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    })}
                    <button type="submit" class=BUTTON disabled=move || update.pending().get()>"Save changes"</button>
                </ActionForm>
                <AccessCard id=delete_id.clone() view=access.clone() />
                <DeleteProjectCard id=delete_id.clone() name=delete_name.clone() />
            }.into_any()
        } else {
            view! {
                <div class=CARD>
                    <p class="text-sm text-slate-700">{format!("{dialect} · {}", connection.unwrap_or_else(|| "schema only".to_owned()))}</p>
                    <p class="mt-2 text-sm text-slate-500">"Only an admin can change the data source or delete the project."</p>
                </div>
            }.into_any()
        }}
    }
}

#[component]
fn DeleteProjectCard(id: String, name: String) -> impl IntoView {
    let delete = ServerAction::<DeleteProject>::new();
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(())) = delete.value().get() {
            navigate("/projects", Default::default());
        }
    });
    view! {
        <div class="mt-8 rounded-lg border border-red-200 bg-white p-5 shadow-sm">
            <h2 class=CARD_TITLE>"Delete this project"</h2>
            <p class="mt-1 text-sm text-slate-600">
                "Its ontology, every published version and every chat go with it; agents can no longer ask it anything. This cannot be undone."
            </p>
            <ActionForm action=delete attr:class="mt-4 flex flex-wrap items-end gap-3">
                <input type="hidden" name="id" value=id />
                <div class="min-w-64 flex-1">
                    <label for="confirm-name" class=LABEL>{format!("Type {name} to confirm")}</label>
                    <input id="confirm-name" name="confirm" type="text" autocomplete="off" class=INPUT />
                </div>
                <button type="submit" class=DANGER disabled=move || delete.pending().get()>"Delete project"</button>
            </ActionForm>
            {move || delete.value().get().and_then(Result::err).map(|error| view! { <div class="mt-3"><ErrorNotice error /></div> })}
        </div>
    }
}

#[component]
fn AccessCard(id: String, view: AccessView) -> impl IntoView {
    let save = ServerAction::<SetProjectAccess>::new();
    let id = StoredValue::new(id);
    // The radios keep their own state once rendered: the
    // attribute sets it on the server and in the browser alike.
    let initially_members = view.access == ProjectAccess::Members;
    let only_members = RwSignal::new(initially_members);
    let chosen = RwSignal::new(
        view.users
            .iter()
            .filter(|u| u.member)
            .map(|u| u.id.clone())
            .collect::<Vec<_>>(),
    );
    let on_save = move |_| {
        save.dispatch(SetProjectAccess {
            id: id.get_value(),
            access: if only_members.get_untracked() {
                "members"
            } else {
                "organization"
            }
            .to_owned(),
            members: chosen.get_untracked(),
        });
    };
    view! {
        <div class=format!("{CARD} mt-8")>
            <h2 class=CARD_TITLE>"Who may use this project"</h2>
            <p class="mt-1 text-sm text-slate-600">
                "Admins always may. Others see the project, ask it (here and through MCP) and edit it by their role only if it is open to them."
            </p>
                                <div class="mt-4 space-y-2 text-sm">
                                    <label class="flex items-center gap-2">
                                        <input type="radio" name="access" checked=!initially_members on:change=move |_| only_members.set(false) />
                                        "Everyone in the organization"
                                    </label>
                                    <label class="flex items-center gap-2">
                                        <input type="radio" name="access" checked=initially_members on:change=move |_| only_members.set(true) />
                                        "Only admins and the people checked below"
                                    </label>
                                </div>
                                {view.users.is_empty().then(|| view! {
                                    <p class="mt-3 pl-6 text-sm text-slate-500">"There are no editors or viewers yet: add them on the Users page."</p>
                                })}
                                <ul class="mt-3 space-y-1 pl-6 text-sm" class:opacity-50=move || !only_members.get() data-testid="project-members">
                                    {view.users.into_iter().map(|user| {
                                        let user_id = user.id.clone();
                                        view! {
                                            <li>
                                                <label class="flex items-center gap-2">
                                                    <input type="checkbox" checked=user.member disabled=move || !only_members.get()
                                                        on:change=move |ev| {
                                                            let on = event_target_checked(&ev);
                                                            chosen.update(|c| {
                                                                c.retain(|id| id != &user_id);
                                                                if on { c.push(user_id.clone()); }
                                                            });
                                                        } />
                                                    {format!("{} ({})", user.email, user.role)}
                                                </label>
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                                <div class="mt-4 flex items-center gap-3">
                                    <button type="button" class=BUTTON disabled=move || save.pending().get() on:click=on_save>"Save access"</button>
                                    {move || save.value().get().map(|result| match result {
                                        Ok(()) => view! { <span class=SUCCESS role="status">"Access saved."</span> }.into_any(),
                                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                                    })}
                                </div>
        </div>
    }
}
