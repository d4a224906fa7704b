//! `/metrics` in the Prometheus text format. Code everywhere records into the
//! `metrics` facade; the recorder installed here keeps the values and renders
//! them per scrape. Only configured networks (loopback by default) or a
//! bearer with the metrics token may read them: the labels name projects and
//! routes, and the counts tell how busy the server is.

use crate::oauth::limits::ClientAddress;
use crate::router::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ipnet::IpNet;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::Duration;

/// Seconds: from a cached ping (well under a millisecond) to a question that
/// runs into the default five-minute timeout.
const BUCKETS: [f64; 15] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0, 300.0,
];

/// How often histogram samples are folded into their buckets when nobody
/// scrapes; unfolded samples would otherwise pile up in memory.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The route label of a request no route matched (static files, 404s).
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Who may scrape.
#[derive(Clone, Debug, Default)]
pub struct MetricsAccess {
    /// Clients from these networks need no token.
    pub allow: Vec<IpNet>,
    /// A bearer token that admits any client.
    pub token: Option<String>,
}

/// The endpoint's state: the recorder's handle once installed, and who may
/// read it. Without a handle (routers built in-process by tests) `/metrics`
/// does not exist.
#[derive(Clone, Debug, Default)]
pub struct MetricsEndpoint {
    pub handle: Option<PrometheusHandle>,
    pub access: MetricsAccess,
}

/// Installs the process-wide recorder once and returns its handle; later
/// calls return the same handle.
pub fn install() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets(&BUCKETS)
                .expect("the buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics stays empty");
            }
            describe();
            handle
        })
        .clone()
}

/// The `# HELP` line of every metric, recorded here or in the core.
fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "cassis_http_requests_total",
        "HTTP requests by the route that served them (its pattern) and status"
    );
    describe_histogram!(
        "cassis_http_request_duration_seconds",
        Unit::Seconds,
        "HTTP request latency by route"
    );
    describe_gauge!(
        "cassis_http_requests_in_flight",
        "HTTP requests being served at the scrape"
    );
    describe_counter!(
        "cassis_mcp_tool_calls_total",
        "MCP tool calls by tool and status (ask_question: the answer's status)"
    );
    describe_counter!(
        "cassis_mcp_rate_limited_total",
        "MCP calls refused with 429: their credential was over its calls per minute"
    );
    describe_histogram!(
        "cassis_question_duration_seconds",
        Unit::Seconds,
        "Questions from MCP and the app, by answer status and planner"
    );
    describe_histogram!(
        "cassis_warehouse_query_duration_seconds",
        Unit::Seconds,
        "Queries questions ran on a project's data source, by project id and outcome (ok, timeout, error)"
    );
    describe_gauge!(
        "cassis_warehouse_pool_connections",
        "Connections to each project's data source, idle or in use"
    );
    describe_gauge!(
        "cassis_audit_queue_depth",
        "MCP tool calls waiting to be written to the audit trail"
    );
    describe_counter!(
        "cassis_sign_in_failures_total",
        "Refused sign-ins: invalid_credentials or throttled"
    );
}

/// Folds histogram samples into buckets until the process ends.
pub async fn upkeep(handle: PrometheusHandle) {
    let mut interval = tokio::time::interval(UPKEEP_EVERY);
    loop {
        interval.tick().await;
        handle.run_upkeep();
    }
}

enum Verdict {
    Allowed,
    /// Not for this client: the endpoint is not even admitted to exist.
    Hidden,
    /// A token was presented and it is not the metrics token.
    WrongToken,
}

impl MetricsAccess {
    fn judge(&self, address: Option<IpAddr>, headers: &HeaderMap) -> Verdict {
        let presented = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        match (presented, &self.token) {
            (Some(presented), Some(token)) => {
                use subtle::ConstantTimeEq;
                if bool::from(presented.as_bytes().ct_eq(token.as_bytes())) {
                    Verdict::Allowed
                } else {
                    Verdict::WrongToken
                }
            }
            (Some(_), None) => Verdict::WrongToken,
            (None, _) => {
                let allowed = address
                    .map(|ip| ip.to_canonical())
                    .is_some_and(|ip| self.allow.iter().any(|net| net.contains(&ip)));
                if allowed {
                    Verdict::Allowed
                } else {
                    Verdict::Hidden
                }
            }
        }
    }
}

