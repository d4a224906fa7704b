use crate::api::clients::{DisconnectClient, list_connected_clients};
use crate::components::page::{ErrorNotice, Loading, Page};
use leptos::prelude::*;

#[component]
pub fn ConnectedClientsPage() -> impl IntoView {
    let disconnect = ServerAction::<DisconnectClient>::new();
    let clients = Resource::new(
        move || disconnect.version().get(),
        |_| list_connected_clients(),
    );

    view! {
        <Page
            title="Connected clients"
            subtitle="MCP clients such as Claude Desktop, Claude Code or Cursor that signed in through OAuth. Disconnecting one ends its access within seconds; it has to sign in again."
        >
            {move || disconnect.value().get().and_then(Result::err).map(|error| view! { <ErrorNotice error /> })}
            <Suspense fallback=Loading>
                {move || Suspend::new(async move {
                    match clients.await {
                        Ok(clients) if clients.is_empty() => view! {
                            <p class="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500">
                                "No client has connected yet. Add the MCP URL from Settings to an MCP client and sign in."
                            </p>
                        }.into_any(),
                        Ok(clients) => view! {
                            <div class="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
                                <table class="min-w-full divide-y divide-slate-200 text-sm" data-testid="connected-clients">
                                    <thead class="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                                        <tr>
                                            <th class="px-4 py-3">"Client"</th>
                                            <th class="px-4 py-3">"User"</th>
                                            <th class="px-4 py-3">"Connected"</th>
                                            <th class="px-4 py-3">"Last used"</th>
                                            <th class="px-4 py-3"></th>
                                        </tr>
                                    </thead>
                                    <tbody class="divide-y divide-slate-100">
                                        {clients.into_iter().map(|client| view! {
                                            <tr>
                                                <td class="px-4 py-3 font-medium">{client.client_name}</td>
                                                <td class="px-4 py-3">{client.user_email}</td>
                                                <td class="px-4 py-3 text-slate-500">{client.connected_at}</td>
                                                <td class="px-4 py-3 text-slate-500">{client.last_used_at}</td>
                                                <td class="px-4 py-3 text-right">
                                                    {if client.active {
                                                        view! {
                                                            <ActionForm action=disconnect>
                                                                <input type="hidden" name="grant_id" value=client.grant_id />
                                                                <button type="submit" class="rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50">"Disconnect"</button>
                                                            </ActionForm>
                                                        }.into_any()
                                                    } else {
                                                        view! { <span class="text-xs text-slate-400">"disconnected"</span> }.into_any()
                                                    }}
                                                </td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice error /> }.into_any(),
                    }
                })}
            </Suspense>
        </Page>
    }
}
