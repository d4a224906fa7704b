//! How the server functions that carry a whole ontology's YAML (the editor's
//! check and save) travel: URL-encoded like any other server function, but
//! read on an ontology worker.
//!
//! Such a body is up to three times `--max-ontology-bytes` (URL encoding
//! writes a byte as up to three), megabytes that the default encoding would
//! percent-decode and split into fields on an async worker before the
//! function itself moves the YAML off it: long enough to stall MCP and the
//! pages while a viewer types.

use http::Method;
use leptos::server_fn::ContentType;
use leptos::server_fn::codec::Encoding;

/// The encoding of a server function whose arguments hold an ontology:
/// a URL-encoded `POST` body, as `PostUrl` sends it, so forms and the
/// hydrated app send it alike.
pub struct OntologyForm;

impl ContentType for OntologyForm {
    const CONTENT_TYPE: &'static str = "application/x-www-form-urlencoded";
}

impl Encoding for OntologyForm {
    const METHOD: Method = Method::POST;
}

/// The arguments read from a form body, as `PostUrl` reads them (nesting
/// up to 5 levels, brackets either way).
pub fn read_form<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, String> {
    serde_qs::Config::new(5, false)
        .deserialize_str::<T>(body)
        .map_err(|e| e.to_string())
}

/// Implements [`OntologyForm`] for the argument structs of server
/// functions: the trait is the server_fn crate's and is generic over the
/// arguments, so each struct needs its own implementation.
macro_rules! ontology_form {
    ($($arguments:ty),* $(,)?) => {$(
        impl<E, Request> leptos::server_fn::codec::IntoReq<$crate::api::ontology_form::OntologyForm, Request, E>
            for $arguments
        where
            Request: leptos::server_fn::request::ClientReq<E>,
            E: leptos::server_fn::error::FromServerFnError,
        {
            fn into_req(self, path: &str, accepts: &str) -> Result<Request, E> {
                use leptos::server_fn::ContentType;
                use leptos::server_fn::error::IntoAppError;
                let body = serde_qs::to_string(&self).map_err(|e| {
                    leptos::server_fn::error::ServerFnErrorErr::Serialization(e.to_string())
                        .into_app_error()
                })?;
                Request::try_new_post(
                    path,
                    $crate::api::ontology_form::OntologyForm::CONTENT_TYPE,
                    accepts,
                    body,
                )
            }
        }

        impl<E, Request> leptos::server_fn::codec::FromReq<$crate::api::ontology_form::OntologyForm, Request, E>
            for $arguments
        where
            Request: leptos::server_fn::request::Req<E> + Send + 'static,
            E: leptos::server_fn::error::FromServerFnError,
        {
            async fn from_req(request: Request) -> Result<Self, E> {
                use leptos::server_fn::error::IntoAppError;
                let body = request.try_into_string().await?;
                #[cfg(feature = "ssr")]
                let read = cassis_core::ontology::on_ontology_worker(move || {
                    $crate::api::ontology_form::read_form::<Self>(&body)
                })
                .await;
                // Only the server reads requests.
                #[cfg(not(feature = "ssr"))]
                let read = $crate::api::ontology_form::read_form::<Self>(&body);
                read.map_err(|e| leptos::server_fn::error::ServerFnErrorErr::Args(e).into_app_error())
            }
        }
    )*};
}
pub(crate) use ontology_form;

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::api::ontology::SaveDraft;
    use crate::error::AppError;
    use leptos::server_fn::codec::FromReq;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// A save's form of megabytes is read while the async thread (one here)
    /// keeps running: a ticker on it never waits as long as reading takes.
    #[test]
    fn a_large_form_is_read_off_the_async_workers() {
        // Under axum's own cap of 2 MiB, which the server raises for these
        // routes (see the server's `body_limit`).
        let yaml = "objects:\n- name: thing\n  description: a: b, c: d\n".repeat(25_000);
        let body = serde_qs::to_string(&SaveDraft {
            project_id: "p".to_owned(),
            yaml,
            revision: 3,
            overwrite: false,
        })
        .unwrap();
        assert!(
            (1_500_000..2 * 1024 * 1024).contains(&body.len()),
            "{} bytes",
            body.len()
        );
        let started = Instant::now();
        let inline: SaveDraft = super::read_form(&body).unwrap();
        let inline_took = started.elapsed();
        assert!(
            inline_took >= Duration::from_millis(20),
            "{inline_took:?}: too fast to tell"
        );

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let longest = Arc::new(Mutex::new(Duration::ZERO));
        let read = runtime.block_on(async {
            let ticker = tokio::spawn({
                let longest = longest.clone();
                async move {
                    let mut last = Instant::now();
                    loop {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                        let mut longest = longest.lock().unwrap();
                        *longest = (*longest).max(last.elapsed());
                        last = Instant::now();
                    }
                }
            });
            tokio::task::yield_now().await;
            let request = http::Request::post("/api/save_draft")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(axum::body::Body::from(body))
                .unwrap();
            let read = <SaveDraft as FromReq<super::OntologyForm, _, AppError>>::from_req(request)
                .await
                .unwrap();
            // The ticker's next tick measures the gap the read left, if any.
            tokio::time::sleep(Duration::from_millis(5)).await;
            ticker.abort();
            read
        });
        assert_eq!((read.revision, read.yaml.len()), (3, inline.yaml.len()));
        let longest = *longest.lock().unwrap();
        assert!(
            longest < inline_took / 2,
            "the async thread stalled {longest:?}; reading the form inline takes {inline_took:?}"
        );
    }
}
