//! What was asked: every chat, newest first, filterable by project and
//! status, each openable to its turns with answers and SQL.

use crate::api::activity::{ActivityRow, ChatTurns, VerifyQuestion, list_activity};
use crate::api::projects::list_projects;
use crate::api::users::list_users;
use crate::components::page::{ErrorNotice, Page};
use crate::components::resource_list::ResourceList;
use cassis_core::chat::AskStatus;
use leptos::prelude::*;

const SELECT: &str = "mt-1 block rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                      focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";
const STATUSES: [(&str, &str); 5] = [
    ("", "Any status"),
    ("answered", "answered"),
    ("needs_execution", "needs approval"),
    ("not_answerable", "not answerable"),
    ("error", "error"),
];

#[component]
pub fn ActivityPage() -> impl IntoView {
    let projects = Resource::new(|| (), |_| list_projects());
    let project = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let person = RwSignal::new(String::new());
    // Only admins may list users, and only they see everyone's chats.
    let people = Resource::new(|| (), |_| list_users());
    let activity = Resource::new(
        move || (project.get(), status.get(), person.get()),
        |(project_id, status, user_id)| list_activity(project_id, status, user_id),
    );

    view! {
        <Page
            title="Activity"
            subtitle="Every question asked through MCP, the playground or the CLI, newest first."
        >
            <div class="flex flex-wrap gap-4">
                <div>
                    <label for="activity-project" class="block text-sm font-medium text-slate-700">"Project"</label>
                    <select id="activity-project" class=SELECT on:change=move |ev| project.set(event_target_value(&ev))>
                        <option value="">"All projects"</option>
                        <Suspense fallback=|| ()>
                            {move || Suspend::new(async move {
                                projects.await.unwrap_or_default().into_iter().map(|p| view! {
                                    <option value=p.id.to_string()>{p.name}</option>
                                }).collect_view()
                            })}
                        </Suspense>
                    </select>
                </div>
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        people.await.ok().map(|people| view! {
                            <div>
                                <label for="activity-person" class="block text-sm font-medium text-slate-700">"Asked by"</label>
                                <select id="activity-person" class=SELECT on:change=move |ev| person.set(event_target_value(&ev))>
                                    <option value="">"Anyone"</option>
                                    {people.into_iter().map(|p| view! { <option value=p.id>{p.email}</option> }).collect_view()}
                                </select>
                            </div>
                        })
                    })}
                </Transition>
                <div>
                    <label for="activity-status" class="block text-sm font-medium text-slate-700">"Status"</label>
                    <select id="activity-status" class=SELECT on:change=move |ev| status.set(event_target_value(&ev))>
                        {STATUSES.iter().map(|(value, label)| view! { <option value=*value>{*label}</option> }).collect_view()}
                    </select>
                </div>
            </div>
            <div class="mt-6">
                <ResourceList resource=activity empty="Nothing asked yet that matches." render={|rows: Vec<ActivityRow>| view! {
                    <ul class="space-y-3" data-testid="activity">
                        {rows.into_iter().map(|row| view! { <ChatRow row /> }).collect_view()}
                    </ul>
                }} />
            </div>
        </Page>
    }
}

#[component]
fn ChatRow(row: ActivityRow) -> impl IntoView {
    // The turns are read when the chat is opened (again on each opening,
    // so they are current), by an action: a resource created here, in a
    // row of the list's Suspend, would be created anew on each server pass
    // and break hydration.
    let open = RwSignal::new(false);
    let chat_id = StoredValue::new(row.chat_id.clone());
    let turns = ServerAction::<ChatTurns>::new();
    let toggle = move |_| {
        open.update(|o| *o = !*o);
        if open.get_untracked() {
            turns.dispatch(ChatTurns {
                chat_id: chat_id.get_value(),
            });
        }
    };
    let plural = if row.turns == 1 { "" } else { "s" };
    let verify = ServerAction::<VerifyQuestion>::new();
    view! {
        <li class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="activity-chat">
            <div class="flex items-start justify-between gap-4">
                <div>
                    <p class="text-sm font-medium text-slate-900">{row.first_question}</p>
                    <p class="mt-1 text-xs text-slate-500">
                        {format!(
                            "{} · {} · {} · ontology v{} · {} turn{plural} · {} ms · {}",
                            row.project, row.user, row.client.as_str(), row.ontology_version, row.turns, row.last_duration_ms, row.last_at
                        )}
                    </p>
                </div>
                <div class="flex items-center gap-3">
                    <span class="rounded bg-slate-100 px-2 py-0.5 text-xs font-semibold text-slate-700" data-testid="activity-status">{row.last_status.as_str()}</span>
                    <button type="button" class="rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50" on:click=toggle>
                        {move || if open.get() { "Hide" } else { "Open" }}
                    </button>
                </div>
            </div>
            {move || verify.value().get().map(|result| match result {
                Ok(true) => view! { <p class="mt-3 text-sm text-emerald-800" role="status">"Added to the draft as a verified question; it is checked before every publish."</p> }.into_any(),
                Ok(false) => view! { <p class="mt-3 text-sm text-slate-600" role="status">"The draft has this verified question already."</p> }.into_any(),
                Err(error) => view! { <div class="mt-3"><ErrorNotice error /></div> }.into_any(),
            })}
            {move || {
                let read = open.get().then(|| turns.value().get()).flatten()?;
                Some(match read {
                    Ok(turns) => view! {
                        <ol class="mt-3 space-y-3 border-t border-slate-100 pt-3" data-testid="activity-turns">
                            {turns.into_iter().map(|t| view! {
                                <li class="text-sm">
                                    <p class="font-medium">{format!("{}. {}", t.turn, t.question)}</p>
                                    <p class="text-xs text-slate-500">{format!("{} · {} ms", t.status.as_str(), t.duration_ms)}</p>
                                    <p class="mt-1 text-slate-700">{t.answer}</p>
                                    {t.sql.map(|sql| view! {
                                        <pre class="mt-1 whitespace-pre-wrap break-words rounded bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100">{sql}</pre>
                                    })}
                                    {(t.status == AskStatus::Answered).then(|| {
                                        let turn = t.turn;
                                        view! {
                                            <button type="button" class="mt-2 rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50"
                                                title="Add this question and its SQL to the draft's verified questions"
                                                on:click=move |_| { verify.dispatch(VerifyQuestion { chat_id: chat_id.get_value(), turn }); }>
                                                "Make it a verified question"
                                            </button>
                                        }
                                    })}
                                </li>
                            }).collect_view()}
                        </ol>
                    }.into_any(),
                    Err(error) => view! { <ErrorNotice error /> }.into_any(),
                })
            }}
        </li>
    }
}
