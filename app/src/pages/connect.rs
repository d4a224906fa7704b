//! How to connect an MCP client: the endpoint and where each client takes it.

use crate::api::instance::instance_info;
use crate::components::copy::CopyButton;
use crate::components::page::{ErrorNotice, Loading, Page};
use leptos::prelude::*;

#[component]
pub fn ConnectPage() -> impl IntoView {
    let info = Resource::new(|| (), |_| instance_info());
    view! {
        <Page
            title="Connect"
            subtitle="Add Cassis to an MCP client. The client opens a browser window to sign in with your Cassis account; no key to copy."
        >
            <Suspense fallback=Loading>
                {move || Suspend::new(async move {
                    match info.await {
                        Ok(info) => view! { <Instructions url=info.mcp_url /> }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })}
            </Suspense>
        </Page>
    }
}

#[component]
fn Instructions(url: String) -> impl IntoView {
    let command = format!("claude mcp add --transport http cassis {url}");
    view! {
        <div class="space-y-4 text-sm">
            <section class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <h2 class="font-semibold">"MCP server URL"</h2>
                <div class="mt-2 flex items-center gap-2">
                    <code class="flex-1 rounded bg-slate-100 px-3 py-2 font-mono text-xs" data-testid="mcp-url">{url.clone()}</code>
                    <CopyButton text=url.clone() />
                </div>
                <p class="mt-2 text-slate-600">"Streamable HTTP; OAuth 2.1 sign-in. Tokens refresh by themselves; an expired one makes the client sign in again."</p>
            </section>
            <section class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <h2 class="font-semibold">"Claude Desktop"</h2>
                <p class="mt-1 text-slate-700">"Settings → Connectors → Add custom connector, then paste the URL."</p>
            </section>
            <section class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <h2 class="font-semibold">"Claude Code"</h2>
                <div class="mt-2 flex items-center gap-2">
                    <pre class="flex-1 whitespace-pre-wrap break-all rounded bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100" data-testid="claude-code-command">{command.clone()}</pre>
                    <CopyButton text=command />
                </div>
                <p class="mt-2 text-slate-600">"Or run /mcp inside Claude Code."</p>
            </section>
            <section class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <h2 class="font-semibold">"Cursor"</h2>
                <p class="mt-1 text-slate-700">"Settings → MCP → Add new MCP server, then paste the URL."</p>
            </section>
            <section class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <h2 class="font-semibold">"Scripts and agents without a browser"</h2>
                <p class="mt-1 text-slate-700">
                    "An admin creates an API key under API keys; the client then sends "
                    <code class="font-mono text-xs">"Authorization: Bearer sk-k6-…"</code>
                    " with every request."
                </p>
            </section>
        </div>
    }
}
