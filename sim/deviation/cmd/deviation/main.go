// Command deviation runs the re-projection experiment of Lehericey et al.
// (JVRC 2013, §5.4, Table 1) with package sim/deviation and prints the
// measured deviations next to the published ones.
//
//	go run ./sim/deviation/cmd/deviation            # 400 orientations × 20 depths, 4 shapes
//	go run ./sim/deviation/cmd/deviation -o 20 -d 4 # a quick look
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/irtcd/irtcd/sim/deviation"
)

func main() {
	cfg := deviation.DefaultConfig()
	flag.IntVar(&cfg.Orientations, "o", cfg.Orientations, "orientations per shape")
	flag.IntVar(&cfg.Depths, "d", cfg.Depths, "interpenetration depths per orientation")
	flag.Float64Var(&cfg.MaxDepth, "max-depth", cfg.MaxDepth, "deepest interpenetration, as a fraction of the shape's size (half its bounding-box diagonal)")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the orientations")
	flag.IntVar(&cfg.Workers, "workers", 0, "CPU backend workers (0: GOMAXPROCS)")
	dir := flag.String("testdata", "testdata", "directory holding bunny.obj, teddy.obj and duck.obj")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	shapes, err := deviation.PaperShapes(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "deviation:", err)
		os.Exit(1)
	}
	start := time.Now()
	last := -1
	progress := func(done, total int) {
		if pct := 100 * done / total; !*quiet && pct != last {
			last = pct
			fmt.Fprintf(os.Stderr, "\r%3d %%", pct)
		}
	}
	rows, err := deviation.Run(ctx, cfg, shapes, progress)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "deviation:", err)
		os.Exit(1)
	}
	fmt.Printf("%d orientations × %d depths (1..%g %% of size), seed %d, standard detection; %s\n\n",
		cfg.Orientations, cfg.Depths, 100*cfg.MaxDepth, cfg.Seed, time.Since(start).Round(time.Millisecond))
	if err := deviation.WriteTable(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, "deviation:", err)
		os.Exit(1)
	}
}
