//! The demo "Wholesale" warehouse: TPC-H data generated locally with `tpchgen`
//! into a SQLite file, so a new installation has real business data to ask
//! about without any download.

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection, SqliteConnection};
use std::path::{Path, PathBuf};
use tpchgen::distribution::Distributions;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};
use tpchgen::text::TextPool;

/// The size of tpchgen's default text pool (TPC-H's 300 MiB of generated
/// sentences that comments are cut from): the same size gives the same rows.
/// The pool is built for one generation and freed after it; tpchgen's
/// default is a static that would stay resident for the server's lifetime.
const TEXT_POOL_BYTES: i32 = 300 * 1024 * 1024;

/// The demo project's ontology, published as its first version.
pub const WHOLESALE_ONTOLOGY: &str = include_str!("../../examples/wholesale/ontology.yaml");

/// TPC-H scale factor 0.01: about 87,000 rows, a few megabytes, a second or two.
pub const DEFAULT_SCALE_FACTOR: f64 = 0.01;
/// Below this TPC-H's part-supplier keys collide: the generator assumes at
/// least 100 suppliers.
pub const MIN_SCALE_FACTOR: f64 = 0.01;
pub const MAX_SCALE_FACTOR: f64 = 10.0;

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("the scale factor must be between {MIN_SCALE_FACTOR} and {MAX_SCALE_FACTOR}, not {0}")]
    ScaleFactor(f64),
    #[error("cannot write the demo warehouse at {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the demo warehouse failed: {0}")]
    Database(#[from] sqlx::Error),
}

/// Reports progress while the warehouse is generated: one call per finished table.
pub trait Progress {
    fn table_done(&mut self, table: &str, rows: u64);
}

impl<F: FnMut(&str, u64)> Progress for F {
    fn table_done(&mut self, table: &str, rows: u64) {
        self(table, rows)
    }
}

const SCHEMA: &str = "
CREATE TABLE region (
    r_regionkey INTEGER PRIMARY KEY,
    r_name      TEXT NOT NULL,
    r_comment   TEXT NOT NULL
);
CREATE TABLE nation (
    n_nationkey INTEGER PRIMARY KEY,
    n_name      TEXT NOT NULL,
    n_regionkey INTEGER NOT NULL REFERENCES region (r_regionkey),
    n_comment   TEXT NOT NULL
);
CREATE TABLE part (
    p_partkey     INTEGER PRIMARY KEY,
    p_name        TEXT NOT NULL,
    p_mfgr        TEXT NOT NULL,
    p_brand       TEXT NOT NULL,
    p_type        TEXT NOT NULL,
    p_size        INTEGER NOT NULL,
    p_container   TEXT NOT NULL,
    p_retailprice REAL NOT NULL,
    p_comment     TEXT NOT NULL
);
CREATE TABLE supplier (
    s_suppkey   INTEGER PRIMARY KEY,
    s_name      TEXT NOT NULL,
    s_address   TEXT NOT NULL,
    s_nationkey INTEGER NOT NULL REFERENCES nation (n_nationkey),
    s_phone     TEXT NOT NULL,
    s_acctbal   REAL NOT NULL,
    s_comment   TEXT NOT NULL
);
CREATE TABLE partsupp (
    ps_partkey    INTEGER NOT NULL REFERENCES part (p_partkey),
    ps_suppkey    INTEGER NOT NULL REFERENCES supplier (s_suppkey),
    ps_availqty   INTEGER NOT NULL,
    ps_supplycost REAL NOT NULL,
    ps_comment    TEXT NOT NULL,
    PRIMARY KEY (ps_partkey, ps_suppkey)
);
CREATE TABLE customer (
    c_custkey    INTEGER PRIMARY KEY,
    c_name       TEXT NOT NULL,
    c_address    TEXT NOT NULL,
    c_nationkey  INTEGER NOT NULL REFERENCES nation (n_nationkey),
    c_phone      TEXT NOT NULL,
    c_acctbal    REAL NOT NULL,
    c_mktsegment TEXT NOT NULL,
    c_comment    TEXT NOT NULL
);
CREATE TABLE orders (
    o_orderkey      INTEGER PRIMARY KEY,
    o_custkey       INTEGER NOT NULL REFERENCES customer (c_custkey),
    o_orderstatus   TEXT NOT NULL,
    o_totalprice    REAL NOT NULL,
    o_orderdate     TEXT NOT NULL,
    o_orderpriority TEXT NOT NULL,
    o_clerk         TEXT NOT NULL,
    o_shippriority  INTEGER NOT NULL,
    o_comment       TEXT NOT NULL
);
CREATE TABLE lineitem (
    l_orderkey      INTEGER NOT NULL REFERENCES orders (o_orderkey),
    l_partkey       INTEGER NOT NULL REFERENCES part (p_partkey),
    l_suppkey       INTEGER NOT NULL REFERENCES supplier (s_suppkey),
    l_linenumber    INTEGER NOT NULL,
    l_quantity      REAL NOT NULL,
    l_extendedprice REAL NOT NULL,
    l_discount      REAL NOT NULL,
    l_tax           REAL NOT NULL,
    l_returnflag    TEXT NOT NULL,
    l_linestatus    TEXT NOT NULL,
    l_shipdate      TEXT NOT NULL,
    l_commitdate    TEXT NOT NULL,
    l_receiptdate   TEXT NOT NULL,
    l_shipinstruct  TEXT NOT NULL,
    l_shipmode      TEXT NOT NULL,
    l_comment       TEXT NOT NULL,
    PRIMARY KEY (l_orderkey, l_linenumber)
);
CREATE INDEX orders_custkey ON orders (o_custkey);
CREATE INDEX lineitem_partkey ON lineitem (l_partkey);
CREATE INDEX lineitem_suppkey ON lineitem (l_suppkey);
";

