//go:build unix

package engines

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the engine in its own process group, so that stopping it
// stops what it started (a shell wrapper's child).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the engine's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
