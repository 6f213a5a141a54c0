// tile_reset.glsl: the end of a single pass that leaves its scratch zero.
//
// The includer declares status[], a buffer whose words 0..done hold its
// tile counter, its tiles' status words and, at done, the count of
// workgroups finished. Every workgroup calls countOut once, in uniform
// control flow, after its last access to status: it adds itself to the
// count, and the last workgroup of the dispatch to do so (every other one
// has then finished with status) sets words 0..done back to zero. So the
// next run of the plan, recorded after a barrier as every later write of
// the range is, finds its status words zero with no clear dispatch before
// it; the host knows this at record time (vk.Range.KnownZero) and records
// a clear only when it cannot (first use of a scratch range, or after
// something else wrote it).

shared uint sLastGroup;

void countOut(uint done) {
    memoryBarrierBuffer(); // this workgroup's publishes before its count
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        uint before = atomicAdd(status[done], 1, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        sLastGroup = before + 1 == groups ? 1 : 0;
    }
    barrier();
    if (sLastGroup != 0) {
        memoryBarrierBuffer(); // every other workgroup's accesses before the reset
        for (uint i = gl_LocalInvocationIndex; i <= done; i += gl_WorkGroupSize.x) {
            status[i] = 0;
        }
    }
}
