package compact

// SetWindowLimit makes the single pass hold at most bytes in one binding
// (0: the device's maxStorageBufferRange), so a test cuts small inputs
// into windows; it returns the function that restores the limit.
func SetWindowLimit(bytes uint64) (restore func()) {
	old := testWindowLimit
	testWindowLimit = bytes
	return func() { testWindowLimit = old }
}
