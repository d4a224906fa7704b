//! The ontology editor of one project: a searchable tree of the model, the
//! selected element with its synonyms, a diagram of objects and joins, a
//! form for metrics, the draft as YAML checked while it is typed, and
//! bootstrapping from the data source or DDL.

mod diagram;
mod history;
mod outline;
mod yaml_editor;

use crate::api::ontology::{
    AddMetric, AddRule, AddVerifiedQuestion, BootstrapDraft, DraftView, RemoveElement,
    RestoreDraft, SaveDraft, SetSynonyms, UpdateElement, get_draft,
};
use crate::components::page::{ErrorNotice, Loading};
use crate::components::project_tabs::ProjectTabs;
use crate::components::style::{
    BUTTON, CARD, CARD_TITLE, FIELD_ERROR, INPUT, LABEL, SECONDARY, SMALL, SUCCESS,
};
use crate::pages::project_settings::project_id_param;
use cassis_core::ontology::{Aggregate, Grain, Take};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use outline::{ElementView, describe, entries};

/// Actions whose results outlive a reload of the draft, so a message or a
/// refused form stays on screen after the editor below re-renders.
#[derive(Clone, Copy)]
struct Actions {
    save: ServerAction<SaveDraft>,
    synonyms: ServerAction<SetSynonyms>,
    metric: ServerAction<AddMetric>,
    bootstrap: ServerAction<BootstrapDraft>,
    texts: ServerAction<UpdateElement>,
    rule: ServerAction<AddRule>,
    question: ServerAction<AddVerifiedQuestion>,
    remove: ServerAction<RemoveElement>,
    restore: ServerAction<RestoreDraft>,
    /// Bumped after every change that was saved: the draft is read again.
    saved: RwSignal<u32>,
    /// The element shown beside the tree, by path.
    selected: RwSignal<Option<String>>,
    search: RwSignal<String>,
}

/// Runs `reload` after each success of `action` that `changed` says
/// changed the draft.
fn reload_after<S>(
    action: ServerAction<S>,
    changed: fn(&S::Output) -> bool,
    reload: impl Fn() + 'static,
) where
    S: ServerFn + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
    S::Error: Clone + Send + Sync + 'static,
{
    Effect::new(move |_| {
        if let Some(Ok(output)) = action.value().get()
            && changed(&output)
        {
            reload();
        }
    });
}

/// Every success of an action that always saves counts.
fn always<T>(_: &T) -> bool {
    true
}

