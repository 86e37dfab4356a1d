//go:build !linux

package plugin

import (
	"sync/atomic"
	"time"
)

// ringSupported: steps can be rung through the shared region's doorbell
// (Linux only); elsewhere every step is a DetectShared call.
const ringSupported = false

func waitWord(w *atomic.Uint32, old uint32, d time.Duration) {}

func wakeWord(w *atomic.Uint32) {}
