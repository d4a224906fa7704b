//! A button that copies a text, such as a key or a command, to the clipboard.

use leptos::prelude::*;

/// Copies `text` to the clipboard and says so.
#[component]
pub fn CopyButton(text: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let clipboard = window().navigator().clipboard();
            let _ = clipboard.write_text(&text);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &text;
        copied.set(true);
    };
    view! {
        <button type="button" on:click=copy class="rounded-md border border-emerald-300 bg-white px-3 py-2 text-xs font-semibold text-emerald-800 hover:bg-emerald-100">
            {move || if copied.get() { "Copied" } else { "Copy" }}
        </button>
    }
}
