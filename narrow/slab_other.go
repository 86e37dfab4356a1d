//go:build !amd64 || purego

package narrow

func bvhNext(fat []fatNode, r *slabRay, st *travState) (first, count int32) {
	return bvhNextGo(fat, r, st)
}
