//! Publishing a project's draft: what changes, whether the verified
//! questions still get their answers, the note, and the version history
//! with diffs and roll-back.

use crate::api::publishing::{
    CompareVersions, PublishDraft, PublishPreview, RollBack, VersionRow, check_regressions,
    list_versions, preview_publish,
};
use crate::components::page::{ErrorNotice, Loading};
use crate::components::project_tabs::ProjectTabs;
use crate::components::style::{BUTTON, CARD, CARD_TITLE, INPUT, LABEL, SECONDARY, SMALL, SUCCESS};
use crate::error::AppError;
use crate::pages::project_settings::project_id_param;
use cassis_core::engine::regression::{RegressionCheck, Verdict};
use cassis_core::ontology::{Change, ChangeKind};
use leptos::prelude::*;

#[component]
pub fn PublishPage() -> impl IntoView {
    let id = project_id_param();
    let publish = ServerAction::<PublishDraft>::new();
    let roll_back = ServerAction::<RollBack>::new();
    // Read again only after something was published: a refused publish
    // keeps the page, and the regression results, as they are.
    let published = RwSignal::new(0u32);
    Effect::new(move |_| {
        if matches!(publish.value().get(), Some(Ok(_))) {
            published.update(|n| *n += 1);
        }
    });
    Effect::new(move |_| {
        if matches!(roll_back.value().get(), Some(Ok(_))) {
            published.update(|n| *n += 1);
        }
    });
    let changed = move || (id.get(), published.get(), 0);
    let preview = Resource::new(changed, |(id, _, _)| preview_publish(id));
    let versions = Resource::new(changed, |(id, _, _)| list_versions(id));
    let name = Resource::new(move || id.get(), crate::api::ontology::get_draft);
    // Answering every verified question twice takes seconds: the page is
    // served at once, and once it is interactive (effects run only in the
    // browser) it asks for the check. Read here, not in the preview that
    // shows it: a resource made inside a `Suspend` is made once per pass the
    // server's `Transition` makes, a varying number of times, and the
    // browser then hydrates against the wrong data (see the ontology page's
    // `history`).
    let interactive = RwSignal::new(false);
    Effect::new(move |_| interactive.set(true));
    let checks = Resource::new(
        move || (id.get(), published.get(), interactive.get()),
        move |(id, _, interactive)| async move {
            if !interactive {
                return Ok(None);
            }
            match preview.await {
                Ok(p) if p.can_publish && p.has_draft => check_regressions(id).await.map(Some),
                _ => Ok(None),
            }
        },
    );

    view! {
        <Transition fallback=Loading>
            {move || Suspend::new(async move {
                let title = name.await.map(|d| d.project_name).unwrap_or_default();
                view! { <ProjectTabs project_id=id.get_untracked() name=title page="Publish" /> }
            })}
        </Transition>
        <Transition fallback=Loading>
            {move || Suspend::new(async move {
                match preview.await {
                    Ok(preview) => view! { <Preview project_id=id.get_untracked() preview checks publish /> }.into_any(),
                    Err(error) => view! { <ErrorNotice error /> }.into_any(),
                }
            })}
        </Transition>
        <Transition fallback=Loading>
            {move || Suspend::new(async move {
                match versions.await {
                    Ok(versions) => view! { <History project_id=id.get_untracked() versions roll_back /> }.into_any(),
                    Err(error) => view! { <ErrorNotice error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn ChangeList(changes: Vec<Change>) -> impl IntoView {
    if changes.is_empty() {
        return view! { <p class="text-sm text-slate-500">"No differences."</p> }.into_any();
    }
    view! {
        <ul class="space-y-1 font-mono text-xs" data-testid="changes">
            {changes.into_iter().map(|c| {
                let color = match c.kind {
                    ChangeKind::Added => "text-emerald-800",
                    ChangeKind::Removed => "text-red-800",
                    ChangeKind::Changed => "text-amber-800",
                };
                view! { <li class=color>{c.to_string()}</li> }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn Preview(
    project_id: String,
    preview: PublishPreview,
    /// The verified questions' check, read by the page.
    checks: Resource<Result<Option<Vec<RegressionCheck>>, AppError>>,
    publish: ServerAction<PublishDraft>,
) -> impl IntoView {
    let PublishPreview {
        latest_version,
        has_draft,
        changes,
        problems,
        verified_questions,
        can_publish,
    } = preview;
    let against = latest_version.map_or("nothing published yet".to_owned(), |v| {
        format!("version {v}")
    });
    let blocked = !problems.is_empty();
    view! {
        <div class=CARD>
            <h2 class=CARD_TITLE>{format!("The draft against {against}")}</h2>
            <div class="mt-3">
                {if has_draft { view! { <ChangeList changes /> }.into_any() } else {
                    view! { <p class="text-sm text-slate-500">"There is no draft yet: bootstrap one on the Ontology tab."</p> }.into_any()
                }}
            </div>
            {blocked.then(|| view! {
                <div class="mt-4 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" role="alert">
                    <p class="font-semibold">{format!("{} problem(s) block publishing; fix them on the Ontology tab:", problems.len())}</p>
                    <ul class="mt-1 list-disc pl-5">{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                </div>
            })}
        </div>
        {(can_publish && has_draft).then(|| view! {
            <div class=format!("{CARD} mt-4")>
                <h2 class=CARD_TITLE>"Verified questions"</h2>
                <Suspense fallback=move || view! {
                    <p class="mt-2 text-sm text-slate-600" role="status">
                        {format!("Asking the verified questions under the draft and under {against}…")}
                    </p>
                }>
                    {move || Suspend::new(async move {
                        match checks.await {
                            Ok(Some(checks)) => view! { <Checks checks verified_questions /> }.into_any(),
                            Ok(None) => view! {
                                <p class="mt-2 text-sm text-slate-600" role="status">"Asking the verified questions under the draft and the latest version…"</p>
                            }.into_any(),
                            Err(error) => view! { <ErrorNotice error /> }.into_any(),
                        }
                    })}
                </Suspense>
            </div>
            <div class=format!("{CARD} mt-4")>
                <h2 class=CARD_TITLE>"Publish"</h2>
                <ActionForm action=publish attr:class="mt-3 space-y-3">
                    <input type="hidden" name="project_id" value=project_id.clone() />
                    <div>
                        <label for="publish-note" class=LABEL>"Note (why this version exists)"</label>
                        <input id="publish-note" name="note" type="text" class=INPUT placeholder="Added race wins and driver synonyms" />
                    </div>
                    <label class="flex items-center gap-2 text-sm text-slate-700">
                        <input type="checkbox" name="confirm_regressions" value="true" />
                        "Publish even if verified questions would get a different answer"
                    </label>
                    <div class="flex items-center gap-3">
                        <button type="submit" class=BUTTON disabled=move || blocked || publish.pending().get()>"Publish"</button>
                        {move || publish.pending().get().then(|| view! {
                            <span class="text-sm text-slate-600" role="status">"Checking the verified questions and publishing…"</span>
                        })}
                    </div>
                </ActionForm>
                {move || publish.value().get().map(|result| match result {
                    Ok(number) => view! { <p class=format!("{SUCCESS} mt-3") role="status">{format!("Published version {number}. New chats use it; chats already started stay on theirs.")}</p> }.into_any(),
                    Err(error) => view! { <div class="mt-3"><ErrorNotice error /></div> }.into_any(),
                })}
            </div>
        })}
    }
}

#[component]
fn Checks(checks: Vec<RegressionCheck>, verified_questions: usize) -> impl IntoView {
    if checks.is_empty() {
        return view! {
            <p class="mt-2 text-sm text-slate-500">"No verified questions yet. Verify good answers from the Activity page, or add them in YAML."</p>
        }.into_any();
    }
    let regressions = checks.iter().filter(|c| c.is_regression()).count();
    let summary = if regressions == 0 {
        format!(
            "All {} question(s) answer as before or better ({verified_questions} in the draft).",
            checks.len()
        )
    } else {
        format!(
            "{regressions} of {} question(s) would change or fail: look before publishing.",
            checks.len()
        )
    };
    let color = if regressions > 0 {
        "text-red-800"
    } else {
        "text-emerald-800"
    };
    view! {
        <p class=format!("mt-2 text-sm {color}") data-testid="regression-summary">{summary}</p>
        <ul class="mt-3 divide-y divide-slate-100 text-sm" data-testid="regressions">
            {checks.into_iter().map(|check| {
                let (badge, color, detail) = match &check.verdict {
                    Verdict::Unchanged => ("unchanged", "bg-slate-100 text-slate-700", String::new()),
                    Verdict::Changed(how) => ("changes", "bg-amber-100 text-amber-900", how.clone()),
                    Verdict::Fails(why) => ("fails", "bg-red-100 text-red-900", why.clone()),
                    Verdict::StillFails(why) => ("still fails", "bg-red-100 text-red-900", why.clone()),
                    Verdict::Fixed => ("now answered", "bg-emerald-100 text-emerald-900", String::new()),
                    Verdict::New => ("answered", "bg-emerald-100 text-emerald-900", String::new()),
                };
                view! {
                    <li class="flex items-start justify-between gap-4 py-2">
                        <div>
                            <p class="font-medium text-slate-900">{check.question}</p>
                            {(!detail.is_empty()).then(|| view! { <p class="text-xs text-slate-600">{detail}</p> })}
                        </div>
                        <span class=format!("shrink-0 rounded px-2 py-0.5 text-xs font-semibold {color}")>{badge}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn History(
    project_id: String,
    versions: Vec<VersionRow>,
    roll_back: ServerAction<RollBack>,
) -> impl IntoView {
    let compare = ServerAction::<CompareVersions>::new();
    let from = RwSignal::new(versions.get(1).map_or(0, |v| v.number));
    let to = RwSignal::new(versions.first().map_or(0, |v| v.number));
    let pid = StoredValue::new(project_id);
    let options = versions.iter().map(|v| v.number).collect::<Vec<_>>();
    let select = move |signal: RwSignal<u32>, label: &'static str| {
        let options = options.clone();
        view! {
            <label class="text-sm text-slate-700">{label}" "
                <select class="rounded-md border border-slate-300 px-2 py-1 text-sm" aria-label=label
                    on:change=move |ev| signal.set(event_target_value(&ev).parse().unwrap_or(0))>
                    <option value="0" selected=move || signal.get() == 0>"draft"</option>
                    {options.iter().map(|n| {
                        let n = *n;
                        view! { <option value=n.to_string() selected=move || signal.get() == n>{format!("version {n}")}</option> }
                    }).collect_view()}
                </select>
            </label>
        }
    };
    view! {
        <div class=format!("{CARD} mt-4")>
            <h2 class=CARD_TITLE>"Version history"</h2>
            {if versions.is_empty() {
                view! { <p class="mt-2 text-sm text-slate-500">"Nothing published yet."</p> }.into_any()
            } else {
                view! {
                    <table class="mt-3 min-w-full divide-y divide-slate-200 text-sm" data-testid="versions">
                        <thead class="text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                            <tr><th class="py-2">"Version"</th><th>"Published by"</th><th>"When"</th><th>"Note"</th><th></th></tr>
                        </thead>
                        <tbody class="divide-y divide-slate-100">
                            {versions.iter().enumerate().map(|(i, v)| {
                                let number = v.number;
                                view! {
                                    <tr>
                                        <td class="py-2 font-semibold">{format!("v{number}")}</td>
                                        <td class="text-slate-700">{v.published_by.clone()}</td>
                                        <td class="text-slate-500">{v.published_at.clone()}</td>
                                        <td class="text-slate-700">{v.note.clone()}</td>
                                        <td class="text-right">
                                            {(i > 0).then(|| view! {
                                                <button type="button" class=SMALL on:click=move |_| {
                                                    roll_back.dispatch(RollBack { project_id: pid.get_value(), to: number, note: String::new() });
                                                }>{format!("Roll back to v{number}")}</button>
                                            })}
                                        </td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            {move || roll_back.value().get().map(|result| match result {
                Ok(number) => view! { <p class=format!("{SUCCESS} mt-3") role="status">{format!("Rolled back: published as version {number}; the draft follows it.")}</p> }.into_any(),
                Err(error) => view! { <div class="mt-3"><ErrorNotice error /></div> }.into_any(),
            })}
            <div class="mt-5 flex flex-wrap items-center gap-3 border-t border-slate-100 pt-4">
                <span class="text-sm font-medium text-slate-700">"Compare"</span>
                {select(from, "from")}
                {select(to, "to")}
                <button type="button" class=SECONDARY on:click=move |_| {
                    compare.dispatch(CompareVersions { project_id: pid.get_value(), from: from.get_untracked(), to: to.get_untracked() });
                }>"Show differences"</button>
            </div>
            {move || compare.value().get().map(|result| match result {
                Ok(changes) => view! { <div class="mt-3"><ChangeList changes /></div> }.into_any(),
                Err(error) => view! { <div class="mt-3"><ErrorNotice error /></div> }.into_any(),
            })}
        </div>
    }
}
