package plugin

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// ringSupported: steps can be rung through the shared region's doorbell
// (Linux futexes on a shared mapping).
const ringSupported = true

// Futex operations (linux/futex.h). The words live in a MAP_SHARED
// mapping of two processes, so these are the shared (not _PRIVATE) forms.
const (
	futexWait = 0
	futexWake = 1
)

// waitWord blocks while the 32-bit word *w holds old, at most d (d > 0),
// or until a wakeWord on it; it may return early (a signal, a spurious
// wake-up). Callers check the word again.
func waitWord(w *atomic.Uint32, old uint32, d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWait, uintptr(old), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// wakeWord wakes the waiters on the word *w.
func wakeWord(w *atomic.Uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWake, 1<<30, 0, 0, 0)
}
