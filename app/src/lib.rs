//! The Cassis admin app: Leptos pages rendered on the server and hydrated in
//! the browser. Server functions live in `api/` and stay thin: they check the
//! session and call `cassis-core`.

#![recursion_limit = "256"]

pub mod api;
mod app;
mod components;
pub mod error;
mod pages;
#[cfg(feature = "ssr")]
pub mod ssr;

pub use app::{App, shell};

/// The browser entry point that cargo-leptos calls from the generated JS.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}
