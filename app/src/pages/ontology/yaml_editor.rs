//! The whole draft as YAML: checked while it is typed (each problem with its
//! line), saved as one piece, imported from a file.

use crate::api::ontology::{CheckDraft, ProblemView, SaveDraft};
use crate::components::page::ErrorNotice;
use crate::components::style::{BUTTON, CARD, CARD_TITLE, SUCCESS};
use crate::error::AppError;
use leptos::prelude::*;
use std::time::Duration;

/// Typing pauses this long before the draft is checked.
const CHECK_DELAY: Duration = Duration::from_millis(400);

#[component]
pub fn YamlEditor(
    project_id: String,
    yaml: String,
    problems: Vec<ProblemView>,
    /// The draft's revision as read; a save replaces only that one.
    revision: u64,
    save: ServerAction<SaveDraft>,
    can_edit: bool,
) -> impl IntoView {
    let revision = RwSignal::new(revision);
    // The save action outlives this editor: only its saves count here, not a
    // refusal shown before the draft was read again.
    let opened_at = save.version().get_untracked();
    let refused_as_stale = move || {
        save.version().get() > opened_at
            && matches!(save.value().get(), Some(Err(AppError::DraftChanged { .. })))
    };
    Effect::new(move |_| {
        if save.version().get() > opened_at
            && let Some(Ok(saved)) = save.value().get()
        {
            revision.set(saved.revision);
        }
    });
    // What was saved, to tell the user when the editor holds more: edits
    // made elsewhere on the page re-read the draft and would replace them.
    let saved = StoredValue::new(yaml.clone());
    let text = RwSignal::new(yaml);
    let unsaved = move || text.with(|t| saved.with_value(|s| t != s));
    let check = ServerAction::<CheckDraft>::new();
    let typed = RwSignal::new(0u32);
    let project_id = StoredValue::new(project_id);
    let schedule_check = move || {
        typed.update(|n| *n += 1);
        let generation = typed.get_untracked();
        set_timeout(
            move || {
                // The editor may be gone by now (saved and re-rendered): then
                // its signals are disposed and there is nothing to check.
                let (Some(latest), Some(yaml), Some(project_id)) = (
                    typed.try_get_untracked(),
                    text.try_get_untracked(),
                    project_id.try_get_value(),
                ) else {
                    return;
                };
                if latest == generation {
                    check.dispatch(CheckDraft { project_id, yaml });
                }
            },
            CHECK_DELAY,
        );
    };
    let shown = move || match check.value().get() {
        Some(Ok(checked)) => checked,
        _ => problems.clone(),
    };
    // After a refusal as stale, the next click overwrites deliberately.
    let on_save = move |_| {
        save.dispatch(SaveDraft {
            project_id: project_id.get_value(),
            yaml: text.get_untracked(),
            revision: revision.get_untracked(),
            overwrite: refused_as_stale(),
        });
    };
    view! {
        <div class=format!("{CARD} mt-4")>
            <div class="flex flex-wrap items-center justify-between gap-3">
                <h2 class=CARD_TITLE>
                    "YAML"
                    {move || unsaved().then(|| view! {
                        <span class="ml-2 rounded bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900" data-testid="unsaved">
                            "Unsaved: save before editing elsewhere on this page"
                        </span>
                    })}
                </h2>
                {can_edit.then(|| view! { <ImportFile text on_import=schedule_check /> })}
            </div>
            <p class="mt-1 text-sm text-slate-600">"The whole draft as code. Problems are listed with their line as you type; a draft may keep problems, but publishing needs none."</p>
            <textarea
                class="mt-3 block h-96 w-full rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-xs leading-5 focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600"
                aria-label="Ontology YAML" spellcheck="false" readonly=!can_edit data-testid="yaml-editor"
                prop:value=move || text.get()
                on:input=move |ev| {
                    text.set(event_target_value(&ev));
                    schedule_check();
                }
            >{text.get_untracked()}</textarea>
            <div class="mt-3" data-testid="problems">
                {move || {
                    let problems = shown();
                    if problems.is_empty() {
                        view! { <p class="text-sm text-emerald-800">"No problems."</p> }.into_any()
                    } else {
                        view! {
                            <ul class="space-y-1 text-sm text-red-800" role="alert">
                                {problems.into_iter().map(|p| view! {
                                    <li>
                                        <span class="font-mono text-xs">{p.line.map(|l| format!("line {l}: ")).unwrap_or_default()}{p.path}</span>
                                        " — " {p.message}
                                    </li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    }
                }}
            </div>
            {can_edit.then(|| view! {
                <div class="mt-4 flex items-center gap-3">
                    <button type="button" class=BUTTON disabled=move || save.pending().get() on:click=on_save data-testid="save-draft">
                        {move || if refused_as_stale() { "Save anyway, replacing their changes" } else { "Save draft" }}
                    </button>
                    {move || save.value().get().map(|result| match result {
                        Ok(_) => view! { <span class=SUCCESS role="status">"Draft saved."</span> }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    })}
                </div>
            })}
        </div>
    }
}

/// Reads a YAML file chosen on this computer into the editor; saving it is
/// the import.
#[component]
fn ImportFile(
    text: RwSignal<String>,
    on_import: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            let Some(file) = input.files().and_then(|files| files.get(0)) else {
                return;
            };
            leptos::task::spawn_local(async move {
                if let Ok(content) = wasm_bindgen_futures::JsFuture::from(file.text()).await
                    && let Some(content) = content.as_string()
                    // The editor may have gone while the file was read.
                    && text.try_set(content).is_none()
                {
                    on_import();
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, text, on_import);
    };
    view! {
        <label class="cursor-pointer text-sm font-medium text-purple-800 hover:underline">
            "Import a YAML file…"
            <input type="file" accept=".yaml,.yml,text/yaml" class="sr-only" on:change=on_change />
        </label>
    }
}
