#!/usr/bin/env python3
"""A broken language server, to show the real-host tests fail: it runs
`caps lsp` (CAPS, or caps on PATH) and relays every message both ways, but
empties the diagnostics of every textDocument/publishDiagnostics.

Use it as the server of a host test:
    CAPS_HOSTTEST_SERVER=editors/hosttest/testdata/drop-diagnostics.py go test ./editors/nvim
(the editor runs it with the argument "lsp")."""
import json, os, subprocess, sys, threading

caps = os.environ.get("CAPS") or "caps"
proc = subprocess.Popen([caps] + sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

def read(f):
    length = None
    while True:
        line = f.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    return f.read(length)

def write(f, body):
    f.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    f.flush()

def pump_in():
    while (body := read(sys.stdin.buffer)) is not None:
        write(proc.stdin, body)
    proc.stdin.close()

threading.Thread(target=pump_in, daemon=True).start()
while (body := read(proc.stdout)) is not None:
    msg = json.loads(body)
    if msg.get("method") == "textDocument/publishDiagnostics":
        msg["params"]["diagnostics"] = []
        body = json.dumps(msg).encode()
    write(sys.stdout.buffer, body)
sys.exit(proc.wait())
