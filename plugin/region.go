package plugin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/irtcd/irtcd/plugin/pb"
)

// The shared-memory transport (see doc.go): a file the host creates,
// maps and hands to the plugin, which maps it too; the host then unlinks
// it. Its first regionHeader bytes are the header described in
// pb/irtcd.proto.
const (
	regionMagic     = "IRTCDSHM"
	regionHeader    = 128
	regionReqSeq    = 8  // offset of the request's sequence number
	regionRespSeq   = 16 // offset of the response's sequence number
	regionBell      = 24 // offset of the doorbell (uint32 futex word, host)
	regionAnswer    = 28 // offset of the answer (uint32 futex word, plugin)
	regionStatus    = 32 // offset of the answer's status (uint32)
	regionRespLen   = 40 // offset of the answer's response length
	regionRespSize  = 48 // offset of the answer's response size
	regionRung      = 64 // offset of the rung step's six uint64 fields
	regionMinSize   = 1 << 20
	regionAlign     = 64
	regionPageAlign = 64 << 10
	maxRegionSize   = 4 << 30 // the largest region the plugin maps
)

// region is the host's end of a shared-memory region.
type region struct {
	path string // "" once unlinked
	mem  []byte
}

// newRegion creates a region file of size bytes (mode 0600, in /dev/shm,
// else the temporary directory), reserves its space and maps it.
func newRegion(size int) (*region, error) {
	var errs []error
	for _, dir := range []string{"/dev/shm", os.TempDir()} {
		r, err := newRegionIn(dir, size)
		if err == nil {
			return r, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func newRegionIn(dir string, size int) (*region, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	f, err := os.CreateTemp(dir, "irtcd-shm-*") // mode 0600, O_EXCL
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	r := &region{path: f.Name()}
	if err = allocate(f, int64(size)); err == nil {
		r.mem, err = mapFile(f, size)
	}
	if err != nil {
		os.Remove(r.path)
		return nil, fmt.Errorf("shared region of %d bytes in %s: %w", size, dir, err)
	}
	copy(r.mem, regionMagic)
	return r, nil
}

// unlink removes the region's file; both mappings stay.
func (r *region) unlink() {
	if r.path != "" {
		os.Remove(r.path)
		r.path = ""
	}
}

// close unmaps the region and removes its file if still there.
func (r *region) close() {
	r.unlink()
	if r.mem != nil {
		unmap(r.mem)
		r.mem = nil
	}
}

// openRegion maps the region file at path (plugin side): a regular file of
// at least size bytes.
func openRegion(path string, size uint64) ([]byte, error) {
	if size < regionHeader || size > maxRegionSize {
		return nil, fmt.Errorf("region of %d bytes", size)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() < int64(size) {
		return nil, fmt.Errorf("%s: %v of %d bytes, need a regular file of %d", path, st.Mode(), st.Size(), size)
	}
	mem, err := mapFile(f, int(size))
	if err != nil {
		return nil, err
	}
	if string(mem[:len(regionMagic)]) != regionMagic {
		unmap(mem)
		return nil, fmt.Errorf("%s: not an irtcd shared region", path)
	}
	return mem, nil
}

// Statuses of a rung step's answer.
const (
	ringInRegion = 0 // the response is in the region
	ringTake     = 1 // take the outcome with TakeShared
)

// word returns the 32-bit word of the region mem at off (a multiple of 4)
// for atomic access and futex waits.
func word(mem []byte, off int) *atomic.Uint32 {
	_ = mem[off+3]
	return (*atomic.Uint32)(unsafe.Pointer(&mem[off]))
}

// putRung writes a rung step's DetectSharedRequest into the header.
func putRung(mem []byte, r *pb.DetectSharedRequest) {
	b := mem[regionRung : regionRung+48]
	putU64(b[0:], r.Step)
	putU64(b[8:], r.Seq)
	putU64(b[16:], r.RequestOffset)
	putU64(b[24:], r.RequestLength)
	putU64(b[32:], r.ResponseOffset)
	putU64(b[40:], r.ResponseCapacity)
}

// getRung reads a rung step's DetectSharedRequest from the header.
func getRung(mem []byte, r *pb.DetectSharedRequest) {
	b := mem[regionRung : regionRung+48]
	r.Step, r.Seq = getU64(b[0:]), getU64(b[8:])
	r.RequestOffset, r.RequestLength = getU64(b[16:]), getU64(b[24:])
	r.ResponseOffset, r.ResponseCapacity = getU64(b[32:]), getU64(b[40:])
}

func getU64(b []byte) uint64    { return binary.LittleEndian.Uint64(b) }
func putU64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// roundUp rounds n up to a multiple of a (a power of two).
func roundUp(n, a int) int { return (n + a - 1) &^ (a - 1) }
