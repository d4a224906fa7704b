use crate::components::page::Page;
use leptos::prelude::*;

#[component]
pub fn ApiKeysPage() -> impl IntoView {
    view! {
        <Page title="API keys" subtitle="Keys let agents call the MCP endpoint on your behalf.">
            <p class="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500">
                "No API keys yet. Creating keys arrives with the MCP endpoint."
            </p>
        </Page>
    }
}
