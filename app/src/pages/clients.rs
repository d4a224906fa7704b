use crate::api::clients::{ConnectedClient, DisconnectClient, list_connected_clients};
use crate::components::page::{ErrorNotice, Page};
use crate::components::resource_list::{DataTable, ResourceList};
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
            <ResourceList
                resource=clients
                empty="No client has connected yet. Add the MCP URL from Settings to an MCP client and sign in."
                render={move |clients: Vec<ConnectedClient>| view! {
                    <DataTable testid="connected-clients" columns={&["Client", "User", "Connected", "Last used", ""]}>
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
                    </DataTable>
                }}
            />
        </Page>
    }
}
