//go:build !unix

package sandbox

import (
	"os"
	"syscall"
)

func workerProcAttr() *syscall.SysProcAttr { return nil }

// killWorker kills p (a worker starts no process of its own).
func killWorker(p *os.Process) { _ = p.Kill() }
