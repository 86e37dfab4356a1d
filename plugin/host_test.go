package plugin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// lockstep runs a scene on a plugin host and on an in-process reference,
// comparing every step bit for bit. At the steps in fresh, the reference is
// replaced by a fresh backend first: the plugin is expected to restart (or
// fall back) there, and a restarted backend has no temporal state.
func lockstep(t *testing.T, h *Host, p narrow.Params, sc *scene, fresh map[int]bool, before func(step int)) narrow.Stats {
	t.Helper()
	ref := newCPU(t, p, sc.shapes)
	var got, want narrow.Result
	var total narrow.Stats
	for s, pairs := range sc.steps {
		if before != nil {
			before(s)
		}
		if fresh[s] {
			ref = newCPU(t, p, sc.shapes)
		}
		detect(t, h, pairs, &got)
		detect(t, ref, pairs, &want)
		if d := diffResults(&got, &want); d != "" {
			t.Fatalf("step %d: %s", s, d)
		}
		total.Add(&got.Stats)
	}
	return total
}

// TestPluginMatchesInProcess: through the real plugin binary, every step's
// contacts, manifolds, stats and per-pair errors are bit-identical to the
// in-process CPU backend's, for meshes and polygons at moving poses, with
// the host's parameters in force in the plugin.
func TestPluginMatchesInProcess(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    narrow.Params
	}{
		{"predictive", narrow.Params{}},
		{"predictive-speculative", narrow.Params{Speculative: true}},
		{"iterative-hermann", narrow.Params{Method: narrow.MethodIterative, Confidence: 3, Reach: -1}},
		{"predictive-boxes", narrow.Params{Culling: narrow.CullBoxes}},
		{"iterative-edges", narrow.Params{Method: narrow.MethodIterative, EdgeAngle: math.Pi / 6}},
		{"standard-basic-ray", narrow.Params{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic, Response: narrow.ResponseRay, ManifoldSize: 3}},
	} {
		for _, tr := range transports {
			t.Run(tc.name+"/"+tr.name, func(t *testing.T) {
				nSteps := 16
				if tc.p.Traversal == narrow.TraversalBasic {
					nSteps = 5
				}
				sc := newScene(t, 1, 12, nSteps)
				h := newHost(t, pluginBin, tc.p, sc.shapes, tr.opts...)
				st := lockstep(t, h, tc.p, sc, nil, nil)
				checkTransport(t, h, tr, nSteps)
				t.Logf("%+v", st)
				if st.Contacts == 0 || st.FailedPairs != 6*nSteps {
					t.Errorf("weak scene: %d contacts, %d failed pairs", st.Contacts, st.FailedPairs)
				}
				if tc.p.Method != narrow.MethodStandard && (st.IterativePairs == 0 || st.IterativeRays == 0) {
					t.Errorf("no iterative steps: %+v", st)
				}
				if tc.p.Method == narrow.MethodPredictive && st.Predictions == 0 {
					t.Errorf("no predictions: %+v", st)
				}
				if (tc.p.EdgeAngle > 0) != (st.EdgeContacts > 0) {
					t.Errorf("edge angle %v: %d edge contacts", tc.p.EdgeAngle, st.EdgeContacts)
				}
				if tc.p.Speculative != (st.Speculative > 0) {
					t.Errorf("speculative %v: %d speculative contacts", tc.p.Speculative, st.Speculative)
				}
				if h.Restarts() != 0 || h.FellBack() {
					t.Errorf("%d restarts, fell back %v", h.Restarts(), h.FellBack())
				}
			})
		}
	}
}

// transport is one way the host runs steps.
type transport struct {
	name       string
	opts       []Option
	shm, rings bool // through the shared region; rung through its doorbell
}

// transports: rung through the region (the default), DetectShared calls,
// and plain gRPC messages.
var transports = []transport{
	{name: "ring", shm: true, rings: true},
	{name: "shm", opts: []Option{withoutRing()}, shm: true},
	{name: "grpc", opts: []Option{WithSharedMemory(false)}},
}

