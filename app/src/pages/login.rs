use crate::api::session::Login;
use crate::components::page::ErrorNotice;
use leptos::prelude::*;
use leptos_meta::Title;

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                     focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";

#[component]
pub fn LoginPage() -> impl IntoView {
    let login = ServerAction::<Login>::new();
    // Set when another page (the OAuth consent page) sent the user here.
    let next = leptos_router::hooks::use_query_map().with_untracked(|query| query.get("next"));
    let error = move || login.value().get().and_then(Result::err);
    // A destination outside the app (the OAuth consent page) is a full page load.
    Effect::new(move |_| {
        if let Some(Ok(Some(destination))) = login.value().get() {
            let _ = window().location().set_href(&destination);
        }
    });

    view! {
        <Title text="Sign in" />
        <div class="flex min-h-full items-center justify-center px-4 py-12">
            <div class="w-full max-w-sm">
                <div class="mb-8 text-center">
                    <span class="inline-block h-10 w-10 rounded-full bg-gradient-to-br from-fuchsia-500 to-purple-800"></span>
                    <h1 class="mt-4 text-2xl font-semibold tracking-tight">"Sign in to Cassis"</h1>
                    <p class="mt-1 text-sm text-slate-600">"Curate your ontology; let agents ask."</p>
                </div>
                <div class="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
                    <ActionForm action=login attr:class="space-y-4">
                        {next.map(|next| view! { <input type="hidden" name="next" value=next /> })}
                        <div>
                            <label for="email" class="block text-sm font-medium text-slate-700">"Email"</label>
                            <input id="email" name="email" type="email" required autocomplete="username" class=INPUT />
                        </div>
                        <div>
                            <label for="password" class="block text-sm font-medium text-slate-700">"Password"</label>
                            <input id="password" name="password" type="password" required autocomplete="current-password" class=INPUT />
                        </div>
                        {move || error().map(|error| view! { <ErrorNotice error /> })}
                        <button
                            type="submit"
                            class="w-full rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm hover:bg-purple-800 disabled:opacity-60"
                            disabled=move || login.pending().get()
                        >
                            {move || if login.pending().get() { "Signing in…" } else { "Sign in" }}
                        </button>
                    </ActionForm>
                </div>
            </div>
        </div>
    }
}
