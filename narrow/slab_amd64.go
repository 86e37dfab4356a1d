//go:build !purego

package narrow

// bvhNext is bvhNextGo in SSE2 assembly (slab_amd64.s): it descends from
// the deferred subtrees of st to the next leaf without a call per node.
//
//go:noescape
func bvhNext(fat []fatNode, r *slabRay, st *travState) (first, count int32)
