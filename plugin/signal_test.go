package plugin

import "syscall"

// nilSignal checks that a process exists without signalling it.
var nilSignal = syscall.Signal(0)
