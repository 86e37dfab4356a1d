package cpubackend

// WithoutClearPath turns off the clear path (see Backend.decide): every
// step that fails Eq. 2 is a standard step. Tests check that it changes no
// result.
func WithoutClearPath() Option { return func(b *Backend) { b.noClear = true } }
