package cpubackend

// WithoutClearPath turns off the clear path (see Backend.decide): every
// step that fails Eq. 2 is a standard step. Tests check that it changes no
// result.
func WithoutClearPath() Option { return func(b *Backend) { b.noClear = true } }

// WithAllEdges makes every step search all edges for edge-on-edge
// contacts instead of testing the pairs of edges a pair keeps (see
// Backend.edgeContacts). Tests check that it changes no result.
func WithAllEdges() Option { return func(b *Backend) { b.allEdges = true } }

// WithWakeAll makes every step wake every helper at its first phase of
// more than one item, as the backend did before it counted what a step
// needs (prepHelpers, workHelpers). Benchmarks compare the two; results
// are the same.
func WithWakeAll() Option { return func(b *Backend) { b.wakeAll = true } }

// LastItems returns the vertices and rays of the last step's work items
// (Σ hi-lo over its tasks) and how many tasks there were.
func (b *Backend) LastItems() (items, tasks int) {
	for i := range b.tasks {
		items += int(b.tasks[i].hi - b.tasks[i].lo)
	}
	return items, len(b.tasks)
}

// Gathered reports whether the last step gathered its standard rays into
// a batch for the tracer (see Backend.smallStep).
func (b *Backend) Gathered() bool { return b.gather }
