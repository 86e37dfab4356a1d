package box2dadapter_test

import (
	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

func cpubackendNew(p narrow.Params) (narrow.Backend, error) { return cpubackend.New(withSize(p)) }

func withSize(p narrow.Params) narrow.Params {
	p.ManifoldSize = box2dadapter.ManifoldSize
	return p
}
