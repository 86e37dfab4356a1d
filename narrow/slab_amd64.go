//go:build !purego

package narrow

// slab2 is slab2Go in SSE2 assembly (slab_amd64.s): both children at once.
//
//go:noescape
func slab2(b *nodeBox, r *slabRay, lo, hi float64) (a0, e0, a1, e1 float64)
