package enginetest

import (
	_ "embed"
	"encoding/binary"
	"fmt"
)

// The engine's own kernels, compiled by `go generate` (see doc.go).
var (
	//go:embed update.spv
	UpdateSPIRV []byte
	//go:embed consume.spv
	ConsumeSPIRV []byte
)

// Workgroup sizes of the kernels: local_size_x in update.comp and
// consume.comp. ConsumeGroupSize is also the compaction's
// Options.GroupSize, so that the dispatch arguments it leaves in the result
// block cover the kept particles in consume's workgroups.
const (
	UpdateGroupSize  = 64
	ConsumeGroupSize = 32
)

// SPIRVWords returns the words of a SPIR-V module.
func SPIRVWords(name string, b []byte) ([]uint32, error) {
	if len(b) < 20 || len(b)%4 != 0 || binary.LittleEndian.Uint32(b) != 0x07230203 {
		return nil, fmt.Errorf("%s is not SPIR-V (%d bytes)", name, len(b))
	}
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words, nil
}
