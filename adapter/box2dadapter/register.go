package box2dadapter

import (
	"fmt"
	"sync"

	b2 "github.com/ByteArena/box2d"
)

var (
	registerOnce sync.Once
	registerErr  error
	worldsMu     sync.Mutex
	worlds       = map[*b2.B2World]*Adapter{}
)

// register installs irtcd's contact type into box2d's process-wide
// contact table, once. It works around three traps of box2d v1.0.2:
//
//   - B2Shape_Type.E_typeCount sizes the table; it is a variable, raised
//     here to make room for TypeConcave;
//   - the table is built lazily by the first B2ContactFactory call, which
//     would wipe registrations made before it: the lazy build is forced
//     first, then the table is rebuilt at the new size (which also covers
//     a table some world already built at the old size);
//   - AddType(ours, theirs) makes box2d swap fixtures so that the irtcd
//     fixture is always fixture A of a mixed contact.
func register() error {
	registerOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				registerErr = fmt.Errorf("box2dadapter: registering the contact type with box2d: %v", r)
			}
		}()
		if c := b2.B2Shape_Type.E_typeCount; c != TypeConcave {
			registerErr = fmt.Errorf("box2dadapter: box2d has %d shape types, expected %d (another extension?)", c, TypeConcave)
			return
		}
		b2.B2Shape_Type.E_typeCount = TypeConcave + 1
		f := b2.NewB2Fixture()
		f.M_shape = b2.NewB2CircleShape()
		_ = b2.B2ContactFactory(f, 0, f, 0) // forces the lazy build
		b2.B2ContactInitializeRegisters()   // rebuilt with room for TypeConcave
		for t := uint8(0); t <= TypeConcave; t++ {
			b2.AddType(createContact, destroyContact, TypeConcave, t)
		}
	})
	return registerErr
}

// adapterOf returns the adapter installed on the world of fixture f.
func adapterOf(f *b2.B2Fixture) *Adapter {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	return worlds[f.GetBody().GetWorld()]
}
