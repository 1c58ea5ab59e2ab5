//! Native validation throughput, for bench/receipts.mjs: validates every file named on the
//! command line in a loop for about a second and prints `{"per_second":...}` as one JSON line.
//! Usage: cargo run --release -p deferral-core --example validate_throughput -- FILE...

use std::time::{Duration, Instant};

fn main() {
    let inputs: Vec<Vec<u8>> = std::env::args()
        .skip(1)
        .map(|p| std::fs::read(p).expect("readable file"))
        .collect();
    assert!(!inputs.is_empty(), "give receipt files to validate");
    let mut done = 0u64;
    let mut valid = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        for input in &inputs {
            valid +=
                u64::from(deferral_core::receipt::validate(std::hint::black_box(input)).is_ok());
        }
        done += inputs.len() as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"validations\":{done},\"valid\":{valid},\"seconds\":{secs:.3},\"per_second\":{:.0}}}",
        done as f64 / secs
    );
}
