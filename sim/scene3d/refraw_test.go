package scene3d_test

import (
	"context"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// TestRefRawRays: a reference measuring raw ray lengths changes the
// reference's depths, not the comparison. For each response, the same run
// (the reference does not touch the trajectory) with and without
// RefRawRays has the same per-step RayDiff and variant metrics, and the
// raw ray length is never below the response's depth (|r| ≥ r·n); under
// ResponseRay both are the same.
func TestRefRawRays(t *testing.T) {
	sc := scene3d.Avalanche()
	run := func(resp narrow.Response, raw bool) *scene3d.Trace {
		tr, err := scene3d.Run(context.Background(), sc, scene3d.Options{N: 8, Seed: 2, Steps: 150,
			Params: narrow.Params{Method: narrow.MethodIterative, Response: resp}, Reference: true, RefRawRays: raw})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, resp := range []narrow.Response{narrow.ResponseMTD, narrow.ResponseWeighted, narrow.ResponseRay} {
		plain, raw := run(resp, false), run(resp, true)
		var compared, rawSum, plainSum float64
		for i := range plain.Steps {
			p, r := &plain.Steps[i], &raw.Steps[i]
			if p.Diff != r.Diff || p.Contacts != r.Contacts || p.DepthSum != r.DepthSum || p.RefContacts != r.RefContacts {
				t.Fatalf("%v step %d: diff %+v with raw rays, %+v without (contacts %d/%d, reference %d/%d)",
					resp, i, r.Diff, p.Diff, r.Contacts, p.Contacts, r.RefContacts, p.RefContacts)
			}
			if r.RefDepthSum < p.RefDepthSum-1e-9 || r.RefDepthMax < p.RefDepthMax-1e-12 {
				t.Fatalf("%v step %d: raw ray length %v (max %v) below the response's %v (max %v)", resp, i, r.RefDepthSum, r.RefDepthMax, p.RefDepthSum, p.RefDepthMax)
			}
			compared += float64(p.Diff.Compared)
			rawSum += r.RefDepthSum
			plainSum += p.RefDepthSum
		}
		if compared == 0 || !(rawSum > 0) {
			t.Fatalf("%v: nothing compared (%v rays, raw length %v)", resp, compared, rawSum)
		}
		if resp == narrow.ResponseRay && rawSum != plainSum {
			t.Errorf("ResponseRay: raw cumulative length %v, reference's own %v; want equal", rawSum, plainSum)
		}
		if resp == narrow.ResponseMTD && !(rawSum > plainSum) {
			t.Errorf("ResponseMTD: raw cumulative length %v not above the re-projected %v", rawSum, plainSum)
		}
		t.Logf("%v: %v rays compared, cumulative length raw %.4f, in the response %.4f", resp, compared, rawSum, plainSum)
	}
}
