//! Ask a project a question as an agent would: the plan and its
//! assumptions, approval at a fork, the SQL, the results, and follow-ups in
//! the same chat.

use crate::api::playground::{Ask, resume_chat};
use crate::api::projects::{ProjectSummary, list_projects};
use crate::api::publishing::list_versions;
use crate::components::chart::{BarChart, series};
use crate::components::page::{ErrorNotice, Loading, Page};
use cassis_core::engine::{APPROVED_PLAN, AskResponse, AskStatus, ResultSet};
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_navigate, use_query_map};

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                     focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";
const BUTTON: &str = "rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm \
                      hover:bg-purple-800 disabled:opacity-60";
const SECONDARY: &str = "rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-semibold \
                         text-slate-700 shadow-sm hover:bg-slate-50";

/// One exchange of the chat as shown.
#[derive(Clone, Debug, PartialEq)]
struct Turn {
    question: String,
    response: AskResponse,
}

#[component]
pub fn PlaygroundPage() -> impl IntoView {
    let projects = Resource::new(|| (), |_| list_projects());
    // What the address names when the page opens (a bookmark, a reload).
    let (opened_project, opened_chat) =
        use_query_map().with_untracked(|query| (query.get("project"), query.get("chat")));
    view! {
        <Page
            title="Playground"
            subtitle="Ask a project a question the way an agent does through MCP: same engine, same answer."
        >
            // Everything below depends on which project is selected, so it is
            // rendered once the list is known, the same on the server and in
            // the browser: nothing is set while rendering.
            <Suspense fallback=Loading>
                {move || {
                    let (opened_project, opened_chat) = (opened_project.clone(), opened_chat.clone());
                    Suspend::new(async move {
                        match projects.await {
                            Ok(projects) => view! { <Chat projects opened_project opened_chat /> }.into_any(),
                            Err(error) => view! { <ErrorNotice error /> }.into_any(),
                        }
                    })
                }}
            </Suspense>
        </Page>
    }
}

