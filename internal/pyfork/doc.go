// Package pyfork runs Python scripts in processes forked from one
// interpreter that has imported their heavy modules once, for tests that
// start many short Python processes: importing torch costs a process about
// a CPU second, a fork of an interpreter that has it about ten
// milliseconds.
//
// A Server is that interpreter (forkserver.py, embedded). Run and Output
// run a script to its end, as exec.Cmd's Run and CombinedOutput would;
// Command is a command line for what takes one (engines.Start): this
// binary relaying its standard streams to a forked script, when the
// binary's TestMain calls RelayIfAsked first. What a script sees is what
// `python3 SCRIPT ARGS` in the same directory gives it: its argv,
// sys.path[0] its folder, fresh standard streams, __name__ "__main__";
// the modules the server imported are already in sys.modules.
//
// Shared starts one Server on first use for the tests of a binary; its
// Close, at the end of TestMain, waits for the server, which waits for
// every script it forked, so that their CPU time is in the binary's
// children's (/usr/bin/time, go test -exec) as a started process's is.
//
// A forked child is the server's interpreter: a script must not rely on
// state a fresh process would not have (the server only imports; it runs
// no code of the modules beyond their import).
package pyfork
