package deviation

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"text/tabwriter"

	"github.com/irtcd/irtcd/narrow"
)

// PaperRow is one number of Table 1 of Lehericey et al. (JVRC 2013),
// "Average deviation of penalty forces in percent for three meshes against
// the ground".
type PaperRow struct {
	Shape        string          // the table's column: "sphere", "bunny" or "pig"
	Vertices     int             // the column's "Number of vertices"
	Technique    string          // the table's row label
	Mode         narrow.Response // irtcd's response for that row
	DeviationPct float64         // the published average deviation, in percent
}

// PaperRows returns Table 1, row by row (Standard, Weighting [HFR*08],
// Re-projection), each across the columns sphere (70 vertices), bunny
// (453) and pig (1085).
func PaperRows() []PaperRow {
	type col struct {
		shape string
		verts int
	}
	cols := []col{{"sphere", 70}, {"bunny", 453}, {"pig", 1085}}
	table := []struct {
		technique string
		mode      narrow.Response
		pct       [3]float64
	}{
		{"Standard", narrow.ResponseRay, [3]float64{3.97, 22.0, 27.0}},
		{"Weighting [HFR*08]", narrow.ResponseWeighted, [3]float64{2.66, 16.5, 20.6}},
		{"Re-projection", narrow.ResponseMTD, [3]float64{0.00, 0.00, 0.00}},
	}
	var rows []PaperRow
	for _, t := range table {
		for i, c := range cols {
			rows = append(rows, PaperRow{Shape: c.shape, Vertices: c.verts, Technique: t.technique, Mode: t.mode, DeviationPct: t.pct[i]})
		}
	}
	return rows
}

// PaperValue returns the published deviation for a column of Table 1
// ("sphere", "bunny", "pig") and a response mode.
func PaperValue(shape string, mode narrow.Response) (PaperRow, bool) {
	for _, r := range PaperRows() {
		if r.Shape == shape && r.Mode == mode {
			return r, true
		}
	}
	return PaperRow{}, false
}

// Technique names a response mode as the paper's Table 1 does.
func Technique(m narrow.Response) string {
	switch m {
	case narrow.ResponseRay:
		return "Standard"
	case narrow.ResponseWeighted:
		return "Weighting [HFR*08]"
	case narrow.ResponseMTD:
		return "Re-projection"
	}
	return m.String()
}

// PaperShapes loads the shapes of the experiment: the 70-vertex sphere
// (Sphere70), dir/bunny.obj (the paper's 453-vertex bunny), and
// dir/teddy.obj and dir/duck.obj standing in for the paper's 1085-vertex
// pig, which is not available.
func PaperShapes(dir string) ([]Shape, error) {
	sphere, err := Sphere70()
	if err != nil {
		return nil, err
	}
	shapes := []Shape{{Name: "sphere70", Mesh: sphere, Paper: "sphere"}}
	for _, f := range []struct{ name, paper string }{{"bunny", "bunny"}, {"teddy", "pig"}, {"duck", "pig"}} {
		m, err := narrow.LoadOBJ(filepath.Join(dir, f.name+".obj"))
		if err != nil {
			return nil, err
		}
		shapes = append(shapes, Shape{Name: f.name, Mesh: m, Paper: f.paper})
	}
	return shapes, nil
}

// WriteTable writes rows as an aligned text table, with the paper's value
// for each row's column and mode next to the measured deviation.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tvertices\ttechnique\tmode\tdeviation %\tpaper %\tmax %\tangle °\tnormal %\tnormal(all) %\tmissed %\tempty\tcontacts/case\t")
	num := func(x float64, prec int) string {
		if math.IsNaN(x) {
			return "-"
		}
		return fmt.Sprintf("%.*f", prec, x)
	}
	for _, r := range rows {
		paper := "-"
		if p, ok := PaperValue(r.Paper, r.Mode); ok {
			paper = fmt.Sprintf("%.2f (%s, %d v)", p.DeviationPct, p.Shape, p.Vertices)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.1f\t\n",
			r.Shape, r.Vertices, Technique(r.Mode), r.Mode,
			num(r.TangentialPct, 2), paper, num(r.TangentialMaxPct, 1), num(r.AngleDeg, 2),
			num(r.NormalPct, 2), num(r.NormalAllPct, 2), num(r.MissedPct, 2), r.Empty, r.Contacts)
	}
	return tw.Flush()
}
