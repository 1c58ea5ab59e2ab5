//! exploratory
mod common;

use common::{now, Host, HOUR};

fn gate_line(remaining: u64, reset_s: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

#[test]
fn explore() {
    let host = Host::new();
    let reset_s = now() / 1000 + 600;
    for _ in 0..4 {
        host.expect(0, &["record", "--launch", "exec:/bin/true", "--pool", "app-42", "-"], &gate_line(25, reset_s));
    }
    let out = host.run(&["tick"], "");
    println!("TICK {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let out = host.run(&["tick", "--dry-run"], "");
    println!("DRY {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let out = host.run(&["status", "--json"], "");
    println!("STATUS {}", String::from_utf8_lossy(&out.stdout));
    let out = host.run(&["status"], "");
    println!("STATUS {}", String::from_utf8_lossy(&out.stdout));
    let out = host.run(&["status", "--pools", "--json"], "");
    println!("POOLS {}", String::from_utf8_lossy(&out.stdout));
    let out = host.run(&["status", "--pools"], "");
    println!("POOLS {}", String::from_utf8_lossy(&out.stdout));
    println!("now {} reset {}", now(), reset_s*1000);
    panic!();
}
