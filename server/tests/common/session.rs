//! The admin app as a browser uses it. Signing in and calling server
//! functions are [`super::app::Reach`]'s, for the real process and the
//! in-process router alike; this is what a browser adds.

/// A client that, like the app's forms and links, shows each redirect
/// instead of following it.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The `name=value` pair of a `Set-Cookie` header, as a browser sends it back.
pub fn cookie_pair(set_cookie: &str) -> &str {
    set_cookie.split(';').next().unwrap()
}