// checkTransport checks that the host's steps (those that succeeded) went
// through the shared region, and were rung, exactly when tr says so and
// the system supports it.
func checkTransport(t *testing.T, h *Host, tr transport, steps int) {
	t.Helper()
	h.mu.Lock()
	n, rung := h.shmSteps, h.ringSteps
	h.mu.Unlock()
	want, wantRung := 0, 0
	if tr.shm && sharedSupported {
		want = steps
		if tr.rings && ringSupported {
			wantRung = steps
		}
	}
	if n != want || rung != wantRung {
		t.Errorf("%d of %d steps through shared memory, %d rung; want %d and %d", n, steps, rung, want, wantRung)
	}
}

// TestPluginSharedRegionTooSmall: a shared region too small for the
// responses (or even the requests) makes the plugin answer inline and the
// host grow the region; results stay bit-identical, with restarts too (a
// restarted plugin gets a region of its own).
func TestPluginSharedRegionTooSmall(t *testing.T) {
	if !sharedSupported {
		t.Skip("no shared memory on this system")
	}
	sc := newScene(t, 3, 40, 12)
	h := newHost(t, pluginBin, narrow.Params{}, sc.shapes, withRegionSize(regionHeader))
	h.mu.Lock()
	r := h.proc.shm
	h.mu.Unlock()
	if r == nil || r.path != "" || len(r.mem) != regionHeader {
		t.Fatalf("shared region %+v: want a mapped region whose file is gone", r)
	}
	defer func() {
		h.mu.Lock()
		last := h.proc.shm
		h.mu.Unlock()
		h.Close()
		if r.mem != nil || last == nil || last.mem != nil || last.path != "" {
			t.Error("a shared region is left mapped or linked")
		}
	}()
	fresh := map[int]bool{6: true}
	lockstep(t, h, narrow.Params{}, sc, fresh, func(step int) {
		h.mu.Lock()
		h.cfg.responseRoom = 0
		if step%3 == 1 {
			h.cfg.responseRoom = 16 // no response fits: inline
		}
		h.mu.Unlock()
		if step == 6 {
			// A restart: the new process maps a region of its own.
			killPlugin(t, h)
		}
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	t.Logf("%d shared steps, %d inline, %d regions grown, region %d bytes", h.shmSteps, h.shmInline, h.shmGrows, h.regionSize)
	if h.shmInline == 0 || h.shmGrows == 0 || h.shmSteps != len(sc.steps) {
		t.Errorf("%d shared steps, %d inline, %d regions grown: want every step shared, some inline, a growth", h.shmSteps, h.shmInline, h.shmGrows)
	}
	if ringSupported && h.ringSteps != h.shmSteps {
		t.Errorf("%d of %d shared steps rung: want all (inline responses taken with TakeShared)", h.ringSteps, h.shmSteps)
	}
	if h.restarts.Load() != 1 || h.fallback != nil {
		t.Errorf("%d restarts, fell back %v", h.restarts.Load(), h.fallback != nil)
	}
}

// waitExited waits until the host has seen its plugin process exit.
func waitExited(t *testing.T, h *Host) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !h.exited() {
		if time.Now().After(deadline) {
			t.Fatal("the plugin process did not exit")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func killPlugin(t *testing.T, h *Host) int {
	t.Helper()
	pid := h.PID()
	if pid <= 0 {
		t.Fatalf("PID() = %d", pid)
	}
	pr, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExited(t, h)
	return pid
}

// checkRestarted checks that the host restarted its plugin once, and logged
// why.
func checkRestarted(t *testing.T, h *Host, oldPID int, logs *syncBuffer) {
	t.Helper()
	if h.Restarts() != 1 || h.FellBack() {
		t.Errorf("%d restarts, fell back %v; want 1 restart", h.Restarts(), h.FellBack())
	}
	if pid := h.PID(); pid == 0 || pid == oldPID {
		t.Errorf("PID %d after restart (was %d)", pid, oldPID)
	}
	if !strings.Contains(logs.String(), "restarting the plugin") {
		t.Errorf("no warning logged:\n%s", logs)
	}
}

// TestPluginKilled: the plugin process is killed by its PID between two
// steps; the next step restarts it, registers the shapes again and
// completes, and every later step equals a fresh in-process backend's.
func TestPluginKilled(t *testing.T) {
	const killAt = 6
	p := narrow.Params{}
	sc := newScene(t, 2, 10, 12)
	logger, logs := testLogger(slog.LevelWarn)
	h := newHost(t, pluginBin, p, sc.shapes, WithLogger(logger))
	oldPID := 0
	lockstep(t, h, p, sc, map[int]bool{killAt: true}, func(s int) {
		if s == killAt {
			oldPID = killPlugin(t, h)
		}
	})
	checkRestarted(t, h, oldPID, logs)
}

// TestPluginDiesMidStep: the plugin exits in the middle of a step (test-only
// fault of cmd/irtcd-plugin); the step is retried on a new process.
func TestPluginDiesMidStep(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			const failAt = 5
			p := narrow.Params{}
			sc := newScene(t, 3, 10, 10)
			logger, logs := testLogger(slog.LevelWarn)
			h := newHost(t, pluginBin, p, sc.shapes, append([]Option{WithLogger(logger)}, tr.opts...)...)
			oldPID := h.PID()
			lockstep(t, h, p, sc, map[int]bool{failAt: true}, func(s int) {
				if s == failAt {
					writeFault(t, "exit")
				}
			})
			checkRestarted(t, h, oldPID, logs)
			checkTransport(t, h, tr, len(sc.steps))
		})
	}
}

func writeFault(t *testing.T, what string) {
	t.Helper()
	if err := os.WriteFile(faultFile, []byte(what), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(faultFile) })
}

