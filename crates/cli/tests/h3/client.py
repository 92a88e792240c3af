"""An HTTP/3 client built on aioquic, for bbrlab's tests of `bbrlab serve`.

Usage: client.py HOST PORT CAFILE REQUESTS_FILE

REQUESTS_FILE holds a JSON list of {"path": "/x", "method": "GET", "headers":
{"range": "bytes=0-9"}, "frames": false, "body": false}. The requests run one after the
other on one connection; the result, printed to stdout as JSON, is one
object per request: status, headers, body length and SHA-256, whether it
timed out (20 s unless the request says "timeout"), whether the server
reset the stream (its error code), and with
"frames": true the live frames parsed from the body (16-byte header:
frame number and payload length, big-endian) with the time each one was
complete, in seconds since the request was sent; with "body": true the
body itself, as text.

It uses aioquic's own HTTP/3 stack: nothing in it comes from bbrlab.
"""

import asyncio
import hashlib
import json
import ssl
import struct
import sys
import time

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamReset


class Response:
    def __init__(self, want_frames, keep_body):
        self.start = time.monotonic()
        self.status = None
        self.headers = {}
        self.length = 0
        self.sha = hashlib.sha256()
        self.want_frames = want_frames
        self.keep_body = keep_body
        self.body = b""
        self.pending = b""
        self.frames = []
        self.reset = None
        self.done = asyncio.get_running_loop().create_future()

    def on_data(self, data):
        self.length += len(data)
        self.sha.update(data)
        if self.keep_body:
            self.body += data
        if not self.want_frames:
            return
        self.pending += data
        while len(self.pending) >= 16:
            number, size = struct.unpack(">QQ", self.pending[:16])
            if len(self.pending) < 16 + size:
                break
            self.frames.append(
                {"number": number, "bytes": size, "at": time.monotonic() - self.start}
            )
            self.pending = self.pending[16 + size :]

    def result(self):
        return {
            "status": self.status,
            "headers": self.headers,
            "length": self.length,
            "sha256": self.sha.hexdigest(),
            "frames": self.frames,
            "trailing_bytes": len(self.pending),
            "reset": self.reset,
            "body": self.body.decode("utf-8", "replace") if self.keep_body else None,
        }


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = H3Connection(self._quic)
        self.responses = {}

    def quic_event_received(self, event):
        if isinstance(event, StreamReset) and event.stream_id in self.responses:
            response = self.responses[event.stream_id]
            response.reset = event.error_code
            if not response.done.done():
                response.done.set_result(None)
        for h3_event in self.http.handle_event(event):
            response = self.responses.get(getattr(h3_event, "stream_id", None))
            if response is None:
                continue
            if isinstance(h3_event, HeadersReceived):
                for name, value in h3_event.headers:
                    if name == b":status":
                        response.status = int(value)
                    else:
                        response.headers[name.decode()] = value.decode()
            elif isinstance(h3_event, DataReceived):
                response.on_data(h3_event.data)
            if getattr(h3_event, "stream_ended", False) and not response.done.done():
                response.done.set_result(None)

    async def request(self, host, spec):
        stream_id = self._quic.get_next_available_stream_id()
        response = Response(spec.get("frames", False), spec.get("body", False))
        self.responses[stream_id] = response
        headers = [
            (b":method", spec.get("method", "GET").encode()),
            (b":scheme", b"https"),
            (b":authority", host.encode()),
            (b":path", spec["path"].encode()),
            (b"user-agent", b"aioquic"),
        ]
        for name, value in spec.get("headers", {}).items():
            headers.append((name.lower().encode(), value.encode()))
        self.http.send_headers(stream_id, headers, end_stream=True)
        self.transmit()
        try:
            await asyncio.wait_for(response.done, timeout=spec.get("timeout", 20))
            timed_out = False
        except asyncio.TimeoutError:
            timed_out = True
        result = response.result()
        result["timed_out"] = timed_out
        return result


async def main(host, port, cafile, requests):
    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    configuration.load_verify_locations(cafile)
    configuration.verify_mode = ssl.CERT_REQUIRED
    configuration.server_name = "localhost"
    results = []
    async with connect(
        host, port, configuration=configuration, create_protocol=Client
    ) as client:
        for spec in requests:
            results.append(await client.request(f"localhost:{port}", spec))
    return results


if __name__ == "__main__":
    host, port, cafile, requests_file = sys.argv[1:5]
    with open(requests_file) as f:
        requests = json.load(f)
    print(json.dumps(asyncio.run(main(host, int(port), cafile, requests))))
