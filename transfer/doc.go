// Package transfer records the vectorised copy and fill of buffer ranges
// that the operations and their callers record between them: RecordCopy,
// RecordCopyCount (a copy cut to an element count written on the GPU) and
// RecordFill into a pipeline.Recorder, and Copy, which records, submits
// and waits. Their synchronisation contract is package vkcompact's
// (Synchronisation).
package transfer
