//go:build !amd64 || purego

package narrow

func slab2(b *nodeBox, r *slabRay, lo, hi float64) (a0, e0, a1, e1 float64) {
	return slab2Go(b, r, lo, hi)
}
