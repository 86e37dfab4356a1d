package rigid

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/binenc"
	"github.com/irtcd/irtcd/narrow"
)

// worldMagic opens the binary form of a State: "irtcdws" and the format's
// version.
var worldMagic = []byte("irtcdws\x01")

// The binary form of a State (State.AppendEncoded, State.Decode), little
// endian and fixed width: the header; the step count (u64); the bodies
// (u32 count, then per body its name (u32 length and bytes), its shape's
// index in the caller's list (i32), eight flags (u8), and its float64
// fields: pose (position, quaternion w, x, y, z), centre of mass, local
// centre of mass, rotation matrix, velocities, mass and inverse mass,
// inertia and its inverse, friction, restitution, the solver's effective
// inverse mass and inertia and pseudo-velocities, then its group (u32),
// still time (f64), island (i32), box (f64 × 6) and reach (f64)); the
// sweep-and-prune order (i32 each); the sensor overlaps (u64 each) and
// events (i32, i32, u8); the retest flag (u8); the touching pairs (u64
// each) and contact events (i32, i32, u8); the solver points and the
// warm-starting impulses (their keys and float64 fields); and the narrow
// phase's state (u32 length, then cpubackend.State's binary form).
// Stats are not encoded.
const (
	bodyBytes    = 4 + 4 + 1 + (7+3+3+9+6+2+18+2+1+9+6)*8 + 4 + 8 + 4 + 6*8 + 8
	keyBytes     = 8 + 1 + 4 + 4
	contactBytes = 4 + 4 + keyBytes + 3*8 + 8 + 5*9*8 + 8 + 3*8 + 8 + 8 + 4*8
	warmBytes    = keyBytes + 8 + 3*8
	eventBytes   = 4 + 4 + 1
)

// Body flags in the binary form.
const (
	bodyStatic = 1 << iota
	bodyKinematic
	bodySensor
	bodyMoved
	bodyPlaced
	bodyRemoved
	bodySleeping
	bodyWoken
)

func appendVec(b []byte, v mgl64.Vec3) []byte { return binenc.AppendF64s(b, v[:]...) }
func appendV3(b []byte, v v3) []byte          { return binenc.AppendF64s(b, v.x, v.y, v.z) }

func readVec(r *binenc.Reader) (v mgl64.Vec3) {
	r.F64s(v[:])
	return v
}

func readV3(r *binenc.Reader) v3 { return v3{r.F64(), r.F64(), r.F64()} }

func appendKey(b []byte, k *pointKey) []byte {
	b = binenc.AppendU64(b, k.pair)
	b = append(b, k.side)
	b = binenc.AppendI32(b, k.vertex)
	return binenc.AppendI32(b, k.prim)
}

func readKey(r *binenc.Reader) pointKey {
	return pointKey{pair: r.U64(), side: r.U8(), vertex: r.I32(), prim: r.I32()}
}

