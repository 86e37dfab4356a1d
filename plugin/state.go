package plugin

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// SaveState answers the served backend's temporal state in
// cpubackend.State's binary form; Unimplemented if the backend cannot
// save it.
func (s *Server) SaveState(_ context.Context, _ *pb.SaveStateRequest) (*pb.SaveStateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be == nil {
		return nil, status.Error(codes.FailedPrecondition, "save state: not configured")
	}
	sb, ok := s.be.(cpubackend.Stateful)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "save state: the served backend (%T) cannot save its state", s.be)
	}
	var st cpubackend.State
	if err := sb.SaveState(&st); err != nil {
		return nil, status.Errorf(codes.Internal, "save state: %v", err)
	}
	data, err := st.MarshalBinary()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "save state: %v", err)
	}
	return &pb.SaveStateResponse{State: data}, nil
}

// RestoreState puts back a state in cpubackend.State's binary form:
// InvalidArgument for malformed data or indices the registered shapes do
// not have, FailedPrecondition for a state saved with other parameters.
func (s *Server) RestoreState(_ context.Context, req *pb.RestoreStateRequest) (*pb.RestoreStateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be == nil {
		return nil, status.Error(codes.FailedPrecondition, "restore state: not configured")
	}
	sb, ok := s.be.(cpubackend.Stateful)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "restore state: the served backend (%T) cannot restore a state", s.be)
	}
	var st cpubackend.State
	err := st.UnmarshalBinary(req.GetState())
	if err == nil {
		err = sb.RestoreState(&st)
	}
	switch {
	case err == nil:
		return &pb.RestoreStateResponse{}, nil
	case errors.Is(err, narrow.ErrBadState):
		return nil, status.Errorf(codes.InvalidArgument, "restore state: %v", err)
	case errors.Is(err, narrow.ErrBadParams):
		return nil, status.Errorf(codes.FailedPrecondition, "restore state: %v", err)
	}
	return nil, status.Errorf(codes.Internal, "restore state: %v", err)
}

// ErrNoState: the plugin's served backend cannot save or restore its
// temporal state (Host.SaveState, Host.RestoreState).
var ErrNoState = errors.New("the plugin cannot save its state")

// stateErr turns the plugin's answer to SaveState or RestoreState into an
// error wrapping the matching sentinel.
func stateErr(op string, err error) error {
	switch status.Code(err) {
	case codes.InvalidArgument:
		return fmt.Errorf("plugin: %s: %w: %v", op, narrow.ErrBadState, status.Convert(err).Message())
	case codes.FailedPrecondition:
		return fmt.Errorf("plugin: %s: %w: %v", op, narrow.ErrBadParams, status.Convert(err).Message())
	case codes.Unimplemented:
		return fmt.Errorf("plugin: %s: %w: %v", op, ErrNoState, status.Convert(err).Message())
	}
	return fmt.Errorf("plugin: %s: %w", op, err)
}

// ready starts the plugin process if none runs and sends it the shapes it
// lacks, within the start timeout.
func (h *Host) ready(ctx context.Context) error {
	if h.proc == nil {
		if err := h.start(ctx); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		h.restarts.Add(1)
	}
	if h.proc.nshapes < len(h.shapes) || len(h.proc.release) > 0 {
		fctx, cancel := context.WithTimeout(ctx, h.cfg.startTimeout)
		defer cancel()
		if err := h.flush(fctx); err != nil {
			return fmt.Errorf("register shapes: %w", err)
		}
	}
	return nil
}

// SaveState copies the narrow phase's temporal state into dst (see
// cpubackend.Backend.SaveState): the plugin process sends it in
// cpubackend.State's binary form, so dst names shapes by ID, which are the
// host's (see RegisterShape), and restores into this host, a restarted
// plugin or an in-process CPU backend whose shapes were registered in the
// same order. After a fallback to the in-process CPU backend it is that
// backend's state. A plugin that dies loses its state with it, as its
// next steps do.
func (h *Host) SaveState(dst *cpubackend.State) error {
	if dst == nil {
		return fmt.Errorf("%w: SaveState needs a non-nil *cpubackend.State", narrow.ErrBadParams)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return narrow.ErrBackendClosed
	}
	if h.fallback != nil {
		return h.fallback.SaveState(dst)
	}
	ctx := context.Background()
	if err := h.ready(ctx); err != nil {
		return fmt.Errorf("plugin: save state: %w", err)
	}
	if h.cfg.stepTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.stepTimeout)
		defer cancel()
	}
	resp, err := h.proc.rpc.SaveState(ctx, &pb.SaveStateRequest{})
	if err != nil {
		return stateErr("save state", err)
	}
	if err := dst.UnmarshalBinary(resp.GetState()); err != nil {
		return fmt.Errorf("plugin: save state: the plugin's answer: %w", err)
	}
	return nil
}

// RestoreState replaces the narrow phase's temporal state with src (see
// cpubackend.Backend.RestoreState), sent to the plugin process in its
// binary form: its shapes are named by ID. Errors wrap narrow.ErrBadState
// (malformed, or indices the shapes lack), narrow.ErrBadParams (other
// parameters, or a State never filled) or ErrNoState; the state is then
// as it was.
func (h *Host) RestoreState(src *cpubackend.State) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return narrow.ErrBackendClosed
	}
	if src == nil {
		return fmt.Errorf("%w: RestoreState needs a state filled by SaveState", narrow.ErrBadParams)
	}
	if h.fallback != nil {
		return h.fallback.RestoreState(src)
	}
	data, err := src.MarshalBinary()
	if err != nil {
		return fmt.Errorf("%w: RestoreState needs a state filled by SaveState (%v)", narrow.ErrBadParams, err)
	}
	ctx := context.Background()
	if err := h.ready(ctx); err != nil {
		return fmt.Errorf("plugin: restore state: %w", err)
	}
	if h.cfg.stepTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.stepTimeout)
		defer cancel()
	}
	if _, err := h.proc.rpc.RestoreState(ctx, &pb.RestoreStateRequest{State: data}); err != nil {
		return stateErr("restore state", err)
	}
	return nil
}

var _ cpubackend.Stateful = (*Host)(nil)