pub async fn scrape(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
) -> Response {
    let Some(handle) = &state.metrics.handle else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match state.metrics.access.judge(address, &headers) {
        Verdict::Allowed => {}
        Verdict::Hidden => return StatusCode::NOT_FOUND.into_response(),
        Verdict::WrongToken => return StatusCode::FORBIDDEN.into_response(),
    }
    // Levels read at the moment of the scrape rather than kept up to date
    // on every change.
    metrics::gauge!("cassis_audit_queue_depth").set(state.audit.queued() as f64);
    metrics::gauge!("cassis_http_requests_in_flight").set(state.lifecycle.in_flight() as f64);
    for (project, usage) in state.app.engine.warehouse_pools() {
        let project = project.to_string();
        let idle = usage.idle as f64;
        metrics::gauge!("cassis_warehouse_pool_connections", "project" => project.clone(), "state" => "idle")
            .set(idle);
        metrics::gauge!("cassis_warehouse_pool_connections", "project" => project, "state" => "in_use")
            .set((f64::from(usage.open) - idle).max(0.0));
    }
    handle.run_upkeep();
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        handle.render(),
    )
        .into_response()
}

/// Counts a finished request by the route that served it.
pub fn count_request(route: Option<&MatchedPath>, status: StatusCode, seconds: f64) {
    let route = route
        .map_or(UNMATCHED_ROUTE, MatchedPath::as_str)
        .to_owned();
    metrics::histogram!("cassis_http_request_duration_seconds", "route" => route.clone())
        .record(seconds);
    metrics::counter!(
        "cassis_http_requests_total",
        "route" => route,
        "status" => status.as_str().to_owned(),
    )
    .increment(1);
}

/// Copies the route a request matched into its response, where the request
/// log (outside the router, before routing) finds it. A plain service rather
/// than `from_fn`, which would clone the route stack per request.
#[derive(Clone, Copy, Debug, Default)]
pub struct RouteLabelLayer;

impl<S> tower::Layer<S> for RouteLabelLayer {
    type Service = RouteLabel<S>;

    fn layer(&self, inner: S) -> RouteLabel<S> {
        RouteLabel(inner)
    }
}

#[derive(Clone, Debug)]
pub struct RouteLabel<S>(S);

impl<S> tower::Service<Request> for RouteLabel<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = RouteLabelFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let route = request.extensions().get::<MatchedPath>().cloned();
        RouteLabelFuture {
            inner: self.0.call(request),
            route,
        }
    }
}

pin_project_lite::pin_project! {
    pub struct RouteLabelFuture<F> {
        #[pin]
        inner: F,
        route: Option<MatchedPath>,
    }
}

impl<F, E> std::future::Future for RouteLabelFuture<F>
where
    F: std::future::Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = std::task::ready!(this.inner.poll(cx))?;
        if let Some(route) = this.route.take() {
            response.extensions_mut().insert(route);
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(authorization: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(AUTHORIZATION, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn networks_or_the_token_admit_a_scrape() {
        let access = MetricsAccess {
            allow: vec![
                "127.0.0.0/8".parse().unwrap(),
                "10.1.0.0/16".parse().unwrap(),
            ],
            token: Some("s3cret-metrics-token".into()),
        };
        let judge = |ip: &str, auth| access.judge(Some(ip.parse().unwrap()), &headers(auth));
        assert!(matches!(judge("127.0.0.1", None), Verdict::Allowed));
        assert!(matches!(judge("::ffff:10.1.2.3", None), Verdict::Allowed));
        assert!(matches!(judge("192.0.2.1", None), Verdict::Hidden));
        assert!(matches!(
            judge("192.0.2.1", Some("Bearer s3cret-metrics-token")),
            Verdict::Allowed
        ));
        assert!(matches!(
            judge("127.0.0.1", Some("Bearer wrong")),
            Verdict::WrongToken
        ));
        assert!(matches!(
            access.judge(None, &headers(None)),
            Verdict::Hidden
        ));
    }
}