/// Money in TPC-H is fixed-point cents.
fn money(value: tpchgen::decimal::TPCHDecimal) -> f64 {
    value.0 as f64 / 100.0
}

/// Inserts every row of one table in the open transaction, binding each value.
macro_rules! insert_rows {
    ($conn:expr, $sql:expr, $rows:expr, |$row:ident| [$($value:expr),+ $(,)?]) => {{
        let mut count = 0u64;
        for $row in $rows {
            sqlx::query($sql)$(.bind($value))+.execute(&mut *$conn).await?;
            count += 1;
        }
        count
    }};
}

/// Generates the warehouse into `path`, replacing nothing: it writes a
/// temporary file next to it and renames it into place only when complete, so
/// an interrupted run never leaves a half-written warehouse behind.
///
/// The work runs on a thread of its own that ends with it. Generation needs
/// TPC-H's 300 MiB text pool; allocated and freed on one thread that then
/// exits, the allocator hands it back to the system at once, where a block
/// freed on another thread waits for the thread that allocated it.
pub async fn generate_warehouse(
    path: &Path,
    scale_factor: f64,
    progress: &mut dyn Progress,
) -> Result<(), DemoError> {
    if !(MIN_SCALE_FACTOR..=MAX_SCALE_FACTOR).contains(&scale_factor) {
        return Err(DemoError::ScaleFactor(scale_factor));
    }
    let io_error = |source| DemoError::Io {
        path: path.to_owned(),
        source,
    };
    let (done_tx, mut done) = tokio::sync::mpsc::unbounded_channel::<(&'static str, u64)>();
    let target = path.to_owned();
    let worker = std::thread::Builder::new()
        .name("demo-warehouse".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .map_err(|source| DemoError::Io {
                    path: target.clone(),
                    source,
                })?;
            let mut report = |table: &'static str, rows: u64| {
                let _ = done_tx.send((table, rows));
            };
            runtime.block_on(write_warehouse(&target, scale_factor, &mut report))
        })
        .map_err(io_error)?;
    // Ends when the thread drops its sender, that is when it is done.
    while let Some((table, rows)) = done.recv().await {
        progress.table_done(table, rows);
    }
    match worker.join() {
        Ok(written) => written,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

async fn write_warehouse(
    path: &Path,
    scale_factor: f64,
    progress: &mut dyn FnMut(&'static str, u64),
) -> Result<(), DemoError> {
    let io_error = |source| DemoError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error)?;
    }
    let partial = path.with_extension("partial");
    remove_if_present(&partial).map_err(io_error)?;

    let options = SqliteConnectOptions::new()
        .filename(&partial)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Delete)
        .synchronous(SqliteSynchronous::Off);
    let mut conn = SqliteConnection::connect_with(&options).await?;
    let mut tx = conn.begin().await?;
    sqlx::raw_sql(SCHEMA).execute(&mut *tx).await?;

    let pool = TextPool::new(TEXT_POOL_BYTES, Distributions::static_default());
    let (sf, part, parts, d, text) = (scale_factor, 1, 1, Distributions::static_default(), &pool);
    let n = insert_rows!(
        tx,
        "INSERT INTO region VALUES ($1, $2, $3)",
        RegionGenerator::new_with_distributions_and_text_pool(d, text).iter(),
        |r| [r.r_regionkey, r.r_name, r.r_comment]
    );
    progress("region", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO nation VALUES ($1, $2, $3, $4)",
        NationGenerator::new_with_distributions_and_text_pool(d, text).iter(),
        |r| [r.n_nationkey, r.n_name, r.n_regionkey, r.n_comment]
    );
    progress("nation", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO part VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        PartGenerator::new_with_distributions_and_text_pool(sf, part, parts, d, text).iter(),
        |r| [
            r.p_partkey,
            r.p_name.to_string(),
            r.p_mfgr.to_string(),
            r.p_brand.to_string(),
            r.p_type,
            r.p_size,
            r.p_container,
            money(r.p_retailprice),
            r.p_comment
        ]
    );
    progress("part", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO supplier VALUES ($1, $2, $3, $4, $5, $6, $7)",
        SupplierGenerator::new_with_distributions_and_text_pool(sf, part, parts, d, text).iter(),
        |r| [
            r.s_suppkey,
            r.s_name.to_string(),
            r.s_address.to_string(),
            r.s_nationkey,
            r.s_phone.to_string(),
            money(r.s_acctbal),
            r.s_comment.clone()
        ]
    );
    progress("supplier", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO partsupp VALUES ($1, $2, $3, $4, $5)",
        PartSuppGenerator::new_with_text_pool(sf, part, parts, text).iter(),
        |r| [
            r.ps_partkey,
            r.ps_suppkey,
            r.ps_availqty,
            money(r.ps_supplycost),
            r.ps_comment
        ]
    );
    progress("partsupp", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO customer VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        CustomerGenerator::new_with_distributions_and_text_pool(sf, part, parts, d, text).iter(),
        |r| [
            r.c_custkey,
            r.c_name.to_string(),
            r.c_address.to_string(),
            r.c_nationkey,
            r.c_phone.to_string(),
            money(r.c_acctbal),
            r.c_mktsegment,
            r.c_comment
        ]
    );
    progress("customer", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO orders VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        OrderGenerator::new_with_distributions_and_text_pool(sf, part, parts, d, text).iter(),
        |r| [
            r.o_orderkey,
            r.o_custkey,
            r.o_orderstatus.to_string(),
            money(r.o_totalprice),
            r.o_orderdate.to_string(),
            r.o_orderpriority,
            r.o_clerk.to_string(),
            r.o_shippriority,
            r.o_comment
        ]
    );
    progress("orders", n);
    let n = insert_rows!(
        tx,
        "INSERT INTO lineitem VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        LineItemGenerator::new_with_distributions_and_text_pool(sf, part, parts, d, text).iter(),
        |r| [
            r.l_orderkey,
            r.l_partkey,
            r.l_suppkey,
            r.l_linenumber,
            r.l_quantity as f64,
            money(r.l_extendedprice),
            money(r.l_discount),
            money(r.l_tax),
            r.l_returnflag,
            r.l_linestatus,
            r.l_shipdate.to_string(),
            r.l_commitdate.to_string(),
            r.l_receiptdate.to_string(),
            r.l_shipinstruct,
            r.l_shipmode,
            r.l_comment
        ]
    );
    progress("lineitem", n);

    tx.commit().await?;
    conn.close().await?;
    drop(pool);
    std::fs::rename(&partial, path).map_err(io_error)?;
    Ok(())
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The connection URL Cassis uses to query the demo warehouse: read-only.
pub fn warehouse_url(path: &Path) -> String {
    format!("sqlite://{}?mode=ro", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo's answers (the Wholesale question set) were written against
    /// rows cut from tpchgen's default pool: an own pool must give the same.
    #[test]
    fn an_own_text_pool_gives_the_rows_of_the_default_one() {
        let pool = TextPool::new(TEXT_POOL_BYTES, Distributions::static_default());
        let d = Distributions::static_default();
        let ours: Vec<String> =
            LineItemGenerator::new_with_distributions_and_text_pool(0.01, 1, 1, d, &pool)
                .iter()
                .step_by(97)
                .map(|row| row.l_comment.to_owned())
                .collect();
        let default: Vec<String> = LineItemGenerator::new(0.01, 1, 1)
            .iter()
            .step_by(97)
            .map(|row| row.l_comment.to_owned())
            .collect();
        assert!(ours.len() > 500);
        assert_eq!(ours, default);
    }
}
