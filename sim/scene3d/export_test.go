package scene3d

// Queued returns the number of steps whose reference comparison waits for
// FlushReference (Options.DeferReference).
func (s *Sim) Queued() int { return len(s.queue) }
