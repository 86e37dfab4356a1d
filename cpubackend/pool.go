package cpubackend

import (
	"sync"
	"sync/atomic"
)

// pool is a fixed set of goroutines that run the items of one phase. The
// calling goroutine works too; items are handed out by an atomic counter, so
// a phase costs no allocation.
type pool struct {
	start []chan struct{}
	wg    sync.WaitGroup
	next  atomic.Int64
	count int64
	fn    func(i, w int)
}

func newPool(workers int) *pool {
	p := &pool{}
	for w := 1; w < workers; w++ {
		c := make(chan struct{})
		p.start = append(p.start, c)
		go p.loop(c, w)
	}
	return p
}

func (p *pool) loop(c chan struct{}, w int) {
	for range c {
		p.drain(w)
		p.wg.Done()
	}
}

func (p *pool) drain(w int) {
	for {
		i := p.next.Add(1) - 1
		if i >= p.count {
			return
		}
		p.fn(int(i), w)
	}
}

// run calls fn(i, worker) for i in [0, count) and returns when all are done.
func (p *pool) run(count int, fn func(i, w int)) {
	p.fn, p.count = fn, int64(count)
	p.next.Store(0)
	helpers := min(len(p.start), count-1)
	if helpers > 0 {
		p.wg.Add(helpers)
		for _, c := range p.start[:helpers] {
			c <- struct{}{}
		}
	}
	p.drain(0)
	p.wg.Wait()
	p.fn = nil
}

func (p *pool) close() {
	for _, c := range p.start {
		close(c)
	}
	p.start = nil
}
