//! Organizations, users and their roles.

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// What a user may do in their organization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Manages users, API keys and data sources, and everything an editor does.
    Admin,
    /// Curates and publishes ontologies.
    Editor,
    /// Asks questions.
    Viewer,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Admin, Role::Editor, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Viewer => "viewer",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown role `{0}`: expected admin, editor or viewer")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|role| role.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

/// An email address, trimmed and lower-cased so that sign-in and uniqueness
/// ignore case. Only the shape is checked: delivery is not our concern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidEmail {
    #[error("an email address is required")]
    Empty,
    #[error("`{0}` is not an email address: it needs one @ with text on both sides and no spaces")]
    Malformed(String),
    #[error("an email address has at most 254 characters")]
    TooLong,
}

impl Email {
    pub fn parse(input: &str) -> Result<Self, InvalidEmail> {
        let email = input.trim().to_lowercase();
        if email.is_empty() {
            return Err(InvalidEmail::Empty);
        }
        if email.len() > 254 {
            return Err(InvalidEmail::TooLong);
        }
        let well_formed = match email.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.is_empty()
                    && !domain.contains('@')
                    && !email.chars().any(char::is_whitespace)
            }
            None => false,
        };
        if !well_formed {
            return Err(InvalidEmail::Malformed(input.trim().to_owned()));
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Email {
    type Error = InvalidEmail;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Email::parse(&value)
    }
}

impl From<Email> for String {
    fn from(email: Email) -> Self {
        email.0
    }
}

/// The tenant that owns users, projects and API keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Organization {
    pub id: Uuid,
    pub name: String,
    pub created_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub email: Email,
    pub role: Role,
    pub created_at: Timestamp,
    pub disabled_at: Option<Timestamp>,
}

impl User {
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_compared_without_case_or_padding() {
        assert_eq!(
            Email::parse("  Ada@Example.COM ").unwrap().as_str(),
            "ada@example.com"
        );
    }

    #[test]
    fn malformed_emails_say_what_is_wrong() {
        assert_eq!(Email::parse(" "), Err(InvalidEmail::Empty));
        for bad in ["ada", "@example.com", "ada@", "a b@example.com", "a@b@c"] {
            assert!(
                matches!(Email::parse(bad), Err(InvalidEmail::Malformed(_))),
                "{bad}"
            );
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(Email::parse(&long), Err(InvalidEmail::TooLong));
    }

    #[test]
    fn roles_parse_from_their_names_only() {
        assert_eq!("Admin".parse::<Role>(), Ok(Role::Admin));
        assert_eq!("viewer".parse::<Role>(), Ok(Role::Viewer));
        assert_eq!("owner".parse::<Role>(), Err(UnknownRole("owner".into())));
    }
}
