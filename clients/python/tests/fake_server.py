"""A tiny scripted stand-in for the server, for protocol edge cases the real one never shows.

Reads JSON-RPC lines on stdin and answers:
- ``initialize``: a minimal result;
- ``test/serverRequest`` {method, params}: sends that server request (id 0), waits for the
  client's answer and returns it as the result;
- ``test/garbage``: writes a non-JSON line and a JSON array, then answers ``{"ok": true}``;
- ``test/longLine`` {bytes}: writes a JSON line of that many bytes, then answers;
- ``test/silent``: never answers;
- ``test/exit`` {code}: exits with that code without answering;
- ``test/stubborn``: answers, then ignores SIGTERM and stdin EOF (only SIGKILL ends it).
Notifications are ignored. At stdin EOF it exits 0 (unless stubborn).
"""

import json
import signal
import sys
import threading


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    stubborn = False
    lines = iter(sys.stdin.readline, "")
    for line in lines:
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message or method is None:
            continue
        request_id = message["id"]
        params = message.get("params") or {}
        if method == "initialize":
            send({"id": request_id, "result": {"userAgent": "fake/0.0.0", "codexHome": "/nowhere", "platformFamily": "unix", "platformOs": "linux"}})
        elif method == "test/serverRequest":
            send({"id": 0, "method": params["method"], "params": params.get("params", {})})
            answer = json.loads(next(lines))
            send({"id": request_id, "result": answer})
        elif method == "test/garbage":
            sys.stdout.write("this is not JSON\n[1, 2]\n")
            send({"id": request_id, "result": {"ok": True}})
        elif method == "test/longLine":
            filler = "x" * max(0, int(params["bytes"]) - 40)
            send({"method": "test/long", "params": {"filler": filler}})
            send({"id": request_id, "result": {"ok": True}})
        elif method == "test/silent":
            pass
        elif method == "test/exit":
            sys.exit(int(params.get("code", 0)))
        elif method == "test/stubborn":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            stubborn = True
            send({"id": request_id, "result": {"ok": True}})
        else:
            send({"id": request_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    if stubborn:
        threading.Event().wait()


if __name__ == "__main__":
    main()
