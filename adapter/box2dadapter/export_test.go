package box2dadapter

import "fmt"

// CheckContacts reports an error unless the adapter's own contact list
// (contactList) holds exactly the world list's contacts that the adapter
// holds, in the same order, linked both ways.
func (a *Adapter) CheckContacts() error {
	var want []*contact
	for ci := a.world.M_contactManager.M_contactList; ci != nil; ci = ci.GetNext() {
		if c, ok := ci.(*contact); ok && c.g != nil {
			if c.ad != a {
				return fmt.Errorf("a contact of group %d belongs to another adapter", c.g.id)
			}
			want = append(want, c)
		}
	}
	var prev *contact
	k := 0
	for c := a.contacts.head; c != nil; c = c.next {
		if c.prev != prev || !c.listed {
			return fmt.Errorf("own list: broken back link at %d", k)
		}
		if k >= len(want) || want[k] != c {
			return fmt.Errorf("own list: contact %d differs from the world list's (%d of the adapter's there)", k, len(want))
		}
		prev = c
		k++
	}
	if k != len(want) || a.contacts.tail != prev {
		return fmt.Errorf("own list holds %d contacts, the world list %d of the adapter's (or its tail is wrong)", k, len(want))
	}
	return nil
}
