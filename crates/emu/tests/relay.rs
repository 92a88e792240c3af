//! The relay on loopback: its delivered rate is the configured one, its
//! delay the configured RTT, its loss the configured ratio; several
//! clients and routes share its link, each client behind its own
//! server-facing socket. Real sockets, real time: each test runs a few
//! seconds, the two rate tests ten, one test at a time
//! ([`one_at_a_time`]).

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

use emu::{EmuConfig, Relay, Route, MAX_CLIENTS};

/// Held by every test while it runs: these tests measure rates and delays
/// on the wall clock, and two of them blasting at once on a 2-core machine
/// starve each other's relay and sender threads, which measures the
/// machine rather than the relay.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static REAL_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A failed test poisons the lock; the next one may still run alone.
    REAL_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn config(link: &str) -> EmuConfig {
    let text = format!("name = \"emu-test\"\nseed = 7\nduration = \"60s\"\n[link]\n{link}\n[[flow]]\ncc = \"bbr\"\n");
    let scenario = scenario::from_str(&text, Path::new("test.toml"), &[]).expect("scenario");
    let flow = scenario.config.flows.first().expect("a flow");
    EmuConfig {
        link: scenario.config.link.clone(),
        uplink: scenario.config.uplink.clone(),
        rtt: flow.rtt,
        seed: scenario.config.seed,
    }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A relay in front of a server socket, and a client socket that has
/// announced itself (the relay learns the client from its first datagram).
fn setup(link: &str) -> (Relay, UdpSocket, UdpSocket, SocketAddr) {
    let server = UdpSocket::bind(loopback()).unwrap();
    let relay = Relay::start(loopback(), server.local_addr().unwrap(), &config(link)).unwrap();
    let client = UdpSocket::bind(loopback()).unwrap();
    client.send_to(b"hello", relay.listen_addr()).unwrap();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 64];
    let (n, relay_side) = server.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"hello");
    (relay, server, client, relay_side)
}

/// Sends `count` datagrams of `size` bytes from `server` to `to` at
/// `mbps` (of wire bytes), in bursts of ten.
fn blast(server: &UdpSocket, to: SocketAddr, count: usize, size: usize, mbps: f64) {
    blast_in_bursts(server, to, count, size, mbps, 10);
}

