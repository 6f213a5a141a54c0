package radix

// SetWindowLimit makes a sort hold at most bytes in one binding (0: the
// device's maxStorageBufferRange), so that a test sorts small inputs in
// windows; it returns the function that restores the limit.
func SetWindowLimit(bytes uint64) (restore func()) {
	old := testWindowLimit
	testWindowLimit = bytes
	return func() { testWindowLimit = old }
}
