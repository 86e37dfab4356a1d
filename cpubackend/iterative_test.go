package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// itSubdivide splits every edge of a closed outline into pieces no longer
// than step, so that a polygon has vertices (rays) along its sides as a
// mesh has over its surface.
func itSubdivide(loop []mgl64.Vec2, step float64) []mgl64.Vec2 {
	var out []mgl64.Vec2
	for i, p := range loop {
		q := loop[(i+1)%len(loop)]
		n := max(1, int(math.Ceil(q.Sub(p).Len()/step)))
		for k := 0; k < n; k++ {
			out = append(out, p.Add(q.Sub(p).Mul(float64(k)/float64(n))))
		}
	}
	return out
}

// itPolygonSize1 builds a polygon scaled so that its Size is 1.
func itPolygonSize1(t testing.TB, loop []mgl64.Vec2) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewPolygon(loop)
	if err != nil {
		t.Fatal(err)
	}
	k := 1 / s.Size()
	scaled := make([]mgl64.Vec2, len(loop))
	for i, p := range loop {
		scaled[i] = p.Mul(k)
	}
	if s, err = narrow.NewPolygon(scaled); err != nil {
		t.Fatal(err)
	}
	return s
}

// itComb is a concave 2D shape: a base with five teeth on top.
func itComb(t testing.TB) *narrow.Shape {
	loop := []mgl64.Vec2{{-0.9, -0.4}, {0.9, -0.4}}
	for x := 0.9; x > -0.9; x -= 0.4 {
		loop = append(loop,
			mgl64.Vec2{x, 0.25}, mgl64.Vec2{x - 0.2, 0.25}, // tooth top
			mgl64.Vec2{x - 0.2, 0}, mgl64.Vec2{x - 0.4, 0}) // gap floor
	}
	loop = loop[:len(loop)-2] // the last tooth ends the outline at x = -0.9
	return itPolygonSize1(t, itSubdivide(loop, 0.04))
}

// itGear is a concave 2D shape: a disc with ten teeth.
func itGear(t testing.TB) *narrow.Shape {
	const n = 10
	var loop []mgl64.Vec2
	for i := 0; i < n; i++ {
		th := 2 * math.Pi * float64(i) / n
		st := 2 * math.Pi / n
		for _, f := range [][2]float64{{0, 0.35}, {0.2, 0.45}, {0.5, 0.45}, {0.7, 0.35}} {
			a := th + f[0]*st
			loop = append(loop, mgl64.Vec2{f[1] * math.Cos(a), f[1] * math.Sin(a)})
		}
	}
	return itPolygonSize1(t, itSubdivide(loop, 0.04))
}

// itLockstep runs several backends on the same single pair, step by step.
type itLockstep struct {
	names []string
	bes   []*cpubackend.Backend
	res   []narrow.Result
	ia    narrow.ShapeID
	ib    narrow.ShapeID
}

// itNewLockstep returns a lockstep of one backend per method, each with
// the method's defaults.
func itNewLockstep(t *testing.T, a, b *narrow.Shape, methods ...narrow.Method) *itLockstep {
	t.Helper()
	ps := make([]narrow.Params, len(methods))
	for i, m := range methods {
		ps[i] = narrow.Params{Method: m}
	}
	return itNewLockstepParams(t, a, b, ps...)
}