// AppendEncoded appends the state's binary form to b, for a late-joining
// peer or a saved game: what RestoreState needs, the narrow phase's state
// included (cpubackend.State's binary form), but not the shapes, which
// each body names by its index in shapes. Every shape of the saved bodies
// must be in shapes; the side that decodes passes its own list of the
// same shapes in the same order. It fails with ErrNoState for a State
// that SaveState did not fill.
func (s *State) AppendEncoded(b []byte, shapes []*narrow.Shape) ([]byte, error) {
	if !s.saved {
		return b, fmt.Errorf("rigid: encode state: %w: the State was not filled by SaveState", ErrNoState)
	}
	b = append(b, worldMagic...)
	b = binenc.AppendU64(b, uint64(s.steps))
	b = binenc.AppendU32(b, uint32(len(s.bodies)))
	for i := range s.bodies {
		o := &s.bodies[i]
		k := slices.Index(shapes, o.shape)
		if k < 0 {
			return b, fmt.Errorf("rigid: encode state: body %d (%q): its shape is not in the list of %d shapes", i, o.name, len(shapes))
		}
		b = binenc.AppendU32(b, uint32(len(o.name)))
		b = append(b, o.name...)
		b = binenc.AppendI32(b, int32(k))
		var f byte
		for bit, on := range []bool{o.static, o.kinematic, o.sensor, o.moved, o.placed, o.removed, o.sleeping, o.woken} {
			if on {
				f |= 1 << bit
			}
		}
		b = append(b, f)
		b = appendVec(b, o.pose.Pos)
		b = binenc.AppendF64s(b, o.pose.Rot.W, o.pose.Rot.V[0], o.pose.Rot.V[1], o.pose.Rot.V[2])
		b = appendVec(b, o.com)
		b = appendVec(b, o.localCOM)
		b = binenc.AppendF64s(b, o.rot[:]...)
		b = appendVec(b, o.v)
		b = appendVec(b, o.w)
		b = binenc.AppendF64s(b, o.mass, o.invMass)
		b = binenc.AppendF64s(b, o.inertia[:]...)
		b = binenc.AppendF64s(b, o.invInertia[:]...)
		b = binenc.AppendF64s(b, o.friction, o.restitution, o.im)
		b = binenc.AppendF64s(b, o.iiw[:]...)
		b = appendVec(b, o.vp)
		b = appendVec(b, o.wp)
		b = binenc.AppendU32(b, o.group)
		b = binenc.AppendF64(b, o.stillTime)
		b = binenc.AppendI32(b, o.island)
		b = appendVec(b, o.aabb.Min)
		b = appendVec(b, o.aabb.Max)
		b = binenc.AppendF64(b, o.reach)
	}
	b = binenc.AppendU32(b, uint32(len(s.sapOrder)))
	for _, i := range s.sapOrder {
		b = binenc.AppendI32(b, i)
	}
	appendKeys := func(b []byte, ks []uint64) []byte {
		b = binenc.AppendU32(b, uint32(len(ks)))
		for _, k := range ks {
			b = binenc.AppendU64(b, k)
		}
		return b
	}
	b = appendKeys(b, s.overlaps)
	b = binenc.AppendU32(b, uint32(len(s.events)))
	for _, e := range s.events {
		b = binenc.AppendBool(binenc.AppendI32(binenc.AppendI32(b, int32(e.Sensor)), int32(e.Body)), e.Begin)
	}
	b = binenc.AppendBool(b, s.retestSensors)
	b = appendKeys(b, s.touching)
	b = binenc.AppendU32(b, uint32(len(s.contactEvents)))
	for _, e := range s.contactEvents {
		b = binenc.AppendBool(binenc.AppendI32(binenc.AppendI32(b, int32(e.A)), int32(e.B)), e.Begin)
	}
	b = binenc.AppendU32(b, uint32(len(s.contacts)))
	for i := range s.contacts {
		c := &s.contacts[i]
		b = binenc.AppendI32(binenc.AppendI32(b, c.a), c.b)
		b = appendKey(b, &c.key)
		b = appendVec(b, c.p)
		b = binenc.AppendF64(b, c.depth)
		for _, vs := range []*[3]v3{&c.d, &c.ra, &c.rb, &c.ia, &c.ib} {
			for _, v := range vs {
				b = appendV3(b, v)
			}
		}
		b = binenc.AppendF64(b, c.mu)
		b = binenc.AppendF64s(b, c.m[:]...)
		b = binenc.AppendF64s(b, c.bounce, c.bias, c.ln, c.lt1, c.lt2, c.lp)
	}
	b = binenc.AppendU32(b, uint32(len(s.warm)))
	for i := range s.warm {
		h := &s.warm[i]
		b = appendKey(b, &h.key)
		b = binenc.AppendF64(b, h.ln)
		b = appendVec(b, h.lt)
	}
	be, err := s.backend.MarshalBinary()
	if err != nil {
		return b, fmt.Errorf("rigid: encode state: %w", err)
	}
	b = binenc.AppendU32(b, uint32(len(be)))
	return append(b, be...), nil
}

// Decode replaces s with the state data encodes (AppendEncoded), each
// body taking the shape at its index in shapes: the same shapes, in the
// same order, as the encoding side's list. Malformed data (truncated, a
// shape index out of the list or not a 3D mesh, a body index out of
// range, a sleeping body without an island or an awake one with one, an
// island, order or overlap that names no body, a narrow-phase
// state the backend's decoder refuses) gives an error wrapping
// narrow.ErrBadState that names the byte, and leaves s unusable for
// RestoreState until a successful SaveState or Decode. Stats are not
// encoded: a restored world reports zero statistics until its next step.
func (s *State) Decode(data []byte, shapes []*narrow.Shape) error {
	s.saved = false
	if len(data) < len(worldMagic) || string(data[:len(worldMagic)]) != string(worldMagic) {
		return fmt.Errorf("rigid: decode state: %w: not an irtcd world state (header)", narrow.ErrBadState)
	}
	r := binenc.NewReader(data, narrow.ErrBadState)
	r.Bytes(len(worldMagic))
	var p persisted
	if err := p.decode(r, shapes); err != nil {
		return fmt.Errorf("rigid: decode state: %w", err)
	}
	at := r.Offset()
	be := r.Bytes(r.Count(1, "bytes of narrow-phase state"))
	if err := r.End(); err != nil {
		return fmt.Errorf("rigid: decode state: %w", err)
	}
	if err := s.backend.UnmarshalBinary(be); err != nil {
		return fmt.Errorf("rigid: decode state: the narrow phase's state, from byte %d: %w", at+4, err)
	}
	p.stats = StepStats{}
	s.persisted.copyFrom(&p)
	s.saved = true
	return nil
}

