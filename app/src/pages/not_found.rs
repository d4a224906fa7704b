use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found" />
        <div class="flex min-h-full flex-col items-center justify-center gap-3">
            <h1 class="text-2xl font-semibold">"Page not found"</h1>
            <a href="/" class="text-sm font-medium text-purple-700 hover:underline">"Back to projects"</a>
        </div>
    }
}
