//go:build !linux

package plugin

import "os"

// allocate sizes f.
func allocate(f *os.File, size int64) error { return f.Truncate(size) }