// decode reads the world's part of a State's binary form and checks it.
func (p *persisted) decode(r *binenc.Reader, shapes []*narrow.Shape) error {
	p.steps = int(int64(r.U64()))
	n := r.Count(bodyBytes, "bodies")
	for i := range n {
		at := r.Offset()
		var o Body
		o.name = string(r.Bytes(r.Count(1, "bytes of name")))
		k := r.I32()
		f := r.U8()
		o.static, o.kinematic, o.sensor, o.moved = f&bodyStatic != 0, f&bodyKinematic != 0, f&bodySensor != 0, f&bodyMoved != 0
		o.placed, o.removed, o.sleeping, o.woken = f&bodyPlaced != 0, f&bodyRemoved != 0, f&bodySleeping != 0, f&bodyWoken != 0
		o.pose.Pos = readVec(r)
		o.pose.Rot = mgl64.Quat{W: r.F64(), V: readVec(r)}
		o.com, o.localCOM = readVec(r), readVec(r)
		r.F64s(o.rot[:])
		o.v, o.w = readVec(r), readVec(r)
		o.mass, o.invMass = r.F64(), r.F64()
		r.F64s(o.inertia[:])
		r.F64s(o.invInertia[:])
		o.friction, o.restitution, o.im = r.F64(), r.F64(), r.F64()
		r.F64s(o.iiw[:])
		o.vp, o.wp = readVec(r), readVec(r)
		o.group = r.U32()
		o.stillTime = r.F64()
		o.island = r.I32()
		o.aabb.Min, o.aabb.Max = readVec(r), readVec(r)
		o.reach = r.F64()
		switch {
		case r.Err() != nil:
		case k < 0 || int(k) >= len(shapes) || shapes[k] == nil:
			r.Failf(at, "body %d: shape %d of a list of %d", i, k, len(shapes))
		case shapes[k].Dim() != narrow.Dim3:
			r.Failf(at, "body %d: shape %d is not a 3D mesh", i, k)
		case o.sleeping && (o.island < 0 || int(o.island) >= n) || !o.sleeping && o.island != -1:
			r.Failf(at, "body %d: island %d (asleep: %v) of %d bodies", i, o.island, o.sleeping, n)
		}
		if r.Err() != nil {
			return r.Err()
		}
		o.shape = shapes[k]
		p.bodies = append(p.bodies, o)
	}
	in := make([]bool, n)
	live := 0
	for i := range p.bodies {
		if !p.bodies[i].removed {
			live++
		}
	}
	at := r.Offset()
	for range r.Count(4, "bodies in the sweep order") {
		i := r.I32()
		if r.Err() == nil && (i < 0 || int(i) >= n || in[i] || p.bodies[i].removed) {
			r.Failf(at, "the sweep order names body %d (of %d) twice, removed or out of range", i, n)
		}
		if r.Err() != nil {
			return r.Err()
		}
		in[i] = true
		p.sapOrder = append(p.sapOrder, i)
	}
	if len(p.sapOrder) != live {
		r.Failf(at, "the sweep order has %d bodies, not the %d present", len(p.sapOrder), live)
		return r.Err()
	}
	readKeys := func(what string) []uint64 {
		var ks []uint64
		at := r.Offset()
		for range r.Count(8, what) {
			k := r.U64()
			if r.Err() == nil && (k>>32 >= uint64(n) || uint32(k) >= uint32(n)) {
				r.Failf(at, "%s: pair %#x names a body beyond the %d", what, k, n)
			}
			ks = append(ks, k)
		}
		return ks
	}
	p.overlaps = readKeys("sensor overlaps")
	for range r.Count(eventBytes, "sensor events") {
		p.events = append(p.events, SensorEvent{Sensor: BodyID(r.I32()), Body: BodyID(r.I32()), Begin: r.Bool("a sensor event's begin flag")})
	}
	p.retestSensors = r.Bool("the retest flag")
	p.touching = readKeys("touching pairs")
	for range r.Count(eventBytes, "contact events") {
		p.contactEvents = append(p.contactEvents, ContactEvent{A: BodyID(r.I32()), B: BodyID(r.I32()), Begin: r.Bool("a contact event's begin flag")})
	}
	at = r.Offset()
	for range r.Count(contactBytes, "solver points") {
		var c contact
		c.a, c.b = r.I32(), r.I32()
		c.key = readKey(r)
		c.p = readVec(r)
		c.depth = r.F64()
		for _, vs := range []*[3]v3{&c.d, &c.ra, &c.rb, &c.ia, &c.ib} {
			for j := range vs {
				vs[j] = readV3(r)
			}
		}
		c.mu = r.F64()
		r.F64s(c.m[:])
		c.bounce, c.bias, c.ln, c.lt1, c.lt2, c.lp = r.F64(), r.F64(), r.F64(), r.F64(), r.F64(), r.F64()
		if r.Err() == nil && (c.a < 0 || int(c.a) >= n || c.b < 0 || int(c.b) >= n) {
			r.Failf(at, "a solver point between bodies %d and %d of %d", c.a, c.b, n)
		}
		p.contacts = append(p.contacts, c)
	}
	for range r.Count(warmBytes, "warm-starting impulses") {
		p.warm = append(p.warm, warmImpulse{key: readKey(r), ln: r.F64(), lt: readVec(r)})
	}
	return r.Err()
}