#[component]
fn Chat(
    projects: Vec<ProjectSummary>,
    opened_project: Option<String>,
    opened_chat: Option<String>,
) -> impl IntoView {
    let ids: Vec<String> = projects.iter().map(|p| p.id.to_string()).collect();
    // The project picked in the select (or named by the address) while it is
    // still listed; otherwise the first listed.
    let chosen = RwSignal::new(opened_project);
    let project = Memo::new(move |_| {
        chosen
            .get()
            .filter(|id| ids.contains(id))
            .or_else(|| ids.first().cloned())
            .unwrap_or_default()
    });
    let question = RwSignal::new(String::new());
    let chat_id = RwSignal::new(None::<String>);
    let turns = RwSignal::new(Vec::<Turn>::new());
    let asked = RwSignal::new(String::new());
    let ask = ServerAction::<Ask>::new();
    // The version a new chat pins: the latest unless one is chosen.
    let version = RwSignal::new(None::<u32>);
    // Loaded in the browser only: what they show depends on the selection,
    // which the server cannot know before the project list arrives, and a
    // server-rendered guess would not match what the browser hydrates.
    let versions = LocalResource::new(move || {
        let project = project.get();
        async move {
            if project.is_empty() {
                Ok(Vec::new())
            } else {
                list_versions(project).await
            }
        }
    });
    let resumed = LocalResource::new(move || {
        let chat = opened_chat.clone();
        async move {
            match chat {
                Some(chat) => resume_chat(chat).await.map(Some),
                None => Ok(None),
            }
        }
    });

    // A chat named by the address comes back as it was, unless the user has
    // already started another.
    Effect::new(move |_| {
        if let Some(Ok(Some(chat))) = resumed.get()
            && chat_id.get_untracked().is_none()
            && turns.with_untracked(Vec::is_empty)
        {
            chosen.set(Some(chat.project_id));
            version.set(Some(chat.version));
            chat_id.set(Some(chat.chat_id));
            turns.set(
                chat.turns
                    .into_iter()
                    .map(|t| Turn {
                        question: t.question,
                        response: t.response,
                    })
                    .collect(),
            );
        }
    });
    // The address follows the project and the chat, so a reload keeps both.
    let navigate = use_navigate();
    Effect::new(move |_| {
        let project = project.get();
        if project.is_empty() {
            return;
        }
        let url = match chat_id.get() {
            Some(chat) => format!("/playground?project={project}&chat={chat}"),
            None => format!("/playground?project={project}"),
        };
        navigate(
            &url,
            NavigateOptions {
                replace: true,
                scroll: false,
                ..Default::default()
            },
        );
    });
    Effect::new(move |_| {
        if let Some(Ok(response)) = ask.value().get() {
            chat_id.set(Some(response.chat_id.clone()));
            let question = asked.get_untracked();
            turns.update(|turns| turns.push(Turn { question, response }));
        }
    });
    let send = move |text: String, approve: bool| {
        asked.set(if approve {
            APPROVED_PLAN.to_owned()
        } else {
            text.clone()
        });
        ask.dispatch(Ask {
            project_id: project.get_untracked(),
            question: text,
            chat_id: chat_id.get_untracked(),
            execute_pending_plan: approve,
            version: version.get_untracked(),
        });
    };
    let on_submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let text = question.get_untracked();
        if !text.trim().is_empty() {
            send(text, false);
            question.set(String::new());
        }
    };
    let new_chat = move |_| {
        chat_id.set(None);
        turns.set(Vec::new());
    };

    view! {
        <label for="playground-project" class="block text-sm font-medium text-slate-700">"Project"</label>
        <select
            id="playground-project"
            class=INPUT
            on:change=move |ev| {
                chosen.set(Some(event_target_value(&ev)));
                version.set(None);
                chat_id.set(None);
                turns.set(Vec::new());
            }
        >
            {projects.into_iter().map(|p| {
                let id = p.id.to_string();
                view! { <option value=id.clone() selected=move || project.get() == id>{p.name}</option> }
            }).collect_view()}
        </select>
        // Read without a suspense boundary: both are loaded in the browser
        // only, so the server and the hydrating browser render them empty.
        {move || resumed.get().and_then(Result::err).map(|error| view! {
            <div class="mt-4" data-testid="resume-error"><ErrorNotice error /></div>
        })}
        {move || {
            let versions = versions.get().and_then(Result::ok).unwrap_or_default();
            (!versions.is_empty()).then(|| view! {
                <label for="playground-version" class="mt-3 block text-sm font-medium text-slate-700">"Ontology version"</label>
                <select id="playground-version" class=INPUT
                    on:change=move |ev| {
                        version.set(event_target_value(&ev).parse().ok());
                        chat_id.set(None);
                        turns.set(Vec::new());
                    }>
                    <option value="" selected=move || version.get().is_none()>"Latest (as agents get it)"</option>
                    {versions.into_iter().map(|v| {
                        let number = v.number;
                        let note = if v.note.is_empty() { String::new() } else { format!(" — {}", v.note) };
                        view! { <option value=number.to_string() selected=move || version.get() == Some(number)>{format!("Version {number}{note}")}</option> }
                    }).collect_view()}
                </select>
            })
        }}

        <ol class="mt-6 space-y-6" data-testid="chat">
            <For each=move || turns.get().into_iter().enumerate() key=|(i, _)| *i let:((index, turn))>
                <TurnView
                    turn
                    is_last=Signal::derive(move || index + 1 == turns.with(Vec::len))
                    on_approve=Callback::new(move |_| send(String::new(), true))
                />
            </For>
        </ol>
        {move || ask.value().get().and_then(Result::err).map(|error| view! { <div class="mt-4"><ErrorNotice error /></div> })}

        <form class="mt-6 space-y-3" on:submit=on_submit>
            <label for="playground-question" class="block text-sm font-medium text-slate-700">
                {move || if chat_id.get().is_some() { "Follow up" } else { "Question" }}
            </label>
            <textarea
                id="playground-question"
                rows="2"
                class=INPUT
                placeholder="Who won the most races in 2023?"
                prop:value=move || question.get()
                on:input=move |ev| question.set(event_target_value(&ev))
            ></textarea>
            <div class="flex gap-3">
                <button type="submit" class=BUTTON disabled=move || ask.pending().get() || project.get().is_empty()>
                    {move || if ask.pending().get() { "Asking…" } else { "Ask" }}
                </button>
                <button type="button" class=SECONDARY on:click=new_chat disabled=move || chat_id.get().is_none()>
                    "New chat"
                </button>
            </div>
        </form>
    }
}

