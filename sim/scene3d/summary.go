package scene3d

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/irtcd/irtcd/internal/steploop"
	"github.com/irtcd/irtcd/narrow"
)

// RestFraction defines the start of phase C: the kinetic energy has fallen
// to this share of its peak.
const RestFraction = 0.05

// Phase aggregates a range of steps [From, To) of a trace.
type Phase struct {
	Name     string // "all", "A free fall", "B impact" or "C rest"
	From, To int
	Steps    int

	Narrow     time.Duration // total narrow-phase time
	NarrowMean time.Duration // per step
	NarrowMax  time.Duration // slowest step
	Total      time.Duration // total world-step time (narrow phase included)

	StandardRays, PredictiveRays, IterativeRays int // totals
	LostRays, Predictions                       int

	Pairs, StandardPairs, IterativePairs, ContactPairs int // totals over the steps
	PairsMax                                           int // largest batch

	Contacts int     // total contacts (rays that hit)
	Points   int     // total manifold points solved
	DepthSum float64 // cumulative ray length of the variant's contacts
	DepthMax float64

	// Reference comparison (zero without Options.Reference).
	Ref         bool
	RefContacts int
	RefDepthSum float64 // cumulative ray length of the standard algorithm: the total interpenetration
	RefDepthMax float64
	Diff        RayDiff // totals over the steps

	MaxSpeed      float64 // fastest body seen
	MinHeight     float64 // lowest centre of mass above the floor seen
	KineticEnergy float64 // at the phase's last step
}

// Rays returns the phase's rays of every kind.
func (p *Phase) Rays() int { return p.StandardRays + p.PredictiveRays + p.IterativeRays }

// PerStep returns x divided by the number of steps (0 for an empty phase).
func (p *Phase) PerStep(x float64) float64 { return ratio(x, p.Steps) }

// IterativeShare returns the share of pairs updated iteratively.
func (p *Phase) IterativeShare() float64 {
	return ratio(float64(p.IterativePairs), p.StandardPairs+p.IterativePairs)
}

// DepthMean returns the mean contact depth.
func (p *Phase) DepthMean() float64 { return ratio(p.DepthSum, p.Contacts) }

// RefDepthMean returns the reference's mean contact depth.
func (p *Phase) RefDepthMean() float64 { return ratio(p.RefDepthSum, p.RefContacts) }

// ErroneousShare returns erroneous rays over compared rays, over the phase.
func (p *Phase) ErroneousShare() float64 { return ratio(float64(p.Diff.Erroneous()), p.Diff.Compared) }

// WrongPairShare returns wrongly detected pairs over all pairs tested.
func (p *Phase) WrongPairShare() float64 { return ratio(float64(p.Diff.WrongPairs), p.Pairs) }

func (p *Phase) add(m *StepMetrics) {
	if p.Steps == 0 {
		p.MinHeight = m.MinHeight
	}
	p.Steps++
	p.Narrow += m.Narrow
	p.NarrowMax = max(p.NarrowMax, m.Narrow)
	p.Total += m.Total
	p.StandardRays += m.StandardRays
	p.PredictiveRays += m.PredictiveRays
	p.IterativeRays += m.IterativeRays
	p.LostRays += m.LostRays
	p.Predictions += m.Predictions
	p.Pairs += m.Pairs
	p.StandardPairs += m.StandardPairs
	p.IterativePairs += m.IterativePairs
	p.ContactPairs += m.ContactPairs
	p.PairsMax = max(p.PairsMax, m.Pairs)
	p.Contacts += m.Contacts
	p.Points += m.Points
	p.DepthSum += m.DepthSum
	p.DepthMax = max(p.DepthMax, m.DepthMax)
	if m.Ref {
		p.Ref = true
		p.RefContacts += m.RefContacts
		p.RefDepthSum += m.RefDepthSum
		p.RefDepthMax = max(p.RefDepthMax, m.RefDepthMax)
		p.Diff.Compared += m.Diff.Compared
		p.Diff.Missed += m.Diff.Missed
		p.Diff.Extra += m.Diff.Extra
		p.Diff.Mismatched += m.Diff.Mismatched
		p.Diff.WrongPairs += m.Diff.WrongPairs
	}
	p.MaxSpeed = max(p.MaxSpeed, m.MaxSpeed)
	p.MinHeight = min(p.MinHeight, m.MinHeight)
	p.KineticEnergy = m.KineticEnergy
}

