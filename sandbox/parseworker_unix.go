//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// workerProcAttr puts a worker in a process group of its own, so that
// killWorker reaches everything it runs.
func workerProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killWorker kills p's process group.
func killWorker(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
