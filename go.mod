module github.com/irtcd/irtcd

go 1.26

require (
	github.com/ByteArena/box2d v1.0.2 // indirect
	github.com/go-gl/mathgl v1.2.0 // indirect
)
