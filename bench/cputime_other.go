//go:build !unix

package bench

import "time"

// CPUTime returns 0: this platform's CPU time is not read here.
func CPUTime() time.Duration { return 0 }
