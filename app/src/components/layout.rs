use crate::api::session::{Logout, current_user};
use cassis_core::account::Role;
use leptos::prelude::*;
use leptos_router::components::{A, Outlet};

const NAV_LINK: &str = "block rounded-md px-3 py-2 text-sm font-medium text-slate-300 hover:bg-slate-800 \
                        hover:text-white aria-[current=page]:bg-slate-800 aria-[current=page]:text-white";

/// The frame of every signed-in page: navigation, who is signed in, sign out.
#[component]
pub fn AdminLayout() -> impl IntoView {
    let user = Resource::new(|| (), |_| current_user());
    let logout = ServerAction::<Logout>::new();

    view! {
        <div class="flex min-h-full">
            <nav class="flex w-60 shrink-0 flex-col bg-slate-900 px-3 py-5" aria-label="Main">
                <a href="/" class="mb-6 flex items-center gap-2 px-3 text-lg font-semibold text-white">
                    <span class="inline-block h-6 w-6 rounded-full bg-gradient-to-br from-fuchsia-500 to-purple-800"></span>
                    "Cassis"
                </a>
                <ul class="space-y-1">
                    <li><A href="/projects" attr:class=NAV_LINK>"Projects"</A></li>
                    <li><A href="/playground" attr:class=NAV_LINK>"Playground"</A></li>
                    <li><A href="/activity" attr:class=NAV_LINK>"Activity"</A></li>
                    <li><A href="/connect" attr:class=NAV_LINK>"Connect"</A></li>
                    <li><A href="/clients" attr:class=NAV_LINK>"Connected clients"</A></li>
                    // Only admins may use these; the server functions refuse everyone else too.
                    <Transition fallback=|| ()>
                        {move || Suspend::new(async move {
                            let admin = user.await.ok().flatten().is_some_and(|u| u.role == Role::Admin);
                            admin.then(|| view! {
                                <li><A href="/keys" attr:class=NAV_LINK>"API keys"</A></li>
                                <li><A href="/users" attr:class=NAV_LINK>"Users"</A></li>
                            })
                        })}
                    </Transition>
                    <li><A href="/settings" attr:class=NAV_LINK>"Settings"</A></li>
                </ul>
            </nav>
            <div class="flex min-w-0 flex-1 flex-col">
                <header class="flex items-center justify-end gap-4 border-b border-slate-200 bg-white px-8 py-3">
                    <Transition fallback=|| ()>
                        {move || Suspend::new(async move {
                            user.await.ok().flatten().map(|user| view! {
                                <span class="text-sm text-slate-600" data-testid="signed-in-as">
                                    {user.email}
                                    <span class="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-500">
                                        {user.role.to_string()}
                                    </span>
                                </span>
                            })
                        })}
                    </Transition>
                    <ActionForm action=logout>
                        <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50">
                            "Sign out"
                        </button>
                    </ActionForm>
                </header>
                <main class="flex-1 px-8 py-8">
                    <Outlet />
                </main>
            </div>
        </div>
    }
}
