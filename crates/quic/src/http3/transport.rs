//! h3's transport traits (`h3::quic`) over s2n-quic connections and streams.
//!
//! h3 is written against abstract QUIC traits; this module is the adapter
//! that lets it drive an s2n-quic [`s2n_quic::Connection`], so an HTTP/3
//! connection runs on the same endpoint, and under the same bbrlab
//! controller, as a `bbrlab/1` one.
//!
//! The one place where the two models differ is writing: h3 hands a
//! stream a whole frame ([`WriteBuf`]: frame header and payload) after
//! `poll_ready` said yes, while s2n-quic takes owned [`Bytes`] chunks and
//! applies back-pressure when its send buffer is full. [`SendHalf`] keeps
//! the frame it was given as chunks and hands them to s2n-quic from
//! `poll_ready` (and `poll_finish`), so h3 cannot get a second frame in
//! before the first is in s2n-quic's buffer: memory per stream stays
//! bounded by one frame beside s2n-quic's own send buffer.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::{Buf, Bytes};
use h3::quic::{self, ConnectionErrorIncoming, StreamErrorIncoming, StreamId, WriteBuf};
use s2n_quic::connection::{BidirectionalStreamAcceptor, Handle, ReceiveStreamAcceptor};

/// An s2n-quic connection as h3 sees it: stream acceptors and a handle to
/// open streams.
pub struct Connection {
    opener: Opener,
    bidirectional: BidirectionalStreamAcceptor,
    unidirectional: ReceiveStreamAcceptor,
}

impl Connection {
    /// Wraps an accepted (or connected) s2n-quic connection.
    pub fn new(connection: s2n_quic::Connection) -> Connection {
        let (handle, acceptor) = connection.split();
        let (bidirectional, unidirectional) = acceptor.split();
        Connection {
            opener: Opener { handle },
            bidirectional,
            unidirectional,
        }
    }
}

/// What h3 gets when the peer closed without an error: h3 has no variant
/// for a clean end of the connection, and an internal error is what it
/// treats as "no more streams" without blaming the peer.
fn closed() -> ConnectionErrorIncoming {
    ConnectionErrorIncoming::InternalError("the QUIC connection is closed".into())
}

fn connection_error(error: s2n_quic::connection::Error) -> ConnectionErrorIncoming {
    use s2n_quic::connection::Error;
    match error {
        Error::Application { error, .. } => ConnectionErrorIncoming::ApplicationClose {
            error_code: u64::from(error),
        },
        Error::IdleTimerExpired { .. } => ConnectionErrorIncoming::Timeout,
        Error::Closed { .. } => closed(),
        other => ConnectionErrorIncoming::Undefined(Arc::new(other)),
    }
}

/// The connection's error where a stream is opened, read or written.
fn connection_error_on_stream(error: s2n_quic::connection::Error) -> StreamErrorIncoming {
    StreamErrorIncoming::ConnectionErrorIncoming {
        connection_error: connection_error(error),
    }
}

fn stream_error(error: s2n_quic::stream::Error) -> StreamErrorIncoming {
    use s2n_quic::stream::Error;
    match error {
        Error::StreamReset { error, .. } => StreamErrorIncoming::StreamTerminated {
            error_code: u64::from(error),
        },
        Error::ConnectionError { error, .. } => connection_error_on_stream(error),
        other => StreamErrorIncoming::Unknown(Box::new(other)),
    }
}

/// An s2n-quic stream id as h3's: both are QUIC variable-length integers,
/// so the conversion cannot fail for an id s2n-quic handed out.
fn stream_id(id: u64) -> StreamId {
    StreamId::try_from(id).expect("s2n-quic stream ids are QUIC varints")
}

/// An application error code for s2n-quic: h3's codes are varints too;
/// an out-of-range one (never sent by h3) becomes 0 rather than a panic.
fn application_error(code: u64) -> s2n_quic::application::Error {
    s2n_quic::application::Error::new(code).unwrap_or(s2n_quic::application::Error::UNKNOWN)
}

impl<B: Buf> quic::Connection<B> for Connection {
    type RecvStream = ReceiveHalf;
    type OpenStreams = Opener;

    fn poll_accept_recv(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<ReceiveHalf, ConnectionErrorIncoming>> {
        match ready!(self.unidirectional.poll_accept_receive_stream(cx)) {
            Ok(Some(stream)) => Poll::Ready(Ok(ReceiveHalf { stream })),
            Ok(None) => Poll::Ready(Err(closed())),
            Err(e) => Poll::Ready(Err(connection_error(e))),
        }
    }

    fn poll_accept_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Bidirectional<B>, ConnectionErrorIncoming>> {
        match ready!(self.bidirectional.poll_accept_bidirectional_stream(cx)) {
            Ok(Some(stream)) => Poll::Ready(Ok(stream.into())),
            Ok(None) => Poll::Ready(Err(closed())),
            Err(e) => Poll::Ready(Err(connection_error(e))),
        }
    }

    fn opener(&self) -> Opener {
        self.opener.clone()
    }
}

impl<B: Buf> quic::OpenStreams<B> for Connection {
    type BidiStream = Bidirectional<B>;
    type SendStream = SendHalf<B>;

    fn poll_open_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Bidirectional<B>, StreamErrorIncoming>> {
        quic::OpenStreams::<B>::poll_open_bidi(&mut self.opener, cx)
    }

    fn poll_open_send(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<SendHalf<B>, StreamErrorIncoming>> {
        quic::OpenStreams::<B>::poll_open_send(&mut self.opener, cx)
    }

    fn close(&mut self, code: h3::error::Code, reason: &[u8]) {
        quic::OpenStreams::<B>::close(&mut self.opener, code, reason)
    }
}

/// Opens streams on a connection (h3 keeps one for its control and QPACK
/// streams, clients one per request).
#[derive(Clone)]
pub struct Opener {
    handle: Handle,
}

impl<B: Buf> quic::OpenStreams<B> for Opener {
    type BidiStream = Bidirectional<B>;
    type SendStream = SendHalf<B>;

