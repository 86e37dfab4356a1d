//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package plugin

import (
	"errors"
	"os"
)

// sharedSupported: the shared-memory transport works on this system.
const sharedSupported = false

// errNoSharedMemory: this OS has no shared-memory transport here.
var errNoSharedMemory = errors.New("shared memory not supported on this system")

func mapFile(*os.File, int) ([]byte, error) { return nil, errNoSharedMemory }

func unmap([]byte) error { return nil }
