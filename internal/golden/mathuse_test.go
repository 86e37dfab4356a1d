package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archMath lists the functions of package math whose results may differ
// between architectures: Exp, Log and Hypot have assembly of their own on
// amd64 or arm64, and the others call them.
var archMath = map[string]bool{
	"Exp": true, "Exp2": true, "Expm1": true, "Log": true, "Log10": true,
	"Log2": true, "Log1p": true, "Hypot": true, "Pow": true, "Sinh": true,
	"Cosh": true, "Tanh": true, "Asinh": true, "Acosh": true, "Atanh": true,
	"Gamma": true, "Lgamma": true, "Erf": true, "Erfc": true, "Erfinv": true,
	"Erfcinv": true, "J0": true, "J1": true, "Jn": true, "Y0": true, "Y1": true, "Yn": true,
}

// stepPath lists the packages (from the module's root) whose arithmetic
// makes the contacts and the trajectories.
var stepPath = []string{
	"narrow", "iterative", "predictive", "reprojection", "cpubackend",
	"optixbackend", "adapter", "adapter/box2dadapter", "sim/rigid",
}

// TestStepPathMath keeps the golden trajectories' promise across
// architectures (docs/DESIGN.md, "Determinism across machines") from
// being broken by a new call: no package that computes contacts or
// trajectories calls a function of math whose result depends on the
// architecture (Sqrt, Sin, Cos, Atan2 and the like are the same
// everywhere that does not fuse multiply-adds).
func TestStepPathMath(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, dir := range stepPath {
		names, err := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(dir), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			files++
			mathName := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == `"math"` {
					mathName = "math"
					if imp.Name != nil {
						mathName = imp.Name.Name
					}
				}
			}
			if mathName == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == mathName && archMath[sel.Sel.Name] {
					t.Errorf("%s: math.%s may give other results on other architectures; compute it from Sqrt and arithmetic", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
	if files < 50 {
		t.Fatalf("read only %d source files of %v: is the test run from internal/golden?", files, stepPath)
	}
	if !t.Failed() {
		t.Logf("%d source files, no architecture-dependent math", files)
	}
}