#[component]
pub fn OntologyPage() -> impl IntoView {
    let id = project_id_param();
    let actions = Actions {
        save: ServerAction::new(),
        synonyms: ServerAction::new(),
        metric: ServerAction::new(),
        bootstrap: ServerAction::new(),
        texts: ServerAction::new(),
        rule: ServerAction::new(),
        question: ServerAction::new(),
        remove: ServerAction::new(),
        restore: ServerAction::new(),
        saved: RwSignal::new(0),
        selected: RwSignal::new(None),
        search: RwSignal::new(String::new()),
    };
    // The one registry of what reads the draft again: each action that
    // saved something, and whether that success changed the draft (a form
    // refused with problems did not).
    let reload = move || actions.saved.update(|n| *n += 1);
    let deselect_and_reload = move || {
        actions.selected.set(None);
        reload();
    };
    reload_after(actions.save, always, reload);
    reload_after(actions.synonyms, always, reload);
    reload_after(actions.metric, Vec::is_empty, reload);
    reload_after(actions.bootstrap, always, reload);
    reload_after(actions.rule, Vec::is_empty, reload);
    reload_after(actions.question, Vec::is_empty, reload);
    reload_after(actions.texts, always, reload);
    reload_after(actions.remove, always, deselect_and_reload);
    reload_after(actions.restore, always, deselect_and_reload);
    let draft = Resource::new(
        move || (id.get(), actions.saved.get()),
        |(id, _)| get_draft(id),
    );
    // Here, beside the draft, and not in the editor it shows: see `history`.
    let history = history::history(id, actions.saved);

    view! {
        <Transition fallback=Loading>
            {move || Suspend::new(async move {
                match draft.await {
                    Ok(draft) => view! { <Editor project_id=id.get_untracked() draft history actions /> }.into_any(),
                    Err(error) => view! { <ErrorNotice error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Editor(
    project_id: String,
    draft: DraftView,
    history: history::History,
    actions: Actions,
) -> impl IntoView {
    let problems = draft.problems.len();
    let status = format!(
        "{} · {} · {}",
        draft
            .updated_at
            .as_ref()
            .map_or("No draft saved yet".to_owned(), |at| format!(
                "Draft revision {} saved {at}{}",
                draft.revision,
                draft
                    .updated_by
                    .as_ref()
                    .map(|by| format!(" by {by}"))
                    .unwrap_or_default()
            )),
        draft
            .latest_version
            .map_or("nothing published yet".to_owned(), |v| format!(
                "latest published version {v}"
            )),
        match problems {
            0 => "no problems".to_owned(),
            1 => "1 problem to fix before publishing".to_owned(),
            n => format!("{n} problems to fix before publishing"),
        }
    );
    let ontology = StoredValue::new(draft.ontology.clone());
    let can_edit = draft.can_edit;
    let export = format!("/projects/{project_id}/ontology.yaml");
    view! {
        <ProjectTabs project_id=project_id.clone() name=draft.project_name.clone() page="Ontology" />
        <div class="mb-4 flex flex-wrap items-center justify-between gap-3">
            <p class="text-sm text-slate-600" data-testid="draft-status">{status}</p>
            <div class="flex gap-2">
                <a href=export class=SECONDARY download="ontology.yaml">"Export YAML"</a>
                <a href=format!("/projects/{project_id}/publish") class=BUTTON>"Review and publish"</a>
            </div>
        </div>
        {(!can_edit).then(|| view! {
            <p class="mb-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
                "You can read this ontology; only editors and admins change it."
            </p>
        })}
        <div class="grid gap-4 lg:grid-cols-[18rem_1fr]">
            <Tree ontology actions />
            <Detail project_id=project_id.clone() ontology actions can_edit />
        </div>
        <div class=format!("{CARD} mt-4")>
            <h2 class=CARD_TITLE>"Objects and joins"</h2>
            <diagram::Diagram ontology=draft.ontology.clone() />
        </div>
        {can_edit.then(|| view! { <MetricForm project_id=project_id.clone() ontology actions /> })}
        {can_edit.then(|| view! { <RuleAndQuestionForms project_id=project_id.clone() actions /> })}
        <yaml_editor::YamlEditor project_id=project_id.clone() yaml=draft.yaml problems=draft.problems revision=draft.revision save=actions.save can_edit />
        <history::DraftHistory project_id=project_id.clone() history restore=actions.restore can_edit />
        {can_edit.then(|| view! { <Bootstrap project_id=project_id.clone() actions /> })}
    }
}

#[component]
fn Tree(ontology: StoredValue<cassis_core::ontology::Ontology>, actions: Actions) -> impl IntoView {
    let all = ontology.with_value(entries);
    let visible = move || outline::matching(&all, &actions.search.get());
    view! {
        <div class=CARD>
            <input type="search" class=INPUT placeholder="Search the model" aria-label="Search the model"
                prop:value=move || actions.search.get() on:input=move |ev| actions.search.set(event_target_value(&ev)) />
            <ul class="mt-3 max-h-[32rem] space-y-0.5 overflow-y-auto text-sm" data-testid="ontology-tree">
                {move || {
                    let entries = visible();
                    if entries.is_empty() {
                        return view! { <li class="px-2 py-1 text-slate-500">"Nothing matches."</li> }.into_any();
                    }
                    entries.into_iter().map(|entry| {
                        let path = entry.path.clone();
                        let is_selected = {
                            let path = path.clone();
                            move || actions.selected.get().as_deref() == Some(path.as_str())
                        };
                        let indent = if entry.depth > 0 { "pl-6" } else { "" };
                        match entry.path.is_empty() {
                            true => view! {
                                <li class="mt-2 px-2 text-xs font-semibold uppercase tracking-wide text-slate-500">{entry.label}</li>
                            }.into_any(),
                            false => view! {
                                <li class=indent>
                                    <button type="button"
                                        class="w-full truncate rounded px-2 py-1 text-left hover:bg-slate-100"
                                        class:bg-purple-50=is_selected.clone()
                                        class:text-purple-900=is_selected
                                        on:click=move |_| actions.selected.set(Some(path.clone()))>
                                        {entry.label}" "
                                        <span class="text-xs text-slate-400">{entry.hint}</span>
                                    </button>
                                </li>
                            }.into_any(),
                        }
                    }).collect_view().into_any()
                }}
            </ul>
        </div>
    }
}

#[component]
fn Detail(
    project_id: String,
    ontology: StoredValue<cassis_core::ontology::Ontology>,
    actions: Actions,
    can_edit: bool,
) -> impl IntoView {
    let project_id = StoredValue::new(project_id);
    view! {
        <div class=CARD data-testid="element-detail">
            {move || {
                let Some(path) = actions.selected.get() else {
                    return view! {
                        <p class="text-sm text-slate-500">"Choose an element in the tree to see it and edit its synonyms."</p>
                    }.into_any();
                };
                match ontology.with_value(|o| describe(o, &path)) {
                    Some(element) => view! { <ElementCard element project_id=project_id.get_value() actions can_edit /> }.into_any(),
                    None => view! { <p class="text-sm text-slate-500">"That element is no longer in the draft."</p> }.into_any(),
                }
            }}
        </div>
    }
}

#[component]
fn ElementCard(
    element: ElementView,
    project_id: String,
    actions: Actions,
    can_edit: bool,
) -> impl IntoView {
    let ElementView {
        path,
        kind,
        title,
        facts,
        synonyms,
        label,
        description,
    } = element;
    let texts = can_edit.then(|| {
        view! { <TextsForm project_id=project_id.clone() path=path.clone() kind label description actions /> }
    });
    let new_synonym = RwSignal::new(String::new());
    let dispatch = {
        let (project_id, path) = (project_id.clone(), path.clone());
        move |synonyms: Vec<String>| {
            actions.synonyms.dispatch(SetSynonyms {
                project_id: project_id.clone(),
                element: path.clone(),
                synonyms,
            });
        }
    };
    let add = {
        let (synonyms, dispatch) = (synonyms.clone().unwrap_or_default(), dispatch.clone());
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let typed = new_synonym.get_untracked();
            if typed.trim().is_empty() {
                return;
            }
            let mut next = synonyms.clone();
            next.push(typed);
            dispatch(next);
            new_synonym.set(String::new());
        }
    };
    view! {
        <p class="text-xs font-semibold uppercase tracking-wide text-slate-500">{kind}</p>
        <h2 class="mt-1 text-lg font-semibold">{title}</h2>
        <p class="font-mono text-xs text-slate-500">{path.clone()}</p>
        <dl class="mt-4 grid grid-cols-[8rem_1fr] gap-x-4 gap-y-2 text-sm">
            {facts.into_iter().map(|(label, value)| view! {
                <dt class="text-slate-500">{label}</dt>
                <dd class="break-words text-slate-800">{value}</dd>
            }).collect_view()}
        </dl>
        {synonyms.map(|synonyms| {
            let chips = synonyms.iter().enumerate().map(|(i, synonym)| {
                let (all, dispatch) = (synonyms.clone(), dispatch.clone());
                let remove = move |_| {
                    let mut next = all.clone();
                    next.remove(i);
                    dispatch(next);
                };
                view! {
                    <li class="flex items-center gap-1 rounded-full bg-purple-50 px-3 py-1 text-xs text-purple-900">
                        {synonym.clone()}
                        {can_edit.then(|| view! {
                            <button type="button" class="ml-1 text-purple-500 hover:text-purple-900"
                                aria-label=format!("Remove synonym {synonym}") on:click=remove.clone()>"×"</button>
                        })}
                    </li>
                }
            }).collect_view();
            view! {
                <h3 class="mt-5 text-sm font-semibold text-slate-700">"Synonyms"</h3>
                <p class="text-xs text-slate-500">"Other words people use for it; questions that use them find it."</p>
                <ul class="mt-2 flex flex-wrap gap-2" data-testid="synonyms">
                    {if synonyms.is_empty() { Some(view! { <li class="text-sm text-slate-400">"None yet."</li> }) } else { None }}
                    {chips}
                </ul>
                {can_edit.then(|| view! {
                    <form class="mt-3 flex gap-2" on:submit=add.clone()>
                        <input type="text" class=INPUT aria-label="New synonym" placeholder="Add a synonym"
                            prop:value=move || new_synonym.get() on:input=move |ev| new_synonym.set(event_target_value(&ev)) />
                        <button type="submit" class=SECONDARY>"Add"</button>
                    </form>
                })}
            }
        })}
        {move || actions.synonyms.value().get().and_then(Result::err).map(|error| view! { <div class="mt-3"><ErrorNotice error /></div> })}
        {texts}
    }
}

/// The label and description of the selected element, and removing it.
#[component]
fn TextsForm(
    project_id: String,
    path: String,
    kind: &'static str,
    label: Option<String>,
    description: String,
    actions: Actions,
) -> impl IntoView {
    let has_label = label.is_some();
    let label = RwSignal::new(label.unwrap_or_default());
    let description = RwSignal::new(description);
    let confirming = RwSignal::new(false);
    let (project_id, path) = (StoredValue::new(project_id), StoredValue::new(path));
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        actions.texts.dispatch(UpdateElement {
            project_id: project_id.get_value(),
            element: path.get_value(),
            label: label.get_untracked(),
            description: description.get_untracked(),
        });
    };
    let remove = move |_| {
        if confirming.get_untracked() {
            actions.remove.dispatch(RemoveElement {
                project_id: project_id.get_value(),
                element: path.get_value(),
            });
        } else {
            confirming.set(true);
        }
    };
    let text_label = if kind == "Business rule" {
        "Rule"
    } else {
        "Description"
    };
    view! {
        <form class="mt-5 space-y-3 border-t border-slate-100 pt-4" on:submit=save>
            {has_label.then(|| view! {
                <div>
                    <label for="element-label" class=LABEL>"Label"</label>
                    <input id="element-label" type="text" class=INPUT prop:value=move || label.get()
                        on:input=move |ev| label.set(event_target_value(&ev)) />
                </div>
            })}
            <div>
                <label for="element-description" class=LABEL>{text_label}</label>
                <textarea id="element-description" rows="2" class=INPUT prop:value=move || description.get()
                    on:input=move |ev| description.set(event_target_value(&ev))>{description.get_untracked()}</textarea>
            </div>
            <div class="flex flex-wrap items-center gap-3">
                <button type="submit" class=SECONDARY disabled=move || actions.texts.pending().get()>"Save"</button>
                <button type="button" class="text-sm font-medium text-red-700 hover:underline" on:click=remove>
                    {move || if confirming.get() { format!("Click again to remove this {} from the draft", kind.to_lowercase()) } else { "Remove…".to_owned() }}
                </button>
                {move || actions.texts.value().get().and_then(Result::err).or_else(|| actions.remove.value().get().and_then(Result::err))
                    .map(|error| view! { <ErrorNotice error /> })}
            </div>
        </form>
    }
}

/// The kinds of metric the form offers, as the YAML's `type` names them,
/// with what each computes.
const METRIC_KINDS: [(&str, &str); 5] = [
    ("simple", "an aggregate over one object's rows"),
    ("ratio", "a ratio: one metric divided by another"),
    ("derived", "derived: an expression over other metrics"),
    ("growth", "a growth: the change from the period before"),
    ("cumulative", "a running total, period after period"),
];

#[component]
fn MetricForm(
    project_id: String,
    ontology: StoredValue<cassis_core::ontology::Ontology>,
    actions: Actions,
) -> impl IntoView {
    let objects: Vec<String> =
        ontology.with_value(|o| o.objects.iter().map(|o| o.name.clone()).collect());
    // What a ratio, a growth or a running total may be of: suggested, not
    // imposed, so a name typed wrong is named next to its field.
    let metrics: Vec<String> =
        ontology.with_value(|o| o.metrics.iter().map(|m| m.name.clone()).collect());
    // What a level may be read at: every object's time attributes.
    let times: Vec<String> = ontology.with_value(|o| {
        let mut names: Vec<String> = o
            .objects
            .iter()
            .flat_map(|o| &o.attributes)
            .filter(|a| a.role == cassis_core::ontology::AttributeRole::Time)
            .map(|a| a.name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    });
    let kind = RwSignal::new("simple".to_owned());
    let is = move |kinds: &'static [&'static str]| move || kinds.contains(&kind.get().as_str());
    let outcome = Signal::derive(move || actions.metric.value().get());
    let problem = move |field: &'static str| field_problem(outcome, field);
    let aggregates = [
        (Aggregate::Count, "count", "count of rows"),
        (
            Aggregate::CountDistinct,
            "count_distinct",
            "count of distinct values",
        ),
        (Aggregate::Sum, "sum", "sum"),
        (Aggregate::Avg, "avg", "average"),
        (Aggregate::Min, "min", "minimum"),
        (Aggregate::Max, "max", "maximum"),
    ];
    let grains = || {
        Grain::ALL
            .into_iter()
            .rev()
            .map(|g| view! { <option value=g.name()>{g.name()}</option> })
            .collect_view()
    };
    let metric_name = move |id: &'static str,
                            label: &'static str,
                            field: &'static str,
                            shown: &'static [&'static str]| {
        view! {
            <div class:hidden=move || !is(shown)()>
                <label for=id class=LABEL>{label}</label>
                <input id=id name=format!("metric[{field}]") type="text" list="metric-names" autocomplete="off" class=INPUT />
                {problem(field)}
            </div>
        }
    };
    let added = added(outcome);
    view! {
        <div class=format!("{CARD} mt-4")>
            <h2 class=CARD_TITLE>"Add a metric"</h2>
            <p class="mt-1 text-sm text-slate-600">"A number people ask for, such as wins or revenue: an aggregate over one object, with optional conditions; a ratio of two metrics, such as wins per start; an expression over metrics, such as margin; a growth from one period to the one before; a running or rolling total, such as revenue year to date or over the last 3 months; or a level such as a balance, read at its last value per period."</p>
            <ActionForm action=actions.metric attr:class="mt-4 grid gap-4 md:grid-cols-2" attr:data-testid="metric-form">
                <input type="hidden" name="project_id" value=project_id />
                <datalist id="metric-names">
                    {metrics.into_iter().map(|m| view! { <option value=m></option> }).collect_view()}
                </datalist>
                <div>
                    <label for="metric-name" class=LABEL>"Name"</label>
                    <input id="metric-name" name="metric[name]" type="text" class=INPUT placeholder="race_wins" />
                    {problem("name")}
                </div>
                <div>
                    <label for="metric-label" class=LABEL>"Label"</label>
                    <input id="metric-label" name="metric[label]" type="text" class=INPUT placeholder="Race wins" />
                </div>
                <div>
                    <label for="metric-kind" class=LABEL>"Type"</label>
                    <select id="metric-kind" name="metric[kind]" class=INPUT
                        on:change=move |ev| kind.set(event_target_value(&ev))>
                        {METRIC_KINDS.into_iter().map(|(value, label)| view! { <option value=value>{label}</option> }).collect_view()}
                    </select>
                    {problem("type")}
                </div>
                <div>
                    <label for="metric-object" class=LABEL>"Object"</label>
                    <select id="metric-object" name="metric[object]" class=INPUT>
                        {objects.into_iter().map(|o| view! { <option value=o.clone()>{o.clone()}</option> }).collect_view()}
                    </select>
                    {problem("object")}
                </div>
                <div class:hidden=move || !is(&["simple"])()>
                    <label for="metric-aggregate" class=LABEL>"Aggregate"</label>
                    <select id="metric-aggregate" name="metric[aggregate]" class=INPUT>
                        {aggregates.into_iter().map(|(_, value, label)| view! { <option value=value>{label}</option> }).collect_view()}
                    </select>
                    {problem("aggregate")}
                </div>
                {metric_name("metric-numerator", "Numerator (the metric divided)", "numerator", &["ratio"])}
                {metric_name("metric-denominator", "Denominator (the metric it is divided by)", "denominator", &["ratio"])}
                {metric_name("metric-of", "Of (the metric it follows over periods)", "of", &["growth", "cumulative"])}
                <div class:hidden=move || !is(&["growth"])()>
                    <label for="metric-period" class=LABEL>"Period (compared with the one before)"</label>
                    <select id="metric-period" name="metric[period]" class=INPUT>{grains()}</select>
                    {problem("period")}
                </div>
                <div class:hidden=move || !is(&["cumulative"])()>
                    <label for="metric-to-date" class=LABEL>"To date (starts again each)"</label>
                    <select id="metric-to-date" name="metric[to_date]" class=INPUT>
                        <option value="">"(never: from the first period asked about)"</option>
                        {grains()}
                    </select>
                    {problem("to_date")}
                </div>
                <div class:hidden=move || !is(&["cumulative"])()>
                    <label for="metric-window" class=LABEL>"Rolling window (periods; empty for a running total)"</label>
                    <input id="metric-window" name="metric[window]" type="text" inputmode="numeric" class=INPUT placeholder="3" />
                    {problem("window")}
                </div>
                <div class:hidden=move || !is(&["simple", "derived"])()>
                    <label for="metric-expr" class=LABEL>
                        {move || if kind.get() == "derived" { "Expression (SQL over metrics' names)" } else { "Expression (SQL over the object's columns)" }}
                    </label>
                    <input id="metric-expr" name="metric[expr]" type="text" class=format!("{INPUT} font-mono")
                        placeholder=move || if kind.get() == "derived" { "revenue - cost" } else { "points" } />
                    {problem("expr")}
                </div>
                <div class:hidden=move || !is(&["simple"])()>
                    <label for="metric-filters" class=LABEL>"Conditions (one SQL condition per line)"</label>
                    <textarea id="metric-filters" name="metric[filters]" rows="2" class=format!("{INPUT} font-mono") placeholder="position = 1"></textarea>
                    {problem("filters")}
                </div>
                <fieldset class="md:col-span-2 grid gap-4 md:grid-cols-3" class:hidden=move || !is(&["simple"])()>
                    <legend class=LABEL>"A level, such as a balance or a headcount (semi-additive: not added up over time)"</legend>
                    <datalist id="time-attributes">
                        {times.into_iter().map(|t| view! { <option value=t></option> }).collect_view()}
                    </datalist>
                    <div>
                        <label for="metric-semi-additive-time" class=LABEL>"Read at (time attribute; empty if it adds up)"</label>
                        <input id="metric-semi-additive-time" name="metric[semi_additive_time]" type="text" list="time-attributes" autocomplete="off" class=INPUT placeholder="snapshot_date" />
                    </div>
                    <div>
                        <label for="metric-semi-additive-take" class=LABEL>"Per period, its"</label>
                        <select id="metric-semi-additive-take" name="metric[semi_additive_take]" class=INPUT>
                            {Take::ALL.into_iter().map(|t| view! { <option value=t.name()>{format!("{} value", t.name())}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="metric-semi-additive-per" class=LABEL>"Each with its own time (attributes, comma-separated)"</label>
                        <input id="metric-semi-additive-per" name="metric[semi_additive_per]" type="text" class=INPUT placeholder="account" />
                    </div>
                    <div class="md:col-span-3">{problem("semi_additive")}</div>
                </fieldset>
                <div>
                    <label for="metric-synonyms" class=LABEL>"Synonyms (comma-separated)"</label>
                    <input id="metric-synonyms" name="metric[synonyms]" type="text" class=INPUT placeholder="victories, wins" />
                    {problem("synonyms")}
                </div>
                <div>
                    <label for="metric-description" class=LABEL>"Description"</label>
                    <input id="metric-description" name="metric[description]" type="text" class=INPUT />
                </div>
                <div class="flex items-center gap-3 md:col-span-2">
                    <button type="submit" class=BUTTON disabled=move || actions.metric.pending().get()>"Add metric"</button>
                    {move || added().then(|| view! { <span class="text-sm text-emerald-800" role="status">"Added to the draft."</span> })}
                    {move || actions.metric.value().get().and_then(Result::err).map(|error| view! { <ErrorNotice error /> })}
                </div>
            </ActionForm>
        </div>
    }
}

#[component]
fn Bootstrap(project_id: String, actions: Actions) -> impl IntoView {
    let from_ddl = RwSignal::new(false);
    view! {
        <div class=format!("{CARD} mt-4")>
            <h2 class=CARD_TITLE>"Bootstrap"</h2>
            <p class="mt-1 text-sm text-slate-600">
                "Replace the draft with one read from the data source's tables, columns and foreign keys, or from CREATE TABLE statements. Published versions are not touched."
            </p>
            <ActionForm action=actions.bootstrap attr:class="mt-4 space-y-3">
                <input type="hidden" name="project_id" value=project_id />
                <div class="flex gap-6 text-sm">
                    <label class="flex items-center gap-2">
                        <input type="radio" name="from" value="source" checked=true on:change=move |_| from_ddl.set(false) />
                        "From the data source"
                    </label>
                    <label class="flex items-center gap-2">
                        <input type="radio" name="from" value="ddl" on:change=move |_| from_ddl.set(true) />
                        "From DDL"
                    </label>
                </div>
                <textarea name="ddl" rows="6" class=format!("{INPUT} font-mono text-xs") class:hidden=move || !from_ddl.get()
                    aria-label="DDL" placeholder="CREATE TABLE drivers (driver_id INTEGER PRIMARY KEY, ...);"></textarea>
                <div class="flex items-center gap-3">
                    <button type="submit" class=SMALL disabled=move || actions.bootstrap.pending().get()>"Replace the draft"</button>
                    {move || actions.bootstrap.pending().get().then(|| view! {
                        <span class="text-sm text-slate-600" role="status">"Reading tables…"</span>
                    })}
                    {move || actions.bootstrap.value().get().map(|result| match result {
                        Ok((objects, relationships)) => view! {
                            <span class=SUCCESS role="status">{format!("Read {objects} objects and {relationships} relationships into the draft.")}</span>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    })}
                </div>
            </ActionForm>
        </div>
    }
}

/// What an add form's server function answered: problems by field, empty
/// when the element was added.
type AddOutcome = Signal<Option<Result<Vec<(String, String)>, crate::error::AppError>>>;

/// The problems a refused add form got back for one of its fields.
fn field_problem(
    outcome: AddOutcome,
    field: &'static str,
) -> impl Fn() -> Option<AnyView> + Send + Sync + 'static {
    move || {
        let messages: Vec<String> = outcome
            .get()
            .and_then(Result::ok)?
            .into_iter()
            .filter(|(f, _)| f == field)
            .map(|(_, message)| message)
            .collect();
        (!messages.is_empty()).then(|| {
            view! { <p class=FIELD_ERROR role="alert">{messages.join("; ")}</p> }.into_any()
        })
    }
}

/// Whether the last add went through.
fn added(outcome: AddOutcome) -> impl Fn() -> bool + Send + Sync + 'static {
    move || matches!(outcome.get(), Some(Ok(ref problems)) if problems.is_empty())
}

#[component]
fn RuleAndQuestionForms(project_id: String, actions: Actions) -> impl IntoView {
    let rule = Signal::derive(move || actions.rule.value().get());
    let question = Signal::derive(move || actions.question.value().get());
    let question_project = project_id.clone();
    view! {
        <div class="mt-4 grid gap-4 lg:grid-cols-2">
            <div class=CARD>
                <h2 class=CARD_TITLE>"Add a business rule"</h2>
                <p class="mt-1 text-sm text-slate-600">"How the business reads its data, in words the planner and people follow."</p>
                <ActionForm action=actions.rule attr:class="mt-4 space-y-3" attr:data-testid="rule-form">
                    <input type="hidden" name="project_id" value=project_id.clone() />
                    <div>
                        <label for="rule-name" class=LABEL>"Name"</label>
                        <input id="rule-name" name="name" type="text" class=INPUT placeholder="fiscal_year" />
                        {field_problem(rule, "name")}
                    </div>
                    <div>
                        <label for="rule-text" class=LABEL>"Rule"</label>
                        <textarea id="rule-text" name="text" rows="2" class=INPUT placeholder="The fiscal year starts on 1 April."></textarea>
                        {field_problem(rule, "text")}
                    </div>
                    <div>
                        <label for="rule-synonyms" class=LABEL>"Synonyms (comma-separated)"</label>
                        <input id="rule-synonyms" name="synonyms" type="text" class=INPUT />
                        {field_problem(rule, "synonyms")}
                    </div>
                    <div class="flex items-center gap-3">
                        <button type="submit" class=BUTTON disabled=move || actions.rule.pending().get()>"Add rule"</button>
                        {move || added(rule)().then(|| view! { <span class="text-sm text-emerald-800" role="status">"Added to the draft."</span> })}
                        {move || rule.get().and_then(Result::err).map(|error| view! { <ErrorNotice error /> })}
                    </div>
                </ActionForm>
            </div>
            <div class=CARD>
                <h2 class=CARD_TITLE>"Add a verified question"</h2>
                <p class="mt-1 text-sm text-slate-600">"A question with the SQL that answers it: the planner learns from it and every publish checks it."</p>
                <ActionForm action=actions.question attr:class="mt-4 space-y-3" attr:data-testid="question-form">
                    <input type="hidden" name="project_id" value=question_project />
                    <div>
                        <label for="vq-question" class=LABEL>"Question"</label>
                        <input id="vq-question" name="question" type="text" class=INPUT placeholder="How many races were held in 2023?" />
                        {field_problem(question, "question")}
                    </div>
                    <div>
                        <label for="vq-sql" class=LABEL>"Approved SQL"</label>
                        <textarea id="vq-sql" name="sql" rows="3" class=format!("{INPUT} font-mono text-xs")></textarea>
                        {field_problem(question, "sql")}
                    </div>
                    <div>
                        <label for="vq-description" class=LABEL>"Description"</label>
                        <input id="vq-description" name="description" type="text" class=INPUT />
                    </div>
                    <div class="flex items-center gap-3">
                        <button type="submit" class=BUTTON disabled=move || actions.question.pending().get()>"Add question"</button>
                        {move || added(question)().then(|| view! { <span class="text-sm text-emerald-800" role="status">"Added to the draft."</span> })}
                        {move || question.get().and_then(Result::err).map(|error| view! { <ErrorNotice error /> })}
                    </div>
                </ActionForm>
            </div>
        </div>
    }
}
