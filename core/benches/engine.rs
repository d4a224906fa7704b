//! The question engine's speed: planning plus compiling on the F1 ontology
//! and on a generated ontology of 1,000 objects and 20,000 attributes, and a
//! whole `ask` on the F1 data in SQLite (when ../shared/data/f1 is there).
//!
//!   cargo bench -p cassis-core --features ssr --bench engine

use cassis_core::engine::compile::compile;
use cassis_core::engine::lexicon::{AttributeValues, Lexicon};
use cassis_core::engine::planner::{Planned, plan};
use cassis_core::engine::{AskRequest, Client, Engine, EngineSettings};
use cassis_core::ontology::{
    Aggregate, Attribute, AttributeRole, DataType, KeyPair, Metric, Object, Ontology, Relationship,
    from_yaml,
};
use cassis_core::project::{DataSource, Dialect, ProjectName};
use cassis_core::time::Timestamp;
use cassis_core::warehouse::csv_load::{LoadOptions, load_csv_dir};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;

mod common;

const SEED_QUESTION: &str = "Who won the most races in 2023?";

/// A handful of F1 questions of different shapes: a ranking, a count, a
/// name's wins, a ratio per driver, a growth, a running total, an average
/// per race and a top 5.
const F1_QUESTIONS: [&str; 8] = [
    SEED_QUESTION,
    "How many races were held in 2023?",
    "how many races did Lewis Hamilton win",
    "win rate by driver in 2021",
    "number of races growth in 2021 vs 2020",
    "running total of races by quarter in 2021",
    "average points per race for Max Verstappen in 2023",
    "top 5 drivers by points in 2022",
];

fn f1_yaml() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/f1/ontology.yaml"),
    )
    .expect("the F1 example ontology")
}

fn plan_and_compile(ontology: &Ontology, lexicon: &Lexicon, question: &str) -> String {
    match plan(ontology, lexicon, question, None, None) {
        Planned::Plan(p) => {
            compile(ontology, &p, Dialect::Postgres)
                .expect("compiles")
                .sql
        }
        Planned::NotAnswerable(reason) => panic!("{question}: {reason}"),
    }
}

/// 1,000 objects of 20 attributes each in a tree of many-to-one relationships,
/// with a metric per object and 100 known values on a tenth of the objects.
fn generated_ontology() -> (Ontology, Vec<Vec<String>>) {
    let mut ontology = Ontology::default();
    let mut values = Vec::new();
    for o in 0..1000 {
        let mut attributes = vec![Attribute {
            name: "id".into(),
            data_type: DataType::Integer,
            role: AttributeRole::Identifier,
            ..Attribute::default()
        }];
        if o > 0 {
            attributes.push(Attribute {
                name: "parent_id".into(),
                data_type: DataType::Integer,
                role: AttributeRole::Identifier,
                ..Attribute::default()
            });
        }
        while attributes.len() < 20 {
            let n = attributes.len();
            attributes.push(Attribute {
                name: format!("attribute_{o}_{n}"),
                data_type: if n == 2 {
                    DataType::Date
                } else {
                    DataType::Text
                },
                role: if n == 2 {
                    AttributeRole::Time
                } else {
                    AttributeRole::Dimension
                },
                ..Attribute::default()
            });
        }
        ontology.objects.push(Object {
            name: format!("thing_{o}"),
            table: format!("public.thing_{o}"),
            primary_key: vec!["id".into()],
            attributes,
            ..Object::default()
        });
        if o > 0 {
            ontology.relationships.push(Relationship {
                name: format!("thing_{o}_parent"),
                from: format!("thing_{o}"),
                to: format!("thing_{}", (o - 1) / 3),
                keys: vec![KeyPair {
                    from: "parent_id".into(),
                    to: "id".into(),
                }],
                ..Relationship::default()
            });
        }
        ontology.metrics.push(Metric {
            name: format!("measure_{o}"),
            object: format!("thing_{o}"),
            aggregate: Aggregate::Count,
            ..Metric::default()
        });
        values.push(if o % 10 == 0 {
            (0..100).map(|v| format!("value {o} {v}")).collect()
        } else {
            Vec::new()
        });
    }
    (ontology, values)
}

