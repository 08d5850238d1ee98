//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the user+system CPU time the process has used so far. On
// a machine shared with other work, steps per CPU second estimate the speed
// on an idle machine better than wall-clock time, for a single-threaded
// run.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