/// [`blast`] in bursts of `burst` datagrams.
fn blast_in_bursts(
    server: &UdpSocket,
    to: SocketAddr,
    count: usize,
    size: usize,
    mbps: f64,
    burst: usize,
) {
    let payload = vec![0x5a; size];
    let gap = Duration::from_secs_f64((size + 28) as f64 * 8.0 / (mbps * 1e6));
    let start = Instant::now();
    for i in 0..count {
        server.send_to(&payload, to).unwrap();
        if i % burst == burst - 1 {
            let due = start + gap * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
}

/// Receives until `quiet` passes without a datagram: (arrival, wire bytes).
fn drain(client: &UdpSocket, quiet: Duration) -> Vec<(Instant, usize)> {
    client.set_read_timeout(Some(quiet)).unwrap();
    let mut buf = vec![0u8; 65_536];
    let mut got = Vec::new();
    while let Ok(n) = client.recv(&mut buf) {
        got.push((Instant::now(), n + 28));
    }
    got
}

/// Wire bytes delivered after the first arrival, over the time from the
/// first arrival to the last, in Mbit/s, and that time.
fn delivered_rate(got: &[(Instant, usize)]) -> (f64, Duration) {
    let span = got.last().unwrap().0 - got[0].0;
    let bytes: usize = got[1..].iter().map(|(_, b)| b).sum();
    (bytes as f64 * 8.0 / span.as_secs_f64() / 1e6, span)
}

#[test]
fn over_ten_seconds_the_delivered_rate_is_the_configured_rate() {
    let _alone = one_at_a_time();
    // 40 Mbit/s, offered 80 for 10 s: the buffer stays full and the link busy.
    let (relay, server, client, to) =
        setup("rate = \"40Mbit\"\nrtt = \"20ms\"\nbuffer = \"200pkt\"");
    let receiver = std::thread::spawn(move || drain(&client, Duration::from_millis(500)));
    blast(&server, to, 88_000, 1172, 80.0);
    let got = receiver.join().unwrap();
    let (rate, span) = delivered_rate(&got);
    eprintln!("constant: delivered {rate:.3} Mbit/s of 40 over {span:?}");
    assert!(span >= Duration::from_secs(10), "measured over {span:?}");
    assert!(
        (rate - 40.0).abs() / 40.0 <= 0.01,
        "delivered {rate:.3} Mbit/s through a 40 Mbit/s link over {span:?}"
    );
    let down = &relay.down;
    let overflowed = down.overflowed.load(std::sync::atomic::Ordering::Relaxed);
    assert!(overflowed > 1_000, "the full buffer dropped: {overflowed}");
    assert_eq!(
        down.dropped_bytes
            .load(std::sync::atomic::Ordering::Relaxed),
        overflowed * 1200,
        "drops are counted in wire bytes"
    );
    // A full 200-packet buffer of 1200-byte datagrams at 40 Mbit/s holds
    // 48 ms (0.24 ms a datagram). The blast comes in bursts of ten every
    // 1.2 ms, in which the link frees five places, so an accepted datagram
    // finds 195 to 199 ahead of it: it waits 46.8 to 48 ms.
    let delay = down.queue_delay();
    eprintln!("constant: queueing delay {delay:?}");
    assert!(
        delay.p50 >= 46.8 && delay.p99 <= 48.05,
        "queueing delay p50 {:.3} / p99 {:.3} ms in a full 48 ms buffer",
        delay.p50,
        delay.p99
    );
    relay.stop().unwrap();
}

#[test]
fn over_ten_seconds_a_mahimahi_trace_delivers_what_it_offers() {
    let _alone = one_at_a_time();
    // The T-Mobile LTE trace (26 Mbit/s on average, 40 at most over any
    // 400 ms), offered 80 Mbit/s of 1500-byte packets, one per delivery
    // opportunity, for 10 s. The 1000-packet buffer holds about half a
    // second, so the link never idles and every opportunity carries a
    // packet: what arrives must be what the trace offers between the first
    // and the last departure.
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/traces/mahimahi/TMobile-LTE-short.down");
    let link = format!(
        "trace = {:?}\ntrace_format = \"mahimahi\"\nrtt = \"20ms\"\nbuffer = \"1000pkt\"",
        trace.display().to_string()
    );
    let (relay, server, client, to) = setup(&link);
    let receiver = std::thread::spawn(move || drain(&client, Duration::from_millis(500)));
    blast(&server, to, 69_000, 1472, 80.0);
    let got = receiver.join().unwrap();
    let (rate, span) = delivered_rate(&got);
    assert!(span >= Duration::from_secs(10), "measured over {span:?}");
    // Departures in model time: arrival, less the epoch and the 10 ms
    // of propagation after the link.
    let one_way = Duration::from_millis(10);
    let departed =
        |at: Instant| cc::Instant::from_nanos((at - relay.epoch() - one_way).as_nanos() as u64);
    let capacity = link::Capacity::new(&config(&link).link.rate);
    let offered = capacity.bytes_between(departed(got[0].0), departed(got.last().unwrap().0));
    let offered_rate = offered.get() as f64 * 8.0 / span.as_secs_f64() / 1e6;
    eprintln!("trace: delivered {rate:.3} Mbit/s, offered {offered_rate:.3}, over {span:?}");
    assert!(
        (rate - offered_rate).abs() / offered_rate <= 0.01,
        "delivered {rate:.3} Mbit/s where the trace offered {offered_rate:.3} over {span:?}"
    );
    let overflowed = relay
        .down
        .overflowed
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(overflowed > 1_000, "the full buffer dropped: {overflowed}");
    relay.stop().unwrap();
}

#[test]
fn the_round_trip_time_is_the_configured_one() {
    let _alone = one_at_a_time();
    let (relay, server, client, to) =
        setup("rate = \"100Mbit\"\nrtt = \"30ms\"\nbuffer = \"1bdp\"");
    client
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut samples = Vec::new();
    let mut buf = [0u8; 64];
    for _ in 0..10 {
        let sent = Instant::now();
        client.send_to(b"ping", relay.listen_addr()).unwrap();
        let (n, from) = server.recv_from(&mut buf).unwrap();
        assert_eq!((&buf[..n], from), (&b"ping"[..], to));
        server.send_to(b"pong", to).unwrap();
        let n = client.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"pong");
        samples.push(sent.elapsed());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    assert!(
        median >= Duration::from_millis(30) && median < Duration::from_millis(33),
        "median RTT {median:?} for a 30 ms path"
    );
    relay.stop().unwrap();
}

#[test]
fn random_loss_takes_its_share() {
    let _alone = one_at_a_time();
    let (relay, server, client, to) =
        setup("rate = \"100Mbit\"\nrtt = \"10ms\"\nbuffer = \"1000pkt\"\nloss = \"10%\"");
    let receiver = std::thread::spawn(move || drain(&client, Duration::from_millis(300)));
    blast(&server, to, 5_000, 500, 20.0);
    let got = receiver.join().unwrap();
    let lost = relay.down.lost.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        got.len() as u64 + lost,
        5_000,
        "every datagram delivered or lost"
    );
    let share = lost as f64 / 5_000.0;
    assert!(
        (0.08..=0.12).contains(&share),
        "lost {share:.3} at 10% loss"
    );
    relay.stop().unwrap();
}

#[test]
fn datagrams_from_strangers_do_not_reach_the_client() {
    let _alone = one_at_a_time();
    let (relay, _server, client, relay_server_side) =
        setup("rate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"");
    // Someone other than the server writes to the relay's server-facing
    // socket (its port is not secret): it must not reach the client.
    let stranger = UdpSocket::bind(loopback()).unwrap();
    stranger.send_to(b"spoof", relay_server_side).unwrap();
    client
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 64];
    assert!(
        client.recv(&mut buf).is_err(),
        "nothing but the server's datagrams is relayed"
    );
    let undeliverable = relay
        .down
        .undeliverable
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(undeliverable, 1);
    relay.stop().unwrap();
}

/// A server that echoes every datagram to its sender until it has been
/// quiet for a second; returns the distinct addresses it heard from.
fn echo_server() -> (SocketAddr, std::thread::JoinHandle<Vec<SocketAddr>>) {
    let server = UdpSocket::bind(loopback()).unwrap();
    let addr = server.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        server
            .set_read_timeout(Some(Duration::from_secs(1)))
            .unwrap();
        let mut peers = Vec::new();
        let mut buf = [0u8; 2048];
        while let Ok((n, from)) = server.recv_from(&mut buf) {
            if !peers.contains(&from) {
                peers.push(from);
            }
            server.send_to(&buf[..n], from).unwrap();
        }
        peers
    });
    (addr, handle)
}

