//go:build unix

package check

import "syscall"

// processCPU returns the process's CPU seconds so far (user + system, as
// the kernel counts them: what /usr/bin/time reports).
func processCPU() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}
