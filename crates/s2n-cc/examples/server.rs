//! A minimal s2n-quic echo server whose connections run a bbrlab
//! congestion controller: the one line that matters is
//! `with_congestion_controller`.
//!
//! ```text
//! cargo run --release -p bbrlab-s2n-quic --example server -- obbr:mu=0.5 127.0.0.1:4433
//! ```
//!
//! It prints its self-signed certificate (PEM) for the client to trust,
//! then echoes every bidirectional stream back to its sender.

use std::error::Error;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let spec = args.next().unwrap_or_else(|| "obbr:mu=0.5".into());
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:4433".into());

    let identity = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let (cert, key) = (identity.cert.pem(), identity.key_pair.serialize_pem());
    println!("{cert}");

    let mut server = s2n_quic::Server::builder()
        .with_tls((cert.as_str(), key.as_str()))?
        .with_io(listen.as_str())?
        .with_congestion_controller(bbrlab_s2n_quic::Endpoint::new(&spec)?)?
        .start()?;
    eprintln!("echo server on {} with {spec}", server.local_addr()?);

    while let Some(mut connection) = server.accept().await {
        tokio::spawn(async move {
            while let Ok(Some(mut stream)) = connection.accept_bidirectional_stream().await {
                tokio::spawn(async move {
                    while let Ok(Some(data)) = stream.receive().await {
                        if stream.send(data).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
    }
    Ok(())
}
