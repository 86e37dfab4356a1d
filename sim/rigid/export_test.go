package rigid

import "reflect"

// SameWorldState reports whether two saved states hold the same world:
// every field of their bodies, sweep order, overlaps, touching pairs,
// events, solver points, impulses and statistics. Their narrow phases'
// states are not compared.
func SameWorldState(a, b *State) bool { return reflect.DeepEqual(a.persisted, b.persisted) }
