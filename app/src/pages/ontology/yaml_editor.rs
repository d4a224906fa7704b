//! The whole draft as YAML: checked while it is typed (each problem with its
//! line), saved as one piece, imported from a file.

use crate::api::imports::ConvertImport;
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
    // A file chosen to import, converted on the server when it is a dbt or
    // Cortex semantic model, becomes the editor's text.
    let convert = ServerAction::<ConvertImport>::new();
    Effect::new(move |_| {
        if let Some(Ok(converted)) = convert.value().get()
            && text.try_set(converted.yaml).is_none()
        {
            schedule_check();
        }
    });
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
                {can_edit.then(|| view! { <ImportFile project_id convert /> })}
            </div>
            <p class="mt-1 text-sm text-slate-600">"The whole draft as code. Problems are listed with their line as you type; a draft may keep problems, but publishing needs none."</p>
            <ImportWarnings convert />
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

/// Reads the YAML files chosen on this computer (Cassis's, a Snowflake
/// Cortex Analyst semantic model, or a dbt project's semantic layer files)
/// and sends them to be converted; saving the result is the import.
#[component]
fn ImportFile(
    project_id: StoredValue<String>,
    convert: ServerAction<ConvertImport>,
) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            let Some(list) = input.files() else {
                return;
            };
            let files: Vec<web_sys::File> =
                (0..list.length()).filter_map(|i| list.get(i)).collect();
            leptos::task::spawn_local(async move {
                let (mut names, mut texts) = (Vec::new(), Vec::new());
                for file in files {
                    let Ok(content) = wasm_bindgen_futures::JsFuture::from(file.text()).await
                    else {
                        return;
                    };
                    names.push(file.name());
                    texts.push(content.as_string().unwrap_or_default());
                }
                // The editor may have gone while the files were read.
                if let Some(project_id) = project_id.try_get_value() {
                    convert.dispatch(ConvertImport {
                        project_id,
                        names,
                        texts,
                    });
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, project_id, convert);
    };
    view! {
        <label class="cursor-pointer text-sm font-medium text-purple-800 hover:underline" title="Cassis YAML, a Snowflake Cortex Analyst semantic model, or a dbt project's semantic_models and metrics files">
            "Import a file: Cassis, dbt or Snowflake…"
            <input type="file" multiple=true accept=".yaml,.yml,text/yaml" class="sr-only" on:change=on_change data-testid="import-file" />
        </label>
    }
}

/// What an import from dbt or Cortex could not carry over as it was, or
/// why nothing was imported.
#[component]
fn ImportWarnings(convert: ServerAction<ConvertImport>) -> impl IntoView {
    move || {
        match convert.value().get() {
        Some(Ok(converted)) if !converted.warnings.is_empty() => view! {
            <div class="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3" data-testid="import-warnings">
                <p class="text-sm font-semibold text-amber-900">
                    {format!("Imported with {} warning(s): review them, then save the draft.", converted.warnings.len())}
                </p>
                <ul class="mt-1 list-disc space-y-0.5 pl-5 font-mono text-xs text-amber-900">
                    {converted.warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
                </ul>
            </div>
        }
        .into_any(),
        Some(Err(error)) => view! { <div class="mt-3"><ErrorNotice error /></div> }.into_any(),
        _ => ().into_any(),
    }
    }
}
