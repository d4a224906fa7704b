//! Credentials: password hashing, session tokens, API keys, OAuth's
//! tokens and the sign-in throttle. Signing in with them against the store
//! is a use case: [`crate::service::credentials`].

mod api_key;
mod limits;
pub mod oauth;
mod password;
mod session;
mod throttle;

pub use api_key::{
    API_KEY_PREFIX, ApiKey, ApiKeySecret, InvalidLifetime, hash_key, is_well_formed, key_digest,
    parse_lifetime,
};
pub use limits::{AddressLimit, CredentialLimit, TooMany};
pub use password::{Password, PasswordError, PasswordHash};
pub use session::{SESSION_LIFETIME, SessionToken, SessionTokenHash};
pub use throttle::SignInThrottle;

/// 256 random bits from the operating system, as 43 base64url characters:
/// the secret part of every token and key Cassis hands out.
pub(crate) fn random_secret() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A password for a new account, shown once: 24 base64url characters (144 bits).
pub fn generate_password() -> String {
    SessionToken::generate().expose()[..24].to_owned()
}
