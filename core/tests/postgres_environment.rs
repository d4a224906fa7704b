//! A PostgreSQL source connects with what its URL says and nothing the
//! server's environment holds: not `PGPASSWORD`, `~/.pgpass`, `PGUSER`,
//! `PGDATABASE` or `PGAPPNAME`, and while `PGOPTIONS` or a client certificate
//! is set, not at all.
//!
//! The test PostgreSQL server trusts every local connection, so it never asks
//! for a password and cannot show which one a client would send. A listener
//! that speaks the start of the PostgreSQL protocol asks for it in clear text
//! and records what arrives. This file is its own test binary because it sets
//! the process environment, which every other connection would read too.

use cassis_core::warehouse::{Warehouse, WarehouseError};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

/// What a client sent before the listener refused it.
#[derive(Debug)]
struct Startup {
    /// The startup message's parameters: `user`, `database`, `options`, ...
    parameters: HashMap<String, String>,
    password: String,
}

/// A listener on 127.0.0.1 that takes one connection: it declines TLS, reads
/// the startup message, asks for a clear-text password, reads it and fails
/// the authentication.
fn password_recorder() -> (u16, mpsc::Receiver<Startup>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sent, received) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let read_message = |stream: &mut std::net::TcpStream| {
            let mut length = [0; 4];
            stream.read_exact(&mut length).unwrap();
            let mut body = vec![0; u32::from_be_bytes(length) as usize - 4];
            stream.read_exact(&mut body).unwrap();
            body
        };
        let mut startup = read_message(&mut stream);
        if startup[..4] == 80_877_103u32.to_be_bytes() {
            // SSLRequest: no TLS here.
            stream.write_all(b"N").unwrap();
            startup = read_message(&mut stream);
        }
        assert_eq!(startup[..4], 196_608u32.to_be_bytes(), "protocol 3.0");
        let texts: Vec<String> = startup[4..]
            .split(|&b| b == 0)
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        let parameters = texts
            .chunks_exact(2)
            .filter(|pair| !pair[0].is_empty())
            .map(|pair| (pair[0].clone(), pair[1].clone()))
            .collect();
        // AuthenticationCleartextPassword.
        stream.write_all(&[b'R', 0, 0, 0, 8, 0, 0, 0, 3]).unwrap();
        let mut tag = [0; 1];
        stream.read_exact(&mut tag).unwrap();
        assert_eq!(tag[0], b'p', "a password message");
        let password = read_message(&mut stream);
        let password = String::from_utf8_lossy(&password[..password.len() - 1]).into_owned();
        let mut error = Vec::new();
        for (field, text) in [
            (b'S', "FATAL"),
            (b'V', "FATAL"),
            (b'C', "28P01"),
            (b'M', "password authentication failed"),
        ] {
            error.push(field);
            error.extend_from_slice(text.as_bytes());
            error.push(0);
        }
        error.push(0);
        stream.write_all(b"E").unwrap();
        stream
            .write_all(&(error.len() as u32 + 4).to_be_bytes())
            .unwrap();
        stream.write_all(&error).unwrap();
        sent.send(Startup {
            parameters,
            password,
        })
        .unwrap();
    });
    (port, received)
}

/// Connects to a fresh recorder with the URL `url_of` makes of its port,
/// and returns the outcome with what the recorder received.
async fn connect_and_record(
    url_of: impl Fn(u16) -> String,
) -> (Result<Warehouse, WarehouseError>, Startup) {
    let (port, received) = password_recorder();
    let outcome = Warehouse::connect(&url_of(port)).await;
    let startup = received
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the client reached the listener and sent a password");
    (outcome, startup)
}

#[tokio::test]
async fn a_postgres_source_takes_nothing_from_the_servers_environment() {
    let home = tempfile::tempdir().unwrap();
    let pgpass = home.path().join(".pgpass");
    std::fs::write(&pgpass, "*:*:*:*:from-pgpass\n").unwrap();
    std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // SAFETY: this test binary runs this one test, and sets the environment
    // before anything else in the process reads it.
    unsafe {
        std::env::set_var("HOME", home.path());
        std::env::set_var("PGPASSFILE", &pgpass);
        std::env::set_var("PGPASSWORD", "from-pgpassword");
        std::env::set_var("PGUSER", "postgres");
        std::env::set_var("PGDATABASE", "cassis");
        std::env::set_var("PGAPPNAME", "from-the-environment");
        std::env::set_var("PGSSLMODE", "require");
        std::env::set_var("PGHOST", "/var/run/postgresql");
    }

    // A user and no password: the password sent is empty, not the server's.
    let (outcome, startup) =
        connect_and_record(|port| format!("postgres://ana@127.0.0.1:{port}/sales")).await;
    assert!(
        matches!(outcome, Err(WarehouseError::Connect(_))),
        "{outcome:?}"
    );
    assert_eq!(startup.password, "", "{startup:?}");
    assert_eq!(startup.parameters["user"], "ana");
    assert_eq!(startup.parameters["database"], "sales");
    assert_eq!(startup.parameters["application_name"], "cassis");

    // The password the URL names, and with no database, the user's.
    let (_, startup) =
        connect_and_record(|port| format!("postgres://ana:s3cr%40t@127.0.0.1:{port}")).await;
    assert_eq!(startup.password, "s3cr@t", "{startup:?}");
    assert_eq!(startup.parameters["database"], "ana");

    // Without a host in the URL, PGHOST does not supply one.
    let no_host = Warehouse::connect("postgres:///sales?user=ana").await;
    assert!(
        matches!(no_host, Err(WarehouseError::NoHost(_))),
        "{no_host:?}"
    );

    // Session options and client certificates from the environment cannot
    // be taken back out of a connection, so none is made while they are set.
    for (variable, value) in [
        ("PGOPTIONS", "-c default_transaction_read_only=off"),
        ("PGSSLCERT", "/etc/cassis/client.crt"),
        ("PGSSLKEY", "/etc/cassis/client.key"),
        ("PGSSLROOTCERT", "/etc/cassis/root.crt"),
    ] {
        // SAFETY: as above; nothing else in the process runs now.
        unsafe { std::env::set_var(variable, value) };
        let refused = Warehouse::connect("postgres://ana@127.0.0.1:1/sales").await;
        match refused {
            Err(WarehouseError::AmbientSetting(name)) => assert_eq!(name, variable),
            other => panic!("{variable}: {other:?}"),
        }
        // SAFETY: as above.
        unsafe { std::env::remove_var(variable) };
    }
}
