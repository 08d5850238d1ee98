"""The fork server of package pyfork (doc.go): imports the modules named on its command
line once, listens on a Unix socket, and for each request forks a child that runs a script
as `python3 SCRIPT ARGS` would, on the standard streams the request passes (SCM_RIGHTS),
and writes the script's exit status back on the request's connection.

  python3 forkserver.py SOCKET MODULE...

Its first line on stdout is a JSON object: each module, "" where it imported, else why not.
It exits when its stdin ends (the Go process that started it is gone or closed it), once
its children have: it waits for each, so that their CPU time is counted in its own
children's (getrusage, /usr/bin/time), as a process's it started itself would be.
"""
import importlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import traceback


def child(conn, fds, req):
    """Runs req's script in this forked process; never returns."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        os.setpgid(0, req["pgid"])  # the requester's group: killing it kills the script too
    except (OSError, KeyError):
        pass
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    # Fresh streams on the passed descriptors, as an interpreter's start makes them.
    sys.stdin = io.TextIOWrapper(open(0, "rb", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), encoding="utf-8")
    sys.stderr = io.TextIOWrapper(open(2, "wb", buffering=0, closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True, write_through=True)
    code = 0
    try:
        os.chdir(req["dir"])
        argv = req["argv"]
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:  # as the interpreter does: stdout flushed, then the message
            sys.stdout.flush()
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            code = code or 1
    try:
        conn.sendall(f"{code}\n".encode())
    finally:
        os._exit(code)


def reap(*_):
    """Waits for the children that have ended."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def serve(srv):
    sel = selectors.DefaultSelector()
    sel.register(srv, selectors.EVENT_READ)
    sel.register(0, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select():
            if key.fileobj == 0:
                if not os.read(0, 4096):
                    return
                continue
            conn, _ = srv.accept()
            fds = []
            try:
                data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
                while not data.endswith(b"\n"):
                    more = conn.recv(1 << 16)
                    if not more:
                        break
                    data += more
                req = json.loads(data)
                if len(fds) != 3:
                    conn.sendall(b"-1\n")
                elif os.fork() == 0:
                    sel.close()
                    srv.close()
                    child(conn, fds, req)
            except (OSError, ValueError) as e:  # a requester gone or garbled: the next one is served
                print(f"forkserver: {e}", file=sys.stderr)
            for fd in fds:
                os.close(fd)
            conn.close()


def main():
    have = {}
    for m in sys.argv[2:]:
        try:
            importlib.import_module(m)
            have[m] = ""
        except Exception as e:  # a missing or broken module: the caller skips
            have[m] = f"{type(e).__name__}: {e}"
    signal.signal(signal.SIGCHLD, reap)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sys.argv[1])
    srv.listen(64)
    sys.stdout.write(json.dumps(have) + "\n")
    sys.stdout.flush()
    serve(srv)
    srv.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        while True:
            os.waitpid(-1, 0)
    except ChildProcessError:
        pass


if __name__ == "__main__":
    main()