// itNewLockstepParams returns a lockstep of one backend per Params, named
// by their methods.
func itNewLockstepParams(t *testing.T, a, b *narrow.Shape, ps ...narrow.Params) *itLockstep {
	t.Helper()
	l := &itLockstep{res: make([]narrow.Result, len(ps))}
	for _, p := range ps {
		be, err := cpubackend.New(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		ia, err := be.RegisterShape(a)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := be.RegisterShape(b)
		if err != nil {
			t.Fatal(err)
		}
		l.ia, l.ib = ia, ib
		l.names = append(l.names, p.Method.String())
		l.bes = append(l.bes, be)
	}
	return l
}

// step runs every backend on the poses and returns their pair results.
func (l *itLockstep) step(t *testing.T, pa, pb narrow.Pose) []*narrow.PairResult {
	t.Helper()
	pairs := []narrow.Pair{{ID: 7, A: l.ia, B: l.ib, PoseA: pa, PoseB: pb}}
	out := make([]*narrow.PairResult, len(l.bes))
	for i, be := range l.bes {
		if err := be.Detect(context.Background(), pairs, &l.res[i]); err != nil {
			t.Fatalf("%s: %v", l.names[i], err)
		}
		if len(l.res[i].Pairs) != 1 {
			t.Fatalf("%s: %d pair results for 1 pair", l.names[i], len(l.res[i].Pairs))
		}
		out[i] = &l.res[i].Pairs[0]
		if out[i].Err != nil {
			t.Fatalf("%s: %v", l.names[i], out[i].Err)
		}
	}
	return out
}

// itCheckContacts reports contacts that break the contact convention:
// non-finite P, negative or non-finite depth, non-unit direction.
func itCheckContacts(t *testing.T, label string, cs []narrow.Contact) {
	t.Helper()
	for i, c := range cs {
		ok := true
		for k := 0; k < 3; k++ {
			ok = ok && !math.IsNaN(c.P[k]) && !math.IsInf(c.P[k], 0)
		}
		ok = ok && c.Depth >= 0 && !math.IsInf(c.Depth, 0)
		ok = ok && math.Abs(c.Dir.Len()-1) <= 1e-9
		if !ok {
			t.Errorf("%s: contact %d is malformed: %+v (|Dir| = %v)", label, i, c, c.Dir.Len())
			return
		}
	}
}

// itScriptStats sums the erroneous-ray counts of one script.
type itScriptStats struct {
	pair, script        string
	steps               int
	err, union          [2]int     // [0] iterative, [1] predictive vs standard
	meanShare, maxShare [2]float64 // per-step shares
	contacts            int        // standard contacts, summed over steps
	iterSteps           [2]int     // steps on which the pair was updated iteratively
}

// TestIterativeErroneousRays runs the standard, iterative and predictive
// methods in lockstep on scripted motions and counts, per step, the rays
// whose result differs from the standard algorithm's (§5.2 of Lehericey et
// al., JVRC 2013). Set IRTCD_STEPS=1 to log every step.
func TestIterativeErroneousRays(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 60
	}
	trace := os.Getenv("IRTCD_STEPS") != ""
	bunny := loadMesh(t, "bunny")
	pairs := []struct {
		name string
		a, b *narrow.Shape
	}{
		{"bunny-bunny", bunny, bunny},
		{"comb-gear", itComb(t), itGear(t)},
	}
	var all []itScriptStats
	for _, pr := range pairs {
		for _, sc := range motion.Scripts() {
			label := pr.name + "/" + sc.Name
			script := sc.New(pr.a, pr.b, 1)
			ls := itNewLockstep(t, pr.a, pr.b, narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive)
			tol := 1e-6 * min(pr.a.Size(), pr.b.Size())
			st := itScriptStats{pair: pr.name, script: sc.Name, steps: steps}
			for k := 0; k < steps; k++ {
				pa, pb := script(k)
				rs := ls.step(t, pa, pb)
				for i, r := range rs {
					itCheckContacts(t, fmt.Sprintf("%s step %d %s", label, k, ls.names[i]), r.Contacts)
				}
				st.contacts += len(rs[0].Contacts)
				var line strings.Builder
				fmt.Fprintf(&line, "%s k=%3d std=%3d", label, k, len(rs[0].Contacts))
				for m := 0; m < 2; m++ {
					r := rs[m+1]
					e, u := motion.Compare(rs[0].Contacts, r.Contacts, tol)
					st.err[m] += e
					st.union[m] += u
					sh := motion.Share(e, u)
					st.meanShare[m] += sh / float64(steps)
					st.maxShare[m] = max(st.maxShare[m], sh)
					if r.Iterative {
						st.iterSteps[m]++
					}
					fmt.Fprintf(&line, " | %s n=%3d it=%-5v err=%3d/%3d", ls.names[m+1], len(r.Contacts), r.Iterative, e, u)
				}
				if trace {
					t.Log(line.String())
				}
			}
			all = append(all, st)
		}
	}

	t.Logf("%-11s %-13s | %-17s | %-17s | %6s | %s", "pair", "script", "iterative mean/max", "predictive mean/max", "contacts", "iterative pairs (it/pred)")
	for _, st := range all {
		t.Logf("%-11s %-13s | %6.2f%% / %6.2f%% | %6.2f%% / %6.2f%% | %8.1f | %.2f / %.2f  (erroneous %d/%d, %d/%d)",
			st.pair, st.script,
			100*st.meanShare[0], 100*st.maxShare[0], 100*st.meanShare[1], 100*st.maxShare[1],
			float64(st.contacts)/float64(st.steps),
			float64(st.iterSteps[0])/float64(st.steps), float64(st.iterSteps[1])/float64(st.steps),
			st.err[0], st.union[0], st.err[1], st.union[1])
	}

	// (a) slow scripts run the iterative algorithm on most steps; (b) resting
	// contact is nearly exact; (c) prediction reduces the erroneous rays
	// where vertices enter contact.
	var total, perPair = [2]int{}, map[string][2]int{}
	for _, st := range all {
		switch st.script {
		case "RestingJitter", "Sliding":
			for m, name := range []string{"iterative", "predictive"} {
				if 2*st.iterSteps[m] <= st.steps {
					t.Errorf("%s/%s: %s backend ran %d iterative steps of %d, want most", st.pair, st.script, name, st.iterSteps[m], st.steps)
				}
			}
		}
		if st.script == "RestingJitter" {
			for m, name := range []string{"iterative", "predictive"} {
				if sh := motion.Share(st.err[m], st.union[m]); sh >= 0.05 || st.meanShare[m] >= 0.05 {
					t.Errorf("%s/RestingJitter: %s erroneous share %.2f%% overall, %.2f%% mean per step; want < 5%%", st.pair, name, 100*sh, 100*st.meanShare[m])
				}
			}
		}
		switch st.script {
		case "Approach", "Impact", "Sliding", "Rotation":
			for m := range total {
				total[m] += st.err[m]
			}
			p := perPair[st.pair]
			p[0] += st.err[0]
			p[1] += st.err[1]
			perPair[st.pair] = p
		}
	}
	for _, pr := range pairs {
		p := perPair[pr.name]
		t.Logf("%s: erroneous rays on Approach+Impact+Sliding+Rotation: iterative %d, predictive %d", pr.name, p[0], p[1])
		if !(p[1] < p[0]) {
			t.Errorf("%s: prediction does not reduce the erroneous rays: predictive %d, iterative %d (run with IRTCD_STEPS=1 for every step)", pr.name, p[1], p[0])
		}
	}
	t.Logf("all: erroneous rays on Approach+Impact+Sliding+Rotation: iterative %d, predictive %d", total[0], total[1])
	if !(total[1] < total[0]) {
		t.Errorf("prediction does not reduce the erroneous rays: predictive %d, iterative %d (run with IRTCD_STEPS=1 for every step)", total[1], total[0])
	}
}
