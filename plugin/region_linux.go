package plugin

import (
	"errors"
	"os"
	"syscall"
)

// allocate sizes f and reserves its blocks, so that a full /dev/shm fails
// here and not with a SIGBUS when the mapping is written.
func allocate(f *os.File, size int64) error {
	err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
		return f.Truncate(size)
	}
	return err
}
