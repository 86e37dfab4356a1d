package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

// Tints the scenes give their bodies (see Renderer).
const (
	tintStatic Tint = iota // ground, walls, containers
	tintGear
	tintStar
	tintBlob
	tintBox
	tintBall
	tintCup
)

// rng returns the scene's deterministic random source.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x1a2b3c4d5e6f7081)) }

// newBody creates a body of the given type (b2.B2BodyType.*) and tint.
func newBody(w *b2.B2World, typ uint8, x, y, angle float64, tint Tint) *b2.B2Body {
	def := b2.MakeB2BodyDef()
	def.Type = typ
	def.Position.Set(x, y)
	def.Angle = angle
	b := w.CreateBody(&def)
	b.SetUserData(tint)
	return b
}

// addFixture gives b a native box2d fixture of shape s, with the scenes'
// friction (0.4) and the default collision filter.
func addFixture(b *b2.B2Body, s b2.B2ShapeInterface, density float64) {
	def := b2.MakeB2FixtureDef()
	def.Shape = s
	def.Density = density
	def.Friction = 0.4
	def.Filter = b2.MakeB2Filter()
	b.CreateFixtureFromDef(&def)
}

// addBox gives b a native box2d box fixture of half extents hx, hy centred
// at (cx, cy) in body coordinates.
func addBox(b *b2.B2Body, hx, hy, cx, cy, density float64) {
	s := b2.MakeB2PolygonShape()
	s.SetAsBoxFromCenterAndAngle(hx, hy, b2.B2Vec2{X: cx, Y: cy}, 0)
	addFixture(b, &s, density)
}

// addCircle gives b a native box2d circle fixture of radius r.
func addCircle(b *b2.B2Body, r, density float64) {
	s := b2.MakeB2CircleShape()
	s.M_radius = r
	addFixture(b, &s, density)
}

// addOutline gives b an irtcd concave polygon fixture, or, with convex,
// what box2d users build without irtcd (Params2D.Convex): a static body
// gets a chain loop of the outline (box2d's terrain), any other box2d's
// own polygon fixtures, one per piece of ConvexPieces.
func addOutline(b *b2.B2Body, outline []b2.B2Vec2, density float64, convex bool) error {
	if convex && b.GetType() == b2.B2BodyType.B2_staticBody {
		if err := checkSimple(outline); err != nil {
			return err
		}
		s := b2.MakeB2ChainShape()
		s.CreateLoop(outline, len(outline))
		addFixture(b, &s, 0)
		return nil
	}
	if convex {
		pieces, err := ConvexPieces(outline)
		if err != nil {
			return err
		}
		for _, pc := range pieces {
			s := b2.MakeB2PolygonShape()
			s.Set(pc, len(pc))
			addFixture(b, &s, density)
		}
		return nil
	}
	s, err := box2dadapter.NewShape(outline)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	f := box2dadapter.AddPolygon(b, s, density)
	f.SetFriction(0.4)
	return nil
}

// addGround adds a static native box whose top is at y = 0, of half
// width hw, and, when wallH > 0, walls of that height at x = ±hw.
func addGround(w *b2.B2World, hw, wallH float64) {
	g := newBody(w, b2.B2BodyType.B2_staticBody, 0, 0, 0, tintStatic)
	addBox(g, hw+0.5, 0.5, 0, -0.5, 0)
	if wallH > 0 {
		addBox(g, 0.25, wallH/2, -hw-0.25, wallH/2, 0)
		addBox(g, 0.25, wallH/2, hw+0.25, wallH/2, 0)
	}
}

// randomObject returns the outline and tint of a random concave object of
// ObjectVertices vertices and largest radius r: a gear, a star or a blob.
func randomObject(rg *rand.Rand, r float64) ([]b2.B2Vec2, Tint) {
	switch rg.IntN(3) {
	case 0:
		return Gear(ObjectVertices/4, r), tintGear
	case 1:
		return Star(5+rg.IntN(4), ObjectVertices, r), tintStar
	default:
		return Blob(rg, ObjectVertices, r), tintBlob
	}
}

