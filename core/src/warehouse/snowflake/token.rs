//! Key-pair authentication's sign-in token, as Snowflake documents it: the
//! issuer is `ACCOUNT.USER.SHA256:<fingerprint>` (the key's
//! [`KeyPair::fingerprint`]), the subject is `ACCOUNT.USER`, both upper
//! case, with the account locator cut at its region (`xy12345.us-east-1` is
//! `XY12345`); signed RS256, valid for at most an hour.

use crate::warehouse::key_pair::{KeyError, KeyPair};

/// How long a token is valid: Snowflake accepts at most an hour.
pub const TOKEN_LIFETIME_SECS: u64 = 59 * 60;

/// The claims of a sign-in token.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Claims {
    pub iss: String,
    pub sub: String,
    pub iat: u64,
    pub exp: u64,
}

/// The claims for `user` of `account` signing in with `key` at `now_secs`.
pub fn claims(key: &KeyPair, account: &str, user: &str, now_secs: u64) -> Claims {
    let subject = format!("{}.{}", account_for_token(account), user.to_uppercase());
    Claims {
        iss: format!("{subject}.{}", key.fingerprint()),
        sub: subject,
        iat: now_secs,
        exp: now_secs + TOKEN_LIFETIME_SECS,
    }
}

/// The signed token (RS256) for `user` of `account`, issued at `now_secs`.
pub fn token(key: &KeyPair, account: &str, user: &str, now_secs: u64) -> Result<String, KeyError> {
    let claims =
        serde_json::to_vec(&claims(key, account, user, now_secs)).map_err(|_| KeyError::Sign)?;
    key.sign_jwt(br#"{"alg":"RS256","typ":"JWT"}"#, &claims)
}

/// The account as the token names it: upper case, without the region and
/// cloud of an account locator (`xy12345.us-east-1.aws`), and for a global
/// URL (`myaccount-xyz.global`) without what follows the first dash, as
/// Snowflake's drivers do.
pub fn account_for_token(account: &str) -> String {
    let account = if account.contains(".global") {
        account.split('-').next().unwrap_or(account)
    } else {
        account.split('.').next().unwrap_or(account)
    };
    account.to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warehouse::key_pair::tests::{TEST_KEY, TEST_KEY_FINGERPRINT};
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    #[test]
    fn the_claims_name_the_account_user_and_key_as_documented() {
        let key = KeyPair::from_text(TEST_KEY).unwrap();
        let claims = claims(
            &key,
            "xy12345.us-east-1.aws",
            "cassis_reader",
            1_700_000_000,
        );
        assert_eq!(
            claims,
            Claims {
                iss: format!("XY12345.CASSIS_READER.{TEST_KEY_FINGERPRINT}"),
                sub: "XY12345.CASSIS_READER".into(),
                iat: 1_700_000_000,
                exp: 1_700_000_000 + 59 * 60,
            }
        );
        assert!(claims.exp - claims.iat <= 3600);
        assert_eq!(account_for_token("myorg-analytics"), "MYORG-ANALYTICS");
        assert_eq!(account_for_token("myaccount-abc.global"), "MYACCOUNT");
    }

    #[test]
    fn the_token_is_an_rs256_jwt_its_public_key_verifies() {
        let key = KeyPair::from_text(TEST_KEY).unwrap();
        let now = 1_700_000_000;
        let token = token(&key, "myorg-analytics", "ana", now).unwrap();
        // Verified by an independent JWT implementation, with the public key.
        let decoding = jsonwebtoken::DecodingKey::from_rsa_der(key.public_key_der());
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
        validation.validate_exp = false;
        validation.required_spec_claims.clear();
        let decoded = jsonwebtoken::decode::<Claims>(&token, &decoding, &validation).unwrap();
        assert_eq!(decoded.header.alg, jsonwebtoken::Algorithm::RS256);
        assert_eq!(decoded.header.typ.as_deref(), Some("JWT"));
        assert_eq!(decoded.claims.sub, "MYORG-ANALYTICS.ANA");
        assert_eq!(
            decoded.claims.iss,
            format!("MYORG-ANALYTICS.ANA.{TEST_KEY_FINGERPRINT}")
        );
        // Claims changed after signing do not verify.
        let parts: Vec<&str> = token.split('.').collect();
        let forged = URL_SAFE_NO_PAD.encode(br#"{"iss":"X","sub":"X","iat":0,"exp":1}"#);
        let tampered = format!("{}.{forged}.{}", parts[0], parts[2]);
        assert!(jsonwebtoken::decode::<Claims>(&tampered, &decoding, &validation).is_err());
    }
}