// Summary aggregates a trace: over the whole run and per phase.
//
// The phases are those of Lehericey et al. (2013, §4.3) for the avalanche,
// defined on the trace so that any scene has them:
//
//   - A, free fall: from the first step to the first step with a contact
//     (any pair with at least one contact);
//   - B, impact: from there to phase C;
//   - C, rest: from the first step after the kinetic energy's peak at which
//     the kinetic energy is at most RestFraction (5 %) of that peak, to the
//     end.
//
// A phase may be empty (a scene that never settles has no C; the spawner
// has contacts from its first objects on, so its A is short).
type Summary struct {
	Scene  string
	N      int
	Method narrow.Method
	All    Phase
	Phases [3]Phase // A, B, C
}

// PhaseBounds returns the first step of phase B and of phase C (each
// len(steps) when the phase is empty).
func PhaseBounds(steps []StepMetrics) (b, c int) {
	b, c = len(steps), len(steps)
	for i := range steps {
		if steps[i].ContactPairs > 0 {
			b = i
			break
		}
	}
	peak, at := 0.0, 0
	for i := range steps {
		if steps[i].KineticEnergy > peak {
			peak, at = steps[i].KineticEnergy, i
		}
	}
	if peak > 0 {
		for i := max(at, b); i < len(steps); i++ {
			if steps[i].KineticEnergy <= RestFraction*peak {
				c = i
				break
			}
		}
	}
	return b, max(b, c)
}

// Summary aggregates the trace's steps.
func (t *Trace) Summary() Summary {
	s := Summary{Scene: t.Scene, N: t.N, Method: t.Method}
	b, c := PhaseBounds(t.Steps)
	bounds := [4]int{0, b, c, len(t.Steps)}
	s.All = Phase{Name: "all", From: 0, To: len(t.Steps)}
	for k, name := range [3]string{"A free fall", "B impact", "C rest"} {
		p := &s.Phases[k]
		p.Name, p.From, p.To = name, bounds[k], bounds[k+1]
		for i := p.From; i < p.To; i++ {
			p.add(&t.Steps[i])
		}
	}
	for i := range t.Steps {
		s.All.add(&t.Steps[i])
	}
	for _, p := range append([]*Phase{&s.All}, &s.Phases[0], &s.Phases[1], &s.Phases[2]) {
		if p.Steps > 0 {
			p.NarrowMean = p.Narrow / time.Duration(p.Steps)
		}
	}
	return s
}

// WriteTo writes the summary as an aligned table, one phase per line.
func (s Summary) WriteTo(w io.Writer) (int64, error) {
	cw := &steploop.CountWriter{W: w}
	tw := tabwriter.NewWriter(cw, 0, 0, 2, ' ', tabwriter.AlignRight)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(cw, "%s, %d objects, method %s\n", s.Scene, s.N, s.Method)
	fmt.Fprintln(tw, "phase\tsteps\tnarrow ms/step\tmax ms\trays/step\titerative rays\tpairs/step\titerative pairs\tcontacts/step\tdepth sum\tdepth max\terroneous rays\twrong pairs\tref depth sum\tref depth max\t")
	for _, p := range []Phase{s.All, s.Phases[0], s.Phases[1], s.Phases[2]} {
		ref := "-\t-\t-\t-"
		if p.Ref {
			ref = fmt.Sprintf("%.3f%%\t%.3f%%\t%.3f\t%.4f", 100*p.ErroneousShare(), 100*p.WrongPairShare(), p.RefDepthSum, p.RefDepthMax)
		}
		fmt.Fprintf(tw, "%s [%d,%d)\t%d\t%s\t%s\t%.0f\t%.1f%%\t%.1f\t%.1f%%\t%.1f\t%.3f\t%.4f\t%s\t\n",
			p.Name, p.From, p.To, p.Steps, ms(p.NarrowMean), ms(p.NarrowMax),
			p.PerStep(float64(p.Rays())), 100*ratio(float64(p.IterativeRays), p.Rays()),
			p.PerStep(float64(p.Pairs)), 100*p.IterativeShare(),
			p.PerStep(float64(p.Contacts)), p.DepthSum, p.DepthMax, ref)
	}
	err := tw.Flush()
	return cw.N, err
}
