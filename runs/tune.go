package runs

import (
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/vk"
)

// finishTuning is the second dispatch's shape for one class of device.
type finishTuning struct {
	workgroup   uint32 // invocations per workgroup
	groupsPerCU uint32 // workgroups per compute unit, at most
}

// finishTable is runs_finish's shape by class of device: on a GPU enough
// workgroups to keep every compute unit busy (the loop strides over the
// runs), on a CPU device one or two per core.
var finishTable = struct{ gpu, cpu finishTuning }{
	gpu: finishTuning{workgroup: 256, groupsPerCU: 8},
	cpu: finishTuning{workgroup: 64, groupsPerCU: 2},
}

// finishGrid returns runs_finish's workgroup size and workgroups for n
// elements on a device with info: a pure function of both. At least one
// workgroup runs, which writes the result block.
func finishGrid(info vk.DeviceInfo, n uint64) (wg uint32, groups uint64) {
	t := finishTable.gpu
	if info.CPU() {
		t = finishTable.cpu
	}
	wg = min(t.workgroup, max(info.MaxWorkgroupInvocations, 1), max(info.MaxWorkgroupSize[0], 1))
	cap := uint64(max(info.ComputeUnits, 1)) * uint64(t.groupsPerCU)
	groups = min(max(align.CeilDiv(n, uint64(wg)), 1), cap, uint64(max(info.MaxWorkgroupCount[0], 1)))
	return wg, groups
}

// lengthsTable is LengthsAuto's choice by class of device: whether
// Encode finds the lengths in the selection. On a GPU it moves fewer
// bytes: the run starts' indices are neither written nor read back (with
// r runs of n uint32 keys, n + 2r words read and written rather than
// n + 4r: a third fewer at r = n/2), for a record of two words per tile
// or chunk. On the CPU drivers, bound by instructions rather than bytes,
// the finish measured faster at 2^16 uint32 keys (BenchmarkEncodeLengths,
// median wall ms in the selection against the finish, new-run
// probability 0.1 / 0.5 / 0.9: lavapipe at subgroup size 8 0.68-0.72 /
// 1.08-1.17 / 1.08-1.24 against 0.62-0.67 / 1.01-1.09 / 1.03-1.18, at 4
// 0.82 / 1.30-1.34 / 1.28-1.33 against 0.75-0.76 / 1.22-1.23 /
// 1.17-1.23; SwiftShader, three phases there, 2.7-3.3 / 2.9 / 2.9-5.3
// against 2.4-3.0 / 2.4 / 2.3-4.3).
var lengthsTable = struct{ gpu, cpu bool }{gpu: true, cpu: false}

// chooseLengths resolves enc.Lengths on a device with info: a pure
// function of both.
func chooseLengths(info vk.DeviceInfo, enc Encoding) (Lengths, error) {
	switch {
	case enc.Lengths > LengthsFinish:
		return 0, errs.Invalidf("runs: unknown Lengths %d", enc.Lengths)
	case enc.Op == NonTrivial && enc.Lengths == LengthsInSelection:
		return 0, errs.Invalidf("runs: LengthsInSelection applies to Encode; NonTrivial's lengths are runs_finish's")
	case enc.Op == NonTrivial:
		return LengthsFinish, nil
	case enc.Lengths != LengthsAuto:
		return enc.Lengths, nil
	case enc.Write == compact.WriteScattered:
		return LengthsFinish, nil // the lengths are found in the staged write
	}
	in := lengthsTable.gpu
	if info.CPU() {
		in = lengthsTable.cpu
	}
	if in {
		return LengthsInSelection, nil
	}
	return LengthsFinish, nil
}
