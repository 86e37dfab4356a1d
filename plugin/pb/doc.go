// Package pb holds the protocol buffer messages and the gRPC service of the
// irtcd plugin protocol, generated from irtcd.proto by protoc-gen-go and
// protoc-gen-go-grpc. Do not edit the .pb.go files: change irtcd.proto and
// run `go generate ./plugin` (see package plugin).
package pb
