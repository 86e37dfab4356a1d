package rigid_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/fuzzread"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// worldErrs are the sentinels a World's error may wrap (sim/rigid's and,
// for poses, shapes and the narrow phase, narrow's): every error it
// returns for bad input must wrap one of them.
var worldErrs = []error{
	rigid.ErrNilShape, rigid.ErrNotMesh, rigid.ErrBadDensity, rigid.ErrBadMaterial,
	rigid.ErrBadPose, rigid.ErrBadVelocity, rigid.ErrBadImpulse, rigid.ErrBadMass,
	rigid.ErrBadRay, rigid.ErrBadKind, rigid.ErrKinematic, rigid.ErrStatic,
	rigid.ErrUnknownBody, rigid.ErrRemovedBody, rigid.ErrDiverged, rigid.ErrNoState,
	narrow.ErrBadMotion, narrow.ErrTooLarge, narrow.ErrDegenerate,
}

// typedErr reports whether err wraps one of worldErrs.
func typedErr(err error) bool {
	for _, s := range worldErrs {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// bodyID reads a body ID from −1 to n+1 (n bodies so far): unknown IDs
// too.
func bodyID(r *fuzzread.Reader, n int) rigid.BodyID {
	return rigid.BodyID(int(r.Byte())%(n+3) - 1)
}

// FuzzWorldOps reads a configuration from the input's first byte
// (DefaultConfig with or without continuous collision detection, edge
// sweeps and turning casts, edge-through-face contacts, sleeping, speculative and
// edge-on-edge contacts, the deep correction rate, a pre-solve that
// disables pairs and points and changes materials) and then a script of
// World calls: adding and removing bodies of five shapes, among them a
// torus and a heightfield, with any flags and numbers, non-finite and
// huge ones included; setting poses, velocities and shapes; deforming
// shapes a vertex at a time; impulses; steps; saves and restores; ray,
// box, shape and cast queries. It plays the script on two worlds: the
// first gets every call, the second only those the first accepted, and
// runs two backend workers where the first runs one. It fails when a call
// panics, when an error wraps none of the package's sentinels, when the
// second world refuses what the first accepted, or when the two worlds'
// steps differ in any way (bodies, events, solver points, saved state):
// a refused call must leave the world as it was, and the workers must not
// change the result. A step that fails (a body would diverge) must leave
// the world's frame as it was; every step must leave every body's pose
// finite and give finite solver points. Run it with
//
//	go test ./sim/rigid -run '^$' -fuzz '^FuzzWorldOps$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzWorldOps(f *testing.F) {
	torus := mesh(f, "torus")
	terrain, err := narrow.NewHeightfield([][]float64{{0, 0.2, 0}, {0.1, 0.4, 0.1}, {0, 0.2, 0}}, 0.5, 0.5, -0.5)
	if err != nil {
		f.Fatal(err)
	}
	shapes := []*narrow.Shape{
		box(f, mgl64.Vec3{5, 0.5, 5}), box(f, mgl64.Vec3{0.3, 0.3, 0.3}),
		box(f, mgl64.Vec3{0.8, 0.05, 0.4}), torus, terrain,
	}
	// Seeds: a ground and falling bodies, stepped; bad poses, velocities
	// and impulses; a save, a removal and a restore; queries; a new shape.
	v := fuzzread.Plain
	ground := []byte{0, 0, 1, v(0), v(-0.5), v(0), v(1), v(0), v(0), v(0)}
	cube := func(shape byte, x, y float64) []byte {
		return []byte{0, shape, 0, v(x), v(y), v(0), v(1), v(0), v(0), v(0)}
	}
	f.Add(slices.Concat([]byte{0}, ground, cube(1, 0, 0.29), cube(1, 0.1, 0.88), []byte{6, 6, 6}))
	f.Add(slices.Concat([]byte{8 | 64}, ground, cube(1, 0, 0.29), []byte{2, 1, 201, v(0), v(0), v(1), v(0), v(0), v(0), 3, 1, 202, v(0), v(0), v(0), v(0), v(0), 4, 1, 208, v(0), v(0), v(0), v(0), v(0), 6, 6}))
	f.Add(slices.Concat([]byte{0}, ground, cube(3, 0, 0.1), cube(1, 0, 0.9), []byte{7, 6, 1, 1, 6, 8, 6, 9, v(0), v(2), v(0), v(0), v(-1), v(0), v(0), v(0.5), v(0), v(1), v(0), v(0), v(0), v(4), 3, 6}))
	f.Add(slices.Concat([]byte{1 | 2 | 4}, ground, cube(4, 0, 0.3), cube(2, 0.2, 0.5), []byte{4, 2, v(0), v(0.5), v(0), v(0), v(1.5), v(0), 6, 5, 2, 3, 6, 10, 2, 6}))
	terrainAt := []byte{0, 4, 1, v(-0.5), v(0), v(-0.5), v(1), v(0), v(0), v(0)}
	f.Add(slices.Concat([]byte{16 | 32}, ground, terrainAt, cube(1, 0, 0.68), []byte{6, 6, 11, 2, 4, v(0), v(2), v(0), 6, 6}))
	f.Add(slices.Concat([]byte{128}, ground, cube(1, 0, 0.29), cube(1, 0.1, 0.88), cube(2, 0.5, 1.5), []byte{6, 6, 6, 6}))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzread.New(data)
		// The configuration: DefaultConfig changed by the first byte's bits.
		flags := r.Byte()
		change := func(c *rigid.Config) {
			if flags&1 != 0 {
				c.CCDMotion, c.CCDEdges, c.CCDTurns = 0.05, flags&2 != 0, flags&64 != 0
			}
			c.Params.EdgeFaces = flags&4 != 0
			c.DisableSleep = flags&8 != 0
			if flags&16 != 0 {
				c.Params.Speculative = false
			}
			if flags&32 != 0 {
				c.Params.EdgeAngle = 0
				c.Params.EdgeFaces = false
			}
			if flags&64 != 0 {
				c.DeepPenetration, c.DeepCorrectionRate = 0.04, 0.8
			}
		}
		w, shadow := emptyWorld(t, 1, change), emptyWorld(t, 2, change)
		if flags&128 != 0 {
			// A pre-solve that uses all it may change: pairs disabled,
			// every third point off, friction halved, a belt on body 0,
			// bouncy contacts.
			pre := func(p *rigid.PreSolve) {
				if (p.A+p.B)%3 == 0 {
					p.Disable = true
					return
				}
				for i := range p.Points {
					p.Points[i].Disable = i%3 == 2
				}
				p.Friction *= 0.5
				p.Restitution = 0.3
				if p.A == 0 {
					p.SurfaceVelocity = mgl64.Vec3{0.5, 0, 0}
				}
			}
			w.SetPreSolve(pre)
			shadow.SetPreSolve(pre)
		}
		known := slices.Clone(shapes) // and the deformed ones, for the encoding
		var saved, shadowSaved rigid.State
		// refused checks a call the first world refused; check, one both
		// made.
		refused := func(what string, err error) {
			t.Helper()
			if !typedErr(err) {
				t.Fatalf("%s: error %v wraps no sentinel", what, err)
			}
		}
		check := func(what string, err, shadowErr error) {
			t.Helper()
			if err != nil {
				refused(what, err)
			}
			if (err == nil) != (shadowErr == nil) {
				t.Fatalf("%s: %v, but %v in the world that skipped the refused calls", what, err, shadowErr)
			}
		}
		// apply makes a call on the first world and, if it accepts it, on
		// the second.
		apply := func(what string, call func(*rigid.World) error) {
			t.Helper()
			if err := call(w); err != nil {
				refused(what, err)
				return
			}
			check(what, nil, call(shadow))
		}
		for range 48 {
			if r.Done() {
				break
			}
			n := w.NumBodies()
			switch op := r.Byte() % 12; op {
			case 0: // AddBody
				var s *narrow.Shape
				if k := int(r.Byte()) % (len(shapes) + 1); k < len(shapes) {
					s = shapes[k]
				}
				flags := r.Byte()
				def := rigid.NewBodyDef(s, r.Pose())
				def.Static, def.Kinematic, def.Sensor = flags&1 != 0, flags&2 != 0, flags&4 != 0
				if flags&8 != 0 {
					def.Density = r.Num()
				}
				if flags&16 != 0 {
					def.Friction, def.Restitution = r.Num(), r.Num()
				}
				if flags&32 != 0 {
					def.LinearVelocity, def.AngularVelocity = r.Vec(), r.Vec()
				}
				def.Group = uint32(flags>>6) % 3
				if n >= 12 {
					continue
				}
				id, err := w.AddBody(def)
				if err != nil {
					refused("AddBody", err)
					continue
				}
				id2, err2 := shadow.AddBody(def)
				check("AddBody", err, err2)
				if id != id2 {
					t.Fatalf("AddBody gave IDs %d and %d", id, id2)
				}
			case 1: // RemoveBody
				id := bodyID(r, n)
				apply("RemoveBody", func(x *rigid.World) error { return x.RemoveBody(id) })
			case 2: // SetPose
				id, p := bodyID(r, n), r.Pose()
				apply("SetPose", func(x *rigid.World) error { return x.SetPose(id, p) })
			case 3: // SetVelocity
				id, v, om := bodyID(r, n), r.Vec(), r.Vec()
				apply("SetVelocity", func(x *rigid.World) error { return x.SetVelocity(id, v, om) })
			case 4: // ApplyImpulse
				id, j, p := bodyID(r, n), r.Vec(), r.Vec()
				apply("ApplyImpulse", func(x *rigid.World) error { return x.ApplyImpulse(id, j, p) })
			case 5: // SetShape
				id := bodyID(r, n)
				var s *narrow.Shape
				if k := int(r.Byte()) % (len(shapes) + 1); k < len(shapes) {
					s = shapes[k]
				}
				apply("SetShape", func(x *rigid.World) error { return x.SetShape(id, s) })
			case 6: // Step
				f0 := frameOf(w, 0)
				err, err2 := w.Step(context.Background()), shadow.Step(context.Background())
				check("Step", err, err2)
				f1, f2 := frameOf(w, 0), frameOf(shadow, 0)
				if err != nil && !reflect.DeepEqual(f0, f1) {
					t.Fatalf("step %d failed (%v) and changed the world", w.StepCount(), err)
				}
				for id, b := range f1.bodies {
					if b != nil && (!finiteVec(b.pose.Pos) || !finite(b.pose.Rot.W) || !finiteVec(b.pose.Rot.V)) {
						t.Fatalf("step %d: body %d's pose %v is not finite", w.StepCount(), id, b.pose)
					}
				}
				for _, p := range f1.points {
					if !finiteVec(p.Point) || !finiteVec(p.Normal) || !finite(p.Depth) {
						t.Fatalf("step %d: solver point %+v is not finite", w.StepCount(), p)
					}
				}
				if !reflect.DeepEqual(f1, f2) {
					t.Fatalf("step %d: the two worlds differ", w.StepCount())
				}
			case 7: // SaveState
				err := w.SaveState(&saved)
				check("SaveState", err, shadow.SaveState(&shadowSaved))
			case 8: // RestoreState
				apply("RestoreState", func(x *rigid.World) error {
					if x == shadow {
						return x.RestoreState(&shadowSaved)
					}
					return x.RestoreState(&saved)
				})
			case 9: // queries: they change nothing
				o, d, p := r.Vec(), r.Vec(), r.Pose()
				if _, _, err := w.RayCast(o, d, r.Num(), nil); err != nil {
					refused("RayCast", err)
				}
				w.QueryBox(narrow.AABB{Min: o, Max: o.Add(d)}, func(rigid.BodyID) bool { return true })
				s := shapes[int(r.Byte())%len(shapes)]
				if err := w.QueryShape(s, p, func(rigid.BodyID) bool { return true }); err != nil {
					refused("QueryShape", err)
				}
				if _, _, err := w.ShapeCast(s, p, d, nil); err != nil {
					refused("ShapeCast", err)
				}
			case 10: // Wake
				id := bodyID(r, n)
				w.Wake(id)
				shadow.Wake(id)
			case 11: // a body's shape deformed: one vertex moved
				id, k, d := bodyID(r, n), int(r.Byte()), r.Vec().Mul(0.05)
				b := w.Body(id)
				if b == nil {
					continue
				}
				old := b.Shape()
				vs := make([]mgl64.Vec3, old.NumVertices())
				for i := range vs {
					vs[i] = old.Vertex(i)
				}
				vs[k%len(vs)] = vs[k%len(vs)].Add(d)
				s, err := old.Deform(vs)
				if err != nil {
					if !errors.Is(err, narrow.ErrNonFinite) && !errors.Is(err, narrow.ErrDegenerate) && !errors.Is(err, narrow.ErrWinding) {
						t.Fatalf("Deform: error %v wraps no sentinel", err)
					}
					continue
				}
				known = append(known, s)
				apply("SetShape (deformed)", func(x *rigid.World) error { return x.SetShape(id, s) })
			}
		}
		var s1, s2 rigid.State
		if err := w.SaveState(&s1); err != nil {
			t.Fatal(err)
		}
		if err := shadow.SaveState(&s2); err != nil {
			t.Fatal(err)
		}
		b1, err1 := s1.AppendEncoded(nil, known)
		b2, err2 := s2.AppendEncoded(nil, known)
		if err1 != nil || err2 != nil || string(b1) != string(b2) {
			at := 0
			for at < min(len(b1), len(b2)) && b1[at] == b2[at] {
				at++
			}
			t.Fatalf("the two worlds' saved states differ from byte %d (%d and %d bytes; %v, %v)", at, len(b1), len(b2), err1, err2)
		}
	})
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func finiteVec(v mgl64.Vec3) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }
