#!/usr/bin/env python3
"""Serves the web build on 127.0.0.1 (standard library only):

    python3 web/serve.py [--dir target/web] [--port 8080]

Like `python3 -m http.server`, plus the headers that make the page cross-origin isolated
(COOP/COEP): without them browsers round `performance.now()` to 100 µs, too coarse for the
panel's per-frame query timings. Any static server works; the timings are then coarse.
"""

import argparse
import functools
import http.server


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the .wasm type and the cross-origin isolation headers."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
    }

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, *args):
        pass


def server(directory, port=0):
    """A server for `directory` on 127.0.0.1:`port` (0: a free port); call serve_forever."""
    handler = functools.partial(Handler, directory=directory)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default="target/web")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    s = server(args.dir, args.port)
    print(f"serving {args.dir} on http://127.0.0.1:{s.server_address[1]}/ (Ctrl-C stops)")
    s.serve_forever()
