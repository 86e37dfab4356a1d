// Package plugin runs irtcd's narrow phase out of process, with
// hashicorp/go-plugin in gRPC mode.
//
// The plugin side (Serve, in a binary such as cmd/irtcd-plugin) serves any
// narrow.Backend a Factory makes: the CPU backend, a GPU or a sharded one.
// The host side, Host, is itself a narrow.Backend, so the box2d adapter
// and the scene runner use it unchanged:
//
//	h, err := plugin.New("./irtcd-plugin", narrow.Params{}, plugin.WithLogger(logger))
//	...
//	id, _ := h.RegisterShape(shape)
//	err = h.Detect(ctx, pairs, &res) // same contacts, bit for bit, as cpubackend
//
// # Protocol
//
// The gRPC service and messages are in pb/irtcd.proto (generated code in
// package pb, checked in; `go generate ./plugin` rebuilds it with protoc).
// go-plugin's handshake carries ProtocolVersion and a magic cookie
// (Handshake); the connection uses go-plugin's automatic mutual TLS; with
// WithChecksum the host checks the plugin binary's SHA-256 before every
// start (go-plugin's SecureConfig). The plugin's logs, hclog JSON lines on
// its standard error, reach the host's slog.Logger through go-plugin.
//
//   - Configure, once per process start, creates the backend with the host's
//     narrow.Params (method, traversal, response, thresholds, ...) and
//     worker count.
//   - RegisterShapes sends shapes in ID order. The host keeps every shape
//     and identifies it by the SHA-256 of its geometry: a shape whose
//     content the process already has travels as its hash alone, and the
//     plugin rebuilds each distinct shape once (with narrow.NewMesh or
//     narrow.NewPolygon, then checks it has exactly the vertices and
//     primitives sent). Shape IDs are the same on both sides.
//   - UnregisterShapes releases the shapes the host released
//     (narrow.Backend.UnregisterShape) before the next step; a content's
//     data is dropped on both sides with its last registration. A
//     restarted plugin gets a placeholder, released at once, in each
//     released slot, so that later IDs keep their numbers.
//   - ReshapeShapes replaces registered shapes by deformations of them
//     under their IDs (Host.ReshapeShape, narrow.Reshaper) before the next
//     step: the new vertices and the new content's hash; the plugin
//     deforms its copy (narrow.Shape.Deform), checks the hash, and its
//     backend's pairs keep their states. A plugin says in its
//     ConfigureResponse whether its backend can; older plugins say
//     nothing, and the host's ReshapeShape then answers
//     errors.ErrUnsupported.
//   - SaveState and RestoreState (Host.SaveState, Host.RestoreState) carry
//     the backend's temporal state, for rollback, in cpubackend.State's
//     binary form: restored after a save, the plugin returns the steps
//     that followed the save again, bit for bit.
//   - Detect is one request and one response per step. The request holds
//     the pairs as one packed little-endian array of 128-byte records (ID,
//     shape IDs, both poses: narrow.Pair's layout in memory, so the host
//     copies its pairs as they are and the plugin reads them in place); the
//     response holds every pair's contacts and manifolds as packed arrays
//     (a manifold point that copies one of its pair's contacts, as they
//     all do with the CPU backend, travels as that contact's index),
//     per-pair counts and flags, the step's narrow.Stats, and the errors
//     of failed pairs. Every float64 travels as its IEEE 754
//     bits, so results are bit-identical to the in-process backend's.
//
// # Shared memory
//
// On unix the host moves the steps' bulk arrays through shared memory
// instead (WithSharedMemory, on by default). At each process start it
// creates a file of mode 0600 with a random name in /dev/shm (else in the
// temporary directory), reserves and maps it (MAP_SHARED), sends its path
// in a MapShared call, and unlinks it as soon as the plugin has mapped it:
// from then on only the two mappings exist, and the host unmaps its own
// when the process stops or the host is closed. A step is a DetectShared
// call: the host writes the DetectRequest's encoding (the same bytes as
// Detect's) into the region and its sequence number into the region's
// header, and sends only the sequence number, the offsets and the lengths;
// the plugin checks them against its mapping and the header, decodes the
// request with the same checks as Detect's, and writes the response's
// encoding into the region after the request, or returns it inline in the
// reply when it does not fit. The host grows the region (a new file and
// MapShared call) before a step whose request, or the response expected
// from the last one, would not fit. Neither side trusts the region: the
// host copies the response out of it before checking it as a message, a
// mismatched sequence number or length fails the step like a malformed
// message, and the plugin answers InvalidArgument to a bad request and
// goes on serving. A restarted plugin gets a region of its own. If the
// region cannot be set up (no mapping, a full /dev/shm, a plugin without
// MapShared), the steps go through Detect.
//
// # Doorbell
//
// On Linux a shared step is not even a gRPC call: it is rung. The plugin
// answers MapShared with ring set and, from then on, waits on a futex word
// of the region's header (the doorbell). The host writes the request, the
// DetectSharedRequest's six fields into the header, bumps the doorbell
// and wakes the waiter; the plugin runs the step exactly as DetectShared
// would, writes the response length and a status into the header, bumps
// the answer word and wakes the host. An outcome that does not fit there
// (an error, a response too large for the region) waits in the plugin for
// one TakeShared call, which returns what DetectShared would have. The
// host waits on the answer in slices of a few milliseconds, checking that
// the process is alive and the context and step timeout not expired, so a
// plugin that dies or hangs mid-step is handled as with gRPC. A step
// rung this way costs two futex wake-ups instead of a gRPC round trip (TLS
// records, HTTP/2 frames, about six goroutine hand-offs across the two
// processes) and allocates nothing on the host. gRPC stays for everything
// else: configuration, shapes, regions, the rare outcomes above.
//
// The trade-off: the bulk data bypasses the connection's mutual TLS. It
// lives in memory of the host's user, in a file of mode 0600 that is
// unlinked at once, so it is open to the processes that could read either
// process's memory anyway; WithSharedMemory(false) keeps it in the
// encrypted gRPC messages.
//
// A pair's error (a *narrow.PairError in-process) travels as a code naming
// the narrow sentinel it wraps and its message; the host rebuilds a
// *narrow.PairError around a *RemoteError that prints the same text and
// unwraps to the same sentinel, so errors.Is(err, narrow.ErrBadPose) and
// friends work as in-process.
//
// Both sides check every message: the plugin checks every packed array's
// length against the pair count and every shape's arrays; shape IDs and
// poses are checked by the served backend and give per-pair errors exactly
// as in-process (unknown shape, NaN pose, ...). A malformed request gets an
// InvalidArgument error and the plugin goes on serving; messages over the
// size limit (WithMaxMessageSize, default 256 MiB) are refused by gRPC
// (the host does not send a step whose request would be over it, and a
// response over it counts as a failure of the plugin). The host checks
// every count, index and length of a response too.
//
// # Failure handling
//
// Each try of a step has a deadline: the context's, and at most the step
// timeout (WithStepTimeout, default 30 s). If the plugin process dies, hangs
// past the step timeout or answers a malformed response, the host kills it,
// starts a new one, configures it, registers every shape again (the host
// keeps them) and retries the step once. If the restart or the retry fails
// too, the host logs a warning and falls back to an in-process CPU backend
// with the same parameters, which runs that step and every later one. No
// step is lost and none returns a wrong result.
//
// The plugin is a build of its own: if it fuses multiply-adds and the host
// does not (or the reverse; narrow.FusesMultiplyAdd), their contacts differ
// in the last bits, and a fallback changes the results. The plugin says
// which at Configure; Host.FusesMultiplyAdd reports it, and the host logs a
// warning when the two builds differ. Build both the same way.
//
// Temporal state (the iterative and predictive rays, keyed by pair ID)
// lives in the backend, so it does not survive a restart or the fallback:
// the new backend starts with standard steps, exactly as a fresh one does.
// The outputs from the failed step on are therefore those of a fresh
// in-process backend fed the same steps from that point (the tests check
// this bit for bit). When the caller's context is cancelled or expires
// mid-step, Detect returns the context's error, as the CPU backend does;
// since the plugin may or may not have committed the step, the host
// restarts it before the next step, with the same consequence.
//
// On the host, steady-state steps allocate nothing when rung through the
// region: the request's records are copied straight from the pairs, and
// the response decoded straight into the caller's narrow.Result (its
// storage sized at once with narrow.Result.Alloc). Through gRPC the host
// writes the request's protobuf encoding into a buffer reused step after
// step and decodes the reply the same way (a gRPC codec that stays plain
// protobuf on the wire); what remains are gRPC's own per-call
// allocations. The plugin reads the request's records in place and,
// through shared memory, writes the response's encoding straight into the
// region (no message built, nothing allocated).
//
// Diagnostics: cmd/irtcd-plugin writes a CPU profile of its whole life to
// "$IRTCD_PLUGIN_CPUPROFILE.<pid>" when that variable is set in the host's
// environment (the host passes its environment on).
package plugin

// Regenerate pb/*.pb.go from pb/irtcd.proto with protoc (3.21), protoc-gen-go
// (v1.36.6) and protoc-gen-go-grpc (v1.3.0) on PATH, for example
// PATH=$PATH:$(go env GOPATH)/bin go generate ./plugin
//
//go:generate protoc -I pb --go_out=pb --go_opt=paths=source_relative --go-grpc_out=pb --go-grpc_opt=paths=source_relative pb/irtcd.proto