// Avalanche is N concave objects of 448 vertices (gears, stars, blobs of
// radius 0.5-0.9) dropped in a grid onto a walled static ground: the
// many-pairs stress scene.
func Avalanche() Scene2D {
	return Scene2D{
		Name:         "avalanche",
		Doc:          "concave gears, stars and blobs of 448 vertices falling onto the ground",
		DefaultN:     200,
		DefaultSteps: 480,
		StepsFor:     func(n int) int { return 180 + 20*int(math.Sqrt(float64(n))) },
		Build:        buildAvalanche,
	}
}

// avalancheCell is the spacing of the avalanche's drop grid.
const avalancheCell = 2.0

func buildAvalanche(w *b2.B2World, p Params2D) (*Setup2D, error) {
	rg := rng(p.Seed)
	cols := min(20, max(1, int(math.Ceil(math.Sqrt(2*float64(p.N))))))
	rows := (p.N + cols - 1) / cols
	hw := float64(cols) * avalancheCell / 2
	top := 1 + float64(rows)*avalancheCell
	addGround(w, hw, top)
	s := &Setup2D{
		View: Rect{MinX: -hw - 1, MinY: -1, MaxX: hw + 1, MaxY: top + 0.5},
	}
	for i := range p.N {
		c, r := i%cols, i/cols
		x := -hw + avalancheCell*(float64(c)+0.5) + 0.1*(rg.Float64()-0.5)
		y := 1 + avalancheCell*(float64(r)+0.5)
		outline, tint := randomObject(rg, 0.5+0.4*rg.Float64())
		b := newBody(w, b2.B2BodyType.B2_dynamicBody, x, y, 2*math.Pi*rg.Float64(), tint)
		if err := addOutline(b, outline, 1, p.Convex); err != nil {
			return nil, fmt.Errorf("avalanche object %d: %w", i, err)
		}
		s.Bodies = append(s.Bodies, b)
	}
	return s, nil
}

// Spawner is a source circling above a static concave valley (an irtcd
// polygon of 200 vertices) that releases an object every 0.1 s (10 Hz),
// up to N: mostly 448-vertex concave objects, some native box2d circles
// and boxes.
func Spawner() Scene2D {
	return Scene2D{
		Name:         "spawner",
		Doc:          "objects released at 10 Hz from a source circling above a concave valley",
		DefaultN:     60,
		DefaultSteps: 60*6 + 180,
		StepsFor:     func(n int) int { return n*spawnEvery + 180 },
		Build:        buildSpawner,
	}
}

// The spawner's geometry: the valley's half width and height, the
// source's circle and angular speed, the release speed (radial, outwards).
const (
	spawnEvery     = 6 // steps of 1/60 s between releases (10 Hz)
	valleyHalf     = 14.0
	valleyHeight   = 7.0
	sourceY        = 11.0
	sourceRadius   = 4.0
	sourceOmega    = 3.0 // rad/s: 1.2 m of arc between releases
	releaseOutward = 2.5 // m/s
)

func buildSpawner(w *b2.B2World, p Params2D) (*Setup2D, error) {
	rg := rng(p.Seed)
	valley := newBody(w, b2.B2BodyType.B2_staticBody, 0, 0, 0, tintStatic)
	if err := addOutline(valley, ValleyOutline(valleyHalf, valleyHeight, 1, 200), 0, p.Convex); err != nil {
		return nil, fmt.Errorf("spawner valley: %w", err)
	}
	s := &Setup2D{View: Rect{MinX: -valleyHalf - 1, MinY: -1.5, MaxX: valleyHalf + 1, MaxY: sourceY + sourceRadius + 1.5}}
	s.BeforeStep = func(step int, t float64) error {
		if len(s.Bodies) >= p.N || step%spawnEvery != 0 {
			return nil
		}
		a := sourceOmega * t
		dx, dy := math.Cos(a), math.Sin(a)
		x, y := sourceRadius*dx, sourceY+sourceRadius*dy
		b := newBody(w, b2.B2BodyType.B2_dynamicBody, x, y, 2*math.Pi*rg.Float64(), 0)
		b.SetLinearVelocity(b2.B2Vec2{X: releaseOutward * dx, Y: releaseOutward * dy})
		r := 0.35 + 0.25*rg.Float64()
		switch k := rg.IntN(10); {
		case k < 7:
			outline, tint := randomObject(rg, r)
			b.SetUserData(tint)
			if err := addOutline(b, outline, 1, p.Convex); err != nil {
				return fmt.Errorf("spawner object %d: %w", len(s.Bodies), err)
			}
		case k < 9:
			b.SetUserData(tintBall)
			addCircle(b, 0.8*r, 1)
		default:
			b.SetUserData(tintBox)
			addBox(b, 0.7*r, 0.7*r, 0, 0, 1)
		}
		s.Bodies = append(s.Bodies, b)
		return nil
	}
	return s, nil
}

