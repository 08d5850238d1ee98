"""Writes what a script sees (pyfork's tests): argv, the folder, sys.path[0], __name__,
whether json was imported before it, the environment the server was given, the first line of stdin; then exits as argv[1] says."""
import os
import sys

already = "json" in sys.modules
print(sys.argv[1:], os.path.basename(os.getcwd()), os.path.basename(sys.path[0]), __name__, already, os.environ.get("PYFORK_TEST"), flush=True)
print("to stderr", file=sys.stderr)
print(sys.stdin.readline().strip())
if sys.argv[1] == "message":
    sys.exit("a message")
sys.exit(int(sys.argv[1]))
