//! `serve` under hostile or careless clients: idle and trickling sockets, shutdown with sockets
//! held, keep-alive, the connection cap, framing that must be refused, and what reaches the log.

mod common;

use common::server::{error_code, read_answer, request, Server, TOKEN};
use common::tcp_state::{ports, wait_all_closed, wait_all_read};
use common::{now, HOUR};
use deferral_host::store::Store;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Connections that send the start of a request head and then nothing; returned once the
/// server has read what they sent (or shed them at its cap).
fn idle_sockets(server: &Server, count: usize) -> Vec<TcpStream> {
    let sockets: Vec<TcpStream> = (0..count)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(b"GET /v1/deferrals/x HTTP/1.1\r\nHo").unwrap();
            s
        })
        .collect();
    wait_all_read(&server.addr, &ports(&sockets.iter().collect::<Vec<_>>()));
    sockets
}

/// Waits until the server has read everything `sockets` sent (or shed them).
fn read_by_server(server: &Server, sockets: &[&TcpStream]) {
    wait_all_read(&server.addr, &ports(sockets));
}

/// `count` connections that each send one header byte every 100 ms until the guard drops;
/// the trickle starts once the server has read their first bytes (or shed them at its cap).
struct Trickle {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Trickle {
    fn start(server: &Server, count: usize) -> Trickle {
        let addr = server.addr.parse().unwrap();
        // A server that stops accepting makes connect wait; a bounded wait keeps the test finite.
        let mut sockets: Vec<TcpStream> = (0..count)
            .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok())
            .collect();
        for s in &mut sockets {
            let _ = s.write_all(b"POST /v1/deferrals HTTP/1.1\r\nX-Slow: ");
        }
        wait_all_read(&server.addr, &ports(&sockets.iter().collect::<Vec<_>>()));
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            // Bounded: at most 60 s of trickling whatever happens to the test.
            for _ in 0..600 {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                for s in &mut sockets {
                    let _ = s.write(b"a");
                }
                // The pace of a slow client: this sleep is the behaviour under test.
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Trickle {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Trickle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn assert_fast(server: &Server, what: &str) {
    let (status, took) = server
        .timed_get()
        .unwrap_or_else(|e| panic!("{what}: the request got no answer: {e}"));
    assert_eq!(status, 404, "{what}");
    assert!(
        took < Duration::from_secs(1),
        "{what}: a legitimate request took {took:?}"
    );
}

#[test]
fn idle_sockets_do_not_stall_a_request() {
    let server = Server::start(&[]);
    let _idle = idle_sockets(&server, 4);
    assert_fast(&server, "4 idle sockets");
    let _more = idle_sockets(&server, 60);
    assert_fast(&server, "64 idle sockets");
}

#[test]
fn five_hundred_trickling_sockets_do_not_stall_a_request() {
    let server = Server::start(&[]);
    let _trickle = Trickle::start(&server, 500);
    for round in 0..3 {
        assert_fast(&server, &format!("500 trickling sockets, round {round}"));
    }
}

#[test]
fn idle_connections_are_shed_at_the_cap() {
    let server = Server::start(&["--max-connections", "8"]);
    let _idle = idle_sockets(&server, 8);
    assert_fast(&server, "8 idle sockets at a cap of 8");
    // An idle keep-alive connection is shed too: a new client is still served.
    let mut kept = server.connect();
    kept.write_all(request("GET", "/v1/deferrals/dx", "", true).as_bytes())
        .unwrap();
    assert_eq!(read_answer(&mut kept).unwrap().status, 404);
    let _again = idle_sockets(&server, 8);
    assert_fast(&server, "a kept-alive connection and 8 idle sockets");
}

#[test]
fn a_head_sent_too_slowly_is_cut_off() {
    let server = Server::start(&["--request-timeout-ms", "500"]);
    let trickle = Trickle::start(&server, 1);
    server.log_containing("timed out", Duration::from_secs(10));
    drop(trickle);
}

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let server = Server::start(&[]);
    let mut stream = server.connect();
    for _ in 0..3 {
        stream
            .write_all(request("GET", "/v1/deferrals/dx", "", true).as_bytes())
            .unwrap();
        let answer = read_answer(&mut stream).unwrap();
        assert_eq!(
            (answer.status, error_code(&answer.body)),
            (404, "not-found")
        );
    }
}

#[test]
fn sigterm_stops_the_server_while_sockets_are_held() {
    let mut server = Server::start(&[]);
    let _idle = idle_sockets(&server, 20);
    let _trickle = Trickle::start(&server, 20);
    let mut open_body = server.connect();
    let head = format!(
        "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 100\r\n\r\n{{\"rec"
    );
    open_body.write_all(head.as_bytes()).unwrap();
    let mut kept = server.connect();
    kept.write_all(request("GET", "/v1/deferrals/dx", "", true).as_bytes())
        .unwrap();
    assert_eq!(read_answer(&mut kept).unwrap().status, 404);
    // Every socket is held by the server when the signal comes.
    read_by_server(&server, &[&open_body, &kept]);
    assert_eq!(
        server.terminate_within(Duration::from_secs(6)),
        Some(0),
        "serve did not stop within 6 s of SIGTERM"
    );
}

#[test]
fn two_content_lengths_are_refused() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let body = format!("{{\"receipt\":{receipt},\"launch\":\"exec:/bin/true\"}}");
    let head = format!(
        "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: {}\r\nContent-Length: 2\r\n\r\n{body}",
        body.len()
    );
    let (status, _, _) = server.raw(head.as_bytes());
    assert_eq!(status, 400);
    let head = format!(
        "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 2\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(server.raw(head.as_bytes()).0, 400);
    assert_eq!(server.count(), 0, "nothing was recorded");
    // The same value twice is one length (RFC 9110 allows either answer; hyper merges them).
    let head = format!(
        "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: {0}\r\nContent-Length: {0}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(server.raw(head.as_bytes()).0, 201);
    assert_eq!(server.count(), 1);
}

#[test]
fn malformed_requests_get_400() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let auth = format!("Authorization: Bearer {TOKEN}\r\n");
    for bad in [
        "GET /v1/deferrals/dx\r\n\r\n".to_string(),
        format!("GET /v1/deferrals/dx HTTP/1.1\r\n{auth}no colon here\r\n\r\n"),
        format!("POST /v1/deferrals HTTP/1.1\r\n{auth}Content-Length: ten\r\n\r\n"),
        format!("POST /v1/deferrals HTTP/1.1\r\n{auth}Content-Length: -1\r\n\r\n"),
    ] {
        assert_eq!(server.raw(bad.as_bytes()).0, 400, "{bad:?}");
    }
    // A body that ends before its Content-Length: `bad-request`, nothing recorded.
    let mut stream = server.connect();
    let head =
        format!("POST /v1/deferrals HTTP/1.1\r\n{auth}Content-Length: 100\r\n\r\n{{\"receipt\":");
    stream.write_all(head.as_bytes()).unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let answer = read_answer(&mut stream).unwrap();
    assert_eq!(
        (answer.status, error_code(&answer.body)),
        (400, "bad-request")
    );
    assert_eq!(server.count(), 0);
}

#[test]
fn control_characters_never_reach_the_log() {
    let server = Server::start(&[]);
    let evil: &[u8] = b"GET /v1/deferrals/\x1b[2J\rforged-line\x07\x7f HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    let mut stream = server.connect();
    stream.write_all(evil).unwrap();
    let _ = read_answer(&mut stream);
    let mut stream = server.connect();
    stream
        .write_all(b"GET /v1/deferrals/\xc3\xa9\xe2\x80\xae HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let _ = read_answer(&mut stream);
    // A request after them is logged, so the log has been written up to here.
    server.timed_get().unwrap();
    server.log_containing("GET /v1/deferrals/dx", Duration::from_secs(10));
    let log = server.log();
    let text = String::from_utf8_lossy(&log);
    for (i, &b) in log.iter().enumerate() {
        assert!(
            b == b'\n' || (b >= 0x20 && b != 0x7f),
            "raw control byte {b:#04x} at {i} in the log: {text:?}"
        );
    }
    assert!(
        !text.contains('\u{202e}'),
        "bidi override in the log: {text:?}"
    );
}

#[test]
fn a_head_over_8_kib_gets_431() {
    let server = Server::start(&[]);
    let big = format!(
        "GET /v1/deferrals/dx HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(9 * 1024)
    );
    assert_eq!(server.raw(big.as_bytes()).0, 431);
    assert_fast(&server, "after a refused head");
}

#[test]
fn at_the_cap_with_every_connection_busy_a_new_one_gets_503() {
    let mut server = Server::start(&["--max-connections", "2"]);
    // Two requests whose bodies have not all arrived: both connections are busy.
    let busy: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = server.connect();
            let head = format!(
                "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 100\r\n\r\n{{"
            );
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    // The server has read both heads: both requests are being handled, waiting for bodies.
    read_by_server(&server, &busy.iter().collect::<Vec<_>>());
    let (status, head, body) =
        server.raw(&request("GET", "/v1/deferrals/dx", "", false).into_bytes());
    assert_eq!((status, error_code(&body)), (503, "busy"), "{head}");
    let left = ports(&busy.iter().collect::<Vec<_>>());
    drop(busy);
    wait_all_closed(&server.addr, &left);
    assert_fast(&server, "after the busy connections left");
    // SIGINT stops it like SIGTERM.
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGINT) };
    let started = std::time::Instant::now();
    while server.child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "SIGINT did not stop serve"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(server.child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_body_sent_too_slowly_gets_408_at_the_deadline() {
    let server = Server::start(&["--request-timeout-ms", "1000"]);
    let mut stream = server.connect();
    let head = format!(
        "POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 100\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let started = std::time::Instant::now();
    // One byte every 100 ms: each read is quick, the whole body would take 10 s.
    let mut writer = stream.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        for _ in 0..30 {
            if writer.write_all(b" ").is_err() {
                break;
            }
            // The pace of a slow client: this sleep is the behaviour under test.
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let answer = read_answer(&mut stream).unwrap();
    let took = started.elapsed();
    assert_eq!((answer.status, error_code(&answer.body)), (408, "timeout"));
    assert!(
        took < Duration::from_millis(2500),
        "answered after {took:?}, not at the 1 s deadline"
    );
    trickle.join().unwrap();
}

#[test]
fn sigterm_during_records_loses_no_answered_record() {
    let server = Arc::new(std::sync::Mutex::new(Server::start(&[
        "--allow-launch",
        "exec:",
    ])));
    let addr = server.lock().unwrap().addr.clone();
    let start = now();
    let recorded = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..8)
        .map(|c| {
            let addr = addr.clone();
            let recorded = recorded.clone();
            std::thread::spawn(move || {
                let mut answered = Vec::new();
                for i in 0..10_000 {
                    // A distinct receipt per request: recording is idempotent by receipt digest.
                    let receipt =
                        deferral_host_conformance::distinct_handoff(start, 0, HOUR).to_json();
                    let body =
                        format!("{{\"receipt\":{receipt},\"launch\":\"exec:/bin/echo {c} {i}\"}}");
                    let Ok(mut stream) = TcpStream::connect(&addr) else {
                        break;
                    };
                    let sent =
                        stream.write_all(request("POST", "/v1/deferrals", &body, false).as_bytes());
                    let Ok(answer) = sent.and_then(|()| read_answer(&mut stream)) else {
                        break;
                    };
                    match answer.status {
                        201 => {
                            answered.push(answer.body["id"].as_str().unwrap().to_string());
                            recorded.fetch_add(1, Ordering::SeqCst);
                        }
                        503 => break,
                        other => panic!("unexpected {other}: {}", answer.body),
                    }
                }
                answered
            })
        })
        .collect();
    // The signal comes while records are being answered.
    let answering = common::webhook::within(Duration::from_secs(20), || {
        (recorded.load(Ordering::SeqCst) >= 40).then_some(())
    });
    assert!(answering.is_some(), "no records answered");
    let code = server
        .lock()
        .unwrap()
        .terminate_within(Duration::from_secs(6));
    assert_eq!(code, Some(0), "serve stops within 6 s while records arrive");
    let answered: Vec<String> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    assert!(
        !answered.is_empty(),
        "some records were answered before the signal"
    );
    let store = server.lock().unwrap().host.open();
    for id in &answered {
        assert!(
            store.get(id).unwrap().is_some(),
            "{id} was answered 201 but is not stored"
        );
    }
}

#[test]
fn clients_without_the_token_cannot_fill_the_cap() {
    let server = Server::start(&["--max-connections", "4"]);
    // Refused (no token) requests whose bodies keep arriving: each is read and dropped.
    let refused: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = server.connect();
            s.write_all(b"POST /v1/deferrals HTTP/1.1\r\nContent-Length: 16000\r\n\r\n{")
                .unwrap();
            s
        })
        .collect();
    // The server has read their heads and refused them: they are reading and dropping bodies.
    read_by_server(&server, &refused.iter().collect::<Vec<_>>());
    assert_fast(&server, "4 refused uploads at a cap of 4");
}

#[test]
fn a_token_less_flood_never_sheds_a_connection_that_proved_the_token() {
    let server = Server::start(&["--max-connections", "4"]);
    // A client that proved the token, then stays connected between its requests.
    let mut proved = server.connect();
    proved
        .write_all(request("GET", "/v1/deferrals/dx", "", true).as_bytes())
        .unwrap();
    assert_eq!(read_answer(&mut proved).unwrap().status, 404);
    // Far more connections than the cap without the token: silent ones, and ones whose
    // requests are refused (no token, a wrong token) and that stay open for more.
    let _silent = idle_sockets(&server, 6);
    let refused: Vec<TcpStream> = (0..6)
        .map(|i| {
            let mut s = server.connect();
            let auth = if i % 2 == 0 {
                ""
            } else {
                "Authorization: Bearer not-the-serve-token-0123456789\r\n"
            };
            write!(
                s,
                "GET /v1/deferrals/dx HTTP/1.1\r\nHost: test\r\n{auth}\r\n"
            )
            .unwrap();
            s
        })
        .collect();
    read_by_server(&server, &refused.iter().collect::<Vec<_>>());
    for _ in 0..2 {
        proved
            .write_all(request("GET", "/v1/deferrals/dx", "", true).as_bytes())
            .unwrap();
        let answer = read_answer(&mut proved).expect("the proved connection is still open");
        assert_eq!(answer.status, 404);
    }
    drop(refused);
    // Newcomers are still served: they shed token-less connections.
    assert_fast(
        &server,
        "a proved connection and a token-less flood at a cap of 4",
    );
}

#[test]
fn the_kernels_view_of_unread_bytes_is_what_the_waits_above_read() {
    // A listener this test holds (never released) that accepts only when told.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.write_all(b"GET / HTTP/1.1\r\n").unwrap();
    let me = client.local_addr().unwrap().port();
    let unread = common::webhook::within(Duration::from_secs(5), || {
        let side = *common::tcp_state::server_sides(port).get(&me)?;
        (side.unread == 16).then_some(side)
    });
    assert!(
        unread.is_some(),
        "{:?}",
        common::tcp_state::server_sides(port)
    );
    let (mut accepted, _) = listener.accept().unwrap();
    let mut head = [0u8; 16];
    std::io::Read::read_exact(&mut accepted, &mut head).unwrap();
    wait_all_read(&listener.local_addr().unwrap().to_string(), &[me]);
    drop(client);
    drop(accepted);
    wait_all_closed(&listener.local_addr().unwrap().to_string(), &[me]);
}
