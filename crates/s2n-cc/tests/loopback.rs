//! A transfer over loopback between an s2n-quic server and client that
//! both run a bbrlab controller through the drop-in's `Endpoint`, as the
//! example server does; an observer sees the server's controller at work.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bbrlab_s2n_quic::cc::{AckEvent, AlgorithmSpec, Bytes, CongestionControl, Instant};
use bbrlab_s2n_quic::{Endpoint, ObserverFactory, PathObserver};
use s2n_quic::client::Connect;

const TRANSFER: usize = 4 << 20;

#[derive(Debug, Default)]
struct Seen {
    sent: AtomicU64,
    acked: AtomicU64,
    modes: Mutex<Vec<&'static str>>,
}

impl PathObserver for Seen {
    fn on_sent(&self, _now: Instant, bytes: Bytes, _number: u64) {
        self.sent.fetch_add(bytes.get(), Ordering::Relaxed);
    }

    fn on_ack(&self, event: &AckEvent, controller: &dyn CongestionControl) {
        self.acked
            .fetch_add(event.newly_acked.get(), Ordering::Relaxed);
        let mode = controller.snapshot().mode;
        let mut modes = self.modes.lock().unwrap();
        if modes.last() != Some(&mode) {
            modes.push(mode);
        }
    }
}

/// A path the observer saw opened: its peer, controller spec, order and
/// what its controller saw.
type OpenedPath = (SocketAddr, String, u64, Arc<Seen>);

#[derive(Debug, Default)]
struct Paths(Arc<Mutex<Vec<OpenedPath>>>);

impl ObserverFactory for Paths {
    fn open_path(
        &mut self,
        peer: SocketAddr,
        spec: &AlgorithmSpec,
        order: u64,
    ) -> Option<Arc<dyn PathObserver>> {
        let seen = Arc::new(Seen::default());
        self.0
            .lock()
            .unwrap()
            .push((peer, spec.to_string(), order, seen.clone()));
        Some(seen)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transfer_over_loopback_runs_the_controller() {
    transfer_with("bbr").await;
}

/// bbrlab's own controller runs in s2n-quic like the papers' ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transfer_over_loopback_runs_tempered_bbr() {
    transfer_with("tempered-bbr").await;
}

/// Moves `TRANSFER` bytes from a server running `spec` to a CUBIC client,
/// and checks what the server's controller saw.
async fn transfer_with(server_spec: &str) {
    let identity = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert, key) = (identity.cert.pem(), identity.key_pair.serialize_pem());
    let paths = Paths::default();
    let opened = paths.0.clone();

    let mut server = s2n_quic::Server::builder()
        .with_tls((cert.as_str(), key.as_str()))
        .unwrap()
        .with_io("127.0.0.1:0")
        .unwrap()
        .with_congestion_controller(
            Endpoint::new(server_spec)
                .unwrap()
                .with_seed(7)
                .with_observer(paths),
        )
        .unwrap()
        .start()
        .unwrap();
    let addr = server.local_addr().unwrap();
    tokio::spawn(async move {
        while let Some(mut connection) = server.accept().await {
            tokio::spawn(async move {
                let mut stream = connection
                    .accept_bidirectional_stream()
                    .await
                    .unwrap()
                    .unwrap();
                let chunk = bytes_of(64 * 1024);
                let mut left = TRANSFER;
                while left > 0 {
                    let n = left.min(chunk.len());
                    stream.send(chunk.slice(..n)).await.unwrap();
                    left -= n;
                }
                stream.finish().unwrap();
                // Keep the connection until the client closes it.
                while let Ok(Some(_)) = stream.receive().await {}
            });
        }
    });

    let client = s2n_quic::Client::builder()
        .with_tls(cert.as_str())
        .unwrap()
        .with_io("127.0.0.1:0")
        .unwrap()
        .with_congestion_controller(Endpoint::new("cubic").unwrap())
        .unwrap()
        .start()
        .unwrap();
    let mut connection = client
        .connect(Connect::new(addr).with_server_name("localhost"))
        .await
        .unwrap();
    let mut stream = connection.open_bidirectional_stream().await.unwrap();
    stream.send(bytes_of(1)).await.unwrap();
    let mut received = 0;
    while let Some(data) = stream.receive().await.unwrap() {
        received += data.len();
    }
    assert_eq!(received, TRANSFER);
    connection.close(0u32.into());

    let opened = opened.lock().unwrap();
    assert_eq!(opened.len(), 1, "one path on the server");
    let (peer, spec, order, seen) = &opened[0];
    assert_eq!(peer.ip(), addr.ip());
    assert_eq!((spec.as_str(), *order), (server_spec, 0));
    let (sent, acked) = (
        seen.sent.load(Ordering::Relaxed),
        seen.acked.load(Ordering::Relaxed),
    );
    assert!(
        sent >= TRANSFER as u64,
        "the controller saw {sent} bytes sent"
    );
    // The last ACKs may race the close.
    assert!(
        acked > TRANSFER as u64 / 2,
        "and {acked} bytes acknowledged"
    );
    let modes = seen.modes.lock().unwrap();
    assert_eq!(
        modes.first(),
        Some(&"startup"),
        "{server_spec}'s modes: {modes:?}"
    );
}

fn bytes_of(n: usize) -> bytes::Bytes {
    vec![0x5a; n].into()
}
