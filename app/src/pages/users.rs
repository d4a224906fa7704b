use crate::api::users::list_users;
use crate::components::page::{ErrorNotice, Loading, Page};
use leptos::prelude::*;

#[component]
pub fn UsersPage() -> impl IntoView {
    let users = Resource::new(|| (), |_| list_users());

    view! {
        <Page title="Users" subtitle="Who can sign in, and what each may do.">
            <Suspense fallback=Loading>
                {move || Suspend::new(async move {
                    match users.await {
                        Ok(users) => view! {
                            <div class="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
                                <table class="min-w-full divide-y divide-slate-200 text-sm" data-testid="users">
                                    <thead class="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                                        <tr><th class="px-4 py-3">"Email"</th><th class="px-4 py-3">"Role"</th><th class="px-4 py-3">"Status"</th></tr>
                                    </thead>
                                    <tbody class="divide-y divide-slate-100">
                                        {users.into_iter().map(|user| view! {
                                            <tr>
                                                <td class="px-4 py-3 font-medium">{user.email}</td>
                                                <td class="px-4 py-3">{user.role.to_string()}</td>
                                                <td class="px-4 py-3 text-slate-500">{if user.disabled { "disabled" } else { "active" }}</td>
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
