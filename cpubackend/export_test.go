package cpubackend

// WithoutClearPath turns off the clear path (see Backend.decide): every
// step that fails Eq. 2 is a standard step. Tests check that it changes no
// result.
func WithoutClearPath() Option { return func(b *Backend) { b.noClear = true } }

// WithoutMixedSteps turns off mixed steps (see Backend.decide): a pair
// within Eq. 2 in one direction only takes a standard step, or a clear
// one, as the paper's per-pair Eq. 2 has it.
func WithoutMixedSteps() Option { return func(b *Backend) { b.noMixed = true } }
