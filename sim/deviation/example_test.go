package deviation_test

import (
	"context"
	"fmt"

	"github.com/irtcd/irtcd/sim/deviation"
)

// The 70-vertex sphere against the ground, 10 orientations × 3 depths:
// only the re-projection makes the ground's reaction straight up.
func ExampleRun() {
	sphere, err := deviation.Sphere70()
	if err != nil {
		panic(err)
	}
	cfg := deviation.Config{Orientations: 10, Depths: 3, Seed: 1}
	rows, err := deviation.Run(context.Background(), cfg, []deviation.Shape{{Name: "sphere70", Mesh: sphere, Paper: "sphere"}}, nil)
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		paper, _ := deviation.PaperValue(r.Paper, r.Mode)
		fmt.Printf("%-18s deviation > 0: %-5v (paper: %.2f %%)\n", deviation.Technique(r.Mode), r.TangentialPct > 0, paper.DeviationPct)
	}
	// Output:
	// Standard           deviation > 0: true  (paper: 3.97 %)
	// Weighting [HFR*08] deviation > 0: true  (paper: 2.66 %)
	// Re-projection      deviation > 0: false (paper: 0.00 %)
}
