// tile_reset.glsl: a single pass that leaves its scratch zero.
//
// The includer declares SELF_RESET and status[], a buffer whose words
// 0..DONE_WORD hold its tile counter, its tiles' status words and, at
// DONE_WORD, the count of workgroups done with status. Each workgroup
// counts itself in once (countIn), after its last status access, with
// release semantics, by the invocation that made its status writes (its
// publishes and fallback publishes). Its other status accesses are the
// look-back's loads and the tile counter's atomicAdd, whose values it
// used before counting in: they are ordered before the count by those
// dependencies, not by the memory model. The workgroup whose count
// completes the dispatch's knows that every other one is done with
// status, and sets words 0..DONE_WORD back to zero as it ends
// (resetIfLast). So the next run of the plan, recorded after a barrier
// as every later write of the range is, finds its status words zero with
// no clear dispatch before it; the host knows this at record time
// (vk.Range.KnownZero) and records a clear only when it cannot (first use
// of a scratch range, or after something else wrote it).
//
// With SELF_RESET 0 neither function does anything and the host clears
// status before every pass: past tiling.SelfResetMaxTiles tiles the one
// counter's atomics cost more than that clear. For the compaction
// SELF_RESET is a #define in select_onepass_reset.comp, absent from
// select_onepass.comp, whose SPIR-V is then the kernel as it was (the
// split is sensitive to registers: as a push constant the switch cost it
// 5% at 2^28 on the H100); for the prefix sum a specialization constant.
//
// The count is taken as soon as the workgroup's look-back is over, not
// at its end behind a fence, so that the atomic's round trip overlaps the
// write-out (on the H100 that saved 0.3 to 1 us: BENCHMARKS.md).

bool counted = false; // this invocation called countIn
uint doneBefore;      // what countIn returned
shared uint sLastGroup;

void countIn() {
    if (SELF_RESET == 0) {
        return;
    }
    doneBefore = atomicAdd(status[DONE_WORD], 1, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    counted = true;
}

// resetIfLast is called by every invocation, in uniform control flow, at
// the end of the workgroup.
void resetIfLast() {
    if (SELF_RESET == 0) {
        return;
    }
    if (counted) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        sLastGroup = doneBefore + 1 == groups ? 1u : 0u;
    }
    barrier();
    if (sLastGroup != 0) {
        memoryBarrierBuffer(); // acquire: every workgroup's status accesses before the reset
        for (uint i = gl_LocalInvocationIndex; i <= DONE_WORD; i += gl_WorkGroupSize.x) {
            status[i] = 0;
        }
    }
}
