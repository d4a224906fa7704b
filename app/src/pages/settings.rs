use crate::api::instance::instance_info;
use crate::components::page::{ErrorNotice, Loading, Page};
use leptos::prelude::*;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let info = Resource::new(|| (), |_| instance_info());

    view! {
        <Page title="Settings" subtitle="How this Cassis server is set up.">
            <Suspense fallback=Loading>
                {move || Suspend::new(async move {
                    match info.await {
                        Ok(info) => view! {
                            <dl class="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white text-sm shadow-sm">
                                <Fact label="MCP endpoint" value=info.mcp_url />
                                <Fact label="Public URL" value=info.public_url />
                                <Fact label="Metadata database" value=info.metadata_backend />
                                <Fact label="Version" value=info.version />
                            </dl>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })}
            </Suspense>
        </Page>
    }
}

#[component]
fn Fact(label: &'static str, value: String) -> impl IntoView {
    view! {
        <div class="grid grid-cols-3 gap-4 px-4 py-3">
            <dt class="font-medium text-slate-600">{label}</dt>
            <dd class="col-span-2 font-mono text-slate-900 break-all">{value}</dd>
        </div>
    }
}
