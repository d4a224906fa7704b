use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;

/// A page's title bar and body.
#[component]
pub fn Page(
    title: &'static str,
    #[prop(optional)] subtitle: &'static str,
    children: Children,
) -> impl IntoView {
    view! {
        <Title text=title />
        <div class="mx-auto max-w-5xl">
            <h1 class="text-2xl font-semibold tracking-tight">{title}</h1>
            {(!subtitle.is_empty()).then(|| view! { <p class="mt-1 text-sm text-slate-600">{subtitle}</p> })}
            <div class="mt-6">{children()}</div>
        </div>
    }
}

/// A failed server call, said plainly.
#[component]
pub fn ErrorNotice(error: AppError) -> impl IntoView {
    view! {
        <p role="alert" class="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            {error.to_string()}
        </p>
    }
}

#[component]
pub fn Loading() -> impl IntoView {
    view! { <p class="text-sm text-slate-500">"Loading…"</p> }
}
