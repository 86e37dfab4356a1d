//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package plugin

import (
	"os"
	"syscall"
)

// sharedSupported: the shared-memory transport works on this system.
const sharedSupported = true

// mapFile maps size bytes of f, shared and writable.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmap(b []byte) error { return syscall.Munmap(b) }
