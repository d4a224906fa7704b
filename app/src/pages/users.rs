use crate::api::users::{AddUser, AddedUser, SetUserDisabled, SetUserRole, UserRow, list_users};
use crate::components::page::{ErrorNotice, Page};
use crate::components::resource_list::{DataTable, ResourceList};
use cassis_core::account::Role;
use leptos::prelude::*;

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                     focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";
const BUTTON: &str = "rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm \
                      hover:bg-purple-800 disabled:opacity-60";
const SMALL: &str = "rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50";

#[component]
pub fn UsersPage() -> impl IntoView {
    let add = ServerAction::<AddUser>::new();
    let set_role = ServerAction::<SetUserRole>::new();
    let set_disabled = ServerAction::<SetUserDisabled>::new();
    let users = Resource::new(
        move || {
            (
                add.version().get(),
                set_role.version().get(),
                set_disabled.version().get(),
            )
        },
        |_| list_users(),
    );
    let failure = move || {
        set_role
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| set_disabled.value().get().and_then(Result::err))
    };

    view! {
        <Page
            title="Users"
            subtitle="Who can sign in, and what each may do: admins manage users, keys and data sources; editors shape ontologies; viewers ask questions."
        >
            <ActionForm action=add attr:class="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                <div class="min-w-64 flex-1">
                    <label for="user-email" class="block text-sm font-medium text-slate-700">"Email"</label>
                    <input id="user-email" name="email" type="email" required class=INPUT />
                </div>
                <div>
                    <label for="user-role" class="block text-sm font-medium text-slate-700">"Role"</label>
                    <select id="user-role" name="role" class=INPUT>
                        {Role::ALL.iter().map(|role| view! {
                            <option value=role.as_str() selected=*role == Role::Viewer>{role.as_str()}</option>
                        }).collect_view()}
                    </select>
                </div>
                <button type="submit" class=BUTTON disabled=move || add.pending().get()>"Add user"</button>
            </ActionForm>
            {move || add.value().get().map(|result| match result {
                Ok(added) => view! { <Added added /> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorNotice error /></div> }.into_any(),
            })}
            {move || failure().map(|error| view! { <div class="mt-4"><ErrorNotice error /></div> })}
            <div class="mt-6">
                <ResourceList resource=users render={move |users: Vec<UserRow>| view! {
                    <DataTable testid="users" columns={&["Email", "Role", "Status", ""]}>
                        {users.into_iter().map(|user| view! { <Row user set_role set_disabled /> }).collect_view()}
                    </DataTable>
                }} />
            </div>
        </Page>
    }
}

#[component]
fn Row(
    user: UserRow,
    set_role: ServerAction<SetUserRole>,
    set_disabled: ServerAction<SetUserDisabled>,
) -> impl IntoView {
    let UserRow {
        id,
        email,
        role,
        disabled,
        is_you,
    } = user;
    let role_id = id.clone();
    view! {
        <tr class=if disabled { "text-slate-400" } else { "" }>
            <td class="px-4 py-3 font-medium">{email.clone()}{is_you.then(|| view! { <span class="ml-2 text-xs text-slate-500">"(you)"</span> })}</td>
            <td class="px-4 py-3">
                {if is_you {
                    view! { <span>{role.as_str()}</span> }.into_any()
                } else {
                    view! {
                        <select
                            class="rounded-md border border-slate-300 px-2 py-1 text-sm"
                            aria-label=format!("Role of {email}")
                            on:change=move |ev| {
                                set_role.dispatch(SetUserRole { id: role_id.clone(), role: event_target_value(&ev) });
                            }
                        >
                            {Role::ALL.iter().map(|r| view! { <option value=r.as_str() selected=*r == role>{r.as_str()}</option> }).collect_view()}
                        </select>
                    }.into_any()
                }}
            </td>
            <td class="px-4 py-3 text-slate-500">{if disabled { "disabled" } else { "active" }}</td>
            <td class="px-4 py-3 text-right">
                {(!is_you).then(|| view! {
                    <button
                        type="button"
                        class=SMALL
                        on:click=move |_| { set_disabled.dispatch(SetUserDisabled { id: id.clone(), disabled: !disabled }); }
                    >
                        {if disabled { "Enable" } else { "Disable" }}
                    </button>
                })}
            </td>
        </tr>
    }
}

#[component]
fn Added(added: AddedUser) -> impl IntoView {
    view! {
        <div class="mt-4 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm" data-testid="added-user">
            <p class="font-semibold text-emerald-900">
                {format!("{} can now sign in with this password, shown only once:", added.email)}
            </p>
            <code class="mt-2 block rounded bg-white px-3 py-2 font-mono text-xs" data-testid="added-password">{added.password}</code>
        </div>
    }
}
