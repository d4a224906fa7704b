//! The shell of a page that lists what the server holds (API keys, clients,
//! users, activity): "Loading…" while the list loads, a dashed note when it
//! is empty, the error said plainly when it fails, else the list.

use crate::components::page::{ErrorNotice, Loading};
use crate::error::AppError;
use leptos::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Awaits `resource` and shows its items with `render`. With `empty`, a
/// list with no items shows that note instead; without it, `render` gets
/// the empty list too (a table of users always has the one signed in).
#[component]
pub fn ResourceList<T, F, V>(
    resource: Resource<Result<Vec<T>, AppError>>,
    /// What an empty list says, such as "No API keys yet."
    #[prop(optional)]
    empty: Option<&'static str>,
    /// The view of a non-empty list.
    render: F,
) -> impl IntoView
where
    T: Clone + Send + Sync + Serialize + DeserializeOwned + 'static,
    F: Fn(Vec<T>) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    view! {
        <Suspense fallback=Loading>
            {move || {
                let render = render.clone();
                Suspend::new(async move {
                    match resource.await {
                        Ok(items) if items.is_empty() && empty.is_some() => view! {
                            <p class="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500">
                                {empty}
                            </p>
                        }.into_any(),
                        Ok(items) => render(items).into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })
            }}
        </Suspense>
    }
}

/// A bordered table whose header row names `columns` (an empty name for a
/// column of buttons) and whose body is `children`, the rows.
#[component]
pub fn DataTable(
    /// The table's `data-testid`, which the browser tests find it by.
    testid: &'static str,
    columns: &'static [&'static str],
    children: Children,
) -> impl IntoView {
    view! {
        <div class="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-sm" data-testid=testid>
                <thead class="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                    <tr>{columns.iter().map(|column| view! { <th class="px-4 py-3">{*column}</th> }).collect_view()}</tr>
                </thead>
                <tbody class="divide-y divide-slate-100">{children()}</tbody>
            </table>
        </div>
    }
}
