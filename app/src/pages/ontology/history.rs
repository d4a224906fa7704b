//! The draft's recent saves, each restorable: what to reach for when a save
//! (a roll back, a bootstrap, another editor's overwrite) replaced work.

use crate::api::ontology::{DraftHistoryRow, RestoreDraft, draft_history};
use crate::components::page::ErrorNotice;
use crate::components::style::{CARD, CARD_TITLE, SMALL, SUCCESS};
use crate::error::AppError;
use leptos::prelude::*;

/// The history as the page reads it.
pub type History = Resource<Result<Vec<DraftHistoryRow>, AppError>>;

/// Reads the history of the project `project_id` names, and again after
/// every save (`saved` bumped).
///
/// Created once by the page, never inside the `Suspend` that shows the
/// draft: on the server that `Suspend` runs for each pass its `Transition`
/// makes (one that only looks for resources, then one per poll) once the
/// draft has loaded, so a resource made in it was made once, twice or three
/// times per page, each copy with a hydration id of its own. The browser
/// then read the data of another copy (or none) under its id, rendered
/// something other than the server had, and stopped on an unrecoverable
/// hydration error: the page no longer answered, its Publish tab among it.
/// The copies thrown away with a pass went on fetching outside any context,
/// hence `AppContext was not provided` in the server's log.
pub fn history(project_id: Memo<String>, saved: RwSignal<u32>) -> History {
    Resource::new(
        move || (project_id.get(), saved.get()),
        |(id, _)| draft_history(id),
    )
}

#[component]
pub fn DraftHistory(
    project_id: String,
    /// Read by the page, see [`history`].
    history: History,
    restore: ServerAction<RestoreDraft>,
    can_edit: bool,
) -> impl IntoView {
    let project_id = StoredValue::new(project_id);
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
