package cpubackend

import (
	"runtime"
	"sync/atomic"
	"time"
)

// pool is a fixed set of helper goroutines that run the items of a phase
// with the calling goroutine. Items are handed out by an atomic counter,
// so a phase costs no allocation.
//
// A step runs several short phases (validation, decisions, work items,
// merges) with serial passes between them. Waking a parked goroutine
// takes tens of microseconds, as long as a short phase, so a helper woken
// per phase joined it late or not at all: in BenchmarkPool the second of
// two workers ran 4 % of the items, and two workers were slower than one.
// Helpers are therefore woken once per step, by its first phase of more
// than one item (or grow), and spin between its phases, yielding the
// processor as they do, until end; between steps, while the engine runs
// its solver, they are parked, and a step of single-item phases (a few
// pairs) never wakes them. The second worker now runs half of the items,
// and two workers take 0.67× the time of one.
//
// A session need not wake every helper: size is how many a session that a
// phase opens wakes, and grow wakes more within one (see
// Backend.prepHelpers).
type pool struct {
	wake  []chan struct{} // one per helper; a token starts a session
	fn    func(i, w int)
	count int64
	size  int           // helpers that a session opened by run wakes
	want  int           // helpers 1..want were woken for the open session
	next  atomic.Int64  // the next item of the current phase
	gen   atomic.Uint64 // odd while a phase is open to helpers
	busy  atomic.Int32  // helpers that may be reading the phase
	open  atomic.Bool   // a session is open: helpers spin instead of parking
	awake atomic.Int32  // helpers between a wake-up and parking again

	// work is the time (ns) the workers spent on the items of phases of
	// more than one item since it was last reset: what helpers could
	// share. wakeNS is what waking one parked helper cost the caller, as
	// last measured (ns; 0: not yet); see Backend.gated.
	work   atomic.Int64
	wakeNS int64
}

func newPool(workers int) *pool {
	p := &pool{size: workers - 1}
	for w := 1; w < workers; w++ {
		c := make(chan struct{}, 1)
		p.wake = append(p.wake, c)
		go p.loop(c, w)
	}
	return p
}

// spinYield is how many empty polls a spinning goroutine makes between
// two runtime.Gosched calls: enough that a phase opened while it polls is
// joined within a microsecond, few enough that it gives way to the
// goroutines of a process with fewer processors than workers.
const spinYield = 64

// loop is helper w: parked between sessions, polling for phases within
// one.
func (p *pool) loop(c chan struct{}, w int) {
	for range c {
		p.awake.Add(1)
		var done uint64 // the last phase joined
		for polls := 0; ; polls++ {
			g := p.gen.Load()
			if g&1 == 1 && g != done {
				// Announce this helper, then check that the phase is
				// still open: once the caller has closed it and seen busy
				// at 0, it may set up the next one.
				p.busy.Add(1)
				if p.gen.Load() == g {
					p.drain(w)
				}
				p.busy.Add(-1)
				done, polls = g, 0
				continue
			}
			if !p.open.Load() {
				break
			}
			if polls%spinYield == spinYield-1 {
				runtime.Gosched()
			}
		}
		p.awake.Add(-1)
	}
}

func (p *pool) drain(w int) {
	var t0 time.Time
	if p.count > 1 {
		t0 = time.Now()
	}
	for {
		i := p.next.Add(1) - 1
		if i >= p.count {
			break
		}
		p.fn(int(i), w)
	}
	if p.count > 1 {
		p.work.Add(int64(time.Since(t0)))
	}
}

// grow makes sure that helpers 1..n (at most all) are woken for the
// session, which it opens if none is open: the woken helpers stop parking
// until end. A session spans the phases of a step.
func (p *pool) grow(n int) {
	n = min(n, len(p.wake))
	if n <= 0 {
		return
	}
	if !p.open.Load() {
		p.want = 0
		p.open.Store(true)
	}
	old := p.want
	if n <= old {
		return
	}
	p.want = n
	t0 := time.Now()
	for h := old + 1; h <= n; h++ {
		p.signal(h)
	}
	// The caller's cost of a wake-up (a system call, and on a virtual
	// machine an exit to its host): 29 µs on this repository's 2-core
	// virtual machine.
	per := int64(time.Since(t0)) / int64(n-old)
	if p.wakeNS == 0 {
		p.wakeNS = per
	} else {
		p.wakeNS += (per - p.wakeNS) / 4
	}
}

// signal hands helper h (1-based) a token unless one is already waiting.
func (p *pool) signal(h int) {
	select {
	case p.wake[h-1] <- struct{}{}:
	default:
	}
}

// end closes the session: the helpers park once their phase is done.
func (p *pool) end() { p.open.Store(false) }

// run calls fn(i, worker) for i in [0, count) and returns when all are
// done. With more than one item it opens a session of size helpers if
// none is open (see grow): the caller must end it.
func (p *pool) run(count int, fn func(i, w int)) {
	if count > 1 && !p.open.Load() {
		p.grow(p.size)
	}
	p.fn, p.count = fn, int64(count)
	p.next.Store(0)
	p.gen.Add(1) // open
	p.drain(0)
	p.gen.Add(1) // closed: no helper joins any more
	for polls := 0; p.busy.Load() != 0; polls++ {
		if polls%spinYield == spinYield-1 {
			runtime.Gosched()
		}
	}
	p.fn = nil
}

func (p *pool) close() {
	p.end()
	for _, c := range p.wake {
		close(c)
	}
	p.wake = nil
}
