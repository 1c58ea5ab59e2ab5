//! Native decision latency, for bench/decisions.mjs: runs `decide_json` over the inputs of the
//! shared decision vectors for about a second, and prints the mean time per decision as JSON.
//! Usage: cargo run --release -p deferral-core --example decide_latency -- VECTOR.json...

use std::time::{Duration, Instant};

fn main() {
    let inputs: Vec<String> = std::env::args()
        .skip(1)
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable vector");
            let v: serde_json::Value = serde_json::from_str(&text).expect("vector is JSON");
            v["input"].to_string()
        })
        .collect();
    assert!(!inputs.is_empty(), "give decision vector files");
    let mut done = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        for input in &inputs {
            std::hint::black_box(deferral_core::decision::decide_json(std::hint::black_box(
                input,
            )));
        }
        done += inputs.len() as u64;
    }
    let micros = start.elapsed().as_secs_f64() * 1e6 / done as f64;
    println!("{{\"decisions\":{done},\"micros_per_decision\":{micros:.2}}}");
}
