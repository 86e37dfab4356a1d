package scene3d

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// The concave meshes the scenes use, in testdata/ of the repository.
const (
	MeshBunny = "bunny" // 453 vertices, 902 triangles
	MeshTorus = "torus" // 300 vertices, 600 triangles
	MeshTeddy = "teddy" // 1598 vertices, 3192 triangles
	MeshDuck  = "duck"  // 2108 vertices, 4212 triangles
)

// ErrNoMeshes reports that the directory of test meshes was not found.
var ErrNoMeshes = errors.New("test meshes not found")

// FindMeshDir returns dir if it holds bunny.obj; for dir == "" it looks for
// testdata/bunny.obj in the working directory and its parents (so that the
// scenes work from the repository root, from a package directory in tests
// and from cmd/irtcd).
func FindMeshDir(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, MeshBunny+".obj")); err != nil {
			return "", fmt.Errorf("scene3d: %w: %w", ErrNoMeshes, err)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("scene3d: %w: %w", ErrNoMeshes, err)
	}
	for d := wd; ; {
		c := filepath.Join(d, "testdata")
		if _, err := os.Stat(filepath.Join(c, MeshBunny+".obj")); err == nil {
			return c, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("scene3d: %w: %w", ErrNoMeshes, err)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("scene3d: %w: no testdata/%s.obj in %s or its parents (set Options.MeshDir)", ErrNoMeshes, MeshBunny, wd)
		}
		d = up
	}
}

type meshKey struct {
	path string
	size float64
}

var (
	meshMu    sync.Mutex
	meshCache = map[meshKey]*narrow.Shape{}
)

// LoadMesh reads dir/name.obj, moves its bounding-box centre to the local
// origin and scales it about that point so that its Size (half the
// diagonal of its bounding box) is size (0: keep the file's scale). Shapes
// are immutable and cached: the same arguments return the same *Shape, so
// that backends register it once and BVHs are built once per process.
func LoadMesh(dir, name string, size float64) (*narrow.Shape, error) {
	return LoadMeshFile(filepath.Join(dir, name+".obj"), size)
}

// LoadMeshFile reads the mesh file at path (OBJ, STL or PLY, by its
// extension: narrow.ParseMesh) as LoadMesh reads dir/name.obj.
func LoadMeshFile(path string, size float64) (*narrow.Shape, error) {
	k := meshKey{path, size}
	meshMu.Lock()
	defer meshMu.Unlock()
	if s, ok := meshCache[k]; ok {
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scene3d: %w", err)
	}
	defer f.Close()
	verts, tris, err := narrow.ParseMesh(f, path)
	if err != nil {
		return nil, fmt.Errorf("scene3d: %w", err)
	}
	lo, hi := verts[0], verts[0]
	for _, v := range verts {
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = min(lo[i], v[i]), max(hi[i], v[i])
		}
	}
	c := lo.Add(hi).Mul(0.5)
	scale := 1.0
	if size > 0 {
		half := hi.Sub(lo).Len() / 2
		if !(half > 0) {
			return nil, fmt.Errorf("scene3d: %s: mesh has no extent", path)
		}
		scale = size / half
	}
	out := make([]mgl64.Vec3, len(verts))
	for i, v := range verts {
		out[i] = v.Sub(c).Mul(scale)
	}
	s, err := narrow.NewMesh(out, tris)
	if err != nil {
		return nil, fmt.Errorf("scene3d: %s: %w", path, err)
	}
	meshCache[k] = s
	return s, nil
}

// CustomSize is the size (half the bounding-box diagonal, Shape.Size) of
// SceneParams.Meshes in the avalanche and tori100 scenes: about the
// bunny's there (1.31 m).
const CustomSize = 1.3

// meshes returns the scene's meshes with their names: p.Meshes loaded at
// size (names: the files' base names without their extension) if set, else those own
// returns from the directory of test meshes (FindMeshDir(p.MeshDir)).
func (p SceneParams) meshes(size float64, own func(dir string) ([]*narrow.Shape, []string, error)) ([]*narrow.Shape, []string, error) {
	if len(p.Meshes) == 0 {
		dir, err := FindMeshDir(p.MeshDir)
		if err != nil {
			return nil, nil, err
		}
		return own(dir)
	}
	shapes := make([]*narrow.Shape, 0, len(p.Meshes))
	names := make([]string, 0, len(p.Meshes))
	for _, path := range p.Meshes {
		s, err := LoadMeshFile(path, size)
		if err != nil {
			return nil, nil, err
		}
		shapes = append(shapes, s)
		names = append(names, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	return shapes, names, nil
}

// maxRadius returns the largest Radius of shapes.
func maxRadius(shapes []*narrow.Shape) float64 {
	r := 0.0
	for _, s := range shapes {
		r = max(r, s.Radius())
	}
	return r
}