fn planning(c: &mut Criterion) {
    let f1 = from_yaml(&f1_yaml()).expect("the F1 ontology parses");
    let drivers = ["Max Verstappen", "Sergio Pérez", "Lewis Hamilton"].map(String::from);
    let lexicon = Lexicon::build(
        &f1,
        &[AttributeValues {
            object: 3,
            attribute: 1,
            values: &drivers,
        }],
    );
    c.bench_function("plan+compile/f1/seed question", |b| {
        b.iter(|| plan_and_compile(&f1, &lexicon, black_box(SEED_QUESTION)))
    });
    // Divide by 8 for the time per question.
    c.bench_function("plan+compile/f1/8 questions", |b| {
        b.iter(|| {
            for question in F1_QUESTIONS {
                black_box(plan_and_compile(&f1, &lexicon, black_box(question)));
            }
        })
    });

    let (big, values) = generated_ontology();
    let attribute_values: Vec<AttributeValues<'_>> = values
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_empty())
        .map(|(o, v)| AttributeValues {
            object: o,
            attribute: 3,
            values: v,
        })
        .collect();
    let big_lexicon = Lexicon::build(&big, &attribute_values);
    let question = "measure 999 by attribute 0 5 for value 0 42 in 2023";
    println!(
        "generated: {}",
        plan_and_compile(&big, &big_lexicon, question)
    );
    c.bench_function("plan+compile/1000 objects, 20000 attributes", |b| {
        b.iter(|| plan_and_compile(&big, &big_lexicon, black_box(question)))
    });
    // A hostile question: 4,000 characters of words nobody defined, each a
    // candidate for typo matching against every key of the lexicon.
    let mut noise = String::new();
    let mut n = 0u64;
    while noise.len() < 3_990 {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let word: String = (0..7 + (n >> 60) as usize)
            .map(|i| char::from(b'a' + ((n >> (i * 5)) % 26) as u8))
            .collect();
        noise.push_str(&word);
        noise.push(' ');
    }
    c.bench_function("plan/1000 objects/4000 characters of unknown words", |b| {
        b.iter(|| plan(&big, &big_lexicon, black_box(&noise), None, None))
    });
    // The same against F1 with 5,000 one-word names known: every unknown
    // word is a typo candidate for each of them.
    let names: Vec<String> = (0..5_000u64)
        .map(|i| {
            let x = i.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
            (0..8)
                .map(|k| char::from(b'a' + ((x >> (k * 6)) % 26) as u8))
                .collect()
        })
        .collect();
    let named = Lexicon::build(
        &f1,
        &[AttributeValues {
            object: 3,
            attribute: 1,
            values: &names,
        }],
    );
    c.bench_function(
        "plan/f1 with 5000 names/4000 characters of unknown words",
        |b| b.iter(|| plan(&f1, &named, black_box(&noise), None, None)),
    );
    c.bench_function("lexicon build/1000 objects, 20000 attributes", |b| {
        b.iter(|| Lexicon::build(&big, &attribute_values).len())
    });
}

/// The whole engine on the F1 data in SQLite: store, chat, plan, compile,
/// execute, answer.
fn asking(c: &mut Criterion) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/f1");
    if !data.join("results.csv").exists() {
        eprintln!("skipping ask/f1: no F1 data in {}", data.display());
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (engine, user, project_id) = runtime.block_on(async {
        let warehouse = format!("sqlite://{}", dir.path().join("f1.sqlite").display());
        let options = LoadOptions {
            schema: None,
            snake_case: true,
            replace: false,
        };
        load_csv_dir(&warehouse, &data, &options, &mut |_| {})
            .await
            .unwrap();
        let now = Timestamp::from_millis(1_800_000_000_000);
        let (store, user) = common::store_with_admin(dir.path(), now).await;
        let project = store
            .create_project(
                user.organization_id,
                &ProjectName::parse("F1").unwrap(),
                "",
                Some(DataSource {
                    dialect: Dialect::Sqlite,
                    connection_url: Some(warehouse),
                }),
                now,
            )
            .await
            .unwrap();
        let ontology = from_yaml(&f1_yaml().replace("table: public.", "table: ")).unwrap();
        let engine = Engine::new(store.clone(), EngineSettings::default());
        cassis_core::service::Services::new(store.clone(), engine)
            .publish(
                &user,
                &project,
                &ontology,
                "bench",
                cassis_core::service::publishing::RegressionPolicy::Force,
                now,
            )
            .await
            .unwrap();
        (
            Engine::new(store, EngineSettings::default()),
            user,
            project.id,
        )
    });
    let ask = || async {
        let request = AskRequest {
            project_id: project_id.to_string(),
            question: SEED_QUESTION.to_owned(),
            ..AskRequest::default()
        };
        let response = engine
            .ask(
                &user,
                Client::Cli,
                request,
                Timestamp::from_millis(1_800_000_000_000),
            )
            .await;
        assert_eq!(response.status.as_str(), "answered", "{}", response.answer);
        response
    };
    // The first question reads the known values; later ones hit the cache.
    runtime.block_on(ask());
    c.bench_function("ask/f1 sqlite/seed question", |b| {
        b.to_async(&runtime).iter(&ask)
    });
}

criterion_group!(benches, planning, asking);
criterion_main!(benches);
