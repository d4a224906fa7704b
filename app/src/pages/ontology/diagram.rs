//! Objects as boxes on a circle and relationships as arrows between them:
//! where a picture shows the join paths better than a list.

use cassis_core::ontology::Ontology;
use leptos::prelude::*;

const BOX_WIDTH: f64 = 132.0;
const BOX_HEIGHT: f64 = 34.0;

#[component]
pub fn Diagram(ontology: Ontology) -> impl IntoView {
    let count = ontology.objects.len();
    if count == 0 {
        return view! { <p class="mt-2 text-sm text-slate-500">"No objects yet: bootstrap the draft or add them in YAML."</p> }.into_any();
    }
    // A circle large enough that neighbouring boxes do not overlap.
    let radius = (count as f64 * (BOX_WIDTH + 24.0) / std::f64::consts::TAU).max(120.0);
    let (width, height) = (
        2.0 * radius + BOX_WIDTH + 40.0,
        2.0 * radius + BOX_HEIGHT + 60.0,
    );
    let (cx, cy) = (width / 2.0, height / 2.0);
    let position = |i: usize| {
        let angle = std::f64::consts::TAU * i as f64 / count as f64 - std::f64::consts::FRAC_PI_2;
        (cx + radius * angle.cos(), cy + radius * angle.sin())
    };
    let index_of = |name: &str| ontology.objects.iter().position(|o| o.name == name);
    let edges = ontology
        .relationships
        .iter()
        .filter_map(|r| {
            let (from, to) = (index_of(&r.from)?, index_of(&r.to)?);
            let ((x1, y1), (x2, y2)) = (position(from), position(to));
            let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
            // The arrow ends at the target box's border, not under it.
            let (dx, dy) = (x2 - x1, y2 - y1);
            let scale = ((BOX_WIDTH / 2.0) / dx.abs().max(1e-9))
                .min((BOX_HEIGHT / 2.0) / dy.abs().max(1e-9))
                .min(1.0);
            let (x2, y2) = (x2 - dx * scale, y2 - dy * scale);
            Some(view! {
                <g>
                    <title>{format!("{}: {} → {}", r.name, r.from, r.to)}</title>
                    <line x1=x1 y1=y1 x2=x2 y2=y2 stroke="#a78bfa" stroke-width="1.5" marker-end="url(#arrow)" />
                    <text x=mx y=my - 3.0 font-size="10" text-anchor="middle" fill="#6b21a8">{r.name.clone()}</text>
                </g>
            })
        })
        .collect_view();
    let boxes = ontology
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let (x, y) = position(i);
            view! {
                <g data-object=o.name.clone()>
                    <title>{format!("{} ({})", o.name, o.table)}</title>
                    <rect x=x - BOX_WIDTH / 2.0 y=y - BOX_HEIGHT / 2.0 width=BOX_WIDTH height=BOX_HEIGHT rx="6"
                        fill="#ffffff" stroke="#475569" stroke-width="1.2" />
                    <text x=x y=y + 4.0 font-size="12" font-weight="600" text-anchor="middle" fill="#0f172a">{o.name.clone()}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg viewBox=format!("0 0 {width:.0} {height:.0}") class="mt-3 w-full max-h-[36rem]" role="img"
            aria-label="Diagram of objects and the relationships that join them" data-testid="relationship-diagram">
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" fill="#a78bfa" />
                </marker>
            </defs>
            {edges}
            {boxes}
        </svg>
    }
    .into_any()
}
