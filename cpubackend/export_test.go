package cpubackend

// WithoutClearPath turns off the clear path (see Backend.decide): every
// step that fails Eq. 2 is a standard step. Tests check that it changes no
// result.
func WithoutClearPath() Option { return func(b *Backend) { b.noClear = true } }

// WithAllEdges makes every step search all edges for edge-on-edge
// contacts instead of testing the pairs of edges a pair keeps (see
// Backend.edgeContacts). Tests check that it changes no result.
func WithAllEdges() Option { return func(b *Backend) { b.allEdges = true } }
