//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package plugin

import "os"

// sharedSupported: the shared-memory transport works on this system.
const sharedSupported = false

func mapFile(*os.File, int) ([]byte, error) { return nil, errNoSharedMemory }

func unmap([]byte) error { return nil }
