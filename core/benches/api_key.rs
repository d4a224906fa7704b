//! What checking an API key costs an MCP request. The server verifies a key
//! against the store once (`verify in the store`: look up its hash, load its
//! user, record the use) and then, for a few seconds, only recognises it
//! (`recognise a cached key`: check its shape and take the SHA-256 digest the
//! cache is keyed by). The budget is 50 µs per request.
//!
//!   cargo bench -p cassis-core --features ssr --bench api_key

use cassis_core::auth::{self, ApiKeySecret};
use cassis_core::store::NewApiKey;
use cassis_core::time::Timestamp;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

mod common;

fn api_key(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a Tokio runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let now = Timestamp::from_millis(1_800_000_000_000);
    let (store, secret) = runtime.block_on(async {
        let (store, user) = common::store_with_admin(dir.path(), now).await;
        let secret = ApiKeySecret::generate();
        let key = NewApiKey {
            organization_id: user.organization_id,
            user_id: user.id,
            name: "bench",
            expires_at: None,
        };
        store.create_api_key(key, &secret, now).await.unwrap();
        (store, secret)
    });
    let presented = secret.expose();

    let mut group = c.benchmark_group("api_key");
    group.bench_function("recognise a cached key", |b| {
        b.iter(|| {
            let presented = black_box(presented);
            assert!(auth::is_well_formed(presented));
            auth::key_digest(presented)
        })
    });
    group.bench_function("verify in the store (SQLite)", |b| {
        b.to_async(&runtime).iter(|| async {
            cassis_core::service::credentials::authenticate_api_key(
                &store,
                black_box(presented),
                now,
            )
            .await
            .expect("the key is valid")
        })
    });
    group.finish();
}

criterion_group!(benches, api_key);
criterion_main!(benches);