// Stack is N unit boxes (irtcd 4-vertex polygons, default 10) stacked on
// a native ground: the resting-contact stability scene.
func Stack() Scene2D {
	return Scene2D{
		Name:         "stack",
		Doc:          "a stack of unit boxes made of irtcd 4-vertex polygons",
		DefaultN:     10,
		DefaultSteps: 600,
		Build:        buildStack,
	}
}

// stackBox is the side of the stack's boxes.
const stackBox = 1.0

func buildStack(w *b2.B2World, p Params2D) (*Setup2D, error) {
	addGround(w, 8, 0)
	h := float64(p.N) * stackBox
	s := &Setup2D{View: Rect{MinX: -0.9*h/2 - 3, MinY: -1, MaxX: 0.9*h/2 + 3, MaxY: h + 1}}
	for i := range p.N {
		b := newBody(w, b2.B2BodyType.B2_dynamicBody, 0, stackBox*(float64(i)+0.5), 0, tintBox)
		if err := addOutline(b, Box(stackBox, stackBox), 1, p.Convex); err != nil {
			return nil, fmt.Errorf("stack box %d: %w", i, err)
		}
		s.Bodies = append(s.Bodies, b)
	}
	return s, nil
}

// Cup is a dynamic concave cup (an irtcd polygon of 204 vertices with a
// quartic bowl) standing on the ground and catching N native box2d balls
// dropped into it.
func Cup() Scene2D {
	return Scene2D{
		Name:         "cup",
		Doc:          "native box2d balls dropped into a dynamic concave cup",
		DefaultN:     12,
		DefaultSteps: 480,
		Build:        buildCup,
	}
}

// The cup's geometry (see CupOutline) and its balls' radii.
const (
	cupHalf      = 1.5
	cupHeight    = 1.6
	cupThickness = 0.2
	ballMinR     = 0.15
	ballMaxR     = 0.2
)

func buildCup(w *b2.B2World, p Params2D) (*Setup2D, error) {
	rg := rng(p.Seed)
	addGround(w, 4, 0)
	s := &Setup2D{}
	cup := newBody(w, b2.B2BodyType.B2_dynamicBody, 0, 0, 0, tintCup)
	if err := addOutline(cup, CupOutline(cupHalf, cupHeight, cupThickness, 200), 1, p.Convex); err != nil {
		return nil, fmt.Errorf("cup: %w", err)
	}
	s.Bodies = append(s.Bodies, cup)
	const cols = 3
	top := 0.0
	for i := range p.N {
		c, r := i%cols, i/cols
		x := 0.5*float64(c-1) + 0.1*(rg.Float64()-0.5)
		y := cupHeight + 0.6 + 0.5*float64(r)
		ball := newBody(w, b2.B2BodyType.B2_dynamicBody, x, y, 0, tintBall)
		ball.SetLinearDamping(0.2)
		ball.SetAngularDamping(0.5)
		addCircle(ball, ballMinR+(ballMaxR-ballMinR)*rg.Float64(), 1)
		s.Bodies = append(s.Bodies, ball)
		top = max(top, y)
	}
	s.View = Rect{MinX: -4, MinY: -0.5, MaxX: 4, MaxY: max(top, cupHeight) + 0.5}
	return s, nil
}
