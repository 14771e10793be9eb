#!/usr/bin/env python3
"""Opens the web build in headless Chromium and takes a screenshot once the scene is on screen.

    python3 assets/web/browser.py --dir target/web --query "scene=torus&step=600&play=0" --out shot.png

Serves DIR on 127.0.0.1 (a free port, assets/web/serve.py), starts Chromium headless with its software GL
(SwiftShader), drives it over the DevTools protocol on a pipe (standard library only), waits
until the page title (written by the app every 10 frames) reports the scene with `step S
contacts K` and at least --frames frames, saves a 1280x720 screenshot, and prints one line:
`title: <the page title when the screenshot was taken>`. The console's messages and errors go to
stderr. Exits non-zero if the page reports an error or nothing comes within --timeout seconds.
"""

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve  # noqa: E402  (assets/web/serve.py)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("browser.py: chromium not found (Debian package chromium)")


class DevTools:
    """The DevTools protocol over --remote-debugging-pipe: JSON messages ended by NUL."""

    def __init__(self, args):
        self.to_browser_r, self.to_browser_w = os.pipe()
        self.from_browser_r, self.from_browser_w = os.pipe()
        fds = (self.to_browser_r, self.from_browser_w)

        def child():
            os.dup2(fds[0], 3)
            os.dup2(fds[1], 4)

        self.proc = subprocess.Popen(
            args, preexec_fn=child, pass_fds=(3, 4) + fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(self.to_browser_r)
        os.close(self.from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser_w, json.dumps(message).encode() + b"\0")
        want = self.next_id
        while True:
            reply = self.read()
            if reply.get("id") == want:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser_r, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


FRAMES = re.compile(r"; (\d+) frames")


def page_title(browser, session):
    return browser.send("Runtime.evaluate", {"expression": "document.title",
                                             "returnByValue": True},
                        session=session)["result"].get("value", "")


def key_event(code):
    """The DevTools key event fields of a `KeyboardEvent.code` such as Digit2, KeyO, Space."""
    if code.startswith("Digit"):
        key = code[5:]
        return {"code": code, "key": key, "text": key, "windowsVirtualKeyCode": ord(key)}
    if code.startswith("Key"):
        key = code[3:].lower()
        return {"code": code, "key": key, "text": key, "windowsVirtualKeyCode": ord(key.upper())}
    if code == "Space":
        return {"code": code, "key": " ", "text": " ", "windowsVirtualKeyCode": 32}
    raise ValueError(f"unknown key code {code}")


def perform(browser, session, action, args, started):
    """Sends one input and waits until the page has drawn --settle more frames (or, with
    "until", until the title contains that text). Actions:
    {"key": "Digit2"}; {"drag": [x0, y0, x1, y1]} (left button, in 4 moves, a second apart:
    the page draws about one frame a second in software GL); {"wheel": [x, y, dy]};
    {"click": [x, y]} (left button, pressed and released at once: egui counts a press held over
    0.8 s as no click, and a frame takes over a second here); {"wait": true};
    {"drop": ["a.obj", "b.obj"]} (the local files dropped on the page's canvas: a synthetic
    DataTransfer in `dragover` and `drop` events, as a user's drag from the desktop delivers);
    {"shot": "path.png"} (a screenshot, after the wait). Returns the page title
    after the wait."""
    frames = lambda title: int(m.group(1)) if (m := FRAMES.search(title)) else -1
    def wait_frames(n, until=None):
        """Waits for n more frames, or with `until` for that text in the title."""
        start = frames(page_title(browser, session))
        while True:
            title = page_title(browser, session)
            if title.startswith("obbtree: error"):
                sys.exit(f"browser.py: the page reports {title}")
            if until is not None:
                if until in title and frames(title) >= 10:
                    return title
            elif frames(title) >= start + n:
                return title
            if time.time() - started > args.timeout:
                sys.exit(f"browser.py: action {action} timed out; title {title!r}")
            time.sleep(0.5)
    mouse = lambda kind, x, y, **extra: browser.send(
        "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra}, session=session)
    if "key" in action:
        browser.send("Runtime.evaluate",
                     {"expression": "document.querySelector('canvas')?.focus()"},
                     session=session)
        fields = key_event(action["key"])
        browser.send("Input.dispatchKeyEvent", {"type": "keyDown", **fields}, session=session)
        wait_frames(2)
        browser.send("Input.dispatchKeyEvent", {"type": "keyUp", **fields}, session=session)
    elif "drag" in action:
        x0, y0, x1, y1 = action["drag"]
        mouse("mouseMoved", x0, y0)
        wait_frames(2)
        mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
        wait_frames(2)
        for k in range(1, 5):
            mouse("mouseMoved", x0 + (x1 - x0) * k / 4, y0 + (y1 - y0) * k / 4,
                  button="left", buttons=1)
            wait_frames(2)
        mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)
    elif "click" in action:
        x, y = action["click"]
        mouse("mouseMoved", x, y)
        wait_frames(2)
        mouse("mousePressed", x, y, button="left", buttons=1, clickCount=1)
        mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=1)
    elif "drop" in action:
        files = [(os.path.basename(p), open(p, encoding="utf-8").read()) for p in action["drop"]]
        script = """(() => {
            const dt = new DataTransfer();
            for (const [name, text] of %s) dt.items.add(new File([text], name));
            const canvas = document.querySelector('canvas');
            for (const type of ['dragover', 'drop'])
                canvas.dispatchEvent(new DragEvent(type,
                    {dataTransfer: dt, bubbles: true, cancelable: true}));
            return dt.files.length;
        })()""" % json.dumps(files)
        dropped = browser.send("Runtime.evaluate", {"expression": script, "returnByValue": True},
                               session=session)["result"].get("value")
        if dropped != len(files):
            sys.exit(f"browser.py: the drop carried {dropped} files, not {len(files)}")
    elif "wheel" in action:
        x, y, dy = action["wheel"]
        mouse("mouseMoved", x, y)
        wait_frames(2)
        mouse("mouseWheel", x, y, deltaX=0, deltaY=dy)
    # Only the wait after the input looks for "until": the waits between its events must not.
    title = wait_frames(args.settle, action.get("until"))
    if "shot" in action:
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        with open(action["shot"], "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    return title


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True, help="the folder assets/web/build.sh wrote")
    parser.add_argument("--query", default="scene=torus&step=600&play=0")
    parser.add_argument("--out", required=True, help="screenshot PNG")
    parser.add_argument("--frames", type=int, default=60, help="frames to wait for")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--size", default="1280,720")
    parser.add_argument("--actions", default="[]",
                        help="JSON list of inputs to send after the screenshot, each followed by "
                             "a wait of --settle frames (see perform)")
    parser.add_argument("--settle", type=int, default=20,
                        help="frames to wait after each action")
    args = parser.parse_args()
    actions = json.loads(args.actions)

    server = serve.server(args.dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/?{args.query}"
    width, height = (int(v) for v in args.size.split(","))

    profile = tempfile.mkdtemp(prefix="obbtree-chromium-")
    browser = DevTools([
        chromium(), "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
        "--no-first-run", "--no-default-browser-check", "--disable-gpu-sandbox",
        "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--ignore-gpu-blocklist", f"--window-size={width},{height}",
        f"--user-data-dir={profile}", "about:blank",
    ])
    started = time.time()
    title = ""
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Runtime.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1,
                      "mobile": False}, session=session)
        browser.send("Page.navigate", {"url": url}, session=session)
        pattern = re.compile(r"step (\d+) contacts (\d+); (\d+) frames")
        while True:
            title = browser.send("Runtime.evaluate", {"expression": "document.title",
                                                      "returnByValue": True},
                                 session=session)["result"].get("value", "")
            for event in browser.events:
                method = event.get("method")
                if method == "Runtime.consoleAPICalled":
                    text = " ".join(str(a.get("value", a.get("description", "")))
                                    for a in event["params"]["args"])
                    print(f"console.{event['params']['type']}: {text}", file=sys.stderr)
                elif method == "Runtime.exceptionThrown":
                    print(f"exception: {event['params']['exceptionDetails']}", file=sys.stderr)
            browser.events.clear()
            if title.startswith("obbtree: error"):
                sys.exit(f"browser.py: the page reports {title}")
            m = pattern.search(title)
            if m and int(m.group(3)) >= args.frames:
                break
            if time.time() - started > args.timeout:
                sys.exit(f"browser.py: no scene after {args.timeout} s; title {title!r}")
            time.sleep(1)
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        after = browser.send("Runtime.evaluate", {"expression": "document.title",
                                                  "returnByValue": True},
                             session=session)["result"].get("value", "")
        with open(args.out, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        results = []
        for i, action in enumerate(actions):
            results.append(perform(browser, session, action, args, started))
            print(f"action {i}: {results[-1]}", file=sys.stderr)
    finally:
        browser.close()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"title: {title}")
    print(f"title after: {after}")
    for i, line in enumerate(results):
        print(f"action {i}: {line}")
    print(f"seconds: {time.time() - started:.1f}")


if __name__ == "__main__":
    main()
