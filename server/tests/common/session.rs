//! The admin app as a browser uses it: sign in through the login server
//! function, then call server functions with the session cookie.

use super::{ADMIN_EMAIL, Server};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, ORIGIN, SET_COOKIE};

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Signs in through the login server function and returns the session cookie.
pub async fn sign_in(server: &Server, password: &str) -> (StatusCode, Option<String>) {
    sign_in_as(server, ADMIN_EMAIL, password).await
}

/// A login attempt as the login form sends it.
pub async fn login(server: &Server, email: &str, password: &str) -> reqwest::Response {
    client()
        .post(format!("{}/api/login", server.url))
        .header(ORIGIN, &server.url)
        .form(&[("email", email), ("password", password)])
        .send()
        .await
        .unwrap()
}

pub async fn sign_in_as(
    server: &Server,
    email: &str,
    password: &str,
) -> (StatusCode, Option<String>) {
    let response = login(server, email, password).await;
    let cookie = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("cassis_session=") && !c.starts_with("cassis_session=;"));
    (response.status(), cookie)
}

pub fn cookie_pair(set_cookie: &str) -> &str {
    set_cookie.split(';').next().unwrap()
}

/// Calls a server function as the signed-in browser would, returning the status and body.
pub async fn call(server: &Server, set_cookie: &str, function: &str) -> (StatusCode, String) {
    let response = client()
        .post(format!("{}/api/{function}", server.url))
        .header(COOKIE, cookie_pair(set_cookie))
        .header(ORIGIN, &server.url)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

pub async fn call_with(
    server: &Server,
    set_cookie: &str,
    function: &str,
    form: &[(&str, &str)],
) -> (StatusCode, String) {
    let response = client()
        .post(format!("{}/api/{function}", server.url))
        .header(COOKIE, cookie_pair(set_cookie))
        .header(ORIGIN, &server.url)
        .form(form)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}
