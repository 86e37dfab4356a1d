package plugin

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// levelTrace is the slog level of hclog's Trace.
const levelTrace = slog.LevelDebug - 4

// slogLevel maps an hclog level to slog's.
func slogLevel(l hclog.Level) slog.Level {
	switch l {
	case hclog.Trace:
		return levelTrace
	case hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// hclogLevel maps a slog level to hclog's.
func hclogLevel(l slog.Level) hclog.Level {
	switch {
	case l < slog.LevelDebug:
		return hclog.Trace
	case l < slog.LevelInfo:
		return hclog.Debug
	case l < slog.LevelWarn:
		return hclog.Info
	case l < slog.LevelError:
		return hclog.Warn
	}
	return hclog.Error
}

// lowestLevel returns the most verbose hclog level l logs.
func lowestLevel(l *slog.Logger) hclog.Level {
	for _, lv := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		if l.Enabled(context.Background(), slogLevel(lv)) {
			return lv
		}
	}
	return hclog.Off
}

// hclogToSlog is an hclog.Logger that writes to a slog.Logger: go-plugin
// logs through it on the host side, including the log lines it reads from
// the plugin process's standard error.
type hclogToSlog struct {
	l       *slog.Logger
	name    string
	implied []any
}

// newHCLogger returns an hclog.Logger that writes to l under the name.
func newHCLogger(l *slog.Logger, name string) hclog.Logger {
	return &hclogToSlog{l: l, name: name}
}

// Log writes one line at level, with the logger's name and implied
// arguments, if the slog.Logger wants that level. The other methods of
// hclog.Logger follow.
func (h *hclogToSlog) Log(level hclog.Level, msg string, args ...any) {
	lv := slogLevel(level)
	if level == hclog.Off || !h.l.Enabled(context.Background(), lv) {
		return
	}
	all := make([]any, 0, 2+len(h.implied)+len(args))
	if h.name != "" {
		all = append(all, "logger", h.name)
	}
	all = append(all, h.implied...)
	all = append(all, args...)
	h.l.Log(context.Background(), lv, msg, all...)
}

func (h *hclogToSlog) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *hclogToSlog) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *hclogToSlog) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *hclogToSlog) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *hclogToSlog) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *hclogToSlog) enabled(l hclog.Level) bool {
	return h.l.Enabled(context.Background(), slogLevel(l))
}

func (h *hclogToSlog) IsTrace() bool { return h.enabled(hclog.Trace) }
func (h *hclogToSlog) IsDebug() bool { return h.enabled(hclog.Debug) }
func (h *hclogToSlog) IsInfo() bool  { return h.enabled(hclog.Info) }
func (h *hclogToSlog) IsWarn() bool  { return h.enabled(hclog.Warn) }
func (h *hclogToSlog) IsError() bool { return h.enabled(hclog.Error) }

func (h *hclogToSlog) ImpliedArgs() []any { return slices.Clone(h.implied) }

func (h *hclogToSlog) With(args ...any) hclog.Logger {
	return &hclogToSlog{l: h.l, name: h.name, implied: append(slices.Clone(h.implied), args...)}
}

func (h *hclogToSlog) Name() string { return h.name }

func (h *hclogToSlog) Named(name string) hclog.Logger {
	if h.name != "" {
		name = h.name + "." + name
	}
	return &hclogToSlog{l: h.l, name: name, implied: h.implied}
}

func (h *hclogToSlog) ResetNamed(name string) hclog.Logger {
	return &hclogToSlog{l: h.l, name: name, implied: h.implied}
}

// SetLevel does nothing: the slog handler decides what is logged.
func (h *hclogToSlog) SetLevel(hclog.Level) {}

func (h *hclogToSlog) GetLevel() hclog.Level { return lowestLevel(h.l) }

func (h *hclogToSlog) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(opts), "", 0)
}

func (h *hclogToSlog) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	lv := hclog.Info
	if opts != nil && opts.ForceLevel != hclog.NoLevel {
		lv = opts.ForceLevel
	}
	return writerFunc(func(p []byte) (int, error) {
		h.Log(lv, strings.TrimRight(string(p), "\n"))
		return len(p), nil
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// slogToHclog is a slog.Handler that writes to an hclog.Logger: on the
// plugin side the backend logs through it to hclog's JSON lines on standard
// error, which go-plugin hands to the host's logger.
type slogToHclog struct {
	l      hclog.Logger
	attrs  []any
	prefix string // group names, each followed by a dot
}

// newSlogHandler returns a slog.Handler that writes to l.
func newSlogHandler(l hclog.Logger) slog.Handler { return &slogToHclog{l: l} }

// Enabled reports whether the hclog.Logger logs level l.
func (h *slogToHclog) Enabled(_ context.Context, l slog.Level) bool {
	lv := hclogLevel(l)
	cur := h.l.GetLevel()
	return cur != hclog.Off && lv >= cur
}

// Handle writes one record, attributes flattened to key/value pairs.
func (h *slogToHclog) Handle(_ context.Context, r slog.Record) error {
	args := make([]any, 0, len(h.attrs)+2*r.NumAttrs())
	args = append(args, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = flatten(args, h.prefix, a)
		return true
	})
	h.l.Log(hclogLevel(r.Level), r.Message, args...)
	return nil
}

// WithAttrs returns a handler that adds as to every record.
func (h *slogToHclog) WithAttrs(as []slog.Attr) slog.Handler {
	args := slices.Clone(h.attrs)
	for _, a := range as {
		args = flatten(args, h.prefix, a)
	}
	return &slogToHclog{l: h.l, attrs: args, prefix: h.prefix}
}

// WithGroup returns a handler that prefixes later keys with name.
func (h *slogToHclog) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &slogToHclog{l: h.l, attrs: h.attrs, prefix: h.prefix + name + "."}
}

// flatten appends a's key/value pairs, groups flattened into dotted keys.
func flatten(args []any, prefix string, a slog.Attr) []any {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			args = flatten(args, p, g)
		}
		return args
	}
	if a.Key == "" {
		return args
	}
	val := v.Any()
	if err, ok := val.(error); ok {
		val = err.Error()
	} else if s, ok := val.(fmt.Stringer); ok {
		val = s.String()
	}
	return append(args, prefix+a.Key, val)
}
