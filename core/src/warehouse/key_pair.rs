//! RSA key pairs that sign JWTs (RS256) for warehouses that sign in with
//! one: Snowflake's key-pair authentication (its token is in
//! `snowflake::token`) and Google service accounts for BigQuery. The key is
//! given as text, PEM or its base64 body, and never printed.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{KeyPair as _, RSA_PKCS1_SHA256, RsaKeyPair};

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(
        "the private key is not base64: give the key's PKCS#8 DER in base64 (the body of the .p8 file), as the URL's password"
    )]
    NotBase64,
    #[error(
        "the private key is encrypted: Cassis needs it unencrypted (openssl pkcs8 -topk8 -nocrypt)"
    )]
    Encrypted,
    #[error("the private key is not an RSA key of 2048 bits or more in PKCS#8 or PKCS#1 DER")]
    NotRsa,
    #[error("signing the sign-in token failed")]
    Sign,
}

/// An RSA key pair and the fingerprint of its public key.
pub struct KeyPair {
    key: RsaKeyPair,
    fingerprint: String,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("KeyPair")
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

impl KeyPair {
    /// A key from its text: a PEM file's contents or its base64 body (either
    /// base64 alphabet, padded or not, spaces and line breaks ignored).
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        if text.contains("ENCRYPTED") {
            return Err(KeyError::Encrypted);
        }
        let body: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("-----"))
            .flat_map(|line| line.chars())
            .filter(|c| !c.is_whitespace())
            .collect();
        let der = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
            .iter()
            .find_map(|engine| engine.decode(&body).ok())
            .ok_or(KeyError::NotBase64)?;
        Self::from_der(&der)
    }

    /// A key from its DER: PKCS#8 (`BEGIN PRIVATE KEY`, what Snowflake's
    /// guide makes) or PKCS#1 (`BEGIN RSA PRIVATE KEY`).
    pub fn from_der(der: &[u8]) -> Result<Self, KeyError> {
        let key = RsaKeyPair::from_pkcs8(der)
            .or_else(|_| RsaKeyPair::from_der(der))
            .map_err(|_| KeyError::NotRsa)?;
        let spki = subject_public_key_info(key.public_key().as_ref());
        let digest = ring::digest::digest(&ring::digest::SHA256, &spki);
        let fingerprint = format!("SHA256:{}", STANDARD.encode(digest.as_ref()));
        Ok(KeyPair { key, fingerprint })
    }

    /// `SHA256:` and the base64 SHA-256 of the public key's DER
    /// (SubjectPublicKeyInfo, what `openssl rsa -pubout -outform DER`
    /// writes), as Snowflake's `DESCRIBE USER` shows it in
    /// `RSA_PUBLIC_KEY_FP`.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The public key as PKCS#1 DER (`RSAPublicKey`).
    pub fn public_key_der(&self) -> &[u8] {
        self.key.public_key().as_ref()
    }

    /// A compact JWT of `header` and `claims` (JSON), signed RS256 with this
    /// key: Snowflake's sign-in token, and how a Google service account asks
    /// for an access token.
    pub fn sign_jwt(&self, header: &[u8], claims: &[u8]) -> Result<String, KeyError> {
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(claims)
        );
        let mut signature = vec![0; self.key.public().modulus_len()];
        self.key
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                signing_input.as_bytes(),
                &mut signature,
            )
            .map_err(|_| KeyError::Sign)?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }
}

/// The SubjectPublicKeyInfo DER of an RSA public key given as PKCS#1 DER:
/// `SEQUENCE { SEQUENCE { rsaEncryption, NULL }, BIT STRING { key } }`, the
/// bytes Snowflake's fingerprint is of.
fn subject_public_key_info(pkcs1: &[u8]) -> Vec<u8> {
    // OID 1.2.840.113549.1.1.1 and NULL, in their SEQUENCE.
    const ALGORITHM: [u8; 15] = [
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let mut bit_string = vec![0x00]; // no unused bits
    bit_string.extend_from_slice(pkcs1);
    let mut body = ALGORITHM.to_vec();
    body.extend(der_element(0x03, &bit_string));
    der_element(0x30, &body)
}

/// A DER element: tag, definite length, contents.
fn der_element(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = contents.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(contents);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A key made for these tests only (`openssl genrsa 2048 | openssl pkcs8
    /// -topk8 -nocrypt`).
    pub const TEST_KEY: &str = include_str!("test_key.p8");
    /// Its fingerprint as Snowflake's guide computes it: `openssl rsa -in
    /// test_key.p8 -pubout -outform DER | openssl dgst -sha256 -binary |
    /// openssl enc -base64`.
    pub const TEST_KEY_FINGERPRINT: &str = "SHA256:YOdztLs3KDMHy1n40luXBogNzpzAn0aCNoZqBF22hlQ=";

    #[test]
    fn the_fingerprint_is_the_documented_digest_of_the_public_key() {
        let key = KeyPair::from_text(TEST_KEY).unwrap();
        assert_eq!(key.fingerprint(), TEST_KEY_FINGERPRINT);
        // The same from the base64 body alone, in the URL-safe alphabet a
        // URL carries without escapes.
        let body: String = TEST_KEY
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect::<String>()
            .replace('+', "-")
            .replace('/', "_");
        assert_eq!(
            KeyPair::from_text(&body).unwrap().fingerprint(),
            TEST_KEY_FINGERPRINT
        );
    }

    #[test]
    fn keys_that_cannot_sign_are_refused_plainly() {
        assert!(matches!(
            KeyPair::from_text("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"),
            Err(KeyError::Encrypted)
        ));
        assert!(matches!(
            KeyPair::from_text("not a key!"),
            Err(KeyError::NotBase64)
        ));
        assert!(matches!(KeyPair::from_text("AAAA"), Err(KeyError::NotRsa)));
    }
}