// TestPluginHangs: the plugin stops answering in the middle of a step
// (test-only fault); after the step timeout the host kills it, restarts it
// and retries the step.
func TestPluginHangs(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			const hangAt, timeout = 4, 2 * time.Second
			p := narrow.Params{Method: narrow.MethodIterative}
			sc := newScene(t, 4, 10, 8)
			logger, logs := testLogger(slog.LevelWarn)
			h := newHost(t, pluginBin, p, sc.shapes, append([]Option{WithLogger(logger), WithStepTimeout(timeout)}, tr.opts...)...)
			oldPID := h.PID()
			var t0 time.Time
			lockstep(t, h, p, sc, map[int]bool{hangAt: true}, func(s int) {
				switch s {
				case hangAt:
					writeFault(t, "hang")
					t0 = time.Now()
				case hangAt + 1:
					if d := time.Since(t0); d < timeout || d > timeout+5*time.Second {
						t.Errorf("the hung step took %v, want a little over the %v timeout", d, timeout)
					}
				}
			})
			checkRestarted(t, h, oldPID, logs)
			checkTransport(t, h, tr, len(sc.steps))
		})
	}
}

// TestPluginContextDeadline: when the caller's context expires while the
// plugin hangs, Detect returns the context's error (the whole step failed);
// the next step runs on a restarted plugin, as a fresh backend would.
func TestPluginContextDeadline(t *testing.T) {
	p := narrow.Params{}
	sc := newScene(t, 5, 6, 6)
	h := newHost(t, pluginBin, p, sc.shapes, WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	var res narrow.Result
	detect(t, h, sc.steps[0], &res)
	writeFault(t, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := h.Detect(ctx, sc.steps[1], &res); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Detect with an expired context: %v", err)
	}
	if h.PID() != 0 {
		t.Errorf("the hung plugin (PID %d) is still in use", h.PID())
	}
	rest := &scene{shapes: sc.shapes, steps: sc.steps[1:]}
	lockstep(t, h, p, rest, nil, nil)
	if h.Restarts() != 1 || h.FellBack() {
		t.Errorf("%d restarts, fell back %v", h.Restarts(), h.FellBack())
	}
}

// copyBinary copies the plugin binary to a new file and returns its path.
func copyBinary(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(pluginBin)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "irtcd-plugin")
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPluginFallback: the plugin dies and cannot be restarted (its binary
// is gone): the host logs a warning and runs that step and every later one
// on an in-process CPU backend with the same parameters; a shape registered
// afterwards works too.
func TestPluginFallback(t *testing.T) {
	const failAt, addAt = 5, 7
	p := narrow.Params{ManifoldSize: 3}
	sc := newScene(t, 6, 10, 10)
	_, torus := meshes(t)
	n := len(sc.shapes)
	sc.shapes = append(sc.shapes, torus) // registered with the host at addAt
	for s := addAt; s < len(sc.steps); s++ {
		sc.steps[s][0].B = narrow.ShapeID(n)
	}
	path := copyBinary(t)
	logger, logs := testLogger(slog.LevelWarn)
	h := newHost(t, path, p, sc.shapes[:n], WithLogger(logger))
	lockstep(t, h, p, sc, map[int]bool{failAt: true}, func(s int) {
		switch s {
		case failAt:
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			killPlugin(t, h)
		case addAt:
			if id, err := h.RegisterShape(torus); err != nil || int(id) != n {
				t.Fatalf("RegisterShape after the fallback: %d, %v", id, err)
			}
		}
	})
	if !h.FellBack() || h.PID() != 0 {
		t.Errorf("fell back %v, PID %d", h.FellBack(), h.PID())
	}
	if l := logs.String(); !strings.Contains(l, "falling back to the in-process CPU backend") || !strings.Contains(l, "level=WARN") {
		t.Errorf("no fallback warning logged:\n%s", l)
	}
}

// TestPluginChecksum: a pinned checksum lets the right binary start, stops
// a wrong one, and a binary replaced after the start cannot be restarted
// (the host falls back to the CPU backend).
func TestPluginChecksum(t *testing.T) {
	sum, err := FileChecksum(pluginBin)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), sum...)
	bad[0] ^= 1
	if h, err := New(pluginBin, narrow.Params{}, WithChecksum(bad)); err == nil {
		h.Close()
		t.Fatal("a plugin with the wrong checksum started")
	} else if !strings.Contains(err.Error(), "checksum") {
		t.Errorf("wrong checksum: %v", err)
	}

	const replaceAt = 3
	p := narrow.Params{}
	sc := newScene(t, 7, 6, 6)
	path := copyBinary(t)
	logger, logs := testLogger(slog.LevelWarn)
	h := newHost(t, path, p, sc.shapes, WithLogger(logger), WithChecksum(sum))
	lockstep(t, h, p, sc, map[int]bool{replaceAt: true}, func(s int) {
		if s == replaceAt {
			// Another binary in its place (a running executable cannot be
			// written to, but it can be replaced).
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := path + ".new"
			if err := os.WriteFile(tmp, append(data, "tampered"...), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			killPlugin(t, h)
		}
	})
	if !h.FellBack() || !strings.Contains(logs.String(), "checksum") {
		t.Errorf("fell back %v; logs:\n%s", h.FellBack(), logs)
	}
}

// TestPluginLogs: the plugin's own log lines (hclog on its standard error)
// reach the host's slog.Logger.
func TestPluginLogs(t *testing.T) {
	logger, logs := testLogger(slog.LevelDebug)
	h, err := New(pluginBin, narrow.Params{Method: narrow.MethodIterative}, WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l := logs.String()
		if strings.Contains(l, "irtcd plugin: backend configured") && strings.Contains(l, "method=iterative") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin's log line did not reach the host's logger:\n%s", l)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostContract: the narrow.Backend contract's errors, as cpubackend
// gives them.
func TestHostContract(t *testing.T) {
	if _, err := New(pluginBin, narrow.Params{Confidence: 0.5}); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("bad params: %v", err)
	}
	if _, err := New(filepath.Join(t.TempDir(), "missing"), narrow.Params{}); err == nil {
		t.Error("a missing binary started")
	}
	sc := newScene(t, 8, 4, 2)
	h := newHost(t, pluginBin, narrow.Params{}, sc.shapes)
	if _, err := h.RegisterShape(nil); !errors.Is(err, narrow.ErrUnknownShape) {
		t.Errorf("RegisterShape(nil): %v", err)
	}
	if err := h.Detect(context.Background(), sc.steps[0], nil); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("nil result: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var res narrow.Result
	if err := h.Detect(ctx, sc.steps[0], &res); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if err := h.Detect(context.Background(), nil, &res); err != nil || len(res.Pairs) != 0 {
		t.Errorf("empty step: %v, %d pairs", err, len(res.Pairs))
	}
	if h.Restarts() != 0 {
		t.Errorf("%d restarts", h.Restarts())
	}
	pid := h.PID()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Detect(context.Background(), sc.steps[0], &res); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("Detect after Close: %v", err)
	}
	if _, err := h.RegisterShape(sc.shapes[0]); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("RegisterShape after Close: %v", err)
	}
	if h.PID() != 0 {
		t.Errorf("PID %d after Close", h.PID())
	}
	if pr, err := os.FindProcess(pid); err == nil {
		deadline := time.Now().Add(5 * time.Second)
		for pr.Signal(nilSignal) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("plugin process %d still runs after Close", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestShapeDedup: shapes of the same content are sent once, and keep
// distinct IDs (and so distinct temporal state) on both sides.
func TestShapeDedup(t *testing.T) {
	bun, _ := meshes(t)
	bun2, err := narrow.LoadOBJ("../testdata/bunny.obj") // same content, another *Shape
	if err != nil {
		t.Fatal(err)
	}
	st, _, _ := polygons(t)
	sc := newScene(t, 9, 4, 6)
	shapes := []*narrow.Shape{bun, bun2, st, bun, st}
	sc.shapes = append(sc.shapes, shapes...) // IDs 5 to 9
	for _, pairs := range sc.steps {
		pairs[0].A, pairs[0].B = 5, 6
		pairs[2].A, pairs[2].B = 6, 8
		pairs[1].A = 9
	}
	h := newHost(t, pluginBin, narrow.Params{}, sc.shapes)
	lockstep(t, h, narrow.Params{}, sc, nil, nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.data) != 5 || len(h.proc.known) != 5 || h.proc.nshapes != 10 {
		t.Errorf("%d distinct shapes kept, %d sent, %d registered; want 5, 5, 10", len(h.data), len(h.proc.known), h.proc.nshapes)
	}
}

// TestPluginUnregister: shapes released on the host are released in the
// plugin. Pairs that name them fail there with ErrUnknownShape, as in
// process, and every step matches the in-process backend bit for bit; a
// shape's data is dropped with its last registration and sent again when
// its content is registered anew; and a plugin restarted after releases
// keeps every ID's number (released slots get placeholders).
func TestPluginUnregister(t *testing.T) {
	// A bunny a little larger than the scene's: a content of its own,
	// twice (another *Shape, the same content).
	scaled := func() *narrow.Shape {
		b, _ := meshes(t)
		vs := make([]mgl64.Vec3, b.NumVertices())
		for i := range vs {
			vs[i] = b.Vertex(i).Mul(1.02)
		}
		ts := b.AppendTriangles(nil)
		s, err := narrow.NewMesh(vs, ts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bun, bun2 := scaled(), scaled()
	sc := newScene(t, 11, 6, 14)
	first := narrow.ShapeID(len(sc.shapes))
	sc.shapes = append(sc.shapes, bun, bun2)
	pair0 := func(a, b narrow.ShapeID) {
		for _, pairs := range sc.steps {
			pairs[0].A, pairs[0].B = a, b
		}
	}
	pair0(first, first+1)
	logger, logs := testLogger(slog.LevelWarn)
	path := copyBinary(t)
	h := newHost(t, path, narrow.Params{}, sc.shapes, WithLogger(logger))
	ref := newCPU(t, narrow.Params{}, sc.shapes)
	sum := h.hashes[first]
	var got, want narrow.Result
	step := func(s int) {
		t.Helper()
		detect(t, h, sc.steps[s], &got)
		detect(t, ref, sc.steps[s], &want)
		if d := diffResults(&got, &want); d != "" {
			t.Fatalf("step %d: %s", s, d)
		}
	}
	release := func(id narrow.ShapeID) {
		t.Helper()
		for _, be := range []narrow.Backend{h, ref} {
			if err := be.UnregisterShape(id); err != nil {
				t.Fatalf("%T.UnregisterShape(%d): %v", be, id, err)
			}
		}
	}
	known := func() (data, sent bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		_, data = h.data[sum]
		return data, h.proc.known[sum]
	}

	step(0)
	step(1)
	release(first) // bun2 has the same content: its data stays
	step(2)
	if !errors.Is(got.Pairs[0].Err, narrow.ErrUnknownShape) {
		t.Fatalf("pair naming a released shape: error %v, want ErrUnknownShape", got.Pairs[0].Err)
	}
	if data, sent := known(); !data || !sent {
		t.Errorf("after releasing one of two bunnies: data kept %v, known to the plugin %v; want both", data, sent)
	}
	release(first + 1)
	step(3)
	if data, sent := known(); data || sent {
		t.Errorf("after releasing both bunnies: data kept %v, known to the plugin %v; want neither", data, sent)
	}
	for _, id := range []narrow.ShapeID{first, -1, first + 9} {
		if err := h.UnregisterShape(id); !errors.Is(err, narrow.ErrUnknownShape) {
			t.Errorf("UnregisterShape(%d) = %v, want ErrUnknownShape", id, err)
		}
	}

	// The bunny again: a new ID, its data sent again.
	for _, be := range []narrow.Backend{h, ref} {
		if id, err := be.RegisterShape(bun); err != nil || id != first+2 {
			t.Fatalf("%T.RegisterShape(bunny) = %d, %v; want %d", be, id, err, first+2)
		}
	}
	pair0(first+2, first+2)
	step(4)
	step(5)
	if data, sent := known(); !data || !sent {
		t.Errorf("after registering the bunny again: data kept %v, known to the plugin %v; want both", data, sent)
	}

	// A restarted plugin: the released slots keep their numbers. The
	// reference starts afresh too (temporal state is lost with the
	// process), with the same registrations.
	fresh := func() *cpubackend.Backend {
		be := newCPU(t, narrow.Params{}, sc.shapes)
		if _, err := be.RegisterShape(bun); err != nil {
			t.Fatal(err)
		}
		for _, id := range []narrow.ShapeID{first, first + 1} {
			if err := be.UnregisterShape(id); err != nil {
				t.Fatal(err)
			}
		}
		return be
	}
	oldPID := killPlugin(t, h)
	ref = fresh()
	for s := 6; s < 10; s++ {
		step(s)
	}
	checkRestarted(t, h, oldPID, logs)

	// The fallback backend gets the same IDs, released slots included, and
	// releases shapes as the plugin did.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	killPlugin(t, h)
	ref = fresh()
	step(10)
	step(11)
	if !h.FellBack() {
		t.Fatal("the host did not fall back")
	}
	release(first + 2)
	step(12)
	step(13)
	if !errors.Is(got.Pairs[0].Err, narrow.ErrUnknownShape) {
		t.Errorf("after the fallback, a pair naming a released shape: %v, want ErrUnknownShape", got.Pairs[0].Err)
	}
}