    fn poll_open_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Bidirectional<B>, StreamErrorIncoming>> {
        let stream = ready!(self.handle.poll_open_bidirectional_stream(cx))
            .map_err(connection_error_on_stream)?;
        Poll::Ready(Ok(stream.into()))
    }

    fn poll_open_send(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<SendHalf<B>, StreamErrorIncoming>> {
        let stream =
            ready!(self.handle.poll_open_send_stream(cx)).map_err(connection_error_on_stream)?;
        Poll::Ready(Ok(SendHalf::new(stream)))
    }

    fn close(&mut self, code: h3::error::Code, _reason: &[u8]) {
        // s2n-quic's application close carries a code, not a reason phrase.
        self.handle.close(application_error(code.value()));
    }
}

/// The receiving side of a stream.
pub struct ReceiveHalf {
    stream: s2n_quic::stream::ReceiveStream,
}

impl quic::RecvStream for ReceiveHalf {
    type Buf = Bytes;

    fn poll_data(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<Bytes>, StreamErrorIncoming>> {
        self.stream.poll_receive(cx).map_err(stream_error)
    }

    fn stop_sending(&mut self, error_code: u64) {
        // Fails only if the stream is already finished: nothing to stop then.
        let _ = self.stream.stop_sending(application_error(error_code));
    }

    fn recv_id(&self) -> StreamId {
        stream_id(self.stream.id())
    }
}

/// The sending side of a stream; see the module's notes on writing.
pub struct SendHalf<B> {
    stream: s2n_quic::stream::SendStream,
    /// The chunks of the last frame h3 handed over that s2n-quic has not
    /// taken yet.
    pending: VecDeque<Bytes>,
    payload: PhantomData<fn(B)>,
}

impl<B> SendHalf<B> {
    fn new(stream: s2n_quic::stream::SendStream) -> SendHalf<B> {
        SendHalf {
            stream,
            pending: VecDeque::new(),
            payload: PhantomData,
        }
    }

    /// Hands the pending chunks to s2n-quic; ready when all are taken.
    fn poll_flush_pending(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), StreamErrorIncoming>> {
        while let Some(chunk) = self.pending.front_mut() {
            ready!(self.stream.poll_send(chunk, cx)).map_err(stream_error)?;
            // s2n-quic takes a chunk whole once it takes it at all.
            if chunk.is_empty() {
                self.pending.pop_front();
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<B: Buf> quic::SendStream<B> for SendHalf<B> {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        self.poll_flush_pending(cx)
    }

    fn send_data<T: Into<WriteBuf<B>>>(&mut self, data: T) -> Result<(), StreamErrorIncoming> {
        if !self.pending.is_empty() {
            // h3 polls readiness before every frame; a second frame while
            // one is pending would make the buffer unbounded.
            return Err(StreamErrorIncoming::ConnectionErrorIncoming {
                connection_error: ConnectionErrorIncoming::InternalError(
                    "a frame was sent before the previous one was taken".into(),
                ),
            });
        }
        let mut frame: WriteBuf<B> = data.into();
        while frame.has_remaining() {
            let n = frame.chunk().len();
            self.pending.push_back(frame.copy_to_bytes(n));
        }
        Ok(())
    }

    fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        ready!(self.poll_flush_pending(cx))?;
        // finish() queues the FIN without waiting for acknowledgements: h3
        // should not hold a request open until the peer has acked it all.
        Poll::Ready(self.stream.finish().map_err(stream_error))
    }

    fn reset(&mut self, reset_code: u64) {
        self.pending.clear();
        // Fails only if the stream already ended: nothing to reset then.
        let _ = self.stream.reset(application_error(reset_code));
    }

    fn send_id(&self) -> StreamId {
        stream_id(self.stream.id())
    }
}

/// A bidirectional stream: both halves, split by h3 for requests.
pub struct Bidirectional<B> {
    send: SendHalf<B>,
    receive: ReceiveHalf,
}

impl<B> From<s2n_quic::stream::BidirectionalStream> for Bidirectional<B> {
    fn from(stream: s2n_quic::stream::BidirectionalStream) -> Self {
        let (receive, send) = stream.split();
        Bidirectional {
            send: SendHalf::new(send),
            receive: ReceiveHalf { stream: receive },
        }
    }
}

impl<B: Buf> quic::BidiStream<B> for Bidirectional<B> {
    type SendStream = SendHalf<B>;
    type RecvStream = ReceiveHalf;

    fn split(self) -> (SendHalf<B>, ReceiveHalf) {
        (self.send, self.receive)
    }
}

impl<B: Buf> quic::RecvStream for Bidirectional<B> {
    type Buf = Bytes;

    fn poll_data(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<Bytes>, StreamErrorIncoming>> {
        self.receive.poll_data(cx)
    }

    fn stop_sending(&mut self, error_code: u64) {
        self.receive.stop_sending(error_code)
    }

    fn recv_id(&self) -> StreamId {
        self.receive.recv_id()
    }
}

impl<B: Buf> quic::SendStream<B> for Bidirectional<B> {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        self.send.poll_ready(cx)
    }

    fn send_data<T: Into<WriteBuf<B>>>(&mut self, data: T) -> Result<(), StreamErrorIncoming> {
        self.send.send_data(data)
    }

    fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        self.send.poll_finish(cx)
    }

    fn reset(&mut self, reset_code: u64) {
        self.send.reset(reset_code)
    }

    fn send_id(&self) -> StreamId {
        self.send.send_id()
    }
}
