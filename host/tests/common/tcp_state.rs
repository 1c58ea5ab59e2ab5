//! What the kernel says of the server's side of loopback connections (Linux `/proc/net/tcp`),
//! so a test waits for a condition instead of sleeping: "the server has read every byte these
//! clients sent" (it accepted them and its parser has seen their heads), or "the server has
//! closed its side of these".

use std::collections::HashMap;
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// `ESTABLISHED` and `CLOSE_WAIT` (the client closed, the server has not yet) in `/proc/net/tcp`.
const ESTABLISHED: u8 = 0x01;
const CLOSE_WAIT: u8 = 0x08;

/// The server's side of one connection: its TCP state and the bytes it has not read yet.
#[derive(Debug, Clone, Copy)]
pub struct ServerSide {
    pub state: u8,
    pub unread: u64,
}

fn port_of(hex_addr: &str) -> Option<u16> {
    u16::from_str_radix(hex_addr.rsplit_once(':')?.1, 16).ok()
}

/// Each connection to `server_port` by the client's port, as the kernel lists the server's side.
pub fn server_sides(server_port: u16) -> HashMap<u16, ServerSide> {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("Linux /proc/net/tcp");
    let mut sides = HashMap::new();
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, local, remote, state, queues, ..] = fields[..] else {
            continue;
        };
        let (Some(local), Some(remote)) = (port_of(local), port_of(remote)) else {
            continue;
        };
        if local != server_port || remote == 0 {
            continue;
        }
        let unread = queues
            .split_once(':')
            .and_then(|(_, rx)| u64::from_str_radix(rx, 16).ok())
            .unwrap_or(u64::MAX);
        let state = u8::from_str_radix(state, 16).unwrap_or(0);
        sides.insert(remote, ServerSide { state, unread });
    }
    sides
}

fn server_port(addr: &str) -> u16 {
    addr.rsplit_once(':').unwrap().1.parse().unwrap()
}

/// The clients' own ports.
pub fn ports(clients: &[&TcpStream]) -> Vec<u16> {
    clients
        .iter()
        .map(|c| c.local_addr().unwrap().port())
        .collect()
}

/// Polls every 10 ms for at most `bound` until `done` holds of the server's sides; panics
/// naming `what` if it never does.
fn wait(
    addr: &str,
    bound: Duration,
    what: &str,
    mut done: impl FnMut(&HashMap<u16, ServerSide>) -> bool,
) {
    let port = server_port(addr);
    let started = Instant::now();
    loop {
        let sides = server_sides(port);
        if done(&sides) {
            return;
        }
        assert!(
            started.elapsed() < bound,
            "{what} not within {bound:?}: {sides:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the server at `addr` has read every byte each client sent, or has closed its
/// side (a connection shed at the cap): it accepted them and its parser has seen what they sent.
pub fn wait_all_read(addr: &str, clients: &[u16]) {
    wait(
        addr,
        Duration::from_secs(10),
        "the server read what its clients sent",
        |sides| {
            clients.iter().all(|port| {
                sides
                    .get(port)
                    .is_none_or(|side| side.state != ESTABLISHED || side.unread == 0)
            })
        },
    );
}

/// Waits until the server at `addr` has closed its side of each of these connections (the
/// clients closed theirs first).
pub fn wait_all_closed(addr: &str, clients: &[u16]) {
    wait(
        addr,
        Duration::from_secs(10),
        "the server closed its side",
        |sides| {
            clients.iter().all(|port| {
                sides
                    .get(port)
                    .is_none_or(|side| side.state != ESTABLISHED && side.state != CLOSE_WAIT)
            })
        },
    );
}
