use crate::api::keys::{
    ApiKeyRow, CreateApiKey, CreatedKey, LIFETIMES, RevokeApiKey, list_api_keys,
};
use crate::components::copy::CopyButton;
use crate::components::page::{ErrorNotice, Page};
use crate::components::resource_list::{DataTable, ResourceList};
use leptos::prelude::*;

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                     focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";
const BUTTON: &str = "rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm \
                      hover:bg-purple-800 disabled:opacity-60";

#[component]
pub fn ApiKeysPage() -> impl IntoView {
    let create = ServerAction::<CreateApiKey>::new();
    let revoke = ServerAction::<RevokeApiKey>::new();
    let keys = Resource::new(
        move || (create.version().get(), revoke.version().get()),
        |_| list_api_keys(),
    );

    view! {
        <Page
            title="API keys"
            subtitle="Keys let agents and scripts call the MCP endpoint; a key acts for the admin who created it. Interactive clients (Claude Desktop, Claude Code, Cursor) can sign in with OAuth instead."
        >
            <ActionForm action=create attr:class="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <div class="min-w-64 flex-1">
                    <label for="key-name" class="block text-sm font-medium text-slate-700">"Name"</label>
                    <input id="key-name" name="name" required maxlength="100" placeholder="Claude Code on Ana's laptop" class=INPUT />
                </div>
                <div>
                    <label for="key-expires" class="block text-sm font-medium text-slate-700">"Expires after"</label>
                    <select id="key-expires" name="expires" class=INPUT>
                        {LIFETIMES.iter().map(|(value, label)| view! {
                            <option value=*value selected=*value == "90d">{*label}</option>
                        }).collect_view()}
                    </select>
                </div>
                <button type="submit" class=BUTTON disabled=move || create.pending().get()>
                    {move || if create.pending().get() { "Creating…" } else { "Create key" }}
                </button>
            </ActionForm>
            {move || create.value().get().map(|result| match result {
                Ok(created) => view! { <NewKey created /> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorNotice error /></div> }.into_any(),
            })}
            {move || revoke.value().get().and_then(Result::err).map(|error| view! { <div class="mt-4"><ErrorNotice error /></div> })}
            <div class="mt-6">
                <ResourceList resource=keys empty="No API keys yet." render={move |keys: Vec<ApiKeyRow>| view! {
                    <DataTable testid="api-keys" columns={&["Name", "Key", "Created by", "Last used", "Expires", ""]}>
                        {keys.into_iter().map(|key| {
                            let usable = !key.revoked && !key.expired;
                            view! {
                                <tr class=if usable { "" } else { "text-slate-400" }>
                                    <td class="px-4 py-3 font-medium">{key.name}</td>
                                    <td class="px-4 py-3 font-mono text-xs">{format!("{}…", key.prefix)}</td>
                                    <td class="px-4 py-3">{key.user_email}</td>
                                    <td class="px-4 py-3 text-slate-500">{key.last_used_at.unwrap_or_else(|| "never".to_owned())}</td>
                                    <td class="px-4 py-3 text-slate-500">{key.expires_at.unwrap_or_else(|| "never".to_owned())}</td>
                                    <td class="px-4 py-3 text-right">
                                        {if key.revoked {
                                            view! { <span class="text-xs">"revoked"</span> }.into_any()
                                        } else if key.expired {
                                            view! { <span class="text-xs">"expired"</span> }.into_any()
                                        } else {
                                            view! {
                                                <ActionForm action=revoke>
                                                    <input type="hidden" name="id" value=key.id />
                                                    <button type="submit" class="rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50">"Revoke"</button>
                                                </ActionForm>
                                            }.into_any()
                                        }}
                                    </td>
                                </tr>
                            }
                        }).collect_view()}
                    </DataTable>
                }} />
            </div>
        </Page>
    }
}

/// The new key, shown once, with the command that connects Claude Code.
#[component]
fn NewKey(created: CreatedKey) -> impl IntoView {
    view! {
        <div class="mt-4 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm" data-testid="new-key">
            <p class="font-semibold text-emerald-900">{format!("Key “{}” created. Copy it now: Cassis shows it only once.", created.name)}</p>
            <div class="mt-3 flex items-center gap-2">
                <code class="flex-1 break-all rounded bg-white px-3 py-2 font-mono text-xs" data-testid="new-key-secret">{created.key.clone()}</code>
                <CopyButton text=created.key />
            </div>
            <p class="mt-4 text-emerald-900">"Connect Claude Code with:"</p>
            <div class="mt-2 flex items-center gap-2">
                <pre class="flex-1 overflow-x-auto rounded bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100" data-testid="mcp-command">{created.command.clone()}</pre>
                <CopyButton text=created.command />
            </div>
        </div>
    }
}