#[test]
fn each_client_of_a_route_gets_its_own_replies() {
    let _alone = one_at_a_time();
    let (server, echo) = echo_server();
    let link = config("rate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"");
    let relay = Relay::start(loopback(), server, &link).unwrap();
    let clients: Vec<UdpSocket> = (0..2)
        .map(|_| UdpSocket::bind(loopback()).unwrap())
        .collect();
    for round in 0..5 {
        for (i, client) in clients.iter().enumerate() {
            client
                .send_to(
                    format!("client {i} round {round}").as_bytes(),
                    relay.listen_addr(),
                )
                .unwrap();
        }
    }
    for (i, client) in clients.iter().enumerate() {
        client
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut buf = [0u8; 64];
        let mut got = Vec::new();
        while let Ok(n) = client.recv(&mut buf) {
            got.push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        let expected: Vec<String> = (0..5).map(|r| format!("client {i} round {r}")).collect();
        assert_eq!(
            got, expected,
            "client {i} receives its own echoes, in order"
        );
    }
    assert_eq!(relay.clients(), 2);
    let peers = echo.join().unwrap();
    assert_eq!(peers.len(), 2, "the server sees two peers: {peers:?}");
    assert_eq!(
        relay
            .down
            .undeliverable
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    relay.stop().unwrap();
}

#[test]
fn each_route_has_its_own_round_trip_time() {
    let _alone = one_at_a_time();
    let (first, first_echo) = echo_server();
    let (second, second_echo) = echo_server();
    let rtts = [Duration::from_millis(20), Duration::from_millis(60)];
    let routes = [
        Route {
            listen: loopback(),
            forward: first,
            rtt: rtts[0],
        },
        Route {
            listen: loopback(),
            forward: second,
            rtt: rtts[1],
        },
    ];
    let link = config("rate = \"100Mbit\"\nrtt = \"30ms\"\nbuffer = \"1bdp\"");
    let relay = Relay::start_routes(&routes, &link).unwrap();
    let listen = relay.listen_addrs();
    assert_eq!(listen.len(), 2);
    assert_eq!(listen[0], relay.listen_addr());
    assert!(listen.iter().all(|a| a.port() != 0), "{listen:?}");
    // Both routes pinged at once, so their datagrams share the link.
    let pingers: Vec<_> = listen
        .into_iter()
        .map(|to| {
            std::thread::spawn(move || {
                let client = UdpSocket::bind(loopback()).unwrap();
                client
                    .set_read_timeout(Some(Duration::from_secs(2)))
                    .unwrap();
                let mut samples = Vec::new();
                let mut buf = [0u8; 64];
                for _ in 0..9 {
                    let sent = Instant::now();
                    client.send_to(b"ping", to).unwrap();
                    let n = client.recv(&mut buf).unwrap();
                    assert_eq!(&buf[..n], b"ping");
                    samples.push(sent.elapsed());
                }
                samples.sort();
                samples[samples.len() / 2]
            })
        })
        .collect();
    for (pinger, rtt) in pingers.into_iter().zip(rtts) {
        let median = pinger.join().unwrap();
        assert!(
            median >= rtt && median <= rtt + Duration::from_millis(4),
            "median RTT {median:?} for a {rtt:?} route"
        );
    }
    relay.stop().unwrap();
    for echo in [first_echo, second_echo] {
        assert_eq!(echo.join().unwrap().len(), 1);
    }
}

#[test]
fn routes_share_one_bottleneck() {
    let _alone = one_at_a_time();
    // Two routes, each offered the whole 20 Mbit/s: together they get 20,
    // not 40 (one link, not two).
    let servers: Vec<UdpSocket> = (0..2)
        .map(|_| UdpSocket::bind(loopback()).unwrap())
        .collect();
    let routes: Vec<Route> = servers
        .iter()
        .map(|s| Route {
            listen: loopback(),
            forward: s.local_addr().unwrap(),
            rtt: Duration::from_millis(20),
        })
        .collect();
    let link = config("rate = \"20Mbit\"\nrtt = \"20ms\"\nbuffer = \"200pkt\"");
    let relay = Relay::start_routes(&routes, &link).unwrap();
    let mut receivers = Vec::new();
    let mut senders = Vec::new();
    // Bursts of ten and of seven. Two senders bursting with one period
    // lock their phases against the drop-tail buffer: whichever burst comes
    // first after the link frees its places takes them every time, and the
    // other route is starved (Floyd and Jacobson's phase effects; one run
    // in six got 800 of 6,250). Different periods let the phases drift, so
    // each route gets its share over the run, as unsynchronised flows do.
    for ((server, listen), burst) in servers.into_iter().zip(relay.listen_addrs()).zip([10, 7]) {
        let client = UdpSocket::bind(loopback()).unwrap();
        client.send_to(b"hello", listen).unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut buf = [0u8; 64];
        let (_, to) = server.recv_from(&mut buf).unwrap();
        receivers.push(std::thread::spawn(move || {
            drain(&client, Duration::from_millis(500))
        }));
        // 3 s at 20 Mbit/s of 1200-byte datagrams.
        senders.push(std::thread::spawn(move || {
            blast_in_bursts(&server, to, 6_250, 1172, 20.0, burst)
        }));
    }
    for sender in senders {
        sender.join().unwrap();
    }
    let mut got: Vec<(Instant, usize)> = Vec::new();
    for receiver in receivers {
        let each = receiver.join().unwrap();
        eprintln!("a route got {} of 6,250 datagrams", each.len());
        assert!(
            each.len() > 1_000,
            "each route got its share: {}",
            each.len()
        );
        got.extend(each);
    }
    got.sort_by_key(|(at, _)| *at);
    let (rate, _) = delivered_rate(&got);
    assert!(
        (rate - 20.0).abs() / 20.0 <= 0.01,
        "delivered {rate:.3} Mbit/s in all through a shared 20 Mbit/s link"
    );
    relay.stop().unwrap();
}

#[test]
fn clients_beyond_the_limit_are_dropped() {
    let _alone = one_at_a_time();
    let server = UdpSocket::bind(loopback()).unwrap();
    let link = config("rate = \"100Mbit\"\nrtt = \"2ms\"\nbuffer = \"1000pkt\"");
    let relay = Relay::start(loopback(), server.local_addr().unwrap(), &link).unwrap();
    let clients: Vec<UdpSocket> = (0..=MAX_CLIENTS)
        .map(|_| UdpSocket::bind(loopback()).unwrap())
        .collect();
    for client in &clients {
        client.send_to(b"hi", relay.listen_addr()).unwrap();
        // One at a time, so the first 64 are the ones admitted.
        std::thread::sleep(Duration::from_millis(1));
    }
    server
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut peers = Vec::new();
    let mut buf = [0u8; 16];
    while let Ok((_, from)) = server.recv_from(&mut buf) {
        peers.push(from);
    }
    peers.sort();
    peers.dedup();
    assert_eq!(
        peers.len(),
        MAX_CLIENTS,
        "one server-facing socket per admitted client"
    );
    assert_eq!(relay.clients(), MAX_CLIENTS);
    let undeliverable = relay
        .up
        .undeliverable
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(undeliverable, 1, "the 65th client's datagram");
    // The last client is still refused; the first is still served.
    clients[MAX_CLIENTS]
        .send_to(b"again", relay.listen_addr())
        .unwrap();
    clients[0].send_to(b"first", relay.listen_addr()).unwrap();
    let (n, _) = server.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"first");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        relay
            .up
            .undeliverable
            .load(std::sync::atomic::Ordering::Relaxed),
        2
    );
    relay.stop().unwrap();
}

#[test]
fn a_relay_needs_a_route() {
    let link = config("rate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"");
    let error = Relay::start_routes(&[], &link).err().expect("no routes");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn a_new_clients_first_reply_arrives_without_delay() {
    let _alone = one_at_a_time();
    // With no propagation delay the server answers a new client before
    // the downlink may have polled the client's new socket; the reply
    // must still arrive, and promptly.
    let (server, echo) = echo_server();
    let routes = [Route {
        listen: loopback(),
        forward: server,
        rtt: Duration::ZERO,
    }];
    let link = config("rate = \"100Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"");
    let relay = Relay::start_routes(&routes, &link).unwrap();
    let mut samples = Vec::new();
    for _ in 0..8 {
        let client = UdpSocket::bind(loopback()).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(1)))
            .unwrap();
        let sent = Instant::now();
        client.send_to(b"first", relay.listen_addr()).unwrap();
        let mut buf = [0u8; 16];
        let n = client.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"first");
        samples.push(sent.elapsed());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    assert!(
        median < Duration::from_millis(5),
        "first replies took {samples:?}"
    );
    relay.stop().unwrap();
    assert_eq!(echo.join().unwrap().len(), 8);
}