#[component]
fn TurnView(turn: Turn, is_last: Signal<bool>, on_approve: Callback<()>) -> impl IntoView {
    let Turn { question, response } = turn;
    let (badge, tone) = match response.status {
        AskStatus::Answered => ("answered", "bg-emerald-100 text-emerald-800"),
        AskStatus::NeedsExecution => ("needs approval", "bg-amber-100 text-amber-800"),
        AskStatus::NotAnswerable => ("not answerable", "bg-slate-200 text-slate-700"),
        AskStatus::Error => ("error", "bg-red-100 text-red-800"),
    };
    let waiting = response.status == AskStatus::NeedsExecution;
    let version = response
        .ontology_version
        .map(|v| format!("ontology v{v}"))
        .unwrap_or_default();
    view! {
        <li class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="turn">
            <p class="text-sm font-medium text-slate-900">{question}</p>
            <div class="mt-2 flex items-center gap-2 text-xs">
                <span class=format!("rounded px-2 py-0.5 font-semibold {tone}") data-testid="status">{badge}</span>
                <span class="text-slate-400">{version}</span>
            </div>
            <p class="mt-3 text-sm text-slate-800" data-testid="answer">{response.answer.clone()}</p>
            {response.plan.clone().map(|plan| view! {
                <div class="mt-3 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm" data-testid="plan">
                    <p class="font-medium text-amber-900">{plan.intent}</p>
                    <ul class="mt-2 list-disc space-y-1 pl-5 text-amber-900">
                        {plan.assumptions.into_iter().map(|a| view! {
                            <li>
                                {a.text}
                                {(!a.options.is_empty()).then(|| view! {
                                    <span class="ml-1 text-xs text-amber-700">
                                        {format!("(options: {}; selected: {})", a.options.join(", "), a.selected.unwrap_or_default())}
                                    </span>
                                })}
                            </li>
                        }).collect_view()}
                    </ul>
                </div>
            })}
            {move || (waiting && is_last.get()).then(|| view! {
                <button type="button" class=format!("mt-3 {BUTTON}") on:click=move |_| on_approve.run(())>
                    "Approve and run"
                </button>
            })}
            {response.sql.clone().map(|sql| view! {
                <pre class="mt-3 whitespace-pre-wrap break-words rounded bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100" data-testid="sql">
                    {highlight(&sql)}
                </pre>
            })}
            {response.results.clone().map(|results| view! { <Results results /> })}
        </li>
    }
}

#[component]
fn Results(results: ResultSet) -> impl IntoView {
    let shown = results.rows.len();
    let summary = if results.truncated {
        format!("{shown} of {} rows", results.total_rows)
    } else {
        format!(
            "{} row{}",
            results.total_rows,
            if results.total_rows == 1 { "" } else { "s" }
        )
    };
    let chart = series(&results).map(|series| view! { <BarChart series /> });
    // Years, rounds and ids are labels, not quantities: no thousands separator.
    let labels: Vec<bool> = results
        .columns
        .iter()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            c.contains("year") || c.contains("round") || c == "id" || c.ends_with("_id")
        })
        .collect();
    view! {
        <div class="mt-3 overflow-x-auto rounded-md border border-slate-200">
            <table class="min-w-full divide-y divide-slate-200 text-sm" data-testid="results">
                <thead class="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                    <tr>{results.columns.into_iter().map(|c| view! { <th class="px-3 py-2">{c}</th> }).collect_view()}</tr>
                </thead>
                <tbody class="divide-y divide-slate-100">
                    {results.rows.into_iter().map(|row| view! {
                        <tr>{row.into_iter().enumerate().map(|(i, cell)| {
                            let label = labels.get(i).copied().unwrap_or(false);
                            let align = if cell.is_number() && !label { "px-3 py-2 text-right tabular-nums" } else { "px-3 py-2" };
                            let text = if label { cell_label(&cell) } else { cell_text(&cell) };
                            view! { <td class=align>{text}</td> }
                        }).collect_view()}</tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <p class="mt-1 text-xs text-slate-500">{summary}</p>
        {chart}
    }
}

fn cell_label(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}

/// Numbers as the answers write them (2,458; 12.35), empty cells as a dash.
fn cell_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".to_owned(),
        other => cassis_core::engine::answer::format_value(other),
    }
}

/// SQL with its keywords set apart, word by word; the text itself is unchanged.
fn highlight(sql: &str) -> impl IntoView + use<> {
    const KEYWORDS: [&str; 24] = [
        "SELECT", "FROM", "WHERE", "JOIN", "LEFT", "INNER", "ON", "GROUP", "BY", "ORDER", "LIMIT",
        "AS", "AND", "OR", "COUNT", "SUM", "AVG", "MIN", "MAX", "DESC", "ASC", "UNION", "ALL",
        "DISTINCT",
    ];
    let mut pieces = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, pieces: &mut Vec<(String, bool)>| {
        if !word.is_empty() {
            let keyword = KEYWORDS.contains(&word.to_ascii_uppercase().as_str());
            pieces.push((std::mem::take(word), keyword));
        }
    };
    for c in sql.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut pieces);
            pieces.push((c.to_string(), false));
        }
    }
    flush(&mut word, &mut pieces);
    pieces
        .into_iter()
        .map(|(text, keyword)| {
            if keyword {
                view! { <span class="font-semibold text-fuchsia-300">{text}</span> }.into_any()
            } else {
                text.into_any()
            }
        })
        .collect_view()
}
