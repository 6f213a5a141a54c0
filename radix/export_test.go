package radix

import "github.com/vkcompact/vkcompact/vk"

// SetWindowLimit makes a sort hold at most bytes in one binding (0: the
// device's maxStorageBufferRange), so that a test sorts small inputs in
// windows; it returns the function that restores the limit.
func SetWindowLimit(bytes uint64) (restore func()) {
	old := testWindowLimit
	testWindowLimit = bytes
	return func() { testWindowLimit = old }
}

// SelfResetWords is the number of 32-bit words at the start of a
// single-pass plan's scratch that a run leaves zero with self-reset (the
// digit counts, the tile counters and the first pass's status region).
func SelfResetWords(p *Plan) uint64 { return (p.layout.statusOff + 4*p.status.region(1)) / 4 }

// tuneWithin is tune with the binding limit lowered to limit bytes (0: the
// device's maxStorageBufferRange).
func tuneWithin(info vk.DeviceInfo, n uint64, s Sort, limit uint64) (config, error) {
	defer SetWindowLimit(limit)()
	return tune(info, n, s)
}
