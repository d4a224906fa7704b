//! The draft's recent saves, each restorable: what to reach for when a save
//! (a roll back, a bootstrap, another editor's overwrite) replaced work.

use crate::api::ontology::{RestoreDraft, draft_history};
use crate::components::page::ErrorNotice;
use crate::components::style::{CARD, CARD_TITLE, SMALL, SUCCESS};
use leptos::prelude::*;

#[component]
pub fn DraftHistory(
    project_id: String,
    restore: ServerAction<RestoreDraft>,
    /// Bumped after every save on the page: the history is read again.
    saved: RwSignal<u32>,
    can_edit: bool,
) -> impl IntoView {
    let project_id = StoredValue::new(project_id);
    let history = Resource::new(
        move || (project_id.get_value(), saved.get()),
        |(id, _)| draft_history(id),
    );
    view! {
        <details class=format!("{CARD} mt-4") data-testid="draft-history">
            <summary class=format!("{CARD_TITLE} cursor-pointer")>"Draft history"</summary>
            <p class="mt-1 text-sm text-slate-600">
                "Every save keeps the draft it replaced (the last 50). Restoring one makes it the draft again; the draft it replaces is kept too."
            </p>
            {move || restore.value().get().map(|result| match result {
                Ok(revision) => view! { <p class=format!("{SUCCESS} mt-2") role="status">{format!("Restored as revision {revision}.")}</p> }.into_any(),
                Err(error) => view! { <ErrorNotice error /> }.into_any(),
            })}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match history.await {
                        Ok(rows) if rows.is_empty() => view! {
                            <p class="mt-3 text-sm text-slate-500">"No earlier saves yet."</p>
                        }.into_any(),
                        Ok(rows) => view! {
                            <ul class="mt-3 divide-y divide-slate-100 text-sm">
                                {rows.into_iter().map(|row| {
                                    let revision = row.revision;
                                    view! {
                                        <li class="flex flex-wrap items-center justify-between gap-2 py-2">
                                            <span>
                                                <span class="font-mono text-xs">{format!("#{revision}")}</span>
                                                " " {row.saved_at} " · " {row.saved_by} " · " {row.reason}
                                            </span>
                                            {can_edit.then(|| view! {
                                                <button type="button" class=SMALL disabled=move || restore.pending().get()
                                                    on:click=move |_| {
                                                        restore.dispatch(RestoreDraft { project_id: project_id.get_value(), revision });
                                                    }>
                                                    "Restore"
                                                </button>
                                            })}
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })}
            </Transition>
        </details>
    }
}
